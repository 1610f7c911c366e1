/*
 * envkernel.c -- kernel library for the Python tests of the environment API:
 * alloc_like(t) allocates through TVMFFIEnvTensorAlloc (the framework allocator
 * the Python layer installs for calls with framework tensors), and
 * current_stream(device_type, device_id) reports TVMFFIEnvGetStream.
 * Built by tests/python/test_env.py with the system C compiler.
 */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

static int raise(const char* kind, const char* msg) {
  TVMFFIErrorSetRaisedFromCStr(kind, msg);
  return -1;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_alloc_like(void* handle, const TVMFFIAny* args, int32_t n,
                                            TVMFFIAny* result) {
  (void)handle;
  /* extra arguments are ignored: they only carry framework tensors (and so the allocator) */
  if (n < 1 || args[0].type_index != kTVMFFITensor)
    return raise("TypeError", "alloc_like(Tensor, ...)");
  DLTensor* proto = TVMFFITensorGetDLTensorPtr(args[0].v_obj);
  TVMFFIObjectHandle out = NULL;
  if (TVMFFIEnvTensorAlloc(proto, &out) != 0) return -1;
  result->type_index = kTVMFFITensor;
  result->zero_padding = 0;
  result->v_obj = (TVMFFIObject*)out;
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_current_stream(void* handle, const TVMFFIAny* args, int32_t n,
                                                TVMFFIAny* result) {
  (void)handle;
  if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt)
    return raise("TypeError", "current_stream(int, int)");
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 =
      (int64_t)(intptr_t)TVMFFIEnvGetStream((int32_t)args[0].v_int64, (int32_t)args[1].v_int64);
  return 0;
}
