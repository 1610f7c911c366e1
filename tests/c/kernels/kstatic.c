/*
 * kstatic.c -- a library with static initialisation, linked against
 * libtvm_ffi (NEEDED libtvm_ffi.so): when it is loaded its constructor
 * registers a global function and a system-library symbol.  Both must land
 * in the runtime the loading process already has.
 */
#include "kernel_util.h"

static int hello(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  k_set_int(result, 7000 + n);
  return 0;
}

static int sys_add(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int64_t a, b;
  if (n != 2 || k_int(&args[0], &a) != 0 || k_int(&args[1], &b) != 0)
    return k_raise("TypeError", "sys_add expects 2 ints");
  k_set_int(result, a + b);
  return 0;
}

__attribute__((constructor)) static void kstatic_init(void) {
  TVMFFIObjectHandle f = NULL;
  TVMFFIByteArray name = {"kstatic.hello", 13};
  if (TVMFFIFunctionCreate(NULL, hello, NULL, &f) == 0) {
    TVMFFIFunctionSetGlobal(&name, f, 1);
    TVMFFIObjectDecRef(f);
  }
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_kstatic.sys_add", (void*)sys_add);
}
