/* test_shape.c -- ffi.Shape objects and the ffi.Shape global (docs/abi.md §7.4, §14.1). */
#include "check.h"

static TVMFFIAny int_arg(int64_t v) {
  TVMFFIAny a;
  a.type_index = kTVMFFIInt;
  a.zero_padding = 0;
  a.v_int64 = v;
  return a;
}

static void test_make(void) {
  TVMFFIAny args[4] = {int_arg(2), int_arg(3), int_arg(-1), int_arg(INT64_MAX)};
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.Shape", args, 4, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIShape);
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(r.v_obj), kTVMFFIShape);
  CHECK_EQ_INT(check_use_count(r.v_obj), 1);
  TVMFFIShapeCell* c = TVMFFIShapeGetCellPtr(r.v_obj);
  CHECK((char*)c == (char*)r.v_obj + 24);
  CHECK_EQ_INT(c->size, 4);
  CHECK((const char*)c->data == (char*)r.v_obj + 40); /* values inline after the cell */
  CHECK_EQ_INT(c->data[0], 2);
  CHECK_EQ_INT(c->data[1], 3);
  CHECK_EQ_INT(c->data[2], -1);
  CHECK_EQ_INT(c->data[3], INT64_MAX);
  check_any_release(&r);
}

static void test_empty_and_bool(void) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.Shape", NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIShape);
  CHECK_EQ_INT(TVMFFIShapeGetCellPtr(r.v_obj)->size, 0);
  check_any_release(&r);

  TVMFFIAny b = int_arg(1);
  b.type_index = kTVMFFIBool; /* bools cast to int, as in the reference */
  CHECK_OK(check_call_global("ffi.Shape", &b, 1, &r));
  CHECK_EQ_INT(TVMFFIShapeGetCellPtr(r.v_obj)->data[0], 1);
  check_any_release(&r);
}

static void test_non_integer(void) {
  TVMFFIAny args[3] = {int_arg(1), int_arg(2), int_arg(0)};
  TVMFFIAny r;
  args[2].type_index = kTVMFFIFloat;
  args[2].v_float64 = 2.5;
  CHECK_RAISED(check_call_global("ffi.Shape", args, 3, &r), "ValueError", "argument 2");
  args[2].type_index = kTVMFFIRawStr;
  args[2].v_c_str = "3";
  CHECK_RAISED(check_call_global("ffi.Shape", args, 3, &r), "ValueError", "int arguments");
  args[0].type_index = kTVMFFINone;
  args[0].v_int64 = 0;
  CHECK_RAISED(check_call_global("ffi.Shape", args, 1, &r), "ValueError", "argument 0");
}

int main(void) {
  test_make();
  test_empty_and_bool();
  test_non_integer();
  printf("test_shape: ok\n");
  return 0;
}
