/* References a symbol nobody defines: materialising fails. */
#include <tvm/ffi/c_api.h>

extern int orcjit_test_no_such_symbol(int);

TVM_FFI_DLL int __tvm_ffi_broken(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = orcjit_test_no_such_symbol(1);
  return 0;
}
