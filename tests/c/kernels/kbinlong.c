/*
 * kbinlong.c -- a __tvm_ffi__library_bin whose nbytes header claims more
 * than the symbol holds: the loader must stop at the symbol's size.
 */
#include "kernel_util.h"

#define U64(x) (unsigned char)((x) & 0xff), (unsigned char)(((x) >> 8) & 0xff), 0, 0, 0, 0, 0, 0

TVM_FFI_DLL_EXPORT const unsigned char __tvm_ffi__library_bin[] = {
    U64(4096), U64(2), U64(0), U64(1), U64(0), U64(4), '_', 'l', 'i', 'b',
};
