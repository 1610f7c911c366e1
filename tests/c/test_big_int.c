/*
 * test_big_int.c -- ffi.BigInt (tvm_ffi_string(3)): TVMFFIBigIntFromByteArray
 * normalization (int64 values stay Int, redundant sign words dropped, empty
 * is 0, partial words rejected), the borrowed content, decimal repr, Map keys
 * by value, structural equality, refcounts.
 */
#include "check.h"

static TVMFFIAny from_words(const int64_t* w, size_t n) {
  TVMFFIByteArray b = {(const char*)w, n * sizeof(int64_t)};
  TVMFFIAny out;
  CHECK_OK(TVMFFIBigIntFromByteArray(&b, &out));
  return out;
}

static void check_repr(TVMFFIAny v, const char* expect) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ReprPrint", &v, 1, &r));
  TVMFFIByteArray s = r.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&r)
                                                      : *TVMFFIBytesGetByteArrayPtr(r.v_obj);
  CHECK_EQ_BYTES(s, expect);
  check_any_release(&r);
}

int main(void) {
  /* fits int64: an Int, whatever the padding */
  int64_t five[3] = {5, 0, 0};
  TVMFFIAny v = from_words(five, 3);
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK_EQ_INT(v.v_int64, 5);
  int64_t minus[2] = {-3, -1};
  v = from_words(minus, 2);
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK_EQ_INT(v.v_int64, -3);
  v = from_words(NULL, 0);
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK_EQ_INT(v.v_int64, 0);
  TVMFFIByteArray seven = {"1234567", 7};
  TVMFFIAny out;
  CHECK_RAISED(TVMFFIBigIntFromByteArray(&seven, &out), "ValueError", "whole 64-bit words");

  /* 2^64 needs a sign word; -2^63-1 two words; extra sign words are dropped */
  int64_t two64[3] = {0, 1, 0};
  TVMFFIAny big = from_words(two64, 3);
  CHECK_EQ_INT(big.type_index, kTVMFFIBigInt);
  TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&big);
  CHECK_EQ_INT(content.size, 16);
  CHECK_EQ_INT(((const int64_t*)content.data)[1], 1);
  check_repr(big, "18446744073709551616");
  int64_t below[2] = {INT64_MAX, -1}; /* -2^63 - 1 */
  TVMFFIAny neg = from_words(below, 2);
  CHECK_EQ_INT(neg.type_index, kTVMFFIBigInt);
  check_repr(neg, "-9223372036854775809");
  TVMFFIAny i = check_any_int(-42);
  content = TVMFFIBigIntGetContentByteArray(&i);
  CHECK(content.size == 8 && content.data == (const char*)&i.v_int64);

  /* Map keys by value: an equal BigInt built separately finds the entry */
  TVMFFIAny kv[2] = {big, check_any_cstr("v")}, map;
  CHECK_OK(check_call_global("ffi.Map", kv, 2, &map));
  TVMFFIAny probe = from_words(two64, 2);
  CHECK(probe.v_obj != big.v_obj);
  TVMFFIAny args[2] = {map, probe}, r;
  CHECK_OK(check_call_global("ffi.MapCount", args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  TVMFFIAny eq_args[4] = {big, probe, check_any_int(0), check_any_int(0)};
  eq_args[2].type_index = eq_args[3].type_index = kTVMFFIBool;
  CHECK_OK(check_call_global("ffi.StructuralEqual", eq_args, 4, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  eq_args[1] = neg;
  CHECK_OK(check_call_global("ffi.StructuralEqual", eq_args, 4, &r));
  CHECK_EQ_INT(r.v_int64, 0);

  CHECK_EQ_INT(check_use_count(big.v_obj), 2); /* ours and the map's */
  check_any_release(&map);
  CHECK_EQ_INT(check_use_count(big.v_obj), 1);
  check_any_release(&probe);
  check_any_release(&big);
  check_any_release(&neg);
  CHECK_SLOT_CLEAN();
  printf("test_big_int: ok\n");
  return 0;
}
