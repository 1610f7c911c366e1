/* module.c -- the C fast path of tvm_ffi._ffi_cffi, one translation unit (see binding.h). */
#include "binding.h"

/* In dependency order, each file uses the ones above it: not sorted. */
// clang-format off
#include "state.c"
#include "errors.c"
#include "basetypes.c"
#include "identity.c"
#include "classify.c"
#include "pack.c"
#include "exchange.c"
#include "dlpack.c"
#include "results.c"
#include "call.c"
#include "stack.c"
#include "callbacks.c"
#include "fields.c"
#include "test_api.c"
// clang-format on
