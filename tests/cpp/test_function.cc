// tests/cpp/test_function.cc -- Function/TypedFunction, typed unpacking and the registry.
#include <algorithm>
#include <stdexcept>

#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::AnyView;
using ffi::Function;

int AddI(int x) { return x + 1; }
void Kern(ffi::TensorView, ffi::Optional<ffi::TensorView>, ffi::Optional<double>) {}

struct CPUNDAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};
ffi::Tensor MakeTensor() {
  return ffi::Tensor::FromNDAlloc(CPUNDAlloc(), {2}, DLDataType{kDLFloat, 32, 1},
                                  DLDevice{kDLCPU, 0});
}

TEST_SUITE("function") {
  TEST_CASE("typed call and exact mismatch messages") {
    Function f = Function::FromTyped([](const int32_t& a) { return a + 1; });
    CHECK_EQ(f(1).cast<int>(), 2);
    CHECK_EQ(f(true).cast<int>(), 2);  // Bool converts to int
    CHECK_THROWS_FFI(f(1.1), "TypeError",
                     "Mismatched type on argument #0 when calling: `(0: int) -> int`. Expected "
                     "`int` but got `float`");
    CHECK_THROWS_FFI(f(), "TypeError",
                     "Mismatched number of arguments when calling: `(0: int) -> int`. Expected 1 "
                     "but got 0 arguments");
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("named signatures") {
    Function f =
        Function::FromTyped([](TInt, int, AnyView) { return Function(); }, "fpass_and_return");
    CHECK_THROWS_FFI_HAS(f(), "TypeError",
                         "`fpass_and_return(0: test.Int, 1: int, 2: AnyView) -> ffi.Function`");
    Function addi = Function::FromTyped(AddI, "addi");
    CHECK_THROWS_FFI(addi("abc"), "TypeError",
                     "Mismatched type on argument #0 when calling: `addi(0: int) -> int`. "
                     "Expected `int` but got `const char*`");
    CHECK_THROWS_FFI_HAS(addi(std::string("ab")), "TypeError", "got `const char*`");
    CHECK_THROWS_FFI_HAS(addi(nullptr), "TypeError", "got `None`");
    CHECK_EQ(addi(true).cast<int>(), 2);
  }

  TEST_CASE("tensor views and optionals as parameters") {
    ffi::Tensor t = MakeTensor();
    ffi::TensorView tv = t;
    Function k = Function::FromTyped(Kern, "kern");
    k(t, nullptr, nullptr);
    k(t, t, 2);
    k(tv, tv, 2.5);
    CHECK_THROWS_FFI(k(nullptr, nullptr, nullptr), "TypeError",
                     "Mismatched type on argument #0 when calling: `kern(0: DLTensor*, 1: "
                     "Optional<DLTensor*>, 2: Optional<float>) -> void`. Expected `DLTensor*` but "
                     "got `None`");
    Function need_tensor = Function::FromTyped([](ffi::Tensor) {});
    CHECK_THROWS_FFI_HAS(need_tensor(tv), "TypeError", "Expected `ffi.Tensor` but got `DLTensor*`");
  }

  TEST_CASE("bool, narrowing and container parameters") {
    Function fb = Function::FromTyped([](bool b) { return b; });
    CHECK_EQ(fb(5).cast<bool>(), true);
    CHECK_THROWS_FFI_HAS(fb(2.0), "TypeError", "Expected `bool` but got `float`");
    Function f8 = Function::FromTyped([](int8_t v) { return static_cast<int>(v); });
    CHECK_EQ(f8(300).cast<int>(), 44);
    Function fa = Function::FromTyped([](ffi::Array<int> a) { return static_cast<int>(a.size()); });
    CHECK_THROWS_FFI_HAS(fa(ffi::Array<Any>{1.5, 2}), "TypeError",
                         "Expected `Array<int>` but got `Array[index 0: float]`");
    CHECK_EQ(fa(ffi::List<int>{1, 2, 3}).cast<int>(), 3);
    CHECK_EQ(fa(ffi::Array<Any>{true, 2}).cast<int>(), 2);
    Function fv = Function::FromTyped([](ffi::Variant<int, TInt>) {});
    CHECK_THROWS_FFI_HAS(fv(1.1), "TypeError", "Expected `Variant<int, test.Int>` but got `float`");
    Function ft = Function::FromTyped([](ffi::Tuple<int, TPrimExpr>) {});
    CHECK_THROWS_FFI_HAS(ft(ffi::Array<Any>{1.1}), "TypeError", "got `Array[size=1]`");
    CHECK_THROWS_FFI_HAS(ft(ffi::Array<Any>{1.1, 2}), "TypeError", "got `Array[index 0: float]`");
  }

  TEST_CASE("fallback conversions") {
    Function f = Function::FromTyped([](TPrimExpr e) { return ffi::String(e->dtype); });
    CHECK_EQ(f(1).cast<ffi::String>(), "int64");
    CHECK_EQ(f(2.5).cast<ffi::String>(), "float32");
    CHECK_EQ(f(true).cast<ffi::String>(), "bool");
    CHECK_EQ(f("s").cast<ffi::String>(), "s");
    CHECK_THROWS_FFI_HAS(f(TInt(1)), "TypeError", "Expected `test.PrimExpr` but got `test.Int`");
  }

  TEST_CASE("global registry") {
    CHECK_FALSE(Function::GetGlobal("no.such").has_value());
    CHECK_THROWS_FFI(Function::GetGlobalRequired("no.such"), "ValueError",
                     "Function no.such not found");
    ffi::Optional<Function> opt = Function::GetGlobal("missing");
    CHECK_FALSE(opt.has_value());
    CHECK(opt == nullptr);
    Function f = Function::FromTyped([](int a) { return a * 3; });
    Function::SetGlobal("cpptest.x.y", f);
    CHECK_THROWS_FFI_HAS(Function::SetGlobal("cpptest.x.y", f), "RuntimeError",
                         "Global Function `cpptest.x.y` is already registered");
    Function::SetGlobal("cpptest.x.y", f, true);
    CHECK_EQ(Function::GetGlobalRequired("cpptest.x.y")(2).cast<int>(), 6);
    std::vector<ffi::String> names = Function::ListGlobalNames();
    CHECK(std::find(names.begin(), names.end(), ffi::String("cpptest.x.y")) != names.end());
    Function::RemoveGlobal("cpptest.x.y");
    CHECK_FALSE(Function::GetGlobal("cpptest.x.y").has_value());
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("TypedFunction") {
    ffi::TypedFunction<int(int)> f = [](int a) { return a + 1; };
    CHECK_EQ(f(1), 2);
    ffi::TypedFunction<int(int)> empty;
    CHECK(empty == nullptr);
    Any any = std::move(f);
    CHECK(f == nullptr);
    auto back = any.cast<ffi::TypedFunction<int(int)>>();
    CHECK_EQ(back(41), 42);
    ffi::TypedFunction<int(int)> wrong = Function::FromTyped([](int) { return ffi::String("s"); });
    CHECK_THROWS_FFI(wrong(1), "TypeError", "Cannot convert from type `ffi.SmallStr` to `int`");
    CHECK_EQ(ffi::TypeTraits<ffi::TypedFunction<int(int, double)>>::TypeStr(),
             "(0: int, 1: float) -> int");
  }

  TEST_CASE("signature text and type schema of composite types") {
    // Built by joining the parts' strings in one plain function (details::JoinStrs);
    // pinned here so the form stays the one the readers (stubgen, Python) parse.
    using F = ffi::Map<ffi::String, ffi::Array<int64_t>> (*)(
        ffi::Variant<int64_t, ffi::String>, ffi::Optional<ffi::Tuple<int64_t, double>>,
        ffi::List<bool>, ffi::Dict<ffi::String, Any>);
    using S = ffi::details::FuncTraitsOf<F>;
    CHECK_EQ(S::Sig(),
             "(0: Variant<int, str>, 1: Optional<Tuple<int, float>>, 2: List<bool>, "
             "3: Dict<str, Any>) -> Map<str, Array<int>>");
    CHECK_EQ(
        S::Schema(),
        "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"ffi.Map\",\"args\":"
        "[{\"type\":\"ffi.String\"},{\"type\":\"ffi.Array\",\"args\":[{\"type\":\"int\"}]}]}],"
        "\"params\":[{\"type\":\"Variant\",\"args\":[{\"type\":\"int\"},{\"type\":"
        "\"ffi.String\"}]},{\"type\":\"Optional\",\"args\":[{\"type\":\"Tuple\",\"args\":"
        "[{\"type\":\"int\"},{\"type\":\"float\"}]}]},{\"type\":\"ffi.List\",\"args\":"
        "[{\"type\":\"bool\"}]},{\"type\":\"ffi.Dict\",\"args\":[{\"type\":\"ffi.String\"},"
        "{\"type\":\"Any\"}]}]}}");
    CHECK_EQ(ffi::TypeTraits<ffi::TypedFunction<void()>>::TypeSchema(),
             "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"None\"}],"
             "\"params\":[]}}");
    CHECK_EQ(ffi::TypeTraits<ffi::Tuple<>>::TypeStr(), "Tuple<>");
  }

  TEST_CASE("packed functions and PackedArgs") {
    AnyView data[3];
    TInt tint(7);
    ffi::PackedArgs::Fill(data, 3, 1, tint);
    CHECK_EQ(data[2].cast<TInt>()->value, 7);
    Function sum = Function::FromPacked([](ffi::PackedArgs a, Any* rv) {
      int64_t s = 0;
      for (int i = 0; i < a.size(); ++i) s += a[i].cast<int64_t>();
      *rv = s;
    });
    CHECK_EQ(sum(1, 2, 3).cast<int>(), 6);
    Function raw = Function::FromPacked([](const AnyView*, int32_t n, Any* rv) { *rv = n; });
    CHECK_EQ(raw(1, "x").cast<int>(), 2);
  }

  TEST_CASE("C++ exceptions stay C++ in-process and become InternalError through C") {
    Function boom = Function::FromTyped([]() -> int { throw std::runtime_error("boom"); });
    CHECK_THROWS_AS(boom(), std::runtime_error);
    // through the C entry point, as a foreign caller would see it
    TVMFFIAny result{};
    const TVMFFIFunctionCell* cell = TVMFFIFunctionGetCellPtr(ffi::details::RefHandle(boom));
    int rc = cell->safe_call(ffi::details::RefHandle(boom), nullptr, 0, &result);
    CHECK_EQ(rc, -1);
    ffi::Error err = ffi::details::MoveFromSafeCallRaised();
    CHECK_EQ(err.kind(), "InternalError");
    CHECK_EQ(err.message(), "boom");
    CHECK_EQ(result.type_index, kTVMFFINone);
    // a function created by the runtime is always called through safe_call
    Function c = Function::FromExternC(
        nullptr,
        [](void*, const TVMFFIAny* args, int32_t, TVMFFIAny* res) -> int {
          res->type_index = kTVMFFIInt;
          res->v_int64 = args[0].v_int64 + 1;
          return 0;
        },
        nullptr);
    CHECK_EQ(c(1).cast<int>(), 2);
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("errors raised in C come back as exceptions") {
    Function c = Function::FromExternC(
        nullptr,
        [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) -> int {
          TVMFFIErrorSetRaisedFromCStr("ValueError", "raised in C");
          return -1;
        },
        nullptr);
    CHECK_THROWS_FFI(c(), "ValueError", "raised in C");
    CHECK_THROWS_FFI(Function::InvokeExternC(nullptr,
                                             [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
                                               TVMFFIErrorSetRaisedFromCStr("KeyError", "k");
                                               return -1;
                                             }),
                     "KeyError", "k");
    CHECK(RaisedSlotIsClean());
  }
}
}  // namespace

namespace {
TEST_SUITE("expected") {
  TEST_CASE("CallExpected and Expected returns") {
    namespace ffi = tvm::ffi;
    ffi::Function thrower =
        ffi::Function::FromTyped([](int) -> int { TVM_FFI_THROW(ValueError) << "no"; });
    ffi::Expected<int> r = thrower.CallExpected<int>(-1);
    CHECK(r.is_err());
    CHECK_EQ(r.error().kind(), "ValueError");
    CHECK_THROWS_FFI(r.value(), "ValueError", "no");
    ffi::Function div = ffi::Function::FromTyped([](int a, int b) -> ffi::Expected<int> {
      if (b == 0) return ffi::Unexpected(ffi::Error("ValueError", "division by zero", ""));
      return a / b;
    });
    CHECK_EQ(div(10, 2).cast<int>(), 5);
    CHECK_THROWS_FFI_HAS(div(10, 0).cast<int>(), "TypeError", "ffi.Error");
    ffi::Expected<int> e = div.CallExpected<int>(10, 0);
    CHECK(e.is_err());
    CHECK_EQ(e.error().message(), "division by zero");
    CHECK_EQ(div.CallExpected<int>(9, 3).value(), 3);
    ffi::Expected<ffi::String> mismatch = div.CallExpected<ffi::String>(9, 3);
    CHECK_EQ(mismatch.error().message(),
             "CallExpected: result type mismatch, expected str, but got int");
    CHECK_THROWS_FFI(ffi::Expected<int>(1).error(), "RuntimeError",
                     "Bad expected access: contains value, not error");
    CHECK(RaisedSlotIsClean());
  }
}
}  // namespace
