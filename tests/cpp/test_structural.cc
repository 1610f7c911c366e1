// tests/cpp/test_structural.cc -- StructuralEqual / StructuralHash (extra/structural_*.h) over
// C++-registered types: a FreeVar type with an SEqHashIgnore name, a TreeNode binding
// variables in a SEqHashDefRecursive field, and types without structural support.
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>

#include <string>
#include <unordered_set>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Array;
using ffi::StructuralEqual;
using ffi::StructuralHash;

class SVarObj : public ffi::Object {
 public:
  ffi::String name;
  int64_t bits;
  SVarObj(ffi::String n, int64_t b) : name(std::move(n)), bits(b) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppstructural.Var", SVarObj, ffi::Object);
};
class SVar : public ffi::ObjectRef {
 public:
  SVar(const char* name, int64_t bits) { data_ = ffi::make_object<SVarObj>(name, bits); }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(SVar, ffi::ObjectRef, SVarObj);
};

class SLamObj : public ffi::Object {
 public:
  Array<SVar> params;
  ffi::ObjectRef body;
  SLamObj(Array<SVar> p, ffi::ObjectRef b) : params(std::move(p)), body(std::move(b)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppstructural.Lam", SLamObj, ffi::Object);
};
class SLam : public ffi::ObjectRef {
 public:
  SLam(Array<SVar> p, ffi::ObjectRef b) {
    data_ = ffi::make_object<SLamObj>(std::move(p), std::move(b));
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(SLam, ffi::ObjectRef, SLamObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<SVarObj>()
      .def_ro("name", &SVarObj::name, refl::AttachFieldFlag::SEqHashIgnore())
      .def_ro("bits", &SVarObj::bits);
  refl::ObjectDef<SLamObj>()
      .def_ro("params", &SLamObj::params, refl::AttachFieldFlag::SEqHashDefRecursive())
      .def_ro("body", &SLamObj::body);
}

TEST_SUITE("structural") {
  TEST_CASE("values and containers") {
    CHECK(StructuralEqual::Equal(Array<int>{1, 2}, Array<int>{1, 2}));
    CHECK_FALSE(StructuralEqual::Equal(Any(1), Any(1.0)));
    CHECK(StructuralEqual()(Any(ffi::String("a long enough string")),
                            Any(ffi::String("a long enough string"))));
    CHECK(StructuralHash::Hash(Array<int>{1, 2}) == StructuralHash()(Array<int>{1, 2}));
    CHECK_FALSE(StructuralEqual::GetFirstMismatch(Array<int>{1}, Array<int>{1}).has_value());
    auto paths = StructuralEqual::GetFirstMismatch(Array<int>{1, 2}, Array<int>{1, 3});
    REQUIRE(paths.has_value());
    CHECK(paths.value().get<0>()->PathEqual(refl::AccessPath::Root()->ArrayItem(1)));
    CHECK(paths.value().get<1>()->PathEqual(refl::AccessPath::Root()->ArrayItem(1)));
  }

  TEST_CASE("free variables bind one-to-one") {
    SVar x("x", 32), y("y", 32), z("z", 32), w("w", 64);
    CHECK(StructuralEqual::Equal(x, x));
    CHECK_FALSE(StructuralEqual::Equal(x, y));
    CHECK(StructuralEqual::Equal(x, y, /*map_free_vars=*/true));
    CHECK_FALSE(StructuralEqual::Equal(x, w, true));  // bits differ; the name is ignored
    CHECK(StructuralEqual::Equal(Array<SVar>{x, x}, Array<SVar>{y, y}, true));
    CHECK_FALSE(StructuralEqual::Equal(Array<SVar>{x, x}, Array<SVar>{y, z}, true));
    CHECK(StructuralHash::Hash(Array<SVar>{x, x}, true) ==
          StructuralHash::Hash(Array<SVar>{y, y}, true));
    // the params field defines its variables: lam x. x == lam y. y without map_free_vars
    SLam fx(Array<SVar>{x}, x), fy(Array<SVar>{y}, y), fyx(Array<SVar>{y}, x);
    CHECK(StructuralEqual::Equal(fx, fy));
    CHECK(StructuralHash::Hash(fx) == StructuralHash::Hash(fy));
    CHECK_FALSE(StructuralEqual::Equal(fx, fyx));
  }

  TEST_CASE("types without structural support throw TypeError") {
    testing::TInt a(1), b(1);  // registered without _type_s_eq_hash_kind
    try {
      StructuralEqual::Equal(a, b);
      FAIL("expected a TypeError");
    } catch (const ffi::Error& e) {
      CHECK(e.kind() == "TypeError");
      CHECK(std::string(e.message()).find("test.Int") != std::string::npos);
    }
  }
}
}  // namespace
