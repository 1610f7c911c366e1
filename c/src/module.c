/*
 * module.c -- the ffi.Module object (docs/abi.md §7.9): imports with cycle
 * detection (§13.8), lookups through imports, and TVMFFIEnvModLookupFromImports
 * (§11.4).  The ffi.Module* globals are in module_globals.c; library modules
 * (dlopen, system library) in library.c.
 *
 * Modules made by C++ code (ModuleObj subclasses, type index 73 with their
 * own deleter) take part too: their header and imports_ (handle + 24) have
 * our layout; their own functions, kind and property mask come through the
 * C++ ABI library (cxx_bridge.h, docs/cxx-abi.md).
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

#include "container.h"
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

/* ---- the C++ vtable slot ------------------------------------------------- */

static const void* g_cxx_vptr;          /* set once, under the lock */
static tvmffi__module* g_no_vtable;     /* live modules with an empty slot */

void tvmffi__module_set_cxx_vtable(const void* vptr) {
  pthread_mutex_lock(&g_lock);
  if (g_cxx_vptr == NULL) {
    g_cxx_vptr = vptr;
    for (tvmffi__module* m = g_no_vtable; m != NULL; m = m->no_vtable_next) {
      ((const void**)m)[-1] = vptr;
      m->no_vtable = 0;
    }
    g_no_vtable = NULL;
  }
  pthread_mutex_unlock(&g_lock);
}

/* Fills the slot of a new module, or remembers the module until the C++ ABI
 * library comes (C-only hosts never load it). */
static void vtable_slot_init(tvmffi__module* m) {
  tvmffi__cxx_bridge(TVMFFI__CXX_IF_PRESENT); /* installs it when C++ is around */
  pthread_mutex_lock(&g_lock);
  ((const void**)m)[-1] = g_cxx_vptr;
  if (g_cxx_vptr == NULL) {
    m->no_vtable = 1;
    m->no_vtable_next = g_no_vtable;
    if (g_no_vtable) g_no_vtable->no_vtable_prev = m;
    g_no_vtable = m;
  }
  pthread_mutex_unlock(&g_lock);
}

static void vtable_slot_forget(tvmffi__module* m) {
  pthread_mutex_lock(&g_lock);
  if (m->no_vtable) {
    if (m->no_vtable_prev)
      m->no_vtable_prev->no_vtable_next = m->no_vtable_next;
    else
      g_no_vtable = m->no_vtable_next;
    if (m->no_vtable_next) m->no_vtable_next->no_vtable_prev = m->no_vtable_prev;
    m->no_vtable = 0;
  }
  pthread_mutex_unlock(&g_lock);
}

static void module_deleter(void* self, int flags) {
  tvmffi__module* m = (tvmffi__module*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    vtable_slot_forget(m);
    /* Cached functions and imports may come from other libraries; our own
     * library (impl) goes last so nothing still points into it. */
    fcache_free(&m->cache);
    tvmffi__decref(m->imports);
    m->imports = NULL;
    if (m->vt->finalize) m->vt->finalize(m->impl);
    m->impl = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free((char*)m - 8); /* the vtable slot */
}

int tvmffi__module_is_ours(const TVMFFIObject* obj) {
  return obj->type_index == kTVMFFIModule && obj->deleter == module_deleter;
}

tvmffi__module* tvmffi__module_new(const tvmffi__module_vtable* vt, void* impl) {
  TVMFFIObject* imports = tvmffi__array_new(0);
  tvmffi__module* m = NULL;
  void** base = imports ? (void**)calloc(1, 8 + sizeof(tvmffi__module)) : NULL;
  if (base != NULL) {
    m = (tvmffi__module*)tvmffi__object_init((TVMFFIObject*)(base + 1), kTVMFFIModule,
                                             module_deleter);
  } else if (imports != NULL) {
    tvmffi__raise_oom();
  }
  if (m == NULL) {
    tvmffi__decref(imports);
    if (vt->finalize) vt->finalize(impl);
    return NULL;
  }
  m->imports = imports;
  m->kind = vt->kind;
  m->vt = vt;
  m->impl = impl;
  /* C++ code calls a module's virtual functions: the slot gets the vtable of
   * the C++ ABI library (docs/cxx-abi.md). */
  vtable_slot_init(m);
  return m;
}

const char* tvmffi__module_kind(tvmffi__module* m) {
  if (tvmffi__module_is_ours(&m->header)) return m->vt->kind;
  const tvmffi_cxx_bridge* cxx = tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
  const char* kind = NULL;
  if (cxx == NULL || cxx->kind(&m->header, &kind) != 0) return NULL;
  return kind ? kind : "";
}

int32_t tvmffi__module_property_mask(tvmffi__module* m) {
  if (tvmffi__module_is_ours(&m->header)) return m->vt->property_mask;
  const tvmffi_cxx_bridge* cxx = tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
  int32_t mask = 0;
  if (cxx == NULL || cxx->property_mask(&m->header, &mask) != 0) return -1;
  return mask;
}

/* Number of imports in an imports array; a C++ module may hold none (NULL). */
static int64_t imports_size(const TVMFFIObject* a) {
  return a ? TVMFFISeqGetCellPtr((TVMFFIObject*)a)->size : 0;
}

/* New reference to the current imports array. */
TVMFFIObject* tvmffi__module_imports(tvmffi__module* m) {
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* a = m->imports;
  if (a != NULL) tvmffi__incref(a);
  pthread_mutex_unlock(&g_lock);
  return a ? a : tvmffi__array_new(0);
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
    int64_t n = imports_size(m->imports);
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
    const char* kind = tvmffi__module_kind(other);
    if (kind == NULL) return -1;
    return tvmffi__raise("RuntimeError",
                         "Cyclic dependency detected during import: the %s module being "
                         "imported already reaches the importing module",
                         kind);
  }
  int64_t n = imports_size(mod->imports);
  TVMFFIObject* next = tvmffi__array_new(n + 1);
  if (next == NULL) {
    pthread_mutex_unlock(&g_lock);
    return -1;
  }
  const TVMFFIAny* items = n ? (const TVMFFIAny*)TVMFFISeqGetCellPtr(mod->imports)->data : NULL;
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

/* The module's own function / definition / info: ours through the kind's
 * table, a C++ module through its virtual functions. */
static int own_function(tvmffi__module* m, const char* name, TVMFFIObject** out) {
  if (tvmffi__module_is_ours(&m->header)) return m->vt->get_function(m, name, out);
  const tvmffi_cxx_bridge* cxx = tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
  return cxx ? cxx->get_function(&m->header, name, strlen(name), out) : -1;
}

static int own_implements(tvmffi__module* m, const char* name) {
  if (tvmffi__module_is_ours(&m->header)) return m->vt->implements(m, name);
  const tvmffi_cxx_bridge* cxx = tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
  int found = 0;
  if (cxx == NULL || cxx->implements(&m->header, name, strlen(name), &found) != 0) {
    TVMFFIObjectHandle err = NULL; /* "never raises": report absent */
    TVMFFIErrorMoveFromRaised(&err);
    if (err) TVMFFIObjectDecRef(err);
    return 0;
  }
  return found;
}

static int own_info(tvmffi__module* m, const char* prefix, const char* name, TVMFFIAny* out) {
  if (tvmffi__module_is_ours(&m->header)) return m->vt->get_info(m, prefix, name, out);
  const tvmffi_cxx_bridge* cxx = tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
  int doc = strcmp(prefix, "__tvm_ffi__doc_") == 0;
  return cxx ? cxx->get_info(&m->header, doc, name, strlen(name), out) : -1;
}

int tvmffi__module_get_function(tvmffi__module* m, const char* name, int query_imports,
                                TVMFFIObject** out) {
  *out = NULL;
  if (own_function(m, name, out) != 0) return -1;
  if (*out != NULL || !query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int rc = 0;
  int64_t n = imports_size(imports);
  for (int64_t i = 0; i < n && rc == 0 && *out == NULL; ++i)
    rc = tvmffi__module_get_function(import_at(imports, i), name, 1, out);
  tvmffi__decref(imports);
  return rc;
}

int tvmffi__module_implements(tvmffi__module* m, const char* name, int query_imports) {
  if (own_implements(m, name)) return 1;
  if (!query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int found = 0;
  int64_t n = imports_size(imports);
  for (int64_t i = 0; i < n && !found; ++i)
    found = tvmffi__module_implements(import_at(imports, i), name, 1);
  tvmffi__decref(imports);
  return found;
}

int tvmffi__module_get_info(tvmffi__module* m, const char* prefix, const char* name,
                            int query_imports, TVMFFIAny* out) {
  tvmffi__any_set_none(out);
  if (own_info(m, prefix, name, out) != 0) return -1;
  if (out->type_index != kTVMFFINone || !query_imports) return 0;
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int rc = 0;
  int64_t n = imports_size(imports);
  for (int64_t i = 0; i < n && rc == 0 && out->type_index == kTVMFFINone; ++i)
    rc = tvmffi__module_get_info(import_at(imports, i), prefix, name, 1, out);
  tvmffi__decref(imports);
  return rc;
}

/* ---- TVMFFIEnvModLookupFromImports ------------------------------------ */

/* Lookup cache of TVMFFIEnvModLookupFromImports: ours in m->cache; a C++
 * module's in its own import_lookup_cache_ (an ffi.Map<String, Function> at
 * handle + 32, released by its destructor).  Called with the lock held; both
 * return borrowed functions. */
static TVMFFIObject** cxx_cache_slot(tvmffi__module* m) {
  return (TVMFFIObject**)((char*)m + TVMFFI_MODULE_KIND_OFFSET);
}

static TVMFFIObject* cache_get_locked(tvmffi__module* m, const char* name) {
  if (tvmffi__module_is_ours(&m->header)) return fcache_get(&m->cache, name);
  TVMFFIObject* map = *cxx_cache_slot(m);
  TVMFFIAny key;
  if (map == NULL || tvmffi__str_to_any(kTVMFFIStr, name, strlen(name), &key) != 0) return NULL;
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(map);
  uint64_t pos = TVMFFI_MAP_ITER_END;
  TVMFFIObject* fn = NULL;
  if (TVMFFIMapCellFind(cell, &key, &pos) == 0 && pos != TVMFFI_MAP_ITER_END)
    fn = TVMFFIMapCellValue(cell, pos)->v_obj;
  tvmffi__any_release(&key);
  return fn;
}

/* Stores name -> fn, taking fn's reference on success.  0/-1. */
static int cache_put_locked(tvmffi__module* m, const char* name, TVMFFIObject* fn) {
  if (tvmffi__module_is_ours(&m->header)) return fcache_put(&m->cache, name, fn);
  TVMFFIObject** slot = cxx_cache_slot(m);
  if (*slot == NULL && (*slot = tvmffi__map_new(kTVMFFIMap)) == NULL) return -1;
  TVMFFIAny key, value;
  if (tvmffi__str_to_any(kTVMFFIStr, name, strlen(name), &key) != 0) return -1;
  tvmffi__any_set_obj(&value, fn);
  if (tvmffi__map_set(slot, &key, &value) != 0) {
    tvmffi__any_release(&key);
    return -1;
  }
  return 0;
}

TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                              TVMFFIObjectHandle* out) {
  /* The token is the C++ object address, 8 bytes before the header. */
  tvmffi__module* m = library_ctx ? (tvmffi__module*)((char*)library_ctx + 8) : NULL;
  if (m == NULL || m->header.type_index != kTVMFFIModule)
    return tvmffi__raise("ValueError",
                         "TVMFFIEnvModLookupFromImports: library_ctx is not a module token; "
                         "pass the value the loader wrote into __tvm_ffi__library_ctx");
  if (func_name == NULL || out == NULL)
    return tvmffi__raise("ValueError",
                         "TVMFFIEnvModLookupFromImports: func_name and out must not be NULL");
  pthread_mutex_lock(&g_lock);
  TVMFFIObject* fn = cache_get_locked(m, func_name);
  pthread_mutex_unlock(&g_lock);
  if (fn != NULL) {
    *out = fn;
    return 0;
  }
  /* The module's own symbols are deliberately not searched (§11.4). */
  TVMFFIObject* imports = tvmffi__module_imports(m);
  int64_t n = imports_size(imports);
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
  TVMFFIObject* raced = cache_get_locked(m, func_name);
  if (raced == NULL && cache_put_locked(m, func_name, fn) != 0) {
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
