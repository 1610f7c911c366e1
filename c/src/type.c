/*
 * type.c -- the process-wide type table (docs/abi.md §3, §12.1-12.3).
 *
 * Entries are allocated once and never freed, so TVMFFITypeInfo pointers are
 * stable for the process (TVMFFIGetTypeInfo is declared pure).  Reads are
 * lock-free: index -> entry goes through a two-level table of chunk pointers
 * and key -> entry through an open-addressing table; both are published with
 * release stores.  Writers (allocation) serialise on one mutex.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1 << CHUNK_BITS)
#define NUM_CHUNKS 1024 /* at most 2^20 type indices */
#define MAX_TYPES (CHUNK_SIZE * NUM_CHUNKS)

/* Private entry; `info` first so a TVMFFITypeInfo* is also an entry*. */
typedef struct type_entry {
  TVMFFITypeInfo info;
  int32_t num_slots;       /* reserved indices incl. its own: child slots + 1 */
  int32_t allocated_slots; /* reserved indices handed out so far (self = 1) */
  int32_t can_overflow;    /* children may go past the reserved block */
  char key[];              /* NUL-terminated copy of the type key */
} type_entry;

typedef struct key_table {
  struct key_table* retired; /* previous (smaller) table, kept for late readers */
  size_t mask;
  size_t count;
  type_entry* slots[];
} key_table;

static type_entry** g_chunks[NUM_CHUNKS];
static key_table* g_keys;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t g_next_dynamic = kTVMFFIDynObjectBegin; /* under g_lock */
static int32_t g_max_index = -1; /* highest registered index; atomic reads */
static int g_inited;

/* Why an allocation request was refused.  Both entry points raise it (the
 * reference runtime ends the process instead); the ABI one also records it per
 * thread, since its usual callers, a library's static initialisers, ignore the
 * -1 it returns: loading that library reports it (docs/abi.md §12.2). */
typedef struct {
  const char* kind; /* error kind to raise: TypeError, ValueError, RuntimeError, MemoryError */
  char msg[400];
} refusal;

static __thread uint64_t t_refusals;
static __thread refusal t_last_refusal;

uint64_t tvmffi__type_refusals(const char** kind, const char** msg) {
  *kind = t_last_refusal.kind;
  *msg = t_last_refusal.msg;
  return t_refusals;
}

static TVMFFI__PRINTF(3, 4) int32_t refuse(refusal* why, const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvmffi__buf b = {NULL, 0, 0};
  int rc = tvmffi__buf_vprintf(&b, fmt, ap); /* keeps a key's bytes after a NUL */
  va_end(ap);
  snprintf(why->msg, sizeof(why->msg), "%s", rc == 0 && b.data ? b.data : fmt);
  tvmffi__buf_free(&b);
  why->kind = kind;
  return -1;
}

/* libstdc++ std::_Hash_bytes (64-bit MurmurHash2 variant), seed 0xc70f6907:
 * the value upstream stores in type_key_hash. */
uint64_t tvmffi__hash_bytes(const void* data, size_t len) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const unsigned char* p = (const unsigned char*)data;
  uint64_t h = 0xc70f6907ULL ^ ((uint64_t)len * m);
  size_t n8 = len & ~(size_t)7;
  for (size_t i = 0; i < n8; i += 8) {
    uint64_t k;
    memcpy(&k, p + i, 8); /* little-endian load */
    k *= m;
    k ^= k >> 47;
    k *= m;
    h ^= k;
    h *= m;
  }
  size_t rest = len & 7;
  if (rest != 0) {
    uint64_t tail = 0;
    for (size_t i = 0; i < rest; ++i) tail |= (uint64_t)p[n8 + i] << (8 * i);
    h ^= tail;
    h *= m;
  }
  h ^= h >> 47;
  h *= m;
  h ^= h >> 47;
  return h;
}

static inline type_entry* entry_get(int32_t index) {
  if (index < 0 || index >= MAX_TYPES) return NULL;
  type_entry** chunk = __atomic_load_n(&g_chunks[index >> CHUNK_BITS], __ATOMIC_ACQUIRE);
  if (chunk == NULL) return NULL;
  return __atomic_load_n(&chunk[index & (CHUNK_SIZE - 1)], __ATOMIC_ACQUIRE);
}

const TVMFFITypeInfo* tvmffi__type_info_lookup(int32_t type_index) {
  type_entry* e = entry_get(type_index);
  return e ? &e->info : NULL;
}

static type_entry* key_find(const char* key, size_t len, uint64_t hash) {
  key_table* t = __atomic_load_n(&g_keys, __ATOMIC_ACQUIRE);
  if (t == NULL) return NULL;
  for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
    type_entry* e = __atomic_load_n(&t->slots[i], __ATOMIC_ACQUIRE);
    if (e == NULL) return NULL;
    if (e->info.type_key_hash == hash && e->info.type_key.size == len &&
        memcmp(e->key, key, len) == 0)
      return e;
  }
}

/* Under g_lock.  Makes sure publishing one more entry at `index` cannot fail:
 * the key table has room below half load (a bigger copy replaces it; the old
 * one stays readable) and the index's chunk exists.  0, or -1 out of memory
 * with nothing changed that readers could see. */
static int publish_reserve(int32_t index) {
  key_table* t = g_keys;
  if (t == NULL || (t->count + 1) * 2 > t->mask + 1) {
    size_t cap = t ? (t->mask + 1) * 2 : 256;
    key_table* nt = calloc(1, sizeof(key_table) + cap * sizeof(type_entry*));
    if (nt == NULL) return -1;
    nt->mask = cap - 1;
    nt->retired = t;
    if (t) {
      for (size_t i = 0; i <= t->mask; ++i) {
        type_entry* x = t->slots[i];
        if (x == NULL) continue;
        size_t j = x->info.type_key_hash & nt->mask;
        while (nt->slots[j]) j = (j + 1) & nt->mask;
        nt->slots[j] = x;
      }
      nt->count = t->count;
    }
    __atomic_store_n(&g_keys, nt, __ATOMIC_RELEASE);
  }
  type_entry*** chunk_slot = &g_chunks[index >> CHUNK_BITS];
  if (*chunk_slot == NULL) {
    type_entry** chunk = calloc(CHUNK_SIZE, sizeof(type_entry*));
    if (chunk == NULL) return -1;
    __atomic_store_n(chunk_slot, chunk, __ATOMIC_RELEASE);
  }
  return 0;
}

/* Under g_lock, after publish_reserve(index) succeeded. */
static void entry_publish(type_entry* e) {
  int32_t index = e->info.type_index;
  type_entry** chunk = g_chunks[index >> CHUNK_BITS];
  __atomic_store_n(&chunk[index & (CHUNK_SIZE - 1)], e, __ATOMIC_RELEASE);
  key_table* t = g_keys;
  size_t j = e->info.type_key_hash & t->mask;
  while (t->slots[j]) j = (j + 1) & t->mask;
  __atomic_store_n(&t->slots[j], e, __ATOMIC_RELEASE);
  t->count++;
  if (index > g_max_index) __atomic_store_n(&g_max_index, index, __ATOMIC_RELEASE);
}

/* True when none of [begin, begin + n) is taken (static indices may sit in
 * the dynamic range). Under g_lock. */
static int range_free(int32_t begin, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    if (entry_get(begin + i)) return 0;
  return 1;
}

/* The allocation algorithm of docs/abi.md §12.2 step 3.  Under g_lock. */
static int32_t type_alloc_locked(const char* key, size_t len, uint64_t hash,
                                 int32_t static_type_index, int32_t type_depth,
                                 int32_t num_child_slots, int32_t can_overflow,
                                 int32_t parent_type_index, refusal* why) {
  if (num_child_slots < 0)
    return refuse(why, "ValueError", "type `%.*s`: num_child_slots must be >= 0, got %d", (int)len,
                  key, num_child_slots);
  type_entry* parent = NULL;
  if (parent_type_index == -1) {
    if (type_depth != 0)
      return refuse(why, "ValueError", "type `%.*s` has no parent but type_depth=%d (expected 0)",
                    (int)len, key, type_depth);
  } else {
    parent = entry_get(parent_type_index);
    if (parent == NULL)
      return refuse(why, "ValueError", "type `%.*s`: parent type_index=%d is not registered",
                    (int)len, key, parent_type_index);
    if (type_depth != parent->info.type_depth + 1)
      return refuse(why, "ValueError", "type `%.*s`: type_depth=%d but parent `%s` has depth %d",
                    (int)len, key, type_depth, parent->key, parent->info.type_depth);
  }
  int32_t n = num_child_slots + 1;
  if (n <= 0 || n > MAX_TYPES)
    return refuse(why, "ValueError", "type `%.*s`: too many child slots", (int)len, key);
  /* Choose the index first, commit it only once nothing can fail. */
  int32_t index, from_parent = 0;
  if (static_type_index >= 0) {
    if (static_type_index >= MAX_TYPES || entry_get(static_type_index))
      return refuse(why, "ValueError",
                    "type `%.*s`: static type_index=%d is already taken or out of range", (int)len,
                    key, static_type_index);
    index = static_type_index;
  } else if (parent && parent->allocated_slots + n <= parent->num_slots) {
    index = parent->info.type_index + parent->allocated_slots;
    from_parent = 1;
  } else {
    if (parent && !parent->can_overflow)
      return refuse(why, "TypeError",
                    "Reach maximum number of sub-classes for type `%s` while registering `%.*s`: "
                    "`%s` was registered final or with a fixed number of child slots",
                    parent->key, (int)len, key, parent->key);
    while (g_next_dynamic <= MAX_TYPES - n && !range_free(g_next_dynamic, n)) ++g_next_dynamic;
    if (g_next_dynamic > MAX_TYPES - n)
      return refuse(why, "RuntimeError", "type table is full while registering `%.*s`", (int)len,
                    key);
    index = g_next_dynamic;
  }

  type_entry* e = calloc(1, sizeof(type_entry) + len + 1);
  const TVMFFITypeInfo** ancestors =
      type_depth > 0 ? malloc(sizeof(*ancestors) * (size_t)type_depth) : NULL;
  if (e == NULL || (type_depth > 0 && ancestors == NULL) || publish_reserve(index) != 0) {
    free(e);
    free(ancestors);
    return refuse(why, "MemoryError", "out of memory registering type `%.*s`", (int)len, key);
  }
  if (from_parent)
    parent->allocated_slots += n;
  else if (static_type_index < 0)
    g_next_dynamic += n;
  if (type_depth > 0) {
    if (type_depth > 1)
      memcpy(ancestors, parent->info.type_ancestors, sizeof(*ancestors) * (size_t)(type_depth - 1));
    ancestors[type_depth - 1] = &parent->info;
  }
  memcpy(e->key, key, len);
  e->key[len] = '\0';
  e->info.type_index = index;
  e->info.type_depth = type_depth;
  e->info.type_key.data = e->key;
  e->info.type_key.size = len;
  e->info.type_ancestors = ancestors;
  e->info.type_key_hash = hash;
  e->num_slots = n;
  e->allocated_slots = 1;
  /* A child of a parent without overflow may not overflow either. */
  e->can_overflow = (can_overflow && (parent == NULL || parent->can_overflow)) ? 1 : 0;
  entry_publish(e);
  return index;
}

static int32_t type_get_or_alloc(const char* key, size_t len, int32_t static_type_index,
                                 int32_t type_depth, int32_t num_child_slots, int32_t can_overflow,
                                 int32_t parent_type_index, refusal* why) {
  uint64_t hash = tvmffi__hash_bytes(key, len);
  type_entry* e = key_find(key, len, hash);
  if (e) return e->info.type_index;
  if (parent_type_index == -2) return -2; /* query-only mode */
  pthread_mutex_lock(&g_lock);
  e = key_find(key, len, hash); /* another thread may have won */
  int32_t index = e ? e->info.type_index
                    : type_alloc_locked(key, len, hash, static_type_index, type_depth,
                                        num_child_slots, can_overflow, parent_type_index, why);
  pthread_mutex_unlock(&g_lock);
  return index;
}

/* A fork() while another thread allocates must not leave the child's lock
 * held forever. */
static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_release(void) { pthread_mutex_unlock(&g_lock); }

static inline void ensure_init(void) {
  if (TVMFFI__UNLIKELY(!__atomic_load_n(&g_inited, __ATOMIC_ACQUIRE))) tvmffi__ensure_init();
}

/* ---- public entry points --------------------------------------------- */

int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  int32_t child_slots_can_overflow, int32_t parent_type_index) {
  ensure_init();
  refusal why;
  int32_t index =
      type_key == NULL || (type_key->data == NULL && type_key->size != 0)
          ? refuse(&why, "ValueError", "TVMFFITypeGetOrAllocIndex: type_key must not be NULL")
          : type_get_or_alloc(type_key->data ? type_key->data : "", type_key->size,
                              static_type_index, type_depth, num_child_slots,
                              child_slots_can_overflow, parent_type_index, &why);
  if (index == -1) {
    t_last_refusal = why;
    ++t_refusals;
    tvmffi__raise(why.kind, "%s", why.msg);
  }
  return index;
}

int32_t tvmffi__type_alloc_or_raise(const char* key, size_t len, int32_t type_depth,
                                    int32_t num_child_slots, int32_t can_overflow,
                                    int32_t parent_type_index) {
  ensure_init();
  refusal why;
  if (parent_type_index < 0) parent_type_index = -1; /* never the query-only mode */
  int32_t index = type_get_or_alloc(key, len, -1, type_depth, num_child_slots, can_overflow,
                                    parent_type_index, &why);
  if (index == -1) tvmffi__raise(why.kind, "%s", why.msg);
  return index;
}

int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex) {
  ensure_init();
  if (type_key == NULL || out_tindex == NULL || (type_key->data == NULL && type_key->size != 0))
    return tvmffi__raise("ValueError", "TVMFFITypeKeyToIndex: type_key and out must not be NULL");
  const char* key = type_key->data ? type_key->data : "";
  type_entry* e = key_find(key, type_key->size, tvmffi__hash_bytes(key, type_key->size));
  if (e == NULL)
    return tvmffi__raise("InternalError", "Cannot find type `%.*s`", (int)type_key->size, key);
  *out_tindex = e->info.type_index;
  return 0;
}

const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index) {
  type_entry* e = entry_get(type_index);
  if (TVMFFI__LIKELY(e != NULL)) return &e->info;
  ensure_init();
  e = entry_get(type_index);
  if (e == NULL) {
    /* The index may come from data (an object a kernel returned): raise rather than end the
     * host process as the reference runtime does; callers check for NULL. */
    tvmffi__raise("RuntimeError", "Cannot find type info for type_index=%d", (int)type_index);
    return NULL;
  }
  return &e->info;
}

/* ---- internals -------------------------------------------------------- */

const char* tvmffi__type_key(int32_t type_index) {
  type_entry* e = entry_get(type_index);
  if (e) return e->key;
  if (type_index == kTVMFFIAny) return "Any";
  /* A few per-thread buffers so one message can name two unknown types. */
  static _Thread_local char bufs[4][40];
  static _Thread_local unsigned next;
  char* b = bufs[next++ & 3];
  snprintf(b, sizeof(bufs[0]), "<unregistered type %d>", (int)type_index);
  return b;
}

const char* tvmffi__any_type_key(const TVMFFIAny* v) {
  /* POD kinds are registered under their runtime keys (None, int, ...,
   * ffi.SmallStr), the names upstream prints in cast errors. */
  return tvmffi__type_key(v->type_index);
}

int tvmffi__type_is_instance(int32_t t, int32_t T) {
  if (t == T) return 1;
  if (T == kTVMFFIObject) return t >= kTVMFFIStaticObjectBegin;
  if (t < kTVMFFIStaticObjectBegin || T < kTVMFFIStaticObjectBegin) return 0;
  type_entry* te = entry_get(T);
  if (te == NULL) return 0;
  /* Fast path: the reserved block [T, T + num_slots) holds only T's
   * descendants.  Otherwise the ancestor table decides (overflowed children,
   * and static indices, which may sit anywhere). */
  if (t > T && t < T + te->num_slots) return 1;
  type_entry* e = entry_get(t);
  int32_t d = te->info.type_depth;
  return e != NULL && e->info.type_depth > d && e->info.type_ancestors[d] == &te->info;
}

int32_t tvmffi__type_max_index(void) { return __atomic_load_n(&g_max_index, __ATOMIC_ACQUIRE); }

static void reg_static(const char* key, int32_t index, int32_t depth, int32_t slots,
                       int32_t overflow, int32_t parent) {
  refusal why;
  int32_t got = type_get_or_alloc(key, strlen(key), index, depth, slots, overflow, parent, &why);
  if (got == -1) tvmffi__fatal("%s", why.msg);
  if (got != index) tvmffi__fatal("static type `%s` got index %d, expected %d", key, got, index);
}

void tvmffi__types_init(void) {
  static const char* const pod_keys[] = {"None",
                                         "int",
                                         "bool",
                                         "float",
                                         "void*",
                                         "DataType",
                                         "Device",
                                         "DLTensor*",
                                         "const char*",
                                         "TVMFFIByteArray*",
                                         "ObjectRValueRef",
                                         "ffi.SmallStr",
                                         "ffi.SmallBytes",
                                         "ffi.Unchanged"};
  static const struct {
    const char* key;
    int32_t index;
  } objects[] = {{"ffi.String", kTVMFFIStr},    {"ffi.Bytes", kTVMFFIBytes},
                 {"ffi.Error", kTVMFFIError},   {"ffi.Function", kTVMFFIFunction},
                 {"ffi.Shape", kTVMFFIShape},   {"ffi.Tensor", kTVMFFITensor},
                 {"ffi.Array", kTVMFFIArray},   {"ffi.List", kTVMFFIList},
                 {"ffi.Map", kTVMFFIMap},       {"ffi.Dict", kTVMFFIDict},
                 {"ffi.Module", kTVMFFIModule}, {"ffi.OpaquePyObject", kTVMFFIOpaquePyObject},
                 {"ffi.BigInt", kTVMFFIBigInt}};
  /* Set first: the hooks init.c runs after this one may call the public
   * entry points, which must not re-enter tvmffi__ensure_init. */
  __atomic_store_n(&g_inited, 1, __ATOMIC_RELEASE);
  if (pthread_atfork(fork_prepare, fork_release, fork_release) != 0)
    tvmffi__fatal("cannot install the type table's fork handlers");
  for (int32_t i = 0; i < (int32_t)(sizeof(pod_keys) / sizeof(pod_keys[0])); ++i)
    reg_static(pod_keys[i], i, 0, 0, 0, -1);
  reg_static("ffi.Object", kTVMFFIObject, 0, 0, 1, -1);
  for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); ++i)
    reg_static(objects[i].key, objects[i].index, 1, 0, 0, kTVMFFIObject);

  TVMFFITypeMetadata meta;
  memset(&meta, 0, sizeof(meta));
  meta.total_size = (int32_t)sizeof(TVMFFIObject);
  meta.structural_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  if (TVMFFITypeRegisterMetadata(kTVMFFIObject, &meta) != 0)
    tvmffi__fatal("cannot register the metadata of ffi.Object");
  /* Inline C++ AnyHash/AnyEqual look these columns up. */
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  TVMFFIByteArray hash_name = {"__any_hash__", 12}, equal_name = {"__any_equal__", 13};
  if (TVMFFITypeRegisterAttr(kTVMFFINone, &hash_name, &none) != 0 ||
      TVMFFITypeRegisterAttr(kTVMFFINone, &equal_name, &none) != 0)
    tvmffi__fatal("cannot create the __any_hash__/__any_equal__ columns");
}
