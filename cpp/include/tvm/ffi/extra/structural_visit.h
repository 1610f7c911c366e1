/*
 * tvm/ffi/extra/structural_visit.h -- structural visits from C++:
 * VisitInterrupt (stops a walk, carrying a value), StructuralVisitorObj (a
 * visitor: an object with a one-entry vtable and the def-region kind),
 * the header-only engines StructuralWalkEngine (typed pre/post-order
 * callbacks) and StructuralVisitEngine (callbacks that own their descent),
 * StructuralWalk / StructuralVisit over them, and `__s_visit__` hooks.
 *
 * What a value's children are (container elements, map values, reflected
 * fields with their def regions, a type's `__s_visit__` hook) is the
 * runtime's rule, written once: DefaultVisitExpected calls the runtime's
 * shared descent (ffi.StructuralVisitDefaultEntry), which visits each child
 * back through this visitor's vtable.  An engine only decides which callback
 * a value goes to.  The runtime's own walk (ffi.StructuralWalk, used from
 * Python) is a visitor of the same layout.  See docs/cpp.md §16.
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
#define TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/structural_callback.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <tuple>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Payload of the runtime's ffi.VisitInterrupt (static type index 77). */
class VisitInterruptObj : public Object {
 public:
  Any value;
  VisitInterruptObj() = default;
  explicit VisitInterruptObj(Any v) : value(std::move(v)) {}
  static constexpr int32_t _type_index = kTVMFFIVisitInterrupt;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.VisitInterrupt", VisitInterruptObj, Object);
};

/*! \brief Returned by a visit callback or hook to stop the walk, carrying a value. */
class VisitInterrupt : public ObjectRef {
 public:
  VisitInterrupt() : VisitInterrupt(Any(nullptr)) {}
  explicit VisitInterrupt(Any value)
      : ObjectRef(make_object<VisitInterruptObj>(std::move(value))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitInterrupt, ObjectRef, VisitInterruptObj);
};

/*! \brief Order of a walk: a value's callback before or after its children. */
enum class WalkOrder : int32_t { kPreOrder = 0, kPostOrder = 1 };

/*!
 * \brief What a walk callback decides: go on, skip the value's children (pre-order),
 * or stop with an interrupt.  In an Any: 0, 1 or the VisitInterrupt (the codes
 * ffi.StructuralWalk's callbacks return).
 */
class WalkResult {
 public:
  static WalkResult Advance() { return WalkResult(kAdvance); }
  static WalkResult Skip() { return WalkResult(kSkip); }
  static WalkResult Interrupt(VisitInterrupt interrupt) {
    WalkResult r(kAdvance);
    r.interrupt_ = std::move(interrupt);
    return r;
  }
  bool IsSkip() const noexcept { return code_ == kSkip; }
  const Optional<VisitInterrupt>& interrupt() const noexcept { return interrupt_; }

 private:
  enum Code : int64_t { kAdvance = 0, kSkip = 1 };
  explicit WalkResult(Code code) : code_(code) {}
  Code code_;
  Optional<VisitInterrupt> interrupt_;
  friend struct TypeTraits<WalkResult>;
};

template <>
struct TypeTraits<WalkResult> : public TypeTraitsBase {
  static void CopyToAnyView(const WalkResult& v, TVMFFIAny* r) {
    if (v.interrupt_.has_value()) {
      TypeTraits<VisitInterrupt>::CopyToAnyView(*v.interrupt_, r);
    } else {
      TypeTraits<int64_t>::CopyToAnyView(v.code_, r);
    }
  }
  static void MoveToAny(WalkResult v, TVMFFIAny* r) {
    if (v.interrupt_.has_value()) {
      TypeTraits<VisitInterrupt>::MoveToAny(*std::move(v.interrupt_), r);
    } else {
      TypeTraits<int64_t>::MoveToAny(v.code_, r);
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIVisitInterrupt ||
           (s->type_index == kTVMFFIInt && (s->v_int64 == 0 || s->v_int64 == 1));
  }
  static WalkResult CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIVisitInterrupt) {
      return WalkResult::Interrupt(TypeTraits<VisitInterrupt>::CopyFromAnyViewAfterCheck(s));
    }
    return s->v_int64 == 1 ? WalkResult::Skip() : WalkResult::Advance();
  }
  static std::optional<WalkResult> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    return std::nullopt;
  }
  static std::string TypeStr() { return "WalkResult"; }
  static std::string TypeSchema() { return details::SchemaOf("Any"); }
};

class StructuralVisitorObj;
/*!
 * \brief A visitor's entry point: visits `value` (borrowed) and returns, owned,
 * None (go on), a VisitInterrupt (stop) or an ffi.Error.  The runtime calls it
 * with the same C layout (`TVMFFIAny (*)(visitor, TVMFFIAny)`).
 */
using FStructuralVisitABI = TVMFFIAny (*)(StructuralVisitorObj* visitor, AnyView value) noexcept;
struct StructuralVisitorVTable {
  FStructuralVisitABI visit = nullptr;
};

namespace details {
/* The runtime's shared descent (structural_visit.c's default_visit). */
using SRawVisitFn = TVMFFIAny (*)(StructuralVisitorObj*, TVMFFIAny);
inline SRawVisitFn StructuralVisitDefaultEntry() {
  static const SRawVisitFn fn = reinterpret_cast<SRawVisitFn>(
      Function::GetGlobalRequired("ffi.StructuralVisitDefaultEntry")().cast<void*>());
  return fn;
}
}  // namespace details

/*!
 * \brief A visitor, as the runtime lays it out: the object header, the vtable
 * (+24) and the def-region kind in effect (+32).  Engines derive from it;
 * `__s_visit__` hooks receive it.
 */
class StructuralVisitorObj : public details::StructuralEngineObj<StructuralVisitorVTable> {
 public:
  /*! \brief The type engine callbacks receive (a layer may name itself). */
  using VisitorObjType = StructuralVisitorObj;
  using Result = Expected<Optional<VisitInterrupt>>;

  explicit StructuralVisitorObj(const StructuralVisitorVTable* vtable)
      : StructuralEngineObj(vtable) {}

  /*! \brief Visits a value through this visitor (its callbacks, then its descent). */
  Result VisitExpected(AnyView value) noexcept {
    return details::ExpectedUnsafe::MoveFromTVMFFIAny<Optional<VisitInterrupt>>(
        vtable_->visit(this, value));
  }
  Optional<VisitInterrupt> Visit(AnyView value) { return VisitExpected(value).value(); }
  /*! \brief Visits the children of a value (the runtime's rule) through this visitor. */
  Result DefaultVisitExpected(AnyView value) noexcept {
    return details::ExpectedUnsafe::MoveFromTVMFFIAny<Optional<VisitInterrupt>>(
        details::StructuralVisitDefaultEntry()(this, *details::AnyUnsafe::GetRaw(&value)));
  }
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralVisitor", StructuralVisitorObj, Object);
};

/*! \brief Reference to a visitor. */
class StructuralVisitor : public ObjectRef {
 public:
  explicit StructuralVisitor(ObjectPtr<StructuralVisitorObj> n) : ObjectRef(std::move(n)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralVisitor, ObjectRef, StructuralVisitorObj);
};

namespace details {
/* Depth guard shared by the engines: a cyclic structure errors instead of
 * exhausting the stack. */
constexpr int kStructuralMaxDepth = 1000;
TVM_FFI_COLD_UNOPT inline TVMFFIAny SDepthError() noexcept {
  const char msg[] = "structural walk: maximum recursion depth 1000 exceeded (cyclic structure?)";
  return AnyUnsafe::MoveAnyToTVMFFIAny(
      Any(MakeError("RuntimeError", msg, sizeof(msg) - 1, nullptr)));
}
/* The raw visit result of a callback's data: None, an interrupt or an error. */
inline TVMFFIAny SVisitRaw(Any data, AnyView node) noexcept {
  SNoteErrorNode(data, node);
  int32_t t = data.type_index();
  if (t != kTVMFFIVisitInterrupt && t != kTVMFFIError) data = Any();
  return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(data));
}
}  // namespace details

/*!
 * \brief A visitor calling typed callbacks on every value (pre- or post-order)
 * and the runtime's descent in between.  Callbacks return Expected<WalkResult>
 * and take (value[, Parent's state...][, def-region kind]); see
 * extra/structural_callback.h for how values select callbacks.  Parent is
 * StructuralVisitorObj or a layer deriving from it, whose DefaultVisitExpected
 * and StateTuple the engine uses.
 */
template <typename Parent, WalkOrder order, typename... Callbacks>
class StructuralWalkEngine : public Parent {
 public:
  explicit StructuralWalkEngine(Callbacks... callbacks)
      : Parent(&kVTable), callbacks_(std::move(callbacks)...) {}

 private:
  static TVMFFIAny RawVisit(StructuralVisitorObj* self, AnyView value) noexcept {
    return static_cast<StructuralWalkEngine*>(self)->Dispatch(value);
  }
  /* 0 go on, 1 skip the children, 2 stop with *stop */
  int Callback(AnyView value, TVMFFIAny* stop) noexcept {
    bool found = false;
    Any data = details::SCallFirst(callbacks_, value, std::tuple<>(), this->StateTuple(),
                                   this->def_region_kind(), &found);
    int32_t t = data.type_index();
    if (t == kTVMFFIVisitInterrupt || t == kTVMFFIError) {
      *stop = details::SVisitRaw(std::move(data), value);
      return 2;
    }
    return t == kTVMFFIInt && details::AnyUnsafe::GetRaw(&data)->v_int64 == 1 ? 1 : 0;
  }
  TVMFFIAny Dispatch(AnyView value) noexcept {
    TVMFFIAny out{};
    if (value.type_index() == kTVMFFINone) return out;  // absent values are not visited
    if (depth_ >= details::kStructuralMaxDepth) return details::SDepthError();
    ++depth_;
    int r = order == WalkOrder::kPreOrder ? Callback(value, &out) : 0;
    if (r == 0) {
      out = details::ExpectedUnsafe::MoveToTVMFFIAny(Parent::DefaultVisitExpected(value));
      if (out.type_index == kTVMFFIError) {
        Any data = details::AnyUnsafe::MoveTVMFFIAnyRawToAny(out);
        out = details::SVisitRaw(std::move(data), value);
      }
      if (out.type_index == kTVMFFINone && order == WalkOrder::kPostOrder) Callback(value, &out);
    }
    --depth_;
    return out;
  }

  inline static const StructuralVisitorVTable kVTable{&StructuralWalkEngine::RawVisit};
  std::tuple<Callbacks...> callbacks_;
  int depth_ = 0;
};

/*!
 * \brief A visitor whose first matching callback owns the value's descent
 * (it visits what it wants through the visitor it receives); other values get
 * the runtime's descent.  Callbacks return Expected<Optional<VisitInterrupt>>
 * and take (value, Parent::VisitorObjType*[, state...][, def-region kind]).
 */
template <typename Parent, typename... Callbacks>
class StructuralVisitEngine : public Parent {
 public:
  explicit StructuralVisitEngine(Callbacks... callbacks)
      : Parent(&kVTable), callbacks_(std::move(callbacks)...) {}

 private:
  static TVMFFIAny RawVisit(StructuralVisitorObj* self, AnyView value) noexcept {
    return static_cast<StructuralVisitEngine*>(self)->Dispatch(value);
  }
  TVMFFIAny Dispatch(AnyView value) noexcept {
    if (value.type_index() == kTVMFFINone) return TVMFFIAny{};
    if (depth_ >= details::kStructuralMaxDepth) return details::SDepthError();
    ++depth_;
    using Self = typename Parent::VisitorObjType;
    bool found = false;
    Any data = details::SCallFirst(callbacks_, value, std::make_tuple(static_cast<Self*>(this)),
                                   this->StateTuple(), this->def_region_kind(), &found);
    if (!found) data = details::ExpectedUnsafe::GetData(Parent::DefaultVisitExpected(value));
    --depth_;
    return details::SVisitRaw(std::move(data), value);
  }

  inline static const StructuralVisitorVTable kVTable{&StructuralVisitEngine::RawVisit};
  std::tuple<Callbacks...> callbacks_;
  int depth_ = 0;
};

/*! \brief Walks `root` with typed callbacks (see StructuralWalkEngine); errors are returned. */
template <WalkOrder order, typename... Callbacks>
Expected<Optional<VisitInterrupt>> StructuralWalkExpected(AnyView root, Callbacks&&... callbacks) {
  using Engine = StructuralWalkEngine<StructuralVisitorObj, order, std::decay_t<Callbacks>...>;
  try {
    return make_object<Engine>(std::forward<Callbacks>(callbacks)...)->VisitExpected(root);
  } catch (const Error& err) {
    return err;
  }
}
/*! \brief As StructuralWalkExpected, throwing the error. */
template <WalkOrder order, typename... Callbacks>
Optional<VisitInterrupt> StructuralWalk(AnyView root, Callbacks&&... callbacks) {
  return StructuralWalkExpected<order>(root, std::forward<Callbacks>(callbacks)...).value();
}
/*! \brief Visits `root` with callbacks owning their descent (see StructuralVisitEngine). */
template <typename... Callbacks>
Expected<Optional<VisitInterrupt>> StructuralVisitExpected(AnyView root, Callbacks&&... callbacks) {
  using Engine = StructuralVisitEngine<StructuralVisitorObj, std::decay_t<Callbacks>...>;
  try {
    return make_object<Engine>(std::forward<Callbacks>(callbacks)...)->VisitExpected(root);
  } catch (const Error& err) {
    return err;
  }
}
template <typename... Callbacks>
Optional<VisitInterrupt> StructuralVisit(AnyView root, Callbacks&&... callbacks) {
  return StructuralVisitExpected(root, std::forward<Callbacks>(callbacks)...).value();
}

namespace details {
inline bool StructuralVisitNeedEarlyReturn(const Optional<VisitInterrupt>& r) noexcept {
  return r.has_value();
}
template <typename T>
inline bool StructuralVisitNeedEarlyReturn(const Expected<T>& r) noexcept {
  return r.is_err() || ExpectedUnsafe::GetData(r).type_index() != kTVMFFINone;
}
/* The raw entry point stored for a `__s_visit__` hook written as
 * Expected<Optional<VisitInterrupt>> Hook(StructuralVisitorObj*, AnyView) noexcept. */
template <auto Hook>
inline TVMFFIAny StructuralVisitHookThunk(StructuralVisitorObj* self, AnyView value) noexcept {
  return SVisitRaw(SCatchToData([&]() { return SResultData(Hook(self, value)); }), AnyView());
}
}  // namespace details

namespace reflection {
namespace details {
/* A visit hook is stored as its raw entry point (an opaque pointer), which the
 * runtime and upstream-built engines call directly.  Exactly the hook's result
 * type: is_invocable_r would also take other two-argument hooks whose result
 * converts, e.g. __any_equal__'s bool(const Any&, const Any&). */
template <auto Fn>
struct NativeHook<Fn, std::enable_if_t<std::is_same_v<
                          std::invoke_result_t<decltype(Fn), StructuralVisitorObj*, AnyView>,
                          Expected<Optional<VisitInterrupt>>>>> {
  static Any Value() {
    ::tvm::ffi::FStructuralVisitABI thunk = &::tvm::ffi::details::StructuralVisitHookThunk<Fn>;
    return Any(reinterpret_cast<void*>(thunk));
  }
};
}  // namespace details
}  // namespace reflection

/*! \brief Returns from the enclosing hook when a visit result is an interrupt or an error. */
#define TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(Result)                                    \
  do {                                                                                \
    auto&& tvm_ffi_visit_result_ = (Result);                                          \
    if (::tvm::ffi::details::StructuralVisitNeedEarlyReturn(tvm_ffi_visit_result_)) { \
      return ::std::move(tvm_ffi_visit_result_);                                      \
    }                                                                                 \
  } while (0)

namespace type_attr {
/*! \brief A type's own structural visit: a raw entry point (see FStructuralVisitABI)
 * or an ffi.Function called as (value, visitor). */
inline constexpr reflection::AttrKey<void*> kStructuralVisit{"__s_visit__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
