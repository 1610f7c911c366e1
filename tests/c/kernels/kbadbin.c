/*
 * kbadbin.c -- a corrupt __tvm_ffi__library_bin (indptr starts at 1): the
 * loader must reject it with a RuntimeError instead of reading garbage.
 */
#include "kernel_util.h"

#define U64(x) (unsigned char)(x), 0, 0, 0, 0, 0, 0, 0

TVM_FFI_DLL_EXPORT const unsigned char __tvm_ffi__library_bin[] = {
    U64(44), U64(2), U64(1), U64(1), U64(0), U64(4), '_', 'l', 'i', 'b',
};

TVM_FFI_DLL_EXPORT int __tvm_ffi_unused(void* h, const TVMFFIAny* args, int32_t n,
                                        TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  (void)result;
  return 0;
}
