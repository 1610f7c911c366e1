// tests/cpp/test_structural_engines.cc -- the header-only structural engines
// (extra/structural_visit.h, extra/structural_mutate.h): typed callbacks over the
// runtime's shared descent, through the visitor/mutator vtables both sides share.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/structural_mutate.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/reflection/registry.h>

#include <string>
#include <vector>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;
using ffi::Any;
using ffi::AnyView;
using ffi::Expected;
using ffi::WalkOrder;
using ffi::WalkResult;
using AnyArray = ffi::Array<Any>;

// A reflected pair whose `def` field opens a pattern def region, and a free variable.
class EVarObj : public ffi::Object {
 public:
  std::string name;
  explicit EVarObj(std::string n) : name(std::move(n)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindFreeVar;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppengines.Var", EVarObj, ffi::Object);
};
class EPairObj : public ffi::Object {
 public:
  ffi::ObjectRef def;
  ffi::ObjectRef use;
  EPairObj(ffi::ObjectRef d, ffi::ObjectRef u) : def(std::move(d)), use(std::move(u)) {}
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cppengines.Pair", EPairObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<EVarObj>().def_ro("name", &EVarObj::name, refl::AttachFieldFlag::SEqHashIgnore());
  refl::ObjectDef<EPairObj>()
      .def_ro("def", &EPairObj::def, refl::AttachFieldFlag::SEqHashDefPattern())
      .def_ro("use", &EPairObj::use);
}

ffi::ObjectRef Var(const char* name) { return testing::MakeRef<EVarObj>(name); }
ffi::ObjectRef Pair(ffi::ObjectRef a, ffi::ObjectRef b) {
  return testing::MakeRef<EPairObj>(std::move(a), std::move(b));
}
}  // namespace

TEST_SUITE("structural engines") {
  TEST_CASE("StructuralWalk: typed callbacks, order, def regions, skip and interrupt") {
    ffi::ObjectRef x = Var("x");
    ffi::ObjectRef root = Pair(x, AnyArray{x, int64_t{7}});
    std::vector<std::string> trace;
    auto on_var = [&](const EVarObj* v, TVMFFIDefRegionKind kind) -> Expected<WalkResult> {
      trace.push_back(v->name + (kind == kTVMFFIDefRegionKindPattern ? ":def" : ":use"));
      return WalkResult::Advance();
    };
    auto on_int = [&](int64_t v) -> Expected<WalkResult> {
      trace.push_back(std::to_string(v));
      return WalkResult::Advance();
    };
    auto on_object = [&](const ffi::ObjectRef&) -> Expected<WalkResult> {
      trace.push_back("obj");
      return WalkResult::Advance();
    };
    CHECK_FALSE(
        ffi::StructuralWalk<WalkOrder::kPreOrder>(root, on_var, on_int, on_object).has_value());
    CHECK(trace == std::vector<std::string>{"obj", "x:def", "obj", "x:use", "7"});
    trace.clear();
    CHECK_FALSE(
        ffi::StructuralWalk<WalkOrder::kPostOrder>(root, on_var, on_int, on_object).has_value());
    CHECK(trace == std::vector<std::string>{"x:def", "x:use", "7", "obj", "obj"});

    // skip prunes the children; an interrupt stops the walk and comes back
    trace.clear();
    auto skip_arrays = [&](const AnyArray&) -> Expected<WalkResult> { return WalkResult::Skip(); };
    ffi::StructuralWalk<WalkOrder::kPreOrder>(root, skip_arrays, on_var, on_int, on_object);
    CHECK(trace == std::vector<std::string>{"obj", "x:def"});
    auto stop = [](int64_t v) -> Expected<WalkResult> {
      return WalkResult::Interrupt(ffi::VisitInterrupt(Any(v * 2)));
    };
    ffi::Optional<ffi::VisitInterrupt> r = ffi::StructuralWalk<WalkOrder::kPreOrder>(root, stop);
    REQUIRE(r.has_value());
    CHECK(r.value()->value.cast<int64_t>() == 14);
  }

  TEST_CASE("a callback's error returns as an Expected naming the nodes it left") {
    AnyArray ints{int64_t{1}};
    ffi::ObjectRef inner = Pair(Var("a"), ints);
    ffi::ObjectRef root = Pair(Var("b"), inner);
    auto fail = [](int64_t) -> Expected<WalkResult> {
      return ffi::Unexpected(ffi::Error("ValueError", "bad int", ""));
    };
    Expected<ffi::Optional<ffi::VisitInterrupt>> r =
        ffi::StructuralWalkExpected<WalkOrder::kPreOrder>(root, fail);
    REQUIRE(r.is_err());
    CHECK(r.error().kind() == "ValueError");
    ffi::Optional<ffi::VisitErrorContext> ctx = ffi::VisitErrorContext::TryGetFromError(r.error());
    REQUIRE(ctx.has_value());
    REQUIRE(ctx.value()->reverse_visit_pattern.size() == 3);  // the int is not an object
    CHECK(ctx.value()->reverse_visit_pattern[0].same_as(ints));
    CHECK(ctx.value()->reverse_visit_pattern[1].same_as(inner));
    CHECK(ctx.value()->reverse_visit_pattern[2].same_as(root));
    // a thrown error is caught the same way
    auto throws = [](const EVarObj*) -> Expected<WalkResult> { TVM_FFI_THROW(TypeError) << "no"; };
    CHECK(ffi::StructuralWalkExpected<WalkOrder::kPostOrder>(root, throws).error().kind() ==
          "TypeError");
  }

  TEST_CASE("the runtime's visitor globals drive a C++ engine through its vtable") {
    ffi::ObjectRef root = Pair(Var("x"), Var("y"));
    std::vector<std::string> names;
    // the callback owns the pair: it visits `use` only, via ffi.StructuralVisitorVisit
    auto on_pair =
        [](const EPairObj* p,
           ffi::StructuralVisitorObj* visitor) -> Expected<ffi::Optional<ffi::VisitInterrupt>> {
      static const ffi::Function visit =
          ffi::Function::GetGlobalRequired("ffi.StructuralVisitorVisit");
      return visit(ffi::ObjectRef(ffi::GetObjectPtr<ffi::Object>(visitor)), p->use)
          .cast<ffi::Optional<ffi::VisitInterrupt>>();
    };
    auto on_var = [&](const EVarObj* v,
                      ffi::StructuralVisitorObj*) -> Expected<ffi::Optional<ffi::VisitInterrupt>> {
      names.push_back(v->name);
      return ffi::Optional<ffi::VisitInterrupt>();
    };
    CHECK(ffi::StructuralVisitExpected(root, on_pair, on_var).is_ok());
    CHECK(names == std::vector<std::string>{"y"});
  }

  TEST_CASE("the engines stop a cyclic structure with an error, not a crash") {
    ffi::List<Any> cycle;
    cycle.push_back(int64_t{1});
    cycle.push_back(cycle);
    auto any = [](const ffi::ObjectRef&) -> Expected<WalkResult> { return WalkResult::Advance(); };
    Expected<ffi::Optional<ffi::VisitInterrupt>> walked =
        ffi::StructuralWalkExpected<WalkOrder::kPreOrder>(cycle, any);
    REQUIRE(walked.is_err());
    CHECK(walked.error().kind() == "RuntimeError");
    Expected<Any> mapped = ffi::StructuralMapExpected<WalkOrder::kPostOrder>(
        cycle, [](int64_t v) -> Expected<Any> { return Any(v + 1); });
    REQUIRE(mapped.is_err());
    CHECK(mapped.error().kind() == "RuntimeError");
    cycle.clear();  // break the cycle so the list is freed
  }

  TEST_CASE("StructuralMap: copy-on-write unless the root is owned, pre-order replaces first") {
    AnyArray inner{int64_t{1}, ffi::String("s")};
    AnyArray root{inner, int64_t{2}};
    auto inc = [](int64_t v) -> Expected<Any> { return Any(v + 1); };
    AnyArray copied = ffi::StructuralMap<WalkOrder::kPostOrder>(root, inc).cast<AnyArray>();
    CHECK_FALSE(copied.same_as(root));
    CHECK(root[1].cast<int64_t>() == 2);  // the shared input is left alone
    CHECK(copied[0].cast<AnyArray>()[0].cast<int64_t>() == 2);
    CHECK(copied[0].cast<AnyArray>()[1].same_as(inner[1]));  // unchanged leaves are kept

    const ffi::Object* address = root.get();
    inner = AnyArray();
    AnyArray in_place =
        ffi::StructuralMap<WalkOrder::kPostOrder>(std::move(root), inc).cast<AnyArray>();
    CHECK(in_place.get() == address);
    CHECK(in_place[1].cast<int64_t>() == 3);

    // pre-order: a replacement is descended too; Unchanged keeps the value
    AnyArray pre =
        ffi::StructuralMap<WalkOrder::kPreOrder>(
            AnyArray{ffi::String("x")},
            [](const ffi::String&) -> Expected<Any> { return Any(AnyArray{int64_t{5}}); }, inc)
            .cast<AnyArray>();
    CHECK(pre[0].cast<AnyArray>()[0].cast<int64_t>() == 6);
    AnyArray same{int64_t{1}};
    Any kept = ffi::StructuralMap<WalkOrder::kPreOrder>(
        same, [](const AnyArray&) -> Expected<Any> { return ffi::Unchanged(); });
    CHECK(kept.same_as(same));
  }

  TEST_CASE("StructuralMutate: the callback owns what it matches; the rest is the runtime's") {
    ffi::ObjectRef x = Var("x");
    // x defined (pattern region) then used: the definition's replacement serves the use
    ffi::ObjectRef root = Pair(x, AnyArray{x});
    int calls = 0;
    auto rename = [&](const EVarObj* v, ffi::StructuralMutatorObj*) -> Expected<Any> {
      ++calls;
      return Any(Var((v->name + "'").c_str()));
    };
    Any out = ffi::StructuralMutate(root, rename);
    const auto* pair = out.as<EPairObj>();
    REQUIRE(pair != nullptr);
    CHECK(pair->def.as<EVarObj>()->name == "x'");
    CHECK(calls == 2);  // the callback owns every var it matches
    auto by_default = [](int64_t v, ffi::StructuralMutatorObj*) -> Expected<Any> { return Any(v); };
    CHECK(ffi::StructuralMutate(root, by_default).same_as(root));  // nothing changed

    // the runtime's descent skips SEqHashIgnore fields (the names)
    int map_calls = 0;
    Any mapped =
        ffi::StructuralMap<WalkOrder::kPostOrder>(root, [&](const ffi::String& s) -> Expected<Any> {
          ++map_calls;
          return Any(s);
        });
    CHECK(mapped.same_as(root));
    CHECK(map_calls == 0);
  }

  TEST_CASE("UnchangedOr and the assign-or-return macro check the declared type") {
    auto as_int = [](Expected<ffi::UnchangedOr<Any>> r) -> Expected<int64_t> {
      TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(ffi::UnchangedOr<int64_t>, v, std::move(r));
      return std::move(v).ValueOrUnchanged(-1);
    };
    CHECK(as_int(ffi::UnchangedOr<Any>(Any(int64_t{3}))).value() == 3);
    CHECK(as_int(ffi::UnchangedOr<Any>(ffi::Unchanged())).value() == -1);
    CHECK(as_int(ffi::UnchangedOr<Any>(Any(ffi::String("no")))).error().kind() == "TypeError");
    CHECK(as_int(ffi::Error("ValueError", "passed on", "")).error().kind() == "ValueError");
    static_assert(std::is_trivially_copyable_v<AnyView>, "views pass like TVMFFIAny");
  }
}
