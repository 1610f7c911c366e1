/*
 * kdatasym.c -- a kernel library whose symbols under function names are data
 * (issue 22 item 7): the runtime must refuse to call them, not crash.
 * One real function keeps the library usable.
 */
#include "kernel_util.h"

TVM_FFI_DLL_EXPORT int __tvm_ffi_ok(void* handle, const TVMFFIAny* args, int32_t n,
                                    TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  k_set_int(result, 7);
  return 0;
}

/* a "function", its metadata and its doc, all data (read-only and writable) */
TVM_FFI_DLL_EXPORT const int __tvm_ffi_data_fn = 42;
TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_ok = 1;
TVM_FFI_DLL_EXPORT const char __tvm_ffi__doc_ok[] = "not a function";
TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_data_fn[4] = {1, 2, 3, 4};
