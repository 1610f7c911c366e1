/*
 * module.h -- the module object shared by module.c (generic object, imports,
 * ffi.Module* globals) and library.c (dlopen and system libraries).  Private
 * to the module files; never installed.
 *
 * Layout (upstream's C++ ModuleObj, docs/cxx-abi.md): the allocation starts 8
 * bytes before the header with a C++ vtable pointer; imports_ at handle + 24
 * (an ffi.Array, never NULL for our modules), then the kind string at + 32
 * (where upstream keeps its private lookup cache), then our own fields.
 * Objects of type index 73 made by C++ code (ModuleObj subclasses) share the
 * vtable pointer, the header and imports_; everything else about them is
 * reached through the C++ ABI library (cxx_bridge.h).
 */
#ifndef TVMFFI_SRC_MODULE_H_
#define TVMFFI_SRC_MODULE_H_

#include "cxx_bridge.h"
#include "internal.h"

typedef struct tvmffi__module tvmffi__module;

/* Lookup cache of TVMFFIEnvModLookupFromImports: name -> owned function. */
typedef struct {
  char** names;
  TVMFFIObject** funcs;
  size_t size;
  size_t capacity; /* power of two, open addressing */
} tvmffi__fcache;

/* What a kind of module does.  Names are NUL-terminated. */
typedef struct {
  const char* kind;      /* "library" */
  int32_t property_mask; /* 1 serializable | 2 runnable | 4 exportable */
  /* Function `name` of the module itself: new reference in *out, or NULL
   * when absent.  Returns 0/-1. */
  int (*get_function)(tvmffi__module* self, const char* name, TVMFFIObject** out);
  /* Does the module itself define `name`?  Never raises. */
  int (*implements)(tvmffi__module* self, const char* name);
  /* Calls the `<prefix><name>` symbol (prefix "__tvm_ffi__metadata_" or
   * "__tvm_ffi__doc_") and stores the owned String in *out, or None when
   * absent.  Returns 0/-1. */
  int (*get_info)(tvmffi__module* self, const char* prefix, const char* name, TVMFFIAny* out);
  /* Releases `impl` when the module is destroyed. */
  void (*finalize)(void* impl);
} tvmffi__module_vtable;

struct tvmffi__module {
  TVMFFIObject header;   /* +0; the C++ vtable pointer is at -8 */
  TVMFFIObject* imports; /* +24: ffi.Array of modules; replaced, never mutated */
  /* Only for modules made here (tvmffi__module_is_ours): */
  const char* kind;      /* +32: vt->kind, read by the C++ ABI library */
  tvmffi__fcache cache;  /* guarded by the module lock (module.c) */
  const tvmffi__module_vtable* vt;
  void* impl;
  /* Made before the C++ ABI library was loaded: on the list of modules whose
   * vtable slot tvmffi__module_set_cxx_vtable fills later (module lock). */
  tvmffi__module* no_vtable_next;
  tvmffi__module* no_vtable_prev;
  int no_vtable;
};
_Static_assert(offsetof(tvmffi__module, imports) == 24, "imports_ must sit at offset 24");
_Static_assert(offsetof(tvmffi__module, kind) == TVMFFI_MODULE_KIND_OFFSET,
               "the C++ ABI library reads the kind at offset 32");

/* The bridge to libtvm_ffi_cxx.so (cxx_abi.c).  NOLOAD: only when already
 * loaded; IF_PRESENT: also load it when libstdc++ is in the process;
 * REQUIRED: load it, or raise RuntimeError and return NULL. */
enum { TVMFFI__CXX_NOLOAD, TVMFFI__CXX_IF_PRESENT, TVMFFI__CXX_REQUIRED };
const tvmffi_cxx_bridge* tvmffi__cxx_bridge(int mode);

/* Installs the C++ ABI library's vtable for runtime modules: in modules made
 * from now on, and in the live ones made before (cxx_abi.c calls it once). */
void tvmffi__module_set_cxx_vtable(const void* vptr);

/* The value written into a library's __tvm_ffi__library_ctx and passed back
 * to TVMFFIEnvModLookupFromImports: the C++ object address (handle - 8), as
 * upstream and C++ modules (e.g. a JIT) write it. */
static inline void* tvmffi__module_token(tvmffi__module* m) { return (char*)m - 8; }

/* Kind string of any module (ours, or a C++ one through the bridge); NULL
 * after raising. */
const char* tvmffi__module_kind(tvmffi__module* m);
/* Property mask of any module; -1 after raising. */
int32_t tvmffi__module_property_mask(tvmffi__module* m);

/* A new module of kind `vt` owning `impl` (finalize runs even on failure).
 * Returns a new reference, or NULL after raising. */
tvmffi__module* tvmffi__module_new(const tvmffi__module_vtable* vt, void* impl);

/* Was obj made by tvmffi__module_new?  Objects of type index 73 made
 * elsewhere are C++ ModuleObj subclasses, reached through the bridge. */
int tvmffi__module_is_ours(const TVMFFIObject* obj);

/* Appends `other` to mod's imports after the cycle check (RuntimeError
 * "Cyclic dependency detected during import").  Returns 0/-1. */
int tvmffi__module_import(tvmffi__module* mod, tvmffi__module* other);

/* Function `name` of m (new reference in *out, or NULL), continuing depth
 * first through the imports when query_imports.  Returns 0/-1. */
int tvmffi__module_get_function(tvmffi__module* m, const char* name, int query_imports,
                                TVMFFIObject** out);
/* Does m (or, with query_imports, an import) define `name`?  Never raises. */
int tvmffi__module_implements(tvmffi__module* m, const char* name, int query_imports);
/* Doc or metadata (prefix as in get_info) of `name`: owned String or None. */
int tvmffi__module_get_info(tvmffi__module* m, const char* prefix, const char* name,
                            int query_imports, TVMFFIAny* out);
/* New reference to m's current imports array (never NULL). */
TVMFFIObject* tvmffi__module_imports(tvmffi__module* m);
/* Replaces m's imports with an empty array.  Returns 0/-1. */
int tvmffi__module_clear_imports(tvmffi__module* m);

/* library_bin.c: rebuilds the import tree of a __tvm_ffi__library_bin blob
 * (docs/abi.md §13.5) whose readable size is at most `limit` bytes (UINT64_MAX when
 * unknown); `lib` (borrowed) stands for "_lib" entries.  Returns module 0
 * (new reference), or NULL after raising RuntimeError/TypeError. */
tvmffi__module* tvmffi__library_bin_load(const void* bin, uint64_t limit, tvmffi__module* lib);

/* library.c: refuses (RuntimeError, returns -1) a path that exists but is
 * not a regular file once symlinks are followed: a FIFO would block the
 * loader's read forever, a device (/dev/zero) or a directory cannot hold a
 * module.  0 for a regular file or a path that does not exist (the loader
 * then reports that itself).  `what` names the operation in the message. */
int tvmffi__check_module_file(const char* what, const char* path);

/* Registers the loader globals of library.c (ffi.Module.load_from_file.so,
 * ffi.SystemLib); called from tvmffi__module_globals_init. */
void tvmffi__library_globals_init(void);

/* library.c: calls a __tvm_ffi__metadata_/__tvm_ffi__doc_ symbol `fn` (named `symbol`
 * in messages) with no arguments; its result must be a String or None, moved into *out.
 * 0/-1. */
int tvmffi__module_call_info_symbol(TVMFFISafeCallType fn, const char* symbol, TVMFFIAny* out);

/* library.c: writes each registered context symbol (TVMFFIEnvModRegister-
 * ContextSymbol) into the slot lookup(env, name) returns, when not NULL.
 * Used by module_custom.c.  Returns 0/-1 (out of memory). */
int tvmffi__library_fill_context_symbols(void* (*lookup)(void* env, const char* name), void* env);
/* module_custom.c: registers ffi.Module.from_symbol_lookup. */
void tvmffi__module_custom_globals_init(void);

#endif /* TVMFFI_SRC_MODULE_H_ */
