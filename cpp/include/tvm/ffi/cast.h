/*
 * tvm/ffi/cast.h -- GetRef / GetObjectPtr: new strong references from raw
 * object pointers.  (There is no Downcast: use ref.as<T>(), as_or_throw<T>()
 * or Any::cast<T>().)
 */
#ifndef TVM_FFI_CAST_H_
#define TVM_FFI_CAST_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

TVM_FFI_NS_BEGIN

/*! \brief A new reference to `ptr`; null gives a null ref for nullable RefT. */
template <typename RefT, typename ObjT>
inline RefT GetRef(const ObjT* ptr) {
  static_assert(object_ref_contains_v<RefT, ObjT> || is_optional_type_v<RefT>,
                "GetRef: RefT cannot hold this object type");
  if (ptr == nullptr) {
    if constexpr (RefT::_type_is_nullable) {
      return RefT(UnsafeInit{});
    } else {
      TVM_FFI_ICHECK_NOTNULL(ptr);
    }
  }
  return details::ObjectUnsafe::ObjectRefFromObjectPtr<RefT>(
      details::ObjectUnsafe::ObjectPtrFromUnowned<Object>(ptr));
}

/*! \brief A new strong ObjectPtr from a raw pointer. */
template <typename BaseType, typename ObjT>
inline ObjectPtr<BaseType> GetObjectPtr(ObjT* ptr) {
  static_assert(std::is_base_of_v<BaseType, ObjT>, "GetObjectPtr: can only upcast");
  return details::ObjectUnsafe::ObjectPtrFromUnowned<BaseType>(static_cast<const Object*>(ptr));
}

TVM_FFI_NS_END
#endif  // TVM_FFI_CAST_H_
