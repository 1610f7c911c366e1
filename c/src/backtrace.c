/*
 * backtrace.c -- TVMFFIBacktrace (abi.md §9.3, §9.4).
 *
 * The stack is unwound with glibc's backtrace() and symbolised with elfutils
 * libdw (function, file and line) when built with HAVE_LIBDW, else with
 * dladdr (function and library only).  The call runs on every raised error,
 * so symbolised frames are cached per return address and the Dwfl session is
 * kept for the process, refreshed only when the set of loaded libraries
 * changes (glibc's dlpi_adds / dlpi_subs counters).  Never fails: on any
 * internal problem fewer lines are returned.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "internal.h"

#define DEFAULT_LIMIT 512
#define STACK_PCS 128
#define MAX_PCS 4096

/* ---- the per-thread result ------------------------------------------- */

static _Thread_local tvmffi__buf bt_buf;
static _Thread_local TVMFFIByteArray bt_result;
static _Thread_local int bt_key_set;
static pthread_key_t bt_key;
static pthread_once_t bt_key_once = PTHREAD_ONCE_INIT;

static void bt_buf_free_at_thread_exit(void* unused) {
  (void)unused;
  tvmffi__buf_free(&bt_buf);
}
static void bt_key_init(void) { pthread_key_create(&bt_key, bt_buf_free_at_thread_exit); }

/* ---- symbolisation cache (guarded by sym_mutex) ----------------------- */

typedef struct {
  uintptr_t pc; /* 0 = empty slot */
  char* func;   /* demangled, or NULL */
  char* file;   /* source file (libdw) or library path, or NULL */
  int line;
  unsigned char boundary; /* stops the walk when cross_ffi_boundary == 0 */
  unsigned char hidden;   /* FFI plumbing or nothing known: not printed */
} frame_info;

#define CACHE_BITS 12
#define CACHE_SIZE (1u << CACHE_BITS)
static frame_info cache[CACHE_SIZE];
static unsigned cache_used;
static pthread_mutex_t sym_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds, seen_subs;
static int session_valid;

#ifdef HAVE_LIBDW
static Dwfl* dwfl;
static char* debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};
#endif

typedef char* (*demangle_fn)(const char*, char*, size_t*, int*);
static demangle_fn demangler;

static void cache_clear(void) {
  for (unsigned i = 0; i < CACHE_SIZE; ++i) {
    free(cache[i].func);
    free(cache[i].file);
  }
  memset(cache, 0, sizeof(cache));
  cache_used = 0;
}

static int phdr_counts(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  unsigned long long* out = (unsigned long long*)data;
  out[0] = info->dlpi_adds;
  out[1] = info->dlpi_subs;
  return 1; /* the counters are global: the first entry is enough */
}

/* Brings the session up to date with the loaded libraries. */
static void session_refresh(void) {
  unsigned long long counts[2] = {0, 0};
  dl_iterate_phdr(phdr_counts, counts);
  if (session_valid && counts[0] == seen_adds && counts[1] == seen_subs) return;
  /* An unload may let a new library reuse addresses: forget everything. */
  if (!session_valid || counts[1] != seen_subs) cache_clear();
  seen_adds = counts[0];
  seen_subs = counts[1];
  session_valid = 1;
#ifdef HAVE_LIBDW
  if (dwfl == NULL) dwfl = dwfl_begin(&dwfl_callbacks);
  if (dwfl != NULL) {
    /* Re-reporting keeps modules whose name and range are unchanged, so their
     * already-loaded debug info survives. */
    dwfl_report_begin(dwfl);
    dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, NULL, NULL);
  }
#endif
  /* __cxa_demangle is there whenever a C++ program or library is loaded;
   * looking it up at run time keeps libstdc++ out of our dependencies. */
  if (demangler == NULL) {
    void* sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    memcpy(&demangler, &sym, sizeof(demangler));
  }
}

static int starts_with(const char* s, const char* prefix) {
  return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_boundary(const char* func) {
  return starts_with(func, "TVMFFIFunctionCall") || starts_with(func, "slot_tp_call") ||
         starts_with(func, "object_is_not_callable") || starts_with(func, "_Py") ||
         starts_with(func, "PyObject");
}

static int is_hidden(const char* func, const char* file) {
  if (func == NULL && file == NULL) return 1;
  static const char* const func_prefixes[] = {
      "tvm::ffi::Function", "tvm::ffi::details::", "TVMFFIBacktrace",
      "TVMFFIErrorSetRaisedFromCStr", "__libc_", "ffi_call_",
      /* our own raise plumbing, the C counterpart of the C++ entries above */
      "tvmffi__raise", "tvmffi__vraise"};
  for (size_t i = 0; i < sizeof(func_prefixes) / sizeof(func_prefixes[0]); ++i)
    if (starts_with(func, func_prefixes[i])) return 1;
  static const char* const file_parts[] = {"include/tvm/ffi/error.h", "function_details.h",
                                           "function.h", "any.h", "include/c++/"};
  for (size_t i = 0; file && i < sizeof(file_parts) / sizeof(file_parts[0]); ++i)
    if (strstr(file, file_parts[i]) != NULL) return 1;
  return 0;
}

static char* dup_or_null(const char* s) { return s ? strdup(s) : NULL; }

static char* demangle(const char* name) {
  if (name == NULL) return NULL;
  if (demangler != NULL && name[0] == '_' && name[1] == 'Z') {
    int status = -1;
    char* d = demangler(name, NULL, NULL, &status);
    if (d != NULL && status == 0) return d;
    free(d);
  }
  return strdup(name);
}

/* Symbolises one address into *f (strings owned by f). */
static void symbolize(uintptr_t addr, frame_info* f) {
  const char* func = NULL;
  const char* file = NULL;
  int line = 0;
#ifdef HAVE_LIBDW
  Dwfl_Module* mod = dwfl ? dwfl_addrmodule(dwfl, (Dwarf_Addr)addr) : NULL;
  if (mod != NULL) {
    func = dwfl_module_addrname(mod, (Dwarf_Addr)addr);
    Dwfl_Line* l = dwfl_module_getsrc(mod, (Dwarf_Addr)addr);
    if (l != NULL) file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
  }
#endif
  Dl_info info;
  if ((func == NULL || file == NULL) && dladdr((void*)addr, &info) != 0) {
    if (func == NULL) func = info.dli_sname;
    if (file == NULL) {
      file = info.dli_fname; /* no line info: name the library instead */
      line = 0;
    }
  }
  f->func = demangle(func);
  f->file = dup_or_null(file);
  f->line = line;
  f->boundary = (unsigned char)is_boundary(f->func);
  f->hidden = (unsigned char)is_hidden(f->func, f->file);
}

static const frame_info* lookup(uintptr_t addr) {
  unsigned h = (unsigned)((addr * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CACHE_BITS));
  for (unsigned probe = 0; probe < CACHE_SIZE; ++probe) {
    frame_info* f = &cache[(h + probe) & (CACHE_SIZE - 1)];
    if (f->pc == addr) return f;
    if (f->pc == 0) {
      if (cache_used >= CACHE_SIZE * 3 / 4) {
        cache_clear(); /* full: start over rather than grow */
        return lookup(addr);
      }
      f->pc = addr;
      ++cache_used;
      symbolize(addr, f);
      return f;
    }
  }
  return NULL;
}

__attribute__((destructor)) static void backtrace_cleanup(void) {
  pthread_mutex_lock(&sym_mutex);
  cache_clear();
#ifdef HAVE_LIBDW
  if (dwfl != NULL) dwfl_end(dwfl);
  dwfl = NULL;
#endif
  session_valid = 0;
  pthread_mutex_unlock(&sym_mutex);
  tvmffi__buf_free(&bt_buf); /* the main thread's buffer */
}

/* ---- the entry point ---------------------------------------------------- */

static long traceback_limit(void) {
  const char* s = getenv("TVM_TRACEBACK_LIMIT");
  if (s == NULL || *s == '\0') return DEFAULT_LIMIT;
  char* end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0') return DEFAULT_LIMIT;
  return v < 0 ? 0 : v;
}

static void emit(tvmffi__buf* b, const char* file, int line, const char* func) {
  tvmffi__buf_printf(b, "  File \"%s\", line %d, in %s\n", file ? file : "<unknown>", line,
                     func ? func : "<unknown>");
}

static const TVMFFIByteArray empty_result = {"", 0};

__attribute__((noinline)) TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(
    const char* filename, int lineno, const char* func, int cross_ffi_boundary) {
  void* stack_pcs[STACK_PCS];
  long limit = traceback_limit();
  int want = (int)(limit + 16 < MAX_PCS ? limit + 16 : MAX_PCS);
  void** pcs = stack_pcs;
  if (want > STACK_PCS) {
    pcs = (void**)malloc(sizeof(void*) * (size_t)want);
    if (pcs == NULL) {
      pcs = stack_pcs;
      want = STACK_PCS;
    }
  }
  /* pcs[0] is in this function, pcs[1] in its caller. */
  int n = limit > 0 ? backtrace(pcs, want) : 0;

  if (!bt_key_set) {
    pthread_once(&bt_key_once, bt_key_init);
    pthread_setspecific(bt_key, (void*)1);
    bt_key_set = 1;
  }
  tvmffi__buf* b = &bt_buf;
  b->size = 0;
  if (b->data) b->data[0] = '\0';
  long lines = 0;
  int first = 1;
  if (filename != NULL && func != NULL && limit > 0) {
    emit(b, filename, lineno, func);
    ++lines;
    first = 2; /* the caller's own frame is the line just written */
  }
  if (n > first) {
    pthread_mutex_lock(&sym_mutex);
    session_refresh();
    for (int i = first; i < n && lines < limit; ++i) {
      /* A return address points after the call: look up the call itself. */
      const frame_info* f = lookup((uintptr_t)pcs[i] - 1);
      if (f == NULL) continue;
      if (!cross_ffi_boundary && f->boundary) break;
      if (f->hidden) continue;
      emit(b, f->file, f->line, f->func);
      ++lines;
    }
    pthread_mutex_unlock(&sym_mutex);
  }
  if (pcs != stack_pcs) free(pcs);
  if (b->data == NULL) return &empty_result; /* nothing written or out of memory */
  bt_result.data = b->data;
  bt_result.size = b->size;
  return &bt_result;
}
