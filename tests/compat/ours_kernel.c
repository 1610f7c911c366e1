/*
 * ours_kernel.c -- a plain C kernel, built two ways (apache_loads_ours.py
 * calls it): against OUR c_api.h and loaded by the apache-tvm-ffi wheel's
 * Python on its own runtime (test_ours_kernel.sh), and against the c_api.h of
 * every apache-tvm-ffi 0.1.x release and loaded by our Python on our runtime
 * (test_apache_kernel.sh).  It only uses the stable C ABI: exported
 * TVMFFISafeCallType functions, DLTensor views, TVMFFIAnyViewToOwnedAny,
 * TVMFFIStringFromByteArray and the error setters; object layouts it reads
 * itself (upstream's c_api.h has the accessors for C++ only).
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

/* Raises a TypeError naming the function and the argument, returns -1. */
static int type_error(const char* fn, int index, const char* expected) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: argument #%d must be %s", fn, index, expected);
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return -1;
}

/* The payload after an object's header: an ffi.Tensor's DLTensor, an
 * ffi.String's bytes (docs/abi.md). */
static void* payload(void* obj) { return (char*)obj + sizeof(TVMFFIObject); }

/* A float32 CPU tensor argument (DLTensor* view or ffi.Tensor), else NULL. */
static DLTensor* float32_tensor(const TVMFFIAny* arg) {
  DLTensor* t = NULL;
  if (arg->type_index == kTVMFFIDLTensorPtr) t = (DLTensor*)arg->v_ptr;
  if (arg->type_index == kTVMFFITensor) t = (DLTensor*)payload(arg->v_obj);
  if (t == NULL || t->device.device_type != kDLCPU || t->dtype.code != kDLFloat ||
      t->dtype.bits != 32 || t->dtype.lanes != 1 || t->ndim != 1)
    return NULL;
  return t;
}

/* add_one(x, y): y[i] = x[i] + 1 over 1-d float32 CPU tensors. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                                         TVMFFIAny* result) {
  (void)handle;
  if (num_args != 2) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one: expected 2 arguments (x, y)");
    return -1;
  }
  DLTensor* x = float32_tensor(&args[0]);
  DLTensor* y = float32_tensor(&args[1]);
  if (x == NULL) return type_error("add_one", 0, "a 1-d float32 CPU tensor");
  if (y == NULL) return type_error("add_one", 1, "a 1-d float32 CPU tensor");
  if (x->shape[0] != y->shape[0]) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "add_one: x and y differ in length");
    return -1;
  }
  const float* src = (const float*)((const char*)x->data + x->byte_offset);
  float* dst = (float*)((char*)y->data + y->byte_offset);
  int64_t xs = x->strides ? x->strides[0] : 1, ys = y->strides ? y->strides[0] : 1;
  for (int64_t i = 0; i < x->shape[0]; ++i) dst[i * ys] = src[i * xs] + 1.0f;
  result->type_index = kTVMFFINone;
  return 0;
}

/* echo(v): returns its argument (an owned copy of the view). */
TVM_FFI_DLL_EXPORT int __tvm_ffi_echo(void* handle, const TVMFFIAny* args, int32_t num_args,
                                      TVMFFIAny* result) {
  (void)handle;
  if (num_args != 1) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "echo: expected 1 argument");
    return -1;
  }
  return TVMFFIAnyViewToOwnedAny(&args[0], result);
}

/* sum(*ints or floats): a float when any argument is a float. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_sum(void* handle, const TVMFFIAny* args, int32_t num_args,
                                     TVMFFIAny* result) {
  (void)handle;
  int64_t isum = 0;
  double fsum = 0;
  int any_float = 0;
  for (int32_t i = 0; i < num_args; ++i) {
    if (args[i].type_index == kTVMFFIInt) {
      isum += args[i].v_int64;
      fsum += (double)args[i].v_int64;
    } else if (args[i].type_index == kTVMFFIFloat) {
      fsum += args[i].v_float64;
      any_float = 1;
    } else {
      return type_error("sum", i, "an int or a float");
    }
  }
  result->type_index = any_float ? kTVMFFIFloat : kTVMFFIInt;
  result->zero_padding = 0;
  if (any_float)
    result->v_float64 = fsum;
  else
    result->v_int64 = isum;
  return 0;
}

/* Text of a string argument (raw C string, small or heap String). */
static int string_arg(const TVMFFIAny* arg, TVMFFIByteArray* out) {
  switch (arg->type_index) {
    case kTVMFFIRawStr:
      out->data = arg->v_c_str;
      out->size = strlen(arg->v_c_str);
      return 0;
    case kTVMFFISmallStr:
      out->data = arg->v_bytes;
      out->size = arg->small_str_len;
      return 0;
    case kTVMFFIStr:
      *out = *(const TVMFFIByteArray*)payload(arg->v_obj);
      return 0;
    default:
      return -1;
  }
}

/* greet(name): "hello, <name>!" as a new String. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_greet(void* handle, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  (void)handle;
  TVMFFIByteArray name;
  if (num_args != 1 || string_arg(&args[0], &name) != 0) return type_error("greet", 0, "a str");
  char buf[256];
  int n = snprintf(buf, sizeof buf, "hello, %.*s!", (int)name.size, name.data);
  TVMFFIByteArray text = {buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1};
  return TVMFFIStringFromByteArray(&text, result);
}

/* raise_error(kind, message): fails with exactly that kind and message. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_raise_error(void* handle, const TVMFFIAny* args, int32_t num_args,
                                             TVMFFIAny* result) {
  (void)handle;
  (void)result;
  TVMFFIByteArray kind, message;
  if (num_args != 2 || string_arg(&args[0], &kind) != 0)
    return type_error("raise_error", 0, "a str");
  if (string_arg(&args[1], &message) != 0) return type_error("raise_error", 1, "a str");
  /* the first frame names this file and line; the runtime adds the rest */
  const TVMFFIByteArray* backtrace = TVMFFIBacktrace(__FILE__, __LINE__, __func__, 0);
  TVMFFIObjectHandle err = NULL;
  if (TVMFFIErrorCreate(&kind, &message, backtrace, &err) != 0) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "raise_error: out of memory");
    return -1;
  }
  TVMFFIErrorSetRaised(err); /* the slot takes its own reference */
  TVMFFIObjectDecRef(err);
  return -1;
}
