// tests/cpp/test_native_function.cc -- reflection/native_function.h: native hooks called
// through the adapter pointer (FromNative) or a borrowed/owned ffi.Function, errors as
// values (CallExpected) or exceptions (operator()), and the round trip through Any.
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/reflection/native_function.h>
#include <tvm/ffi/reflection/registry.h>

#include <stdexcept>
#include <string>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Error;
using ffi::Expected;
using ffi::TypedFunction;
using ffi::reflection::NativeFunction;
using ffi::reflection::NativeFunctionView;

static_assert(sizeof(NativeFunctionView<int(int)>) == sizeof(TVMFFIAny));
static_assert(sizeof(NativeFunction<int(int)>) == sizeof(Any));
static_assert(!std::is_default_constructible_v<NativeFunctionView<int(int)>>);
static_assert(!std::is_constructible_v<NativeFunctionView<int(int)>, TypedFunction<int(int)>&&>);

Expected<int> Twice(int x) noexcept { return 2 * x; }
int Negate(int x) { return -x; }
Expected<int> Refuse(int) noexcept { return ffi::Unexpected(Error("ValueError", "refused", "")); }
int ThrowsStd(int) { throw std::out_of_range("too far"); }
int ThrowsFFI(int) { throw Error("KeyError", "no such key", ""); }
int g_seen = 0;
void Record(int x) { g_seen = x; }
int64_t Length(const Any& v) noexcept { return static_cast<int64_t>(v.cast<ffi::String>().size()); }

// A map key whose equality is its id (hash hooks: kAnyHash / kAnyEqual); id < 0 cannot hash.
class NKeyObj : public ffi::Object {
 public:
  int64_t id;
  explicit NKeyObj(int64_t id) : id(id) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpptest.native.Key", NKeyObj, ffi::Object);
};
int64_t KeyHash(const Any& k) {
  int64_t id = k.as<NKeyObj>()->id;
  if (id < 0) throw Error("ValueError", "negative key", "");
  return id % 2;
}
bool KeyEqual(const Any& a, const Any& b) { return a.as<NKeyObj>()->id == b.as<NKeyObj>()->id; }
Any Key(int64_t id) { return Any(ffi::make_object<NKeyObj>(id)); }

TEST_SUITE("native_function") {
  TEST_CASE("map-key hooks through native_fn_attr") {
    ffi::reflection::TypeAttrDef<NKeyObj>()
        .native_fn_attr<&KeyHash>(ffi::type_attr::kAnyHash)
        .native_fn_attr<&KeyEqual>(ffi::type_attr::kAnyEqual);
    // Registered as the FromNative adapter (TVMFFIAny f(const Any&) noexcept), as apache's
    // headers do; the runtime stores it wrapped in a Function that calls it in the convention of
    // the release that built it, which callers of every release handle (docs/abi.md §5.6).
    ffi::AnyView hook =
        ffi::reflection::TypeAttrColumn(ffi::type_attr::kAnyHash)[NKeyObj::RuntimeTypeIndex()];
    CHECK(hook.type_index() == kTVMFFIFunction);
    CHECK(hook.cast<NativeFunctionView<int64_t(const Any&)>>()(Key(5)) == 1);
    ffi::Map<Any, int> m{{Key(1), 10}, {Key(3), 30}, {Key(4), 40}, {Key(6), 60}, {Key(8), 80}};
    CHECK(m.size() == 5);
    CHECK(m.at(Key(3)) == 30);  // another object, same id; 1 and 3 collide
    CHECK(m.count(Key(5)) == 0);
    CHECK_THROWS_WITH(m.count(Key(-1)), doctest::Contains("negative key"));
  }

  TEST_CASE("native pointers") {
    auto twice = NativeFunctionView<int(int)>::FromNative<&Twice>();
    CHECK(twice(4) == 8);
    CHECK(twice.CallExpected(5).value() == 10);
    CHECK(NativeFunctionView<int(int)>::FromNative<&Negate>()(3) == -3);
    CHECK(ffi::AnyView(twice).type_index() == kTVMFFIOpaquePtr);
    CHECK(Any(twice).cast<NativeFunctionView<int(int)>>()(1) == 2);
    auto length = NativeFunction<int64_t(const Any&)>::FromNative<&Length>();
    CHECK(length(Any(ffi::String("four"))) == 4);
    NativeFunction<void(int)>::FromNative<&Record>()(7);
    CHECK(g_seen == 7);
  }

  TEST_CASE("errors") {
    Expected<int> refused = NativeFunctionView<int(int)>::FromNative<&Refuse>().CallExpected(0);
    REQUIRE(refused.is_err());
    CHECK(refused.error().kind() == "ValueError");
    CHECK_THROWS_AS(NativeFunctionView<int(int)>::FromNative<&Refuse>()(0), Error);
    Expected<int> std_err = NativeFunctionView<int(int)>::FromNative<&ThrowsStd>().CallExpected(0);
    REQUIRE(std_err.is_err());
    CHECK(std_err.error().kind() == "InternalError");
    CHECK(std_err.error().message() == "too far");
    CHECK(NativeFunctionView<int(int)>::FromNative<&ThrowsFFI>().CallExpected(0).error().kind() ==
          "KeyError");
    // A packed function's raised error and a result of the wrong type.
    TypedFunction<int(int)> raises([](int) -> int { throw Error("IndexError", "out", ""); });
    CHECK(NativeFunctionView<int(int)>(raises).CallExpected(0).error().kind() == "IndexError");
    TypedFunction<int(int)> wrong(ffi::Function::FromTyped([](int) { return ffi::String("x"); }));
    Expected<int> mismatch = NativeFunctionView<int(int)>(wrong).CallExpected(0);
    REQUIRE(mismatch.is_err());
    CHECK(mismatch.error().kind() == "TypeError");
    TypedFunction<int(int)> empty;
    CHECK_THROWS_AS(NativeFunctionView<int(int)>{empty}, Error);
    CHECK_FALSE(Any(nullptr).try_cast<NativeFunctionView<int(int)>>().has_value());
    CHECK_FALSE(Any(static_cast<void*>(nullptr)).try_cast<NativeFunction<int(int)>>().has_value());
  }

  TEST_CASE("views borrow, owners keep the function") {
    NativeFunction<int(int)>* owner = nullptr;
    {
      TypedFunction<int(int)> add3([](int x) { return x + 3; });
      const ffi::Object* obj = add3.packed().get();
      int before = obj->use_count();
      NativeFunctionView<int(int)> view = add3;
      CHECK(obj->use_count() == before);
      CHECK(view(1) == 4);
      owner = new NativeFunction<int(int)>(view);
      CHECK(obj->use_count() == before + 1);
      Any stored = *owner;
      CHECK(obj->use_count() == before + 2);
      CHECK(stored.cast<NativeFunction<int(int)>>()(2) == 5);
    }
    CHECK((*owner)(10) == 13);  // the TypedFunction is gone, the owner keeps the function
    CHECK(owner->CallExpected(0).value() == 3);
    delete owner;
  }
}
}  // namespace
