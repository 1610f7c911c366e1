/*
 * cxx_bridge.h -- the private interface between the C runtime and the C++ ABI
 * library libtvm_ffi_cxx.so (c/cxxabi/).  Never installed: both sides are
 * built from this tree and shipped together.  docs/cxx-abi.md explains the
 * design.
 *
 * Modules are C++-shaped: the object starts 8 bytes before the header with a
 * vtable pointer, imports_ sits at handle + 24.  A C++ ModuleObj subclass
 * (made by code built against either set of headers) is called by the runtime
 * through the trampolines below, which catch C++ exceptions and leave them in
 * the error slot.  A module made by the runtime gets `runtime_module_vptr`,
 * the vtable of a C++ class whose virtual functions call back into the
 * runtime's ffi.Module* globals; it reads the module's kind at handle + 32.
 */
#ifndef TVMFFI_SRC_CXX_BRIDGE_H_
#define TVMFFI_SRC_CXX_BRIDGE_H_

#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by libtvm_ffi_cxx.so: returns the table below. */
#define TVMFFI_CXX_BRIDGE_SYMBOL "TVMFFICxxBridgeGet"
#define TVMFFI_CXX_LIBRARY "libtvm_ffi_cxx.so"
#define TVMFFI_CXX_BRIDGE_VERSION 1u
/* Where a runtime-made module keeps its `const char*` kind (handle offset). */
#define TVMFFI_MODULE_KIND_OFFSET 32

/* `self` is always the module handle (header address).  Strings come as
 * (data, size); every function returns 0, or -1 with the error raised. */
typedef struct {
  uint32_t version;
  /* vtable address point installed in modules the runtime makes */
  const void* runtime_module_vptr;
  int (*kind)(TVMFFIObject* self, const char** out);
  int (*property_mask)(TVMFFIObject* self, int32_t* out);
  /* *out: new reference to the function, or NULL when absent */
  int (*get_function)(TVMFFIObject* self, const char* name, size_t n, TVMFFIObject** out);
  int (*implements)(TVMFFIObject* self, const char* name, size_t n, int* out);
  /* doc != 0: GetFunctionDoc, else GetFunctionMetadata; *out: String or None */
  int (*get_info)(TVMFFIObject* self, int doc, const char* name, size_t n, TVMFFIAny* out);
  int (*write_to_file)(TVMFFIObject* self, const char* file, size_t nf, const char* format,
                       size_t nfmt);
  int (*get_write_formats)(TVMFFIObject* self, TVMFFIAny* out);
  int (*inspect_source)(TVMFFIObject* self, const char* format, size_t n, TVMFFIAny* out);
} tvmffi_cxx_bridge;

typedef const tvmffi_cxx_bridge* (*tvmffi_cxx_bridge_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TVMFFI_SRC_CXX_BRIDGE_H_ */
