/*
 * tvm/ffi/extra/base.h -- marker for the "extra" C++ APIs.  Upstream exports
 * them from libtvm_ffi; here they are inline functions over runtime globals,
 * so the marker expands to `inline`.
 */
#ifndef TVM_FFI_EXTRA_BASE_H_
#define TVM_FFI_EXTRA_BASE_H_

#include <tvm/ffi/c_api.h>

#define TVM_FFI_EXTRA_CXX_API inline

#endif  // TVM_FFI_EXTRA_BASE_H_
