/*
 * ext_fixture.h -- a reflected type for the structural-global tests
 * (test_repr, test_recursive, test_serialization): "exttest.Pair" with
 *   a       int64, writable
 *   b       Any (owned), writable
 *   hidden  int64 with ReprOff | CompareOff | HashOff
 * and a creator, so DeepCopy and the JSON graph can rebuild it.
 */
#ifndef TVMFFI_TESTS_C_EXT_FIXTURE_H_
#define TVMFFI_TESTS_C_EXT_FIXTURE_H_

#include "check.h"

typedef struct {
  TVMFFIObject header;
  int64_t a;      /* +24 */
  TVMFFIAny b;    /* +32 */
  int64_t hidden; /* +48 */
} ext_pair;

static int32_t ext_pair_index __attribute__((unused)) = -1;

static inline void ext_pair_deleter(void* self, int flags) {
  ext_pair* p = (ext_pair*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) check_any_release(&p->b);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static inline int ext_pair_create(TVMFFIObjectHandle* out) {
  ext_pair* p = (ext_pair*)calloc(1, sizeof(ext_pair));
  if (p == NULL) return -1;
  p->header.combined_ref_count = UINT64_C(0x100000001);
  p->header.type_index = ext_pair_index;
  p->header.deleter = ext_pair_deleter;
  *out = p;
  return 0;
}

static inline int ext_get_int(void* addr, TVMFFIAny* out) {
  memset(out, 0, sizeof(*out));
  out->type_index = kTVMFFIInt;
  out->v_int64 = *(int64_t*)addr;
  return 0;
}
static inline int ext_set_int(void* addr, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "exttest.Pair: int expected");
    return -1;
  }
  *(int64_t*)addr = v->v_int64;
  return 0;
}
static inline int ext_get_any(void* addr, TVMFFIAny* out) {
  return TVMFFIAnyViewToOwnedAny((const TVMFFIAny*)addr, out);
}
static inline int ext_set_any(void* addr, const TVMFFIAny* v) {
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(v, &owned) != 0) return -1;
  check_any_release((TVMFFIAny*)addr);
  *(TVMFFIAny*)addr = owned;
  return 0;
}

static inline void ext_add_field(const char* name, int64_t offset, int64_t flags,
                                 TVMFFIFieldGetter g, TVMFFIFieldSetter s) {
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = check_ba(name);
  f.flags = flags | kTVMFFIFieldFlagBitMaskWritable;
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = g;
  f.setter = (void*)s;
  f.field_static_type_index = kTVMFFIAny;
  CHECK_OK(TVMFFITypeRegisterField(ext_pair_index, &f));
}

static inline void ext_pair_register(void) {
  if (ext_pair_index >= 0) return;
  TVMFFIByteArray key = check_ba("exttest.Pair");
  ext_pair_index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.creator = ext_pair_create;
  md.total_size = (int32_t)sizeof(ext_pair);
  CHECK_OK(TVMFFITypeRegisterMetadata(ext_pair_index, &md));
  ext_add_field("a", 24, 0, ext_get_int, ext_set_int);
  ext_add_field("b", 32, 0, ext_get_any, ext_set_any);
  ext_add_field("hidden", 48,
                kTVMFFIFieldFlagBitMaskReprOff | kTVMFFIFieldFlagBitMaskCompareOff |
                    kTVMFFIFieldFlagBitMaskHashOff,
                ext_get_int, ext_set_int);
}

/* New exttest.Pair(a, b, hidden); b is a view (copied). */
static inline TVMFFIAny ext_pair_new(int64_t a, TVMFFIAny b, int64_t hidden) {
  ext_pair_register();
  TVMFFIObjectHandle h = NULL;
  CHECK(ext_pair_create(&h) == 0);
  ext_pair* p = (ext_pair*)h;
  p->a = a;
  p->hidden = hidden;
  CHECK_OK(ext_set_any(&p->b, &b));
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  out.type_index = ext_pair_index;
  out.v_obj = (TVMFFIObject*)h;
  return out;
}

/* ---- value helpers ---- */
static inline TVMFFIAny ext_int(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}
static inline TVMFFIAny ext_float(double v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}
static inline TVMFFIAny ext_bool(int v) {
  TVMFFIAny a = ext_int(v != 0);
  a.type_index = kTVMFFIBool;
  return a;
}
static inline TVMFFIAny ext_none(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}
static inline TVMFFIAny ext_str(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}
/* Owned String (heap form for long text) of s. */
static inline TVMFFIAny ext_owned_str(const char* s) {
  TVMFFIByteArray ba = check_ba(s);
  TVMFFIAny out;
  CHECK_OK(TVMFFIStringFromByteArray(&ba, &out));
  return out;
}

/* Calls a packed container constructor (ffi.Array, ffi.List, ffi.Map, ffi.Dict). */
static inline TVMFFIAny ext_make(const char* ctor, TVMFFIAny* items, int32_t n) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(ctor, items, n, &r));
  return r;
}

/* Calls a 1-argument global returning an owned string; copies it to buf. */
static inline const char* ext_call_str(const char* name, TVMFFIAny arg, char* buf, size_t cap) {
  TVMFFIAny r;
  CHECK_OK(check_call_global(name, &arg, 1, &r));
  TVMFFIByteArray ba;
  if (r.type_index == kTVMFFISmallStr) {
    ba = TVMFFISmallBytesGetContentByteArray(&r);
  } else {
    CHECK_EQ_INT(r.type_index, kTVMFFIStr);
    ba = *TVMFFIBytesGetByteArrayPtr(r.v_obj);
  }
  CHECK(ba.size < cap);
  memcpy(buf, ba.data, ba.size);
  buf[ba.size] = '\0';
  check_any_release(&r);
  return buf;
}

#endif /* TVMFFI_TESTS_C_EXT_FIXTURE_H_ */
