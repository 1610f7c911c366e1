// tests/cpp/test_optional.cc -- Optional storage forms, Variant and Tuple.
#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Optional;

static_assert(sizeof(Optional<TInt>) == sizeof(void*));
static_assert(sizeof(Optional<ffi::Function>) == sizeof(void*));
static_assert(sizeof(Optional<ffi::Array<int>>) == sizeof(void*));
static_assert(sizeof(Optional<int>) == 16);
static_assert(sizeof(Optional<double>) == 16);
static_assert(sizeof(Optional<ffi::String>) == 16);
static_assert(sizeof(Optional<ffi::Bytes>) == 16);
static_assert(sizeof(Optional<Optional<int>>) == 16);
static_assert(sizeof(ffi::Variant<int, ffi::String>) == 16);
static_assert(sizeof(Optional<ffi::TensorView>) == 56);
// An object Optional is a pointer, not a reference that could be sliced into ObjectRef.
static_assert(!std::is_base_of_v<ffi::ObjectRef, Optional<TInt>>);
static_assert(!std::is_convertible_v<Optional<TInt>, ffi::ObjectRef>);
static_assert(std::is_same_v<Optional<TInt>::value_type, TInt>);
static_assert(ffi::object_ref_contains_v<TNumber, TIntObj>);
static_assert(!ffi::object_ref_contains_v<TInt, TNumberObj>);
static_assert(!ffi::object_ref_contains_v<ffi::Array<TInt>, ffi::ArrayObj>);

// An ABI object: its type ("test.Int") is registered elsewhere and looked up by key.
struct LookedUpIntObj : public ffi::Object {
  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("test.Int", 2);
};
struct NeverRegisteredObj : public ffi::Object {
  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("test.NeverRegistered", 1);
};

TEST_SUITE("optional") {
  TEST_CASE("value access") {
    CHECK_THROWS_FFI(Optional<int>().value(), "RuntimeError", "Back optional access");
    CHECK_EQ(Optional<int>().value_or(12), 12);
    Optional<double> y = 11.0;
    CHECK(y == 11);
    CHECK(y != 12);
    Optional<ffi::String> s;
    CHECK(s != "default");
    CHECK(s == std::nullopt);
    s = "hello";
    CHECK(s == "hello");
    CHECK(s == ffi::String("hello"));
    CHECK_EQ(s.value(), "hello");
  }

  TEST_CASE("object optionals move through Any") {
    Optional<TInt> y = TInt(11);
    Any z = std::move(y);
    CHECK_FALSE(y.has_value());
    Optional<TInt> back = std::move(z).cast<Optional<TInt>>();
    REQUIRE(back.has_value());
    CHECK_EQ(back.value()->value, 11);
    ffi::ObjectRef obj = TInt(3);
    Optional<ffi::ObjectRef> oo = obj;
    CHECK(Any(oo).cast<Optional<ffi::ObjectRef>>().value().same_as(obj));
    Optional<TInt> none = Any().cast<Optional<TInt>>();
    CHECK_FALSE(none.has_value());
  }

  TEST_CASE("nesting") {
    Optional<Optional<int>> o = Optional<int>(std::nullopt);
    CHECK_FALSE(o.has_value());
    Optional<Optional<int>> seven = Optional<int>(7);
    REQUIRE(seven.has_value());
    CHECK_EQ(seven.value().value(), 7);
  }

  TEST_CASE("mismatch names the Optional") {
    Any a = ffi::Array<ffi::Array<TNumber>>{ffi::Array<TNumber>{TInt(1)}};
    CHECK_THROWS_FFI_HAS(a.cast<Optional<ffi::Array<ffi::Array<int>>>>(), "TypeError",
                         "to `Optional<Array<Array<int>>>`");
  }

  TEST_CASE("Variant") {
    ffi::Variant<int, float> v = 1;
    CHECK_EQ(v.get<int>(), 1);
    ffi::Variant<TPrimExpr, ffi::Array<TPrimExpr>> pe =
        Any(1).cast<ffi::Variant<TPrimExpr, ffi::Array<TPrimExpr>>>();
    REQUIRE(pe.as<TPrimExpr>().has_value());
    CHECK_EQ(pe.as<TPrimExpr>().value()->dtype, "int64");
    ffi::String heap = "a heap allocated string";
    ffi::Variant<ffi::String, int> a = heap, b = heap;
    CHECK(a.same_as(b));
    ffi::Variant<ffi::String, int> c = ffi::String("a heap allocated string");
    CHECK_FALSE(a.same_as(c));
  }

  TEST_CASE("Tuple") {
    ffi::Tuple<int, float> t(1, 2.0f);
    ffi::Tuple<int, float> t2 = t;
    t2.Set<0>(3);
    CHECK_EQ(t.get<0>(), 1);
    CHECK_EQ(t2.get<0>(), 3);
    auto [a, b, c] = ffi::Tuple{1, 2.0f, ffi::String("hello")};
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 2.0f);
    CHECK_EQ(c, "hello");
    ffi::Tuple<TInt, int> unique_tuple(TInt(5), 1);
    TInt moved = ffi::get<0>(std::move(unique_tuple));
    CHECK_EQ(moved.use_count(), 1);
    Any as_any = ffi::Tuple<int, double>(1, 2.5);
    CHECK_EQ(as_any.type_index(), kTVMFFIArray);
    auto back = as_any.cast<ffi::Tuple<int, double>>();
    CHECK_EQ(back.get<1>(), 2.5);
  }
}
}  // namespace

namespace {
TEST_SUITE("rvalue_ref") {
  TEST_CASE("object Optional: strict as_or_throw keeps the value when it fails") {
    TInt x(5);
    Optional<TNumber> opt = x;
    CHECK_EQ(opt.as<TIntObj>()->value, 5);
    CHECK_THROWS_FFI_HAS(std::move(opt).as_or_throw<TFloat>(), "TypeError", "test.Float");
    CHECK(opt.has_value());  // NOLINT(bugprone-use-after-move)
    CHECK_EQ(x.use_count(), 2);
    TInt moved = std::move(opt).as_or_throw<TInt>();
    CHECK_FALSE(opt.has_value());  // NOLINT(bugprone-use-after-move)
    CHECK(opt.same_as(Optional<TNumber>()));
    CHECK_EQ(moved.use_count(), 2);
    CHECK(Optional<TInt>(moved).same_as(x));
  }

  TEST_CASE("TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP finds the registered index") {
    CHECK_EQ(LookedUpIntObj::RuntimeTypeIndex(), TIntObj::RuntimeTypeIndex());
    CHECK_THROWS_FFI_HAS(NeverRegisteredObj::RuntimeTypeIndex(), "InternalError",
                         "test.NeverRegistered");
  }

  TEST_CASE("WeakObjectPtr::swap") {
    ffi::ObjectPtr<TIntObj> a = ffi::make_object<TIntObj>(1), b = ffi::make_object<TIntObj>(2);
    ffi::WeakObjectPtr<TIntObj> wa(a), wb(b);
    wa.swap(wb);
    CHECK_EQ(wa.lock()->value, 2);
    CHECK_EQ(wb.lock()->value, 1);
  }

  TEST_CASE("an rvalue argument arrives unique") {
    namespace ffi = tvm::ffi;
    ffi::Function f = ffi::Function::FromTyped([](ffi::RValueRef<ffi::Array<int>> ref) {
      ffi::Array<int> a = *std::move(ref);
      bool was_unique = a.unique();
      a.push_back(3);
      return was_unique;
    });
    CHECK(f(ffi::RValueRef(ffi::Array<int>{1, 2})).cast<bool>());
    ffi::Array<int> kept = {1, 2};
    CHECK_FALSE(f(kept).cast<bool>());
    CHECK_EQ(kept.size(), 2u);
    ffi::Function plain = ffi::Function::FromTyped([](testing::TInt) {});
    CHECK_THROWS_FFI_HAS(plain(ffi::RValueRef(testing::TInt(1))), "TypeError",
                         "got `ObjectRValueRef`");
    ffi::Function wrong = ffi::Function::FromTyped([](ffi::RValueRef<testing::TInt>) {});
    CHECK_THROWS_FFI_HAS(wrong(ffi::RValueRef(testing::TFloat(1))), "TypeError",
                         "got `RValueRef<test.Float>`");
  }
}
}  // namespace
