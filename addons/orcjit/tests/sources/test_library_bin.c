/* An embedded import tree (__tvm_ffi__library_bin, C.6): module 0 is this
 * object ("_lib") and imports module 1, of kind "testkind" with payload
 * "payload", rebuilt by the global ffi.Module.load_from_bytes.testkind.
 * -DCORRUPT makes indptr start at 1 (a validation error). */
#include <tvm/ffi/c_api.h>

#define U64(x) (x) & 0xff, ((x) >> 8) & 0xff, 0, 0, 0, 0, 0, 0
#ifdef CORRUPT
#define FIRST_INDPTR 1
#else
#define FIRST_INDPTR 0
#endif

TVM_FFI_DLL const unsigned char __tvm_ffi__library_bin[] = {
    U64(91), U64(3), U64(FIRST_INDPTR),
    U64(1),  U64(1),      /* indptr */
    U64(1),  U64(1),                                 /* child_indices */
    U64(4),  '_',    'l',
    'i',     'b',                     /* module 0 */
    U64(8),  't',    'e',
    's',     't',    'k',
    'i',     'n',    'd', /* module 1 kind */
    U64(7),  'p',    'a',
    'y',     'l',    'o',
    'a',     'd',      /* module 1 payload */
};

TVM_FFI_DLL int __tvm_ffi_bin_root(void* self, const TVMFFIAny* args, int32_t n,
                                   TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 7;
  return 0;
}
