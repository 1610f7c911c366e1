/* -DBASE: helper_add(a, b) = a + b (a plain C symbol) and the FFI export
 * helper(a, b).  Otherwise: cross_lib_add(a, b) = helper_add(a, b) + 1, which
 * resolves only when both objects are linked into one namespace. */
#include <tvm/ffi/c_api.h>

#ifdef BASE
int64_t helper_add(int64_t a, int64_t b) { return a + b; }
#else
extern int64_t helper_add(int64_t a, int64_t b);
TVM_FFI_DLL int __tvm_ffi_cross_lib_add(void* self, const TVMFFIAny* args, int32_t n,
                                        TVMFFIAny* result) {
  (void)self;
  if (n != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "cross_lib_add expects two ints");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = helper_add(args[0].v_int64, args[1].v_int64) + 1;
  return 0;
}
#endif
