/*
 * version.c -- TVMFFIGetVersion (docs/abi.md §2): the version compiled into the
 * runtime, i.e. the newest 0.1.x header it is compatible with.
 */
#include "internal.h"

TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version) {
  if (out_version == NULL) return;
  out_version->major = TVM_FFI_VERSION_MAJOR;
  out_version->minor = TVM_FFI_VERSION_MINOR;
  out_version->patch = TVM_FFI_VERSION_PATCH;
}
