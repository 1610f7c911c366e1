/*
 * add_one_c.c -- a kernel library in plain C, written to the stable C ABI.
 *
 * Every function a library exports is a TVMFFISafeCallType named
 * __tvm_ffi_<name>: it receives its arguments as views (TVMFFIAny), writes
 * an owned value into `result`, and returns 0 -- or raises an error into the
 * thread-local slot and returns -1.  Build it as a shared object linked to
 * libtvm_ffi:
 *
 *   cc -shared -fPIC add_one_c.c -o add_one_c.so $(pkg-config --cflags --libs tvm_ffi)
 */
#include <tvm/ffi/c_api.h>

/* The DLTensor of a tensor argument: a borrowed DLTensor* (from C) or an
 * ffi.Tensor object (what Python passes for numpy/torch arrays); else NULL. */
static DLTensor* as_dltensor(const TVMFFIAny* arg) {
  if (arg->type_index == kTVMFFIDLTensorPtr) return (DLTensor*)arg->v_ptr;
  if (arg->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(arg->v_obj);
  return NULL;
}

/* add_one(x, y): y[i] = x[i] + 1 for 1-d float32 tensors on the CPU. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                                         TVMFFIAny* result) {
  (void)handle;
  const DLTensor* x = num_args == 2 ? as_dltensor(&args[0]) : NULL;
  DLTensor* y = num_args == 2 ? as_dltensor(&args[1]) : NULL;
  if (x == NULL || y == NULL) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one(x, y) expects two tensor arguments");
    return -1;
  }
  if (x->device.device_type != kDLCPU || y->device.device_type != kDLCPU || x->ndim != 1 ||
      y->ndim != 1 || x->shape[0] != y->shape[0] || x->dtype.code != kDLFloat ||
      x->dtype.bits != 32 || y->dtype.code != kDLFloat || y->dtype.bits != 32) {
    TVMFFIErrorSetRaisedFromCStr(
        "ValueError", "add_one(x, y) expects 1-d float32 CPU tensors of the same length");
    return -1;
  }
  /* strides == NULL means compact; byte_offset is counted in bytes */
  const float* src = (const float*)((const char*)x->data + x->byte_offset);
  float* dst = (float*)((char*)y->data + y->byte_offset);
  int64_t xs = x->strides ? x->strides[0] : 1, ys = y->strides ? y->strides[0] : 1;
  for (int64_t i = 0; i < x->shape[0]; ++i) dst[i * ys] = src[i * xs] + 1.0f;
  result->type_index = kTVMFFINone; /* returns None */
  return 0;
}

/* always_fails(): shows how a C kernel reports an error. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_always_fails(void* handle, const TVMFFIAny* args, int32_t num_args,
                                              TVMFFIAny* result) {
  (void)handle, (void)args, (void)num_args, (void)result;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "always_fails was called, as its name says");
  return -1;
}
