/*
 * cxx_abi.c -- finds the C++ ABI library (libtvm_ffi_cxx.so, c/cxxabi/) and
 * its bridge table.  The runtime itself stays C: the library is looked for
 * only when C++ is already in the process (libstdc++ mapped) or when a C++
 * module or library needs it, so C-only hosts never load libstdc++.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static const tvmffi_cxx_bridge* g_bridge;

static const tvmffi_cxx_bridge* bind(void* dl) {
  tvmffi_cxx_bridge_get_fn get = (tvmffi_cxx_bridge_get_fn)dlsym(dl, TVMFFI_CXX_BRIDGE_SYMBOL);
  const tvmffi_cxx_bridge* b = get ? get() : NULL;
  if (b == NULL || b->version != TVMFFI_CXX_BRIDGE_VERSION) return NULL;
  tvmffi__module_set_cxx_vtable(b->runtime_module_vptr);
  __atomic_store_n(&g_bridge, b, __ATOMIC_RELEASE);
  return b;
}

/* malloc'd path of libtvm_ffi_cxx.so next to this runtime, or NULL. */
static char* sibling_path(void) {
  Dl_info info;
  if (dladdr((void*)&TVMFFIGetVersion, &info) == 0 || info.dli_fname == NULL) return NULL;
  const char* slash = strrchr(info.dli_fname, '/');
  size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
  char* p = (char*)malloc(dir + sizeof(TVMFFI_CXX_LIBRARY));
  if (p == NULL) return NULL;
  memcpy(p, info.dli_fname, dir);
  memcpy(p + dir, TVMFFI_CXX_LIBRARY, sizeof(TVMFFI_CXX_LIBRARY));
  return p;
}

/* Set once loading failed in IF_PRESENT mode, so module creation does not
 * retry a missing library each time. */
static int g_missing;

const tvmffi_cxx_bridge* tvmffi__cxx_bridge(int mode) {
  const tvmffi_cxx_bridge* b = __atomic_load_n(&g_bridge, __ATOMIC_ACQUIRE);
  if (b != NULL || mode == TVMFFI__CXX_NOLOAD) return b;
  /* Already loaded (the Python package loads it next to the runtime)? */
  void* dl = dlopen(TVMFFI_CXX_LIBRARY, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
  int load = mode == TVMFFI__CXX_REQUIRED;
  if (dl == NULL && !load && !__atomic_load_n(&g_missing, __ATOMIC_RELAXED)) {
    void* cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (cxx != NULL) {
      dlclose(cxx);
      load = 1;
    }
  }
  char why[512] = "it does not provide the bridge table";
  char* path = NULL;
  if (dl == NULL && load) {
    const char* env = getenv("TVM_FFI_CXX_LIBRARY");
    path = env && *env ? strdup(env) : sibling_path();
    dl = path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
    const char* e = dl ? NULL : dlerror();
    if (e != NULL) snprintf(why, sizeof(why), "%s", e); /* the next dlerror frees it */
  }
  (void)dlerror();
  if (dl != NULL) b = bind(dl);
  if (b == NULL && load) __atomic_store_n(&g_missing, 1, __ATOMIC_RELAXED);
  if (b == NULL && mode == TVMFFI__CXX_REQUIRED)
    tvmffi__raise("RuntimeError",
                  "this needs the C++ ABI library %s (a C++ ModuleObj subclass, or a library "
                  "using C++ symbols of upstream's headers), which could not be loaded from "
                  "%s: %s; install it next to libtvm_ffi.so or set TVM_FFI_CXX_LIBRARY",
                  TVMFFI_CXX_LIBRARY, path ? path : "(unknown path)", why);
  free(path);
  return b;
}
