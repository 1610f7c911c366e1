// tests/cpp/test_py_class_parent.cc -- a Python-defined type over a C++ class
// (docs/python.md §4.10, docs/cpp.md §5), made the way tvm_ffi.dataclasses.py_class
// makes one: the C++ members stay where the compiler put them, the parent's
// typed functions accept the new type's objects, and copies and the deleter
// balance the references the members hold.
#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Function;

class PyParentObj : public ffi::Object {
 public:
  ffi::String name;            // 16 bytes: an Any cell
  ffi::Optional<TInt> ref;     // one pointer
  int64_t n = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("cpptest.PyParent", PyParentObj, ffi::Object);
};
class PyParent : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(PyParent, ffi::ObjectRef, PyParentObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<PyParentObj>()
      .def_rw("name", &PyParentObj::name)
      .def_rw("ref", &PyParentObj::ref)
      .def_rw("n", &PyParentObj::n);
  refl::GlobalDef().def("cpptest.PyParentSum", [](PyParent p) {
    return p->n + (p->ref ? p->ref.value()->value : 0) + static_cast<int64_t>(p->name.size());
  });
}

template <typename... Args>
Any call(const char* name, Args&&... args) {
  return Function::GetGlobalRequired(name)(std::forward<Args>(args)...);
}

// The strong count of a heap String (an AnyView is laid out as a TVMFFIAny).
uint64_t StrRefs(const ffi::String& s) {
  ffi::AnyView v(s);
  const TVMFFIAny* raw = reinterpret_cast<const TVMFFIAny*>(&v);
  REQUIRE(raw->type_index == kTVMFFIStr);
  return reinterpret_cast<const ffi::Object*>(raw->v_obj)->use_count();
}

// Defines cpptest.PyChild(PyParent) with one int field `extra`, as py_class does.
int32_t DefineChild(int64_t* extra_offset) {
  int32_t parent = PyParentObj::RuntimeTypeIndex();
  int32_t t = call("ffi._PyClassAllocTypeIndex", "cpptest.PyChild", parent).cast<int32_t>();
  auto layout = call("ffi._PyClassLayout", parent, kTVMFFIInt).cast<ffi::Array<int64_t>>();
  *extra_offset = layout[1];
  TVMFFIFieldInfo fi{};
  fi.name = TVMFFIByteArray{"extra", 5};
  fi.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitSetterIsFunctionObj;
  fi.offset = layout[1];
  fi.size = layout[2];
  fi.alignment = layout[3];
  fi.field_static_type_index = kTVMFFIInt;
  fi.getter = reinterpret_cast<TVMFFIFieldGetter>(
      static_cast<intptr_t>(call("ffi.MakeFieldGetter", kTVMFFIInt).cast<int64_t>()));
  Function setter = call("ffi.MakeFieldSetter", kTVMFFIInt, 0, nullptr).cast<Function>();
  fi.setter = const_cast<void*>(static_cast<const void*>(setter.get()));  // the table keeps a ref
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(t, &fi));
  TVMFFITypeMetadata md{};
  md.total_size = static_cast<int32_t>(layout[0]);
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(t, &md));
  call("ffi._PyClassRegisterTypeAttrColumns", t, layout[0]);
  return t;
}

TEST_SUITE("py_class over a C++ class") {
  TEST_CASE("members stay in place, methods see them, copies and the deleter balance") {
    int64_t extra_offset = 0;
    int32_t t = DefineChild(&extra_offset);
    CHECK_EQ(extra_offset, static_cast<int64_t>(sizeof(PyParentObj)));  // after n, no padding
    TInt held(7);
    ffi::String text("a string long enough to live on the heap, not in the cell");
    uint64_t text_refs = StrRefs(text);
    refl::TypeAttrColumn new_col("__ffi_new__"), copy_col("__ffi_shallow_copy__");
    {
      Any obj = new_col[t].cast<Function>()();
      CHECK_EQ(obj.type_index(), t);
      PyParent as_parent = obj.cast<PyParent>();  // IsInstance accepts the subclass
      CHECK(as_parent->name.empty());  // the zeroed block: an empty String
      CHECK(!as_parent->ref.has_value());
      auto* p = const_cast<PyParentObj*>(as_parent.get());
      p->name = text;
      p->ref = held;
      p->n = 30;
      *reinterpret_cast<int64_t*>(reinterpret_cast<char*>(p) + extra_offset) = 5;
      int64_t want = 30 + 7 + static_cast<int64_t>(text.size());
      CHECK_EQ(call("cpptest.PyParentSum", obj).cast<int64_t>(), want);
      CHECK_EQ(held.use_count(), 2);

      Any copy = copy_col[t].cast<Function>()(obj);
      CHECK_EQ(copy.type_index(), t);
      CHECK_EQ(call("cpptest.PyParentSum", copy).cast<int64_t>(), want);
      const char* c = reinterpret_cast<const char*>(copy.cast<PyParent>().get());
      CHECK_EQ(*reinterpret_cast<const int64_t*>(c + extra_offset), 5);
      CHECK_EQ(held.use_count(), 3);
      CHECK_EQ(StrRefs(text), text_refs + 2);
    }
    CHECK_EQ(held.use_count(), 1);  // the deleter released the C++ members
    CHECK_EQ(StrRefs(text), text_refs);
  }
}
}  // namespace
