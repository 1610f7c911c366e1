/*
 * kadd.c -- a plain kernel library: safe-call exports __tvm_ffi_<name> over
 * tensors, ints and strings, a failing function, metadata and doc symbols.
 */
#include <stdio.h>

#include "kernel_util.h"

/* add_one(x, y): y[i] = x[i] + 1 for 1-d float32 tensors of equal length. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_add_one(void* handle, const TVMFFIAny* args, int32_t n,
                                         TVMFFIAny* result) {
  (void)handle;
  (void)result;
  DLTensor *x, *y;
  if (n != 2) return k_raise("TypeError", "add_one expects 2 arguments");
  if (k_tensor(&args[0], &x) != 0 || k_tensor(&args[1], &y) != 0) return -1;
  if (x->ndim != 1 || y->ndim != 1 || x->shape[0] != y->shape[0])
    return k_raise("ValueError", "add_one expects two 1-d tensors of equal length");
  if (x->dtype.code != kDLFloat || x->dtype.bits != 32 || y->dtype.code != kDLFloat ||
      y->dtype.bits != 32)
    return k_raise("TypeError", "add_one expects float32 tensors");
  const float* xd = (const float*)((const char*)x->data + x->byte_offset);
  float* yd = (float*)((char*)y->data + y->byte_offset);
  for (int64_t i = 0; i < x->shape[0]; ++i) yd[i] = xd[i] + 1.0f;
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_add_int(void* handle, const TVMFFIAny* args, int32_t n,
                                         TVMFFIAny* result) {
  (void)handle;
  int64_t a, b;
  if (n != 2) return k_raise("TypeError", "add_int expects 2 arguments");
  if (k_int(&args[0], &a) != 0 || k_int(&args[1], &b) != 0) return -1;
  k_set_int(result, a + b);
  return 0;
}

/* greet(name) -> "hello, <name>" */
TVM_FFI_DLL_EXPORT int __tvm_ffi_greet(void* handle, const TVMFFIAny* args, int32_t n,
                                       TVMFFIAny* result) {
  (void)handle;
  TVMFFIByteArray s;
  char buf[256];
  if (n != 1) return k_raise("TypeError", "greet expects 1 argument");
  if (k_str(&args[0], &s) != 0) return -1;
  if (s.size > 200) return k_raise("ValueError", "greet: name too long");
  int len = snprintf(buf, sizeof(buf), "hello, %.*s", (int)s.size, s.data);
  TVMFFIByteArray out = {buf, (size_t)len};
  return TVMFFIStringFromByteArray(&out, result);
}

/* fail(msg): always raises ValueError(msg). */
TVM_FFI_DLL_EXPORT int __tvm_ffi_fail(void* handle, const TVMFFIAny* args, int32_t n,
                                      TVMFFIAny* result) {
  (void)handle;
  (void)result;
  TVMFFIByteArray s;
  char buf[256];
  if (n != 1 || k_str(&args[0], &s) != 0) return k_raise("TypeError", "fail expects a str");
  snprintf(buf, sizeof(buf), "%.*s", (int)s.size, s.data);
  return k_raise("ValueError", buf);
}

/* handle_is_null() -> bool: library functions must be called with NULL. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_handle_is_null(void* handle, const TVMFFIAny* args, int32_t n,
                                                TVMFFIAny* result) {
  (void)args;
  (void)n;
  result->type_index = kTVMFFIBool;
  result->zero_padding = 0;
  result->v_int64 = handle == NULL;
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_main(void* handle, const TVMFFIAny* args, int32_t n,
                                      TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  k_set_int(result, 42);
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_add_int(void* handle, const TVMFFIAny* args, int32_t n,
                                                   TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  return k_set_str(result,
                   "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"args\\\":["
                   "{\\\"type\\\":\\\"int\\\"},{\\\"type\\\":\\\"int\\\"},{\\\"type\\\":"
                   "\\\"int\\\"}]}\"}");
}

TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_add_int(void* handle, const TVMFFIAny* args, int32_t n,
                                              TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  return k_set_str(result, "Adds two integers.");
}

/* A broken metadata symbol: returns an int instead of a String. */
TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_greet(void* handle, const TVMFFIAny* args, int32_t n,
                                                 TVMFFIAny* result) {
  (void)handle;
  (void)args;
  (void)n;
  k_set_int(result, 5);
  return 0;
}
