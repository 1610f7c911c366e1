/* test_dtype.c -- TVMFFIDataTypeFromString / TVMFFIDataTypeToString (docs/abi.md §10.6). */
#include "check.h"

/* The text of an owned String Any (small or heap). */
static TVMFFIByteArray str_of(const TVMFFIAny* v) {
  if (v->type_index == kTVMFFISmallStr) return TVMFFISmallBytesGetContentByteArray(v);
  if (v->type_index != kTVMFFIStr) FAIL("expected a string, got type index %d", v->type_index);
  return *TVMFFIBytesGetByteArrayPtr(v->v_obj);
}

static DLDataType parse_ok(const char* s) {
  TVMFFIByteArray ba = check_ba(s);
  DLDataType t = {99, 99, 99};
  int rc = TVMFFIDataTypeFromString(&ba, &t);
  if (rc != 0) {
    TVMFFIObjectHandle e = NULL;
    TVMFFIErrorMoveFromRaised(&e);
    FAIL("parsing \"%s\" failed: %s", s, e ? TVMFFIErrorGetCellPtr(e)->message.data : "?");
  }
  CHECK_SLOT_CLEAN();
  return t;
}

/* Prints t and compares with `want`. */
static void print_is(DLDataType t, const char* want) {
  TVMFFIAny out;
  CHECK_OK(TVMFFIDataTypeToString(&t, &out));
  TVMFFIByteArray got = str_of(&out);
  if (got.size != strlen(want) || memcmp(got.data, want, got.size) != 0)
    FAIL("(%u,%u,%u) printed \"%.*s\", want \"%s\"", t.code, t.bits, t.lanes, (int)got.size,
         got.data, want);
  check_any_release(&out);
}

/* input -> (code, bits, lanes) -> canonical text -> same triple again. */
static void round_trip(const char* in, int code, int bits, int lanes, const char* canon) {
  DLDataType t = parse_ok(in);
  if (t.code != code || t.bits != bits || t.lanes != (uint16_t)lanes)
    FAIL("\"%s\" parsed to (%u,%u,%u), want (%d,%d,%d)", in, t.code, t.bits, t.lanes, code, bits,
         lanes);
  print_is(t, canon);
  DLDataType t2 = parse_ok(canon);
  CHECK(t2.code == t.code && t2.bits == t.bits && t2.lanes == t.lanes);
}

static void test_forms(void) {
  round_trip("int32", kDLInt, 32, 1, "int32");
  round_trip("int8", kDLInt, 8, 1, "int8");
  round_trip("int", kDLInt, 32, 1, "int32");
  round_trip("int0", kDLInt, 32, 1, "int32"); /* 0 bits keeps the default */
  round_trip("int1", kDLInt, 1, 1, "int1");
  round_trip("uint16", kDLUInt, 16, 1, "uint16");
  round_trip("uint", kDLUInt, 32, 1, "uint32");
  round_trip("float", kDLFloat, 32, 1, "float32");
  round_trip("float16", kDLFloat, 16, 1, "float16");
  round_trip("float8", kDLFloat, 8, 1, "float8"); /* plain float with 8 bits */
  round_trip("float64x2", kDLFloat, 64, 2, "float64x2");
  round_trip("float32x4", kDLFloat, 32, 4, "float32x4");
  round_trip("int16x2", kDLInt, 16, 2, "int16x2");
  round_trip("int8x32767", kDLInt, 8, 32767, "int8x32767");
  round_trip("bfloat16", kDLBfloat, 16, 1, "bfloat16");
  round_trip("bfloat", kDLBfloat, 16, 1, "bfloat16");
  round_trip("bfloat16x2", kDLBfloat, 16, 2, "bfloat16x2");
  round_trip("bool", kDLBool, 8, 1, "bool");
  round_trip("boolx4", kDLBool, 8, 4, "boolx4");
  round_trip("bool1", kDLBool, 1, 1, "bool1");
  round_trip("handle", kDLOpaqueHandle, 64, 1, "handle");
  round_trip("int32xvscalex4", kDLInt, 32, (uint16_t)-4, "int32xvscalex4");
  round_trip("float16xvscalex8", kDLFloat, 16, (uint16_t)-8, "float16xvscalex8");
  round_trip("float8_e3m4", kDLFloat8_e3m4, 8, 1, "float8_e3m4");
  round_trip("float8_e4m3", kDLFloat8_e4m3, 8, 1, "float8_e4m3");
  round_trip("float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8, 1, "float8_e4m3b11fnuz");
  round_trip("float8_e4m3fn", kDLFloat8_e4m3fn, 8, 1, "float8_e4m3fn");
  round_trip("float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8, 1, "float8_e4m3fnuz");
  round_trip("float8_e5m2", kDLFloat8_e5m2, 8, 1, "float8_e5m2");
  round_trip("float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8, 1, "float8_e5m2fnuz");
  round_trip("float8_e8m0fnu", kDLFloat8_e8m0fnu, 8, 1, "float8_e8m0fnu");
  round_trip("float6_e2m3fn", kDLFloat6_e2m3fn, 6, 1, "float6_e2m3fn");
  round_trip("float6_e3m2fn", kDLFloat6_e3m2fn, 6, 1, "float6_e3m2fn");
  round_trip("float4_e2m1fn", kDLFloat4_e2m1fn, 4, 1, "float4_e2m1fn");
  round_trip("float8_e4m3fnx2", kDLFloat8_e4m3fn, 8, 2, "float8_e4m3fnx2");
  round_trip("float4_e2m1fnx2", kDLFloat4_e2m1fn, 4, 2, "float4_e2m1fnx2");
  round_trip("float4_e2m1fn_x2", kDLFloat4_e2m1fn, 4, 2, "float4_e2m1fnx2");
  /* Printed scalable low-precision floats parse back (a superset of upstream). */
  round_trip("float8_e4m3fnxvscalex4", kDLFloat8_e4m3fn, 8, (uint16_t)-4, "float8_e4m3fnxvscalex4");
}

/* Forms whose printed text deliberately drops information. */
static void test_lossy_print(void) {
  DLDataType t = parse_ok("int8x65535"); /* lanes read as int16: -1, no suffix */
  CHECK(t.code == kDLInt && t.bits == 8 && t.lanes == 65535);
  print_is(t, "int8");
  t = parse_ok("handle32"); /* handle bits and lanes are never printed */
  CHECK(t.code == kDLOpaqueHandle && t.bits == 32 && t.lanes == 1);
  print_is(t, "handle");
  print_is((DLDataType){kDLOpaqueHandle, 64, 4}, "handle");
  print_is((DLDataType){kDLInt, 32, 0}, "int32");
  print_is((DLDataType){kDLBool, 8, 1}, "bool");
  print_is((DLDataType){kDLFloat4_e2m1fn, 4, 2}, "float4_e2m1fnx2");
  print_is((DLDataType){kDLFloat8_e5m2, 16, 1}, "float8_e5m2"); /* bits not printed */
}

static void test_aliases(void) {
  round_trip("i32", kDLInt, 32, 1, "int32");
  round_trip("i8x4", kDLInt, 8, 4, "int8x4");
  round_trip("u16", kDLUInt, 16, 1, "uint16");
  round_trip("u1", kDLUInt, 1, 1, "uint1");
  round_trip("f32", kDLFloat, 32, 1, "float32");
  round_trip("f16x4", kDLFloat, 16, 4, "float16x4");
  round_trip("bf16", kDLBfloat, 16, 1, "bfloat16");
  /* complex (DLPack code 5): numpy's and torch's complex64/complex128 */
  round_trip("complex64", kDLComplex, 64, 1, "complex64");
  round_trip("complex128", kDLComplex, 128, 1, "complex128");
  round_trip("complex", kDLComplex, 64, 1, "complex64");
  round_trip("complex32x2", kDLComplex, 32, 2, "complex32x2");
  round_trip("fp8_e5m2x4", kDLFloat8_e5m2, 8, 4, "float8_e5m2x4");
  round_trip("f8_e4m3fn", kDLFloat8_e4m3fn, 8, 1, "float8_e4m3fn");
  round_trip("fp6_e2m3fn", kDLFloat6_e2m3fn, 6, 1, "float6_e2m3fn");
  round_trip("f6_e3m2fn", kDLFloat6_e3m2fn, 6, 1, "float6_e3m2fn");
  round_trip("fp4_e2m1fn", kDLFloat4_e2m1fn, 4, 1, "float4_e2m1fn");
  round_trip("f4_e2m1fn_x2", kDLFloat4_e2m1fn, 4, 2, "float4_e2m1fnx2");
}

static void test_void(void) {
  DLDataType t = parse_ok("void");
  CHECK(t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0);
  t = parse_ok("");
  CHECK(t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0);
  print_is(t, "");
  /* A length-delimited input: only the first 5 bytes count. */
  TVMFFIByteArray ba = {"int16garbage", 5};
  CHECK_OK(TVMFFIDataTypeFromString(&ba, &t));
  CHECK(t.code == kDLInt && t.bits == 16 && t.lanes == 1);
}

static void bad(const char* s, const char* needle) {
  TVMFFIByteArray ba = check_ba(s);
  DLDataType t = {7, 7, 7};
  CHECK_RAISED(TVMFFIDataTypeFromString(&ba, &t), "ValueError", needle);
  CHECK(t.code == 7 && t.bits == 7 && t.lanes == 7); /* out untouched */
}

static void test_malformed(void) {
  bad("notadtype", "unknown dtype `notadtype`");
  bad("int32x", "unknown dtype `int32x`");
  bad("int32x0", "lanes must be in [1, 65535]");
  bad("int32x65536", "lanes must be in [1, 65535]");
  bad("int32x99999999999999999999999", "lanes");
  bad("int256", "bits must be at most 255");
  bad("int99999999999999999999", "bits");
  bad("int32 ", "unknown dtype");
  bad(" int32", "unknown dtype");
  bad("int-8", "unknown dtype");
  bad("int+8", "unknown dtype");
  bad("Int32", "unknown dtype");
  bad("float8_e9m9", "unknown low-precision float variant");
  bad("float8_e4m3fn16", "unknown dtype");
  bad("float8_e4m3fn_x2", "unknown dtype"); /* "_x" only for float4 */
  bad("float6_e2m3", "unknown low-precision float variant");
  bad("float4_e2m1fnx", "expected lanes");
  bad("int32xvscalex", "scalable lanes");
  bad("int32xvscalex0", "scalable lanes");
  bad("int32xvscalex40000", "scalable lanes");
  bad("i", "unknown dtype");
  bad("fp16", "unknown dtype");
  bad("voidx2", "unknown dtype");
  bad("custom[", "missing `]`");
  bad("custom[]", "empty custom type name");
  /* A huge input is echoed only in part. */
  {
    static char big[4096];
    memset(big, 'z', sizeof(big) - 1);
    TVMFFIByteArray bb = {big, sizeof(big) - 1};
    DLDataType tt;
    int rc = TVMFFIDataTypeFromString(&bb, &tt);
    CHECK(rc != 0);
    TVMFFIObjectHandle e = check__take_error(__FILE__, __LINE__);
    TVMFFIByteArray msg = TVMFFIErrorGetCellPtr(e)->message;
    CHECK(msg.size < 200);
    CHECK(strstr(msg.data, "zzz...`") != NULL);
    TVMFFIObjectDecRef(e);
  }
  /* Embedded NUL bytes never match. */
  TVMFFIByteArray ba = {
      "int\0"
      "32",
      6};
  DLDataType t;
  CHECK_RAISED(TVMFFIDataTypeFromString(&ba, &t), "ValueError", "unknown dtype");
  CHECK_RAISED(TVMFFIDataTypeFromString(NULL, &t), "ValueError", "must not be NULL");
  ba = check_ba("int32");
  CHECK_RAISED(TVMFFIDataTypeFromString(&ba, NULL), "ValueError", "must not be NULL");
}

static void test_print_errors(void) {
  TVMFFIAny out;
  DLDataType t = {18, 64, 1};
  CHECK_RAISED(TVMFFIDataTypeToString(&t, &out), "ValueError", "unknown type code 18");
  t.code = 128;
  CHECK_RAISED(TVMFFIDataTypeToString(&t, &out), "ValueError", "unknown type code 128");
  CHECK_RAISED(TVMFFIDataTypeToString(NULL, &out), "ValueError", "must not be NULL");
  /* Custom codes need the registry hook, which nobody registered yet. */
  t.code = 130;
  CHECK_RAISED(TVMFFIDataTypeToString(&t, &out), "ValueError", "dtype.get_custom_type_name");
  bad("custom[myfloat]16", "dtype.get_custom_type_code");
}

/* Fake registry: one custom type "myfloat" with code 130. */
static int fake_code(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFIRawStr) FAIL("fake_code got a bad argument");
  if (strcmp(args[0].v_c_str, "myfloat") == 0) {
    result->type_index = kTVMFFIInt;
    result->v_int64 = 130;
    return 0;
  }
  if (strcmp(args[0].v_c_str, "notint") == 0) {
    result->type_index = kTVMFFIFloat;
    result->v_float64 = 130.0;
    return 0;
  }
  if (strcmp(args[0].v_c_str, "toolow") == 0) {
    result->type_index = kTVMFFIInt;
    result->v_int64 = 5;
    return 0;
  }
  TVMFFIErrorSetRaisedFromCStr("ValueError", "no such custom type");
  return -1;
}

static int fake_name(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (n != 1 || args[0].type_index != kTVMFFIInt) FAIL("fake_name got a bad argument");
  if (args[0].v_int64 != 130) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "no such custom code");
    return -1;
  }
  TVMFFIByteArray s = check_ba("myfloat");
  return TVMFFIStringFromByteArray(&s, result);
}

static void register_fake(const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, fn, NULL, &f));
  TVMFFIByteArray ba = check_ba(name);
  CHECK_OK(TVMFFIFunctionSetGlobal(&ba, f, 1));
  TVMFFIObjectDecRef(f);
}

static void test_custom(void) {
  register_fake("dtype.get_custom_type_code", fake_code);
  register_fake("dtype.get_custom_type_name", fake_name);
  round_trip("custom[myfloat]16", 130, 16, 1, "custom[myfloat]16");
  round_trip("custom[myfloat]", 130, 32, 1, "custom[myfloat]32");
  round_trip("custom[myfloat]8x4", 130, 8, 4, "custom[myfloat]8x4");
  /* Errors of the hook propagate with their own kind and message. */
  bad("custom[other]", "no such custom type");
  bad("custom[toolow]", "must be in [129, 255]");
  bad("custom[notint]", "must return int, got `float`");
  TVMFFIAny out;
  DLDataType t = {131, 8, 1};
  CHECK_RAISED(TVMFFIDataTypeToString(&t, &out), "ValueError", "no such custom code");
}

int main(void) {
  test_forms();
  test_aliases();
  test_lossy_print();
  test_void();
  test_malformed();
  test_print_errors();
  test_custom();
  printf("test_dtype: ok\n");
  return 0;
}
