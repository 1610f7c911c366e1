// tests/cpp/test_visit_error_context.cc -- extra/visit_error_context.h: an error thrown in a
// visit records the nodes it leaves (TVM_FFI_VISIT_BEGIN/END, TVM_FFI_VISIT_THROW), keeps an
// earlier extra context, and FindAccessPaths (the runtime's search) locates them from the root.
#include <tvm/ffi/extra/visit_error_context.h>

#include <tvm/ffi/reflection/registry.h>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Array;
using ffi::Error;
using ffi::ObjectRef;
using ffi::VisitErrorContext;

// A reflected node with children (the search descends through reflected fields).
class VNodeObj : public ffi::Object {
 public:
  Array<ObjectRef> kids;
  explicit VNodeObj(Array<ObjectRef> k) : kids(std::move(k)) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppvisit.Node", VNodeObj, ffi::Object);
};
class VNode : public ObjectRef {
 public:
  explicit VNode(Array<ObjectRef> kids) : ObjectRef(ffi::make_object<VNodeObj>(std::move(kids))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VNode, ObjectRef, VNodeObj);
};
TVM_FFI_STATIC_INIT_BLOCK() { refl::ObjectDef<VNodeObj>().def_ro("kids", &VNodeObj::kids); }

// Throws at `leaf`; every node on the way records itself.
void Visit(const VNode& node, const VNode& leaf) {
  TVM_FFI_VISIT_BEGIN();
  if (node.same_as(leaf)) TVM_FFI_VISIT_THROW(ValueError, node) << "bad leaf";
  for (const ObjectRef& kid : node->kids) Visit(ffi::GetRef<VNode>(kid.as<VNodeObj>()), leaf);
  TVM_FFI_VISIT_END(node);
}

TEST_SUITE("visit_error_context") {
  TEST_CASE("records the path and finds it") {
    VNode leaf(Array<ObjectRef>{});
    VNode root(Array<ObjectRef>{VNode(Array<ObjectRef>{}), VNode(Array<ObjectRef>{leaf})});
    try {
      Visit(root, leaf);
      FAIL("no error");
    } catch (const Error& err) {
      CHECK(err.kind() == "ValueError");
      CHECK(err.message() == "bad leaf");
      ffi::Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
      REQUIRE(ctx.has_value());
      // innermost first; the throw site and its enclosing END both record the leaf
      CHECK(ctx.value()->reverse_visit_pattern.size() == 4);
      Array<refl::AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ctx.value());
      REQUIRE(paths.size() == 1);
      refl::AccessPath expect =
          refl::AccessPath::Root()->Attr("kids")->ArrayItem(1)->Attr("kids")->ArrayItem(0);
      CHECK(paths[0]->PathEqual(expect));
    }
  }

  TEST_CASE("an earlier extra context is kept") {
    Error err("KeyError", "k", "", std::nullopt, ObjectRef(Array<int>{5}));
    ObjectRef node = Array<int>{1};
    ffi::details::UpdateVisitErrorContext(err, node);
    ffi::Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
    REQUIRE(ctx.has_value());
    CHECK(ctx.value()->prev_error_context.has_value());
    CHECK(ctx.value()->reverse_visit_pattern[0].same_as(node));
    CHECK_FALSE(VisitErrorContext::TryGetFromError(Error("ValueError", "x", "")).has_value());
  }
}
}  // namespace
