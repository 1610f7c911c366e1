/*
 * tvm/ffi/reflection/native_function.h -- native hooks: C++ functions known at
 * compile time, stored in an Any and called without packing arguments.
 *
 * NativeFunctionView<R(Args...)> (one TVMFFIAny, borrowed) and
 * NativeFunction<R(Args...)> (one Any, owning) hold either
 *   - an opaque pointer to an adapter `TVMFFIAny f(Args...) noexcept`
 *     (FromNative<&Fn>) whose result is the R value (None for void) or an
 *     ffi.Error object, owned by the caller -- the convention of apache
 *     tvm-ffi 0.1.15, so hooks cross between binaries built with either
 *     header set; or
 *   - an ffi.Function (from a TypedFunction<R(Args...)> or
 *     TypedFunction<Expected<R>(Args...)>), called through the C ABI.
 * CallExpected returns Expected<R> and never throws; operator() throws the error.
 *
 * TypeAttrDef<T>().native_fn_attr<&Fn>(key) stores a hook in the form the
 * runtime calls for that attribute: for a key of a NativeFunctionView type
 * (type_attr::kAnyHash, kAnyEqual) Fn's FromNative adapter; otherwise
 * details::NativeHook, by default an opaque pointer to Fn itself.  Headers whose
 * hooks the runtime calls differently specialise NativeHook on the hook's
 * signature (extra/structural_visit.h, extra/structural_mutate.h).
 */
#ifndef TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
#define TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>

#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN
namespace reflection {
namespace details {

/*! \brief Attribute value stored for native hook Fn (specialise on Fn's signature). */
template <auto Fn, typename = void>
struct NativeHook {
  static_assert(std::is_pointer_v<decltype(Fn)> &&
                    std::is_function_v<std::remove_pointer_t<decltype(Fn)>>,
                "native_fn_attr takes a function pointer known at compile time");
  static Any Value() { return Any(reinterpret_cast<void*>(Fn)); }
};

template <auto Fn>
inline Any NativeHookValue() {
  return NativeHook<Fn>::Value();
}
}  // namespace details

template <typename Signature>
class NativeFunctionView;
template <typename Signature>
class NativeFunction;

namespace details {
/*! \brief Whether an attribute key's value type is a NativeFunctionView (native_fn_attr). */
template <typename K>
struct IsNativeFunctionView : std::false_type {};
template <typename Signature>
struct IsNativeFunctionView<NativeFunctionView<Signature>> : std::true_type {};

template <typename R>
struct IsExpectedOf : std::false_type {};
template <typename R>
struct IsExpectedOf<Expected<R>> : std::true_type {};

/* Expected<R> -> the raw result of the native convention (owned). */
template <typename R>
inline TVMFFIAny NativeResultToRaw(Expected<R> result) noexcept {
  Any out;
  if constexpr (std::is_void_v<R>) {
    if (result.is_err()) out = result.error();
  } else {
    out = std::move(result);
  }
  return ::tvm::ffi::details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(out));
}

/* The raw result of the native convention (owned) -> Expected<R>; a value that
 * is not an R (from a packed function) gives a TypeError. */
template <typename R>
inline Expected<R> NativeResultFromRaw(TVMFFIAny raw) noexcept {
  Any out = ::tvm::ffi::details::AnyUnsafe::MoveTVMFFIAnyRawToAny(raw);
  if (out.type_index() == kTVMFFIError) return Expected<R>(std::move(out).cast<Error>());
  if constexpr (std::is_void_v<R>) {
    return Expected<void>();
  } else if constexpr (std::is_same_v<R, Any>) {
    return Expected<Any>(std::move(out));
  } else {
    if (std::optional<R> v = out.try_cast<R>()) return Expected<R>(*std::move(v));
    return Expected<R>(Error("TypeError",
                             "native function: the packed function returned `" +
                                 std::string(out.GetTypeKey()) + "`, expected `" +
                                 TypeTraits<R>::TypeStr() + "`",
                             ""));
  }
}
}  // namespace details

/*! \brief A borrowed native hook (see the top of this file); the size of a TVMFFIAny. */
template <typename R, typename... Args>
class NativeFunctionView<R(Args...)> {
 public:
  /*! \brief The adapter every FromNative pointer has. */
  using ABIType = TVMFFIAny (*)(Args...) noexcept;

  NativeFunctionView() = delete;
  NativeFunctionView(std::nullptr_t) = delete;
  /*! \brief Borrows `packed` (no reference taken): it must outlive the view. */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(const TypedFunction<PackedR(Args...)>& packed)  // NOLINT(*)
      : data_(AnyView(packed.packed()).CopyToTVMFFIAny()) {
    if (packed == nullptr) {
      TVM_FFI_THROW(ValueError) << "NativeFunctionView needs a non-null function";
    }
  }
  /*! \brief A temporary would dangle. */
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunctionView(const TypedFunction<PackedR(Args...)>&&) = delete;

  /*!
   * \brief A view of Fn, which returns R or Expected<R>; an ffi::Error it throws
   * becomes the error result, any other std::exception an InternalError.
   */
  template <auto Fn>
  static NativeFunctionView FromNative() {
    static_assert(std::is_invocable_v<decltype(Fn), Args...>,
                  "FromNative: Fn cannot be called with these arguments");
    TVMFFIAny data;
    data.type_index = kTVMFFIOpaquePtr;
    data.zero_padding = 0;
    data.v_int64 = 0;
    data.v_ptr = reinterpret_cast<void*>(&Adapter<Fn>);
    return NativeFunctionView(UnsafeInit{}, data);
  }

  Expected<R> CallExpected(Args... args) const noexcept {
    if (TVM_FFI_PREDICT_TRUE(data_.type_index == kTVMFFIOpaquePtr)) {
      return details::NativeResultFromRaw<R>(
          reinterpret_cast<ABIType>(data_.v_ptr)(std::forward<Args>(args)...));
    }
    return CallPacked(std::forward<Args>(args)...);
  }
  R operator()(Args... args) const { return CallExpected(std::forward<Args>(args)...).value(); }

 private:
  explicit NativeFunctionView(UnsafeInit, TVMFFIAny data) : data_(data) {}

  template <auto Fn>
  static TVMFFIAny Adapter(Args... args) noexcept {
    using FnR = std::invoke_result_t<decltype(Fn), Args...>;
    try {
      if constexpr (details::IsExpectedOf<FnR>::value) {
        return details::NativeResultToRaw<R>(Fn(std::forward<Args>(args)...));
      } else if constexpr (std::is_void_v<R>) {
        Fn(std::forward<Args>(args)...);
        return details::NativeResultToRaw<void>(Expected<void>());
      } else {
        return details::NativeResultToRaw<R>(Expected<R>(Fn(std::forward<Args>(args)...)));
      }
    } catch (const Error& error) {
      return details::NativeResultToRaw<R>(Expected<R>(error));
    } catch (const std::exception& error) {
      return details::NativeResultToRaw<R>(Expected<R>(Error("InternalError", error.what(), "")));
    }
  }

  TVM_FFI_COLD_UNOPT Expected<R> CallPacked(Args... args) const noexcept {
    AnyView packed[sizeof...(Args) > 0 ? sizeof...(Args) : 1] = {AnyView(args)...};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    if (TVMFFIFunctionCall(data_.v_obj, ::tvm::ffi::details::AnyUnsafe::GetRaw(&packed[0]),
                           static_cast<int32_t>(sizeof...(Args)), &result) != 0) {
      return Expected<R>(::tvm::ffi::details::MoveFromSafeCallRaised());
    }
    return details::NativeResultFromRaw<R>(result);
  }

  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;
  template <typename>
  friend class NativeFunction;

  TVMFFIAny data_;
};

/*! \brief An owning native hook: keeps its ffi.Function alive; the size of an Any. */
template <typename R, typename... Args>
class NativeFunction<R(Args...)> {
 public:
  using View = NativeFunctionView<R(Args...)>;

  explicit NativeFunction(View view) : data_(AnyView::CopyFromTVMFFIAny(view.data_)) {}
  template <typename PackedR, typename = std::enable_if_t<std::is_same_v<PackedR, R> ||
                                                          std::is_same_v<PackedR, Expected<R>>>>
  NativeFunction(const TypedFunction<PackedR(Args...)>& packed)  // NOLINT(*)
      : NativeFunction(View(packed)) {}

  static NativeFunction From(View view) { return NativeFunction(view); }
  template <auto Fn>
  static NativeFunction FromNative() {
    return NativeFunction(View::template FromNative<Fn>());
  }

  Expected<R> CallExpected(Args... args) const noexcept {
    return view().CallExpected(std::forward<Args>(args)...);
  }
  R operator()(Args... args) const { return view()(std::forward<Args>(args)...); }

 private:
  View view() const { return View(UnsafeInit{}, *::tvm::ffi::details::AnyUnsafe::GetRaw(&data_)); }

  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;

  Any data_;
};
}  // namespace reflection

/* In an Any: the opaque pointer or the ffi.Function; typed as a Variant of the two. */
template <typename Signature>
struct TypeTraits<reflection::NativeFunctionView<Signature>> : public TypeTraitsBase {
  using View = reflection::NativeFunctionView<Signature>;
  static void CopyToAnyView(const View& src, TVMFFIAny* result) { *result = src.data_; }
  static void MoveToAny(View src, TVMFFIAny* result) {
    *result = src.data_;
    if (result->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(result->v_obj);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return (src->type_index == kTVMFFIOpaquePtr && src->v_ptr != nullptr) ||
           src->type_index == kTVMFFIFunction;
  }
  static View CopyFromAnyViewAfterCheck(const TVMFFIAny* src) { return View(UnsafeInit{}, *src); }
  static std::optional<View> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() {
    return "Variant<" + TypeTraits<void*>::TypeStr() + ", " +
           TypeTraits<TypedFunction<Signature>>::TypeStr() + ">";
  }
  static std::string TypeSchema() {
    return R"({"type":"Variant","args":[)" + TypeTraits<void*>::TypeSchema() + "," +
           TypeTraits<TypedFunction<Signature>>::TypeSchema() + "]}";
  }
};

template <typename Signature>
struct TypeTraits<reflection::NativeFunction<Signature>> : public TypeTraitsBase {
  using Owner = reflection::NativeFunction<Signature>;
  using ViewTraits = TypeTraits<reflection::NativeFunctionView<Signature>>;
  static void CopyToAnyView(const Owner& src, TVMFFIAny* result) {
    *result = *details::AnyUnsafe::GetRaw(&src.data_);
  }
  static void MoveToAny(Owner src, TVMFFIAny* result) {
    *result = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(src.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return ViewTraits::CheckAnyStrict(src); }
  static Owner CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Owner(ViewTraits::CopyFromAnyViewAfterCheck(src));
  }
  static std::optional<Owner> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return ViewTraits::TypeStr(); }
  static std::string TypeSchema() { return ViewTraits::TypeSchema(); }
};
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
