// tests/cpp/test_reflection.cc -- GlobalDef/ObjectDef in this binary, object model basics.
#include <stdexcept>

#include <tvm/ffi/extra/dtype.h>

#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Function;

struct Boom : ffi::Object {
  Boom() { throw std::logic_error("ctor"); }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpptest.Boom", Boom, ffi::Object);
};
static_assert(Boom::_type_final, "the FINAL macro marks the type final");

class TestObjA : public ffi::Object {
 public:
  int64_t x;
  int64_t y;
  TestObjA(int64_t a, int64_t b) : x(a), y(b) {}
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpptest.ObjA", TestObjA, ffi::Object);
};
class TestObjARef : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TestObjARef, ffi::ObjectRef, TestObjA);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("cpptest.add1", [](int x) { return x + 1; })
      .def_method("cpptest.Int_GetValue", &TIntObj::GetValue)
      .def("cpptest.meta", [](int x) { return x; }, refl::Metadata{{"bound", 3}, {"pure", true}});
  refl::ObjectDef<TestObjA>()
      .def(refl::init<int64_t, int64_t>())
      .def_ro("x", &TestObjA::x)
      .def_rw("y", &TestObjA::y, "the y field", refl::default_value(10.0))
      .def_convert<TestObjARef>();
}

TEST_SUITE("reflection") {
  TEST_CASE("GlobalDef registers typed functions with metadata") {
    CHECK_EQ(Function::GetGlobalRequired("cpptest.add1")(1).cast<int>(), 2);
    CHECK_EQ(Function::GetGlobalRequired("cpptest.Int_GetValue")(TInt(9)).cast<int>(), 9);
    ffi::String meta = Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata")("cpptest.meta")
                           .cast<ffi::String>();
    CHECK_MESSAGE(meta.find("type_schema") != ffi::String::npos, meta);
    CHECK_MESSAGE(meta.find("\"bound\":3") != ffi::String::npos, meta);
    CHECK_MESSAGE(meta.find("\"pure\":true") != ffi::String::npos, meta);
    CHECK_THROWS_FFI_HAS(refl::GlobalDef().def("cpptest.add1", [](int x) { return x; }),
                         "RuntimeError", "Global Function `cpptest.add1` is already registered");
    CHECK_THROWS_FFI_HAS(
        refl::GlobalDef().def(
            "cpptest.badmeta", [](int x) { return x; }, refl::Metadata{{"f", 1.5}}),
        "TypeError", "must be int, bool or string");
  }

  TEST_CASE("ObjectDef fields, flags and __ffi_init__") {
    int32_t tindex = TestObjA::RuntimeTypeIndex();
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tindex);
    REQUIRE_EQ(info->num_fields, 2);
    for (int i = 0; i < 2; ++i) {
      CHECK_EQ(info->fields[i].offset, static_cast<int64_t>(sizeof(TVMFFIObject) + 8 * i));
    }
    const TVMFFIFieldInfo& y = info->fields[1];
    CHECK((y.flags & kTVMFFIFieldFlagBitMaskWritable) != 0);
    CHECK((y.flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0);
    CHECK_EQ(ffi::AnyView::CopyFromTVMFFIAny(y.default_value_or_factory).cast<double>(), 10.0);
    CHECK_EQ(std::string(y.doc.data, y.doc.size), "the y field");
    CHECK_EQ(refl::GetFieldByteOffsetToObject(&TestObjA::x),
             static_cast<int64_t>(sizeof(TVMFFIObject)));
    TVMFFIByteArray name{"__ffi_init__", 12};
    const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
    REQUIRE(col != nullptr);
    Function init =
        ffi::AnyView::CopyFromTVMFFIAny(col->data[tindex - col->begin_index]).cast<Function>();
    ffi::ObjectRef obj = init(1, 2).cast<ffi::ObjectRef>();
    const TestObjA* a = obj.as<TestObjA>();
    REQUIRE(a != nullptr);
    CHECK_EQ(a->x, 1);
    CHECK_EQ(a->y, 2);
    // setter converts with Any::cast and rejects wrong types
    auto setter = reinterpret_cast<TVMFFIFieldSetter>(y.setter);
    char* base = static_cast<char*>(ffi::details::RefHandle(obj));
    ffi::AnyView v = 20;
    CHECK_EQ(setter(base + y.offset, ffi::details::AnyUnsafe::GetRaw(&v)), 0);
    CHECK_EQ(a->y, 20);
    ffi::AnyView s = "str";
    CHECK_EQ(setter(base + y.offset, ffi::details::AnyUnsafe::GetRaw(&s)), -1);
    CHECK_EQ(ffi::details::MoveFromSafeCallRaised().kind(), "TypeError");
  }
}

TEST_SUITE("accessor") {
  TEST_CASE("FieldGetter, FieldSetter, GetFieldInfo, TypeAttrColumn") {
    ffi::ObjectRef obj(ffi::make_object<TestObjA>(3, 4));
    CHECK_EQ(refl::FieldGetter("cpptest.ObjA", "x")(obj).cast<int>(), 3);
    refl::FieldSetter("cpptest.ObjA", "y")(obj, 20);
    CHECK_EQ(obj.as<TestObjA>()->y, 20);
    CHECK_THROWS_FFI_HAS(refl::FieldSetter("cpptest.ObjA", "y")(obj, "no"), "TypeError", "int");
    CHECK_THROWS_FFI_HAS(refl::GetFieldInfo("cpptest.ObjA", "xx"), "AttributeError", "xx");
    CHECK_THROWS_FFI_HAS(refl::GetFieldInfo("cpptest.ObjA", ""), "AttributeError", "cpptest.ObjA");
    refl::TypeAttrColumn init(refl::type_attr::kInit);
    CHECK(init[TestObjA::RuntimeTypeIndex()].as<ffi::Function>().has_value());
    CHECK(init[kTVMFFIInt] == nullptr);
    // __ffi_convert__: def_convert's, and the runtime's for its core types
    refl::TypeAttrColumn conv(ffi::type_attr::kConvert);
    Function to_a = conv[TestObjA::RuntimeTypeIndex()].cast<Function>();
    CHECK(to_a(obj).cast<ffi::ObjectRef>().same_as(obj));
    CHECK_THROWS_FFI(to_a(1), "TypeError", "Cannot cast from `int` to `cpptest.ObjA`");
    Function to_shape = conv[ffi::ShapeObj::RuntimeTypeIndex()].cast<Function>();
    CHECK_EQ(to_shape(ffi::Array<int64_t>{2, 3}).cast<ffi::Shape>()[1], 3);
    CHECK_THROWS_FFI(to_shape(ffi::Array<Any>{1, "x"}), "TypeError",
                     "Cannot cast from `ffi.Array` to `ffi.Shape`");
    constexpr DLDataType f32 = tvm_ffi::dtype_trait<float>::value;
    CHECK(f32 == DLDataType{kDLFloat, 32, 1});
    CHECK(tvm_ffi::dtype_trait<int64_t>::value == DLDataType{kDLInt, 64, 1});
    CHECK(tvm_ffi::dtype_trait<__nv_fp4x2_e2m1>::value.lanes == 2);
  }
}

TEST_SUITE("object") {
  TEST_CASE("ObjectPtr counts") {
    ffi::ObjectPtr<TIntObj> p = ffi::make_object<TIntObj>(11);
    ffi::ObjectPtr<TIntObj> c = p;
    CHECK_EQ(p.use_count(), 2);
    c.reset();
    CHECK_EQ(p.use_count(), 1);
    ffi::ObjectPtr<TIntObj> m = std::move(p);
    CHECK(p == nullptr);
    CHECK_EQ(m->value, 11);
    CHECK_THROWS_AS(ffi::make_object<Boom>(), std::logic_error);
  }

  TEST_CASE("type info and IsInstance") {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(TIntObj::RuntimeTypeIndex());
    CHECK_EQ(info->type_depth, 2);
    CHECK_EQ(info->type_ancestors[0]->type_index, kTVMFFIObject);
    CHECK_EQ(info->type_ancestors[1]->type_index, TNumberObj::RuntimeTypeIndex());
    CHECK_GE(TIntObj::RuntimeTypeIndex(), 128);
    ffi::ObjectRef a = TInt(10);
    CHECK(a.as<TIntObj>() != nullptr);
    CHECK(a.as<TNumberObj>() != nullptr);
    CHECK(a.as<TFloatObj>() == nullptr);
    ffi::ObjectRef c;
    std::optional<TNumber> cn = c.as<TNumber>();
    CHECK(cn.has_value());
    CHECK_FALSE(cn->defined());
    CHECK_FALSE(c.as<TInt>().has_value());
    CHECK_THROWS_FFI(a.as_or_throw<TFloat>(), "TypeError",
                     "Cannot treat type `test.Int` as type `test.Float`");
    CHECK_THROWS_FFI(c.as_or_throw<TInt>(), "TypeError",
                     "Cannot treat type `None` as type `test.Int`");
    ffi::ObjectRef ref = TInt(1);
    std::optional<TInt> moved = std::move(ref).as<TInt>();
    CHECK(moved.has_value());
    CHECK_FALSE(ref.defined());
  }

  TEST_CASE("UnsafeInit, WeakObjectPtr, GetRef") {
    TInt b(ffi::UnsafeInit{});
    CHECK(b.get() == nullptr);
    ffi::WeakObjectPtr<TIntObj> w;
    {
      ffi::ObjectPtr<TIntObj> p = ffi::make_object<TIntObj>(3);
      w = ffi::WeakObjectPtr<TIntObj>(p);
      CHECK_FALSE(w.expired());
      CHECK(w.lock() != nullptr);
    }
    CHECK(w.lock() == nullptr);
    CHECK(w.expired());
    TInt t(5);
    const TIntObj* raw = t.get();
    TNumber n = ffi::GetRef<TNumber>(static_cast<const TNumberObj*>(raw));
    CHECK(n.same_as(t));
    CHECK_EQ(t.use_count(), 2);
    CHECK_FALSE(ffi::GetRef<TNumber>(static_cast<const TNumberObj*>(nullptr)).defined());
  }
}
}  // namespace
