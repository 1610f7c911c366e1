/*
 * testing.h -- helpers shared by the files of libtvm_ffi_testing (testing.c,
 * schema.c).  Public C API only; never installed.
 */
#ifndef TVMFFI_TESTING_TESTING_H_
#define TVMFFI_TESTING_TESTING_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define TVMFFI_TESTING_HIDDEN __attribute__((visibility("hidden")))

/* ---- small helpers ------------------------------------------------------- */

static inline void set_none(TVMFFIAny* v) {
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}

static inline void set_int(TVMFFIAny* v, int64_t x) {
  v->type_index = kTVMFFIInt;
  v->zero_padding = 0;
  v->v_int64 = x;
}

static inline void set_bool(TVMFFIAny* v, int x) {
  v->type_index = kTVMFFIBool;
  v->zero_padding = 0;
  v->v_int64 = x != 0;
}

static inline void release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  set_none(v);
}

/* The entry of a type index, or NULL (the runtime's error dropped) for an index
 * no type was registered under: arguments may carry anything. */
static inline const TVMFFITypeInfo* type_info_or_null(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == NULL) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != NULL) TVMFFIObjectDecRef(err);
  }
  return info;
}

/* Whether objects of type t are instances of type base (base itself or a
 * subclass: a Python-defined one included), as C++ IsInstance decides. */
static inline int is_instance_of(int32_t t, int32_t base) {
  if (t == base) return 1;
  if (t < kTVMFFIStaticObjectBegin || base < 0) return 0;
  const TVMFFITypeInfo* info = type_info_or_null(t);
  const TVMFFITypeInfo* b = type_info_or_null(base);
  return info != NULL && b != NULL && info->type_depth > b->type_depth &&
         info->type_ancestors[b->type_depth]->type_index == base;
}

static inline const char* type_key_of(const TVMFFIAny* v) {
  const TVMFFITypeInfo* info = type_info_or_null(v->type_index);
  return info != NULL ? info->type_key.data : "<unregistered type>";
}

/* Upstream's typed-function mismatch message, e.g.
 * Mismatched type on argument #0 when calling: `testing.add_one(0: int) -> int`.
 * Expected `int` but got `ffi.OpaquePyObject` */
static inline int arg_mismatch(const char* sig, int i, const char* expected, const TVMFFIAny* got) {
  char msg[512];
  snprintf(msg, sizeof(msg),
           "Mismatched type on argument #%d when calling: `%s`. Expected `%s` but got `%s`", i, sig,
           expected, type_key_of(got));
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return -1;
}

static inline int arg_count(const char* sig, int32_t got, int32_t expected) {
  char msg[512];
  if (got == expected) return 0;
  snprintf(msg, sizeof(msg),
           "Mismatched number of arguments when calling: `%s`. Expected %d but got %d "
           "arguments",
           sig, (int)expected, (int)got);
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return -1;
}

static inline int is_str(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIRawStr || v->type_index == kTVMFFISmallStr ||
         v->type_index == kTVMFFIStr;
}

/* NUL-terminated view of a string argument, copied into buf if needed. */
static inline const char* str_of(const TVMFFIAny* v, char* buf, size_t cap) {
  if (v->type_index == kTVMFFIRawStr) return v->v_c_str;
  if (v->type_index == kTVMFFIStr) return TVMFFIBytesGetByteArrayPtr(v->v_obj)->data;
  TVMFFIByteArray b = TVMFFISmallBytesGetContentByteArray(v);
  size_t n = b.size < cap - 1 ? b.size : cap - 1;
  memcpy(buf, b.data, n);
  buf[n] = '\0';
  return buf;
}

/* The bytes of a string argument, embedded NULs included (a view into v). */
static inline TVMFFIByteArray str_bytes(const TVMFFIAny* v) {
  if (v->type_index == kTVMFFIRawStr) {
    TVMFFIByteArray r = {v->v_c_str, strlen(v->v_c_str)};
    return r;
  }
  if (v->type_index == kTVMFFIStr) return *TVMFFIBytesGetByteArrayPtr(v->v_obj);
  return TVMFFISmallBytesGetContentByteArray(v);
}

static inline int call_global(const char* name, TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  TVMFFIByteArray b = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&b, &f) != 0) return -1;
  if (f == NULL) {
    char msg[256];
    snprintf(msg, sizeof(msg), "global function %s is not registered", name);
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg);
    return -1;
  }
  set_none(out);
  int rc = TVMFFIFunctionCall(f, args, n, out);
  TVMFFIObjectDecRef(f);
  return rc;
}

static inline TVMFFIAny v_int(int64_t x) {
  TVMFFIAny v;
  set_int(&v, x);
  return v;
}

static inline TVMFFIAny v_str(const char* s) {
  TVMFFIAny v;
  v.type_index = kTVMFFIRawStr;
  v.zero_padding = 0;
  v.v_c_str = s;
  return v;
}

static inline TVMFFIByteArray ba(const char* s) {
  TVMFFIByteArray b = {s, s ? strlen(s) : 0};
  return b;
}

/* Registers `fn` under `name` (receiving `self` when non-NULL) with metadata
 * {"type_schema": <schema>}; failures are reported on stderr. */
TVMFFI_TESTING_HIDDEN void tt_reg(const char* name, TVMFFISafeCallType fn, void* self,
                                  const char* doc, const char* schema);
/* Publishes whether the type's C++ class is final (type attribute
 * __ffi_type_final__, as upstream's ObjectDef does). */
TVMFFI_TESTING_HIDDEN void tt_set_final(int32_t tindex, int final);
/* Registers __ffi_convert__ (instances of the type pass, else TypeError), as upstream's
 * def_convert<TRef>() does for the fixtures that call it. */
TVMFFI_TESTING_HIDDEN void tt_def_convert(int32_t tindex);
/* tt_reg with more metadata entries: `extra` is JSON members ("k":v,...) or NULL. */
TVMFFI_TESTING_HIDDEN void tt_reg_meta(const char* name, TVMFFISafeCallType fn, void* self,
                                       const char* doc, const char* schema, const char* extra);

/* objects.c: registers method `name` of a type (with `self` when non-NULL)
 * with metadata {"type_schema": <schema>}; `__ffi_init__` is also stored as
 * the type attribute of that name.  Failures stay raised for the caller. */
TVMFFI_TESTING_HIDDEN void tt_add_method(int32_t tindex, const char* name, const char* doc,
                                         int is_static, TVMFFISafeCallType fn, void* self,
                                         const char* schema);

/* objects.c: registers testing.TestIntPair, TestObjectBase/Derived and
 * testing.TestIntPairSum. */
TVMFFI_TESTING_HIDDEN void tvmffi_testing__objects_init(void);
/* fixtures.c: the table-driven fixture types (TestCompare, TestCxx*, ...);
 * runs after objects.c (their object fields hold testing.TestObjectBase). */
TVMFFI_TESTING_HIDDEN void tvmffi_testing__fixtures_init(void);

/* enums.c: the enum fixture types (one registered the legacy way),
 * testing.enum_variant_get and testing.legacy_enum_get. */
TVMFFI_TESTING_HIDDEN void tvmffi_testing__enums_init(void);
/* schema.c: registers the testing.schema_* fixtures. */
TVMFFI_TESTING_HIDDEN void tvmffi_testing__schema_init(void);
/* schema.c: the typed identity on int (also behind the dll export). */
TVMFFI_TESTING_HIDDEN int tvmffi_testing__schema_id_int(void* self, const TVMFFIAny* args,
                                                        int32_t n, TVMFFIAny* result);

#endif /* TVMFFI_TESTING_TESTING_H_ */
