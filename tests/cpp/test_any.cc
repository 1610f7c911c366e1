// tests/cpp/test_any.cc -- Any/AnyView storage, strict and converting extraction.
#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::AnyView;

TEST_SUITE("any") {
  TEST_CASE("None casts fail with the target type name") {
    AnyView v;
    CHECK_EQ(v.type_index(), kTVMFFINone);
    CHECK(v == nullptr);
    CHECK_THROWS_FFI(v.cast<int>(), "TypeError", "Cannot convert from type `None` to `int`");
    CHECK_THROWS_FFI(v.cast<bool>(), "TypeError", "Cannot convert from type `None` to `bool`");
    CHECK_THROWS_FFI(v.cast<double>(), "TypeError", "Cannot convert from type `None` to `float`");
    CHECK_THROWS_FFI(v.cast<DLDevice>(), "TypeError",
                     "Cannot convert from type `None` to `Device`");
    CHECK_THROWS_FFI(v.cast<DLDataType>(), "TypeError",
                     "Cannot convert from type `None` to `DataType`");
    CHECK_THROWS_FFI(v.cast<DLTensor*>(), "TypeError",
                     "Cannot convert from type `None` to `DLTensor*`");
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("int: strict vs converting") {
    AnyView v = 1;
    CHECK_EQ(v.type_index(), kTVMFFIInt);
    CHECK_EQ(v.CopyToTVMFFIAny().v_int64, 1);
    CHECK(v.as<int64_t>().has_value());
    CHECK_FALSE(v.as<bool>().has_value());
    CHECK_FALSE(v.as<double>().has_value());
    CHECK_EQ(v.try_cast<bool>().value(), true);
    CHECK_EQ(v.try_cast<double>().value(), 1.0);
    CHECK_EQ(v.cast<float>(), 1.0f);
    Any a = true;
    CHECK(a.as<bool>().has_value());
    CHECK_EQ(a.try_cast<int>().value(), 1);
    CHECK(a.try_cast<double>().has_value());
    CHECK_THROWS_FFI(Any(3.5).cast<int>(), "TypeError",
                     "Cannot convert from type `float` to `int`");
    CHECK_THROWS_FFI(Any(1).as_or_throw<double>(), "TypeError",
                     "Cannot treat type `int` as type `float`");
    int8_t narrowed = Any(300).cast<int8_t>();
    CHECK_EQ(narrowed, 44);
  }

  TEST_CASE("uint64 overflow and enums") {
    uint64_t big = static_cast<uint64_t>(INT64_MAX) + 1;
    CHECK_THROWS_FFI_HAS((void)AnyView(big), "OverflowError", "is too large to fit in int64_t");
    enum class E : int { A = 1, B = 2 };
    AnyView e = E::A;
    CHECK_EQ(e.type_index(), kTVMFFIInt);
    CHECK(e.cast<E>() == E::A);
  }

  TEST_CASE("object references and counts") {
    TInt ref(11);
    {
      AnyView view = ref;
      CHECK_EQ(ref.use_count(), 1);
      Any any = ref;
      CHECK_EQ(ref.use_count(), 2);
      AnyView v2 = any;
      CHECK_EQ(ref.use_count(), 2);
      CHECK_EQ(v2.cast<TInt>()->value, 11);
      const TIntObj* raw = view.as<TIntObj>();
      REQUIRE(raw != nullptr);
      CHECK_EQ(ref.use_count(), 2);
      Any x = raw;  // Any(T*) takes a reference
      CHECK_EQ(ref.use_count(), 3);
    }
    CHECK_EQ(ref.use_count(), 1);
    Any a = TInt(5);
    CHECK_THROWS_FFI(a.cast<TFloat>(), "TypeError",
                     "Cannot convert from type `test.Int` to `test.Float`");
    TNumber n = a.cast<TNumber>();
    CHECK(n.same_as(a.cast<TInt>()));
    TInt moved = std::move(a).cast<TInt>();
    CHECK(a == nullptr);
    CHECK_EQ(moved.use_count(), 2);  // `n` shares it
  }

  TEST_CASE("strings: raw, small and heap forms") {
    AnyView v = "hello";
    CHECK_EQ(v.type_index(), kTVMFFIRawStr);
    Any b = v;
    CHECK_EQ(b.type_index(), kTVMFFISmallStr);
    Any c = "long string very long";
    CHECK_EQ(c.type_index(), kTVMFFIStr);
    CHECK_EQ(Any(ffi::String("abcdefg")).type_index(), kTVMFFISmallStr);
    CHECK_EQ(Any(ffi::String("abcdefgh")).type_index(), kTVMFFIStr);
    CHECK_EQ(Any(ffi::String(std::string("a"))).type_index(), kTVMFFIStr);
    CHECK_EQ(b.cast<std::string>(), "hello");
    CHECK_EQ(c.cast<ffi::String>(), "long string very long");
    CHECK_THROWS_FFI(Any(ffi::String("x")).cast<int>(), "TypeError",
                     "Cannot convert from type `ffi.SmallStr` to `int`");
    CHECK_THROWS_FFI(Any(ffi::String("a long string")).cast<int>(), "TypeError",
                     "Cannot convert from type `ffi.String` to `int`");
    CHECK_THROWS_FFI(Any(ffi::Bytes("xx", 2)).cast<ffi::String>(), "TypeError",
                     "Cannot convert from type `ffi.SmallBytes` to `str`");
  }

  TEST_CASE("AnyEqual/AnyHash across small and heap strings") {
    Any small = ffi::String("a1"), heap = ffi::String(std::string("a1"));
    CHECK_NE(small.type_index(), heap.type_index());
    CHECK(ffi::AnyEqual()(small, heap));
    CHECK_EQ(ffi::AnyHash()(small), ffi::AnyHash()(heap));
    Any b1 = ffi::Bytes("a1", 2), b2 = ffi::Bytes(std::string("a1"));
    CHECK(ffi::AnyEqual()(b1, b2));
    CHECK_EQ(ffi::AnyHash()(b1), ffi::AnyHash()(b2));
    CHECK_FALSE(ffi::AnyEqual()(Any(1), Any(1.0)));
    CHECK_FALSE(ffi::AnyEqual()(small, b1));
  }

  TEST_CASE("ObjectRef target") {
    CHECK_THROWS_FFI(Any(1).cast<ffi::ObjectRef>(), "TypeError",
                     "Cannot convert from type `int` to `ffi.Object`");
    CHECK(Any(ffi::String("a heap string")).try_cast<ffi::ObjectRef>().has_value());
    CHECK_FALSE(Any(ffi::String("small")).try_cast<ffi::ObjectRef>().has_value());
  }

  TEST_CASE("devices and dtypes from strings") {
    DLDevice d = AnyView("cuda:3").cast<DLDevice>();
    CHECK_EQ(d.device_type, kDLCUDA);
    CHECK_EQ(d.device_id, 3);
    d = AnyView("mps").cast<DLDevice>();
    CHECK_EQ(d.device_type, kDLMetal);
    CHECK_EQ(d.device_id, 0);
    CHECK(AnyView("cuda:2147483647").try_cast<DLDevice>().has_value());
    for (const char* bad : {"cuda:", "cuda:-1", "cuda:1:2", "cuda:2147483648", "llvm", "unknown"}) {
      CHECK_MESSAGE(!AnyView(bad).try_cast<DLDevice>().has_value(), bad);
    }
    DLDataType f32 = AnyView("float32").try_cast<DLDataType>().value();
    CHECK(f32 == DLDataType{kDLFloat, 32, 1});
    DLDataType bf = Any(ffi::String("bfloat16x2")).cast<DLDataType>();
    CHECK(bf == DLDataType{kDLBfloat, 16, 2});
    CHECK_THROWS_FFI_HAS(AnyView("notadtype").try_cast<DLDataType>(), "ValueError", "notadtype");
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("DLTensor* cannot be owned") {
    DLTensor t{};
    CHECK_THROWS_FFI(Any a = &t, "RuntimeError",
                     "DLTensor* cannot be held in Any as it does not retain ownership, use Tensor "
                     "instead");
    AnyView v = &t;
    CHECK_EQ(v.type_index(), kTVMFFIDLTensorPtr);
    CHECK_EQ(v.cast<DLTensor*>(), &t);
  }

  TEST_CASE("copy, move and self-assignment keep counts balanced") {
    TInt ref(3);
    Any a = ref;
    Any& alias = a;
    a = alias;
    CHECK_EQ(ref.use_count(), 2);
    Any b = std::move(a);
    CHECK(a == nullptr);
    CHECK_EQ(ref.use_count(), 2);
    b.reset();
    CHECK_EQ(ref.use_count(), 1);
    CHECK(Any(ref).same_as(ref));
    CHECK_FALSE(Any(TInt(3)).same_as(ref));
  }

  TEST_CASE("objects with a base in front of Object") {
    ffi::ObjectPtr<TPaddedObj> p = ffi::make_object<TPaddedObj>();
    ffi::ObjectRef r(p);
    Any a = r;
    const TPaddedObj* back = a.as<TPaddedObj>();
    REQUIRE(back != nullptr);
    CHECK_EQ(back->x, 42);
    CHECK_EQ(back->pad[2], 3);
    CHECK_EQ(a.GetTypeKey(), "test.Padded");
  }
}
}  // namespace
