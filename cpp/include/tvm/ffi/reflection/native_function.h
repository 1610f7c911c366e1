/*
 * tvm/ffi/reflection/native_function.h -- how a native hook (a C++ function
 * known at compile time) is stored as a type attribute by
 * TypeAttrDef<T>().native_fn_attr<&Fn>(key).
 *
 * By default the attribute is an opaque pointer to Fn itself: the runtime
 * calls `__any_hash__` (`int64_t f(const Any&)`) and `__any_equal__`
 * (`bool f(const Any&, const Any&)`) hooks that way.  Headers whose hooks
 * the runtime calls differently specialise details::NativeHook on the hook's
 * signature (extra/structural_visit.h, extra/structural_mutate.h).
 * Upstream's NativeFunction / NativeFunctionView call wrappers are not
 * provided.
 */
#ifndef TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
#define TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_

#include <tvm/ffi/any.h>

#include <type_traits>

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
}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_NATIVE_FUNCTION_H_
