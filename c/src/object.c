/*
 * object.c -- object header, reference counting (docs/abi.md §4), opaque objects
 * (§7.10) and the custom allocator hook (§4.7).
 *
 * C++ header code in kernel libraries manipulates combined_ref_count inline,
 * so the decrement below follows the ABI protocol bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

#define STRONG_ONE TVMFFI__STRONG_ONE
#define WEAK_ONE TVMFFI__WEAK_ONE

/* ThreadSanitizer does not model standalone fences: under it, make each
 * decrement acq_rel instead (same guarantees, slightly slower). */
#if defined(__SANITIZE_THREAD__)
#define DEC_ORDER __ATOMIC_ACQ_REL
#define ACQUIRE_FENCE() ((void)0)
#else
#define DEC_ORDER __ATOMIC_RELEASE
#define ACQUIRE_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

TVMFFIObject* tvmffi__object_alloc(size_t size, int32_t type_index,
                                   void (*deleter)(void* self, int flags)) {
  if (size < sizeof(TVMFFIObject)) size = sizeof(TVMFFIObject);
  return tvmffi__object_init((TVMFFIObject*)calloc(1, size), type_index, deleter);
}

void tvmffi__object_deleter_plain(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* Weak references remain: destroy contents now, then drop the weak unit the
 * strong references held collectively.  Out of line so the common path of
 * decref_impl needs no saved registers. */
static TVMFFI__COLD void decref_strong_with_weak(TVMFFIObject* obj) {
  ACQUIRE_FENCE();
  void (*deleter)(void*, int) = obj->deleter;
  if (deleter) deleter(obj, kTVMFFIObjectDeleterFlagBitMaskStrong);
  uint64_t old2 = __atomic_fetch_sub(&obj->combined_ref_count, WEAK_ONE, DEC_ORDER);
  if (old2 == WEAK_ONE) {
    ACQUIRE_FENCE();
    if (deleter) deleter(obj, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

/* Destruction is recursive: a deleter releases what the object holds, and a
 * chain of objects each holding the next (an Array nested 200k deep, a linked
 * list of objects) would take one C frame per link and overflow the stack.
 * Two bounds keep it finite, checked only where a deleter other than the
 * plain one runs:
 *  - a stack window per thread: a deleter runs at once while the stack
 *    pointer is at most WINDOW bytes below the thread's anchor, the highest
 *    point (plus SLACK) a release started from with no counted destruction
 *    running.  That costs one TLS load and a compare, no count to undo after
 *    the deleter, so the release of a tensor or an Array is a tail of DecRef;
 *  - below the window (and on another stack: a fiber, a signal stack), the
 *    count: past DEFER_DEPTH nested counted destructions an object whose last
 *    reference goes is queued (bit 0 of the entry: weak references remain)
 *    and the outermost counted destruction frees the queue in a loop.  Where
 *    the queue cannot grow, destruction recurses as before.
 * SLACK (under a guard page) lets later releases from a little higher up stay
 * in the window; WINDOW is about what 256 nested deleters took before. */
#define DEFER_DEPTH 256
#define WINDOW ((uintptr_t)16 * 1024)
#define SLACK ((uintptr_t)2 * 1024)

typedef struct {
  uintptr_t anchor; /* first: the fast path reads it at offset 0 */
  unsigned depth;   /* counted destructions running on this thread */
  size_t n, cap;    /* the queue */
  uintptr_t* v;
} destroy_state;

static _Thread_local destroy_state destroy_tls;

/* The stack pointer (a local's address could be on ASan's fake stack). */
static inline __attribute__((always_inline)) uintptr_t stack_pointer(void) {
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  __asm__ volatile("mov %0, sp" : "=r"(sp));
#else
  sp = (uintptr_t)__builtin_frame_address(0);
#endif
  return sp;
}

/* Unsigned: a stack pointer above the anchor (or an anchor still 0) is out. */
static inline __attribute__((always_inline)) int in_window(uintptr_t anchor, uintptr_t sp) {
  return anchor - sp <= WINDOW;
}

static inline __attribute__((always_inline)) void destroy_now(TVMFFIObject* obj, int weak_left) {
  if (weak_left) {
    decref_strong_with_weak(obj);
  } else if (obj->deleter) {
    obj->deleter(obj, kTVMFFIObjectDeleterFlagBitMaskBoth);
  }
}

static TVMFFI__COLD void destroy_deep(destroy_state* st, TVMFFIObject* obj, int weak_left) {
  if (st->n == st->cap) {
    size_t cap = st->cap ? 2 * st->cap : 1024;
    uintptr_t* v = (uintptr_t*)realloc(st->v, cap * sizeof(*v));
    if (v == NULL) {
      destroy_now(obj, weak_left);
      return;
    }
    st->v = v;
    st->cap = cap;
  }
  st->v[st->n++] = (uintptr_t)obj | (uintptr_t)weak_left;
}

static TVMFFI__COLD void destroy_drain(destroy_state* st) {
  while (st->n != 0) {
    uintptr_t e = st->v[--st->n];
    st->depth = 1;
    destroy_now((TVMFFIObject*)(e & ~(uintptr_t)1), (int)(e & 1));
    st->depth = 0;
  }
  free(st->v); /* deep chains are rare: no buffer outlives them */
  st->v = NULL;
  st->cap = 0;
}

/* With the last strong reference gone, where decref_impl's window test did not
 * run or failed (weak_left: decref_strong_with_weak's case).  Out of line, so
 * that a DecRef which frees nothing saves no registers. */
static __attribute__((noinline)) void destroy(TVMFFIObject* obj, int weak_left) {
  destroy_state* st = &destroy_tls;
  __asm__("" : "+r"(st)); /* one TLS lookup: gcc would redo it after the deleter's call */
  uintptr_t sp = stack_pointer();
  /* Above the anchor with nothing counted running: no destruction of this
   * stack is in progress below, so this is a new highest starting point. */
  if (st->depth == 0 && sp > st->anchor) st->anchor = sp + SLACK;
  if (in_window(st->anchor, sp)) {
    destroy_now(obj, weak_left);
    return;
  }
  if (TVMFFI__UNLIKELY(st->depth >= DEFER_DEPTH)) {
    destroy_deep(st, obj, weak_left);
    return;
  }
  ++st->depth;
  destroy_now(obj, weak_left);
  if (--st->depth == 0 && TVMFFI__UNLIKELY(st->n != 0)) destroy_drain(st);
}

/* Inlined into both entry points: the exported DecRef is on every hot path
 * (each call result, each temporary), so it takes no extra call. */
static inline __attribute__((always_inline)) void decref_impl(TVMFFIObject* obj) {
  if (obj == NULL) return;
  uint64_t old = __atomic_fetch_sub(&obj->combined_ref_count, STRONG_ONE, DEC_ORDER);
  if (old == (STRONG_ONE | WEAK_ONE)) {
    /* Last strong reference and no weak ones: destroy and free at once.  A
     * block with the plain deleter holds no references, so freeing it cannot
     * nest and skips the stack test (strings, shapes, functions). */
    ACQUIRE_FENCE();
    void (*deleter)(void*, int) = obj->deleter;
    if (deleter == tvmffi__object_deleter_plain)
      free(obj);
    else if (deleter != NULL && in_window(destroy_tls.anchor, stack_pointer()))
      deleter(obj, kTVMFFIObjectDeleterFlagBitMaskBoth);
    else
      destroy(obj, 0);
  } else if (TVMFFI__UNLIKELY((old & 0xFFFFFFFFu) == 1)) {
    destroy(obj, 1);
  }
}

void tvmffi__decref(TVMFFIObject* obj) { decref_impl(obj); }

TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (TVMFFI__UNLIKELY(obj == NULL)) return 0; /* undefined upstream; harmless here */
  tvmffi__incref((TVMFFIObject*)obj);
  return 0;
}

TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  decref_impl((TVMFFIObject*)obj);
  return 0;
}

/* ---- the block cache (internal.h) ----------------------------------------- */

#define BLOCK_CACHE_MAX 16

/* Sanitizer builds keep use-after-free detection: a cached block is
 * poisoned until handed out again. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BLOCK_POISON(p) ASAN_POISON_MEMORY_REGION((p), TVMFFI__BLOCK_SIZE)
#define BLOCK_UNPOISON(p) ASAN_UNPOISON_MEMORY_REGION((p), TVMFFI__BLOCK_SIZE)
#else
#define BLOCK_POISON(p) ((void)0)
#define BLOCK_UNPOISON(p) ((void)0)
#endif

typedef struct {
  void* head;   /* a list through each block's first word */
  unsigned n;   /* blocks in it */
  unsigned max; /* 0 until the thread's exit hook is set, then BLOCK_CACHE_MAX */
} block_cache;

static _Thread_local block_cache block_tls;
static pthread_key_t block_key;
static pthread_once_t block_key_once = PTHREAD_ONCE_INIT;

static void block_cache_clear(void* unused) {
  (void)unused;
  block_cache* c = &block_tls;
  while (c->head != NULL) {
    void* p = c->head;
    BLOCK_UNPOISON(p);
    c->head = *(void**)p;
    free(p);
  }
  c->n = 0;
  c->max = 0; /* a later thread-exit destructor that frees a block re-registers */
}

static void block_key_init(void) { pthread_key_create(&block_key, block_cache_clear); }

/* The main thread runs no pthread key destructors. */
__attribute__((destructor)) static void block_cache_clear_at_exit(void) { block_cache_clear(NULL); }

void* tvmffi__block_alloc(void) {
  block_cache* c = &block_tls;
  void* p = c->head;
  if (p == NULL) return malloc(TVMFFI__BLOCK_SIZE);
  BLOCK_UNPOISON(p);
  c->head = *(void**)p;
  c->n--;
  return p;
}

/* The cache is full, or this thread has no exit hook yet (set here, once). */
static TVMFFI__COLD void block_free_slow(block_cache* c, void* block) {
  if (c->max == 0 && pthread_once(&block_key_once, block_key_init) == 0 &&
      pthread_setspecific(block_key, (void*)1) == 0) {
    c->max = BLOCK_CACHE_MAX;
    tvmffi__block_free(block);
    return;
  }
  free(block);
}

void tvmffi__block_free(void* block) {
  block_cache* c = &block_tls;
  if (TVMFFI__UNLIKELY(c->n >= c->max)) {
    block_free_slow(c, block);
    return;
  }
  *(void**)block = c->head;
  BLOCK_POISON(block);
  c->head = block;
  c->n++;
}

/* ---- opaque objects --------------------------------------------------- */

typedef struct {
  TVMFFIObject header;
  TVMFFIOpaqueObjectCell cell; /* +24, ABI */
  void (*user_deleter)(void* handle); /* implementation area */
} tvmffi__opaque;

static void opaque_deleter(void* self, int flags) {
  tvmffi__opaque* o = (tvmffi__opaque*)self;
  if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && o->user_deleter)
    o->user_deleter(o->cell.handle);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(o);
}

TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out) {
  if (type_index != kTVMFFIOpaquePyObject)
    return tvmffi__raise("RuntimeError",
                         "TVMFFIObjectCreateOpaque: only type index %d (ffi.OpaquePyObject) "
                         "can wrap an opaque handle, got type index %d",
                         (int)kTVMFFIOpaquePyObject, (int)type_index);
  if (out == NULL)
    return tvmffi__raise("ValueError", "TVMFFIObjectCreateOpaque: out must not be NULL");
  tvmffi__opaque* o =
      (tvmffi__opaque*)tvmffi__object_alloc(sizeof(tvmffi__opaque), type_index, opaque_deleter);
  if (o == NULL) return -1;
  o->cell.handle = handle;
  o->user_deleter = deleter;
  *out = o;
  return 0;
}

/* ---- custom allocator (dormant upstream; we only store it) ----------- */

/* The default mirrors upstream's layout: the body starts `prefix` =
 * max(16, alignment) bytes into an aligned block; the 8 bytes before the body
 * hold the TVMFFIObjectAllocHeader and the 8 before those the block base, so
 * delete_space never reads the (destroyed) object. */
#define DEFAULT_PREFIX 16

static void default_delete_space(void* body) { free(((void**)body)[-2]); }

static void* default_allocate(size_t size, size_t alignment, int32_t type_index, void* ctx) {
  (void)type_index;
  (void)ctx;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    tvmffi__raise("ValueError", "custom allocator: alignment %zu is not a power of two", alignment);
    return NULL;
  }
  size_t prefix = alignment > DEFAULT_PREFIX ? alignment : DEFAULT_PREFIX;
  size_t align = alignment > sizeof(void*) ? alignment : sizeof(void*);
  void* base = NULL;
  if (size > SIZE_MAX - prefix || posix_memalign(&base, align, prefix + size) != 0) {
    tvmffi__raise_oom();
    return NULL;
  }
  char* body = (char*)base + prefix;
  ((void**)body)[-2] = base;
  ((TVMFFIObjectAllocHeader*)body)[-1].delete_space = default_delete_space;
  return body;
}

static TVMFFICustomAllocator default_allocator = {default_allocate, NULL};
static TVMFFICustomAllocator* current_allocator = NULL;

TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void) {
  TVMFFICustomAllocator* a = current_allocator;
  return a ? a : &default_allocator;
}

TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator) {
  current_allocator = allocator;
  return 0;
}
