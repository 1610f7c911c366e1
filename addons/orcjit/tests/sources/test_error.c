/* test_error() raises ValueError("test error"). */
#include <tvm/ffi/c_api.h>

TVM_FFI_DLL int __tvm_ffi_test_error(void* self, const TVMFFIAny* args, int32_t n,
                                     TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  (void)result;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "test error");
  return -1;
}
