/*
 * hostilekernel.c -- a kernel library that returns what a buggy or hostile
 * kernel could: an object whose type index no type was registered under, and
 * a value with an unassigned POD type index.  The caller must get an error,
 * never lose its process.  Built by tests/python/test_hostile.py with the
 * system C compiler.
 */
#include <stdlib.h>
#include <tvm/ffi/c_api.h>

static int64_t g_live; /* objects made and not yet freed */

static void free_object(void* obj, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(obj);
    __atomic_sub_fetch(&g_live, 1, __ATOMIC_RELAXED);
  }
}

/* live_objects(): how many unknown_object results are still alive. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_live_objects(void* handle, const TVMFFIAny* args, int32_t n,
                                              TVMFFIAny* result) {
  (void)handle, (void)args, (void)n;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
  return 0;
}

/* unknown_object(type_index): a fresh object carrying that type index. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_unknown_object(void* handle, const TVMFFIAny* args, int32_t n,
                                                TVMFFIAny* result) {
  (void)handle;
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "unknown_object(int)");
    return -1;
  }
  TVMFFIObject* obj = (TVMFFIObject*)calloc(1, sizeof(TVMFFIObject) + 16);
  if (obj == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "unknown_object");
    return -1;
  }
  obj->combined_ref_count = 1 | (1ull << 32); /* one strong, one weak reference */
  obj->type_index = (int32_t)args[0].v_int64;
  obj->deleter = free_object;
  __atomic_add_fetch(&g_live, 1, __ATOMIC_RELAXED);
  result->type_index = obj->type_index;
  result->zero_padding = 0;
  result->v_obj = obj;
  return 0;
}

/* unknown_pod(type_index): a value of that (POD range) type index. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_unknown_pod(void* handle, const TVMFFIAny* args, int32_t n,
                                             TVMFFIAny* result) {
  (void)handle;
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "unknown_pod(int)");
    return -1;
  }
  result->type_index = (int32_t)args[0].v_int64;
  result->zero_padding = 0;
  result->v_int64 = 42;
  return 0;
}
