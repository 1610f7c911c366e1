/*
 * test_list.c -- ffi.List (docs/abi.md §7.7, §14.2): separate malloc'd buffer
 * with a free-compatible data_deleter that is never NULL, in-place mutation
 * through every ffi.List* global (checked against a plain int array), the
 * bounds and type errors, ReplaceSlice with itself, growth the way C++
 * header code does it (TVMFFIListCellReserve), and reference counts.
 */
#include <stdlib.h>

#include <tvm/ffi/extra/c_container.h>

#include "check.h"

static int g_deleted;
static void count_delete(void* handle) {
  (void)handle;
  ++g_deleted;
}
static TVMFFIAny tracked(void) {
  TVMFFIObjectHandle h = NULL;
  CHECK_OK(TVMFFIObjectCreateOpaque(NULL, kTVMFFIOpaquePyObject, count_delete, &h));
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIOpaquePyObject;
  a.v_obj = (TVMFFIObject*)h;
  return a;
}

/* Calls a global and releases its result. */
static void call_ok(const char* name, TVMFFIAny* args, int n) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(name, args, n, &r));
  check_any_release(&r);
}

static TVMFFIAny new_list(int n, int64_t first) {
  TVMFFIAny items[64], l;
  CHECK(n <= 64);
  for (int i = 0; i < n; ++i) items[i] = check_any_int(first + i);
  CHECK_OK(check_call_global("ffi.List", items, n, &l));
  CHECK_EQ_INT(l.type_index, kTVMFFIList);
  return l;
}

/* The list holds exactly the ints ref[0..n). */
static void expect_ints(TVMFFIAny l, const int64_t* ref, int64_t n) {
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(l.v_obj);
  CHECK_EQ_INT(cell->size, n);
  CHECK(cell->size <= cell->capacity);
  CHECK(cell->data_deleter != NULL);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  for (int64_t i = 0; i < n; ++i) {
    if (items[i].type_index != kTVMFFIInt || items[i].v_int64 != ref[i])
      FAIL("element %lld: got kind %d value %lld, want %lld", (long long)i, items[i].type_index,
           (long long)items[i].v_int64, (long long)ref[i]);
  }
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ListSize", &l, 1, &r));
  CHECK_EQ_INT(r.v_int64, n);
}

static void test_layout(void) {
  TVMFFIAny l = new_list(3, 1);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(l.v_obj);
  CHECK((char*)cell == (char*)l.v_obj + 24);
  CHECK(cell->data != (char*)l.v_obj + 56); /* a separate buffer */
  CHECK(cell->data_deleter != NULL);
  CHECK_EQ_INT(cell->size, 3);
  CHECK(cell->capacity >= 3);
  check_any_release(&l);
  /* Like the reference, ffi.List starts with room for at least 4. */
  for (int n = 0; n <= 6; ++n) {
    TVMFFIAny e = new_list(n, 0);
    cell = TVMFFISeqGetCellPtr(e.v_obj);
    CHECK_EQ_INT(cell->size, n);
    CHECK_EQ_INT(cell->capacity, n < 4 ? 4 : n);
    CHECK(cell->data != NULL);
    check_any_release(&e);
  }
  /* The deleter is free-compatible: it accepts NULL and C++'s buffers. */
  l = new_list(0, 0);
  cell = TVMFFISeqGetCellPtr(l.v_obj);
  cell->data_deleter(NULL);
  void* cpp_buffer = malloc(64 * sizeof(TVMFFIAny));
  cell->data_deleter(cell->data); /* what C++ does after moving elements out */
  cell->data = cpp_buffer;
  cell->capacity = 64;
  check_any_release(&l); /* frees the malloc'd buffer through data_deleter */
}

static void test_get_set(void) {
  TVMFFIAny l = new_list(4, 10), r;
  TVMFFIAny a2[2] = {l, check_any_int(2)};
  CHECK_OK(check_call_global("ffi.ListGetItem", a2, 2, &r));
  CHECK_EQ_INT(r.v_int64, 12);
  a2[1] = check_any_int(4);
  CHECK_RAISED(check_call_global("ffi.ListGetItem", a2, 2, &r), "IndexError",
               "Index 4 out of bounds 4");
  a2[1] = check_any_int(-1);
  CHECK_RAISED(check_call_global("ffi.ListGetItem", a2, 2, &r), "IndexError", "out of bounds");
  TVMFFIAny t = tracked();
  TVMFFIAny a3[3] = {l, check_any_int(1), t};
  call_ok("ffi.ListSetItem", a3, 3);
  CHECK_EQ_INT(check_use_count(t.v_obj), 2);
  CHECK_OK(check_call_global("ffi.ListGetItem", (a2[1] = check_any_int(1), a2), 2, &r));
  CHECK(r.v_obj == t.v_obj);
  check_any_release(&r);
  a3[2] = check_any_cstr("replaced"); /* the old element is released */
  call_ok("ffi.ListSetItem", a3, 3);
  CHECK_EQ_INT(check_use_count(t.v_obj), 1);
  a3[1] = check_any_int(9);
  CHECK_RAISED(check_call_global("ffi.ListSetItem", a3, 3, &r), "IndexError", "out of bounds");
  a3[1] = check_any_cstr("x");
  CHECK_RAISED(check_call_global("ffi.ListSetItem", a3, 3, &r), "TypeError", "int");
  TVMFFIAny arr;
  CHECK_OK(check_call_global("ffi.Array", NULL, 0, &arr));
  CHECK_RAISED(check_call_global("ffi.ListSize", &arr, 1, &r), "TypeError", "ffi.List");
  CHECK_RAISED(check_call_global("ffi.ListGetItem", &l, 1, &r), "TypeError", "");
  check_any_release(&arr);
  check_any_release(&t);
  check_any_release(&l);
  CHECK_EQ_INT(g_deleted, 1);
  g_deleted = 0;
}

/* Drives every mutator with a reference model; sizes cross several buffer
 * growths. */
static void test_against_reference(void) {
  TVMFFIAny l = new_list(0, 0), r;
  int64_t ref[4096];
  int64_t n = 0;
  uint64_t rng = 0x9E3779B97F4A7C15u;
  for (int op = 0; op < 3000; ++op) {
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    unsigned what = (unsigned)(rng >> 59) % 8;
    int64_t v = (int64_t)(rng >> 20) % 1000;
    int64_t i = n > 0 ? (int64_t)((rng >> 33) % (uint64_t)(n + 1)) : 0;
    if (n > 3000) what = 3; /* keep it bounded */
    if (what <= 1) {
      TVMFFIAny a2[2] = {l, check_any_int(v)};
      call_ok("ffi.ListAppend", a2, 2);
      ref[n++] = v;
    } else if (what == 2) {
      TVMFFIAny a3[3] = {l, check_any_int(i), check_any_int(v)};
      call_ok("ffi.ListInsert", a3, 3);
      memmove(ref + i + 1, ref + i, (size_t)(n - i) * sizeof(int64_t));
      ref[i] = v;
      ++n;
    } else if (what == 3 && n > 0) {
      int64_t k = i % n;
      TVMFFIAny a2[2] = {l, check_any_int(k)};
      CHECK_OK(check_call_global("ffi.ListPop", a2, 2, &r));
      CHECK_EQ_INT(r.v_int64, ref[k]);
      memmove(ref + k, ref + k + 1, (size_t)(n - k - 1) * sizeof(int64_t));
      --n;
    } else if (what == 4 && n > 0) {
      int64_t k = i % n;
      TVMFFIAny a2[2] = {l, check_any_int(k)};
      call_ok("ffi.ListErase", a2, 2);
      memmove(ref + k, ref + k + 1, (size_t)(n - k - 1) * sizeof(int64_t));
      --n;
    } else if (what == 5) {
      int64_t start = i, stop = start + (int64_t)((rng >> 40) % 4);
      if (stop > n) stop = n;
      TVMFFIAny a3[3] = {l, check_any_int(start), check_any_int(stop)};
      call_ok("ffi.ListEraseRange", a3, 3);
      memmove(ref + start, ref + stop, (size_t)(n - stop) * sizeof(int64_t));
      n -= stop - start;
    } else if (what == 6) {
      /* Replace [start, stop) with a fresh list of 0..3 elements. */
      int64_t start = i, stop = start + (int64_t)((rng >> 40) % 3);
      if (stop > n) stop = n;
      int m = (int)((rng >> 50) % 4);
      TVMFFIAny repl = new_list(m, v);
      TVMFFIAny a4[4] = {l, check_any_int(start), check_any_int(stop), repl};
      call_ok("ffi.ListReplaceSlice", a4, 4);
      check_any_release(&repl);
      memmove(ref + start + m, ref + stop, (size_t)(n - stop) * sizeof(int64_t));
      for (int k = 0; k < m; ++k) ref[start + k] = v + k;
      n += m - (stop - start);
    } else if (what == 7 && op % 5 == 0) {
      call_ok("ffi.ListReverse", &l, 1);
      for (int64_t a = 0, b = n - 1; a < b; ++a, --b) {
        int64_t tmp = ref[a];
        ref[a] = ref[b];
        ref[b] = tmp;
      }
    }
    if (op % 50 == 0) expect_ints(l, ref, n);
  }
  expect_ints(l, ref, n);
  /* Contains uses AnyEqual: Int matches, Bool and Float of the same value do not. */
  if (n > 0) {
    TVMFFIAny a2[2] = {l, check_any_int(ref[n / 2])};
    CHECK_OK(check_call_global("ffi.ListContains", a2, 2, &r));
    CHECK_EQ_INT(r.type_index, kTVMFFIBool);
    CHECK_EQ_INT(r.v_int64, 1);
    a2[1] = check_any_int(-5);
    CHECK_OK(check_call_global("ffi.ListContains", a2, 2, &r));
    CHECK_EQ_INT(r.v_int64, 0);
  }
  call_ok("ffi.ListClear", &l, 1);
  expect_ints(l, ref, 0);
  check_any_release(&l);
}

static void test_range_errors(void) {
  TVMFFIAny l = new_list(5, 0), r;
  TVMFFIAny a3[3] = {l, check_any_int(6), check_any_int(1)};
  CHECK_RAISED(check_call_global("ffi.ListInsert", a3, 3, &r), "IndexError",
               "Index 6 out of bounds [0, 5]");
  a3[1] = check_any_int(-1);
  CHECK_RAISED(check_call_global("ffi.ListInsert", a3, 3, &r), "IndexError", "");
  a3[1] = check_any_int(5); /* inserting at size is an append */
  call_ok("ffi.ListInsert", a3, 3);
  TVMFFIAny a2[2] = {l, check_any_int(6)};
  CHECK_RAISED(check_call_global("ffi.ListPop", a2, 2, &r), "IndexError", "");
  CHECK_RAISED(check_call_global("ffi.ListErase", a2, 2, &r), "IndexError", "");
  /* EraseRange: start == stop is a no-op wherever it is; else 0 <= start < stop <= size. */
  TVMFFIAny e[3] = {l, check_any_int(100), check_any_int(100)};
  call_ok("ffi.ListEraseRange", e, 3);
  e[1] = check_any_int(3), e[2] = check_any_int(2);
  CHECK_RAISED(check_call_global("ffi.ListEraseRange", e, 3, &r), "IndexError",
               "Erase range [3, 2) out of bounds 6");
  e[1] = check_any_int(-1), e[2] = check_any_int(2);
  CHECK_RAISED(check_call_global("ffi.ListEraseRange", e, 3, &r), "IndexError", "");
  e[1] = check_any_int(0), e[2] = check_any_int(7);
  CHECK_RAISED(check_call_global("ffi.ListEraseRange", e, 3, &r), "IndexError", "");
  TVMFFIAny m;
  CHECK_OK(check_call_global("ffi.Map", NULL, 0, &m));
  TVMFFIAny rs[4] = {l, check_any_int(0), check_any_int(1), m};
  CHECK_RAISED(check_call_global("ffi.ListReplaceSlice", rs, 4, &r), "TypeError",
               "Expected `List<Any>` but got `ffi.Map`");
  rs[3] = l;
  rs[2] = check_any_int(9);
  CHECK_RAISED(check_call_global("ffi.ListReplaceSlice", rs, 4, &r), "IndexError",
               "Erase range [0, 9) out of bounds 6");
  TVMFFIAny ap[2] = {m, check_any_int(1)};
  CHECK_RAISED(check_call_global("ffi.ListAppend", ap, 2, &r), "TypeError",
               "Expected `List<Any>` but got `ffi.Map`");
  int64_t ref[] = {0, 1, 2, 3, 4, 1};
  expect_ints(l, ref, 6); /* failed calls changed nothing */
  /* The replacement may also be an Array (the reference converts it). */
  TVMFFIAny items[2] = {check_any_int(7), check_any_int(8)}, arr;
  CHECK_OK(check_call_global("ffi.Array", items, 2, &arr));
  rs[1] = check_any_int(5), rs[2] = check_any_int(6), rs[3] = arr;
  call_ok("ffi.ListReplaceSlice", rs, 4);
  int64_t ref2[] = {0, 1, 2, 3, 4, 7, 8};
  expect_ints(l, ref2, 7);
  check_any_release(&arr);
  check_any_release(&m);
  check_any_release(&l);
}

static void test_replace_with_itself(void) {
  TVMFFIAny l = new_list(4, 1); /* [1 2 3 4] */
  TVMFFIAny a4[4] = {l, check_any_int(1), check_any_int(3), l};
  call_ok("ffi.ListReplaceSlice", a4, 4); /* [1] + [1 2 3 4] + [4] */
  int64_t ref[] = {1, 1, 2, 3, 4, 4};
  expect_ints(l, ref, 6);
  TVMFFIAny all[4] = {l, check_any_int(0), check_any_int(6), l};
  call_ok("ffi.ListReplaceSlice", all, 4); /* identity */
  expect_ints(l, ref, 6);
  check_any_release(&l);
}

/* Growth as C++ header code performs it, then the runtime keeps mutating. */
static void test_reserve_like_cpp(void) {
  TVMFFIAny l = new_list(2, 7);
  TVMFFIAny t = tracked();
  TVMFFIAny a2[2] = {l, t};
  call_ok("ffi.ListAppend", a2, 2);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(l.v_obj);
  void (*deleter)(void*) = cell->data_deleter;
  CHECK_OK(TVMFFIListCellReserve(cell, 100));
  CHECK_EQ_INT(cell->capacity, 100);
  CHECK(cell->data_deleter == deleter); /* the old deleter stays */
  CHECK_EQ_INT(cell->size, 3);
  CHECK_EQ_INT(check_use_count(t.v_obj), 2); /* moved, not copied */
  for (int i = 0; i < 200; ++i) {
    a2[1] = check_any_int(i);
    call_ok("ffi.ListAppend", a2, 2);
  }
  CHECK_EQ_INT(cell->size, 203);
  check_any_release(&t);
  CHECK_EQ_INT(g_deleted, 0);
  check_any_release(&l);
  CHECK_EQ_INT(g_deleted, 1);
  g_deleted = 0;
}

/* ffi.ListReserve grows the capacity only, keeping the items; bad input is an error. */
static void test_list_reserve_global(void) {
  TVMFFIAny l = new_list(3, 1);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(l.v_obj);
  TVMFFIAny a2[2] = {l, check_any_int(50)};
  call_ok("ffi.ListReserve", a2, 2);
  CHECK_EQ_INT(cell->capacity, 50);
  void* data = cell->data;
  a2[1] = check_any_int(-1);
  call_ok("ffi.ListReserve", a2, 2); /* smaller or negative: nothing changes */
  CHECK(cell->data == data);
  CHECK_EQ_INT(cell->capacity, 50);
  static const int64_t want[] = {1, 2, 3};
  expect_ints(l, want, 3);
  TVMFFIAny r;
  a2[1] = check_any_int(INT64_MAX);
  CHECK_RAISED(check_call_global("ffi.ListReserve", a2, 2, &r), "MemoryError", "out of memory");
  CHECK_EQ_INT(cell->capacity, 50);
  a2[0] = check_any_int(1);
  CHECK_RAISED(check_call_global("ffi.ListReserve", a2, 2, &r), "TypeError", "List<Any>");
  check_any_release(&l);
}

/* Pop hands the element's reference to the caller. */
static void test_pop_ownership(void) {
  TVMFFIAny t = tracked(), l, r;
  CHECK_OK(check_call_global("ffi.List", &t, 1, &l));
  check_any_release(&t); /* only the list holds it now */
  TVMFFIAny a2[2] = {l, check_any_int(0)};
  CHECK_OK(check_call_global("ffi.ListPop", a2, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIOpaquePyObject);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  CHECK_RAISED(check_call_global("ffi.ListPop", a2, 2, &t), "IndexError",
               "Index 0 out of bounds 0");
  check_any_release(&l);
  CHECK_EQ_INT(g_deleted, 0);
  check_any_release(&r);
  CHECK_EQ_INT(g_deleted, 1);
  g_deleted = 0;
}

int main(void) {
  test_layout();
  test_get_set();
  test_against_reference();
  test_range_errors();
  test_replace_with_itself();
  test_reserve_like_cpp();
  test_list_reserve_global();
  test_pop_ownership();
  CHECK_SLOT_CLEAN();
  printf("test_list: ok\n");
  return 0;
}
