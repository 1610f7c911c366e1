/*
 * tvm/ffi/extra/structural_hash.h -- StructuralHash (docs/cpp.md §16).
 *
 * Header-only: calls the runtime global ffi.StructuralHash (which returns the
 * 64-bit hash bit-cast to int64).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
#define TVM_FFI_EXTRA_STRUCTURAL_HASH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>

#include <cstdint>

TVM_FFI_NS_BEGIN

/* Hash consistent with StructuralEqual: equal values hash alike (bound free
 * variables by the order they are first met, maps independently of order). */
class StructuralHash {
 public:
  TVM_FFI_EXTRA_CXX_API static uint64_t Hash(const Any& value, bool map_free_vars = false,
                                             bool skip_tensor_content = false);
  uint64_t operator()(const Any& value) const { return Hash(value); }
};

/* Key of a type's own structural hash: a function (self, init_hash, hash(value, init, def_region)) -> int. */
namespace type_attr {
inline constexpr reflection::AttrKey<Function> kSHash{"__s_hash__"};
}  // namespace type_attr

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API uint64_t StructuralHash::Hash(const Any& value, bool map_free_vars,
                                                    bool skip_tensor_content) {
  static const Function hash = Function::GetGlobalRequired("ffi.StructuralHash");
  return static_cast<uint64_t>(hash(value, map_free_vars, skip_tensor_content).cast<int64_t>());
}
#endif

TVM_FFI_NS_END

#endif  // TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
