/*
 * test_map.c -- AnyHash/AnyEqual (docs/abi.md §5.6) and ffi.Map (§7.8, §14.2):
 * hash values computed by hand from the spec formulas, the equality rules,
 * the __any_hash__/__any_equal__ attribute hooks, the small and dense
 * layouts the ffi.Map constructor produces (small→dense at the 5th key with
 * slots 8 / fib_shift 61, Fibonacci home slots), every ffi.Map* global with
 * its error paths, the iteration protocol, a randomized comparison of
 * constructed maps against a simple model, reference counts, and
 * ffi.ContainerFindFirstNonCPUDevice.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <tvm/ffi/extra/c_container.h>

#include "check.h"

static TVMFFIAny any_kind(int32_t kind, int64_t v) {
  TVMFFIAny a = check_any_int(v);
  a.type_index = kind;
  return a;
}

/* Calls f(arg); the result slot starts as None, as the convention requires. */
static int call_fn(TVMFFIObject* f, TVMFFIAny* arg, TVMFFIAny* result) {
  memset(result, 0, sizeof(*result));
  return TVMFFIFunctionCall(f, arg, 1, result);
}

/* An owned string value (small for <= 7 bytes). */
static TVMFFIAny owned_str(const char* s) {
  TVMFFIAny out;
  TVMFFIByteArray ba = check_ba(s);
  CHECK_OK(TVMFFIStringFromByteArray(&ba, &out));
  return out;
}

/* A heap ffi.String whose content is short: C++ code moving a std::string
 * produces these, and they must hash and compare like small strings. */
typedef struct {
  TVMFFIObject header;
  TVMFFIByteArray cell;
  char data[16];
} fake_str;
static void fake_str_init(fake_str* s, int32_t type_index, const char* text) {
  memset(s, 0, sizeof(*s));
  s->header.combined_ref_count = (UINT64_C(1) << 32) | (UINT64_C(1) << 30); /* never freed */
  s->header.type_index = type_index;
  s->header.deleter = NULL;
  strcpy(s->data, text);
  s->cell.data = s->data;
  s->cell.size = strlen(text);
}

static uint64_t combine(uint64_t key, uint64_t value) {
  return key ^ (value + 0x9e3779b9u + (key << 6) + (key >> 2));
}

/* hash_bytes written independently of the header, byte by byte. */
static uint64_t ref_hash_bytes(const unsigned char* p, size_t n) {
  uint64_t r = 0;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    for (size_t b = 0; b < 8 && i + b < n; ++b) w |= (uint64_t)p[i + b] << (8 * b);
    r = (r * 1099511628211u + w) % 2147483647u;
  }
  return r;
}

static uint64_t hash_of(const TVMFFIAny* v) {
  uint64_t h = 0;
  CHECK_OK(TVMFFIContainerAnyHash(v, &h));
  return h;
}

static void test_hash_values(void) {
  /* Values worked out by hand from combine() and hash_bytes() of §5.6. */
  TVMFFIAny v = check_any_int(5);
  CHECK(hash_of(&v) == UINT64_C(2654435839)); /* 1 ^ (5 + 0x9e3779b9 + 64 + 0) */
  v = check_any_int(-1);
  CHECK(hash_of(&v) == UINT64_C(2654435833)); /* the addition wraps modulo 2^64 */
  v = any_kind(kTVMFFINone, 0);
  CHECK(hash_of(&v) == UINT64_C(2654435769));
  v = any_kind(kTVMFFIBool, 1);
  CHECK(hash_of(&v) == UINT64_C(2654435896));
  v = any_kind(kTVMFFIFloat, 0);
  v.v_float64 = 1.5; /* raw bits 0x3FF8000000000000 */
  CHECK(hash_of(&v) == UINT64_C(4609434221268138618));
  TVMFFIAny s = owned_str("abc");
  CHECK_EQ_INT(s.type_index, kTVMFFISmallStr);
  CHECK(hash_of(&s) == UINT64_C(2660953131)); /* combine(65, 0x636261 % (2^31-1)) */
  TVMFFIByteArray ba = check_ba("abc");
  CHECK_OK(TVMFFIBytesFromByteArray(&ba, &s));
  CHECK(hash_of(&s) == UINT64_C(2660953320)); /* combine(66, ...) */
  s = owned_str("");
  CHECK(hash_of(&s) == UINT64_C(2654440008)); /* combine(65, 0) */
  s = owned_str("abcdefgh12");
  CHECK_EQ_INT(s.type_index, kTVMFFIStr);
  CHECK(hash_of(&s) == UINT64_C(3873194023)); /* two chunks, the second zero-filled */
  CHECK(TVMFFIContainerHashBytes("abcdefgh12", 10) == UINT64_C(1218754141));
  check_any_release(&s);

  /* hash_bytes against the independent version, lengths 0..40. */
  unsigned char buf[41];
  uint64_t rng = 12345;
  for (int round = 0; round < 200; ++round) {
    size_t n = (size_t)round % 41;
    for (size_t i = 0; i < n; ++i) {
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      buf[i] = (unsigned char)(rng >> 56);
    }
    CHECK(TVMFFIContainerHashBytes((const char*)buf, n) == ref_hash_bytes(buf, n));
  }
  CHECK(TVMFFIContainerHashCombine(7, 9) == combine(7, 9));

  /* Small and heap strings of the same content hash alike. */
  fake_str heap;
  fake_str_init(&heap, kTVMFFIStr, "abc");
  TVMFFIAny h = check_any_obj(&heap), sm = owned_str("abc");
  CHECK(hash_of(&h) == hash_of(&sm));
  fake_str_init(&heap, kTVMFFIBytes, "abc");
  h = check_any_obj(&heap);
  CHECK_OK(TVMFFIBytesFromByteArray(&ba, &sm));
  CHECK(hash_of(&h) == hash_of(&sm));
  /* Other objects hash their address. */
  TVMFFIAny arr;
  CHECK_OK(check_call_global("ffi.Array", NULL, 0, &arr));
  CHECK(hash_of(&arr) == combine(kTVMFFIArray, (uint64_t)(uintptr_t)arr.v_obj));
  check_any_release(&arr);
  CHECK_SLOT_CLEAN();
}

static void test_equal_rules(void) {
  TVMFFIAny i1 = check_any_int(1), b1 = any_kind(kTVMFFIBool, 1), f1 = any_kind(kTVMFFIFloat, 0);
  f1.v_float64 = 1.0;
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&i1, &i1), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&i1, &b1), 0);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&i1, &f1), 0);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&b1, &f1), 0);
  TVMFFIAny nan1 = f1, nan2 = f1;
  nan1.v_uint64 = nan2.v_uint64 = UINT64_C(0x7ff8000000000001);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&nan1, &nan2), 1); /* raw bits */
  TVMFFIAny z1 = f1, z2 = f1;
  z1.v_float64 = 0.0;
  z2.v_float64 = -0.0;
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&z1, &z2), 0);

  fake_str hs, hb, hs2;
  fake_str_init(&hs, kTVMFFIStr, "key");
  fake_str_init(&hs2, kTVMFFIStr, "key");
  fake_str_init(&hb, kTVMFFIBytes, "key");
  TVMFFIAny s_small = owned_str("key"), s_heap = check_any_obj(&hs), s_heap2 = check_any_obj(&hs2),
            b_heap = check_any_obj(&hb), b_small;
  TVMFFIByteArray ba = check_ba("key");
  CHECK_OK(TVMFFIBytesFromByteArray(&ba, &b_small));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_small, &s_heap), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_heap, &s_small), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_heap, &s_heap2), 1); /* content, not address */
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&b_small, &b_heap), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_small, &b_small), 0); /* str is not bytes */
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_heap, &b_heap), 0);
  TVMFFIAny other = owned_str("kez");
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_heap, &other), 0);
  TVMFFIAny longer = owned_str("key!");
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&s_heap, &longer), 0);
  /* Distinct objects without hooks are different keys. */
  TVMFFIAny a1, a2;
  CHECK_OK(check_call_global("ffi.Array", NULL, 0, &a1));
  CHECK_OK(check_call_global("ffi.Array", NULL, 0, &a2));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&a1, &a2), 0);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&a1, &a1), 1);
  check_any_release(&a1);
  check_any_release(&a2);
}

/* ---- attribute hooks on a user type -------------------------------------- */

typedef struct {
  TVMFFIObject header;
  int64_t payload;
} user_key;

static int g_keys_freed;
static void user_key_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    ++g_keys_freed;
    free(self);
  }
}
static TVMFFIAny new_user_key(int32_t tindex, int64_t payload) {
  user_key* k = (user_key*)calloc(1, sizeof(user_key));
  k->header.combined_ref_count = (UINT64_C(1) << 32) | 1;
  k->header.type_index = tindex;
  k->header.deleter = user_key_deleter;
  k->payload = payload;
  return check_any_obj(k);
}

static int g_hash_calls, g_fail_hash;
static int hash_hook(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 1);
  ++g_hash_calls;
  if (g_fail_hash) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "hash hook refused");
    return -1;
  }
  *result = check_any_int(((user_key*)args[0].v_obj)->payload % 3); /* force collisions */
  return 0;
}
static int equal_hook(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 2);
  *result = any_kind(kTVMFFIBool,
                     ((user_key*)args[0].v_obj)->payload == ((user_key*)args[1].v_obj)->payload);
  return 0;
}
/* The OpaquePtr form: a native adapter `TVMFFIAny f(const Any&[, const Any&])
 * noexcept` (what the C++ headers' native_fn_attr stores) returning the int /
 * bool, or an owned ffi.Error (payload 99 refuses to hash). */
static TVMFFIAny opaque_hash(const TVMFFIAny* a) {
  int64_t payload = ((user_key*)a->v_obj)->payload;
  if (payload != 99) return any_kind(kTVMFFIInt, payload * 10);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorSetRaisedFromCStr("KeyError", "payload 99 has no hash");
  TVMFFIErrorMoveFromRaised(&err);
  return check_any_obj(err);
}
static TVMFFIAny opaque_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  return any_kind(kTVMFFIBool, ((user_key*)a->v_obj)->payload == ((user_key*)b->v_obj)->payload);
}

static int32_t register_type(const char* key) {
  TVMFFIByteArray ba = check_ba(key);
  int32_t t = TVMFFITypeGetOrAllocIndex(&ba, -1, 1, 0, 0, kTVMFFIObject);
  CHECK(t >= kTVMFFIDynObjectBegin);
  return t;
}

static void register_hook(int32_t tindex, const char* name, TVMFFIAny value) {
  TVMFFIByteArray ba = check_ba(name);
  CHECK_OK(TVMFFITypeRegisterAttr(tindex, &ba, &value));
}

static void test_hooks(void) {
  int32_t tf = register_type("test.containers.FnKey");
  int32_t to = register_type("test.containers.PtrKey");
  TVMFFIObjectHandle fh, fe;
  CHECK_OK(TVMFFIFunctionCreate(NULL, hash_hook, NULL, &fh));
  CHECK_OK(TVMFFIFunctionCreate(NULL, equal_hook, NULL, &fe));
  register_hook(tf, "__any_hash__", check_any_obj(fh));
  register_hook(tf, "__any_equal__", check_any_obj(fe));
  TVMFFIObjectDecRef(fh);
  TVMFFIObjectDecRef(fe);
  TVMFFIAny p = any_kind(kTVMFFIOpaquePtr, 0);
  TVMFFIAny (*hf)(const TVMFFIAny*) = opaque_hash;
  memcpy(&p.v_ptr, &hf, sizeof(void*));
  register_hook(to, "__any_hash__", p);
  TVMFFIAny (*ef)(const TVMFFIAny*, const TVMFFIAny*) = opaque_equal;
  memcpy(&p.v_ptr, &ef, sizeof(void*));
  register_hook(to, "__any_equal__", p);

  TVMFFIAny k1 = new_user_key(tf, 42), k2 = new_user_key(tf, 42), k3 = new_user_key(tf, 45);
  CHECK(hash_of(&k1) == combine((uint64_t)tf, 0)); /* combine(type_index, custom) */
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&k1, &k2), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&k1, &k3), 0);
  TVMFFIAny o1 = new_user_key(to, 7), o2 = new_user_key(to, 7);
  CHECK(hash_of(&o1) == combine((uint64_t)to, 70));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&o1, &o2), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&o1, &k1), 0); /* different types */
  TVMFFIAny o99 = new_user_key(to, 99);
  uint64_t h99;
  CHECK_RAISED(TVMFFIContainerAnyHash(&o99, &h99), "KeyError", "payload 99 has no hash");
  check_any_release(&o99);

  /* As map keys: k1 and k2 are the same key, k3 collides but differs. */
  TVMFFIAny args[12] = {k1, check_any_int(1), k3, check_any_int(3),
                        k2, check_any_int(2), o1, check_any_int(4)};
  for (int i = 0; i < 4; ++i) args[8 + i] = check_any_int(100 + i); /* make it dense */
  TVMFFIAny m, r;
  CHECK_OK(check_call_global("ffi.Map", args, 12, &m));
  CHECK_EQ_INT(TVMFFIMapGetCellPtr(m.v_obj)->size, 5);
  TVMFFIAny q[2] = {m, k2};
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  q[1] = o2;
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 4);
  /* A failing hook fails the lookup with its own error. */
  g_fail_hash = 1;
  q[1] = k3;
  CHECK_RAISED(check_call_global("ffi.MapGetItem", q, 2, &r), "ValueError", "hash hook refused");
  uint64_t h;
  CHECK_RAISED(TVMFFIContainerAnyHash(&k3, &h), "ValueError", "refused");
  /* A failed insert or growth leaves a Dict as it was. */
  TVMFFIAny d;
  CHECK_OK(check_call_global("ffi.Dict", NULL, 0, &d));
  for (int i = 0; i < 4; ++i) {
    TVMFFIAny set[3] = {d, check_any_int(i), check_any_int(i)};
    CHECK_OK(check_call_global("ffi.DictSetItem", set, 3, &r));
  }
  TVMFFIAny set[3] = {d, k3, check_any_int(5)}; /* the 5th key would turn the table dense */
  CHECK_RAISED(check_call_global("ffi.DictSetItem", set, 3, &r), "ValueError", "refused");
  TVMFFIMapCell* dc = TVMFFIMapGetCellPtr(d.v_obj);
  CHECK(TVMFFIMapCellIsSmall(dc));
  CHECK_EQ_INT(dc->size, 4);
  CHECK_EQ_INT(check_use_count(k3.v_obj), 2); /* the test and the map m, not d */
  check_any_release(&d);
  g_fail_hash = 0;
  check_any_release(&m);
  check_any_release(&k1);
  check_any_release(&k2);
  check_any_release(&k3);
  check_any_release(&o1);
  check_any_release(&o2);
  CHECK_EQ_INT(g_keys_freed, 6);
  CHECK(g_hash_calls > 0);
}

/* Native hooks as libraries built with apache-tvm-ffi 0.1.9 - 0.1.14 headers
 * register them (what TVM 0.27 does for ir.PrimType): `int64_t f(const Any&)` and
 * `bool f(const Any&, const Any&)`, not 0.1.15's TVMFFIAny adapters.  The
 * runtime must call each in its own convention (docs/abi.md §5.6). */
static int g_older_calls;
static int64_t older_hash(const TVMFFIAny* a) {
  ++g_older_calls;
  return ((user_key*)a->v_obj)->payload % 3; /* 1 for payload 1: either convention's Int */
}
static bool older_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  ++g_older_calls;
  return ((user_key*)a->v_obj)->payload == ((user_key*)b->v_obj)->payload;
}
static int64_t older_hash_67(const TVMFFIAny* a) { /* 0.1.15's Error type index */
  (void)a;
  return 67;
}

static void register_native(int32_t t, const char* name, void* fn) {
  TVMFFIAny p = any_kind(kTVMFFIOpaquePtr, 0);
  p.v_ptr = fn;
  register_hook(t, name, p);
}

static void test_older_native_hooks(void) {
  int32_t t = register_type("test.containers.OlderKey");
  int64_t (*hf)(const TVMFFIAny*) = older_hash;
  bool (*ef)(const TVMFFIAny*, const TVMFFIAny*) = older_equal;
  void* p;
  memcpy(&p, &hf, sizeof(p));
  register_native(t, "__any_hash__", p);
  memcpy(&p, &ef, sizeof(p));
  register_native(t, "__any_equal__", p);
  /* stored as Functions: callers built with any release's headers handle one */
  TVMFFIByteArray hname = check_ba("__any_hash__");
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&hname);
  CHECK_EQ_INT(col->data[t - col->begin_index].type_index, kTVMFFIFunction);
  CHECK_EQ_INT(col->data[kTVMFFIBigInt - col->begin_index].type_index, kTVMFFIFunction);

  /* payload 1 first: its hash, 1, reads like 0.1.15's Int, so the equality
   * hook (a bool: 0.1.9-0.1.14) decides before any equality was asked */
  TVMFFIAny k[4] = {new_user_key(t, 1), new_user_key(t, 1), new_user_key(t, 4), new_user_key(t, 5)};
  CHECK(hash_of(&k[0]) == combine((uint64_t)t, 1));
  CHECK(hash_of(&k[2]) == combine((uint64_t)t, 1));
  CHECK(hash_of(&k[3]) == combine((uint64_t)t, 2));
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&k[0], &k[1]), 1);
  CHECK_EQ_INT(TVMFFIContainerAnyEqual(&k[0], &k[2]), 0);
  TVMFFIAny args[12] = {k[0], check_any_int(1), k[2], check_any_int(4), k[3], check_any_int(5)}, m,
            r;
  for (int i = 0; i < 3; ++i) args[6 + 2 * i] = args[7 + 2 * i] = check_any_int(100 + i);
  CHECK_OK(check_call_global("ffi.Map", args, 12, &m)); /* dense: hashed */
  CHECK_EQ_INT(TVMFFIMapGetCellPtr(m.v_obj)->size, 6);
  TVMFFIAny q[2] = {m, k[1]};
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  CHECK(g_older_calls > 0);

  /* a hash-only type answering 67 (0.1.15's Error index): without an equality
   * hook to ask, it is taken as a hash, never as an error object to release */
  int32_t t67 = register_type("test.containers.Older67");
  int64_t (*h67)(const TVMFFIAny*) = older_hash_67;
  memcpy(&p, &h67, sizeof(p));
  register_native(t67, "__any_hash__", p);
  TVMFFIAny o = new_user_key(t67, 0);
  CHECK(hash_of(&o) == combine((uint64_t)t67, 67));
  check_any_release(&o);

  /* a null native hook is refused */
  TVMFFIAny null_ptr = any_kind(kTVMFFIOpaquePtr, 0);
  int32_t tn = register_type("test.containers.NullHook");
  CHECK_RAISED(TVMFFITypeRegisterAttr(tn, &hname, &null_ptr), "ValueError", "null pointer");
  check_any_release(&m);
  for (int i = 0; i < 4; ++i) check_any_release(&k[i]);
}

/* ---- the ffi.Map constructor and layouts ---------------------------------- */

static TVMFFIAny build_int_map(int n) {
  TVMFFIAny args[128], m;
  CHECK(n <= 64);
  for (int i = 0; i < n; ++i) {
    args[2 * i] = check_any_int(i + 1);
    args[2 * i + 1] = check_any_int((i + 1) * 10);
  }
  CHECK_OK(check_call_global("ffi.Map", args, 2 * n, &m));
  CHECK_EQ_INT(m.type_index, kTVMFFIMap);
  return m;
}

static void test_layouts(void) {
  for (int n = 0; n <= 5; ++n) {
    TVMFFIAny m = build_int_map(n);
    TVMFFIMapCell* c = TVMFFIMapGetCellPtr(m.v_obj);
    CHECK((char*)c == (char*)m.v_obj + 24);
    CHECK_EQ_INT(c->size, n);
    if (n <= 4) {
      /* Small, pairs inline at +56, capacity 2 then 4. */
      CHECK(c->slots & (UINT64_C(1) << 63));
      CHECK_EQ_INT(c->slots & ~(UINT64_C(1) << 63), n <= 2 ? 2 : 4);
      CHECK(c->data == (char*)m.v_obj + 56);
      CHECK(c->data_deleter == NULL);
      const TVMFFIAny* kv = (const TVMFFIAny*)c->data;
      for (int i = 0; i < n; ++i) {
        CHECK_EQ_INT(kv[2 * i].v_int64, i + 1); /* insertion order */
        CHECK_EQ_INT(kv[2 * i + 1].v_int64, (i + 1) * 10);
      }
    } else {
      /* The 5th key turns it dense: 8 slots, fib_shift 61. */
      CHECK_EQ_INT(c->slots, 8);
      CHECK_EQ_INT(c->fib_shift, 61);
      CHECK(c->data_deleter != NULL);
      /* Homes of Int 1..5 are (0x9E3779B97F4A7C15 * hash) >> 61 = 7 2 1 4 3:
       * all distinct, so each key heads its own chain at its home. */
      static const uint64_t homes[5] = {7, 2, 1, 4, 3};
      for (int i = 0; i < 5; ++i) {
        TVMFFIAny k = check_any_int(i + 1);
        CHECK((TVMFFI_MAP_FIB_MUL * hash_of(&k)) >> 61 == homes[i]);
        CHECK_EQ_INT(*TVMFFIMapDenseMeta(c, homes[i]), 0x00);
        TVMFFIMapDenseItem* it = TVMFFIMapDenseItemPtr(c, homes[i]);
        CHECK_EQ_INT(it->key.v_int64, i + 1);
        CHECK_EQ_INT(it->value.v_int64, (i + 1) * 10);
        CHECK(it->prev == (i == 0 ? UINT64_MAX : homes[i - 1]));
        CHECK(it->next == (i == 4 ? UINT64_MAX : homes[i + 1]));
      }
      CHECK_EQ_INT(c->iter_list_head, 7);
      CHECK_EQ_INT(c->iter_list_tail, 3);
      int empty = 0;
      for (uint64_t s = 0; s < 8; ++s) empty += *TVMFFIMapDenseMeta(c, s) == 0xFF;
      CHECK_EQ_INT(empty, 3);
    }
    check_any_release(&m);
  }
}

static void test_duplicates(void) {
  /* Small: a later duplicate wins and keeps the first position. */
  TVMFFIAny args[10] = {check_any_int(1),  check_any_int(10), check_any_int(2),
                        check_any_int(20), check_any_int(1),  check_any_int(11)};
  TVMFFIAny m;
  CHECK_OK(check_call_global("ffi.Map", args, 6, &m));
  TVMFFIMapCell* c = TVMFFIMapGetCellPtr(m.v_obj);
  CHECK(TVMFFIMapCellIsSmall(c));
  CHECK_EQ_INT(c->size, 2);
  CHECK_EQ_INT(TVMFFIMapCellKey(c, 0)->v_int64, 1);
  CHECK_EQ_INT(TVMFFIMapCellValue(c, 0)->v_int64, 11);
  check_any_release(&m);
  /* A full capacity-4 small map re-setting a key turns dense and the key
   * moves to the end (the reference behaves so). */
  TVMFFIAny a5[10] = {check_any_int(21), check_any_int(0), check_any_int(29), check_any_int(1),
                      check_any_int(20), check_any_int(2), check_any_int(8),  check_any_int(3),
                      check_any_int(29), check_any_int(4)};
  CHECK_OK(check_call_global("ffi.Map", a5, 10, &m));
  c = TVMFFIMapGetCellPtr(m.v_obj);
  CHECK(!TVMFFIMapCellIsSmall(c));
  CHECK_EQ_INT(c->size, 4);
  static const int64_t order[4][2] = {{21, 0}, {20, 2}, {8, 3}, {29, 4}};
  uint64_t p = TVMFFIMapCellIterBegin(c);
  for (int i = 0; i < 4; ++i, p = TVMFFIMapCellIterNext(c, p)) {
    CHECK_EQ_INT(TVMFFIMapCellKey(c, p)->v_int64, order[i][0]);
    CHECK_EQ_INT(TVMFFIMapCellValue(c, p)->v_int64, order[i][1]);
  }
  CHECK(p == TVMFFI_MAP_ITER_END);
  check_any_release(&m);
}

static void test_globals(void) {
  TVMFFIAny m = build_int_map(6), r;
  TVMFFIAny q[2] = {m, check_any_int(3)};
  CHECK_OK(check_call_global("ffi.MapSize", &m, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 6);
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 30);
  CHECK_OK(check_call_global("ffi.MapCount", q, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 1);
  q[1] = check_any_int(99);
  CHECK_RAISED(check_call_global("ffi.MapGetItem", q, 2, &r), "KeyError", "key is not in Map");
  CHECK_OK(check_call_global("ffi.MapCount", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  q[1] = any_kind(kTVMFFIBool, 1); /* Bool true is not the key Int 1 */
  CHECK_RAISED(check_call_global("ffi.MapGetItem", q, 2, &r), "KeyError", "key is not in Map");
  /* GetItemOrMissing: the value, or the very ffi.GetInvalidObject() sentinel. */
  TVMFFIAny missing;
  CHECK_OK(check_call_global("ffi.GetInvalidObject", NULL, 0, &missing));
  CHECK_OK(check_call_global("ffi.MapGetItemOrMissing", q, 2, &r));
  CHECK(r.type_index >= kTVMFFIStaticObjectBegin && r.v_obj == missing.v_obj);
  check_any_release(&r);
  q[1] = check_any_int(6);
  CHECK_OK(check_call_global("ffi.MapGetItemOrMissing", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 60);
  check_any_release(&missing);
  /* Type errors. */
  TVMFFIAny dict;
  CHECK_OK(check_call_global("ffi.Dict", NULL, 0, &dict));
  CHECK_RAISED(check_call_global("ffi.MapSize", &dict, 1, &r), "TypeError", "ffi.Map");
  TVMFFIAny bad[2] = {check_any_int(1), check_any_int(1)};
  CHECK_RAISED(check_call_global("ffi.MapGetItem", bad, 2, &r), "TypeError", "ffi.Map");
  CHECK_RAISED(check_call_global("ffi.MapCount", &m, 1, &r), "TypeError", "");
  CHECK_RAISED(check_call_global("ffi.MapForwardIterFunctor", &dict, 1, &r), "TypeError",
               "ffi.Map");
  check_any_release(&dict);
  /* Odd argument count. */
  TVMFFIAny odd[3] = {check_any_int(1), check_any_int(2), check_any_int(3)};
  CHECK_RAISED(check_call_global("ffi.Map", odd, 3, &r), "InternalError", "");
  CHECK_RAISED(check_call_global("ffi.Map", odd, 1, &r), "InternalError", "");
  check_any_release(&m);
}

/* Keys given as views: RawStr, a heap String of short content, bytes. */
static void test_view_keys(void) {
  TVMFFIByteArray bytes_key = check_ba("raw-bytes-key");
  TVMFFIAny bk;
  memset(&bk, 0, sizeof(bk));
  bk.type_index = kTVMFFIByteArrayPtr;
  bk.v_ptr = &bytes_key;
  TVMFFIAny args[6] = {check_any_cstr("abc"),
                       check_any_int(1),
                       check_any_cstr("a long string key"),
                       check_any_int(2),
                       bk,
                       check_any_int(3)};
  TVMFFIAny m, r;
  CHECK_OK(check_call_global("ffi.Map", args, 6, &m));
  TVMFFIMapCell* c = TVMFFIMapGetCellPtr(m.v_obj);
  CHECK_EQ_INT(TVMFFIMapCellKey(c, 0)->type_index, kTVMFFISmallStr);
  CHECK_EQ_INT(TVMFFIMapCellKey(c, 1)->type_index, kTVMFFIStr);
  CHECK_EQ_INT(TVMFFIMapCellKey(c, 2)->type_index, kTVMFFIBytes);
  fake_str heap;
  fake_str_init(&heap, kTVMFFIStr, "abc");
  TVMFFIAny q[2] = {m, check_any_obj(&heap)};
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 1);
  q[1] = check_any_cstr("a long string key");
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  q[1] = bk;
  CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 3);
  q[1] = check_any_cstr("raw-bytes-key"); /* a str is not the bytes key */
  CHECK_OK(check_call_global("ffi.MapCount", q, 2, &r));
  CHECK_EQ_INT(r.v_int64, 0);
  check_any_release(&m);
}

/* Drives the iterator functor returned by ffi.MapForwardIterFunctor. */
static int iter_collect(TVMFFIAny m, int64_t* keys, int64_t* vals, int max) {
  TVMFFIAny it, r;
  CHECK_OK(check_call_global("ffi.MapForwardIterFunctor", &m, 1, &it));
  CHECK_EQ_INT(it.type_index, kTVMFFIFunction);
  int n = 0;
  int64_t size = (int64_t)TVMFFIMapGetCellPtr(m.v_obj)->size;
  for (int more = size > 0; more; ++n) {
    CHECK(n < max);
    TVMFFIAny cmd = check_any_int(0);
    CHECK_OK(call_fn(it.v_obj, &cmd, &r));
    keys[n] = r.v_int64;
    cmd = check_any_int(1);
    CHECK_OK(call_fn(it.v_obj, &cmd, &r));
    vals[n] = r.v_int64;
    cmd = check_any_int(2);
    CHECK_OK(call_fn(it.v_obj, &cmd, &r));
    CHECK_EQ_INT(r.type_index, kTVMFFIBool);
    more = (int)r.v_int64;
  }
  TVMFFIAny cmd = check_any_int(0);
  r = check_any_int(0);
  CHECK_RAISED(call_fn(it.v_obj, &cmd, &r), "IndexError", "end");
  cmd = check_any_int(7);
  CHECK_RAISED(call_fn(it.v_obj, &cmd, &r), "ValueError", "");
  check_any_release(&it);
  return n;
}

static void test_iteration(void) {
  for (int n = 1; n <= 40; n += 13) {
    TVMFFIAny m = build_int_map(n);
    int64_t keys[64], vals[64];
    CHECK_EQ_INT(iter_collect(m, keys, vals, 64), n);
    for (int i = 0; i < n; ++i) {
      CHECK_EQ_INT(keys[i], i + 1);
      CHECK_EQ_INT(vals[i], (i + 1) * 10);
    }
    check_any_release(&m); /* the functor held its own reference: no crash */
  }
}

/* Values and keys die exactly once, including replaced duplicates. */
static int g_deleted;
static void count_delete(void* handle) {
  (void)handle;
  ++g_deleted;
}
static TVMFFIAny tracked(void) {
  TVMFFIObjectHandle h = NULL;
  CHECK_OK(TVMFFIObjectCreateOpaque(NULL, kTVMFFIOpaquePyObject, count_delete, &h));
  return check_any_obj(h);
}

static void test_refcounts(void) {
  enum { N = 12 };
  TVMFFIAny objs[N], args[2 * N + 2], m;
  for (int i = 0; i < N; ++i) {
    objs[i] = tracked();
    args[2 * i] = i % 2 ? objs[i] : check_any_int(i);       /* some objects are keys */
    args[2 * i + 1] = i % 2 ? check_any_int(i) : objs[i];   /* the others values */
  }
  args[2 * N] = check_any_int(0); /* duplicate of key 0: its old value is dropped */
  args[2 * N + 1] = check_any_int(-1);
  CHECK_OK(check_call_global("ffi.Map", args, 2 * N + 2, &m));
  for (int i = 0; i < N; ++i) CHECK_EQ_INT(check_use_count(objs[i].v_obj), i == 0 ? 1 : 2);
  for (int i = 0; i < N; ++i) check_any_release(&objs[i]);
  CHECK_EQ_INT(g_deleted, 1);
  check_any_release(&m);
  CHECK_EQ_INT(g_deleted, N);
  g_deleted = 0;
}

/* Random key sequences with duplicates versus a model of the documented
 * order rules (small: keep position; dense, or a full capacity-4 small
 * table: move to the end). */
static void test_random_construction(void) {
  static char names[64][24];
  for (int i = 0; i < 64; ++i)
    snprintf(names[i], sizeof(names[i]), i % 3 ? "k%d" : "long-key-%d", i);
  uint64_t rng = 0xC0FFEE;
  for (int round = 0; round < 300; ++round) {
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    int n = (int)(rng >> 58), range = 2 + (int)((rng >> 50) % 40);
    TVMFFIAny args[128];
    int model_key[64], model_val[64], model_n = 0, dense = 0;
    for (int i = 0; i < n; ++i) {
      rng = rng * 6364136223846793005u + 1442695040888963407u;
      int k = (int)((rng >> 33) % (uint64_t)range);
      args[2 * i] = k % 2 ? check_any_cstr(names[k]) : check_any_int(k);
      args[2 * i + 1] = check_any_int(i);
      int at = -1;
      for (int j = 0; j < model_n; ++j)
        if (model_key[j] == k) at = j;
      int full4 = !dense && model_n == 4;
      if (at < 0) {
        model_key[model_n] = k;
        model_val[model_n++] = i;
      } else if (dense || full4) {
        memmove(model_key + at, model_key + at + 1, (size_t)(model_n - at - 1) * sizeof(int));
        memmove(model_val + at, model_val + at + 1, (size_t)(model_n - at - 1) * sizeof(int));
        model_key[model_n - 1] = k;
        model_val[model_n - 1] = i;
      } else {
        model_val[at] = i;
      }
      if (full4) dense = 1;
    }
    TVMFFIAny m;
    CHECK_OK(check_call_global("ffi.Map", args, 2 * n, &m));
    TVMFFIMapCell* c = TVMFFIMapGetCellPtr(m.v_obj);
    CHECK_EQ_INT(c->size, model_n);
    CHECK_EQ_INT(!TVMFFIMapCellIsSmall(c), dense);
    uint64_t p = TVMFFIMapCellIterBegin(c);
    for (int j = 0; j < model_n; ++j, p = TVMFFIMapCellIterNext(c, p)) {
      CHECK(p != TVMFFI_MAP_ITER_END);
      const TVMFFIAny* key = TVMFFIMapCellKey(c, p);
      int k = model_key[j];
      if (k % 2) {
        TVMFFIByteArray b = key->type_index == kTVMFFISmallStr
                                ? TVMFFISmallBytesGetContentByteArray(key)
                                : *TVMFFIBytesGetByteArrayPtr(key->v_obj);
        CHECK_EQ_BYTES(b, names[k]);
      } else {
        CHECK_EQ_INT(key->v_int64, k);
      }
      CHECK_EQ_INT(TVMFFIMapCellValue(c, p)->v_int64, model_val[j]);
      /* And each key is found through the global. */
      TVMFFIAny q[2] = {m, k % 2 ? check_any_cstr(names[k]) : check_any_int(k)}, r;
      CHECK_OK(check_call_global("ffi.MapGetItem", q, 2, &r));
      CHECK_EQ_INT(r.v_int64, model_val[j]);
    }
    CHECK(p == TVMFFI_MAP_ITER_END);
    check_any_release(&m);
  }
}

/* ---- ffi.ContainerFindFirstNonCPUDevice ----------------------------------- */

static void noop_deleter(DLManagedTensor* self) { (void)self; }

static void test_find_device(void) {
  static float storage[4];
  static int64_t shape[1] = {4};
  DLManagedTensor mt_cpu, mt_gpu;
  memset(&mt_cpu, 0, sizeof(mt_cpu));
  mt_cpu.dl_tensor.data = storage;
  mt_cpu.dl_tensor.device = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  mt_cpu.dl_tensor.ndim = 1;
  mt_cpu.dl_tensor.dtype.code = kDLFloat;
  mt_cpu.dl_tensor.dtype.bits = 32;
  mt_cpu.dl_tensor.dtype.lanes = 1;
  mt_cpu.dl_tensor.shape = shape;
  mt_cpu.deleter = noop_deleter;
  mt_gpu = mt_cpu;
  mt_gpu.dl_tensor.device = TVMFFIDLDeviceFromIntPair(kDLCUDA, 3);
  TVMFFIObjectHandle tcpu, tgpu;
  CHECK_OK(TVMFFITensorFromDLPack(&mt_cpu, 0, 0, &tcpu));
  CHECK_OK(TVMFFITensorFromDLPack(&mt_gpu, 0, 0, &tgpu));

  TVMFFIAny r, inner, lst, outer;
  /* Map values are searched, keys are not. */
  TVMFFIAny kv[4] = {check_any_obj(tgpu), check_any_int(1), check_any_int(2), check_any_obj(tcpu)};
  CHECK_OK(check_call_global("ffi.Map", kv, 4, &inner));
  CHECK_OK(check_call_global("ffi.ContainerFindFirstNonCPUDevice", &inner, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDevice);
  CHECK_EQ_INT(r.v_device.device_type, kDLCPU);
  CHECK_EQ_INT(r.v_device.device_id, 0);
  TVMFFIAny kv2[2] = {check_any_int(5), check_any_obj(tgpu)};
  TVMFFIAny d;
  CHECK_OK(check_call_global("ffi.Dict", kv2, 2, &d));
  TVMFFIAny items[3] = {check_any_obj(tcpu), inner, d};
  CHECK_OK(check_call_global("ffi.List", items, 3, &lst));
  /* A list that contains itself must not loop forever. */
  TVMFFIAny ins[3] = {lst, check_any_int(0), lst};
  CHECK_OK(check_call_global("ffi.ListInsert", ins, 3, &r));
  TVMFFIAny arr_items[2] = {check_any_int(9), lst};
  CHECK_OK(check_call_global("ffi.Array", arr_items, 2, &outer));
  CHECK_OK(check_call_global("ffi.ContainerFindFirstNonCPUDevice", &outer, 1, &r));
  CHECK_EQ_INT(r.v_device.device_type, kDLCUDA);
  CHECK_EQ_INT(r.v_device.device_id, 3);
  TVMFFIAny g = check_any_obj(tgpu);
  CHECK_OK(check_call_global("ffi.ContainerFindFirstNonCPUDevice", &g, 1, &r));
  CHECK_EQ_INT(r.v_device.device_type, kDLCUDA);
  TVMFFIAny plain = check_any_int(3);
  CHECK_OK(check_call_global("ffi.ContainerFindFirstNonCPUDevice", &plain, 1, &r));
  CHECK_EQ_INT(r.v_device.device_type, kDLCPU);
  CHECK_RAISED(check_call_global("ffi.ContainerFindFirstNonCPUDevice", NULL, 0, &r), "TypeError",
               "");
  /* Break the self-reference before releasing. */
  TVMFFIAny er[2] = {lst, check_any_int(0)};
  CHECK_OK(check_call_global("ffi.ListErase", er, 2, &r));
  check_any_release(&outer);
  check_any_release(&lst);
  check_any_release(&d);
  check_any_release(&inner);
  TVMFFIObjectDecRef(tcpu);
  TVMFFIObjectDecRef(tgpu);
}

/* The inline table API as C++ header code drives it. */
static void test_header_api(void) {
  /* A copy-on-write Map grows into a new object: Insert without realloc
   * reports 1 and moves nothing, GrowInto builds the next layout. */
  TVMFFIMapKV inline2[2], inline4[4];
  TVMFFIMapCell a, b, dense;
  TVMFFIMapCellInitSmall(&a, inline2, 2, NULL);
  TVMFFIAny t = tracked();
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny k = check_any_int(i), v = i ? check_any_int(0) : t;
    if (i == 0) CHECK_OK(TVMFFIObjectIncRef(t.v_obj));
    CHECK_EQ_INT(TVMFFIMapCellInsert(&a, &k, &v, 0), 0);
    CHECK_EQ_INT(v.type_index, kTVMFFINone); /* moved in */
  }
  TVMFFIAny k = check_any_int(7), v = check_any_int(70);
  CHECK_EQ_INT(TVMFFIMapCellInsert(&a, &k, &v, 0), 1);
  CHECK_EQ_INT(k.v_int64, 7); /* untouched */
  CHECK_EQ_INT(TVMFFIMapCellGrowCapacity(&a), 4);
  CHECK_OK(TVMFFIMapCellGrowInto(&a, &b, inline4, &k, &v));
  CHECK(a.data == NULL && a.size == 0 && a.slots == 0 && a.data_deleter == NULL);
  CHECK(b.data == inline4 && b.data_deleter == NULL);
  {
    /* A moved-from cell is empty and can be refilled. */
    TVMFFIAny k2 = check_any_int(1), v2 = check_any_int(2);
    CHECK(TVMFFIMapCellIterBegin(&a) == TVMFFI_MAP_ITER_END);
    CHECK_EQ_INT(TVMFFIMapCellInsert(&a, &k2, &v2, 0), 1);
    CHECK_EQ_INT(TVMFFIMapCellInsert(&a, &k2, &v2, 1), 0);
    CHECK_EQ_INT(a.size, 1);
    CHECK_EQ_INT(a.slots, 8);
    TVMFFIMapCellDestroy(&a);
  }
  CHECK_EQ_INT(b.size, 3);
  CHECK_EQ_INT(TVMFFIMapCellKey(&b, 2)->v_int64, 7);
  CHECK_EQ_INT(check_use_count(t.v_obj), 2); /* moved, not copied */
  k = check_any_int(8), v = check_any_int(80);
  CHECK_EQ_INT(TVMFFIMapCellInsert(&b, &k, &v, 0), 0);
  k = check_any_int(9), v = check_any_int(90);
  CHECK_EQ_INT(TVMFFIMapCellInsert(&b, &k, &v, 0), 1);
  CHECK_EQ_INT(TVMFFIMapCellGrowCapacity(&b), 0); /* next: dense */
  CHECK_OK(TVMFFIMapCellGrowInto(&b, &dense, NULL, &k, &v));
  CHECK_EQ_INT(dense.slots, 8);
  CHECK_EQ_INT(dense.fib_shift, 61);
  CHECK_EQ_INT(dense.size, 5);
  static const int64_t order[5] = {0, 1, 7, 8, 9};
  uint64_t p = TVMFFIMapCellIterBegin(&dense);
  for (int i = 0; i < 5; ++i, p = TVMFFIMapCellIterNext(&dense, p))
    CHECK_EQ_INT(TVMFFIMapCellKey(&dense, p)->v_int64, order[i]);
  /* Backwards from the end. */
  p = TVMFFIMapCellIterPrev(&dense, TVMFFI_MAP_ITER_END);
  for (int i = 4; i >= 0; --i, p = TVMFFIMapCellIterPrev(&dense, p))
    CHECK_EQ_INT(TVMFFIMapCellKey(&dense, p)->v_int64, order[i]);
  CHECK(p == TVMFFI_MAP_ITER_END);
  /* Find / Erase / Destroy. */
  TVMFFIAny probe = check_any_int(0);
  CHECK_OK(TVMFFIMapCellFind(&dense, &probe, &p));
  CHECK(TVMFFIMapCellValue(&dense, p)->v_obj == t.v_obj);
  TVMFFIMapCellErase(&dense, p);
  CHECK_EQ_INT(check_use_count(t.v_obj), 1);
  CHECK_OK(TVMFFIMapCellFind(&dense, &probe, &p));
  CHECK(p == TVMFFI_MAP_ITER_END);
  /* A range of 4 or more entries starts dense (C++ CreateFromRange). */
  TVMFFIMapCell r;
  CHECK_OK(TVMFFIMapCellInitDense(&r, 4));
  CHECK_EQ_INT(r.slots, 8);
  CHECK_OK(TVMFFIMapCellInitDense(&b, 17)); /* b was left empty by GrowInto */
  CHECK_EQ_INT(b.slots, 64); /* 32 < 2 * 17, doubled once more */
  CHECK_EQ_INT(b.fib_shift, 58);
  for (int i = 0; i < 100; ++i) {
    k = check_any_int(i), v = check_any_int(i);
    CHECK_EQ_INT(TVMFFIMapCellInsert(&b, &k, &v, 1), 0); /* grows in place */
  }
  CHECK_EQ_INT(b.size, 100);
  TVMFFIMapCellDestroy(&b);
  TVMFFIMapCellDestroy(&r);
  TVMFFIMapCellDestroy(&dense);
  CHECK(dense.data == NULL && dense.size == 0);
  check_any_release(&t);
  CHECK_EQ_INT(g_deleted, 1);
  g_deleted = 0;
}

int main(void) {
  test_header_api();
  test_hash_values();
  test_equal_rules();
  test_hooks();
  test_older_native_hooks();
  test_layouts();
  test_duplicates();
  test_globals();
  test_view_keys();
  test_iteration();
  test_refcounts();
  test_random_construction();
  test_find_device();
  CHECK_SLOT_CLEAN();
  printf("test_map: ok\n");
  return 0;
}
