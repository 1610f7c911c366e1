/*
 * test_any.c -- TVMFFIAnyViewToOwnedAny (docs/abi.md §5.5, §10.3): copies of POD
 * kinds, strings and bytes turned into owned values, objects retained and
 * rvalue-ref slots stolen.
 */
#include "check.h"

static TVMFFIAny view_of(int32_t type_index, uint64_t bits) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = type_index;
  v.v_uint64 = bits;
  return v;
}

static void test_pod_copied_bit_for_bit(void) {
  TVMFFIAny views[8];
  views[0] = view_of(kTVMFFINone, 0);
  views[1] = view_of(kTVMFFIInt, (uint64_t)-7);
  views[2] = view_of(kTVMFFIBool, 1);
  views[3] = view_of(kTVMFFIFloat, 0);
  views[3].v_float64 = -2.5;
  views[4] = view_of(kTVMFFIOpaquePtr, (uint64_t)(uintptr_t)&views);
  views[5] = view_of(kTVMFFIDataType, 0);
  views[5].v_dtype.code = 2;
  views[5].v_dtype.bits = 32;
  views[5].v_dtype.lanes = 1;
  views[6] = view_of(kTVMFFIDevice, 0);
  views[6].v_device.device_type = kDLCUDA;
  views[6].v_device.device_id = 1;
  views[7] = view_of(kTVMFFISmallStr, 0);
  views[7].small_str_len = 2;
  memcpy(views[7].v_bytes, "hi", 2);
  for (int i = 0; i < 8; ++i) {
    TVMFFIAny out;
    memset(&out, 0xEE, sizeof(out));
    CHECK_OK(TVMFFIAnyViewToOwnedAny(&views[i], &out));
    CHECK(memcmp(&out, &views[i], sizeof(out)) == 0);
  }
  /* A DLTensor* view passes through unchanged (docs/abi.md §5.4 note). */
  DLTensor t;
  memset(&t, 0, sizeof(t));
  TVMFFIAny tv = view_of(kTVMFFIDLTensorPtr, (uint64_t)(uintptr_t)&t);
  TVMFFIAny out;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&tv, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFIDLTensorPtr);
  CHECK(out.v_ptr == &t);
}

static void test_raw_str(void) {
  TVMFFIAny v = view_of(kTVMFFIRawStr, 0), out;
  v.v_c_str = "seven77";
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFISmallStr);
  CHECK_EQ_INT(out.small_str_len, 7);
  CHECK(memcmp(out.v_bytes, "seven77", 7) == 0 && out.v_bytes[7] == 0);

  v.v_c_str = "eight888";
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFIStr);
  CHECK_EQ_INT(out.zero_padding, 0);
  CHECK(out.v_obj != NULL);
  CHECK_EQ_BYTES(*TVMFFIBytesGetByteArrayPtr(out.v_obj), "eight888");
  CHECK(TVMFFIBytesGetByteArrayPtr(out.v_obj)->data != v.v_c_str); /* a copy */
  CHECK_EQ_INT(check_use_count(out.v_obj), 1);
  check_any_release(&out);

  v.v_c_str = "";
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFISmallStr);
  CHECK_EQ_INT(out.small_str_len, 0);
  CHECK_EQ_INT(out.v_uint64, 0);

  v.v_c_str = NULL;
  CHECK_RAISED(TVMFFIAnyViewToOwnedAny(&v, &out), "ValueError", "NULL");
}

static void test_byte_array(void) {
  TVMFFIByteArray small = {"a\0b", 3}, big = {"0123456789\0abc", 14};
  TVMFFIAny v = view_of(kTVMFFIByteArrayPtr, 0), out;
  v.v_ptr = &small;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFISmallBytes);
  CHECK_EQ_INT(out.small_str_len, 3);
  CHECK(memcmp(out.v_bytes, "a\0b\0\0\0\0\0", 8) == 0);

  v.v_ptr = &big;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK_EQ_INT(out.type_index, kTVMFFIBytes);
  TVMFFIByteArray* cell = TVMFFIBytesGetByteArrayPtr(out.v_obj);
  CHECK_EQ_INT(cell->size, 14);
  CHECK(memcmp(cell->data, big.data, 14) == 0);
  CHECK_EQ_INT(cell->data[14], 0);
  check_any_release(&out);
}

static void test_objects_retained(void) {
  TVMFFIAny s;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"a heap string", 13}, &s));
  TVMFFIAny out;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&s, &out));
  CHECK(memcmp(&out, &s, sizeof(out)) == 0);
  CHECK_EQ_INT(check_use_count(s.v_obj), 2);
  check_any_release(&out);
  CHECK_EQ_INT(check_use_count(s.v_obj), 1);
  check_any_release(&s);
}

static void test_rvalue_ref(void) {
  TVMFFIAny s;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"moved string value", 18}, &s));
  TVMFFIObject* slot = s.v_obj; /* the caller's ObjectPtr holding one reference */
  TVMFFIAny v = view_of(kTVMFFIObjectRValueRef, 0), out;
  v.v_ptr = &slot;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&v, &out));
  CHECK(slot == NULL); /* stolen */
  CHECK_EQ_INT(out.type_index, kTVMFFIStr);
  CHECK(out.v_obj == s.v_obj);
  CHECK_EQ_INT(check_use_count(out.v_obj), 1); /* transferred, not added */
  TVMFFIAny untouched = view_of(kTVMFFIInt, 5);
  CHECK_RAISED(TVMFFIAnyViewToOwnedAny(&v, &untouched), "InternalError", "RValueRef already moved");
  CHECK_EQ_INT(untouched.type_index, kTVMFFIInt);
  check_any_release(&out);
}

static void test_null_arguments(void) {
  TVMFFIAny out, v = view_of(kTVMFFIInt, 1);
  CHECK_RAISED(TVMFFIAnyViewToOwnedAny(NULL, &out), "ValueError", "must not be NULL");
  CHECK_RAISED(TVMFFIAnyViewToOwnedAny(&v, NULL), "ValueError", "must not be NULL");
}

int main(void) {
  test_pod_copied_bit_for_bit();
  test_raw_str();
  test_byte_array();
  test_objects_retained();
  test_rvalue_ref();
  test_null_arguments();
  CHECK_SLOT_CLEAN();
  printf("test_any: ok\n");
  return 0;
}
