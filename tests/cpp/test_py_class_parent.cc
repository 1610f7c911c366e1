// tests/cpp/test_py_class_parent.cc -- a Python-defined type over a C++ class
// (docs/python.md §4.10, docs/cpp.md §5), made the way tvm_ffi.dataclasses.py_class
// makes one: the C++ members stay where the compiler put them, the parent's
// typed functions accept the new type's objects, and copies and the deleter
// balance the references the members hold.
#include "lib/py_parent_lib.h"
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

using py_parent_lib::SoleObj;
using py_parent_lib::TrackedObj;
class Tracked : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Tracked, ffi::ObjectRef, TrackedObj);
};
TVM_FFI_STATIC_INIT_BLOCK() { py_parent_lib::Register(); }

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

// Defines `key` under `parent` with one field `extra` of a kind, as py_class does.
int32_t DefineChildOf(int32_t parent, const char* key, int32_t kind, int64_t* extra_offset) {
  int32_t t = call("ffi._PyClassAllocTypeIndex", key, parent).cast<int32_t>();
  auto layout = call("ffi._PyClassLayout", parent, kind).cast<ffi::Array<int64_t>>();
  *extra_offset = layout[1];
  TVMFFIFieldInfo fi{};
  fi.name = TVMFFIByteArray{"extra", 5};
  fi.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitSetterIsFunctionObj;
  fi.offset = layout[1];
  fi.size = layout[2];
  fi.alignment = layout[3];
  fi.field_static_type_index = kind;
  fi.getter = reinterpret_cast<TVMFFIFieldGetter>(
      static_cast<intptr_t>(call("ffi.MakeFieldGetter", kind).cast<int64_t>()));
  Function setter = call("ffi.MakeFieldSetter", kind, 0, nullptr).cast<Function>();
  fi.setter = const_cast<void*>(static_cast<const void*>(setter.get()));  // the table keeps a ref
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(t, &fi));
  TVMFFITypeMetadata md{};
  md.total_size = static_cast<int32_t>(layout[0]);
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(t, &md));
  call("ffi._PyClassRegisterTypeAttrColumns", t, layout[0]);
  return t;
}

// cpptest.PyChild(PyParent) with one int field `extra`.
int32_t DefineChild(int64_t* extra_offset) {
  return DefineChildOf(PyParentObj::RuntimeTypeIndex(), "cpptest.PyChild", kTVMFFIInt,
                       extra_offset);
}

ffi::ObjectRef& FieldRef(const Any& obj, int64_t offset) {  // an object field (one pointer)
  return *reinterpret_cast<ffi::ObjectRef*>(
      reinterpret_cast<char*>(const_cast<ffi::Object*>(obj.cast<ffi::ObjectRef>().get())) + offset);
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

  TEST_CASE("the parent part is a real C++ object: constructed, copied and destroyed in place") {
    int64_t extra_offset = 0;
    int32_t t = DefineChildOf(TrackedObj::RuntimeTypeIndex(), "cpptest.TrackedChild", kTVMFFIObject,
                              &extra_offset);
    // after every member, the unreflected ones included (not after `n`, the last reflected)
    CHECK_GE(extra_offset, refl::GetFieldByteOffsetToObject(&TrackedObj::hidden) + 8);
    refl::TypeAttrColumn new_col("__ffi_new__"), copy_col("__ffi_shallow_copy__");
    TInt held(1), own(2);
    int64_t made = py_parent_lib::made, copied = py_parent_lib::copied,
            destroyed = py_parent_lib::destroyed;
    {
      Any obj = new_col[t].cast<Function>()();
      CHECK_EQ(py_parent_lib::made, made + 1);
      auto* p = const_cast<TrackedObj*>(obj.cast<Tracked>().get());
      CHECK_EQ(p->label, "short");  // the SSO buffer is this object's, not a freed prototype's
      CHECK_EQ(p->items.size(), 3u);
      CHECK(FieldRef(obj, extra_offset).get() == nullptr);  // the child's field starts empty
      p->label = "a label long enough to need a heap block of its own";
      p->items.push_back(4);
      p->hidden = held;
      FieldRef(obj, extra_offset) = own;

      Any copy = copy_col[t].cast<Function>()(obj);
      CHECK_EQ(py_parent_lib::copied, copied + 1);  // the copy constructor, not a byte copy
      auto* c = const_cast<TrackedObj*>(copy.cast<Tracked>().get());
      CHECK_EQ(c->label, p->label);
      CHECK(c->label.data() != p->label.data());
      c->items.push_back(5);
      CHECK_EQ(p->items.size(), 4u);
      CHECK_EQ(held.use_count(), 3);
      CHECK_EQ(own.use_count(), 3);  // the child's field: one more owner
      c->label = "s";  // short again: the copy's own buffer
      CHECK_EQ(p->label.size(), 51u);

      // a weak reference outlives the strong ones: ~T() runs once, the block stays
      ffi::WeakObjectPtr<ffi::Object> weak(
          ffi::details::ObjectUnsafe::ObjectPtrFromUnowned<ffi::Object>(p));
      obj = Any();
      CHECK_EQ(py_parent_lib::destroyed, destroyed + 1);
      CHECK(weak.lock().get() == nullptr);
      CHECK_EQ(held.use_count(), 2);
      CHECK_EQ(own.use_count(), 2);
    }
    CHECK_EQ(py_parent_lib::destroyed, destroyed + 2);  // once per object
    CHECK_EQ(held.use_count(), 1);  // ~T() released the unreflected reference
    CHECK_EQ(own.use_count(), 1);  // the runtime released the child's field
    CHECK_EQ(py_parent_lib::made, made + 1);
  }

  TEST_CASE("a parent without a copy constructor: objects are made and destroyed, not copied") {
    int64_t extra_offset = 0;
    int32_t t =
        DefineChildOf(SoleObj::RuntimeTypeIndex(), "cpptest.SoleChild", kTVMFFIAny, &extra_offset);
    int64_t destroyed = py_parent_lib::destroyed;
    {
      Any obj = refl::TypeAttrColumn("__ffi_new__")[t].cast<Function>()();
      CHECK_EQ(*obj.cast<ffi::ObjectRef>().as<SoleObj>()->text, std::string(64, 'x'));
      Function copy = refl::TypeAttrColumn("__ffi_shallow_copy__")[t].cast<Function>();
      CHECK_THROWS_WITH_AS(copy(obj), doctest::Contains("no copy constructor"), ffi::Error);
    }
    CHECK_EQ(py_parent_lib::destroyed, destroyed + 1);
  }

  TEST_CASE("__ffi_construct_at__ refuses what it cannot build") {
    Function construct =
        refl::TypeAttrColumn("__ffi_construct_at__")[TrackedObj::RuntimeTypeIndex()]
            .cast<Function>();
    alignas(TrackedObj) char storage[sizeof(TrackedObj) + 1];
    CHECK_THROWS_WITH_AS(construct(static_cast<void*>(storage + 1), nullptr),
                         doctest::Contains("aligned to"), ffi::Error);
    CHECK_THROWS_WITH_AS(construct(static_cast<void*>(storage), TInt(1)),
                         doctest::Contains("cannot copy a `pyparentlib.Tracked` from a `test.Int`"),
                         ffi::Error);
    CHECK_THROWS_WITH_AS(construct(static_cast<void*>(storage)),
                         doctest::Contains("takes an address"), ffi::Error);
    // a default one, destroyed through the deleter it returns
    int64_t destroyed = py_parent_lib::destroyed;
    auto deleter = reinterpret_cast<void (*)(void*, int)>(
        construct(static_cast<void*>(storage), nullptr).cast<void*>());
    CHECK_EQ(reinterpret_cast<TrackedObj*>(storage)->label, "short");
    deleter(storage, kTVMFFIObjectDeleterFlagBitMaskStrong);
    CHECK_EQ(py_parent_lib::destroyed, destroyed + 1);
  }
}
}  // namespace
