/*
 * check.h -- tiny assertion kit shared by the C test programs.
 *
 * Every check prints file:line and the failing expression, then exits 1, so
 * a test program is a plain main() that runs its cases in order.  Exit 77
 * means "skipped" (automake convention).
 */
#ifndef TVMFFI_TESTS_C_CHECK_H_
#define TVMFFI_TESTS_C_CHECK_H_

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define FAIL(...)                                         \
  do {                                                    \
    fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                         \
    fprintf(stderr, "\n");                                \
    exit(1);                                              \
  } while (0)

#define CHECK(cond)                               \
  do {                                            \
    if (!(cond)) FAIL("check failed: %s", #cond); \
  } while (0)

#define CHECK_EQ_INT(a, b)                                        \
  do {                                                            \
    long long _a = (long long)(a), _b = (long long)(b);           \
    if (_a != _b) FAIL("%s == %s: %lld != %lld", #a, #b, _a, _b); \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                                \
  do {                                                                                    \
    const char *_a = (a), *_b = (b);                                                      \
    if (_a == NULL || _b == NULL || strcmp(_a, _b) != 0)                                  \
      FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
  } while (0)

/* A byte array equals a C string. */
#define CHECK_EQ_BYTES(ba, s)                                               \
  do {                                                                      \
    TVMFFIByteArray _ba = (ba);                                             \
    const char* _s = (s);                                                   \
    if (_ba.size != strlen(_s) || memcmp(_ba.data, _s, _ba.size) != 0)      \
      FAIL("%s == \"%s\": got \"%.*s\"", #ba, _s, (int)_ba.size, _ba.data); \
  } while (0)

/* The raised-error slot holds an error; returns it moved out (caller DecRefs). */
static inline TVMFFIObjectHandle check__take_error(const char* file, int line) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    fprintf(stderr, "%s:%d: FAIL: expected a raised error, slot empty\n", file, line);
    exit(1);
  }
  return err;
}

/* The slot must be empty. */
static inline void check__slot_clean(const char* file, int line) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
    fprintf(stderr, "%s:%d: FAIL: unexpected raised error %.*s: %.*s\n", file, line,
            (int)c->kind.size, c->kind.data, (int)c->message.size, c->message.data);
    exit(1);
  }
}
#define CHECK_SLOT_CLEAN() check__slot_clean(__FILE__, __LINE__)

/* The call returns 0 and leaves the slot clean. */
#define CHECK_OK(call)                                                                    \
  do {                                                                                    \
    int _rc = (call);                                                                     \
    if (_rc != 0) {                                                                       \
      TVMFFIObjectHandle _e = NULL;                                                       \
      TVMFFIErrorMoveFromRaised(&_e);                                                     \
      if (_e) {                                                                           \
        TVMFFIErrorCell* _c = TVMFFIErrorGetCellPtr(_e);                                  \
        FAIL("%s returned %d: %.*s: %.*s", #call, _rc, (int)_c->kind.size, _c->kind.data, \
             (int)_c->message.size, _c->message.data);                                    \
      }                                                                                   \
      FAIL("%s returned %d (no error raised)", #call, _rc);                               \
    }                                                                                     \
    check__slot_clean(__FILE__, __LINE__);                                                \
  } while (0)

/* The call returns non-zero with an error of `kind` raised; the error is
 * moved out and released, and the message must contain `needle` (may be ""). */
#define CHECK_RAISED(call, kind_, needle)                                                       \
  do {                                                                                          \
    int _rc = (call);                                                                           \
    if (_rc == 0) FAIL("%s succeeded, expected %s", #call, kind_);                              \
    TVMFFIObjectHandle _e = check__take_error(__FILE__, __LINE__);                              \
    TVMFFIErrorCell* _c = TVMFFIErrorGetCellPtr(_e);                                            \
    if (_c->kind.size != strlen(kind_) || memcmp(_c->kind.data, kind_, _c->kind.size))          \
      FAIL("%s raised %.*s (%.*s), expected %s", #call, (int)_c->kind.size, _c->kind.data,      \
           (int)_c->message.size, _c->message.data, kind_);                                     \
    if (strstr(_c->message.data, (needle)) == NULL)                                             \
      FAIL("%s: message \"%.*s\" lacks \"%s\"", #call, (int)_c->message.size, _c->message.data, \
           (const char*)(needle));                                                              \
    TVMFFIObjectDecRef(_e);                                                                     \
    check__slot_clean(__FILE__, __LINE__);                                                      \
  } while (0)

/* Byte array of a C string literal. */
static inline TVMFFIByteArray check_ba(const char* s) {
  TVMFFIByteArray b;
  b.data = s;
  b.size = strlen(s);
  return b;
}

/* Strong count of a live object. */
static inline uint32_t check_use_count(TVMFFIObjectHandle obj) {
  return (uint32_t)(__atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_RELAXED) &
                    0xFFFFFFFFu);
}

/* Calls a global function by name with views; the result must be released by
 * the caller.  Returns the call's return code. */
static inline int check_call_global(const char* name, TVMFFIAny* args, int32_t n,
                                    TVMFFIAny* result) {
  TVMFFIByteArray ba = check_ba(name);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&ba, &f) != 0) return -1;
  if (f == NULL) {
    fprintf(stderr, "global function %s not found\n", name);
    exit(1);
  }
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  int rc = TVMFFIFunctionCall(f, args, n, result);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Views of an int, a C string and an object (no reference taken). */
static inline TVMFFIAny check_any_int(int64_t v) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static inline TVMFFIAny check_any_cstr(const char* s) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static inline TVMFFIAny check_any_obj(TVMFFIObjectHandle h) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = ((TVMFFIObject*)h)->type_index;
  a.v_obj = (TVMFFIObject*)h;
  return a;
}

/* Releases an owned Any. */
static inline void check_any_release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  v->type_index = kTVMFFINone;
  v->v_int64 = 0;
}

/* Field getter and setter for an Any stored in place: what the test types'
 * reflected Any fields use (the setter owns a copy and releases the old value). */
static inline int check_field_get_any(void* addr, TVMFFIAny* out) {
  return TVMFFIAnyViewToOwnedAny((const TVMFFIAny*)addr, out);
}
static inline int check_field_set_any(void* addr, const TVMFFIAny* v) {
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(v, &owned) != 0) return -1;
  check_any_release((TVMFFIAny*)addr);
  *(TVMFFIAny*)addr = owned;
  return 0;
}

/* Registers `key` (parent ffi.Object, a TreeNode of total_size bytes) with
 * read-only Any fields names[0..n) at offsets 24, 40, ... read by getter. */
static inline int32_t check_type_with_any_fields(const char* key, int32_t total_size,
                                                 const char* const* names, int n,
                                                 TVMFFIFieldGetter getter) {
  TVMFFIByteArray k = check_ba(key);
  int32_t t = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = total_size;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  CHECK_OK(TVMFFITypeRegisterMetadata(t, &md));
  for (int i = 0; i < n; ++i) {
    TVMFFIFieldInfo f;
    memset(&f, 0, sizeof(f));
    f.name = check_ba(names[i]);
    f.size = 16;
    f.alignment = 8;
    f.offset = 24 + 16 * i;
    f.getter = getter;
    f.field_static_type_index = kTVMFFIAny;
    CHECK_OK(TVMFFITypeRegisterField(t, &f));
  }
  return t;
}

/* A value whose nodes are shared (issue 22): x = ctor(leaf); then `levels` times
 * x = ctor(x, x), with ctor a packed container constructor (ffi.Array, ffi.List).  Distinct
 * nodes: levels + 1; paths: 2^levels.  The walks must take time linear in the former. */
static inline TVMFFIAny check_dag(const char* ctor, TVMFFIAny leaf, int levels) {
  TVMFFIAny x;
  CHECK_OK(check_call_global(ctor, &leaf, 1, &x));
  for (int i = 0; i < levels; ++i) {
    TVMFFIAny two[2] = {x, x}, next;
    CHECK_OK(check_call_global(ctor, two, 2, &next));
    check_any_release(&x);
    x = next;
  }
  return x;
}

#endif /* TVMFFI_TESTS_C_CHECK_H_ */
