/*
 * tvm/ffi/reflection/access_path.h -- AccessStep / AccessPath: where a
 * sub-value sits inside a value (attribute, array index, map key, or one of
 * those missing on one side), as StructuralEqual::GetFirstMismatch and
 * VisitErrorContext::FindAccessPaths report it (docs/cpp.md §16).
 *
 * The objects are the runtime's ffi.reflection.AccessStep and
 * ffi.reflection.AccessPath (same layouts: a step is its kind then its key;
 * a path is its parent, its last step and its depth), so paths built here,
 * by the runtime and by Python mix freely; ReprPrint writes them as
 * `<root>.a[0]["k"]`.
 */
#ifndef TVM_FFI_REFLECTION_ACCESS_PATH_H_
#define TVM_FFI_REFLECTION_ACCESS_PATH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <utility>
#include <vector>

TVM_FFI_NS_BEGIN
namespace reflection {

/*! \brief What one step selects; the *Missing kinds name a place absent on that side. */
enum class AccessKind : int32_t {
  kAttr = 0,
  kArrayItem = 1,
  kMapItem = 2,
  kAttrMissing = 3,
  kArrayItemMissing = 4,
  kMapItemMissing = 5,
};

class AccessStep;
class AccessPath;

/*! \brief One step: an attribute name (str), an array index (int) or a map key (any). */
class AccessStepObj : public Object {
 public:
  AccessKind kind{AccessKind::kAttr};
  Any key;

  AccessStepObj() = default;
  AccessStepObj(AccessKind kind, Any key) : kind(kind), key(std::move(key)) {}

  /*! \brief Same kind and an equal key (AnyEqual). */
  inline bool StepEqual(const AccessStep& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessStep", AccessStepObj, Object);
};

class AccessStep : public ObjectRef {
 public:
  AccessStep(AccessKind kind, Any key)
      : ObjectRef(make_object<AccessStepObj>(kind, std::move(key))) {}

  static AccessStep Attr(String name) { return AccessStep(AccessKind::kAttr, std::move(name)); }
  static AccessStep AttrMissing(String name) {
    return AccessStep(AccessKind::kAttrMissing, std::move(name));
  }
  static AccessStep ArrayItem(int64_t index) { return AccessStep(AccessKind::kArrayItem, index); }
  static AccessStep ArrayItemMissing(int64_t index) {
    return AccessStep(AccessKind::kArrayItemMissing, index);
  }
  static AccessStep MapItem(Any key) { return AccessStep(AccessKind::kMapItem, std::move(key)); }
  /*! \brief A key present only on the other side (None when it is not known). */
  static AccessStep MapItemMissing(Any key = nullptr) {
    return AccessStep(AccessKind::kMapItemMissing, std::move(key));
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessStep, ObjectRef, AccessStepObj);
};

/*!
 * \brief A path from a root value: a chain of nodes pointing at their parent,
 * so that paths sharing a prefix share its nodes.  The root has neither parent
 * nor step, and depth 0.
 */
class AccessPathObj : public Object {
 public:
  Optional<ObjectRef> parent;
  Optional<AccessStep> step;
  int32_t depth{0};

  AccessPathObj() = default;
  AccessPathObj(Optional<ObjectRef> parent, Optional<AccessStep> step, int32_t depth)
      : parent(std::move(parent)), step(std::move(step)), depth(depth) {}

  /*! \brief The path without its last step; nullopt at the root. */
  inline Optional<AccessPath> GetParent() const;
  /*! \brief This path followed by `step`. */
  inline AccessPath Extend(AccessStep step) const;
  inline AccessPath Attr(String name) const;
  inline AccessPath AttrMissing(String name) const;
  inline AccessPath ArrayItem(int64_t index) const;
  inline AccessPath ArrayItemMissing(int64_t index) const;
  inline AccessPath MapItem(Any key) const;
  inline AccessPath MapItemMissing(Any key) const;
  /*! \brief The steps from the root to here, in that order. */
  inline Array<AccessStep> ToSteps() const;
  /*! \brief Same depth and pairwise equal steps. */
  inline bool PathEqual(const AccessPath& other) const;
  /*! \brief Whether `other` starts with this path (a path is a prefix of itself). */
  inline bool IsPrefixOf(const AccessPath& other) const;

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.reflection.AccessPath", AccessPathObj, Object);

 private:
  const AccessPathObj* ParentNode() const {
    return parent.has_value() ? static_cast<const AccessPathObj*>(parent.value().get()) : nullptr;
  }
  static bool SameSteps(const AccessPathObj* a, const AccessPathObj* b);
};

class AccessPath : public ObjectRef {
 public:
  /*! \brief The empty path (depth 0). */
  static AccessPath Root() { return AccessPath(make_object<AccessPathObj>()); }
  /*! \brief Root() extended by each step of [first, last). */
  template <typename Iter>
  static AccessPath FromSteps(Iter first, Iter last) {
    AccessPath path = Root();
    for (; first != last; ++first) path = path->Extend(*first);
    return path;
  }
  static AccessPath FromSteps(const Array<AccessStep>& steps) {
    return FromSteps(steps.begin(), steps.end());
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(AccessPath, ObjectRef, AccessPathObj);

 private:
  friend class AccessPathObj;
  explicit AccessPath(ObjectPtr<AccessPathObj> node) : ObjectRef(std::move(node)) {}
};

/*! \brief The (lhs, rhs) paths of a first structural mismatch. */
using AccessPathPair = Tuple<AccessPath, AccessPath>;

inline bool AccessStepObj::StepEqual(const AccessStep& other) const {
  return kind == other->kind && AnyEqual()(key, other->key);
}

inline Optional<AccessPath> AccessPathObj::GetParent() const {
  if (const AccessPathObj* p = ParentNode()) return GetRef<AccessPath>(p);
  return std::nullopt;
}

inline AccessPath AccessPathObj::Extend(AccessStep next) const {
  return AccessPath(make_object<AccessPathObj>(Optional<ObjectRef>(GetRef<AccessPath>(this)),
                                               Optional<AccessStep>(std::move(next)), depth + 1));
}
inline AccessPath AccessPathObj::Attr(String name) const {
  return Extend(AccessStep::Attr(std::move(name)));
}
inline AccessPath AccessPathObj::AttrMissing(String name) const {
  return Extend(AccessStep::AttrMissing(std::move(name)));
}
inline AccessPath AccessPathObj::ArrayItem(int64_t index) const {
  return Extend(AccessStep::ArrayItem(index));
}
inline AccessPath AccessPathObj::ArrayItemMissing(int64_t index) const {
  return Extend(AccessStep::ArrayItemMissing(index));
}
inline AccessPath AccessPathObj::MapItem(Any key) const {
  return Extend(AccessStep::MapItem(std::move(key)));
}
inline AccessPath AccessPathObj::MapItemMissing(Any key) const {
  return Extend(AccessStep::MapItemMissing(std::move(key)));
}

inline Array<AccessStep> AccessPathObj::ToSteps() const {
  std::vector<AccessStep> steps(static_cast<size_t>(depth), AccessStep(AccessKind::kAttr, Any()));
  size_t i = steps.size();
  for (const AccessPathObj* p = this; p != nullptr && i > 0; p = p->ParentNode()) {
    steps[--i] = p->step.value();
  }
  return Array<AccessStep>(steps.begin(), steps.end());
}

inline bool AccessPathObj::SameSteps(const AccessPathObj* a, const AccessPathObj* b) {
  // Both have the same depth: walk up in lockstep until a shared node.
  for (; a != nullptr && a != b; a = a->ParentNode(), b = b->ParentNode()) {
    if (a->step.has_value() != b->step.has_value()) return false;
    if (a->step.has_value() && !a->step.value()->StepEqual(b->step.value())) return false;
  }
  return true;
}

inline bool AccessPathObj::PathEqual(const AccessPath& other) const {
  return depth == other->depth && SameSteps(this, other.get());
}

inline bool AccessPathObj::IsPrefixOf(const AccessPath& other) const {
  const AccessPathObj* p = other.get();
  while (p != nullptr && p->depth > depth) p = p->ParentNode();
  return p != nullptr && p->depth == depth && SameSteps(this, p);
}

}  // namespace reflection
TVM_FFI_NS_END

#endif  // TVM_FFI_REFLECTION_ACCESS_PATH_H_
