/*
 * tvm/ffi/extra/structural_key.h -- StructuralKey: a value wrapped so that it
 * hashes and compares structurally (StructuralHash / StructuralEqual), as a
 * key of std::unordered_map or of Map<Any, Any> / Dict<Any, Any>.
 *
 * The object is the runtime's ffi.StructuralKey (same layout: the key, then
 * its structural hash), so keys made here and by the runtime or Python mix;
 * the runtime's __any_hash__/__any_equal__ hooks of the type make FFI maps
 * use them (see tvm_ffi_extra(3)).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_KEY_H_
#define TVM_FFI_EXTRA_STRUCTURAL_KEY_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/memory.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Payload: the wrapped value and its structural hash (bit-cast to int64). */
class StructuralKeyObj : public Object {
 public:
  Any key;
  int64_t hash_i64{0};

  StructuralKeyObj() = default;
  explicit StructuralKeyObj(Any value)
      : key(std::move(value)), hash_i64(static_cast<int64_t>(StructuralHash::Hash(key))) {}

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.StructuralKey", StructuralKeyObj, Object);
};

/*! \brief Reference to a StructuralKeyObj; == compares the keys structurally. */
class StructuralKey : public ObjectRef {
 public:
  explicit StructuralKey(Any key) : ObjectRef(make_object<StructuralKeyObj>(std::move(key))) {}

  bool operator==(const StructuralKey& other) const {
    if (same_as(other)) return true;
    if (get()->hash_i64 != other->hash_i64) return false;  // cheap rejection first
    return StructuralEqual::Equal(get()->key, other->key);
  }
  bool operator!=(const StructuralKey& other) const { return !(*this == other); }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralKey, ObjectRef, StructuralKeyObj);
};

TVM_FFI_NS_END

template <>
struct std::hash<tvm::ffi::StructuralKey> {
  size_t operator()(const tvm::ffi::StructuralKey& key) const {
    return static_cast<size_t>(static_cast<uint64_t>(key->hash_i64));
  }
};

#endif  // TVM_FFI_EXTRA_STRUCTURAL_KEY_H_
