/*
 * tvm/ffi/extra/structural_callback.h -- the typed callbacks of the header-only
 * structural engines (extra/structural_visit.h, extra/structural_mutate.h):
 * which value a callback takes, how it is called, and what its result means.
 * Internal to those headers (namespace details).
 *
 * A callback's first parameter type selects the values it takes:
 *   Any / AnyView          every value;
 *   const X* (X an Object) objects that are an X (or derive from it);
 *   anything else T        values TypeTraits<T> accepts strictly
 *                          (ObjectRef subclasses, Optional, String, int64_t, ...).
 * The first callback (in argument order) that takes a value is the one called.
 * After the value it may take, in this order and each optional as a group:
 * the engine itself (the engine decides), the engine layers' state
 * (Parent::StateTuple(), one argument per element), and a trailing extra
 * (the def-region kind or the InplaceMode).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_CALLBACK_H_
#define TVM_FFI_EXTRA_STRUCTURAL_CALLBACK_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/visit_error_context.h>

#include <exception>
#include <tuple>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN
namespace details {

/*!
 * \brief What visitors and mutators share, in the runtime's layout: the object
 * header, the vtable (+24) and the def-region kind in effect (+32).
 */
template <typename VTable>
class StructuralEngineObj : public Object {
 public:
  /*! \brief The state a layer hands to engine callbacks (see StateTuple). */
  using StateTupleType = std::tuple<>;

  /*! \brief The def-region kind in effect (kTVMFFIDefRegionKind*). */
  TVMFFIDefRegionKind def_region_kind() const noexcept { return def_region_mode_; }
  /*! \brief Runs callback() with the def-region kind set (a pattern region stays one). */
  template <typename Callback>
  decltype(auto) WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback) {
    struct Restore {
      StructuralEngineObj* self;
      TVMFFIDefRegionKind saved;
      ~Restore() { self->def_region_mode_ = saved; }
    } restore{this, def_region_mode_};
    if (restore.saved != kTVMFFIDefRegionKindPattern) def_region_mode_ = kind;
    return std::forward<Callback>(callback)();
  }

 protected:
  explicit StructuralEngineObj(const VTable* vtable) : vtable_(vtable) {}
  /*! \brief State handed to engine callbacks after the value (a layer hides this). */
  std::tuple<> StateTuple() const noexcept { return {}; }

  const VTable* vtable_;
  TVMFFIDefRegionKind def_region_mode_ = kTVMFFIDefRegionKindNone;
};

/* ---- the first parameter of a callable ---------------------------------- */
template <typename... A>
struct SFirstOf {
  using type = void;
};
template <typename A0, typename... A>
struct SFirstOf<A0, A...> {
  using type = A0;
};
template <typename F, typename = void>
struct SCallableArg;
#define TVM_FFI_S_CALLABLE_ARG_(Sig)            \
  template <typename R, typename... A>          \
  struct SCallableArg<Sig> {                    \
    using type = typename SFirstOf<A...>::type; \
  };
TVM_FFI_S_CALLABLE_ARG_(R (*)(A...))
TVM_FFI_S_CALLABLE_ARG_(R (*)(A...) noexcept)
TVM_FFI_S_CALLABLE_ARG_(R(A...))
TVM_FFI_S_CALLABLE_ARG_(R(A...) noexcept)
#undef TVM_FFI_S_CALLABLE_ARG_
#define TVM_FFI_S_MEMBER_ARG_(Quals)               \
  template <typename R, typename C, typename... A> \
  struct SCallableArg<R (C::*)(A...) Quals> {      \
    using type = typename SFirstOf<A...>::type;    \
  };
TVM_FFI_S_MEMBER_ARG_()
TVM_FFI_S_MEMBER_ARG_(const)
TVM_FFI_S_MEMBER_ARG_(noexcept)
TVM_FFI_S_MEMBER_ARG_(const noexcept)
#undef TVM_FFI_S_MEMBER_ARG_
template <typename F>
struct SCallableArg<F, std::void_t<decltype(&F::operator())>>
    : SCallableArg<decltype(&F::operator())> {};

/* ---- which values a callback takes, and as what ---------------------------- */
template <typename P, typename = void>
struct SCallbackArg {  // T by strict TypeTraits check
  using T = std::remove_cv_t<std::remove_reference_t<P>>;
  static bool Match(const TVMFFIAny* v) { return TypeTraitsNoCR<T>::CheckAnyStrict(v); }
  static T Get(AnyView v) { return v.cast<T>(); }
};
template <typename P>
struct SCallbackArg<P, std::enable_if_t<std::is_same_v<std::decay_t<P>, Any> ||
                                        std::is_same_v<std::decay_t<P>, AnyView>>> {
  static bool Match(const TVMFFIAny*) { return true; }
  static AnyView Get(AnyView v) { return v; }
};
template <typename P>
struct SCallbackArg<
    P, std::enable_if_t<
           std::is_pointer_v<std::decay_t<P>> &&
           std::is_base_of_v<Object, std::remove_cv_t<std::remove_pointer_t<std::decay_t<P>>>>>> {
  using X = std::remove_cv_t<std::remove_pointer_t<std::decay_t<P>>>;
  static bool Match(const TVMFFIAny* v) {
    return v->type_index >= kTVMFFIStaticObjectBegin && AnyObject(v)->template IsInstance<X>();
  }
  static X* Get(AnyView v) {  // the engine holds the value for the call
    return const_cast<X*>(static_cast<const X*>(AnyObject(AnyUnsafe::GetRaw(&v))));
  }
};
template <typename F>
using SCallbackArgOf = SCallbackArg<typename SCallableArg<std::decay_t<F>>::type>;

/* ---- calling with the optional trailing arguments ------------------------------ */
template <typename F, typename Tuple>
struct SInvocable;
template <typename F, typename... A>
struct SInvocable<F, std::tuple<A...>> : std::is_invocable<F&, A...> {};

/* Calls f(prefix..., state..., extra), else f(prefix..., state...), else
 * f(prefix..., extra), else f(prefix...). */
template <typename F, typename Prefix, typename State, typename Extra>
decltype(auto) SInvokeCallback(F& f, Prefix prefix, const State& state, Extra extra) {
  using Full = decltype(std::tuple_cat(prefix, state, std::make_tuple(extra)));
  using WithState = decltype(std::tuple_cat(prefix, state));
  using WithExtra = decltype(std::tuple_cat(prefix, std::make_tuple(extra)));
  if constexpr (SInvocable<F, Full>::value) {
    return std::apply(f, std::tuple_cat(prefix, state, std::make_tuple(extra)));
  } else if constexpr (SInvocable<F, WithState>::value) {
    return std::apply(f, std::tuple_cat(prefix, state));
  } else if constexpr (SInvocable<F, WithExtra>::value) {
    return std::apply(f, std::tuple_cat(prefix, std::make_tuple(extra)));
  } else {
    static_assert(SInvocable<F, Prefix>::value,
                  "a structural callback takes (value[, engine][, state...][, kind or mode])");
    return std::apply(f, prefix);
  }
}

/* ---- what a result means --------------------------------------------------------- */
template <typename T>
inline constexpr bool is_unexpected_error_v = false;
template <typename E>
inline constexpr bool is_unexpected_error_v<Unexpected<E>> = true;

/* A callback result as one Any: the value, the Unchanged marker, or an Error.
 * Expected, Unexpected and Error results carry their error; an Any holding an
 * Error is one too. */
template <typename R>
inline Any SResultData(R&& r) {
  using D = std::decay_t<R>;
  if constexpr (is_expected_v<D>) {
    return std::move(ExpectedUnsafe::GetData(r));
  } else if constexpr (is_unexpected_error_v<D>) {
    return Any(Error(std::forward<R>(r).error()));
  } else {
    return Any(std::forward<R>(r));
  }
}

TVM_FFI_COLD_UNOPT inline Any SErrorData(const std::exception& err) {
  const char* what = err.what();
  return Any(MakeError("InternalError", what, std::char_traits<char>::length(what), nullptr));
}

/* Runs body() (returning the result's Any) with exceptions turned into Errors. */
template <typename Body>
inline Any SCatchToData(Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& err) {
    return Any(err);
  } catch (const std::exception& err) {
    return SErrorData(err);
  }
}

/*
 * Calls the first callback of `callbacks` that takes v with (value, prefix_rest...,
 * state..., extra); *found tells whether one did.  Returns the result's data (see
 * SResultData), exceptions included.
 */
template <typename Tuple, typename Rest, typename State, typename Extra, size_t... I>
inline Any SCallFirst(Tuple& callbacks, AnyView v, const Rest& rest, const State& state,
                      Extra extra, bool* found, std::index_sequence<I...>) noexcept {
  Any out;
  const TVMFFIAny* raw = AnyUnsafe::GetRaw(&v);
  auto try_one = [&](auto& callback) {
    using Arg = SCallbackArgOf<decltype(callback)>;
    if (*found || !Arg::Match(raw)) return;
    *found = true;
    out = SCatchToData([&]() {
      auto arg = Arg::Get(v);
      return SResultData(SInvokeCallback(callback, std::tuple_cat(std::forward_as_tuple(arg), rest),
                                         state, extra));
    });
  };
  (try_one(std::get<I>(callbacks)), ...);
  return out;
}
template <typename... F, typename Rest, typename State, typename Extra>
inline Any SCallFirst(std::tuple<F...>& callbacks, AnyView v, const Rest& rest, const State& state,
                      Extra extra, bool* found) noexcept {
  return SCallFirst(callbacks, v, rest, state, extra, found, std::index_sequence_for<F...>{});
}

/* Does a value of type index t match a dynamic callback registered for `want`?
 * (The runtime's rule: -1 matches everything, an object type its subclasses,
 * str/bytes their small forms.) */
inline bool SDynTypeMatches(int32_t t, int32_t want) {
  if (want == kTVMFFIAny || want == t) return true;
  if (want == kTVMFFIStr) return t == kTVMFFISmallStr;
  if (want == kTVMFFIBytes) return t == kTVMFFISmallBytes;
  if (t < kTVMFFIStaticObjectBegin || want < kTVMFFIStaticObjectBegin) return false;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  const TVMFFITypeInfo* base = TVMFFIGetTypeInfo(want);
  if (info == nullptr || base == nullptr || base->type_depth >= info->type_depth) return false;
  return info->type_ancestors[base->type_depth]->type_index == want;
}

/* Records that the error in `data` (if it is one) left node v (if an object). */
inline void SNoteErrorNode(const Any& data, AnyView v) noexcept {
  if (TVM_FFI_PREDICT_TRUE(data.type_index() != kTVMFFIError)) return;
  UpdateVisitErrorContext(*AnyUnsafe::GetRaw(&data), v);
}

}  // namespace details
TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STRUCTURAL_CALLBACK_H_
