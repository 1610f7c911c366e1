/*
 * subclasskernel.c -- a library whose static initialiser registers a class
 * deriving from the type named by -DPARENT, as a C++ class declared with
 * TVM_FFI_DECLARE_OBJECT_INFO does (TVMFFITypeGetOrAllocIndex with the parent's
 * index, the result kept without a check).  Built by tests/python/test_typeinfo.py.
 */
#include <string.h>
#include <tvm/ffi/c_api.h>

static int32_t g_index = -2;

__attribute__((constructor)) static void register_child(void) {
  TVMFFIByteArray parent = {PARENT, strlen(PARENT)}, key = {CHILD, strlen(CHILD)};
  int32_t p;
  if (TVMFFITypeKeyToIndex(&parent, &p) != 0) return;
  g_index = TVMFFITypeGetOrAllocIndex(&key, -1, TVMFFIGetTypeInfo(p)->type_depth + 1, 0, 1, p);
}

/* child_index(): what the registration returned. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_child_index(void* handle, const TVMFFIAny* args, int32_t n,
                                             TVMFFIAny* result) {
  (void)handle, (void)args, (void)n;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = g_index;
  return 0;
}
