/*
 * fuzz_library_bin.c -- libFuzzer target for the __tvm_ffi__library_bin
 * parser (docs/abi.md §13.5): the blob a loaded library hands the runtime is
 * untrusted input.
 *
 * Properties checked on every input (the whole input is the blob, its size
 * the readable limit):
 *  - parsing either returns a module with a clean error slot, or fails with
 *    exactly one RuntimeError or TypeError;
 *  - nothing is read past the input (ASan) and nothing leaks (LSan);
 *  - the library module's reference count is back where it started once the
 *    result is released.
 * Kinds "m" (a fresh module) and "t" (returns an int: TypeError) have loaders;
 * any other kind must fail with "is not registered".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

#define FUZZ_ASSERT(cond, ...)                          \
  do {                                                  \
    if (!(cond)) {                                      \
      fprintf(stderr, "fuzz_library_bin: %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);                     \
      fprintf(stderr, "\n");                            \
      abort();                                          \
    }                                                   \
  } while (0)

static int none_get_function(tvmffi__module* m, const char* name, TVMFFIObject** out) {
  (void)m;
  (void)name;
  *out = NULL;
  return 0;
}
static int none_implements(tvmffi__module* m, const char* name) {
  (void)m;
  (void)name;
  return 0;
}
static int none_get_info(tvmffi__module* m, const char* prefix, const char* name, TVMFFIAny* out) {
  (void)m;
  (void)prefix;
  (void)name;
  tvmffi__any_set_none(out);
  return 0;
}
static const tvmffi__module_vtable kEmpty = {"fuzz",        0,   none_get_function, none_implements,
                                             none_get_info, NULL};

static int load_m(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  tvmffi__module* m = tvmffi__module_new(&kEmpty, NULL);
  if (m == NULL) return -1;
  tvmffi__any_set_obj(result, &m->header);
  return 0;
}

static int load_t(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  tvmffi__any_set_int(result, 1);
  return 0;
}

static void set_global(const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  TVMFFIByteArray b = {name, strlen(name)};
  FUZZ_ASSERT(TVMFFIFunctionCreate(NULL, fn, NULL, &f) == 0, "create %s", name);
  FUZZ_ASSERT(TVMFFIFunctionSetGlobal(&b, f, 1) == 0, "register %s", name);
  TVMFFIObjectDecRef(f);
}

static tvmffi__module* g_lib;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_lib == NULL) {
    set_global("ffi.Module.load_from_bytes.m", load_m);
    set_global("ffi.Module.load_from_bytes.t", load_t);
    g_lib = tvmffi__module_new(&kEmpty, NULL);
  }
  /* A copy of exactly `size` bytes so ASan sees any overread. */
  uint8_t* blob = (uint8_t*)malloc(size ? size : 1);
  if (size) memcpy(blob, data, size);
  uint64_t before = g_lib->header.combined_ref_count;
  tvmffi__module* root = tvmffi__library_bin_load(blob, size, g_lib);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (root != NULL) {
    FUZZ_ASSERT(err == NULL, "success with a raised error");
    FUZZ_ASSERT(root->header.type_index == kTVMFFIModule, "root is not a module");
    tvmffi__decref(&root->header);
  } else {
    FUZZ_ASSERT(err != NULL, "failure without a raised error");
    TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
    int ok = (c->kind.size == 12 && memcmp(c->kind.data, "RuntimeError", 12) == 0) ||
             (c->kind.size == 9 && memcmp(c->kind.data, "TypeError", 9) == 0) ||
             (c->kind.size == 11 && memcmp(c->kind.data, "MemoryError", 11) == 0);
    FUZZ_ASSERT(ok, "unexpected kind %.*s: %s", (int)c->kind.size, c->kind.data, c->message.data);
    TVMFFIObjectDecRef(err);
  }
  FUZZ_ASSERT(g_lib->header.combined_ref_count == before, "library module count changed");
  free(blob);
  return 0;
}
