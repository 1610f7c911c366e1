/* Constructors/destructors in every ELF init/fini section; each appends its
 * marker through the host global testing.orcjit_append_log (C.7 order). */
#include <string.h>
#include <tvm/ffi/c_api.h>

static void log_marker(const char* m) {
  const char* name = "testing.orcjit_append_log";
  TVMFFIByteArray s = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&s, &f) != 0 || f == NULL) return;
  TVMFFIAny arg, r;
  memset(&arg, 0, sizeof(arg));
  memset(&r, 0, sizeof(r));
  arg.type_index = kTVMFFIRawStr;
  arg.v_c_str = m;
  TVMFFIFunctionCall(f, &arg, 1, &r);
  TVMFFIObjectDecRef(f);
}

#define ENTRY(fn, sec, marker)                 \
  static void fn(void) { log_marker(marker); } \
  __attribute__((section(sec), used)) static void (*fn##_p)(void) = fn;

ENTRY(ia, ".init_array", "<init_array>")
ENTRY(ia101, ".init_array.101", "<init_array.101>")
ENTRY(ia103, ".init_array.103", "<init_array.103>")
ENTRY(ia102, ".init_array.102", "<init_array.102>")
ENTRY(ct, ".ctors", "<ctors>")
ENTRY(ct101, ".ctors.101", "<ctors.101>")
ENTRY(ct103, ".ctors.103", "<ctors.103>")
ENTRY(ct102, ".ctors.102", "<ctors.102>")
ENTRY(dt, ".dtors", "<dtors>")
ENTRY(fa, ".fini_array", "<fini_array>")

TVM_FFI_DLL int __tvm_ffi_main(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  log_marker("<main>");
  result->type_index = kTVMFFINone;
  return 0;
}
