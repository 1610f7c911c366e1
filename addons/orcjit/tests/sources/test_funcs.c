/* test_add(a, b) = a + b, test_multiply(a, b) = a * b: plain-C safe calls. */
#include <tvm/ffi/c_api.h>

static int get2(const TVMFFIAny* args, int32_t n, int64_t* a, int64_t* b) {
  if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected two ints");
    return -1;
  }
  *a = args[0].v_int64;
  *b = args[1].v_int64;
  return 0;
}

/* Two levels so that FIRST/SECOND expand before pasting. */
#define BINOP(name, expr) BINOP_(name, expr)
#define BINOP_(name, expr)                                                       \
  TVM_FFI_DLL int __tvm_ffi_##name(void* self, const TVMFFIAny* args, int32_t n, \
                                   TVMFFIAny* result) {                          \
    int64_t a, b;                                                                \
    (void)self;                                                                  \
    if (get2(args, n, &a, &b) != 0) return -1;                                   \
    result->type_index = kTVMFFIInt;                                             \
    result->zero_padding = 0;                                                    \
    result->v_int64 = (expr);                                                    \
    return 0;                                                                    \
  }

#ifndef OFFSET
#define OFFSET 0
#define SCALE 1
#endif
#ifndef FIRST
#define FIRST test_add
#define SECOND test_multiply
#define OP1 a + b
#define OP2 a* b
#endif
BINOP(FIRST, OP1 + OFFSET)
BINOP(SECOND, (OP2)*SCALE)
