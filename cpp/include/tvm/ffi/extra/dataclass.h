/*
 * tvm/ffi/extra/dataclass.h -- what reflected classes get for free: deep
 * copy, repr, and the recursive comparisons and hash used by Python
 * dataclass-style types, plus `os << value` printing the repr.
 *
 * Header-only over the runtime globals ffi.DeepCopy, ffi.ReprPrint,
 * ffi.RecursiveHash and ffi.RecursiveEq/Lt/Le/Gt/Ge (see tvm_ffi_dataclass(3)).
 */
#ifndef TVM_FFI_EXTRA_DATACLASS_H_
#define TVM_FFI_EXTRA_DATACLASS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <ostream>

TVM_FFI_NS_BEGIN

/*! \brief Copy of a value with every reachable mutable object copied (sharing and cycles kept). */
TVM_FFI_EXTRA_CXX_API Any DeepCopy(const Any& value);
/*! \brief Human-readable text of a value (what Python's repr() shows). */
TVM_FFI_EXTRA_CXX_API String ReprPrint(const Any& value);
/*! \brief Hash agreeing with RecursiveEq. */
TVM_FFI_EXTRA_CXX_API int64_t RecursiveHash(const Any& value);
/*! \brief Field-by-field comparisons of reflected objects, element-wise of containers. */
TVM_FFI_EXTRA_CXX_API bool RecursiveEq(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveLt(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveLe(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveGt(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveGe(const Any& lhs, const Any& rhs);

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API Any DeepCopy(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.DeepCopy");
  return fn(value);
}
TVM_FFI_EXTRA_CXX_API String ReprPrint(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.ReprPrint");
  return fn(value).cast<String>();
}
TVM_FFI_EXTRA_CXX_API int64_t RecursiveHash(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveHash");
  return fn(value).cast<int64_t>();
}
TVM_FFI_EXTRA_CXX_API bool RecursiveEq(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveEq");
  return fn(lhs, rhs).cast<bool>();
}
TVM_FFI_EXTRA_CXX_API bool RecursiveLt(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveLt");
  return fn(lhs, rhs).cast<bool>();
}
TVM_FFI_EXTRA_CXX_API bool RecursiveLe(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveLe");
  return fn(lhs, rhs).cast<bool>();
}
TVM_FFI_EXTRA_CXX_API bool RecursiveGt(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveGt");
  return fn(lhs, rhs).cast<bool>();
}
TVM_FFI_EXTRA_CXX_API bool RecursiveGe(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveGe");
  return fn(lhs, rhs).cast<bool>();
}
#endif

/* `os << value` prints ReprPrint(value). */
inline std::ostream& operator<<(std::ostream& os, const Any& value) {
  return os << ReprPrint(value);
}
inline std::ostream& operator<<(std::ostream& os, const ObjectRef& value) {
  return os << ReprPrint(Any(value));
}
template <typename... V>
inline std::ostream& operator<<(std::ostream& os, const Variant<V...>& value) {
  return os << ReprPrint(Any(value));
}
template <typename T>
inline std::ostream& operator<<(std::ostream& os, const Optional<T>& value) {
  return os << ReprPrint(Any(value));
}

/* Names of the type attributes a class may define to customise the above. */
namespace type_attr {
inline constexpr reflection::AttrKey<
    TypedFunction<String(const Object*, const TypedFunction<String(AnyView)>&)>>
    kRepr{"__ffi_repr__"};
inline constexpr reflection::AttrKey<
    TypedFunction<int64_t(const Object*, const TypedFunction<int64_t(AnyView)>&)>>
    kHash{"__ffi_hash__"};
inline constexpr reflection::AttrKey<
    TypedFunction<bool(const Object*, const Object*, const TypedFunction<bool(AnyView, AnyView)>&)>>
    kEq{"__ffi_eq__"};
inline constexpr reflection::AttrKey<TypedFunction<int32_t(
    const Object*, const Object*, const TypedFunction<int32_t(AnyView, AnyView)>&)>>
    kCompare{"__ffi_compare__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_DATACLASS_H_
