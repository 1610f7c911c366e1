/*
 * module_custom.c -- ffi.Module.from_symbol_lookup(kind, lookup): a library
 * module whose symbols come from a callback instead of dlsym.  Lets add-ons
 * that own their own linker (the ORC JIT loader of .o files) build modules
 * through the public C API, with the same construction steps as a dlopen'd
 * library (docs/abi.md §13.3): context symbols, __tvm_ffi__library_ctx and an
 * embedded __tvm_ffi__library_bin import tree.
 *
 * `lookup` is an ffi.Function (name: str) -> opaque pointer or None.  It must
 * search only the library's own symbols (a data symbol found elsewhere would
 * be written to).  The module holds `lookup`, and every function taken from
 * the module holds the module, so whatever `lookup` keeps alive (the JIT
 * code) outlives every caller.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "module.h"

#define FUNC_PREFIX "__tvm_ffi_"

typedef struct {
  tvmffi__module_vtable vt; /* per module: carries the caller's kind */
  char* kind;
  TVMFFIObject* lookup; /* strong */
} custom_impl;

/* Calls lookup(name).  Returns 0 with *out (NULL when absent), -1 after the
 * callback raised or returned something else than a pointer. */
static int custom_sym(custom_impl* C, const char* name, void** out) {
  TVMFFIAny arg, r;
  *out = NULL;
  memset(&arg, 0, sizeof(arg));
  arg.type_index = kTVMFFIRawStr;
  arg.v_c_str = name;
  tvmffi__any_set_none(&r);
  if (tvmffi__function_call(C->lookup, &arg, 1, &r) != 0) return -1;
  if (r.type_index == kTVMFFIOpaquePtr) {
    *out = r.v_ptr;
    return 0;
  }
  if (r.type_index == kTVMFFINone) return 0;
  tvmffi__raise("TypeError",
                "ffi.Module.from_symbol_lookup: the lookup of %s returned %s, expected an "
                "opaque pointer or None",
                name, tvmffi__any_type_key(&r));
  tvmffi__any_release(&r);
  return -1;
}

static char* concat2(const char* a, const char* b) {
  size_t na = strlen(a), nb = strlen(b);
  char* s = (char*)malloc(na + nb + 1);
  if (s == NULL) {
    tvmffi__raise_oom();
    return NULL;
  }
  memcpy(s, a, na);
  memcpy(s + na, b, nb + 1);
  return s;
}

typedef struct {
  TVMFFIObject* module; /* strong */
  TVMFFISafeCallType fn;
} custom_func;

static int custom_func_call(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  return ((custom_func*)self)->fn(NULL, args, num_args, result);
}

static void custom_func_free(void* self) {
  tvmffi__decref(((custom_func*)self)->module);
  free(self);
}

static int custom_get_function(tvmffi__module* m, const char* name, TVMFFIObject** out) {
  *out = NULL;
  char* s = concat2(FUNC_PREFIX, name);
  if (s == NULL) return -1;
  void* addr;
  int rc = custom_sym((custom_impl*)m->impl, s, &addr);
  free(s);
  if (rc != 0 || addr == NULL) return rc;
  custom_func* c = (custom_func*)malloc(sizeof(custom_func));
  if (c == NULL) return tvmffi__raise_oom();
  tvmffi__incref(&m->header);
  c->module = &m->header;
  c->fn = (TVMFFISafeCallType)addr;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(c, custom_func_call, custom_func_free, &f) != 0) {
    custom_func_free(c);
    return -1;
  }
  *out = (TVMFFIObject*)f;
  return 0;
}

/* Must not raise: a failed lookup counts as "absent". */
static int custom_implements(tvmffi__module* m, const char* name) {
  char* s = concat2(FUNC_PREFIX, name);
  void* addr = NULL;
  if (s == NULL || custom_sym((custom_impl*)m->impl, s, &addr) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != NULL) TVMFFIObjectDecRef(err);
  }
  free(s);
  return addr != NULL;
}

static int custom_get_info(tvmffi__module* m, const char* prefix, const char* name,
                           TVMFFIAny* out) {
  tvmffi__any_set_none(out);
  char* s = concat2(prefix, name);
  if (s == NULL) return -1;
  void* addr;
  int rc = custom_sym((custom_impl*)m->impl, s, &addr);
  if (rc != 0 || addr == NULL) {
    free(s);
    return rc;
  }
  rc = tvmffi__module_call_info_symbol((TVMFFISafeCallType)addr, s, out);
  free(s);
  return rc;
}

static void custom_finalize(void* impl) {
  custom_impl* C = (custom_impl*)impl;
  if (C == NULL) return;
  if (C->lookup != NULL) tvmffi__decref(C->lookup);
  free(C->kind);
  free(C);
}

/* Adapter for tvmffi__library_fill_context_symbols: absent on error. */
static void* ctx_lookup(void* env, const char* name) {
  void* p = NULL;
  if (custom_sym((custom_impl*)env, name, &p) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != NULL) TVMFFIObjectDecRef(err);
    return NULL;
  }
  return p;
}

/* ffi.Module.from_symbol_lookup(kind: str, lookup: Function) -> Module */
static int g_from_symbol_lookup(void* h, const TVMFFIAny* args, int32_t num_args,
                                TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.Module.from_symbol_lookup(0: str, 1: ffi.Function) -> ffi.Module";
  TVMFFIByteArray kind;
  TVMFFIObject* lookup;
  if (tvmffi__args_count(f, num_args, 2) != 0 || tvmffi__arg_str(f, args, 0, &kind) != 0 ||
      tvmffi__arg_obj(f, args, 1, kTVMFFIFunction, &lookup) != 0)
    return -1;
  if (kind.size == 0 || memchr(kind.data, '\0', kind.size) != NULL)
    return tvmffi__raise("ValueError",
                         "ffi.Module.from_symbol_lookup: the kind must be a non-empty string "
                         "without NUL bytes");
  custom_impl* C = (custom_impl*)calloc(1, sizeof(custom_impl));
  char* k = (char*)malloc(kind.size + 1);
  if (C == NULL || k == NULL) {
    free(C);
    free(k);
    return tvmffi__raise_oom();
  }
  memcpy(k, kind.data, kind.size);
  k[kind.size] = '\0';
  C->kind = k;
  tvmffi__incref(lookup);
  C->lookup = lookup;
  C->vt.kind = k;
  C->vt.property_mask = 3; /* serializable | runnable, as a dlopen'd library */
  C->vt.get_function = custom_get_function;
  C->vt.implements = custom_implements;
  C->vt.get_info = custom_get_info;
  C->vt.finalize = custom_finalize;
  tvmffi__module* m = tvmffi__module_new(&C->vt, C);
  if (m == NULL) return -1;
  if (tvmffi__library_fill_context_symbols(ctx_lookup, C) != 0) {
    tvmffi__decref(&m->header);
    return -1;
  }
  void* bin;
  void* ctx;
  if (custom_sym(C, "__tvm_ffi__library_bin", &bin) != 0 ||
      custom_sym(C, "__tvm_ffi__library_ctx", &ctx) != 0) {
    tvmffi__decref(&m->header);
    return -1;
  }
  /* The token is the C++ object address, as for dlopen'd libraries; the slot
   * lives in memory the module keeps alive, so it never dangles. */
  if (ctx != NULL) *(void**)ctx = tvmffi__module_token(m);
  if (bin == NULL) {
    tvmffi__any_set_obj(result, &m->header);
    return 0;
  }
  tvmffi__module* root = tvmffi__library_bin_load(bin, UINT64_MAX, m);
  tvmffi__decref(&m->header); /* the tree holds it if a "_lib" entry uses it */
  if (root == NULL) return -1;
  tvmffi__any_set_obj(result, &root->header);
  return 0;
}

void tvmffi__module_custom_globals_init(void) {
  tvmffi__register_global(
      "ffi.Module.from_symbol_lookup", g_from_symbol_lookup,
      "A library module of the given kind whose symbols come from lookup(name) -> opaque "
      "pointer or None (used by loaders with their own linker, e.g. the ORC JIT add-on).",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Module\"},{\"type\":\"ffi.String\"},"
      "{\"type\":\"ffi.Function\"}]}");
}
