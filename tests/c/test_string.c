/*
 * test_string.c -- TVMFFIStringFromByteArray / TVMFFIBytesFromByteArray
 * (docs/abi.md §5.3, §7.1, §10.6): small form up to 7 bytes with canonical zero
 * padding, heap objects with inline NUL-terminated data at handle + 40.
 */
#include "check.h"

typedef int (*from_fn)(const TVMFFIByteArray*, TVMFFIAny*);

static void check_small(from_fn fn, int32_t small_kind, const char* data, size_t n) {
  TVMFFIAny out;
  memset(&out, 0x5A, sizeof(out)); /* overwritten, never read or released */
  TVMFFIByteArray in = {data, n};
  CHECK_OK(fn(&in, &out));
  CHECK_EQ_INT(out.type_index, small_kind);
  CHECK_EQ_INT(out.small_str_len, n);
  CHECK(n == 0 || memcmp(out.v_bytes, data, n) == 0);
  for (size_t i = n; i < 8; ++i) CHECK_EQ_INT(out.v_bytes[i], 0); /* canonical padding */
  TVMFFIByteArray content = TVMFFISmallBytesGetContentByteArray(&out);
  CHECK_EQ_INT(content.size, n);
}

static void check_heap(from_fn fn, int32_t kind, const char* data, size_t n) {
  TVMFFIAny out;
  TVMFFIByteArray in = {data, n};
  CHECK_OK(fn(&in, &out));
  CHECK_EQ_INT(out.type_index, kind);
  CHECK_EQ_INT(out.zero_padding, 0);
  TVMFFIObject* obj = out.v_obj;
  CHECK(obj != NULL);
  CHECK_EQ_INT(obj->type_index, kind);
  CHECK_EQ_INT(obj->__padding, 0);
  CHECK_EQ_INT(obj->combined_ref_count, (UINT64_C(1) << 32) | 1);
  CHECK(obj->deleter != NULL);
  TVMFFIByteArray* cell = TVMFFIBytesGetByteArrayPtr(obj);
  CHECK(cell->data == (const char*)obj + 40); /* inline storage */
  CHECK(cell->data != data);                  /* a copy */
  CHECK_EQ_INT(cell->size, n);
  CHECK(memcmp(cell->data, data, n) == 0);
  CHECK_EQ_INT(cell->data[n], 0); /* C++ hands data out as a C string */
  check_any_release(&out);
}

static void test_kind(from_fn fn, int32_t small_kind, int32_t heap_kind) {
  check_small(fn, small_kind, "", 0);
  check_small(fn, small_kind, NULL, 0); /* NULL data with size 0 is an empty value */
  check_small(fn, small_kind, "x", 1);
  check_small(fn, small_kind, "1234567", 7);
  check_small(fn, small_kind, "a\0b\0c", 5); /* embedded NULs kept */
  check_heap(fn, heap_kind, "12345678", 8);
  check_heap(fn, heap_kind, "with\0nul inside", 15);
  char big[5000];
  for (size_t i = 0; i < sizeof(big); ++i) big[i] = (char)('a' + i % 26);
  check_heap(fn, heap_kind, big, sizeof(big));
}

static void test_errors(void) {
  TVMFFIAny out;
  TVMFFIByteArray bad = {NULL, 3};
  CHECK_RAISED(TVMFFIStringFromByteArray(&bad, &out), "ValueError", "NULL");
  CHECK_RAISED(TVMFFIBytesFromByteArray(&bad, &out), "ValueError", "NULL");
  CHECK_RAISED(TVMFFIStringFromByteArray(NULL, &out), "ValueError", "must not be NULL");
  TVMFFIByteArray ok = {"abc", 3};
  CHECK_RAISED(TVMFFIBytesFromByteArray(&ok, NULL), "ValueError", "must not be NULL");
}

/* Objects are independent: releasing one copy leaves another intact. */
static void test_independent_copies(void) {
  char buf[32] = "mutable source buffer";
  TVMFFIAny a;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){buf, strlen(buf)}, &a));
  buf[0] = 'X';
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(a.v_obj)->data, "mutable source buffer");
  check_any_release(&a);
}

int main(void) {
  test_kind(TVMFFIStringFromByteArray, kTVMFFISmallStr, kTVMFFIStr);
  test_kind(TVMFFIBytesFromByteArray, kTVMFFISmallBytes, kTVMFFIBytes);
  test_errors();
  test_independent_copies();
  CHECK_SLOT_CLEAN();
  printf("test_string: ok\n");
  return 0;
}
