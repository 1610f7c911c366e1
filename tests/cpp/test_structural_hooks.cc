// tests/cpp/test_structural_hooks.cc -- `__s_visit__` / `__s_mutate__` hooks written in C++
// (extra/structural_visit.h, extra/structural_mutate.h) and stored with
// TypeAttrDef::native_fn_attr: the runtime's walk and mutate engines call them.
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/structural_mutate.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/reflection/registry.h>

#include <algorithm>
#include <vector>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::AnyView;
using ffi::Expected;
using ffi::Optional;

class HLeafObj : public ffi::Object {
 public:
  int64_t v;
  explicit HLeafObj(int64_t x) : v(x) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpphooks.Leaf", HLeafObj, ffi::Object);
};

int g_visit_calls = 0;
int g_mutate_calls = 0;

class HPairObj : public ffi::Object {
 public:
  ffi::ObjectRef seen;
  ffi::ObjectRef hidden;
  HPairObj(ffi::ObjectRef a, ffi::ObjectRef b) : seen(std::move(a)), hidden(std::move(b)) {}

  // visits `seen` only: a walk must never reach `hidden`
  static Expected<Optional<ffi::VisitInterrupt>> Visit(ffi::StructuralVisitorObj* visitor,
                                                       AnyView value) noexcept {
    ++g_visit_calls;
    const auto* self = ffi::details::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<HPairObj>(value);
    return visitor->VisitExpected(self->seen);
  }
  // mutates `seen` through the mutator and keeps the pair when nothing changed
  static Expected<ffi::UnchangedOr<Any>> Mutate(ffi::StructuralMutatorObj* mutator,
                                                AnyView value) noexcept {
    ++g_mutate_calls;
    const auto* self = ffi::details::AnyUnsafe::RawObjectPtrFromAnyViewAfterCheck<HPairObj>(value);
    TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(
        ffi::UnchangedOr<ffi::ObjectRef>, seen,
        mutator->MutateExpected(self->seen, ffi::InplaceMode::kDisallow));
    if (seen.UnchangedOrSameAs(self->seen)) return ffi::Unchanged();
    return Any(
        ffi::make_object<HPairObj>(std::move(seen).ValueOrUnchanged(self->seen), self->hidden));
  }
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpphooks.Pair", HPairObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<HLeafObj>().def_ro("v", &HLeafObj::v);
  refl::ObjectDef<HPairObj>().def_ro("seen", &HPairObj::seen).def_ro("hidden", &HPairObj::hidden);
  refl::EnsureTypeAttrColumn(ffi::type_attr::kStructuralVisit);
  refl::EnsureTypeAttrColumn(ffi::type_attr::kStructuralMutate);
  refl::TypeAttrDef<HPairObj>()
      .native_fn_attr<&HPairObj::Visit>(ffi::type_attr::kStructuralVisit)
      .native_fn_attr<&HPairObj::Mutate>(ffi::type_attr::kStructuralMutate);
}

ffi::ObjectRef Leaf(int64_t v) { return testing::MakeRef<HLeafObj>(v); }
ffi::ObjectRef Pair(ffi::ObjectRef a, ffi::ObjectRef b) {
  return testing::MakeRef<HPairObj>(std::move(a), std::move(b));
}
}  // namespace

TEST_SUITE("structural hooks") {
  TEST_CASE("a C++ __s_visit__ hook steers the runtime's walk") {
    ffi::ObjectRef seen = Leaf(1), hidden = Leaf(2);
    ffi::ObjectRef root = Pair(seen, hidden);
    std::vector<const ffi::Object*> visited;
    ffi::Function record = ffi::Function::FromTyped([&visited](AnyView v) -> Any {
      if (const ffi::Object* o = v.as<ffi::Object>()) visited.push_back(o);
      return Any(nullptr);
    });
    ffi::Array<ffi::Tuple<int, ffi::Function>> callbacks{
        ffi::Tuple<int, ffi::Function>(-1, record)};
    g_visit_calls = 0;
    Any r = ffi::Function::GetGlobalRequired("ffi.StructuralWalk")(root, callbacks, nullptr, 0);
    CHECK(r == nullptr);
    CHECK(g_visit_calls == 1);
    CHECK(std::find(visited.begin(), visited.end(), seen.get()) != visited.end());
    CHECK(std::find(visited.begin(), visited.end(), hidden.get()) == visited.end());
  }

  TEST_CASE("a C++ __s_mutate__ hook runs through the runtime's mutator") {
    ffi::ObjectRef root = Pair(Leaf(1), Leaf(2));
    g_mutate_calls = 0;
    Any out = ffi::Function::GetGlobalRequired("ffi.StructuralMutate")(
        root, ffi::Array<ffi::Tuple<int, ffi::Function, bool>>{});
    CHECK(g_mutate_calls == 1);
    CHECK(out.as<ffi::Object>() == root.get());  // nothing changed: the same object comes back
  }
}
