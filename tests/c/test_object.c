/*
 * test_object.c -- the reference-count protocol (docs/abi.md §4.3) with a deleter
 * that records its flags, opaque objects (§10.1) and the custom allocator
 * hook (§4.7); releasing deep chains without recursion.
 */
#define _GNU_SOURCE /* ucontext's makecontext (not in POSIX 2008) */
#include <pthread.h>
#include <stdint.h>
#if defined(__GLIBC__)
#include <ucontext.h>
#endif

#include "check.h"

#define ONE_STRONG UINT64_C(1)
#define ONE_WEAK (UINT64_C(1) << 32)

/* An object owned by the test whose deleter logs every call. */
typedef struct {
  TVMFFIObject header;
  int calls;
  int flags[4];
} logged_obj;

static void logging_deleter(void* self, int flags) {
  logged_obj* o = (logged_obj*)self;
  if (o->calls < 4) o->flags[o->calls] = flags;
  o->calls++;
}

static void logged_init(logged_obj* o) {
  memset(o, 0, sizeof(*o));
  o->header.combined_ref_count = ONE_STRONG | ONE_WEAK;
  o->header.type_index = kTVMFFIObject;
  o->header.deleter = logging_deleter;
}

static uint64_t count_word(void* obj) {
  return __atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_RELAXED);
}

/* The inline weak release C++ WeakObjectPtr performs (docs/abi.md §4.3). */
static void simulated_weak_decref(TVMFFIObject* obj) {
  uint64_t old = __atomic_fetch_sub(&obj->combined_ref_count, ONE_WEAK, __ATOMIC_RELEASE);
  if (old == ONE_WEAK) {
#if !defined(__SANITIZE_THREAD__) /* TSan does not model fences */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
    obj->deleter(obj, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

static void test_last_strong_no_weak_calls_both(void) {
  logged_obj o;
  logged_init(&o);
  CHECK_EQ_INT(TVMFFIObjectIncRef(&o), 0);
  CHECK_EQ_INT(count_word(&o), ONE_WEAK | 2);
  CHECK_EQ_INT(TVMFFIObjectDecRef(&o), 0);
  CHECK_EQ_INT(o.calls, 0);
  CHECK_EQ_INT(count_word(&o), ONE_WEAK | ONE_STRONG);
  CHECK_EQ_INT(TVMFFIObjectDecRef(&o), 0);
  CHECK_EQ_INT(o.calls, 1);
  CHECK_EQ_INT(o.flags[0], kTVMFFIObjectDeleterFlagBitMaskBoth);
  CHECK_SLOT_CLEAN();
}

static void test_strong_then_weak(void) {
  logged_obj o;
  logged_init(&o);
  /* A weak reference appears (C++ WeakObjectPtr increments inline). */
  __atomic_fetch_add(&o.header.combined_ref_count, ONE_WEAK, __ATOMIC_RELAXED);
  CHECK_EQ_INT(TVMFFIObjectDecRef(&o), 0);
  /* Contents destroyed, memory kept: the weak ref still needs the header. */
  CHECK_EQ_INT(o.calls, 1);
  CHECK_EQ_INT(o.flags[0], kTVMFFIObjectDeleterFlagBitMaskStrong);
  CHECK_EQ_INT(count_word(&o), ONE_WEAK); /* strong 0, the one weak left */
  simulated_weak_decref(&o.header);
  CHECK_EQ_INT(o.calls, 2);
  CHECK_EQ_INT(o.flags[1], kTVMFFIObjectDeleterFlagBitMaskWeak);
  CHECK_EQ_INT(count_word(&o), 0);
}

/* Weak refs released before the strong one: back to the single "both" call. */
static void test_weak_released_first(void) {
  logged_obj o;
  logged_init(&o);
  __atomic_fetch_add(&o.header.combined_ref_count, ONE_WEAK, __ATOMIC_RELAXED);
  simulated_weak_decref(&o.header);
  CHECK_EQ_INT(o.calls, 0);
  TVMFFIObjectDecRef(&o);
  CHECK_EQ_INT(o.calls, 1);
  CHECK_EQ_INT(o.flags[0], kTVMFFIObjectDeleterFlagBitMaskBoth);
}

static void test_null_deleter_and_null_handle(void) {
  TVMFFIObject o = {ONE_STRONG | ONE_WEAK, kTVMFFIObject, 0, {NULL}};
  CHECK_EQ_INT(TVMFFIObjectDecRef(&o), 0); /* nothing to call, no crash */
  CHECK_EQ_INT(count_word(&o), ONE_WEAK);
  CHECK_EQ_INT(TVMFFIObjectDecRef(NULL), 0);
  CHECK_SLOT_CLEAN();
}

static logged_obj shared_obj;
static void* hammer(void* arg) {
  (void)arg;
  for (int i = 0; i < 100000; ++i) {
    TVMFFIObjectIncRef(&shared_obj);
    TVMFFIObjectDecRef(&shared_obj);
  }
  return NULL;
}

static void test_concurrent_counts(void) {
  logged_init(&shared_obj);
  pthread_t t1, t2;
  CHECK(pthread_create(&t1, NULL, hammer, NULL) == 0);
  CHECK(pthread_create(&t2, NULL, hammer, NULL) == 0);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  CHECK_EQ_INT(shared_obj.calls, 0);
  CHECK_EQ_INT(check_use_count(&shared_obj), 1);
  TVMFFIObjectDecRef(&shared_obj);
  CHECK_EQ_INT(shared_obj.calls, 1);
}

/* ---- opaque objects ---------------------------------------------------- */

static int opaque_deleted;
static void* opaque_deleted_handle;
static void opaque_user_deleter(void* handle) {
  opaque_deleted++;
  opaque_deleted_handle = handle;
}

static void test_opaque(void) {
  int payload = 42;
  TVMFFIObjectHandle h = NULL;
  CHECK_OK(TVMFFIObjectCreateOpaque(&payload, kTVMFFIOpaquePyObject, opaque_user_deleter, &h));
  CHECK(h != NULL);
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(h), kTVMFFIOpaquePyObject);
  CHECK(TVMFFIOpaqueObjectGetCellPtr(h)->handle == &payload);
  CHECK_EQ_INT(count_word(h), ONE_WEAK | ONE_STRONG);
  CHECK_EQ_INT(((TVMFFIObject*)h)->__padding, 0);
  TVMFFIObjectIncRef(h);
  TVMFFIObjectDecRef(h);
  CHECK_EQ_INT(opaque_deleted, 0);
  TVMFFIObjectDecRef(h);
  CHECK_EQ_INT(opaque_deleted, 1);
  CHECK(opaque_deleted_handle == &payload);

  /* A NULL user deleter is allowed. */
  CHECK_OK(TVMFFIObjectCreateOpaque(&payload, kTVMFFIOpaquePyObject, NULL, &h));
  TVMFFIObjectDecRef(h);

  /* Only type 74 may wrap a handle; out stays untouched on failure. */
  TVMFFIObjectHandle untouched = (TVMFFIObjectHandle)&payload;
  CHECK_RAISED(TVMFFIObjectCreateOpaque(&payload, kTVMFFIInt, NULL, &untouched), "RuntimeError",
               "ffi.OpaquePyObject");
  CHECK(untouched == (TVMFFIObjectHandle)&payload);
  CHECK_RAISED(TVMFFIObjectCreateOpaque(&payload, kTVMFFIStr, NULL, &untouched), "RuntimeError",
               "got type index 65");
  CHECK_RAISED(TVMFFIObjectCreateOpaque(&payload, 200, opaque_user_deleter, &untouched),
               "RuntimeError", "200");
  CHECK_EQ_INT(opaque_deleted, 1); /* the deleter never ran for refused handles */
}

/* ---- custom allocator ---------------------------------------------------- */

static int my_allocs;
static void* my_allocate(size_t size, size_t alignment, int32_t type_index, void* ctx) {
  (void)size;
  (void)alignment;
  (void)type_index;
  my_allocs += *(int*)ctx;
  return NULL;
}

static void test_custom_allocator(void) {
  TVMFFICustomAllocator* def = TVMFFIGetCustomAllocator();
  CHECK(def != NULL && def->allocate != NULL);

  /* The default allocator hands out aligned bodies with a delete_space. */
  size_t aligns[] = {1, 8, 16, 64, 256};
  for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); ++i) {
    char* body = (char*)def->allocate(100, aligns[i], kTVMFFIArray, def->context);
    CHECK(body != NULL);
    CHECK((uintptr_t)body % aligns[i] == 0);
    CHECK((uintptr_t)body % 8 == 0);
    memset(body, 0xAB, 100); /* the whole body is usable */
    TVMFFIObjectAllocHeader* hdr = (TVMFFIObjectAllocHeader*)body - 1;
    CHECK(hdr->delete_space != NULL);
    hdr->delete_space(body);
  }
  CHECK_SLOT_CLEAN();
  void* bad = def->allocate(16, 3, kTVMFFIArray, def->context);
  CHECK(bad == NULL);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err != NULL);
  CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(err)->kind, "ValueError");
  TVMFFIObjectDecRef(err);

  int step = 5;
  TVMFFICustomAllocator mine = {my_allocate, &step};
  CHECK_EQ_INT(TVMFFISetCustomAllocator(&mine), 0);
  CHECK(TVMFFIGetCustomAllocator() == &mine);
  TVMFFIGetCustomAllocator()->allocate(8, 8, 0, TVMFFIGetCustomAllocator()->context);
  CHECK_EQ_INT(my_allocs, 5);
  /* Runtime objects keep working while a custom allocator is installed. */
  TVMFFIAny s;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"a string of 24 bytes....", 24}, &s));
  check_any_release(&s);
  CHECK_EQ_INT(TVMFFISetCustomAllocator(NULL), 0);
  CHECK(TVMFFIGetCustomAllocator() == def);
}

/* A chain link whose deleter releases the next link, as a container releases its items. */
typedef struct {
  TVMFFIObject header;
  TVMFFIObject* next;
} chain_link;

static long links_freed;

static void link_deleter(void* self, int flags) {
  chain_link* l = (chain_link*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) TVMFFIObjectDecRef(l->next);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    free(l);
    links_freed++;
  }
}

#define CHAIN_LINKS 200000

static void drop_chain(void) {
  long freed_before = links_freed;
  TVMFFIObject* head = NULL;
  TVMFFIObject* weak = NULL;
  for (long i = 0; i < CHAIN_LINKS; ++i) {
    chain_link* l = (chain_link*)malloc(sizeof(chain_link));
    CHECK(l != NULL);
    l->header.combined_ref_count = ONE_STRONG | ONE_WEAK;
    l->header.type_index = kTVMFFIObject;
    l->header.deleter = link_deleter;
    l->next = head;
    head = &l->header;
    if (i == CHAIN_LINKS / 2) { /* one link deep inside is also weakly held */
      weak = head;
      __atomic_fetch_add(&weak->combined_ref_count, ONE_WEAK, __ATOMIC_RELAXED);
    }
  }
  CHECK_EQ_INT(TVMFFIObjectDecRef(head), 0);
  CHECK_EQ_INT(links_freed - freed_before, CHAIN_LINKS - 1);
  CHECK_EQ_INT(count_word(weak), ONE_WEAK); /* contents released, header kept */
  simulated_weak_decref(weak);
  CHECK_EQ_INT(links_freed - freed_before, CHAIN_LINKS);
}

/* Drops a chain `frames` stack frames of 4 KiB below the caller. */
static void drop_chain_below(int frames) {
  volatile char pad[4096];
  pad[0] = (char)frames;
  if (frames > 0)
    drop_chain_below(frames - 1);
  else
    drop_chain();
  CHECK(pad[0] == (char)frames); /* keeps the frame (no tail call) */
}

#if defined(__GLIBC__)
static ucontext_t thread_ctx, fiber_ctx;

static void fiber_main(void) { drop_chain(); }
#endif

/* DecRef runs deleters at once within a window of the thread's stack and
 * counts them below it or on another stack: each place a chain is dropped
 * from must be bounded.  On a 1 MiB stack, 200k links were a stack overflow. */
static void* drop_chains(void* arg) {
  (void)arg;
  drop_chain_below(128); /* first release of the thread, 512 KiB down */
  drop_chain();          /* 512 KiB higher: above that window */
  drop_chain_below(64);  /* below this one */
#if defined(__GLIBC__)
  /* On a fiber's stack (a heap block: anywhere relative to the thread's). */
  size_t size = 256 * 1024;
  void* stack = malloc(size);
  CHECK(stack != NULL);
  CHECK_EQ_INT(getcontext(&fiber_ctx), 0);
  fiber_ctx.uc_stack.ss_sp = stack;
  fiber_ctx.uc_stack.ss_size = size;
  fiber_ctx.uc_link = &thread_ctx;
  makecontext(&fiber_ctx, fiber_main, 0);
  CHECK_EQ_INT(swapcontext(&thread_ctx, &fiber_ctx), 0);
  free(stack);
#endif
  return NULL;
}

static void test_deep_chain_released_without_recursion(void) {
  pthread_attr_t attr;
  pthread_t t;
  CHECK_EQ_INT(pthread_attr_init(&attr), 0);
  CHECK_EQ_INT(pthread_attr_setstacksize(&attr, 1 << 20), 0);
  CHECK_EQ_INT(pthread_create(&t, &attr, drop_chains, NULL), 0);
  CHECK_EQ_INT(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&attr);
}

int main(void) {
  test_last_strong_no_weak_calls_both();
  test_strong_then_weak();
  test_weak_released_first();
  test_null_deleter_and_null_handle();
  test_concurrent_counts();
  test_opaque();
  test_custom_allocator();
  test_deep_chain_released_without_recursion();
  CHECK_SLOT_CLEAN();
  printf("test_object: ok\n");
  return 0;
}
