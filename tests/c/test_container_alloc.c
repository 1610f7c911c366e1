/*
 * test_container_alloc.c -- allocation-failure sweep over the containers:
 * every allocation a container call makes is failed in turn, and the call
 * must then either succeed or fail with MemoryError, leaving the container
 * exactly as it was (same size, same entries, a consistent table) and
 * leaking nothing.  Clearing and erasing must never fail.
 *
 * Failures are injected by defining malloc & co. in this program (they
 * interpose on the runtime); sanitizer builds own the allocator, so there
 * the test is skipped, and under valgrind the sweeps are plain runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>

#include <tvm/ffi/extra/c_container.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int main(void) {
  printf("test_container_alloc: skipped under sanitizers\n");
  return 77;
}
#else

extern void* __libc_malloc(size_t n);
extern void* __libc_calloc(size_t n, size_t m);
extern void* __libc_realloc(void* p, size_t n);
extern void* __libc_memalign(size_t a, size_t n);
extern void __libc_free(void* p);

static long g_countdown = -1; /* allocations left before the injected failure */
static int g_injected;

static int fail_now(void) {
  if (g_countdown < 0) return 0;
  if (g_countdown-- == 0) {
    g_injected = 1;
    return 1;
  }
  return 0;
}

/* Live block count: a step that releases everything it made must end
 * where it started, failure or not (single-threaded test). */
static long g_live;
static void* counted(void* p) {
  if (p != NULL) ++g_live;
  return p;
}

#define INTERPOSE __attribute__((visibility("default")))
INTERPOSE void* malloc(size_t n) { return fail_now() ? NULL : counted(__libc_malloc(n)); }
INTERPOSE void* calloc(size_t n, size_t m) {
  return fail_now() ? NULL : counted(__libc_calloc(n, m));
}
INTERPOSE void* realloc(void* p, size_t n) {
  if (fail_now()) return NULL;
  void* q = __libc_realloc(p, n);
  if (p == NULL) return counted(q);
  if (q == NULL && n == 0) --g_live; /* freed */
  return q;
}
INTERPOSE void free(void* p) {
  if (p != NULL) --g_live;
  __libc_free(p);
}
INTERPOSE int posix_memalign(void** out, size_t a, size_t n) {
  if (fail_now()) return ENOMEM;
  void* p = __libc_memalign(a, n);
  if (p == NULL) return ENOMEM;
  *out = counted(p);
  return 0;
}

/* Global functions are looked up before a sweep: the lookup allocates. */
static TVMFFIObjectHandle fn(const char* name) {
  TVMFFIByteArray ba = check_ba(name);
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&ba, &f));
  CHECK(f != NULL);
  return f;
}

/* Calls f with the next allocations failing from the n-th on (one failure).
 * Returns 0 on success; on failure checks the error is a MemoryError. */
static int call_with_failure(TVMFFIObjectHandle f, TVMFFIAny* args, int n, TVMFFIAny* result,
                             long at) {
  memset(result, 0, sizeof(*result));
  g_countdown = at;
  int rc = TVMFFIFunctionCall(f, args, n, result);
  g_countdown = -1;
  if (rc == 0) {
    CHECK_SLOT_CLEAN();
    return 0;
  }
  CHECK(g_injected);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  CHECK(err != NULL);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
  if (c->kind.size != 11 || memcmp(c->kind.data, "MemoryError", 11) != 0)
    FAIL("expected MemoryError, got %.*s: %.*s", (int)c->kind.size, c->kind.data,
         (int)c->message.size, c->message.data);
  TVMFFIObjectDecRef(err);
  return -1;
}

/* Keeps failing the at-th allocation, at = 0, 1, ..., until a run succeeds
 * without reaching it; `step` makes one attempt and checks the outcome. */
typedef int (*step_fn)(long at);
static void sweep(const char* name, step_fn step) {
  long at = 0;
  /* The first pass fills caches that raising an error populates once
   * (backtrace symbols); the second checks that nothing leaks. */
  for (int pass = 0; pass < 2; ++pass) {
    for (at = 0;; ++at) {
      g_injected = 0;
      long live = g_live;
      int rc = step(at);
      if (pass == 1 && g_live != live)
        FAIL("%s: %ld blocks leaked with allocation %ld failing", name, g_live - live, at);
      if (rc == 0 && !g_injected) break;
      if (at > 100000) FAIL("%s: sweep does not end", name);
    }
  }
  printf("  %s: %ld allocation points\n", name, at);
}

static TVMFFIObjectHandle f_array, f_list, f_append, f_insert, f_replace, f_clear, f_map, f_dict,
    f_set, f_get, f_erase, f_iter;

static const char* kLong[3] = {"a string longer than seven", "another long string value",
                               "the third long string here"};

/* ---- cases -------------------------------------------------------------- */

static int step_array(long at) {
  TVMFFIAny args[8] = {check_any_int(1),         check_any_cstr(kLong[0]), check_any_cstr("short"),
                       check_any_cstr(kLong[1]), check_any_int(2),         check_any_cstr(kLong[2]),
                       check_any_int(3),         check_any_int(4)};
  TVMFFIAny r;
  if (call_with_failure(f_array, args, 8, &r, at) != 0) return -1;
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(r.v_obj)->size, 8);
  check_any_release(&r);
  return 0;
}

static TVMFFIAny g_list; /* [0, 1, 2, 3] with capacity 4: the next append grows */

static void list_expect(const int64_t* ref, int64_t n) {
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(g_list.v_obj);
  CHECK_EQ_INT(c->size, n);
  for (int64_t i = 0; i < n; ++i) CHECK_EQ_INT(((TVMFFIAny*)c->data)[i].v_int64, ref[i]);
}

static void list_reset(void) {
  TVMFFIAny items[4] = {check_any_int(0), check_any_int(1), check_any_int(2), check_any_int(3)};
  memset(&g_list, 0, sizeof(g_list));
  CHECK_OK(TVMFFIFunctionCall(f_list, items, 4, &g_list));
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(g_list.v_obj)->capacity, 4);
}

static int step_list_append(long at) {
  static const int64_t before[4] = {0, 1, 2, 3}, after[5] = {0, 1, 2, 3, 4};
  list_reset();
  TVMFFIAny a[2] = {g_list, check_any_int(4)}, r;
  int rc = call_with_failure(f_append, a, 2, &r, at);
  list_expect(rc == 0 ? after : before, rc == 0 ? 5 : 4);
  check_any_release(&g_list);
  return rc;
}

static int step_list_insert(long at) {
  static const int64_t before[4] = {0, 1, 2, 3}, after[5] = {0, 9, 1, 2, 3};
  list_reset();
  TVMFFIAny a[3] = {g_list, check_any_int(1), check_any_int(9)}, r;
  int rc = call_with_failure(f_insert, a, 3, &r, at);
  list_expect(rc == 0 ? after : before, rc == 0 ? 5 : 4);
  check_any_release(&g_list);
  return rc;
}

static int step_list_replace(long at) {
  static const int64_t before[4] = {0, 1, 2, 3}, after[7] = {0, 7, 8, 9, 10, 11, 3};
  list_reset();
  TVMFFIAny items[5] = {check_any_int(7), check_any_int(8), check_any_int(9), check_any_int(10),
                        check_any_int(11)},
            repl;
  CHECK_OK(TVMFFIFunctionCall(f_list, items, 5, &repl));
  TVMFFIAny a[4] = {g_list, check_any_int(1), check_any_int(3), repl}, r;
  int rc = call_with_failure(f_replace, a, 4, &r, at);
  list_expect(rc == 0 ? after : before, rc == 0 ? 7 : 4);
  check_any_release(&repl);
  check_any_release(&g_list);
  return rc;
}

/* Clearing a list of many heap values never needs to succeed an allocation. */
static int step_list_clear(long at) {
  TVMFFIAny items[20], l, r;
  for (int i = 0; i < 20; ++i) items[i] = check_any_cstr(kLong[i % 3]);
  CHECK_OK(TVMFFIFunctionCall(f_list, items, 20, &l));
  if (call_with_failure(f_clear, &l, 1, &r, at) != 0) FAIL("ffi.ListClear failed");
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(l.v_obj)->size, 0);
  check_any_release(&l);
  return 0;
}

static int step_map(long at) {
  TVMFFIAny args[40];
  for (int i = 0; i < 20; ++i) {
    args[2 * i] = i % 4 ? check_any_int(i) : check_any_cstr(kLong[i % 3]);
    args[2 * i + 1] = check_any_cstr(kLong[(i + 1) % 3]);
  }
  TVMFFIAny r;
  if (call_with_failure(f_map, args, 40, &r, at) != 0) return -1;
  CHECK_EQ_INT(TVMFFIMapGetCellPtr(r.v_obj)->size, 18); /* 3 distinct string keys */
  check_any_release(&r);
  return 0;
}

/* A Dict of n int keys 0..n-1; setting key n crosses a growth boundary. */
static int g_dict_n;
static void dict_check(TVMFFIAny d, int n) {
  TVMFFIMapCell* c = TVMFFIMapGetCellPtr(d.v_obj);
  CHECK_EQ_INT(c->size, n);
  uint64_t p = TVMFFIMapCellIterBegin(c);
  for (int i = 0; i < n; ++i, p = TVMFFIMapCellIterNext(c, p)) {
    CHECK_EQ_INT(TVMFFIMapCellKey(c, p)->v_int64, i);
    uint64_t found;
    CHECK_OK(TVMFFIMapCellFind(c, TVMFFIMapCellKey(c, p), &found));
    CHECK(found == p);
  }
  CHECK(p == TVMFFI_MAP_ITER_END);
}

static int step_dict_set(long at) {
  TVMFFIAny d, r;
  CHECK_OK(TVMFFIFunctionCall(f_dict, NULL, 0, &d));
  for (int i = 0; i < g_dict_n; ++i) {
    TVMFFIAny a[3] = {d, check_any_int(i), check_any_cstr(kLong[i % 3])};
    CHECK_OK(TVMFFIFunctionCall(f_set, a, 3, &r));
  }
  TVMFFIAny a[3] = {d, check_any_int(g_dict_n), check_any_cstr(kLong[0])};
  int rc = call_with_failure(f_set, a, 3, &r, at);
  dict_check(d, rc == 0 ? g_dict_n + 1 : g_dict_n);
  check_any_release(&d);
  return rc;
}

static int step_dict_lookup_erase(long at) {
  TVMFFIAny d, r;
  CHECK_OK(TVMFFIFunctionCall(f_dict, NULL, 0, &d));
  for (int i = 0; i < 12; ++i) {
    TVMFFIAny a[3] = {d, check_any_cstr(kLong[i % 3]), check_any_int(i)};
    a[1] = i < 3 ? check_any_cstr(kLong[i]) : check_any_int(i);
    CHECK_OK(TVMFFIFunctionCall(f_set, a, 3, &r));
  }
  /* A long RawStr key is converted to a String for the lookup. */
  TVMFFIAny q[2] = {d, check_any_cstr(kLong[1])};
  int rc = call_with_failure(f_get, q, 2, &r, at);
  if (rc == 0) CHECK_EQ_INT(r.v_int64, 1);
  int rc2 = call_with_failure(f_erase, q, 2, &r, at);
  CHECK_EQ_INT(TVMFFIMapGetCellPtr(d.v_obj)->size, rc2 == 0 ? 11 : 12);
  int rc3 = call_with_failure(f_iter, &d, 1, &r, at);
  if (rc3 == 0) check_any_release(&r);
  check_any_release(&d);
  return rc || rc2 || rc3 ? -1 : 0;
}

int main(void) {
  f_array = fn("ffi.Array");
  f_list = fn("ffi.List");
  f_append = fn("ffi.ListAppend");
  f_insert = fn("ffi.ListInsert");
  f_replace = fn("ffi.ListReplaceSlice");
  f_clear = fn("ffi.ListClear");
  f_map = fn("ffi.Map");
  f_dict = fn("ffi.Dict");
  f_set = fn("ffi.DictSetItem");
  f_get = fn("ffi.DictGetItem");
  f_erase = fn("ffi.DictErase");
  f_iter = fn("ffi.DictForwardIterFunctor");
  /* Warm caches that allocate once (the missing sentinel, hook columns). */
  step_map(-1);
  step_dict_lookup_erase(-1);

  sweep("ffi.Array", step_array);
  sweep("ffi.ListAppend growth", step_list_append);
  sweep("ffi.ListInsert growth", step_list_insert);
  sweep("ffi.ListReplaceSlice growth", step_list_replace);
  sweep("ffi.ListClear", step_list_clear);
  sweep("ffi.Map 20 pairs", step_map);
  static const int boundaries[] = {2, 4, 7, 8, 15, 16, 31};
  for (size_t i = 0; i < sizeof(boundaries) / sizeof(boundaries[0]); ++i) {
    char name[64];
    g_dict_n = boundaries[i];
    snprintf(name, sizeof(name), "ffi.DictSetItem at size %d", g_dict_n);
    sweep(name, step_dict_set);
  }
  sweep("Dict lookup/erase/iterator", step_dict_lookup_erase);

  TVMFFIObjectHandle fs[] = {f_array, f_list, f_append, f_insert, f_replace, f_clear,
                             f_map,   f_dict, f_set,    f_get,    f_erase,   f_iter};
  for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); ++i) TVMFFIObjectDecRef(fs[i]);
  CHECK_SLOT_CLEAN();
  printf("test_container_alloc: ok\n");
  return 0;
}

#endif
