/*
 * kbin.c -- a library embedding __tvm_ffi__library_bin: module 0 is the
 * library itself ("_lib") and imports module 1, of kind "testpath", whose
 * payload is a kernel file name.  The test registers the loader
 * ffi.Module.load_from_bytes.testpath, which loads that file.
 */
#include "kernel_util.h"

#define U64(x) (unsigned char)((x) & 0xff), (unsigned char)(((x) >> 8) & 0xff), 0, 0, 0, 0, 0, 0

TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = NULL;

/* nbytes, indptr {0,1,1}, child_indices {1}, "_lib", "testpath" + "kadd.so" */
TVM_FFI_DLL_EXPORT const unsigned char __tvm_ffi__library_bin[] = {
    U64(91), U64(3), U64(0), U64(1), U64(1), U64(1), U64(1), U64(4), '_', 'l',
    'i',     'b',    U64(8), 't',    'e',    's',    't',    'p',    'a', 't',
    'h',     U64(7), 'k',    'a',    'd',    'd',    '.',    's',    'o',
};

/* call_imported(a, b) -> add_int(a, b) resolved through the imports. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_call_imported(void* h, const TVMFFIAny* args, int32_t n,
                                               TVMFFIAny* result) {
  (void)h;
  TVMFFIObjectHandle fn = NULL;
  TVMFFIAny a[2];
  if (n != 2) return k_raise("TypeError", "call_imported expects 2 arguments");
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "add_int", &fn) != 0) return -1;
  a[0] = args[0];
  a[1] = args[1];
  return TVMFFIFunctionCall(fn, a, 2, result);
}
