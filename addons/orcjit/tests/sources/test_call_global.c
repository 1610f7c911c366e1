/* test_call_global_add(a, b) calls the host global testing.orcjit_host_add:
 * JIT code reaching the runtime's TVMFFI* symbols in the host process. */
#include <string.h>
#include <tvm/ffi/c_api.h>

TVM_FFI_DLL int __tvm_ffi_test_call_global_add(void* self, const TVMFFIAny* args, int32_t n,
                                               TVMFFIAny* result) {
  (void)self;
  const char* name = "testing.orcjit_host_add";
  TVMFFIByteArray s = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&s, &f) != 0) return -1;
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "testing.orcjit_host_add is not registered");
    return -1;
  }
  int rc = TVMFFIFunctionCall(f, (TVMFFIAny*)args, n, result);
  TVMFFIObjectDecRef(f);
  return rc;
}
