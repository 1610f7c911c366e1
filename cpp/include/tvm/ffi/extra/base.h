/*
 * tvm/ffi/extra/base.h -- marker for the "extra" C++ APIs (json, structural
 * equality/hash, repr, serialization, ...).  Upstream compiles them into its
 * runtime; here they are inline functions over runtime globals, so the marker
 * expands to `inline`.
 *
 * A translation unit that defines TVM_FFI_CXX_ABI_BUILD before including any
 * header sees declarations only (the marker then exports them): such a unit
 * provides out-of-line definitions with upstream's mangled names, for binaries
 * built against upstream's headers.  Definitions in these headers are guarded
 * by TVM_FFI_EXTRA_CXX_INLINE_BODIES.
 */
#ifndef TVM_FFI_EXTRA_BASE_H_
#define TVM_FFI_EXTRA_BASE_H_

#include <tvm/ffi/c_api.h>

#ifdef TVM_FFI_CXX_ABI_BUILD
#define TVM_FFI_EXTRA_CXX_API TVM_FFI_DLL_EXPORT
#else
#define TVM_FFI_EXTRA_CXX_API inline
#define TVM_FFI_EXTRA_CXX_INLINE_BODIES 1
#endif

#endif  // TVM_FFI_EXTRA_BASE_H_
