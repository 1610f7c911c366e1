/* tvm/ffi/c_ffi_api.h -- compatibility alias (named in the ORC JIT add-on README). */
#ifndef TVM_FFI_C_FFI_API_H_
#define TVM_FFI_C_FFI_API_H_
#include <tvm/ffi/c_api.h>
#ifdef __cplusplus
#include <tvm/ffi/tvm_ffi.h>
#endif
#endif  // TVM_FFI_C_FFI_API_H_
