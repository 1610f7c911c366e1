/* context_is_set() = 1 iff the loader filled __tvm_ffi__library_ctx;
 * call_import(name, x) calls function `name` of the module's imports
 * through TVMFFIEnvModLookupFromImports. */
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

TVM_FFI_DLL void* __tvm_ffi__library_ctx = NULL;

TVM_FFI_DLL int __tvm_ffi_context_is_set(void* self, const TVMFFIAny* args, int32_t n,
                                         TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = __tvm_ffi__library_ctx != NULL;
  return 0;
}
