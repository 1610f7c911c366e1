/*
 * backtrace.c -- TVMFFIBacktrace (docs/abi.md §9.3, §9.4).
 *
 * The stack is unwound with glibc's backtrace() and symbolised with elfutils
 * libdw (function, file and line) when built with HAVE_LIBDW, else with
 * dladdr (function and library only).  libdw is opened on the first backtrace,
 * not linked: loading it and libelf with the runtime cost every process ~1.2M
 * instructions of relocations (a fifth of `import tvm_ffi`); where it cannot
 * be opened, frames are named through dladdr.  The call runs on every raised error,
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
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <dwarf.h>
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
  bt_key_set = 0; /* a later destructor that captures again re-registers */
}
static void bt_key_init(void) { pthread_key_create(&bt_key, bt_buf_free_at_thread_exit); }

/* ---- symbolisation cache (guarded by sym_mutex) ----------------------- */

/* One printed line.  A return address yields several when the call sits in
 * code inlined into its caller (innermost first, like real frames). */
typedef struct {
  char* func; /* demangled, or NULL */
  char* file; /* source file (libdw) or library path, or NULL */
  int line;
  unsigned char boundary; /* stops the walk when cross_ffi_boundary == 0 */
  unsigned char hidden;   /* FFI plumbing or nothing known: not printed */
} sub_frame;

/* Symbolised in two steps: the symbol name (cheap: symbol tables) decides
 * about boundaries and plumbing; source lines (DWARF, loaded per module on
 * first use) are looked up only for frames that get printed. */
typedef struct {
  uintptr_t pc;     /* 0 = empty slot */
  int incomplete;   /* a string copy failed (out of memory): redo on next use */
  char* name;       /* demangled symbol of the physical frame, or NULL */
  unsigned char name_boundary, name_hidden;
  unsigned char resolved; /* subs filled */
  int nsub;
  sub_frame* subs; /* &one, or a malloc'd array for inlined chains */
  sub_frame one;
} frame_info;

#define CACHE_BITS 12
#define CACHE_SIZE (1u << CACHE_BITS)
static frame_info cache[CACHE_SIZE];
static unsigned cache_used;
static pthread_mutex_t sym_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long seen_adds, seen_subs;
static int session_valid;

#ifdef HAVE_LIBDW
/* The libdw functions used, called as DW(name)(...) through pointers that
 * dw_load fills from the library opened at run time. */
#define DW_FUNCS(X)               \
  X(dwfl_begin)                   \
  X(dwfl_end)                     \
  X(dwfl_report_begin)            \
  X(dwfl_report_end)              \
  X(dwfl_linux_proc_report)       \
  X(dwfl_linux_proc_find_elf)     \
  X(dwfl_standard_find_debuginfo) \
  X(dwfl_addrmodule)              \
  X(dwfl_module_addrname)         \
  X(dwfl_module_addrdie)          \
  X(dwfl_module_getsrc)           \
  X(dwfl_lineinfo)                \
  X(dwarf_attr)                   \
  X(dwarf_attr_integrate)         \
  X(dwarf_formstring)             \
  X(dwarf_formudata)              \
  X(dwarf_getsrcfiles)            \
  X(dwarf_filesrc)                \
  X(dwarf_getscopes)              \
  X(dwarf_getscopes_die)          \
  X(dwarf_tag)
#define DW_PTR(name) static __typeof__(name)* dw_##name;
DW_FUNCS(DW_PTR)
#define DW(name) (*dw_##name)
static int dw_state; /* 0: not tried yet, 1: loaded, -1: unavailable */

static Dwfl* dwfl;
static char* debuginfo_path;
static Dwfl_Callbacks dwfl_callbacks = {.debuginfo_path = &debuginfo_path};

/* Opens libdw once (under sym_mutex); 1 when its functions can be called. */
static int dw_load(void) {
  if (dw_state != 0) return dw_state > 0;
  dw_state = -1;
  void* h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h == NULL) return 0;
  void* sym;
#define DW_SYM(name)                             \
  if ((sym = dlsym(h, #name)) == NULL) return 0; \
  memcpy(&dw_##name, &sym, sizeof(sym));
  DW_FUNCS(DW_SYM)
  dwfl_callbacks.find_elf = dw_dwfl_linux_proc_find_elf;
  dwfl_callbacks.find_debuginfo = dw_dwfl_standard_find_debuginfo;
  dw_state = 1;
  return 1;
}
#endif

typedef char* (*demangle_fn)(const char*, char*, size_t*, int*);
static demangle_fn demangler;

static void frame_free_lines(frame_info* f) {
  for (int j = 0; j < f->nsub; ++j) {
    free(f->subs[j].func);
    free(f->subs[j].file);
  }
  if (f->subs != &f->one) free(f->subs);
  f->subs = NULL;
  f->nsub = 0;
  f->resolved = 0;
}

static void frame_free(frame_info* f) {
  frame_free_lines(f);
  free(f->name);
  f->name = NULL;
  f->incomplete = 0;
}

static void cache_clear(void) {
  for (unsigned i = 0; i < CACHE_SIZE; ++i) frame_free(&cache[i]);
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
#ifdef HAVE_LIBDW
  /* Opening libdw loads libraries (its dependencies, and those its
   * constructors open): read the counters after, not before. */
  dw_load();
#endif
  unsigned long long counts[2] = {0, 0};
  dl_iterate_phdr(phdr_counts, counts);
  if (session_valid && counts[0] == seen_adds && counts[1] == seen_subs) return;
  /* An unload may let a new library reuse addresses: forget everything. */
  if (!session_valid || counts[1] != seen_subs) cache_clear();
  seen_adds = counts[0];
  seen_subs = counts[1];
  session_valid = 1;
#ifdef HAVE_LIBDW
  if (dwfl == NULL && dw_load()) dwfl = DW(dwfl_begin)(&dwfl_callbacks);
  if (dwfl != NULL) {
    /* Re-reporting keeps modules whose name and range are unchanged, so their
     * already-loaded debug info survives. */
    DW(dwfl_report_begin)(dwfl);
    DW(dwfl_linux_proc_report)(dwfl, getpid());
    DW(dwfl_report_end)(dwfl, NULL, NULL);
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
         starts_with(func, "PyObject") ||
         /* CPython's builtin-call frames: the Python side of a cffi call (the
          * upstream binding calls from Cython code, which has none of them) */
         starts_with(func, "cfunction_call") || starts_with(func, "cfunction_vectorcall");
}

/* ---- call sites of TVMFFIFunctionCall -------------------------------------
 * On x86-64 TVMFFIFunctionCall tail-jumps to the callee (function.c), so no
 * frame of it marks the boundary.  The frame beyond the boundary is instead
 * the one whose pending call instruction (the bytes before its return
 * address) targets TVMFFIFunctionCall: directly (`call rel32`), through a
 * pointer slot (`call *slot(%rip)`, -fno-plt or a function pointer variable)
 * or through a PLT stub (`jmp *slot(%rip)`, after an optional endbr64 and
 * bnd prefix).  Register-indirect calls cannot be decoded; the Python-side
 * boundary names still stop the walk there.  Every read is first checked to
 * lie in a readable segment of a loaded object. */
#if defined(__x86_64__)
typedef struct {
  uintptr_t lo, hi;
  int ok;
} span_query;

static int span_in_segment(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  span_query* q = (span_query*)data;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (q->lo >= start && q->hi <= start + ph->p_memsz) {
      q->ok = 1;
      return 1;
    }
  }
  return 0;
}

static int readable(uintptr_t addr, size_t n) {
  span_query q = {addr, addr + n, 0};
  if (addr == 0 || q.hi < addr) return 0;
  dl_iterate_phdr(span_in_segment, &q);
  return q.ok;
}

/* The pointer stored at slot, or 0. */
static uintptr_t load_slot(uintptr_t slot) {
  uintptr_t v = 0;
  if (readable(slot, sizeof(v))) memcpy(&v, (const void*)slot, sizeof(v));
  return v;
}

static int32_t read_i32(const unsigned char* p) {
  int32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

/* Where the call instruction ending at ret goes, or 0 when not decodable. */
static uintptr_t call_target(uintptr_t ret) {
  if (!readable(ret - 6, 6)) return 0;
  const unsigned char* p = (const unsigned char*)ret;
  if (p[-5] == 0xe8) return ret + (uintptr_t)(intptr_t)read_i32(p - 4);
  if (p[-6] == 0xff && p[-5] == 0x15) return load_slot(ret + (uintptr_t)(intptr_t)read_i32(p - 4));
  return 0;
}

/* The function a PLT stub at t jumps to, or t itself when it is no stub. */
static uintptr_t through_plt(uintptr_t t) {
  if (!readable(t, 12)) return t;
  const unsigned char* p = (const unsigned char*)t;
  uintptr_t at = t;
  if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) at += 4; /* endbr64 */
  p = (const unsigned char*)at;
  size_t len = 6;
  if (p[0] == 0xf2) { /* bnd */
    ++p;
    len = 7;
  }
  if (p[0] != 0xff || p[1] != 0x25) return t;
  uintptr_t target = load_slot(at + len + (uintptr_t)(intptr_t)read_i32(p + 2));
  return target ? target : t;
}

static int calls_function_call(uintptr_t ret) {
  uintptr_t self = (uintptr_t)&TVMFFIFunctionCall;
  uintptr_t t = call_target(ret);
  return t != 0 && (t == self || through_plt(t) == self);
}
#else
static int calls_function_call(uintptr_t ret) {
  (void)ret;
  return 0; /* the frame of TVMFFIFunctionCall is kept and named */
}
#endif

static int is_hidden(const char* func, const char* file) {
  if (func == NULL && file == NULL) return 1;
  static const char* const func_prefixes[] = {
      "tvm::ffi::Function", "tvm::ffi::details::", "TVMFFIBacktrace",
      /* the same C++ plumbing as our headers name it (inline namespace cimpl) */
      "tvm::ffi::cimpl::Function", "tvm::ffi::cimpl::details::", "TVMFFIErrorSetRaisedFromCStr",
      "__libc_", "ffi_call_",
      /* our own raise plumbing, the C counterpart of the C++ entries above */
      "tvmffi__raise", "tvmffi__vraise",
      /* Python binding plumbing: cffi's generated wrappers, our binding's C
       * helpers (ffipy_*), and upstream's (TVMFFIPy* / TVMFFICy*) */
      "_cffi_f_", "ffipy_", "TVMFFIPy", "TVMFFICy",
      /* cffi's ABI-mode call and callback trampolines (_cffi_backend, libffi) */
      "cffistatic_", "cdata_call", "cffi_call_python", "general_invoke_callback", "ffi_closure_"};
  for (size_t i = 0; i < sizeof(func_prefixes) / sizeof(func_prefixes[0]); ++i)
    if (starts_with(func, func_prefixes[i])) return 1;
  static const char* const file_parts[] = {"include/tvm/ffi/error.h", "function_details.h",
                                           "function.h", "any.h", "include/c++/"};
  for (size_t i = 0; file && i < sizeof(file_parts) / sizeof(file_parts[0]); ++i)
    if (strstr(file, file_parts[i]) != NULL) return 1;
  return 0;
}

static int same_str(const char* a, const char* b) {
  return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Whether `sig` (a supplied signature such as "void ns::f(int)") names the
 * function `name` ("ns::f(int)"): equal, or `name` after the return type. */
static int names_function(const char* sig, const char* name) {
  if (sig == NULL || name == NULL) return 0;
  size_t ls = strlen(sig), ln = strlen(name);
  if (ln == 0 || ln > ls || strcmp(sig + ls - ln, name) != 0) return 0;
  return ln == ls || sig[ls - ln - 1] == ' ';
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

static int copy_failed; /* set by sub_set when a strdup ran out of memory */

static void sub_set(sub_frame* sf, const char* func, const char* file, int line) {
  sf->func = demangle(func);
  sf->file = dup_or_null(file);
  if ((func != NULL && sf->func == NULL) || (file != NULL && sf->file == NULL)) copy_failed = 1;
  sf->line = line;
  sf->boundary = (unsigned char)is_boundary(sf->func);
  sf->hidden = (unsigned char)is_hidden(sf->func, sf->file);
}

#ifdef HAVE_LIBDW
/* Name of a function DIE: the linkage (mangled) name when present, so C++
 * names come out qualified after demangling. */
static const char* die_func_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = NULL;
  if (DW(dwarf_attr_integrate)(die, DW_AT_linkage_name, &attr) != NULL ||
      DW(dwarf_attr_integrate)(die, DW_AT_MIPS_linkage_name, &attr) != NULL)
    name = DW(dwarf_formstring)(&attr);
  if (name == NULL && DW(dwarf_attr_integrate)(die, DW_AT_name, &attr) != NULL)
    name = DW(dwarf_formstring)(&attr);
  return name;
}

/* Call site (file, line) recorded on an inlined-subroutine DIE. */
static void die_call_site(Dwarf_Die* cu, Dwarf_Die* die, const char** file, int* line) {
  Dwarf_Attribute attr;
  Dwarf_Word v;
  *file = NULL;
  *line = 0;
  if (DW(dwarf_attr)(die, DW_AT_call_line, &attr) != NULL && DW(dwarf_formudata)(&attr, &v) == 0)
    *line = (int)v;
  Dwarf_Files* files;
  size_t nfiles;
  if (DW(dwarf_attr)(die, DW_AT_call_file, &attr) != NULL && DW(dwarf_formudata)(&attr, &v) == 0 &&
      DW(dwarf_getsrcfiles)(cu, &files, &nfiles) == 0 && v < nfiles)
    *file = DW(dwarf_filesrc)(files, (size_t)v, NULL, NULL);
}

/* Fills f with the inline chain at addr; returns 0 when there is none. */
static int symbolize_inlined(Dwfl_Module* mod, uintptr_t addr, const char* sym, const char* file,
                             int line, frame_info* f) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = DW(dwfl_module_addrdie)(mod, (Dwarf_Addr)addr, &bias);
  if (cu == NULL) return 0;
  Dwarf_Die* scopes = NULL;
  int n = DW(dwarf_getscopes)(cu, (Dwarf_Addr)addr - bias, &scopes);
  if (n <= 0) {
    free(scopes);
    return 0;
  }
  /* dwarf_getscopes continues into the abstract definition of an inlined
   * function; the physical nesting (who inlined whom) comes from the parents
   * of the innermost DIE. */
  Dwarf_Die innermost = scopes[0];
  free(scopes);
  scopes = NULL;
  n = DW(dwarf_getscopes_die)(&innermost, &scopes);
  int m = 0; /* inlined scopes, innermost first, before the enclosing function */
  while (m < n && DW(dwarf_tag)(&scopes[m]) != DW_TAG_subprogram) ++m;
  int inlined = 0;
  for (int i = 0; i < m; ++i) inlined += DW(dwarf_tag)(&scopes[i]) == DW_TAG_inlined_subroutine;
  if (inlined == 0) {
    free(scopes);
    return 0;
  }
  sub_frame* subs = (sub_frame*)calloc((size_t)inlined + 1, sizeof(sub_frame));
  if (subs == NULL) {
    free(scopes);
    copy_failed = 1; /* fall back to one line now, retry the chain later */
    return 0;
  }
  int k = 0;
  for (int i = 0; i < m; ++i) {
    if (DW(dwarf_tag)(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    sub_set(&subs[k++], die_func_name(&scopes[i]), file, line);
    die_call_site(cu, &scopes[i], &file, &line); /* location in the next outer one */
  }
  if (sym == NULL && m < n) sym = die_func_name(&scopes[m]);
  sub_set(&subs[k++], sym, file, line);
  free(scopes);
  f->subs = subs;
  f->nsub = k;
  return 1;
}
#endif

/* libdw reads a module's line table with up to ~130 KiB of line records on the
 * stack (and its symbol table less, but not little).  A thread with less than
 * this left (a small thread stack; deep callback recursion being refused with
 * RecursionError) names frames through dladdr instead and leaves the cache
 * entry incomplete, so that a later capture with room looks again. */
#ifdef HAVE_LIBDW
#define LIBDW_STACK_NEED (320 * 1024)

static _Thread_local uintptr_t stack_lo; /* this thread's lowest stack address */
static _Thread_local int stack_lo_known;

static int libdw_stack_room(void) {
  if (!stack_lo_known) {
    stack_lo_known = 1;
    pthread_attr_t attr;
    void* lo = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &lo, &size) == 0) stack_lo = (uintptr_t)lo;
      pthread_attr_destroy(&attr);
    }
  }
  char here;
  int room = stack_lo == 0 || (uintptr_t)&here - stack_lo >= LIBDW_STACK_NEED;
  if (!room) copy_failed = 1; /* retry this entry with libdw later */
  return room;
}
#endif

/* The raw (mangled) symbol at addr, borrowed; NULL when unknown. */
static const char* raw_symbol(uintptr_t addr) {
  const char* func = NULL;
#ifdef HAVE_LIBDW
  Dwfl_Module* mod =
      dwfl && libdw_stack_room() ? DW(dwfl_addrmodule)(dwfl, (Dwarf_Addr)addr) : NULL;
  if (mod != NULL) func = DW(dwfl_module_addrname)(mod, (Dwarf_Addr)addr);
#endif
  Dl_info info;
  if (func == NULL && dladdr((void*)addr, &info) != 0) func = info.dli_sname;
  return func;
}

/* Step one: the symbol name and what it implies. */
static void symbolize_name(uintptr_t addr, frame_info* f) {
  const char* raw = raw_symbol(addr);
  f->name = demangle(raw);
  if (raw != NULL && f->name == NULL) copy_failed = 1;
  /* addr is the return address minus one (the call itself) */
  f->name_boundary = (unsigned char)(is_boundary(f->name) || calls_function_call(addr + 1));
  /* Hidden plumbing (e.g. __libc_start_call_main) never needs its lines,
   * whose lookup would load and decompress that module's DWARF (~100 ms for
   * libc when its debug package is installed). */
  f->name_hidden = (unsigned char)(f->name != NULL && is_hidden(f->name, ""));
}

/* Step two: function, file and line of every printed line (strings owned by
 * f). */
static void symbolize(uintptr_t addr, frame_info* f) {
  const char* func = NULL;
  const char* file = NULL;
  int line = 0;
  f->subs = &f->one;
  f->nsub = 1;
  f->resolved = 1;
#ifdef HAVE_LIBDW
  Dwfl_Module* mod =
      dwfl && libdw_stack_room() ? DW(dwfl_addrmodule)(dwfl, (Dwarf_Addr)addr) : NULL;
  if (mod != NULL) {
    func = DW(dwfl_module_addrname)(mod, (Dwarf_Addr)addr);
    Dwfl_Line* l = DW(dwfl_module_getsrc)(mod, (Dwarf_Addr)addr);
    if (l != NULL) file = DW(dwfl_lineinfo)(l, NULL, &line, NULL, NULL, NULL);
    if (file != NULL && symbolize_inlined(mod, addr, func, file, line, f)) return;
  }
#endif
  int have_line = file != NULL;
  Dl_info info;
  if ((func == NULL || file == NULL) && dladdr((void*)addr, &info) != 0) {
    if (func == NULL) func = info.dli_sname;
    if (file == NULL) {
      file = info.dli_fname; /* no line info: name the library instead */
      line = 0;
    }
  }
  sub_set(&f->one, func, file, line);
  /* Neither a symbol nor a source line (static code of a stripped library):
   * the library name alone says nothing useful, as upstream omits it. */
  if (func == NULL && !have_line) f->one.hidden = 1;
}

/* The cache entry of addr with its name step done (under sym_mutex).  The
 * pointer is valid until the next lookup. */
static frame_info* lookup(uintptr_t addr) {
  unsigned h = (unsigned)((addr * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - CACHE_BITS));
  for (unsigned probe = 0; probe < CACHE_SIZE; ++probe) {
    frame_info* f = &cache[(h + probe) & (CACHE_SIZE - 1)];
    if (f->pc == addr && !f->incomplete) return f;
    if (f->pc == addr || f->pc == 0) {
      if (f->pc == 0) {
        if (cache_used >= CACHE_SIZE * 3 / 4) {
          cache_clear(); /* full: start over rather than grow */
          return lookup(addr);
        }
        f->pc = addr;
        ++cache_used;
      } else {
        frame_free(f); /* an earlier attempt ran out of memory: retry */
      }
      copy_failed = 0;
      symbolize_name(addr, f);
      f->incomplete = copy_failed;
      return f;
    }
  }
  return NULL;
}

/* Runs step two on f if not done yet. */
static void resolve(frame_info* f) {
  if (f->resolved) return;
  copy_failed = 0;
  symbolize(f->pc, f);
  if (copy_failed) f->incomplete = 1;
}

/* A child forked while another thread held sym_mutex would deadlock on its
 * first backtrace: hold the mutex across fork(). */
static void fork_prepare(void) { pthread_mutex_lock(&sym_mutex); }
static void fork_release(void) { pthread_mutex_unlock(&sym_mutex); }
__attribute__((constructor)) static void backtrace_setup(void) {
  pthread_atfork(fork_prepare, fork_release, fork_release);
}

__attribute__((destructor)) static void backtrace_cleanup(void) {
  pthread_mutex_lock(&sym_mutex);
  if (session_valid) cache_clear(); /* (~400K instructions at every exit otherwise) */
#ifdef HAVE_LIBDW
  if (dwfl != NULL) DW(dwfl_end)(dwfl);
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

static int sym_lock(void) {
  if (pthread_mutex_trylock(&sym_mutex) == 0) return 0;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 2;
  return pthread_mutex_timedlock(&sym_mutex, &deadline);
}

/* Our C++ headers keep their classes in the inline namespace tvm::ffi::cimpl
 * so they never clash with upstream-built C++ symbols in the same process;
 * users write (and expect to read) tvm::ffi::String, so the inline namespace
 * is dropped from printed names. */
static void emit_func(tvmffi__buf* b, const char* func) {
  static const char kInline[] = "tvm::ffi::cimpl::";
  const size_t keep = sizeof("tvm::ffi::") - 1, skip = sizeof(kInline) - 1;
  const char* hit;
  while ((hit = strstr(func, kInline)) != NULL) {
    tvmffi__buf_append(b, func, (size_t)(hit - func) + keep);
    func = hit + skip;
  }
  tvmffi__buf_append(b, func, strlen(func));
}

static void emit(tvmffi__buf* b, const char* file, int line, const char* func) {
  tvmffi__buf_printf(b, "  File \"%s\", line %d, in ", file ? file : "<unknown>", line);
  emit_func(b, func ? func : "<unknown>");
  tvmffi__buf_append(b, "\n", 1);
}

static const TVMFFIByteArray empty_result = {"", 0};

/* Writes the lines of pcs[0..n) (innermost first; pcs[0] in TVMFFIBacktrace)
 * to b, at most `limit` of them, the supplied line first.  Returns 1 when the
 * frames ran out before the limit or the FFI boundary was reached: a longer
 * capture could print more. */
static int render(tvmffi__buf* b, void** pcs, int n, const char* filename, int lineno,
                  const char* func, int cross_ffi_boundary, long limit) {
  b->size = 0;
  if (b->data) b->data[0] = '\0';
  long lines = 0;
  int supplied = filename != NULL && func != NULL && limit > 0;
  if (supplied) {
    emit(b, filename, lineno, func);
    ++lines;
  }
  int ran_out = 0;
  /* Bounded wait: symbolising may take the loader lock (dladdr), which a
   * thread raising from a library constructor holds while it waits for us.
   * Rather than deadlock, such a capture gives up on native frames. */
  if (n > 0 && sym_lock() == 0) {
    session_refresh();
    /* Start after this function's own frame.  Normally pcs[0], but an
     * interposed backtrace() (sanitizers) adds frames in front of it. */
    int start = 1;
    for (int i = 0; i < n && i < 8; ++i) {
      const frame_info* f = lookup((uintptr_t)pcs[i] - 1);
      if (f != NULL && f->name != NULL && strcmp(f->name, "TVMFFIBacktrace") == 0) {
        start = i + 1;
        break;
      }
    }
    if (supplied) ++start; /* the caller's own frame is the supplied line */
    /* When the caller was out-of-line plumbing (C++ throw helpers), the first
     * printed frame is the throwing function itself: already the supplied line. */
    int drop_supplied_twin = supplied;
    int i = start;
    for (; i < n && lines < limit; ++i) {
      /* A return address points after the call: look up the call itself. */
      frame_info* f = lookup((uintptr_t)pcs[i] - 1);
      if (f == NULL) continue;
      if (!cross_ffi_boundary && f->name_boundary) goto done;
      if (f->name_hidden) continue;
      resolve(f);
      for (int j = 0; j < f->nsub && lines < limit; ++j) {
        const sub_frame* sf = &f->subs[j];
        if (!cross_ffi_boundary && sf->boundary) goto done;
        if (sf->hidden) continue;
        if (drop_supplied_twin) {
          drop_supplied_twin = 0;
          if (names_function(func, sf->func)) continue;
        }
        /* GCC may describe a function as inlined into its own out-of-line
         * copy (an entry wrapper around the body): one source frame. */
        if (j > 0 && same_str(sf->func, f->subs[j - 1].func) &&
            same_str(sf->file, f->subs[j - 1].file))
          continue;
        emit(b, sf->file, sf->line, sf->func);
        ++lines;
      }
    }
    ran_out = i >= n && lines < limit;
  done:
    pthread_mutex_unlock(&sym_mutex);
  }
  return ran_out;
}

__attribute__((noinline)) TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(
    const char* filename, int lineno, const char* func, int cross_ffi_boundary) {
  void* stack_pcs[STACK_PCS];
  long limit = traceback_limit();
  if (!bt_key_set) {
    pthread_once(&bt_key_once, bt_key_init);
    pthread_setspecific(bt_key, (void*)1);
    bt_key_set = 1;
  }
  tvmffi__buf* b = &bt_buf;
  /* The capture starts at `limit` frames and a margin for the runtime's own;
   * where frames without a name (static functions, when only dladdr can name
   * them) used that up, it is taken again four times as deep. */
  int want = (int)(limit + 16 < MAX_PCS ? limit + 16 : MAX_PCS);
  void** pcs = stack_pcs;
  for (;;) {
    if (want > STACK_PCS && pcs == stack_pcs) {
      pcs = (void**)malloc(sizeof(void*) * MAX_PCS);
      if (pcs == NULL) {
        pcs = stack_pcs;
        want = STACK_PCS;
      }
    }
    int n = limit > 0 ? backtrace(pcs, want) : 0;
    if (!render(b, pcs, n, filename, lineno, func, cross_ffi_boundary, limit) || n < want ||
        want >= MAX_PCS || (pcs == stack_pcs && want >= STACK_PCS))
      break;
    want = want * 4 < MAX_PCS ? want * 4 : MAX_PCS;
  }
  if (pcs != stack_pcs) free(pcs);
  if (b->data == NULL) return &empty_result; /* nothing written or out of memory */
  bt_result.data = b->data;
  bt_result.size = b->size;
  return &bt_result;
}
