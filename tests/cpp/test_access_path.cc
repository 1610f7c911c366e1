// tests/cpp/test_access_path.cc -- reflection/access_path.h: paths built in C++ and by the
// runtime (GetFirstStructuralMismatch, the type's _attr/... methods) share one layout, so
// each side reads, compares, prints and extends the other's.
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/reflection/access_path.h>

#include <string>
#include <vector>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::Array;
using ffi::Map;
using ffi::String;
using refl::AccessKind;
using refl::AccessPath;
using refl::AccessStep;

ffi::Function PathMethod(const char* name) {
  return refl::GetMethod("ffi.reflection.AccessPath", name);
}

TEST_SUITE("access_path") {
  TEST_CASE("building, steps and parents") {
    AccessPath root = AccessPath::Root();
    CHECK(root->depth == 0);
    CHECK_FALSE(root->GetParent().has_value());
    AccessPath p = root->Attr("body")->ArrayItem(2)->MapItem(String("k"));
    CHECK(p->depth == 3);
    Array<AccessStep> steps = p->ToSteps();
    REQUIRE(steps.size() == 3);
    CHECK(steps[0]->kind == AccessKind::kAttr);
    CHECK(steps[0]->key.cast<String>() == "body");
    CHECK(steps[1]->kind == AccessKind::kArrayItem);
    CHECK(steps[1]->key.cast<int64_t>() == 2);
    CHECK(steps[2]->kind == AccessKind::kMapItem);
    CHECK(p->GetParent().value()->PathEqual(root->Attr("body")->ArrayItem(2)));
    CHECK(AccessPath::FromSteps(steps)->PathEqual(p));
    std::vector<AccessStep> v(steps.begin(), steps.end());
    CHECK(AccessPath::FromSteps(v.begin(), v.end())->PathEqual(p));
    CHECK(root->ToSteps().empty());
    CHECK(AccessStep::MapItemMissing()->key == nullptr);
  }

  TEST_CASE("equality and prefixes") {
    AccessPath a = AccessPath::Root()->Attr("x")->ArrayItem(1);
    AccessPath b = AccessPath::Root()->Attr("x")->ArrayItem(1);
    CHECK(a->PathEqual(b));
    CHECK_FALSE(a->PathEqual(AccessPath::Root()->Attr("x")->ArrayItemMissing(1)));
    CHECK_FALSE(a->PathEqual(AccessPath::Root()->Attr("x")));
    CHECK(AccessPath::Root()->IsPrefixOf(a));
    CHECK(AccessPath::Root()->Attr("x")->IsPrefixOf(b));
    CHECK(a->IsPrefixOf(b));
    CHECK_FALSE(a->IsPrefixOf(AccessPath::Root()->Attr("x")));
    CHECK_FALSE(AccessPath::Root()->Attr("y")->IsPrefixOf(a));
    CHECK(AccessStep::Attr("x")->StepEqual(AccessStep::Attr("x")));
    CHECK_FALSE(AccessStep::Attr("x")->StepEqual(AccessStep::AttrMissing("x")));
    CHECK(ffi::StructuralEqual::Equal(a, b));
    CHECK_FALSE(ffi::StructuralEqual::Equal(a, AccessPath::Root()->Attr("x")->ArrayItem(2)));
  }

  TEST_CASE("paths of the runtime") {
    // A mismatch reported by the runtime reads as C++ paths.
    Map<String, Array<int>> lhs{{"a", Array<int>{1, 2}}};
    Map<String, Array<int>> rhs{{"a", Array<int>{1, 3}}};
    auto diff = ffi::StructuralEqual::GetFirstMismatch(lhs, rhs);
    REQUIRE(diff.has_value());
    AccessPath expect = AccessPath::Root()->MapItem(String("a"))->ArrayItem(1);
    CHECK((*diff).get<0>()->PathEqual(expect));
    CHECK((*diff).get<1>()->PathEqual(expect));
    CHECK((*diff).get<0>()->GetParent().value()->ToSteps().size() == 1);
    CHECK_FALSE(ffi::StructuralEqual::GetFirstMismatch(lhs, lhs).has_value());
    // C++ extends a runtime path, the runtime extends and compares a C++ one.
    AccessPath longer = (*diff).get<0>()->AttrMissing("z");
    CHECK(expect->IsPrefixOf(longer));
    AccessPath made = PathMethod("_attr_missing")(expect, "z").cast<AccessPath>();
    CHECK(made->PathEqual(longer));
    CHECK(PathMethod("_path_equal")(longer, made).cast<bool>());
    CHECK(PathMethod("_is_prefix_of")(expect, longer).cast<bool>());
  }

  TEST_CASE("repr") {
    AccessPath p = AccessPath::Root()
                       ->Attr("cfg")
                       ->ArrayItem(0)
                       ->MapItem(String("name"))
                       ->AttrMissing("w")
                       ->ArrayItemMissing(3)
                       ->MapItemMissing(String("b"));
    CHECK(std::string(ffi::ReprPrint(p)) ==
          R"(<root>.cfg[0]["name"][<missing:"w">][<missing:3>][<missing:"b">])");
    CHECK(std::string(ffi::ReprPrint(AccessPath::Root())) == "<root>");
    CHECK(std::string(ffi::ReprPrint(AccessStep::ArrayItem(4))) == "[4]");
  }
}
}  // namespace
