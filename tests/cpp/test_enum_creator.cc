// tests/cpp/test_enum_creator.cc -- enum.h / reflection/enum_def.h (members defined in C++,
// found by index, their attributes, the state the runtime and Python share),
// reflection/creator.h (objects from a field map through the runtime), reflection/overload.h
// (OverloadObjectDef) and the registry helpers they rely on (AttrKey::ValueFrom,
// ForEachFieldInfo, overload_cast).
#include <tvm/ffi/enum.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/overload.h>
#include <tvm/ffi/reflection/registry.h>

#include <string>
#include <vector>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Enum;
using ffi::EnumObj;
using ffi::Map;
using ffi::String;

class ColorObj : public ffi::EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppenum.Color", ColorObj, ffi::EnumObj);
};
class LevelObj : public ffi::IntEnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppenum.Level", LevelObj, ffi::IntEnumObj);
};

class PointObj : public ffi::Object {
 public:
  int64_t x = 0;
  int64_t y = 0;
  ffi::Array<int64_t> tags;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppcreator.Point", PointObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<PointObj>()
      .def_rw("x", &PointObj::x)
      .def_rw("y", &PointObj::y, refl::default_value(int64_t{5}))
      .def_rw(
          "tags", &PointObj::tags,
          refl::default_factory(ffi::Function::FromTyped([]() { return ffi::Array<int64_t>(); })));
}

struct Shape {
  int Area(int w) { return w; }
  int Area(int w, int h) { return w * h; }
  int Name(int) const { return 1; }
  int Name(int) { return 2; }
};

TEST_SUITE("enum") {
  TEST_CASE("members, indices and attributes") {
    CHECK_FALSE(refl::EnumDef<ColorObj>::IsDefined("Red"));
    refl::EnumDef<ColorObj>("Red").set_attr("hex", String("#f00"));
    refl::EnumDef<ColorObj>("Green").set_attr("hex", String("#0f0"));
    refl::EnumDef<LevelObj>("High", 10);
    CHECK(refl::EnumDef<ColorObj>::IsDefined("Red"));
    CHECK_FALSE(refl::EnumDef<ColorObj>::IsDefined("red"));
    Enum red = EnumObj::_GetByStrIndex<ColorObj>("Red");
    Enum green = EnumObj::_GetByIntIndex<ColorObj>(1);
    CHECK(red->_int_index == 0);
    CHECK(green->_str_index == "Green");
    CHECK(EnumObj::_GetByStrIndex<ColorObj>("Red").same_as(red));  // singletons
    CHECK(EnumObj::_GetByIntIndex<LevelObj>(10)->_str_index == "High");
    CHECK_THROWS_AS(EnumObj::_GetByIntIndex<ColorObj>(7), ffi::Error);
    CHECK_THROWS_AS(refl::EnumDef<ColorObj>("Red"), ffi::Error);  // duplicate name
    refl::TypeAttrColumn states(ffi::type_attr::kEnumState);
    ffi::EnumState state =
        ffi::type_attr::kEnumState.ValueFrom(states[ColorObj::RuntimeTypeIndex()]).value();
    CHECK(state->entries.size() == 2);
    CHECK(state->attrs.at("hex").at(green).cast<String>() == "#0f0");
    // The runtime reads the same state: the member's reflected fields.
    CHECK(refl::FieldGetter("ffi.Enum", "_str_index")(red).cast<String>() == "Red");
  }
}

TEST_SUITE("creator") {
  TEST_CASE("fields from a map, defaults and factories") {
    refl::ObjectCreator make("cppcreator.Point");
    Any a = make(Map<String, Any>{{"x", int64_t{1}}});
    Any b = make(Map<String, Any>{{"x", int64_t{2}}, {"y", int64_t{3}}});
    CHECK(a.as<PointObj>()->x == 1);
    CHECK(a.as<PointObj>()->y == 5);
    CHECK(b.as<PointObj>()->y == 3);
    CHECK_FALSE(a.as<PointObj>()->tags.same_as(b.as<PointObj>()->tags));  // a fresh default each
    CHECK_THROWS_AS(make(Map<String, Any>{}), ffi::Error);                 // x is required
    CHECK_THROWS_AS(make(Map<String, Any>{{"x", int64_t{1}}, {"z", 0}}), ffi::Error);
    CHECK_THROWS_AS(make(Map<String, Any>{{"x", String("no")}}), ffi::Error);
    CHECK_THROWS_AS(refl::ObjectCreator("ffi.Function"), ffi::Error);
    CHECK(ffi::HasCreator(TVMFFIGetTypeInfo(PointObj::RuntimeTypeIndex())));
  }
}

TEST_SUITE("registry helpers") {
  TEST_CASE("ForEachFieldInfo, AttrKey::ValueFrom and type_attr::kTypeFinal") {
    std::vector<std::string> names;
    refl::ForEachFieldInfo(
        TVMFFIGetTypeInfo(PointObj::RuntimeTypeIndex()),
        [&](const TVMFFIFieldInfo* f) { names.emplace_back(f->name.data, f->name.size); });
    CHECK(names == std::vector<std::string>{"x", "y", "tags"});
    refl::TypeAttrColumn finals(ffi::type_attr::kTypeFinal);
    CHECK(ffi::type_attr::kTypeFinal.ValueFrom(finals[PointObj::RuntimeTypeIndex()]) == true);
    CHECK_FALSE(ffi::type_attr::kTypeFinal.ValueFrom(ffi::AnyView()).has_value());
    CHECK_THROWS_AS(ffi::type_attr::kTypeFinal.ValueFrom(ffi::AnyView(String("x"))), ffi::Error);
  }

  TEST_CASE("overload_cast") {
    Shape s;
    const Shape& cs = s;
    static_assert(
        std::is_same_v<decltype(refl::overload_cast<int>(&Shape::Area)), int (Shape::*)(int)>);
    CHECK((s.*refl::overload_cast<int, int>(&Shape::Area))(3, 4) == 12);
    CHECK((s.*refl::overload_cast<int>(&Shape::Name))(0) == 2);
    CHECK((cs.*refl::overload_cast<int>(&Shape::Name, refl::const_))(0) == 1);
  }
}
}  // namespace

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class OvlObj : public ffi::Object {
 public:
  bool from_int;
  explicit OvlObj(int64_t) : from_int(true) {}
  explicit OvlObj(double) : from_int(false) {}
  static int64_t Twice(int64_t x) { return 2 * x; }
  static ffi::String Twice(ffi::String s) { return s + s; }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppoverload.Obj", OvlObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::OverloadObjectDef<OvlObj>()
      .def(refl::init<int64_t>())
      .def(refl::init<double>())
      .def_static("twice", refl::overload_cast<int64_t>(&OvlObj::Twice))
      .def_static("twice", refl::overload_cast<ffi::String>(&OvlObj::Twice));
}

TEST_SUITE("overload") {
  TEST_CASE("the first overload taking the arguments as they are wins") {
    ffi::Function init = refl::GetMethod("cppoverload.Obj", "__ffi_init__");
    CHECK(init(3).as<OvlObj>()->from_int);
    CHECK_FALSE(init(2.5).as<OvlObj>()->from_int);
    ffi::Function twice = refl::GetMethod("cppoverload.Obj", "twice");
    CHECK(twice(4).cast<int64_t>() == 8);
    CHECK(twice(ffi::String("ab")).cast<ffi::String>() == "abab");
    CHECK_THROWS_AS(twice(ffi::Array<int>{}), ffi::Error);  // no overload takes it
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(OvlObj::RuntimeTypeIndex());
    int listed = 0;
    for (int32_t i = 0; i < info->num_methods; ++i) {
      if (std::string(info->methods[i].name.data, info->methods[i].name.size) == "twice") ++listed;
    }
    CHECK(listed == 2);
  }
}
}  // namespace
