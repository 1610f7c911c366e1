/*
 * kroctx.c -- a kernel library whose __tvm_ffi__library_ctx, which the
 * runtime writes the module token to, is read-only: loading must fail with
 * an error, not crash on the write (issue 22 item 7).
 */
#include "kernel_util.h"

TVM_FFI_DLL_EXPORT void* const __tvm_ffi__library_ctx = 0;
