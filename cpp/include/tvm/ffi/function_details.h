/*
 * tvm/ffi/function_details.h -- typed <-> packed adaptation (internal).
 *
 * A typed callable R(A...) is adapted to the packed form
 * (const AnyView* args, int32_t n, Any* rv).  Each argument goes through the
 * converting extraction (TypeTraits<T>::TryCastFromAnyView); a mismatch is a
 * TypeError naming the argument index, the function and both types; arguments
 * are converted left to right.  The signature text is only built on the error path.
 */
#ifndef TVM_FFI_FUNCTION_DETAILS_H_
#define TVM_FFI_FUNCTION_DETAILS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>

#include <string>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN
namespace details {

/* Static type name used in messages and signatures. */
template <typename T>
struct Type2Str {
  static TVM_FFI_COLD_UNOPT std::string v() {
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (std::is_same_v<U, Any>)
      return "Any";
    else if constexpr (std::is_same_v<U, AnyView>)
      return "AnyView";
    else if constexpr (std::is_void_v<U>)
      return "void";
    else
      return TypeTraits<U>::TypeStr();
  }
};
template <typename T>
struct Type2Schema {
  static TVM_FFI_COLD_UNOPT std::string v() {
    using U = std::remove_cv_t<std::remove_reference_t<T>>;
    if constexpr (std::is_same_v<U, Any> || std::is_same_v<U, AnyView>)
      return SchemaOf("Any");
    else if constexpr (std::is_void_v<U>)
      return SchemaOf("None");
    else
      return TypeTraits<U>::TypeSchema();
  }
};

/* "(0: A, 1: B) -> R" from the parts' type names. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string SigOf(const StrFn* params, size_t n,
                                                              StrFn ret) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) {
    char buf[32];  // "<i>: " without std::to_string (keeps <charconv> code out of kernels)
    int len = std::snprintf(buf, sizeof(buf), "%s%zu: ", i ? ", " : "", i);
    s.append(buf, static_cast<size_t>(len));
    s += params[i]();
  }
  s += ") -> ";
  return s += ret();
}
/* {"type":KEY,"named_args":{"return":[R],"params":[A...]}} (the 0.1.15 form; readers
 * still accept the older "args":[R, A...]). */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string FuncSchemaOf(const char* key, StrFn ret,
                                                                     const StrFn* params,
                                                                     size_t n) {
  std::string open = std::string("{\"type\":\"") + key + "\",\"named_args\":{\"return\":[" + ret() +
                     "],\"params\":[";
  return JoinStrs(open.c_str(), params, n, ",", "]}}");
}

template <typename... T>
struct TypeList {};

/* Signature description of a callable. */
template <typename R, typename... Args>
struct FuncSig {
  using RetType = R;
  using ArgsList = TypeList<Args...>;
  static constexpr size_t num_args = sizeof...(Args);
  static TVM_FFI_COLD_UNOPT std::string Sig() {
    static constexpr StrFn params[] = {&Type2Str<Args>::v..., nullptr};
    return SigOf(params, sizeof...(Args), &Type2Str<R>::v);
  }
  static TVM_FFI_COLD_UNOPT std::string Schema(const char* key = "ffi.Function") {
    static constexpr StrFn params[] = {&Type2Schema<Args>::v..., nullptr};
    return FuncSchemaOf(key, &Type2Schema<R>::v, params, sizeof...(Args));
  }
};

template <typename F, typename = void>
struct FuncTraits;
template <typename R, typename... Args>
struct FuncTraits<R(Args...)> : FuncSig<R, Args...> {};
template <typename R, typename... Args>
struct FuncTraits<R (*)(Args...)> : FuncSig<R, Args...> {};
template <typename R, typename... Args>
struct FuncTraits<R (*)(Args...) noexcept> : FuncSig<R, Args...> {};
template <typename R, typename... Args>
struct FuncTraits<R(Args...) noexcept> : FuncSig<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...) const> : FuncSig<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...)> : FuncSig<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...) const noexcept> : FuncSig<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...) noexcept> : FuncSig<R, Args...> {};
/* Functors and lambdas with a single operator(). */
template <typename F>
struct FuncTraits<F, std::void_t<decltype(&F::operator())>> : FuncTraits<decltype(&F::operator())> {
};

template <typename F>
using FuncTraitsOf = FuncTraits<std::remove_cv_t<std::remove_reference_t<F>>>;
/* The name upstream's code and tests use for the same traits (RetType, ArgsList). */
template <typename F>
using FunctionInfo = FuncTraitsOf<F>;

/* The error paths are plain functions (emitted once per binary); the
 * per-signature parts are passed as function pointers. */
using MismatchFn = std::string (*)(const TVMFFIAny*);
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowArityMismatch(const char* name,
                                                                                 StrFn sig,
                                                                                 size_t expected,
                                                                                 int32_t got) {
  TVM_FFI_THROW(TypeError) << "Mismatched number of arguments when calling: `" << (name ? name : "")
                           << sig() << "`. Expected " << expected << " but got " << got
                           << " arguments";
  TVM_FFI_UNREACHABLE();
}
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowArgMismatch(
    const char* name, StrFn sig, int32_t i, StrFn type_str, MismatchFn info, const TVMFFIAny* got) {
  TVM_FFI_THROW(TypeError) << "Mismatched type on argument #" << i << " when calling: `"
                           << (name ? name : "") << sig() << "`. Expected `" << type_str()
                           << "` but got `" << info(got) << "`";
  TVM_FFI_UNREACHABLE();
}

/* Converts a raw argument to U, or throws the mismatch TypeError. */
template <typename U>
TVM_FFI_INLINE U UnpackRaw(const TVMFFIAny* raw, int32_t i, const char* name, StrFn sig) {
  using Tr = TypeTraits<U>;
  static_assert(Tr::convert_enabled, "parameter type is not convertible from Any");
  if constexpr (has_copy_after_check<Tr>::value) {
    if (TVM_FFI_PREDICT_TRUE(Tr::CheckAnyStrict(raw))) return Tr::CopyFromAnyViewAfterCheck(raw);
  }
  if constexpr (has_convert_to_any<Tr>::value && has_copy_after_check<Tr>::value) {
    // a built-in type converts through its plain conversion function (any.h)
    Any converted;
    if (TVM_FFI_PREDICT_FALSE(!Tr::ConvertToAny(raw, &converted))) {
      ThrowArgMismatch(name, sig, i, &Type2Str<U>::v, &Tr::GetMismatchTypeInfo, raw);
    }
    return Tr::CopyFromAnyViewAfterCheck(AnyUnsafe::GetRaw(&converted));
  } else {
    std::optional<U> v = Tr::TryCastFromAnyView(raw);
    if (TVM_FFI_PREDICT_FALSE(!v.has_value())) {
      ThrowArgMismatch(name, sig, i, &Type2Str<U>::v, &Tr::GetMismatchTypeInfo, raw);
    }
    return *std::move(v);
  }
}
/* Converts argument i to the parameter type T (by value), inline: converting each
 * non-scalar argument out of line (one function per parameter type) took 1.3 % off a
 * container TU's compilation but made a call with three TensorViews 7 -> 57 ns
 * (bench/bench_cpp_call.cc). */
template <typename Sig, typename T>
TVM_FFI_INLINE std::remove_cv_t<std::remove_reference_t<T>> UnpackArg(const AnyView* args,
                                                                      int32_t i, const char* name) {
  using U = std::remove_cv_t<std::remove_reference_t<T>>;
  static_assert(!std::is_lvalue_reference_v<T> || std::is_const_v<std::remove_reference_t<T>>,
                "The function signature do not support unpacked: use T, const T& or T&&");
  if constexpr (std::is_same_v<U, AnyView>) {
    return args[i];
  } else if constexpr (std::is_same_v<U, Any>) {
    return Any(args[i]);
  } else {
    return UnpackRaw<U>(AnyUnsafe::GetRaw(&args[i]), i, name, &Sig::Sig);
  }
}

/* Stores a typed result into the owned result slot. */
template <typename R>
TVM_FFI_INLINE void StoreResult(R&& value, Any* rv) {
  using U = std::remove_cv_t<std::remove_reference_t<R>>;
  if constexpr (std::is_same_v<U, Any>) {
    *rv = std::forward<R>(value);
  } else if constexpr (std::is_same_v<U, AnyView>) {
    *rv = Any(value);
  } else {
    static_assert(TypeTraits<U>::convert_enabled, "return type is not convertible to Any");
    TVMFFIAny tmp;
    TypeTraits<U>::MoveToAny(U(std::forward<R>(value)), &tmp);
    *rv = AnyUnsafe::MoveTVMFFIAnyToAny(&tmp);
  }
}

/*
 * Converted arguments, one base per parameter: a flat aggregate instead of
 * std::tuple keeps the instantiation shallow (no recursive _Tuple_impl, no
 * <tuple>), and its braced initialisation converts left to right, so the
 * first bad argument is the one reported.
 */
template <size_t I, typename T>
struct ArgSlot {
  T value;
};
template <typename Seq, typename... T>
struct ArgPack;
template <size_t... Is, typename... T>
struct ArgPack<std::index_sequence<Is...>, T...> : ArgSlot<Is, T>... {};

template <typename Sig, typename F, typename... Args, size_t... Is>
TVM_FFI_INLINE void UnpackCallImpl(std::index_sequence<Is...>, const char* name, F& f,
                                   const AnyView* args, int32_t num_args, Any* rv) {
  if (TVM_FFI_PREDICT_FALSE(num_args != static_cast<int32_t>(sizeof...(Args)))) {
    ThrowArityMismatch(name, &Sig::Sig, sizeof...(Args), num_args);
  }
  (void)args;
  using R = typename Sig::RetType;
  ArgPack<std::index_sequence<Is...>, std::remove_cv_t<std::remove_reference_t<Args>>...> vals{
      ArgSlot<Is, std::remove_cv_t<std::remove_reference_t<Args>>>{
          UnpackArg<Sig, Args>(args, static_cast<int32_t>(Is), name)}...};
  (void)vals;
  if constexpr (std::is_void_v<R>) {
    f(std::move(
        static_cast<ArgSlot<Is, std::remove_cv_t<std::remove_reference_t<Args>>>&>(vals).value)...);
  } else {
    StoreResult<R>(
        f(std::move(static_cast<ArgSlot<Is, std::remove_cv_t<std::remove_reference_t<Args>>>&>(vals)
                        .value)...),
        rv);
  }
}
template <typename Sig, typename F, typename R, typename... Args>
TVM_FFI_INLINE void UnpackCallList(TypeList<Args...>*, const char* name, F& f, const AnyView* args,
                                   int32_t num_args, Any* rv) {
  UnpackCallImpl<Sig, F, Args...>(std::index_sequence_for<Args...>{}, name, f, args, num_args, rv);
}
/*! \brief Calls typed `f` with packed arguments (converting each). */
template <typename F>
TVM_FFI_INLINE void unpack_call(const char* name, F& f, const AnyView* args, int32_t num_args,
                                Any* rv) {
  using Sig = FuncTraitsOf<F>;
  UnpackCallList<Sig, F, typename Sig::RetType>(static_cast<typename Sig::ArgsList*>(nullptr), name,
                                                f, args, num_args, rv);
}

}  // namespace details
TVM_FFI_NS_END
#endif  // TVM_FFI_FUNCTION_DETAILS_H_
