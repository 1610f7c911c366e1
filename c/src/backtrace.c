/*
 * backtrace.c -- TVMFFIBacktrace (abi.md §9.3, §9.4).  First version: only
 * the caller-supplied line (allowed by the spec when symbolisation is not
 * compiled in).
 */
#include <stdio.h>

#include "internal.h"

static _Thread_local char bt_line[1024];
static _Thread_local TVMFFIByteArray bt_result;

TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary) {
  (void)cross_ffi_boundary;
  bt_result.data = bt_line;
  bt_result.size = 0;
  bt_line[0] = '\0';
  if (filename && func) {
    int n = snprintf(bt_line, sizeof(bt_line), "  File \"%s\", line %d, in %s\n", filename,
                     lineno, func);
    if (n > 0) bt_result.size = (size_t)n < sizeof(bt_line) ? (size_t)n : sizeof(bt_line) - 1;
  }
  return &bt_result;
}
