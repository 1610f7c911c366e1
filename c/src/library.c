/*
 * library.c -- library modules (docs/abi.md §13): the dlopen loader
 * ffi.Module.load_from_file.so, library-module construction with context
 * symbols and __tvm_ffi__library_ctx / __tvm_ffi__library_bin (parsed in
 * library_bin.c), function
 * lookup (__tvm_ffi_<name>), and the system library (ffi.SystemLib) over
 * symbols registered with TVMFFIEnvModRegisterSystemLibSymbol.
 *
 * Lifetimes: a function taken from a library module holds the module, the
 * module holds the dlopen handle, and dlclose runs in the module's finalizer,
 * i.e. only after the module and every function from it are gone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"

#define FUNC_PREFIX "__tvm_ffi_"

/* ---- symbol tables: system library and context symbols ----------------- */

/* Usable from static initialisers before the runtime is initialised: only
 * statically initialised locks and malloc. */
typedef struct {
  char* name;
  void* ptr;
} sym_entry;

static pthread_mutex_t g_sys_lock = PTHREAD_MUTEX_INITIALIZER;
static sym_entry* g_sys;          /* open addressing; name NULL = empty */
static size_t g_sys_size, g_sys_cap; /* cap is a power of two */

static uint64_t hash_name(const char* s) {
  uint64_t h = UINT64_C(1469598103934665603);
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
  return h;
}

static sym_entry* sys_slot_locked(const char* name) {
  if (g_sys_cap == 0) return NULL;
  size_t mask = g_sys_cap - 1;
  for (size_t i = (size_t)hash_name(name) & mask;; i = (i + 1) & mask) {
    if (g_sys[i].name == NULL || strcmp(g_sys[i].name, name) == 0) return &g_sys[i];
  }
}

static int sys_grow_locked(void) {
  size_t cap = g_sys_cap ? 2 * g_sys_cap : 64;
  sym_entry* t = (sym_entry*)calloc(cap, sizeof(sym_entry));
  if (t == NULL) return -1;
  for (size_t j = 0; j < g_sys_cap; ++j) {
    if (g_sys[j].name == NULL) continue;
    size_t i = (size_t)hash_name(g_sys[j].name) & (cap - 1);
    while (t[i].name != NULL) i = (i + 1) & (cap - 1);
    t[i] = g_sys[j];
  }
  free(g_sys);
  g_sys = t;
  g_sys_cap = cap;
  return 0;
}

TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol) {
  if (name == NULL) {
    fprintf(stderr, "tvm_ffi: TVMFFIEnvModRegisterSystemLibSymbol: NULL name ignored\n");
    return 0;
  }
  pthread_mutex_lock(&g_sys_lock);
  sym_entry* e = sys_slot_locked(name);
  if (e != NULL && e->name != NULL) {
    if (e->ptr != symbol)
      fprintf(stderr,
              "tvm_ffi: warning: system-lib symbol %s registered again with a different "
              "address; the new one replaces the old\n",
              name);
    e->ptr = symbol;
    pthread_mutex_unlock(&g_sys_lock);
    return 0;
  }
  char* copy = NULL;
  if (((g_sys_size + 1) * 2 <= g_sys_cap || sys_grow_locked() == 0) &&
      (copy = strdup(name)) != NULL) {
    e = sys_slot_locked(name);
    e->name = copy;
    e->ptr = symbol;
    g_sys_size++;
  }
  pthread_mutex_unlock(&g_sys_lock);
  if (copy == NULL) {
    tvmffi__ensure_init(); /* raising needs the error machinery */
    return tvmffi__raise_oom();
  }
  return 0;
}

static void* sys_lookup(const char* name) {
  pthread_mutex_lock(&g_sys_lock);
  sym_entry* e = sys_slot_locked(name);
  void* p = (e != NULL && e->name != NULL) ? e->ptr : NULL;
  pthread_mutex_unlock(&g_sys_lock);
  return p;
}

static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static sym_entry* g_ctx; /* registration order; duplicates kept */
static size_t g_ctx_size, g_ctx_cap;

TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol) {
  if (name == NULL)
    return tvmffi__raise("ValueError", "TVMFFIEnvModRegisterContextSymbol: name is NULL");
  char* copy = strdup(name);
  if (copy == NULL) return tvmffi__raise_oom();
  pthread_mutex_lock(&g_ctx_lock);
  if (g_ctx_size == g_ctx_cap) {
    size_t cap = g_ctx_cap ? 2 * g_ctx_cap : 16;
    sym_entry* t = (sym_entry*)realloc(g_ctx, cap * sizeof(sym_entry));
    if (t == NULL) {
      pthread_mutex_unlock(&g_ctx_lock);
      free(copy);
      return tvmffi__raise_oom();
    }
    g_ctx = t;
    g_ctx_cap = cap;
  }
  g_ctx[g_ctx_size].name = copy;
  g_ctx[g_ctx_size].ptr = symbol;
  g_ctx_size++;
  pthread_mutex_unlock(&g_ctx_lock);
  return 0;
}

int tvmffi__library_fill_context_symbols(void* (*lookup)(void* env, const char* name), void* env) {
  /* Copied out first: the lookup may run foreign code (a JIT linker). */
  pthread_mutex_lock(&g_ctx_lock);
  size_t n = g_ctx_size;
  sym_entry* ctxs = (sym_entry*)malloc((n ? n : 1) * sizeof(sym_entry));
  if (ctxs != NULL && n > 0) memcpy(ctxs, g_ctx, n * sizeof(sym_entry));
  pthread_mutex_unlock(&g_ctx_lock);
  if (ctxs == NULL) return tvmffi__raise_oom();
  for (size_t i = 0; i < n; ++i) {
    void** slot = (void**)lookup(env, ctxs[i].name);
    if (slot != NULL) *slot = ctxs[i].ptr;
  }
  free(ctxs);
  return 0;
}

/* ffi.ModuleVisitContextSymbols(callback): callback(name, address) for each
 * registered context symbol, in registration order (C++
 * Module::VisitContextSymbols: modules that link code themselves, e.g. a JIT,
 * fill the same symbols the loader does). */
static int g_visit_context_symbols(void* h, const TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result) {
  (void)h;
  (void)result;
  const char* f = "ffi.ModuleVisitContextSymbols";
  TVMFFIObject* cb;
  if (tvmffi__args_count(f, num_args, 1) != 0 ||
      tvmffi__arg_obj(f, args, 0, kTVMFFIFunction, &cb) != 0)
    return -1;
  pthread_mutex_lock(&g_ctx_lock); /* copied out: the callback runs foreign code */
  size_t n = g_ctx_size;
  sym_entry* ctxs = (sym_entry*)malloc((n ? n : 1) * sizeof(sym_entry));
  if (ctxs != NULL && n > 0) memcpy(ctxs, g_ctx, n * sizeof(sym_entry));
  pthread_mutex_unlock(&g_ctx_lock);
  if (ctxs == NULL) return tvmffi__raise_oom();
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    TVMFFIAny a[2], r;
    a[0].type_index = kTVMFFIRawStr;
    a[0].zero_padding = 0;
    a[0].v_c_str = ctxs[i].name; /* names are never freed */
    a[1].type_index = kTVMFFIOpaquePtr;
    a[1].zero_padding = 0;
    a[1].v_ptr = ctxs[i].ptr;
    tvmffi__any_set_none(&r);
    rc = tvmffi__function_call(cb, a, 2, &r);
    if (rc == 0) tvmffi__any_release(&r);
  }
  free(ctxs);
  return rc == 0 ? 0 : -1;
}

/* ---- the library behind a module ----------------------------------------- */

typedef struct {
  void* dl;              /* dlopen handle, or NULL for the system library */
  char* prefix;          /* system library symbol prefix */
  void** ctx_slot;       /* the library's __tvm_ffi__library_ctx, or NULL */
  tvmffi__module* owner; /* the module whose token ctx_slot may hold */
} lib_impl;

/* Loading one file twice gives two modules over one dlopen instance and one
 * __tvm_ffi__library_ctx; the newest module's token wins.  When that module
 * dies while another lives, the slot falls back to a live module instead of
 * dangling.  Entries: live dynamic-library impls that own a ctx slot. */
static pthread_mutex_t g_tok_lock = PTHREAD_MUTEX_INITIALIZER;
static lib_impl** g_tok;
static size_t g_tok_size, g_tok_cap;

static int token_write(lib_impl* L, void** slot, tvmffi__module* m) {
  pthread_mutex_lock(&g_tok_lock);
  if (L->dl != NULL && g_tok_size == g_tok_cap) {
    size_t cap = g_tok_cap ? 2 * g_tok_cap : 8;
    lib_impl** t = (lib_impl**)realloc(g_tok, cap * sizeof(*t));
    if (t == NULL) {
      pthread_mutex_unlock(&g_tok_lock);
      return tvmffi__raise_oom();
    }
    g_tok = t;
    g_tok_cap = cap;
  }
  *slot = tvmffi__module_token(m);
  L->ctx_slot = slot;
  L->owner = m;
  if (L->dl != NULL) g_tok[g_tok_size++] = L; /* system libraries live forever */
  pthread_mutex_unlock(&g_tok_lock);
  return 0;
}

static void token_release(lib_impl* L) {
  if (L->ctx_slot == NULL || L->dl == NULL) return;
  pthread_mutex_lock(&g_tok_lock);
  for (size_t i = 0; i < g_tok_size; ++i) {
    if (g_tok[i] == L) {
      memmove(&g_tok[i], &g_tok[i + 1], (g_tok_size - i - 1) * sizeof(*g_tok));
      g_tok_size--;
      break;
    }
  }
  if (*L->ctx_slot == tvmffi__module_token(L->owner)) {
    void* next = NULL; /* the newest other live module over the same library */
    for (size_t i = g_tok_size; i-- > 0 && next == NULL;)
      if (g_tok[i]->ctx_slot == L->ctx_slot) next = tvmffi__module_token(g_tok[i]->owner);
    *L->ctx_slot = next;
  }
  pthread_mutex_unlock(&g_tok_lock);
}

/* Plain symbol lookup (§13.4): system libraries try prefix + name first. */
static void* lib_sym(const lib_impl* L, const char* name) {
  if (L->dl != NULL) return dlsym(L->dl, name);
  if (L->prefix[0] != '\0') {
    size_t np = strlen(L->prefix), nn = strlen(name);
    char* full = (char*)malloc(np + nn + 1);
    if (full != NULL) {
      memcpy(full, L->prefix, np);
      memcpy(full + np, name, nn + 1);
      void* p = sys_lookup(full);
      free(full);
      if (p != NULL) return p;
    }
  }
  return sys_lookup(name);
}

/* ---- what a symbol is: a library's own code is called, its data written --- */

/* The loaded segment (PT_LOAD) that holds p: its flags (PF_X, PF_W, PF_R),
 * with PF_W cleared inside the RELRO region (read-only after relocation).
 * 0 when no loaded object maps p. */
typedef struct {
  uintptr_t p;
  int flags;
} seg_query;

static int seg_visit(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  seg_query* q = (seg_query*)data;
  int found = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr), hi = lo + ph->p_memsz;
    if (q->p < lo || q->p >= hi) continue;
    if (ph->p_type == PT_LOAD) {
      q->flags |= (int)ph->p_flags;
      found = 1;
    } else if (ph->p_type == PT_GNU_RELRO) {
      q->flags |= 0x100; /* applied below: RELRO may come before or after its PT_LOAD */
    }
  }
  if (!found) {
    q->flags = 0;
    return 0;
  }
  if (q->flags & 0x100) q->flags &= ~(PF_W | 0x100);
  return 1;
}

static int segment_flags(const void* p) {
  seg_query q = {(uintptr_t)p, 0};
  dl_iterate_phdr(seg_visit, &q);
  return q.flags;
}

/* The ELF type (STT_*) of the symbol that starts at p, or -1 when unknown. */
static int symbol_type(const void* p) {
  Dl_info info;
  const ElfW(Sym)* es = NULL;
  if (dladdr1(p, &info, (void**)&es, RTLD_DL_SYMENT) == 0 || es == NULL || info.dli_saddr != p)
    return -1;
  return ELF64_ST_TYPE(es->st_info);
}

/* A symbol a library exports under a function's name must be code: calling
 * data (`const int __tvm_ffi__metadata_f = 0;`) would crash.  0 when p may be
 * called, else -1 after raising TypeError.  System-library symbols were
 * registered as functions by the program itself: not checked. */
static int check_callable(const lib_impl* L, const void* p, const char* name) {
  if (L->dl == NULL || p == NULL) return 0;
  int type = symbol_type(p);
  if (type != STT_OBJECT && type != STT_TLS && type != STT_COMMON && (segment_flags(p) & PF_X))
    return 0;
  return tvmffi__raise("TypeError",
                       "symbol %s of the library is data, not a function: a library exports "
                       "%s* symbols as TVMFFISafeCallType functions",
                       name, FUNC_PREFIX);
}

/* Symbols the loader writes to (context symbols, __tvm_ffi__library_ctx) must
 * be writable data: writing to code or to a const object would crash. */
static int check_writable(const void* p, const char* name) {
  int type = symbol_type(p);
  if (type != STT_FUNC && type != STT_GNU_IFUNC && (segment_flags(p) & PF_W)) return 0;
  return tvmffi__raise("RuntimeError",
                       "cannot load the library: its symbol %s, which the runtime writes to, "
                       "is %s; define it as a writable `void* %s;`",
                       name, type == STT_FUNC || type == STT_GNU_IFUNC ? "a function" : "read-only",
                       name);
}

/* Data symbols the loader writes to or parses (context symbols,
 * __tvm_ffi__library_ctx, __tvm_ffi__library_bin) must be defined by the
 * library itself: dlsym on a handle also searches its dependencies, and a
 * context symbol named like, say, libc's `environ` must not be clobbered. */
static void* lib_own_sym(const lib_impl* L, const char* name) {
  void* p = lib_sym(L, name);
  if (p == NULL || L->dl == NULL) return p;
  struct link_map* mine = NULL;
  struct link_map* owner = NULL;
  Dl_info info;
  if (dlinfo(L->dl, RTLD_DI_LINKMAP, &mine) != 0 ||
      dladdr1(p, &info, (void**)&owner, RTLD_DL_LINKMAP) == 0)
    return NULL; /* cannot tell who defines it: do not touch it */
  return owner == mine ? p : NULL;
}

/* malloc'd concatenation a + b + c, or NULL after raising. */
static char* concat3(const char* a, const char* b, const char* c) {
  size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
  char* s = (char*)malloc(na + nb + nc + 1);
  if (s == NULL) {
    tvmffi__raise_oom();
    return NULL;
  }
  memcpy(s, a, na);
  memcpy(s + na, b, nb);
  memcpy(s + na + nb, c, nc + 1);
  return s;
}

/* Address of the safe-call symbol of function `name` (§13.4).  Returns 0 and
 * *out (NULL when absent), or -1 on OOM. */
static int lib_func_sym(const lib_impl* L, const char* name, void** out) {
  *out = NULL;
  if (L->dl == NULL && L->prefix[0] != '\0') {
    char* s = concat3(FUNC_PREFIX, L->prefix, name);
    if (s == NULL) return -1;
    *out = sys_lookup(s);
    free(s);
    if (*out != NULL) return 0;
  }
  char* s = concat3(FUNC_PREFIX, name, "");
  if (s == NULL) return -1;
  *out = L->dl ? dlsym(L->dl, s) : sys_lookup(s);
  int rc = check_callable(L, *out, s);
  free(s);
  if (rc != 0) *out = NULL;
  return rc;
}

/* A function of the library: calls the raw symbol with handle NULL (§13.6). */
typedef struct {
  TVMFFIObject* module; /* strong: keeps the library mapped */
  TVMFFISafeCallType fn;
} lib_func;

static int lib_func_call(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  lib_func* c = (lib_func*)self;
  if (result->type_index >= kTVMFFIStaticObjectBegin)
    return tvmffi__raise("ValueError",
                         "result slot of a library function call must be initialised to a "
                         "non-object kind (e.g. None), got %s",
                         tvmffi__any_type_key(result));
  return c->fn(NULL, args, num_args, result);
}

static void lib_func_free(void* self) {
  lib_func* c = (lib_func*)self;
  tvmffi__decref(c->module);
  free(c);
}

static int lib_get_function(tvmffi__module* m, const char* name, TVMFFIObject** out) {
  void* addr;
  *out = NULL;
  if (lib_func_sym((const lib_impl*)m->impl, name, &addr) != 0) return -1;
  if (addr == NULL) return 0;
  lib_func* c = (lib_func*)malloc(sizeof(lib_func));
  if (c == NULL) return tvmffi__raise_oom();
  tvmffi__incref(&m->header);
  c->module = &m->header;
  c->fn = (TVMFFISafeCallType)addr;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(c, lib_func_call, lib_func_free, &f) != 0) {
    lib_func_free(c);
    return -1;
  }
  *out = (TVMFFIObject*)f;
  return 0;
}

static int lib_implements(tvmffi__module* m, const char* name) {
  void* addr = NULL;
  if (lib_func_sym((const lib_impl*)m->impl, name, &addr) != 0) {
    TVMFFIObjectHandle err = NULL; /* OOM or data: report "absent" rather than raise */
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    return 0;
  }
  return addr != NULL;
}

static int lib_get_info(tvmffi__module* m, const char* prefix, const char* name, TVMFFIAny* out) {
  char* s = concat3(prefix, name, "");
  if (s == NULL) return -1;
  const lib_impl* L = (const lib_impl*)m->impl;
  void* addr = lib_sym(L, s);
  tvmffi__any_set_none(out);
  if (addr == NULL || check_callable(L, addr, s) != 0) {
    free(s);
    return addr == NULL ? 0 : -1;
  }
  TVMFFISafeCallType fn = (TVMFFISafeCallType)addr;
  int rc = tvmffi__module_call_info_symbol(fn, s, out);
  free(s);
  return rc;
}

int tvmffi__module_call_info_symbol(TVMFFISafeCallType fn, const char* symbol, TVMFFIAny* out) {
  TVMFFIAny r;
  tvmffi__any_set_none(&r);
  if (fn(NULL, NULL, 0, &r) != 0) return -1;
  if (r.type_index != kTVMFFIStr && r.type_index != kTVMFFISmallStr &&
      r.type_index != kTVMFFINone) {
    tvmffi__raise("TypeError", "symbol %s returned %s, expected a String", symbol,
                  tvmffi__any_type_key(&r));
    tvmffi__any_release(&r);
    return -1;
  }
  *out = r;
  return 0;
}

static void lib_finalize(void* impl) {
  lib_impl* L = (lib_impl*)impl;
  if (L == NULL) return;
  token_release(L);
  if (L->dl != NULL) dlclose(L->dl);
  free(L->prefix);
  free(L);
}

static const tvmffi__module_vtable kLibraryVtable = {
    "library", 3, lib_get_function, lib_implements, lib_get_info, lib_finalize,
};

/* ---- construction (§13.3) ------------------------------------------------ */

/* Builds the module over `L` (ownership of L moves in).  New reference or
 * NULL after raising. */
static tvmffi__module* library_module_create(lib_impl* L) {
  tvmffi__module* m = tvmffi__module_new(&kLibraryVtable, L);
  if (m == NULL) return NULL;
  /* Copy the entries out first: dlsym takes the loader's lock, and a library
   * constructor running under that lock may be registering a context symbol
   * (lock-order inversion otherwise).  Names are never freed. */
  pthread_mutex_lock(&g_ctx_lock);
  size_t n = g_ctx_size;
  sym_entry* ctxs = (sym_entry*)malloc((n ? n : 1) * sizeof(sym_entry));
  if (ctxs != NULL && n > 0) memcpy(ctxs, g_ctx, n * sizeof(sym_entry));
  pthread_mutex_unlock(&g_ctx_lock);
  if (ctxs == NULL) {
    tvmffi__decref(&m->header);
    tvmffi__raise_oom();
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) {
    void** slot = (void**)lib_own_sym(L, ctxs[i].name);
    if (slot != NULL && L->dl != NULL && check_writable(slot, ctxs[i].name) != 0) {
      free(ctxs);
      tvmffi__decref(&m->header);
      return NULL;
    }
    if (slot != NULL) *slot = ctxs[i].ptr;
  }
  free(ctxs);
  const void* bin = lib_own_sym(L, "__tvm_ffi__library_bin");
  void** ctx = (void**)lib_own_sym(L, "__tvm_ffi__library_ctx");
  if (ctx != NULL && L->dl != NULL && check_writable(ctx, "__tvm_ffi__library_ctx") != 0) {
    tvmffi__decref(&m->header);
    return NULL;
  }
  if (bin != NULL && L->dl != NULL) {
    int type = symbol_type(bin);
    if (type == STT_FUNC || type == STT_GNU_IFUNC) {
      tvmffi__decref(&m->header);
      tvmffi__raise("RuntimeError",
                    "cannot load the library: its symbol __tvm_ffi__library_bin is a function, "
                    "not the blob of its imported modules");
      return NULL;
    }
  }
  /* The token is the C++ object address (see tvmffi__module_token). */
  if (ctx != NULL && token_write(L, ctx, m) != 0) {
    tvmffi__decref(&m->header);
    return NULL;
  }
  if (bin == NULL) return m;
  /* When the dynamic symbol table knows the blob's size, never read past it
   * (system-library blobs carry no size). */
  uint64_t limit = UINT64_MAX;
  Dl_info dli;
  const ElfW(Sym)* es = NULL;
  if (L->dl != NULL && dladdr1(bin, &dli, (void**)&es, RTLD_DL_SYMENT) != 0 && es != NULL &&
      es->st_size > 0)
    limit = (uint64_t)es->st_size;
  tvmffi__module* root = tvmffi__library_bin_load(bin, limit, m);
  tvmffi__decref(&m->header); /* the tree holds it if a "_lib" entry uses it */
  return root;
}

int tvmffi__check_module_file(const char* what, const char* path) {
  struct stat st;
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
  const char* is = S_ISDIR(st.st_mode)    ? "a directory"
                   : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                   : S_ISCHR(st.st_mode)  ? "a character device"
                   : S_ISBLK(st.st_mode)  ? "a block device"
                   : S_ISSOCK(st.st_mode) ? "a socket"
                                          : "not a regular file";
  return tvmffi__raise("RuntimeError",
                       "%s %s: it is %s; a module is loaded from a regular file (a shared "
                       "library or another format with a registered loader)",
                       what, path, is);
}

/* dlopen maps every loadable segment of an ELF file and touches its pages: in
 * a file cut short (an interrupted copy or download) they lie past the end,
 * and the process dies of SIGBUS inside the dynamic loader.  Such a file is
 * refused here; every other malformed header dlopen reports itself. */
static int check_elf_complete(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0; /* dlopen says why */
  struct stat st;
  ElfW(Ehdr) eh;
  uint64_t size = 0, need = 0;
  if (fstat(fd, &st) == 0 && pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
      memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(ElfW(Phdr))) {
    size = (uint64_t)st.st_size;
    uint64_t table_end = (uint64_t)eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr));
    if (eh.e_phoff > size || table_end > size) need = table_end;
    for (int i = 0; need == 0 && i < eh.e_phnum; ++i) {
      ElfW(Phdr) ph;
      off_t at = (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph);
      if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) break;
      if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
        need = (uint64_t)ph.p_offset + (uint64_t)ph.p_filesz;
    }
  }
  close(fd);
  if (need == 0) return 0;
  return tvmffi__raise("RuntimeError",
                       "Failed to load dynamic shared library %s: the file is truncated (%llu "
                       "bytes, its ELF headers describe %llu); build or copy it again",
                       path, (unsigned long long)size, (unsigned long long)need);
}

/* ffi.Module.load_from_file.so(path[, format]) */
static int g_load_so(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.Module.load_from_file.so";
  TVMFFIByteArray path, fmt;
  if (num_args != 1 && num_args != 2)
    return tvmffi__raise("TypeError", "%s expects 2 arguments (path, format), got %d", f,
                         (int)num_args);
  if (tvmffi__arg_str(f, args, 0, &path) != 0) return -1;
  if (num_args == 2 && tvmffi__arg_str(f, args, 1, &fmt) != 0) return -1;
  if (memchr(path.data, '\0', path.size) != NULL)
    return tvmffi__raise("ValueError", "%s: the path must not contain NUL bytes", f);
  if (path.size == 0) /* dlopen("") would hand back the main program */
    return tvmffi__raise("ValueError", "%s: the path is empty", f);
  char* cpath = (char*)malloc(path.size + 1);
  if (cpath == NULL) return tvmffi__raise_oom();
  memcpy(cpath, path.data, path.size);
  cpath[path.size] = '\0';
  /* A bare name is searched for in the library path, not here: dlopen checks */
  if (strchr(cpath, '/') != NULL &&
      (tvmffi__check_module_file("Failed to load dynamic shared library", cpath) != 0 ||
       check_elf_complete(cpath) != 0)) {
    free(cpath);
    return -1;
  }
  const char *refused_kind, *refused_msg;
  uint64_t refusals = tvmffi__type_refusals(&refused_kind, &refused_msg);
  void* dl = dlopen(cpath, RTLD_LAZY | RTLD_LOCAL);
  const char* why = dl ? NULL : dlerror();
  if (dl == NULL) {
    /* Built against upstream's headers, it needs the C++ symbols they declare
     * out of line (e.g. ModuleObj's vtable): load the C++ ABI library, retry. */
    if (why != NULL && strstr(why, "undefined symbol: _Z") && strstr(why, "3tvm3ffi")) {
      if (tvmffi__cxx_bridge(TVMFFI__CXX_REQUIRED) == NULL) {
        free(cpath);
        return -1;
      }
      dl = dlopen(cpath, RTLD_LAZY | RTLD_LOCAL);
      why = dl ? NULL : dlerror();
    }
  }
  if (dl == NULL) {
    /* A bare file name is looked up in the library search path, not in the
     * current directory: a common surprise worth naming. */
    int bare = strchr(cpath, '/') == NULL;
    tvmffi__raise("InternalError", "Failed to load dynamic shared library %s: %s%s%s%s", cpath,
                  why ? why : "unknown dlopen error",
                  bare ? " (a path without '/' is searched for in the library search path, "
                         "not the current directory; use ./"
                       : "",
                  bare ? cpath : "", bare ? " for a file here)" : "");
    free(cpath);
    return -1;
  }
  if (tvmffi__type_refusals(&refused_kind, &refused_msg) != refusals) {
    /* Its static initialisers had a type registration refused and went on with
     * index -1: refuse the library.  It stays mapped (never dlclose'd), since
     * what it registered may point into it. */
    TVMFFIObjectHandle stale = NULL;
    TVMFFIErrorMoveFromRaised(&stale);
    TVMFFIObjectDecRef(stale);
    tvmffi__raise(refused_kind, "cannot load %s: registering its types failed: %s", cpath,
                  refused_msg);
    free(cpath);
    return -1;
  }
  free(cpath);
  lib_impl* L = (lib_impl*)calloc(1, sizeof(lib_impl));
  char* empty = strdup("");
  if (L == NULL || empty == NULL) {
    free(L);
    free(empty);
    dlclose(dl);
    return tvmffi__raise_oom();
  }
  L->dl = dl;
  L->prefix = empty;
  tvmffi__module* m = library_module_create(L);
  if (m == NULL) return -1;
  tvmffi__any_set_obj(result, &m->header);
  return 0;
}

/* ---- ffi.SystemLib([prefix]) (§13.7) -------------------------------------- */

/* Recursive: a loader run while building one system library may ask for
 * another; the per-prefix singletons live for the rest of the process. */
static pthread_mutex_t g_syslib_lock;
static struct {
  char* prefix;
  tvmffi__module* mod;
}* g_syslibs;
static size_t g_syslibs_size, g_syslibs_cap;

static int g_system_lib(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  const char* f = "ffi.SystemLib";
  TVMFFIByteArray pre = {"", 0};
  if (num_args > 1)
    return tvmffi__raise("TypeError", "%s expects at most 1 argument (prefix), got %d", f,
                         (int)num_args);
  if (num_args == 1 && tvmffi__arg_str(f, args, 0, &pre) != 0) return -1;
  if (memchr(pre.data, '\0', pre.size) != NULL)
    return tvmffi__raise("ValueError", "%s: the prefix must not contain NUL bytes", f);
  pthread_mutex_lock(&g_syslib_lock);
  tvmffi__module* m = NULL;
  for (size_t i = 0; i < g_syslibs_size && m == NULL; ++i)
    if (strlen(g_syslibs[i].prefix) == pre.size &&
        memcmp(g_syslibs[i].prefix, pre.data, pre.size) == 0)
      m = g_syslibs[i].mod;
  if (m == NULL) {
    lib_impl* L = (lib_impl*)calloc(1, sizeof(lib_impl));
    char* p1 = (char*)malloc(pre.size + 1);
    char* p2 = (char*)malloc(pre.size + 1);
    if (g_syslibs_size == g_syslibs_cap) {
      size_t cap = g_syslibs_cap ? 2 * g_syslibs_cap : 4;
      void* t = realloc(g_syslibs, cap * sizeof(*g_syslibs));
      if (t != NULL) {
        g_syslibs = t;
        g_syslibs_cap = cap;
      }
    }
    if (L == NULL || p1 == NULL || p2 == NULL || g_syslibs_size == g_syslibs_cap) {
      free(L);
      free(p1);
      free(p2);
      pthread_mutex_unlock(&g_syslib_lock);
      return tvmffi__raise_oom();
    }
    memcpy(p1, pre.data, pre.size);
    p1[pre.size] = '\0';
    memcpy(p2, p1, pre.size + 1);
    L->prefix = p1;
    m = library_module_create(L);
    if (m == NULL) {
      free(p2);
      pthread_mutex_unlock(&g_syslib_lock);
      return -1;
    }
    g_syslibs[g_syslibs_size].prefix = p2;
    g_syslibs[g_syslibs_size].mod = m; /* the cache's reference, never dropped */
    g_syslibs_size++;
  }
  tvmffi__incref(&m->header);
  pthread_mutex_unlock(&g_syslib_lock);
  tvmffi__any_set_obj(result, &m->header);
  return 0;
}

void tvmffi__library_globals_init(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&g_syslib_lock, &attr);
  pthread_mutexattr_destroy(&attr);
  tvmffi__register_global(
      "ffi.Module.load_from_file.so", g_load_so,
      "Loads a shared library with dlopen(RTLD_LAZY | RTLD_LOCAL) as a library module.",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Module\"},{\"type\":"
      "\"ffi.String\"},{\"type\":\"ffi.String\"}]}");
  tvmffi__register_global(
      "ffi.ModuleVisitContextSymbols", g_visit_context_symbols,
      "Calls callback(name, address) for each registered context symbol, in registration "
      "order.",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"None\"},{\"type\":"
      "\"ffi.Function\"}]}");
  tvmffi__register_global(
      "ffi.SystemLib", g_system_lib,
      "The library module over symbols registered with TVMFFIEnvModRegisterSystemLibSymbol "
      "(one per prefix).",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Module\"},{\"type\":"
      "\"ffi.String\"}]}");
}
