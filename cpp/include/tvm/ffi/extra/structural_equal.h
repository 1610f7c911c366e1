/*
 * tvm/ffi/extra/structural_equal.h -- StructuralEqual (docs/cpp.md §16).
 *
 * Header-only: calls the runtime globals ffi.StructuralEqual and
 * ffi.GetFirstStructuralMismatch (upstream exports these as C++ symbols of
 * libtvm_ffi; a C runtime registers them as global functions instead).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
#define TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>

TVM_FFI_NS_BEGIN

/* Structural equality: exact kinds, containers element-wise, reflected
 * objects field by field (SEqHashIgnore skipped), free variables bound
 * one-to-one when map_free_vars or inside def fields, tensors by content
 * unless skip_tensor_content.  Types without structural support throw
 * TypeError. */
class StructuralEqual {
 public:
  TVM_FFI_EXTRA_CXX_API static bool Equal(const Any& lhs, const Any& rhs,
                                          bool map_free_vars = false,
                                          bool skip_tensor_content = false);
  /* The (lhs, rhs) paths locating the first difference, or nullopt when the
   * values are equal. */
  TVM_FFI_EXTRA_CXX_API static Optional<reflection::AccessPathPair> GetFirstMismatch(
      const Any& lhs, const Any& rhs, bool map_free_vars = false, bool skip_tensor_content = false);
  bool operator()(const Any& lhs, const Any& rhs) const { return Equal(lhs, rhs); }
};

/* Key of a type's own structural equality: a function
 * (self, other, compare(lhs, rhs, def_region, field_name)) -> bool. */
namespace type_attr {
inline constexpr reflection::AttrKey<Function> kSEqual{"__s_equal__"};
}  // namespace type_attr

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API bool StructuralEqual::Equal(const Any& lhs, const Any& rhs,
                                                  bool map_free_vars, bool skip_tensor_content) {
  static const Function equal = Function::GetGlobalRequired("ffi.StructuralEqual");
  return equal(lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
}

TVM_FFI_EXTRA_CXX_API Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(
    const Any& lhs, const Any& rhs, bool map_free_vars, bool skip_tensor_content) {
  static const Function mismatch = Function::GetGlobalRequired("ffi.GetFirstStructuralMismatch");
  Any r = mismatch(lhs, rhs, map_free_vars, skip_tensor_content);
  if (r == nullptr) return std::nullopt;
  return r.cast<reflection::AccessPathPair>();
}
#endif

TVM_FFI_NS_END

#endif  // TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
