/*
 * module.c -- the ffi.Module object (abi.md §7.9): imports with cycle
 * detection (§13.8), TVMFFIEnvModLookupFromImports (§11.4), format dispatch
 * of ffi.ModuleLoadFromFile (§13.2) and the ffi.Module* globals (§14.3).
 * Library-specific parts (dlopen, system library) live in library.c.
 *
 * Concurrency: one process-wide lock guards every module's imports pointer,
 * lookup cache and the keep-alive set.  It is never held while calling out
 * (loaders, symbol lookups, global registry), so re-entrant loads are safe.
 * An imports array is never mutated once published: import/clear swap in a
 * new array, so a snapshot taken under the lock can be walked without it.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- lookup cache: open addressing, FNV-1a ------------------------------ */

static uint64_t hash_name(const char* s) {
  uint64_t h = UINT64_C(1469598103934665603);
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
  return h;
}

static TVMFFIObject* fcache_get(const tvmffi__fcache* c, const char* name) {
  if (c->capacity == 0) return NULL;
  size_t mask = c->capacity - 1;
  for (size_t i = (size_t)hash_name(name) & mask;; i = (i + 1) & mask) {
    if (c->names[i] == NULL) return NULL;
    if (strcmp(c->names[i], name) == 0) return c->funcs[i];
  }
}

/* Inserts name -> fn (steals fn); the name must be absent.  0/-1 on OOM
 * (fn is then still the caller's). */
static int fcache_put(tvmffi__fcache* c, const char* name, TVMFFIObject* fn) {
  if ((c->size + 1) * 2 > c->capacity) {
    size_t cap = c->capacity ? c->capacity * 2 : 8;
    char** names = (char**)calloc(cap, sizeof(char*));
    TVMFFIObject** funcs = (TVMFFIObject**)calloc(cap, sizeof(TVMFFIObject*));
    if (names == NULL || funcs == NULL) {
      free(names);
      free(funcs);
      return tvmffi__raise_oom();
    }
    for (size_t j = 0; j < c->capacity; ++j) {
      if (c->names[j] == NULL) continue;
      size_t i = (size_t)hash_name(c->names[j]) & (cap - 1);
      while (names[i] != NULL) i = (i + 1) & (cap - 1);
      names[i] = c->names[j];
      funcs[i] = c->funcs[j];
    }
    free(c->names);
    free(c->funcs);
    c->names = names;
    c->funcs = funcs;
    c->capacity = cap;
  }
  char* key = strdup(name);
  if (key == NULL) return tvmffi__raise_oom();
  size_t i = (size_t)hash_name(name) & (c->capacity - 1);
  while (c->names[i] != NULL) i = (i + 1) & (c->capacity - 1);
  c->names[i] = key;
  c->funcs[i] = fn;
  c->size++;
  return 0;
}

static void fcache_free(tvmffi__fcache* c) {
  for (size_t i = 0; i < c->capacity; ++i) {
    if (c->names[i] == NULL) continue;
    free(c->names[i]);
    tvmffi__decref(c->funcs[i]);
  }
  free(c->names);
  free(c->funcs);
  memset(c, 0, sizeof(*c));
}

/* ---- the object ------------------------------------------------------- */

static void module_deleter(void* self, int flags) {
  tvmffi__module* m = (tvmffi__module*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    /* Cached functions and imports may come from other libraries; our own
     * library (impl) goes last so nothing still points into it. */
    fcache_free(&m->cache);
    tvmffi__decref(m->imports);
    m->imports = NULL;
    if (m->vt->finalize) m->vt->finalize(m->impl);
    m->impl = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(m);
}

int tvmffi__module_is_ours(const TVMFFIObject* obj) {
  return obj->type_index == kTVMFFIModule && obj->deleter == module_deleter;
}

tvmffi__module* tvmffi__module_new(const tvmffi__module_vtable* vt, void* impl) {
  TVMFFIObject* imports = tvmffi__array_new(0);
  tvmffi__module* m = NULL;
  if (imports != NULL)
    m = (tvmffi__module*)tvmffi__object_alloc(sizeof(tvmffi__module), kTVMFFIModule,
                                               module_deleter);
  if (m == NULL) {
    tvmffi__decref(imports);
    if (vt->finalize) vt->finalize(impl);
    return NULL;
  }
  m->imports = imports;
  m->vt = vt;
  m->impl = impl;
  return m;
}

/* New reference to the current imports array. */
static TVMFFIObject* imports_snapshot(tvmffi__module* m) {
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* a = m->imports;
  tvmffi__incref(a);
  pthread_mutex_unlock(&g_lock);
  return a;
}

static tvmffi__module* import_at(TVMFFIObject* array, int64_t i) {
  const TVMFFIAny* items = (const TVMFFIAny*)TVMFFISeqGetCellPtr(array)->data;
  return (tvmffi__module*)items[i].v_obj;
}

/* Is `target` reachable from `from` through imports (from == target counts)?
 * Called with the lock held.  -1 on OOM. */
static int reachable_locked(tvmffi__module* from, tvmffi__module* target) {
  size_t cap = 16, top = 0, nseen = 0, seen_cap = 16;
  tvmffi__module** stack = (tvmffi__module**)malloc(cap * sizeof(*stack));
  tvmffi__module** seen = (tvmffi__module**)malloc(seen_cap * sizeof(*seen));
  int found = 0;
  if (stack == NULL || seen == NULL) goto oom;
  stack[top++] = from;
  while (top > 0 && !found) {
    tvmffi__module* m = stack[--top];
    if (m == target) {
      found = 1;
      break;
    }
    int dup = 0;
    for (size_t k = 0; k < nseen && !dup; ++k) dup = seen[k] == m;
    if (dup) continue; /* imports form a DAG: visit shared modules once */
    if (nseen == seen_cap) {
      tvmffi__module** s = (tvmffi__module**)realloc(seen, 2 * seen_cap * sizeof(*seen));
      if (s == NULL) goto oom;
      seen = s;
      seen_cap *= 2;
    }
    seen[nseen++] = m;
    int64_t n = TVMFFISeqGetCellPtr(m->imports)->size;
    for (int64_t i = 0; i < n; ++i) {
      if (top == cap) {
        tvmffi__module** s = (tvmffi__module**)realloc(stack, 2 * cap * sizeof(*stack));
        if (s == NULL) goto oom;
        stack = s;
        cap *= 2;
      }
      stack[top++] = import_at(m->imports, i);
    }
  }
  free(stack);
  free(seen);
  return found;
oom:
  free(stack);
  free(seen);
  return -1;
}

int tvmffi__module_import(tvmffi__module* mod, tvmffi__module* other) {
  pthread_mutex_lock(&g_lock);
  int r = reachable_locked(other, mod);
  if (r != 0) {
    pthread_mutex_unlock(&g_lock);
    if (r < 0) return tvmffi__raise_oom();
    return tvmffi__raise("RuntimeError",
                         "Cyclic dependency detected during import: the %s module being "
                         "imported already reaches the importing module",
                         other->vt->kind);
  }
  int64_t n = TVMFFISeqGetCellPtr(mod->imports)->size;
  TVMFFIObject* next = tvmffi__array_new(n + 1);
  if (next == NULL) {
    pthread_mutex_unlock(&g_lock);
    return -1;
  }
  const TVMFFIAny* items = (const TVMFFIAny*)TVMFFISeqGetCellPtr(mod->imports)->data;
  for (int64_t i = 0; i <= n; ++i) {
    TVMFFIAny v;
    if (i < n) {
      tvmffi__any_copy(&items[i], &v);
    } else {
      tvmffi__incref(&other->header);
      tvmffi__any_set_obj(&v, &other->header);
    }
    tvmffi__array_push_move(next, &v);
  }
  TVMFFIObject* old = mod->imports;
  mod->imports = next;
  pthread_mutex_unlock(&g_lock);
  tvmffi__decref(old);
  return 0;
}

static int module_clear_imports(tvmffi__module* mod) {
  TVMFFIObject* empty = tvmffi__array_new(0);
  if (empty == NULL) return -1;
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* old = mod->imports;
  mod->imports = empty;
  pthread_mutex_unlock(&g_lock);
  tvmffi__decref(old);
  return 0;
}

/* ---- lookups, optionally through imports (depth first) ---------------- */

static int module_get_function(tvmffi__module* m, const char* name, int query_imports,
                               TVMFFIObject** out) {
  *out = NULL;
  if (m->vt->get_function(m, name, out) != 0) return -1;
  if (*out != NULL || !query_imports) return 0;
  TVMFFIObject* imports = imports_snapshot(m);
  int rc = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && rc == 0 && *out == NULL; ++i)
    rc = module_get_function(import_at(imports, i), name, 1, out);
  tvmffi__decref(imports);
  return rc;
}

static int module_implements(tvmffi__module* m, const char* name, int query_imports) {
  if (m->vt->implements(m, name)) return 1;
  if (!query_imports) return 0;
  TVMFFIObject* imports = imports_snapshot(m);
  int found = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && !found; ++i)
    found = module_implements(import_at(imports, i), name, 1);
  tvmffi__decref(imports);
  return found;
}

static int module_get_info(tvmffi__module* m, const char* prefix, const char* name,
                           int query_imports, TVMFFIAny* out) {
  tvmffi__any_set_none(out);
  if (m->vt->get_info(m, prefix, name, out) != 0) return -1;
  if (out->type_index != kTVMFFINone || !query_imports) return 0;
  TVMFFIObject* imports = imports_snapshot(m);
  int rc = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && rc == 0 && out->type_index == kTVMFFINone; ++i)
    rc = module_get_info(import_at(imports, i), prefix, name, 1, out);
  tvmffi__decref(imports);
  return rc;
}

/* ---- TVMFFIEnvModLookupFromImports ------------------------------------ */

/* The token written into __tvm_ffi__library_ctx is the module handle itself
 * (upstream writes handle - 8; libraries never dereference it). */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx,
                                              const char* func_name, TVMFFIObjectHandle* out) {
  if (library_ctx == NULL || !tvmffi__module_is_ours((TVMFFIObject*)library_ctx))
    return tvmffi__raise("ValueError",
                         "TVMFFIEnvModLookupFromImports: library_ctx is not a module token; "
                         "pass the value the loader wrote into __tvm_ffi__library_ctx");
  if (func_name == NULL || out == NULL)
    return tvmffi__raise("ValueError",
                         "TVMFFIEnvModLookupFromImports: func_name and out must not be NULL");
  tvmffi__module* m = (tvmffi__module*)library_ctx;
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* fn = fcache_get(&m->cache, func_name);
  pthread_mutex_unlock(&g_lock);
  if (fn != NULL) {
    *out = fn;
    return 0;
  }
  /* The module's own symbols are deliberately not searched (§11.4). */
  TVMFFIObject* imports = imports_snapshot(m);
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  int rc = 0;
  for (int64_t i = 0; i < n && rc == 0 && fn == NULL; ++i)
    rc = module_get_function(import_at(imports, i), func_name, 1, &fn);
  tvmffi__decref(imports);
  if (rc != 0) return -1;
  if (fn == NULL) {
    TVMFFIByteArray name = {func_name, strlen(func_name)};
    TVMFFIObjectHandle g = NULL;
    if (TVMFFIFunctionGetGlobal(&name, &g) != 0) return -1;
    fn = (TVMFFIObject*)g;
  }
  if (fn == NULL)
    return tvmffi__raise("RuntimeError",
                         "Cannot find function %s in the imported modules or global registry.",
                         func_name);
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* raced = fcache_get(&m->cache, func_name);
  if (raced == NULL && fcache_put(&m->cache, func_name, fn) != 0) {
    pthread_mutex_unlock(&g_lock);
    tvmffi__decref(fn);
    return -1;
  }
  pthread_mutex_unlock(&g_lock);
  if (raced != NULL) {
    tvmffi__decref(fn); /* another thread cached it first: keep one entry */
    fn = raced;
  }
  *out = fn;
  return 0;
}

/* ---- argument helpers -------------------------------------------------- */

/* NUL-terminated copy of a string argument (malloc'd), or NULL after raising. */
static char* arg_cstr(const char* fname, const TVMFFIAny* args, int32_t i, const char* what) {
  TVMFFIByteArray s;
  if (tvmffi__arg_str(fname, args, i, &s) != 0) return NULL;
  if (memchr(s.data, '\0', s.size) != NULL) {
    tvmffi__raise("ValueError", "%s: %s must not contain NUL bytes", fname, what);
    return NULL;
  }
  char* c = (char*)malloc(s.size + 1);
  if (c == NULL) {
    tvmffi__raise_oom();
    return NULL;
  }
  memcpy(c, s.data, s.size);
  c[s.size] = '\0';
  return c;
}

static int arg_module(const char* fname, const TVMFFIAny* args, int32_t i,
                      tvmffi__module** out) {
  if (tvmffi__arg_obj(fname, args, i, kTVMFFIModule, (TVMFFIObject**)out) != 0) return -1;
  if (!tvmffi__module_is_ours(&(*out)->header))
    return tvmffi__raise("TypeError",
                         "%s: argument #%d is an ffi.Module created outside this runtime (e.g. "
                         "a C++ ModuleObj subclass); only modules made by the runtime's "
                         "loaders are supported",
                         fname, (int)i);
  return 0;
}

/* (m, name[, query_imports]) -- query_imports defaults to false. */
static int args_lookup(const char* fname, const TVMFFIAny* args, int32_t num_args,
                       tvmffi__module** m, char** name, int* query_imports) {
  *query_imports = 0;
  if (num_args != 2 && num_args != 3)
    return tvmffi__raise("TypeError",
                         "%s expects 3 arguments (module, name, query_imports), got %d", fname,
                         (int)num_args);
  if (arg_module(fname, args, 0, m) != 0) return -1;
  if (num_args == 3 && tvmffi__arg_bool(fname, args, 2, query_imports) != 0) return -1;
  *name = arg_cstr(fname, args, 1, "the function name");
  return *name ? 0 : -1;
}

/* ---- ffi.Module* globals ------------------------------------------------ */

static int g_get_function(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  char* name;
  int q;
  if (args_lookup("ffi.ModuleGetFunction", args, num_args, &m, &name, &q) != 0) return -1;
  TVMFFIObject* fn = NULL;
  int rc = module_get_function(m, name, q, &fn);
  free(name);
  if (rc != 0) return -1;
  tvmffi__any_set_obj(result, fn);
  return 0;
}

static int g_implements(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  char* name;
  int q;
  if (args_lookup("ffi.ModuleImplementsFunction", args, num_args, &m, &name, &q) != 0)
    return -1;
  int found = module_implements(m, name, q);
  free(name);
  tvmffi__any_set_bool(result, found);
  return 0;
}

static int info_common(const char* fname, const char* prefix, const TVMFFIAny* args,
                       int32_t num_args, TVMFFIAny* result) {
  tvmffi__module* m;
  char* name;
  int q;
  if (args_lookup(fname, args, num_args, &m, &name, &q) != 0) return -1;
  int rc = module_get_info(m, prefix, name, q, result);
  free(name);
  return rc;
}

static int g_get_metadata(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  return info_common("ffi.ModuleGetFunctionMetadata", "__tvm_ffi__metadata_", args, n, result);
}

static int g_get_doc(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  return info_common("ffi.ModuleGetFunctionDoc", "__tvm_ffi__doc_", args, n, result);
}

static int g_get_kind(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGetKind", n, 1) != 0 ||
      arg_module("ffi.ModuleGetKind", args, 0, &m) != 0)
    return -1;
  return tvmffi__str_to_any(kTVMFFIStr, m->vt->kind, strlen(m->vt->kind), result);
}

static int g_get_property_mask(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGetPropertyMask", n, 1) != 0 ||
      arg_module("ffi.ModuleGetPropertyMask", args, 0, &m) != 0)
    return -1;
  tvmffi__any_set_int(result, m->vt->property_mask);
  return 0;
}

/* (m[, format]) -> "" : no module kind of ours carries source. */
static int g_inspect_source(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.ModuleInspectSource";
  tvmffi__module* m;
  TVMFFIByteArray fmt;
  if (n != 1 && n != 2)
    return tvmffi__raise("TypeError", "%s expects 2 arguments (module, format), got %d", f,
                         (int)n);
  if (arg_module(f, args, 0, &m) != 0) return -1;
  if (n == 2 && tvmffi__arg_str(f, args, 1, &fmt) != 0) return -1;
  return tvmffi__str_to_any(kTVMFFIStr, "", 0, result);
}

static int g_get_write_formats(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGetWriteFormats", n, 1) != 0 ||
      arg_module("ffi.ModuleGetWriteFormats", args, 0, &m) != 0)
    return -1;
  TVMFFIObject* a = tvmffi__array_new(0);
  if (a == NULL) return -1;
  tvmffi__any_set_obj(result, a);
  return 0;
}

static int g_write_to_file(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)result;
  const char* f = "ffi.ModuleWriteToFile";
  tvmffi__module* m;
  TVMFFIByteArray file, fmt;
  if (n != 2 && n != 3)
    return tvmffi__raise("TypeError", "%s expects 3 arguments (module, file, format), got %d",
                         f, (int)n);
  if (arg_module(f, args, 0, &m) != 0 || tvmffi__arg_str(f, args, 1, &file) != 0) return -1;
  if (n == 3 && tvmffi__arg_str(f, args, 2, &fmt) != 0) return -1;
  return tvmffi__raise("RuntimeError", "Module[%s] does not support WriteToFile",
                       m->vt->kind);
}

static int g_import_module(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)result;
  const char* f = "ffi.ModuleImportModule";
  tvmffi__module *m, *other;
  if (tvmffi__args_count(f, n, 2) != 0 || arg_module(f, args, 0, &m) != 0 ||
      arg_module(f, args, 1, &other) != 0)
    return -1;
  return tvmffi__module_import(m, other);
}

static int g_clear_imports(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)result;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleClearImports", n, 1) != 0 ||
      arg_module("ffi.ModuleClearImports", args, 0, &m) != 0)
    return -1;
  return module_clear_imports(m);
}

/* ---- keep-alive set (ffi.ModuleGlobalsAdd / Remove) --------------------- */

static TVMFFIObject** g_alive;
static size_t g_alive_size, g_alive_cap;

static int g_globals_add(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)result;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGlobalsAdd", n, 1) != 0 ||
      arg_module("ffi.ModuleGlobalsAdd", args, 0, &m) != 0)
    return -1;
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_alive_size; ++i) {
    if (g_alive[i] == &m->header) {
      pthread_mutex_unlock(&g_lock);
      return 0;
    }
  }
  if (g_alive_size == g_alive_cap) {
    size_t cap = g_alive_cap ? 2 * g_alive_cap : 8;
    TVMFFIObject** a = (TVMFFIObject**)realloc(g_alive, cap * sizeof(*a));
    if (a == NULL) {
      pthread_mutex_unlock(&g_lock);
      return tvmffi__raise_oom();
    }
    g_alive = a;
    g_alive_cap = cap;
  }
  tvmffi__incref(&m->header);
  g_alive[g_alive_size++] = &m->header;
  pthread_mutex_unlock(&g_lock);
  return 0;
}

static int g_globals_remove(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)result;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGlobalsRemove", n, 1) != 0 ||
      arg_module("ffi.ModuleGlobalsRemove", args, 0, &m) != 0)
    return -1;
  TVMFFIObject* drop = NULL;
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_alive_size; ++i) {
    if (g_alive[i] == &m->header) {
      drop = g_alive[i];
      g_alive[i] = g_alive[--g_alive_size];
      break;
    }
  }
  pthread_mutex_unlock(&g_lock);
  tvmffi__decref(drop); /* outside the lock: may dlclose */
  return 0;
}

/* ---- ffi.ModuleLoadFromFile: format dispatch (§13.2) -------------------- */

#define LOADER_PREFIX "ffi.Module.load_from_file."

static int g_load_from_file(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.ModuleLoadFromFile";
  if (tvmffi__args_count(f, n, 1) != 0) return -1;
  char* path = arg_cstr(f, args, 0, "the path");
  if (path == NULL) return -1;
  const char* dot = strrchr(path, '.');
  if (dot == NULL) {
    tvmffi__raise("RuntimeError",
                  "Failed to get file format from %s: the path has no extension, so no "
                  "loader can be chosen (expected e.g. a .so file)",
                  path);
    free(path);
    return -1;
  }
  const char* fmt = dot + 1;
  if (strcmp(fmt, "dll") == 0 || strcmp(fmt, "dylib") == 0 || strcmp(fmt, "dso") == 0)
    fmt = "so";
  size_t nl = strlen(LOADER_PREFIX) + strlen(fmt);
  char* loader_name = (char*)malloc(nl + 1);
  if (loader_name == NULL) {
    free(path);
    return tvmffi__raise_oom();
  }
  strcpy(loader_name, LOADER_PREFIX);
  strcat(loader_name, fmt);
  TVMFFIByteArray ln = {loader_name, nl};
  TVMFFIObjectHandle loader = NULL;
  int rc = TVMFFIFunctionGetGlobal(&ln, &loader);
  if (rc == 0 && loader == NULL)
    rc = tvmffi__raise("RuntimeError",
                       "Loader for `.%s` files is not registered, resolved to (%s) in the "
                       "global registry. Ensure that you have loaded the correct runtime "
                       "code, and that you are on the correct hardware architecture.",
                       fmt, loader_name);
  if (rc == 0) {
    TVMFFIAny call_args[2];
    call_args[0] = args[0];
    call_args[1].type_index = kTVMFFIRawStr;
    call_args[1].zero_padding = 0;
    call_args[1].v_c_str = fmt;
    TVMFFIAny out;
    tvmffi__any_set_none(&out);
    rc = TVMFFIFunctionCall(loader, call_args, 2, &out);
    tvmffi__decref((TVMFFIObject*)loader);
    if (rc == 0 && out.type_index != kTVMFFIModule) {
      rc = tvmffi__raise("TypeError", "Loader %s returned %s for %s, expected ffi.Module",
                         loader_name, tvmffi__any_type_key(&out), path);
      tvmffi__any_release(&out);
    }
    if (rc == 0) *result = out;
  }
  free(loader_name);
  free(path);
  return rc == 0 ? 0 : -1;
}

/* ---- reflection field imports_ (offset 24, read by Python) ------------- */

static int imports_getter(void* field_addr, TVMFFIAny* result) {
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* a = *(TVMFFIObject**)field_addr;
  tvmffi__incref(a);
  pthread_mutex_unlock(&g_lock);
  tvmffi__any_set_obj(result, a);
  return 0;
}

static int imports_setter(void* field_addr, const TVMFFIAny* value) {
  (void)field_addr;
  (void)value;
  return tvmffi__raise("AttributeError",
                       "ffi.Module.imports_ is read-only; use ffi.ModuleImportModule or "
                       "ffi.ModuleClearImports");
}

static void register_imports_field(void) {
  static const char kMeta[] =
      "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Array\\\",\\\"args\\\":[{\\\"type\\\":"
      "\\\"Any\\\"}]}\"}";
  static const char kDoc[] = "Modules imported by this module, in import order.";
  TVMFFIFieldInfo info;
  memset(&info, 0, sizeof(info));
  info.name.data = "imports_";
  info.name.size = strlen("imports_");
  info.doc.data = kDoc;
  info.doc.size = sizeof(kDoc) - 1;
  info.metadata.data = kMeta;
  info.metadata.size = sizeof(kMeta) - 1;
  info.flags = 0; /* read-only */
  info.size = sizeof(TVMFFIObject*);
  info.alignment = _Alignof(TVMFFIObject*);
  info.offset = offsetof(tvmffi__module, imports);
  info.getter = imports_getter;
  info.setter = (void*)imports_setter;
  info.field_static_type_index = kTVMFFIArray;
  if (TVMFFITypeRegisterField(kTVMFFIModule, &info) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    tvmffi__fatal("cannot register the reflection field ffi.Module.imports_");
  }
}

_Static_assert(offsetof(tvmffi__module, imports) == 24, "imports_ must sit at offset 24");

/* ---- registration -------------------------------------------------------- */

#define FN(args_json) "{\"type\":\"ffi.Function\",\"args\":[" args_json "]}"
#define T(name) "{\"type\":\"" name "\"}"
#define OPT(name) "{\"type\":\"Optional\",\"args\":[" T(name) "]}"

void tvmffi__module_globals_init(void) {
  tvmffi__register_global("ffi.ModuleLoadFromFile", g_load_from_file,
                          "Loads a module file; the loader is chosen by the file extension.",
                          FN(T("ffi.Module") "," T("ffi.String")));
  tvmffi__register_global("ffi.ModuleGetFunction", g_get_function,
                          "Function `name` of a module, or None.",
                          FN(OPT("ffi.Function") "," T("ffi.Module") "," T("ffi.String") ","
                             T("bool")));
  tvmffi__register_global("ffi.ModuleImplementsFunction", g_implements,
                          "Whether a module defines function `name`.",
                          FN(T("bool") "," T("ffi.Module") "," T("ffi.String") "," T("bool")));
  tvmffi__register_global("ffi.ModuleGetFunctionMetadata", g_get_metadata,
                          "Metadata JSON of function `name`, or None.",
                          FN(OPT("ffi.String") "," T("ffi.Module") "," T("ffi.String") ","
                             T("bool")));
  tvmffi__register_global("ffi.ModuleGetFunctionDoc", g_get_doc,
                          "Docstring of function `name`, or None.",
                          FN(OPT("ffi.String") "," T("ffi.Module") "," T("ffi.String") ","
                             T("bool")));
  tvmffi__register_global("ffi.ModuleGetKind", g_get_kind, "Kind of a module (\"library\").",
                          FN(T("ffi.String") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleGetPropertyMask", g_get_property_mask,
                          "Property bits: 1 serializable, 2 runnable, 4 exportable.",
                          FN(T("int") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleInspectSource", g_inspect_source,
                          "Source of a module in `format`; empty if unsupported.",
                          FN(T("ffi.String") "," T("ffi.Module") "," T("ffi.String")));
  tvmffi__register_global("ffi.ModuleGetWriteFormats", g_get_write_formats,
                          "Formats WriteToFile supports.",
                          FN("{\"type\":\"ffi.Array\",\"args\":[" T("ffi.String") "]},"
                             T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleWriteToFile", g_write_to_file,
                          "Writes a module to a file (unsupported by library modules).",
                          FN(T("None") "," T("ffi.Module") "," T("ffi.String") ","
                             T("ffi.String")));
  tvmffi__register_global("ffi.ModuleImportModule", g_import_module,
                          "Appends `other` to the imports of `m` (cycles rejected).",
                          FN(T("None") "," T("ffi.Module") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleClearImports", g_clear_imports,
                          "Removes all imports of a module.", FN(T("None") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleGlobalsAdd", g_globals_add,
                          "Keeps a module alive for the rest of the process.",
                          FN(T("None") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleGlobalsRemove", g_globals_remove,
                          "Undoes ffi.ModuleGlobalsAdd.", FN(T("None") "," T("ffi.Module")));
  register_imports_field();
  tvmffi__library_globals_init();
}
