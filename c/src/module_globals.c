/*
 * module_globals.c -- the ffi.Module* global functions (docs/abi.md §14.3), the
 * format dispatch of ffi.ModuleLoadFromFile (§13.2), the keep-alive set of
 * ffi.ModuleGlobalsAdd/Remove and the reflection field ffi.Module.imports_.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

/* Guards the keep-alive set. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* Any ffi.Module: ours, or a C++ ModuleObj subclass (module.c dispatches). */
static int arg_module(const char* fname, const TVMFFIAny* args, int32_t i, tvmffi__module** out) {
  return tvmffi__arg_obj(fname, args, i, kTVMFFIModule, (TVMFFIObject**)out);
}

/* The bridge for a C++ module's own operations; NULL after raising. */
static const tvmffi_cxx_bridge* cxx_of(tvmffi__module* m) {
  return tvmffi__module_is_ours(&m->header) ? NULL : tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED);
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
  int rc = tvmffi__module_get_function(m, name, q, &fn);
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
  if (args_lookup("ffi.ModuleImplementsFunction", args, num_args, &m, &name, &q) != 0) return -1;
  int found = tvmffi__module_implements(m, name, q);
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
  int rc = tvmffi__module_get_info(m, prefix, name, q, result);
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
  const char* kind = tvmffi__module_kind(m);
  return kind ? tvmffi__str_to_any(kTVMFFIStr, kind, strlen(kind), result) : -1;
}

static int g_get_property_mask(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGetPropertyMask", n, 1) != 0 ||
      arg_module("ffi.ModuleGetPropertyMask", args, 0, &m) != 0)
    return -1;
  int32_t mask = tvmffi__module_property_mask(m);
  if (mask < 0) return -1;
  tvmffi__any_set_int(result, mask);
  return 0;
}

/* (m[, format]) -> "" for our kinds (none carries source). */
static int g_inspect_source(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.ModuleInspectSource";
  tvmffi__module* m;
  TVMFFIByteArray fmt;
  if (n != 1 && n != 2)
    return tvmffi__raise("TypeError", "%s expects 2 arguments (module, format), got %d", f, (int)n);
  if (arg_module(f, args, 0, &m) != 0) return -1;
  if (n == 2 && tvmffi__arg_str(f, args, 1, &fmt) != 0) return -1;
  if (n == 1) fmt.data = "", fmt.size = 0;
  if (!tvmffi__module_is_ours(&m->header)) {
    const tvmffi_cxx_bridge* cxx = cxx_of(m);
    return cxx ? cxx->inspect_source(&m->header, fmt.data, fmt.size, result) : -1;
  }
  return tvmffi__str_to_any(kTVMFFIStr, "", 0, result);
}

static int g_get_write_formats(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  tvmffi__module* m;
  if (tvmffi__args_count("ffi.ModuleGetWriteFormats", n, 1) != 0 ||
      arg_module("ffi.ModuleGetWriteFormats", args, 0, &m) != 0)
    return -1;
  if (!tvmffi__module_is_ours(&m->header)) {
    const tvmffi_cxx_bridge* cxx = cxx_of(m);
    return cxx ? cxx->get_write_formats(&m->header, result) : -1;
  }
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
    return tvmffi__raise("TypeError", "%s expects 3 arguments (module, file, format), got %d", f,
                         (int)n);
  if (arg_module(f, args, 0, &m) != 0 || tvmffi__arg_str(f, args, 1, &file) != 0) return -1;
  if (n == 3 && tvmffi__arg_str(f, args, 2, &fmt) != 0) return -1;
  if (n == 2) fmt.data = "", fmt.size = 0;
  if (!tvmffi__module_is_ours(&m->header)) {
    const tvmffi_cxx_bridge* cxx = cxx_of(m);
    return cxx ? cxx->write_to_file(&m->header, file.data, file.size, fmt.data, fmt.size) : -1;
  }
  return tvmffi__raise("RuntimeError", "Module[%s] does not support WriteToFile", m->vt->kind);
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
  return tvmffi__module_clear_imports(m);
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
  if (strcmp(fmt, "dll") == 0 || strcmp(fmt, "dylib") == 0 || strcmp(fmt, "dso") == 0) fmt = "so";
  /* Every loader reads the file (a bare .so name is searched for in the library path instead):
   * a FIFO, device or directory is refused before one blocks or misreads it */
  if ((strcmp(fmt, "so") != 0 || strchr(path, '/') != NULL) &&
      tvmffi__check_module_file("Failed to load module from", path) != 0) {
    free(path);
    return -1;
  }
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
    rc = tvmffi__function_call(loader, call_args, 2, &out);
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

/* Also C++ modules: imports_ is at the same offset. */
static int imports_getter(void* field_addr, TVMFFIAny* result) {
  tvmffi__module* m = (tvmffi__module*)((char*)field_addr - offsetof(tvmffi__module, imports));
  tvmffi__any_set_obj(result, tvmffi__module_imports(m));
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
  /* sizeof the C++ ModuleObj (docs/cxx-abi.md): its vtable pointer, the header, imports_
   * and one private pointer; tools read the layout from it (tvm-ffi-stubgen's report). */
  TVMFFITypeMetadata meta;
  memset(&meta, 0, sizeof(meta));
  meta.total_size = (int32_t)(sizeof(void*) + TVMFFI_MODULE_KIND_OFFSET + sizeof(void*));
  meta.structural_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  if (TVMFFITypeRegisterMetadata(kTVMFFIModule, &meta) != 0 ||
      TVMFFITypeRegisterField(kTVMFFIModule, &info) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    tvmffi__fatal("cannot register the reflection field ffi.Module.imports_");
  }
}

/* ---- registration -------------------------------------------------------- */

#define FN(args_json) "{\"type\":\"ffi.Function\",\"args\":[" args_json "]}"
#define T(name) "{\"type\":\"" name "\"}"
#define OPT(name) "{\"type\":\"Optional\",\"args\":[" T(name) "]}"

void tvmffi__module_globals_init(void) {
  tvmffi__register_global("ffi.ModuleLoadFromFile", g_load_from_file,
                          "Loads a module file; the loader is chosen by the file extension.",
                          FN(T("ffi.Module") "," T("ffi.String")));
  tvmffi__register_global(
      "ffi.ModuleGetFunction", g_get_function, "Function `name` of a module, or None.",
      FN(OPT("ffi.Function") "," T("ffi.Module") "," T("ffi.String") "," T("bool")));
  tvmffi__register_global("ffi.ModuleImplementsFunction", g_implements,
                          "Whether a module defines function `name`.",
                          FN(T("bool") "," T("ffi.Module") "," T("ffi.String") "," T("bool")));
  tvmffi__register_global(
      "ffi.ModuleGetFunctionMetadata", g_get_metadata, "Metadata JSON of function `name`, or None.",
      FN(OPT("ffi.String") "," T("ffi.Module") "," T("ffi.String") "," T("bool")));
  tvmffi__register_global(
      "ffi.ModuleGetFunctionDoc", g_get_doc, "Docstring of function `name`, or None.",
      FN(OPT("ffi.String") "," T("ffi.Module") "," T("ffi.String") "," T("bool")));
  tvmffi__register_global("ffi.ModuleGetKind", g_get_kind, "Kind of a module (\"library\").",
                          FN(T("ffi.String") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleGetPropertyMask", g_get_property_mask,
                          "Property bits: 1 serializable, 2 runnable, 4 exportable.",
                          FN(T("int") "," T("ffi.Module")));
  tvmffi__register_global("ffi.ModuleInspectSource", g_inspect_source,
                          "Source of a module in `format`; empty if unsupported.",
                          FN(T("ffi.String") "," T("ffi.Module") "," T("ffi.String")));
  tvmffi__register_global(
      "ffi.ModuleGetWriteFormats", g_get_write_formats, "Formats WriteToFile supports.",
      FN("{\"type\":\"ffi.Array\",\"args\":[" T("ffi.String") "]}," T("ffi.Module")));
  tvmffi__register_global(
      "ffi.ModuleWriteToFile", g_write_to_file,
      "Writes a module to a file (unsupported by library modules).",
      FN(T("None") "," T("ffi.Module") "," T("ffi.String") "," T("ffi.String")));
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
  tvmffi__module_custom_globals_init();
}
