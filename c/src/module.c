/*
 * module.c -- the ffi.Module object (abi.md §7.9): imports with cycle
 * detection (§13.8), lookups through imports, and TVMFFIEnvModLookupFromImports
 * (§11.4).  The ffi.Module* globals are in module_globals.c; library modules
 * (dlopen, system library) in library.c.
 *
 * Concurrency: one process-wide lock guards every module's imports pointer
 * and lookup cache.  It is never held while calling out
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
TVMFFIObject* tvmffi__module_imports(tvmffi__module* m) {
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

int tvmffi__module_clear_imports(tvmffi__module* mod) {
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

int tvmffi__module_get_function(tvmffi__module* m, const char* name, int query_imports,
                                TVMFFIObject** out) {
  *out = NULL;
  if (m->vt->get_function(m, name, out) != 0) return -1;
  if (*out != NULL || !query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int rc = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && rc == 0 && *out == NULL; ++i)
    rc = tvmffi__module_get_function(import_at(imports, i), name, 1, out);
  tvmffi__decref(imports);
  return rc;
}

int tvmffi__module_implements(tvmffi__module* m, const char* name, int query_imports) {
  if (m->vt->implements(m, name)) return 1;
  if (!query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int found = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && !found; ++i)
    found = tvmffi__module_implements(import_at(imports, i), name, 1);
  tvmffi__decref(imports);
  return found;
}

int tvmffi__module_get_info(tvmffi__module* m, const char* prefix, const char* name,
                            int query_imports, TVMFFIAny* out) {
  tvmffi__any_set_none(out);
  if (m->vt->get_info(m, prefix, name, out) != 0) return -1;
  if (out->type_index != kTVMFFINone || !query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int rc = 0;
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  for (int64_t i = 0; i < n && rc == 0 && out->type_index == kTVMFFINone; ++i)
    rc = tvmffi__module_get_info(import_at(imports, i), prefix, name, 1, out);
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
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int64_t n = TVMFFISeqGetCellPtr(imports)->size;
  int rc = 0;
  for (int64_t i = 0; i < n && rc == 0 && fn == NULL; ++i)
    rc = tvmffi__module_get_function(import_at(imports, i), func_name, 1, &fn);
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
