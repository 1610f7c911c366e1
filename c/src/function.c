/*
 * function.c -- ffi.Function objects, TVMFFIFunctionCall and the global
 * function registry (docs/abi.md §7.3, §8, §10.3).
 *
 * Functions released by override/removal are dropped after the registry
 * lock is gone, because their deleters may call back into the registry.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- function objects ---------------------------------------------------- */

/* Layout of functions made here: header, cell, then upstream's trampoline
 * implementation area (self +40, fn +48, deleter +56). */
typedef struct {
  TVMFFIObject header;
  TVMFFIFunctionCell cell;
  void* self;
  TVMFFISafeCallType fn;
  void (*deleter)(void* self);
} func_obj;

static int func_trampoline(void* handle, const TVMFFIAny* args, int32_t num_args,
                           TVMFFIAny* result) {
  func_obj* f = (func_obj*)handle;
  return f->fn(f->self, args, num_args, result);
}

static void func_deleter(void* self, int flags) {
  func_obj* f = (func_obj*)self;
  if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && f->deleter != NULL) {
    void (*deleter)(void*) = f->deleter;
    f->deleter = NULL; /* exactly once, even if flags arrive split */
    deleter(f->self);
  }
  tvmffi__object_deleter_plain(self, flags);
}

int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call, void (*deleter)(void* self),
                         TVMFFIObjectHandle* out) {
  if (safe_call == NULL)
    return tvmffi__raise("ValueError", "TVMFFIFunctionCreate: safe_call must not be NULL");
  if (out == NULL) return tvmffi__raise("ValueError", "TVMFFIFunctionCreate: out is NULL");
  /* Without a deleter there is nothing but the block to free. */
  func_obj* f = (func_obj*)tvmffi__object_alloc_uninit(
      sizeof(func_obj), kTVMFFIFunction,
      deleter == NULL ? tvmffi__object_deleter_plain : func_deleter);
  if (f == NULL) return -1;
  f->self = self;
  f->fn = safe_call;
  f->deleter = deleter;
  /* Without self/deleter the callee gets the function handle itself. */
  f->cell.safe_call = (self == NULL && deleter == NULL) ? safe_call : func_trampoline;
  f->cell.cpp_call = NULL; /* never a C++ fast path from this runtime */
  *out = f;
  return 0;
}

void* tvmffi__function_self_of(TVMFFIObjectHandle func, TVMFFISafeCallType fn) {
  func_obj* f = (func_obj*)func;
  return f->header.type_index == kTVMFFIFunction && f->cell.safe_call == func_trampoline &&
                 f->fn == fn
             ? f->self
             : NULL;
}

TVMFFI__COLD int tvmffi__function_call_misuse(TVMFFIObjectHandle func) {
  if (func == NULL) return tvmffi__raise("ValueError", "TVMFFIFunctionCall: func is NULL");
  return tvmffi__raise("TypeError", "TVMFFIFunctionCall: expected `ffi.Function` but got `%s`",
                       tvmffi__type_key(((TVMFFIObject*)func)->type_index));
}

/* The backtrace boundary (docs/abi.md §9.3): where the compiler keeps this
 * frame, its name marks it; on x86-64 the call is a tail jump and
 * backtrace.c recognises the caller's call instruction that targets this
 * function instead.
 *
 * No check of `func`, as upstream: the entry is the one indirect jump, so a
 * nop call costs what upstream's does (17 instructions in bench_c; a NULL
 * test and a type-index test made it 21).  `func` must be a live
 * ffi.Function: every caller this project ships checks before it gets here
 * (the Python binding, tvmffi__function_call inside the runtime), and a C
 * caller checks what TVMFFIFunctionGetGlobal gave it (tvm_ffi_function(3)). */
#if defined(__x86_64__)
int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                       TVMFFIAny* result) {
  return TVMFFIFunctionGetCellPtr(func)->safe_call(func, args, num_args, result);
}
#else
__attribute__((noinline)) int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args,
                                                 int32_t num_args, TVMFFIAny* result) {
  int rc = TVMFFIFunctionGetCellPtr(func)->safe_call(func, args, num_args, result);
  __asm__ volatile("" ::: "memory"); /* keeps the call from being a tail call */
  return rc;
}
#endif

/* ---- the global registry -------------------------------------------------- */

/*
 * Lookups (hot, benchmarked) take no lock: the table is open addressing over
 * immutable entries, published with seq_cst stores.  A reader marks itself
 * active in a per-thread record while it probes and takes its reference; a
 * writer that unlinks an entry (or retires a table) waits until every lookup
 * it may race with has ended before freeing it (a minimal RCU grace
 * period).  Writers serialise on g_wlock; listing and metadata reads take it
 * too (they are rare).
 */

typedef struct gentry {
  struct gentry* prev; /* registration order, under g_wlock */
  struct gentry* next;
  uint64_t hash;
  TVMFFIObject* func; /* owned */
  int64_t flags;
  TVMFFIByteArray name; /* owned, NUL-terminated */
  TVMFFIByteArray doc;  /* owned, NUL-terminated or {NULL, 0} */
  TVMFFIByteArray metadata; /* owned, or {NULL, 0} */
  const char* schema; /* static; the runtime's own globals: metadata made on first read */
} gentry;

#define TOMBSTONE ((gentry*)(uintptr_t)1)

typedef struct {
  size_t mask;
  size_t used; /* live entries + tombstones */
  gentry* slots[];
} gtable;

/* One per thread that ever looked something up; reused after thread exit. */
typedef struct reader_rec {
  /* Odd while a lookup is in progress; +1 on outermost entry and exit, so a
   * writer waits for the lookup it saw to end, not for a quiet moment (no
   * starvation by a thread that looks up in a loop). */
  uint64_t seq;
  int64_t depth; /* nesting (e.g. a signal handler); owner thread only */
  int in_use;
  struct reader_rec* next;
} reader_rec;

static pthread_mutex_t g_wlock = PTHREAD_MUTEX_INITIALIZER;
static gtable* g_table;
static size_t g_count; /* live entries, under g_wlock */
static gentry* g_head;
static gentry* g_tail;
static int g_inited;

static reader_rec* g_readers; /* push-only list */
static _Thread_local reader_rec* t_reader;
static pthread_key_t g_reader_key;
static pthread_once_t g_reader_key_once = PTHREAD_ONCE_INIT;

static void reader_release(void* p) {
  reader_rec* r = (reader_rec*)p;
  t_reader = NULL; /* a later lookup in another TLS destructor re-acquires */
  __atomic_store_n(&r->in_use, 0, __ATOMIC_RELEASE);
}

static void reader_key_create(void) {
  if (pthread_key_create(&g_reader_key, reader_release) != 0)
    tvmffi__fatal("cannot create the registry reader key");
}

/* If the library is ever unloaded, exiting threads must not call into
 * unmapped code through the key's destructor. */
__attribute__((destructor)) static void reader_key_delete(void) {
  if (__atomic_load_n(&g_readers, __ATOMIC_ACQUIRE) != NULL) /* the key exists */
    pthread_key_delete(g_reader_key);
}

static TVMFFI__COLD reader_rec* reader_acquire(void) {
  pthread_once(&g_reader_key_once, reader_key_create);
  reader_rec* r;
  for (r = __atomic_load_n(&g_readers, __ATOMIC_ACQUIRE); r != NULL; r = r->next) {
    int expected = 0;
    if (__atomic_compare_exchange_n(&r->in_use, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED))
      break;
  }
  if (r == NULL) {
    r = aligned_alloc(64, 64); /* a cache line of its own */
    if (r == NULL) tvmffi__fatal("out of memory in the global function registry");
    memset(r, 0, 64);
    r->in_use = 1;
    r->next = __atomic_load_n(&g_readers, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&g_readers, &r->next, r, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED)) {
    }
  }
  pthread_setspecific(g_reader_key, r);
  t_reader = r;
  return r;
}

/* fork(): the child must not inherit a held writer lock or the marks of
 * lookups that were in progress in threads it does not have. */
static void fork_prepare(void) { pthread_mutex_lock(&g_wlock); }
static void fork_parent(void) { pthread_mutex_unlock(&g_wlock); }
static void fork_child(void) {
  for (reader_rec* r = g_readers; r != NULL; r = r->next) {
    if (r == t_reader) continue;
    r->in_use = 0;
    r->depth = 0;
    if (r->seq & 1) r->seq++;
  }
  pthread_mutex_unlock(&g_wlock);
}

/* Under g_wlock, after unpublishing something: returns once no lookup that
 * could still see it is in progress. */
static void wait_for_readers(void) {
  for (reader_rec* r = __atomic_load_n(&g_readers, __ATOMIC_ACQUIRE); r; r = r->next) {
    uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_SEQ_CST);
    if (seq & 1)
      while (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) == seq) sched_yield();
  }
}

static char* dup_bytes(const char* data, size_t n) {
  char* p = malloc(n + 1);
  if (p == NULL) return NULL;
  if (n) memcpy(p, data, n);
  p[n] = '\0';
  return p;
}

static void entry_free(gentry* e) {
  if (e == NULL) return;
  tvmffi__decref(e->func);
  free((void*)e->name.data);
  free((void*)e->doc.data);
  free((void*)e->metadata.data);
  free(e);
}

/* The slot holding `name` (its entry in *found), or NULL; *free_slot gets
 * the first reusable slot on the probe path.  Readers and writers both use
 * it; readers must use *found, never re-read the slot. */
static gentry** probe(gtable* t, const char* name, size_t n, uint64_t hash, gentry** found,
                      gentry*** free_slot) {
  gentry** reuse = NULL;
  for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
    gentry* e = __atomic_load_n(&t->slots[i], __ATOMIC_SEQ_CST);
    if (e == NULL) {
      if (free_slot) *free_slot = reuse ? reuse : &t->slots[i];
      return NULL;
    }
    if (e == TOMBSTONE) {
      if (reuse == NULL) reuse = &t->slots[i];
      continue;
    }
    if (e->hash == hash && e->name.size == n && memcmp(e->name.data, name, n) == 0) {
      if (found) *found = e;
      return &t->slots[i];
    }
  }
}

/* Under g_wlock: makes room for one more entry (rebuilding without
 * tombstones when half full).  0 or -1 (OOM, not raised). */
static int reserve_locked(void) {
  gtable* t = g_table;
  if (t != NULL && (t->used + 1) * 2 <= t->mask + 1) return 0;
  size_t cap = 512;
  while (cap < (g_count + 1) * 4) cap *= 2;
  gtable* nt = calloc(1, sizeof(gtable) + cap * sizeof(gentry*));
  if (nt == NULL) return -1;
  nt->mask = cap - 1;
  for (gentry* e = g_head; e != NULL; e = e->next) {
    size_t i = e->hash & nt->mask;
    while (nt->slots[i]) i = (i + 1) & nt->mask;
    nt->slots[i] = e;
  }
  nt->used = g_count;
  __atomic_store_n(&g_table, nt, __ATOMIC_SEQ_CST);
  if (t != NULL) {
    wait_for_readers();
    free(t);
  }
  return 0;
}

/* Registers `func` (borrowed) with copies of the strings. `causes` is
 * appended to the duplicate-name message. */
static int registry_set(const TVMFFIByteArray* name, TVMFFIObject* func, const TVMFFIByteArray* doc,
                        const TVMFFIByteArray* metadata, int64_t flags, int allow_override,
                        const char* causes, const char* schema) {
  gentry* e = calloc(1, sizeof(gentry));
  if (e == NULL) return tvmffi__raise_oom();
  e->name.data = dup_bytes(name->data, name->size);
  e->name.size = name->size;
  if (doc && doc->size) {
    e->doc.data = dup_bytes(doc->data, doc->size);
    e->doc.size = doc->size;
  }
  if (metadata && metadata->size) {
    e->metadata.data = dup_bytes(metadata->data, metadata->size);
    e->metadata.size = metadata->size;
  }
  if (e->name.data == NULL || (doc && doc->size && e->doc.data == NULL) ||
      (metadata && metadata->size && e->metadata.data == NULL)) {
    entry_free(e);
    return tvmffi__raise_oom();
  }
  e->hash = tvmffi__hash_bytes(name->data, name->size);
  e->flags = flags;
  e->schema = schema;
  e->func = func;
  tvmffi__incref(func);

  pthread_mutex_lock(&g_wlock);
  if (reserve_locked() != 0) {
    pthread_mutex_unlock(&g_wlock);
    entry_free(e);
    return tvmffi__raise_oom();
  }
  gentry** free_slot = NULL;
  gentry* old = NULL;
  gentry** slot = probe(g_table, e->name.data, e->name.size, e->hash, &old, &free_slot);
  if (old != NULL && !allow_override) {
    pthread_mutex_unlock(&g_wlock);
    if (causes)
      fprintf(stderr, "tvm_ffi: Global Function `%s` is already registered\n", e->name.data);
    int rc = tvmffi__raise("RuntimeError", "Global Function `%s` is already registered%s",
                           e->name.data, causes ? causes : "");
    entry_free(e);
    return rc;
  }
  if (old != NULL) {
    /* Override: the new entry takes the old one's place, in the table and
     * in the listing order. */
    e->prev = old->prev;
    e->next = old->next;
    if (e->prev)
      e->prev->next = e;
    else
      g_head = e;
    if (e->next)
      e->next->prev = e;
    else
      g_tail = e;
    __atomic_store_n(slot, e, __ATOMIC_SEQ_CST);
    wait_for_readers();
  } else {
    e->prev = g_tail;
    if (g_tail)
      g_tail->next = e;
    else
      g_head = e;
    g_tail = e;
    if (*free_slot == NULL) g_table->used++;
    __atomic_store_n(free_slot, e, __ATOMIC_SEQ_CST);
    g_count++;
  }
  pthread_mutex_unlock(&g_wlock);
  entry_free(old); /* the replaced function's deleter runs outside the lock */
  return 0;
}

/* 1 removed, 0 absent. */
static int registry_remove(const char* name, size_t n) {
  uint64_t hash = tvmffi__hash_bytes(name, n);
  gentry* e = NULL;
  pthread_mutex_lock(&g_wlock);
  gentry** slot = g_table ? probe(g_table, name, n, hash, &e, NULL) : NULL;
  if (slot != NULL) {
    __atomic_store_n(slot, TOMBSTONE, __ATOMIC_SEQ_CST);
    if (e->prev)
      e->prev->next = e->next;
    else
      g_head = e->next;
    if (e->next)
      e->next->prev = e->prev;
    else
      g_tail = e->prev;
    g_count--;
    wait_for_readers();
  }
  pthread_mutex_unlock(&g_wlock);
  entry_free(e);
  return e != NULL;
}

/* Under g_wlock. */
static gentry* find_locked(const char* name, size_t n) {
  gentry* e = NULL;
  if (g_table) probe(g_table, name, n, tvmffi__hash_bytes(name, n), &e, NULL);
  return e;
}

static inline void ensure_init(void) {
  if (TVMFFI__UNLIKELY(!__atomic_load_n(&g_inited, __ATOMIC_ACQUIRE))) tvmffi__ensure_init();
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out) {
  if (TVMFFI__UNLIKELY(name == NULL || out == NULL || (name->data == NULL && name->size)))
    return tvmffi__raise("ValueError", "TVMFFIFunctionGetGlobal: name and out must not be NULL");
  ensure_init();
  uint64_t hash = tvmffi__hash_bytes(name->data, name->size);
  reader_rec* r = t_reader;
  if (TVMFFI__UNLIKELY(r == NULL)) r = reader_acquire();
  uint64_t seq = r->seq; /* only this thread writes it */
  if (r->depth++ == 0) __atomic_store_n(&r->seq, seq + 1, __ATOMIC_SEQ_CST);
  TVMFFIObject* f = NULL;
  gtable* t = __atomic_load_n(&g_table, __ATOMIC_SEQ_CST);
  gentry* e = NULL;
  if (t != NULL && probe(t, name->data, name->size, hash, &e, NULL) != NULL) {
    f = e->func;
    tvmffi__incref(f);
  }
  if (--r->depth == 0) __atomic_store_n(&r->seq, seq + 2, __ATOMIC_RELEASE);
  *out = f;
  return 0;
}

static int check_function(const char* what, TVMFFIObject* f) {
  if (f == NULL) return tvmffi__raise("ValueError", "%s: the function is NULL", what);
  if (f->type_index != kTVMFFIFunction)
    return tvmffi__raise("TypeError", "%s: expected `ffi.Function` but got `%s`", what,
                         tvmffi__type_key(f->type_index));
  return 0;
}

static int check_name(const char* what, const TVMFFIByteArray* name) {
  if (name == NULL || name->data == NULL || name->size == 0)
    return tvmffi__raise("ValueError", "%s: the name must be a non-empty string", what);
  return 0;
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f, int allow_override) {
  ensure_init();
  if (check_name("TVMFFIFunctionSetGlobal", name) ||
      check_function("TVMFFIFunctionSetGlobal", (TVMFFIObject*)f))
    return -1;
  return registry_set(name, (TVMFFIObject*)f, NULL, NULL, kTVMFFIFieldFlagBitMaskIsStaticMethod,
                      allow_override, NULL, NULL);
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info, int allow_override) {
  ensure_init();
  if (method_info == NULL)
    return tvmffi__raise("ValueError", "TVMFFIFunctionSetGlobalFromMethodInfo: info is NULL");
  if (check_name("TVMFFIFunctionSetGlobalFromMethodInfo", &method_info->name)) return -1;
  if (method_info->method.type_index != kTVMFFIFunction)
    return tvmffi__raise("TypeError",
                         "Global Function `%.*s`: method must be an `ffi.Function`, got `%s`",
                         (int)method_info->name.size, method_info->name.data,
                         tvmffi__any_type_key(&method_info->method));
  return registry_set(&method_info->name, method_info->method.v_obj, &method_info->doc,
                      &method_info->metadata, method_info->flags, allow_override,
                      ", possible causes: the same function is registered twice (e.g. two "
                      "libraries define it, or one library is loaded twice)",
                      NULL);
}

/* ---- registration of the runtime's own globals ----------------------------- */

/* Appends s as a JSON string body (without quotes).  Plain characters go in a run at a time:
 * every global's schema passes here when the library loads (part of `import tvm_ffi`). */
static int json_escape(tvmffi__buf* b, const char* s) {
  for (const char* run = s;; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c != 0 && c != '"' && c != '\\' && c >= 0x20) continue;
    if (s > run && tvmffi__buf_append(b, run, (size_t)(s - run)) != 0) return -1;
    if (c == 0) return 0;
    int rc;
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      rc = tvmffi__buf_append(b, esc, 2);
    } else {
      rc = tvmffi__buf_printf(b, "\\u%04x", c);
    }
    if (rc != 0) return -1;
    run = s + 1;
  }
}

/* The runtime writes its schemas compactly as {"type":"ffi.Function","args":[R,P...]}
 * (the 0.1.14 form); what it registers is the 0.1.15 form
 * {"type":"ffi.Function","named_args":{"return":[R],"params":[P...]}} (docs/abi.md §12.5.1).
 * Appends the schema node starting at s (a '{', no whitespace) converted; returns the
 * text after it, or NULL when the literal is malformed or memory runs out. */
static const char* schema_named(tvmffi__buf* b, const char* s) {
  static const char kOld[] = "{\"type\":\"ffi.Function\",\"args\":[";
  static const char kNew[] = "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[";
  if (strncmp(s, kOld, sizeof(kOld) - 1) == 0) {
    s += sizeof(kOld) - 1;
    if (tvmffi__buf_append(b, kNew, sizeof(kNew) - 1) != 0 || *s != '{') return NULL;
    if ((s = schema_named(b, s)) == NULL || tvmffi__buf_append(b, "],\"params\":[", 12) != 0)
      return NULL;
    for (const char* sep = ""; *s == ','; sep = ",") {
      if (tvmffi__buf_append(b, sep, strlen(sep)) != 0) return NULL;
      if ((s = schema_named(b, s + 1)) == NULL) return NULL;
    }
    if (s[0] != ']' || s[1] != '}' || tvmffi__buf_append(b, "]}}", 3) != 0) return NULL;
    return s + 2;
  }
  if (*s != '{' || tvmffi__buf_append(b, s++, 1) != 0) return NULL;
  while (*s != '}') {
    if (*s == '{') {
      if ((s = schema_named(b, s)) == NULL) return NULL;
      continue;
    }
    const char* end = s + 1;
    if (*s == '"') {
      end = strchr(s + 1, '"');
      if (end == NULL) return NULL;
      ++end;
    } else if (*s == '\0') {
      return NULL;
    }
    if (tvmffi__buf_append(b, s, (size_t)(end - s)) != 0) return NULL;
    s = end;
  }
  return tvmffi__buf_append(b, "}", 1) == 0 ? s + 1 : NULL;
}

/* Under g_wlock: e->metadata from e->schema, once (converting every schema when the library
 * loaded cost ~0.9M instructions of each `import tvm_ffi`).  0, or -1 with an error raised. */
static int metadata_from_schema(gentry* e) {
  tvmffi__buf meta = {NULL, 0, 0}, named = {NULL, 0, 0};
  const char* end = schema_named(&named, e->schema);
  int rc = 0;
  if (end == NULL || *end != '\0' || tvmffi__buf_append(&named, "", 1) != 0)
    rc = named.data == NULL
             ? tvmffi__raise_oom()
             : tvmffi__raise("RuntimeError", "malformed type schema of global function %s: %s",
                             e->name.data, e->schema);
  else if (tvmffi__buf_append(&meta, "{\"type_schema\":\"", 16) != 0 ||
           json_escape(&meta, named.data) != 0 || tvmffi__buf_append(&meta, "\"}", 2) != 0)
    rc = tvmffi__raise_oom();
  tvmffi__buf_free(&named);
  if (rc != 0) {
    tvmffi__buf_free(&meta);
    return rc;
  }
  e->metadata.data = meta.data; /* (the buffer is NUL-terminated) */
  e->metadata.size = meta.size;
  e->schema = NULL;
  return 0;
}

void tvmffi__register_global(const char* name, TVMFFISafeCallType fn, const char* doc,
                             const char* schema) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, fn, NULL, &f) != 0)
    tvmffi__fatal("cannot create global function %s", name);
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIByteArray d = {doc, doc ? strlen(doc) : 0};
  if (registry_set(&n, (TVMFFIObject*)f, &d, NULL, kTVMFFIFieldFlagBitMaskIsStaticMethod, 0, NULL,
                   schema) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIErrorCell* c = err ? TVMFFIErrorGetCellPtr(err) : NULL;
    tvmffi__fatal("cannot register global function %s: %s", name,
                  c ? c->message.data : "unknown error");
  }
  tvmffi__decref((TVMFFIObject*)f);
}

/* ---- §14.1 globals ---------------------------------------------------------- */

/* Snapshot of the registered names behind a ListGlobalNames functor. */
typedef struct {
  int64_t count;
  TVMFFIByteArray names[]; /* each points into one block after the array */
} name_snapshot;

static int names_functor(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  static const char* sig = "ffi.FunctionListGlobalNamesFunctor.functor(0: int) -> Any";
  name_snapshot* s = (name_snapshot*)self;
  int64_t i;
  if (tvmffi__args_count(sig, num_args, 1) || tvmffi__arg_int(sig, args, 0, &i)) return -1;
  if (i == -1) {
    tvmffi__any_set_int(result, s->count);
    return 0;
  }
  if (i < 0 || i >= s->count)
    return tvmffi__raise("IndexError", "global function name index %lld out of range [0, %lld)",
                         (long long)i, (long long)s->count);
  return tvmffi__str_to_any(kTVMFFIStr, s->names[i].data, s->names[i].size, result);
}

static int g_list_names(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count("ffi.FunctionListGlobalNamesFunctor() -> ffi.Function", num_args, 0))
    return -1;
  pthread_mutex_lock(&g_wlock);
  size_t bytes = 0;
  for (gentry* e = g_head; e; e = e->next) bytes += e->name.size + 1;
  name_snapshot* s = malloc(sizeof(name_snapshot) + g_count * sizeof(TVMFFIByteArray) + bytes);
  if (s != NULL) {
    char* p = (char*)&s->names[g_count];
    s->count = (int64_t)g_count;
    int64_t k = 0;
    for (gentry* e = g_head; e; e = e->next, ++k) {
      memcpy(p, e->name.data, e->name.size + 1);
      s->names[k].data = p;
      s->names[k].size = e->name.size;
      p += e->name.size + 1;
    }
  }
  pthread_mutex_unlock(&g_wlock);
  if (s == NULL) return tvmffi__raise_oom();
  TVMFFIObjectHandle f;
  if (TVMFFIFunctionCreate(s, names_functor, free, &f) != 0) {
    free(s);
    return -1;
  }
  tvmffi__any_set_obj(result, (TVMFFIObject*)f);
  return 0;
}

static int g_remove_global(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  static const char* sig = "ffi.FunctionRemoveGlobal(0: str) -> bool";
  TVMFFIByteArray name;
  (void)h;
  if (tvmffi__args_count(sig, num_args, 1) || tvmffi__arg_str(sig, args, 0, &name)) return -1;
  tvmffi__any_set_bool(result, registry_remove(name.data, name.size));
  return 0;
}

static int g_get_metadata(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  static const char* sig = "ffi.GetGlobalFuncMetadata(0: str) -> str";
  TVMFFIByteArray name;
  (void)h;
  if (tvmffi__args_count(sig, num_args, 1) || tvmffi__arg_str(sig, args, 0, &name)) return -1;
  pthread_mutex_lock(&g_wlock);
  gentry* e = find_locked(name.data, name.size);
  int rc = e && e->schema ? metadata_from_schema(e) : 0;
  if (rc == 0)
    rc = e ? tvmffi__str_to_any(kTVMFFIStr, e->metadata.data ? e->metadata.data : "",
                                e->metadata.size, result)
           : 1;
  pthread_mutex_unlock(&g_wlock);
  if (rc == 1)
    return tvmffi__raise("RuntimeError", "Global Function is not found: %.*s", (int)name.size,
                         name.data);
  return rc;
}

/* void* parameters accept OpaquePtr and None (docs/abi.md §8), and an Int address. */
static int arg_ptr(const char* sig, const TVMFFIAny* args, int32_t i, void** out) {
  const TVMFFIAny* v = &args[i];
  if (v->type_index == kTVMFFIOpaquePtr || v->type_index == kTVMFFINone ||
      v->type_index == kTVMFFIInt) {
    *out = v->type_index == kTVMFFINone ? NULL : v->v_ptr;
    return 0;
  }
  return tvmffi__raise("TypeError",
                       "Mismatched type on argument #%d when calling: `%s`. Expected `void*` but "
                       "got `%s`",
                       (int)i, sig, tvmffi__any_type_key(v));
}

static int g_from_extern_c(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  static const char* sig = "ffi.FunctionFromExternC(0: void*, 1: void*, 2: void*) -> ffi.Function";
  void *self, *call, *deleter;
  (void)h;
  if (tvmffi__args_count(sig, num_args, 3) || arg_ptr(sig, args, 0, &self) ||
      arg_ptr(sig, args, 1, &call) || arg_ptr(sig, args, 2, &deleter))
    return -1;
  if (call == NULL)
    return tvmffi__raise("ValueError", "ffi.FunctionFromExternC: safe_call must not be NULL");
  TVMFFIObjectHandle f;
  /* Converting object pointers to function pointers: POSIX guarantees it. */
  TVMFFISafeCallType fn;
  void (*del)(void*);
  memcpy(&fn, &call, sizeof(fn));
  memcpy(&del, &deleter, sizeof(del));
  if (TVMFFIFunctionCreate(self, fn, del, &f) != 0) return -1;
  tvmffi__any_set_obj(result, (TVMFFIObject*)f);
  return 0;
}

/* Identity for strings/bytes, always handing back an owned value. */
static int identity_str(const char* sig, int32_t kind, const TVMFFIAny* args, int32_t num_args,
                        TVMFFIAny* result) {
  if (tvmffi__args_count(sig, num_args, 1)) return -1;
  const TVMFFIAny* v = &args[0];
  TVMFFIByteArray ba;
  int ok = kind == kTVMFFIStr ? tvmffi__any_as_str(v, &ba) : tvmffi__any_as_bytes(v, &ba);
  if (!ok) {
    return tvmffi__raise("TypeError",
                         "Mismatched type on argument #0 when calling: `%s`. Expected `%s` but "
                         "got `%s`",
                         sig, kind == kTVMFFIStr ? "str" : "bytes", tvmffi__any_type_key(v));
  }
  if (v->type_index == kind) { /* already an owned object: share it */
    tvmffi__any_copy(v, result);
    return 0;
  }
  return tvmffi__str_to_any(kind, ba.data, ba.size, result);
}

static int g_string(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  return identity_str("ffi.String(0: str) -> str", kTVMFFIStr, args, num_args, result);
}

static int g_bytes(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  return identity_str("ffi.Bytes(0: bytes) -> bytes", kTVMFFIBytes, args, num_args, result);
}

static int g_type_keys(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count("ffi.GetRegisteredTypeKeys() -> Array<str>", num_args, 0)) return -1;
  int32_t max = tvmffi__type_max_index();
  int64_t n = 0;
  for (int32_t i = 0; i <= max; ++i) n += tvmffi__type_info_lookup(i) != NULL;
  TVMFFIObject* arr = tvmffi__array_new(n);
  if (arr == NULL) return -1;
  /* Types registered meanwhile by another thread are left out. */
  for (int32_t i = 0, k = 0; i <= max && k < n; ++i) {
    const TVMFFITypeInfo* info = tvmffi__type_info_lookup(i);
    if (info == NULL) continue;
    TVMFFIAny s;
    if (tvmffi__str_to_any(kTVMFFIStr, info->type_key.data, info->type_key.size, &s) != 0) {
      tvmffi__decref(arr);
      return -1;
    }
    tvmffi__array_push_move(arr, &s);
    ++k;
  }
  tvmffi__any_set_obj(result, arr);
  return 0;
}

/* Process-wide sentinels: static plain ffi.Object headers with a NULL
 * deleter and a huge strong count, so no imbalance can ever release them. */
#define SENTINEL_COUNT ((UINT64_C(1) << 32) | (UINT64_C(1) << 30))
static TVMFFIObject g_invalid_obj = {SENTINEL_COUNT, kTVMFFIObject, 0, {NULL}};
static TVMFFIObject g_kwargs_obj = {SENTINEL_COUNT, kTVMFFIObject, 0, {NULL}};

static int sentinel(const char* sig, TVMFFIObject* obj, int32_t num_args, TVMFFIAny* result) {
  if (tvmffi__args_count(sig, num_args, 0)) return -1;
  tvmffi__incref(obj);
  tvmffi__any_set_obj(result, obj);
  return 0;
}

static int g_invalid(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  (void)args;
  return sentinel("ffi.GetInvalidObject() -> ffi.Object", &g_invalid_obj, num_args, result);
}

static int g_kwargs(void* h, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)h;
  (void)args;
  return sentinel("ffi.GetKwargsObject() -> ffi.Object", &g_kwargs_obj, num_args, result);
}

#define FN_SCHEMA(...) "{\"type\":\"ffi.Function\",\"args\":[" __VA_ARGS__ "]}"
#define T(x) "{\"type\":\"" x "\"}"

void tvmffi__function_globals_init(void) {
  /* Before registering: later init hooks call the public entry points. */
  __atomic_store_n(&g_inited, 1, __ATOMIC_RELEASE);
  if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
    tvmffi__fatal("cannot install the registry's fork handlers");
  tvmffi__register_global(
      "ffi.FunctionListGlobalNamesFunctor", g_list_names,
      "Returns a functor g: g(-1) is the number of global functions, g(i) the i-th name.",
      FN_SCHEMA(T("ffi.Function")));
  tvmffi__register_global("ffi.FunctionRemoveGlobal", g_remove_global,
                          "Removes a global function; returns false when it was absent.",
                          FN_SCHEMA(T("bool") "," T("ffi.String")));
  tvmffi__register_global("ffi.GetGlobalFuncMetadata", g_get_metadata,
                          "Metadata JSON of a global function (empty when none).",
                          FN_SCHEMA(T("ffi.String") "," T("ffi.String")));
  tvmffi__register_global(
      "ffi.FunctionFromExternC", g_from_extern_c,
      "Wraps (self, safe_call, deleter) C pointers into a Function.",
      FN_SCHEMA(T("ffi.Function") "," T("void*") "," T("void*") "," T("void*")));
  tvmffi__register_global("ffi.String", g_string, "Converts to an owned String.",
                          FN_SCHEMA(T("ffi.String") "," T("ffi.String")));
  tvmffi__register_global("ffi.Bytes", g_bytes, "Converts to an owned Bytes.",
                          FN_SCHEMA(T("ffi.Bytes") "," T("ffi.Bytes")));
  tvmffi__register_global("ffi.GetRegisteredTypeKeys", g_type_keys,
                          "Keys of all registered types in index order.",
                          FN_SCHEMA("{\"type\":\"ffi.Array\",\"args\":[" T("ffi.String") "]}"));
  tvmffi__register_global("ffi.GetInvalidObject", g_invalid,
                          "The process-wide sentinel meaning a missing value.",
                          FN_SCHEMA(T("ffi.Object")));
  tvmffi__register_global("ffi.GetKwargsObject", g_kwargs,
                          "The sentinel separating positional from keyword arguments.",
                          FN_SCHEMA(T("ffi.Object")));
}
