/*
 * kctx.c -- a library using the loader-filled variables: the module token
 * __tvm_ffi__library_ctx, two context symbols, and cross-module calls
 * through TVMFFIEnvModLookupFromImports.
 */
#include "kernel_util.h"

TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = NULL;
/* Filled from TVMFFIEnvModRegisterContextSymbol("kctx_helper", fn). */
TVM_FFI_DLL_EXPORT void* kctx_helper = NULL;
TVM_FFI_DLL_EXPORT void* kctx_unset = NULL; /* nobody registers it */

static void k_set_ptr(TVMFFIAny* r, void* p) {
  r->type_index = p ? kTVMFFIOpaquePtr : kTVMFFINone;
  r->zero_padding = 0;
  r->v_ptr = p;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_get_ctx(void* h, const TVMFFIAny* args, int32_t n,
                                         TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  k_set_ptr(result, __tvm_ffi__library_ctx);
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_get_unset(void* h, const TVMFFIAny* args, int32_t n,
                                           TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  k_set_ptr(result, kctx_unset);
  return 0;
}

/* call_helper(x) -> helper(x) where helper is int64_t(int64_t). */
TVM_FFI_DLL_EXPORT int __tvm_ffi_call_helper(void* h, const TVMFFIAny* args, int32_t n,
                                             TVMFFIAny* result) {
  (void)h;
  int64_t x;
  if (n != 1 || k_int(&args[0], &x) != 0) return k_raise("TypeError", "expects an int");
  if (kctx_helper == NULL) return k_raise("RuntimeError", "kctx_helper was not injected");
  k_set_int(result, ((int64_t (*)(int64_t))kctx_helper)(x));
  return 0;
}

/* lookup_call(name, *args) -> imported function `name` called with args. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_lookup_call(void* h, const TVMFFIAny* args, int32_t n,
                                             TVMFFIAny* result) {
  (void)h;
  TVMFFIByteArray s;
  char name[128];
  TVMFFIAny rest[8];
  if (n < 1 || n > 9 || k_str(&args[0], &s) != 0 || s.size >= sizeof(name))
    return k_raise("TypeError", "lookup_call expects (name, *args)");
  memcpy(name, s.data, s.size);
  name[s.size] = '\0';
  TVMFFIObjectHandle fn = NULL;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name, &fn) != 0) return -1;
  for (int32_t i = 1; i < n; ++i) rest[i - 1] = args[i];
  return TVMFFIFunctionCall(fn, rest, n - 1, result); /* fn is borrowed */
}

/* lookup_handle(name) -> the borrowed handle (to observe caching). */
TVM_FFI_DLL_EXPORT int __tvm_ffi_lookup_handle(void* h, const TVMFFIAny* args, int32_t n,
                                               TVMFFIAny* result) {
  (void)h;
  TVMFFIByteArray s;
  char name[128];
  if (n != 1 || k_str(&args[0], &s) != 0 || s.size >= sizeof(name))
    return k_raise("TypeError", "lookup_handle expects a name");
  memcpy(name, s.data, s.size);
  name[s.size] = '\0';
  TVMFFIObjectHandle fn = NULL;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name, &fn) != 0) return -1;
  k_set_ptr(result, fn);
  return 0;
}

/* Same name as kadd's add_int but different result: lookups from imports
 * must not find the module's own symbol. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_add_int(void* h, const TVMFFIAny* args, int32_t n,
                                         TVMFFIAny* result) {
  (void)h;
  int64_t a, b;
  if (n != 2 || k_int(&args[0], &a) != 0 || k_int(&args[1], &b) != 0)
    return k_raise("TypeError", "add_int expects 2 ints");
  k_set_int(result, a + b + 1000);
  return 0;
}
