/*
 * test_enum.c -- the runtime's enum types (c/src/extra/enum.c): ffi.EnumState with
 * its List/Dict fields at the offsets C++ code reads, ffi.Enum / IntEnum /
 * StrEnum allocated through __ffi_new__ and filled through their setters
 * (`value` aliasing the indices), the __ffi_enum__ column, shallow copies,
 * setter type errors and refcounts.
 */
#include "check.h"

static int32_t type_of(const char* key) {
  TVMFFIByteArray k = check_ba(key);
  int32_t t;
  CHECK_OK(TVMFFITypeKeyToIndex(&k, &t));
  return t;
}

static const TVMFFIAny* attr(const char* name, int32_t t) {
  TVMFFIByteArray n = check_ba(name);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  CHECK(col != NULL);
  if (t < col->begin_index || t >= col->begin_index + col->size) return NULL;
  const TVMFFIAny* v = &col->data[t - col->begin_index];
  return v->type_index == kTVMFFINone ? NULL : v;
}

static TVMFFIAny call0(const TVMFFIAny* fn) {
  TVMFFIAny r;
  memset(&r, 0, sizeof(r));
  CHECK_OK(TVMFFIFunctionCall(fn->v_obj, NULL, 0, &r));
  return r;
}

static const TVMFFIFieldInfo* field(int32_t t, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  for (int32_t i = 0; i < info->num_fields; ++i)
    if (strlen(name) == info->fields[i].name.size &&
        memcmp(info->fields[i].name.data, name, info->fields[i].name.size) == 0)
      return &info->fields[i];
  FAIL("no field %s", name);
}

int main(void) {
  int32_t ts = type_of("ffi.EnumState"), te = type_of("ffi.Enum");
  int32_t ti = type_of("ffi.IntEnum"), tst = type_of("ffi.StrEnum");
  CHECK(TVMFFIGetTypeInfo(ti)->type_ancestors[1]->type_index == te);
  CHECK_EQ_INT(field(ts, "entries")->offset, 24);
  CHECK_EQ_INT(field(ts, "indexes")->offset, 32);
  CHECK_EQ_INT(field(ts, "attrs")->offset, 40);
  CHECK_EQ_INT(field(te, "_int_index")->offset, 24);
  CHECK_EQ_INT(field(te, "_str_index")->offset, 32);
  CHECK_EQ_INT(field(ti, "value")->offset, 24);
  CHECK_EQ_INT(field(tst, "value")->offset, 32);
  CHECK_EQ_INT(TVMFFIGetTypeInfo(te)->metadata->structural_eq_hash_kind,
               kTVMFFISEqHashKindUniqueInstance);
  TVMFFIByteArray col = check_ba("__ffi_enum__");
  CHECK(TVMFFIGetTypeAttrColumn(&col) != NULL);

  /* a state: empty List and Dicts */
  TVMFFIAny state = call0(attr("__ffi_new__", ts));
  CHECK_EQ_INT(state.type_index, ts);
  TVMFFIObject** slots = (TVMFFIObject**)((char*)state.v_obj + 24);
  CHECK_EQ_INT(slots[0]->type_index, kTVMFFIList);
  CHECK_EQ_INT(slots[1]->type_index, kTVMFFIDict);
  CHECK_EQ_INT(slots[2]->type_index, kTVMFFIDict);
  TVMFFIAny bad = check_any_int(1);
  CHECK_RAISED(((TVMFFIFieldSetter)field(ts, "entries")->setter)(&slots[0], &bad), "TypeError",
               "ffi.List");

  /* an IntEnum singleton filled through the setters */
  TVMFFIAny e = call0(attr("__ffi_new__", ti));
  CHECK_EQ_INT(e.type_index, ti);
  TVMFFIAny ten = check_any_int(10), name = check_any_cstr("low");
  CHECK_OK(((TVMFFIFieldSetter)field(te, "_int_index")->setter)((char*)e.v_obj + 24, &ten));
  CHECK_OK(((TVMFFIFieldSetter)field(te, "_str_index")->setter)((char*)e.v_obj + 32, &name));
  TVMFFIAny v;
  CHECK_OK(field(ti, "value")->getter((char*)e.v_obj + 24, &v));
  CHECK_EQ_INT(v.v_int64, 10);
  CHECK_RAISED(((TVMFFIFieldSetter)field(te, "_str_index")->setter)((char*)e.v_obj + 32, &ten),
               "TypeError", "str");
  /* shallow copy keeps the string alive on both sides */
  TVMFFIAny copy;
  memset(&copy, 0, sizeof(copy));
  CHECK_OK(TVMFFIFunctionCall(attr("__ffi_shallow_copy__", ti)->v_obj, &e, 1, &copy));
  CHECK(copy.v_obj != e.v_obj && copy.type_index == ti);
  CHECK_EQ_INT(*(int64_t*)((char*)copy.v_obj + 24), 10);
  check_any_release(&copy);
  TVMFFIAny* s = (TVMFFIAny*)((char*)e.v_obj + 32);
  TVMFFIByteArray text = s->type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(s)
                                                          : *TVMFFIBytesGetByteArrayPtr(s->v_obj);
  CHECK_EQ_BYTES(text, "low");
  CHECK_EQ_INT(check_use_count(e.v_obj), 1);
  check_any_release(&e);
  CHECK_EQ_INT(check_use_count(state.v_obj), 1);
  check_any_release(&state);
  CHECK_SLOT_CLEAN();
  printf("test_enum: ok\n");
  return 0;
}
