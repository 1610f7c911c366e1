/*
 * test_array.c -- ffi.Array (docs/abi.md §6.3, §7.6, §14.2): layout with inline
 * elements, the ffi.Array* globals with their error paths, view-to-owned
 * conversion of elements, AnyEqual in ArrayContains, reference counts, and
 * the internal tvmffi__array_new / push_move used by other modules (reached
 * here through ffi.GetRegisteredTypeKeys, which builds its result with them).
 */
#include <stddef.h>

#include "check.h"

/* Opaque objects whose deleter counts, to prove elements die exactly once. */
static int g_deleted;
static void count_delete(void* handle) {
  (void)handle;
  ++g_deleted;
}
static TVMFFIObjectHandle tracked(void) {
  TVMFFIObjectHandle h = NULL;
  CHECK_OK(TVMFFIObjectCreateOpaque(NULL, kTVMFFIOpaquePyObject, count_delete, &h));
  return h;
}

static void test_layout_and_elements(void) {
  TVMFFIObjectHandle t = tracked();
  TVMFFIAny args[5] = {check_any_int(7), check_any_cstr("short"),
                       check_any_cstr("a string of more than 7 bytes"), check_any_obj(t),
                       check_any_int(-1)};
  args[4].type_index = kTVMFFINone;
  args[4].v_int64 = 0;
  TVMFFIAny arr;
  CHECK_OK(check_call_global("ffi.Array", args, 5, &arr));
  CHECK_EQ_INT(arr.type_index, kTVMFFIArray);
  TVMFFIObject* obj = arr.v_obj;
  CHECK_EQ_INT(obj->type_index, kTVMFFIArray);
  CHECK_EQ_INT(check_use_count(obj), 1);
  /* The cell sits at +24 and the elements inline at +56. */
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
  CHECK((char*)cell == (char*)obj + 24);
  CHECK(cell->data == (char*)obj + 56);
  CHECK(cell->data_deleter == NULL);
  CHECK_EQ_INT(cell->size, 5);
  CHECK(cell->capacity >= 5);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  CHECK_EQ_INT(items[0].type_index, kTVMFFIInt);
  CHECK_EQ_INT(items[0].v_int64, 7);
  CHECK_EQ_INT(items[1].type_index, kTVMFFISmallStr); /* RawStr became an owned string */
  CHECK_EQ_INT(items[1].small_str_len, 5);
  CHECK(memcmp(items[1].v_bytes, "short\0\0", 8) == 0);
  CHECK_EQ_INT(items[2].type_index, kTVMFFIStr);
  CHECK_EQ_BYTES(*TVMFFIBytesGetByteArrayPtr(items[2].v_obj), "a string of more than 7 bytes");
  CHECK(items[3].v_obj == t);
  CHECK_EQ_INT(check_use_count(t), 2); /* the array holds its own reference */
  CHECK_EQ_INT(items[4].type_index, kTVMFFINone);
  CHECK_EQ_INT(items[4].v_int64, 0);

  /* Size and element access. */
  TVMFFIAny r, a2[2] = {arr, check_any_int(2)};
  CHECK_OK(check_call_global("ffi.ArraySize", &arr, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 5);
  CHECK_OK(check_call_global("ffi.ArrayGetItem", a2, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIStr);
  CHECK_EQ_INT(check_use_count(r.v_obj), 2); /* returned as a new reference */
  check_any_release(&r);
  a2[1] = check_any_int(3);
  CHECK_OK(check_call_global("ffi.ArrayGetItem", a2, 2, &r));
  CHECK(r.v_obj == t);
  CHECK_EQ_INT(check_use_count(t), 3);
  check_any_release(&r);

  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(g_deleted, 0);
  check_any_release(&arr);
  CHECK_EQ_INT(g_deleted, 1); /* released by the array exactly once */
}

static void test_empty(void) {
  TVMFFIAny arr, r;
  CHECK_OK(check_call_global("ffi.Array", NULL, 0, &arr));
  CHECK_EQ_INT(arr.type_index, kTVMFFIArray);
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(arr.v_obj)->size, 0);
  CHECK_OK(check_call_global("ffi.ArraySize", &arr, 1, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  TVMFFIAny a2[2] = {arr, check_any_int(0)};
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", a2, 2, &r), "IndexError",
               "Index 0 out of bounds 0");
  check_any_release(&arr);
}

static void test_get_item_errors(void) {
  TVMFFIAny items[3] = {check_any_int(10), check_any_int(11), check_any_int(12)}, arr, r;
  CHECK_OK(check_call_global("ffi.Array", items, 3, &arr));
  TVMFFIAny a2[2] = {arr, check_any_int(3)};
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", a2, 2, &r), "IndexError",
               "Index 3 out of bounds 3");
  a2[1] = check_any_int(-1); /* no negative indexing */
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", a2, 2, &r), "IndexError", "out of bounds");
  a2[1] = check_any_cstr("0");
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", a2, 2, &r), "TypeError", "int");
  a2[0] = check_any_int(5);
  a2[1] = check_any_int(0);
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", a2, 2, &r), "TypeError", "ffi.Array");
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", &arr, 1, &r), "TypeError", "");
  CHECK_RAISED(check_call_global("ffi.ArraySize", NULL, 0, &r), "TypeError", "");
  TVMFFIAny not_array = check_any_int(1);
  CHECK_RAISED(check_call_global("ffi.ArraySize", &not_array, 1, &r), "TypeError", "ffi.Array");
  /* A List is not an Array. */
  TVMFFIAny list;
  CHECK_OK(check_call_global("ffi.List", NULL, 0, &list));
  CHECK_RAISED(check_call_global("ffi.ArraySize", &list, 1, &r), "TypeError", "ffi.Array");
  check_any_release(&list);
  /* Bool is accepted as an index (int-like), as in the reference. */
  a2[0] = arr;
  a2[1] = check_any_int(1);
  a2[1].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.ArrayGetItem", a2, 2, &r));
  CHECK_EQ_INT(r.v_int64, 11);
  check_any_release(&arr);
}

static void test_contains(void) {
  TVMFFIObjectHandle t = tracked();
  TVMFFIAny items[5] = {check_any_int(1), check_any_cstr("abc"),
                        check_any_cstr("a long string value"), check_any_obj(t), check_any_int(0)};
  items[4].type_index = kTVMFFIFloat;
  items[4].v_float64 = 2.5;
  TVMFFIAny arr, r;
  CHECK_OK(check_call_global("ffi.Array", items, 5, &arr));
  struct {
    TVMFFIAny probe;
    int expect;
  } cases[9];
  cases[0].probe = check_any_int(1), cases[0].expect = 1;
  cases[1].probe = check_any_int(2), cases[1].expect = 0;
  cases[2].probe = check_any_cstr("abc"), cases[2].expect = 1;
  cases[3].probe = check_any_cstr("a long string value"), cases[3].expect = 1; /* content compare */
  cases[4].probe = check_any_cstr("a long string valuf"), cases[4].expect = 0;
  cases[5].probe = check_any_obj(t), cases[5].expect = 1;
  cases[6].probe = check_any_int(1), cases[6].expect = 0;
  cases[6].probe.type_index = kTVMFFIBool; /* Bool true is not Int 1 */
  cases[7].probe = check_any_int(0), cases[7].expect = 1;
  cases[7].probe.type_index = kTVMFFIFloat;
  cases[7].probe.v_float64 = 2.5;
  cases[8].probe = check_any_int(0), cases[8].expect = 0;
  cases[8].probe.type_index = kTVMFFIFloat;
  cases[8].probe.v_float64 = 1.0; /* Float 1.0 is not Int 1 */
  for (int i = 0; i < 9; ++i) {
    TVMFFIAny a2[2] = {arr, cases[i].probe};
    CHECK_OK(check_call_global("ffi.ArrayContains", a2, 2, &r));
    CHECK_EQ_INT(r.type_index, kTVMFFIBool);
    if (r.v_int64 != cases[i].expect) FAIL("ArrayContains case %d", i);
  }
  TVMFFIAny bad[2] = {check_any_int(1), check_any_int(1)};
  CHECK_RAISED(check_call_global("ffi.ArrayContains", bad, 2, &r), "TypeError", "ffi.Array");
  CHECK_EQ_INT(check_use_count(t), 2);
  check_any_release(&arr);
  CHECK_EQ_INT(check_use_count(t), 1);
  TVMFFIObjectDecRef(t);
}

/* ffi.GetRegisteredTypeKeys returns an Array built by tvmffi__array_new and
 * tvmffi__array_push_move in another module: it must have our layout. */
static void test_internal_builder(void) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.GetRegisteredTypeKeys", NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(r.v_obj);
  CHECK(cell->data == (char*)r.v_obj + 56);
  CHECK(cell->size > 10);
  CHECK(cell->size <= cell->capacity);
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  int seen = 0;
  for (int64_t i = 0; i < cell->size; ++i) {
    CHECK(items[i].type_index == kTVMFFIStr || items[i].type_index == kTVMFFISmallStr);
    TVMFFIByteArray key = items[i].type_index == kTVMFFIStr
                              ? *TVMFFIBytesGetByteArrayPtr(items[i].v_obj)
                              : TVMFFISmallBytesGetContentByteArray(&items[i]);
    seen += key.size == 9 && memcmp(key.data, "ffi.Array", 9) == 0;
  }
  CHECK_EQ_INT(seen, 1);
  check_any_release(&r);
}

/* Many elements, including an rvalue-ref argument whose object is stolen. */
static void test_many_and_rvalue(void) {
  enum { N = 300 };
  TVMFFIAny args[N], arr, r;
  for (int i = 0; i < N; ++i) args[i] = check_any_int(i * i);
  TVMFFIObjectHandle t = tracked();
  TVMFFIObject* slot = (TVMFFIObject*)t;
  args[17].type_index = kTVMFFIObjectRValueRef;
  args[17].v_ptr = &slot;
  CHECK_OK(check_call_global("ffi.Array", args, N, &arr));
  CHECK(slot == NULL); /* moved into the array */
  CHECK_EQ_INT(check_use_count(t), 1);
  for (int i = 0; i < N; i += 37) {
    TVMFFIAny a2[2] = {arr, check_any_int(i)};
    CHECK_OK(check_call_global("ffi.ArrayGetItem", a2, 2, &r));
    if (i == 17) {
      CHECK(r.v_obj == t);
    } else {
      CHECK_EQ_INT(r.v_int64, (int64_t)i * i);
    }
    check_any_release(&r);
  }
  int before = g_deleted;
  check_any_release(&arr);
  CHECK_EQ_INT(g_deleted, before + 1);
}

int main(void) {
  test_layout_and_elements();
  test_empty();
  test_get_item_errors();
  test_contains();
  test_internal_builder();
  test_many_and_rvalue();
  CHECK_SLOT_CLEAN();
  printf("test_array: ok\n");
  return 0;
}
