/*
 * test_recursive.c -- ffi.RecursiveEq/Lt/Le/Gt/Ge/Hash and ffi.DeepCopy:
 * kinds kept apart (int, bool, float), NaN, None first, string forms,
 * DataType/Device order, containers (element-wise, lexicographic, maps
 * order-free), Shape, reflected objects (CompareOff/HashOff fields ignored),
 * equal => same hash, TypeError for unorderable pairs, cyclic graphs (equal
 * for equality, ValueError for order), deep copies that preserve sharing and
 * cycles, argument errors, refcounts.
 */
#include <tvm/ffi/extra/c_container.h>

#include "ext_fixture.h"

static int cmp(const char* name, TVMFFIAny a, TVMFFIAny b) {
  TVMFFIAny args[2] = {a, b}, r;
  CHECK_OK(check_call_global(name, args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  return (int)r.v_int64;
}
static int eq(TVMFFIAny a, TVMFFIAny b) { return cmp("ffi.RecursiveEq", a, b); }
static int64_t hash(TVMFFIAny a) {
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.RecursiveHash", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  return r.v_int64;
}
/* Equal both ways and hash alike. */
static void check_same(TVMFFIAny a, TVMFFIAny b) {
  CHECK(eq(a, b));
  CHECK(eq(b, a));
  CHECK_EQ_INT(hash(a), hash(b));
}
/* Equal, and also so by the order tests. */
static void check_same_ordered(TVMFFIAny a, TVMFFIAny b) {
  check_same(a, b);
  CHECK(cmp("ffi.RecursiveLe", a, b) && cmp("ffi.RecursiveGe", a, b));
  CHECK(!cmp("ffi.RecursiveLt", a, b) && !cmp("ffi.RecursiveGt", a, b));
}
/* a < b in every test. */
static void check_less(TVMFFIAny a, TVMFFIAny b) {
  CHECK(!eq(a, b));
  CHECK(cmp("ffi.RecursiveLt", a, b));
  CHECK(cmp("ffi.RecursiveLe", a, b));
  CHECK(!cmp("ffi.RecursiveGt", a, b));
  CHECK(!cmp("ffi.RecursiveGe", a, b));
  CHECK(cmp("ffi.RecursiveGt", b, a));
  CHECK(cmp("ffi.RecursiveGe", b, a));
}

static void check_unorderable(TVMFFIAny a, TVMFFIAny b, const char* what) {
  TVMFFIAny args[2] = {a, b}, r;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", what);
  CHECK_RAISED(check_call_global("ffi.RecursiveGe", args, 2, &r), "TypeError", what);
}

static void test_pod(void) {
  /* int, bool and float are three kinds: never equal, hashed apart, not ordered. */
  CHECK(!eq(ext_int(1), ext_float(1.0)));
  CHECK(!eq(ext_int(1), ext_bool(1)));
  CHECK(!eq(ext_bool(0), ext_float(0.0)));
  CHECK(hash(ext_int(1)) != hash(ext_float(1.0)));
  CHECK(hash(ext_int(1)) != hash(ext_bool(1)));
  check_unorderable(ext_int(1), ext_float(1.5), "float");
  check_unorderable(ext_bool(0), ext_int(1), "bool");
  check_same_ordered(ext_int(7), ext_int(7));
  check_less(ext_int(1), ext_int(2));
  check_less(ext_bool(0), ext_bool(1));
  check_less(ext_float(1.0), ext_float(1.5));
  check_same_ordered(ext_float(-0.0), ext_float(0.0));
  check_less(ext_int(INT64_MAX - 1), ext_int(INT64_MAX));
  /* None equals None and orders first. */
  check_same_ordered(ext_none(), ext_none());
  check_less(ext_none(), ext_int(0));
  check_less(ext_none(), ext_str(""));
  /* NaN equals NaN whatever its payload, hashes alike, and has no order. */
  TVMFFIAny nan = ext_float(__builtin_nan("")), nan5 = ext_float(__builtin_nan("5"));
  check_same(nan, nan5);
  CHECK(!eq(nan, ext_float(1.0)));
  check_unorderable(nan, ext_float(1.0), "NaN");
  check_unorderable(nan, nan, "NaN");
  /* DataType orders by (code, bits, lanes), Device by (type, id). */
  TVMFFIAny f16 = {.type_index = kTVMFFIDataType}, f32 = f16, i64 = f16;
  f16.v_dtype = (DLDataType){kDLFloat, 16, 1};
  f32.v_dtype = (DLDataType){kDLFloat, 32, 1};
  i64.v_dtype = (DLDataType){kDLInt, 64, 1};
  check_less(f16, f32);
  check_less(i64, f16);
  TVMFFIAny cpu0 = {.type_index = kTVMFFIDevice}, cpu1 = cpu0, cuda0 = cpu0;
  cpu0.v_device = (DLDevice){kDLCPU, 0};
  cpu1.v_device = (DLDevice){kDLCPU, 1};
  cuda0.v_device = (DLDevice){kDLCUDA, 0};
  check_less(cpu0, cpu1);
  check_less(cpu1, cuda0);
  check_same_ordered(cpu0, cpu0);
  /* Strings: every form compares by content. */
  TVMFFIAny heap = ext_owned_str("a long heap string");
  TVMFFIAny small = ext_owned_str("abc");
  CHECK_EQ_INT(small.type_index, kTVMFFISmallStr);
  check_same_ordered(heap, ext_str("a long heap string"));
  check_same(small, ext_str("abc"));
  check_less(ext_str("abc"), ext_str("abd"));
  check_less(ext_str("ab"), ext_str("abc"));
  check_less(ext_str(""), heap);
  CHECK(!eq(ext_str("1"), ext_int(1)));
  CHECK(!eq(ext_none(), ext_int(0)));
  TVMFFIByteArray bb = check_ba("abc");
  TVMFFIAny bytes;
  CHECK_OK(TVMFFIBytesFromByteArray(&bb, &bytes));
  CHECK(!eq(bytes, small));
  check_any_release(&heap);
  check_any_release(&small);
}

static void test_containers(void) {
  TVMFFIAny v[4] = {ext_int(1), ext_int(2), ext_int(3), ext_float(2.0)};
  TVMFFIAny a123 = ext_make("ffi.Array", v, 3);
  TVMFFIAny a12 = ext_make("ffi.Array", v, 2);
  TVMFFIAny a1f = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(1), ext_int(2), ext_int(3)}, 3);
  TVMFFIAny af = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(1), ext_float(2.0), ext_int(3)}, 3);
  TVMFFIAny a124 = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(1), ext_int(2), ext_int(4)}, 3);
  TVMFFIAny l123 = ext_make("ffi.List", v, 3);
  TVMFFIAny l123b = ext_make("ffi.List", v, 3);
  check_same_ordered(a123, a1f);
  CHECK(!eq(a123, af)); /* 2 and 2.0 differ */
  check_unorderable(a123, af, "float");
  check_same_ordered(l123, l123b);
  check_less(a12, a123);
  check_less(a123, a124);
  CHECK(!eq(a123, l123)); /* Array never equals List */
  CHECK(eq(a123, a123));
  TVMFFIAny nested1 = ext_make("ffi.Array", (TVMFFIAny[]){a123, l123}, 2);
  TVMFFIAny nested2 = ext_make("ffi.Array", (TVMFFIAny[]){a1f, l123b}, 2);
  check_same(nested1, nested2);

  /* Maps: same entries in another order are equal and hash alike. */
  TVMFFIAny kv1[6] = {ext_str("a"), ext_int(1), ext_str("b"), a123, ext_int(7), ext_none()};
  TVMFFIAny kv2[6] = {ext_int(7), ext_none(), ext_str("b"), a1f, ext_str("a"), ext_int(1)};
  TVMFFIAny m1 = ext_make("ffi.Map", kv1, 6), m2 = ext_make("ffi.Map", kv2, 6);
  TVMFFIAny d1 = ext_make("ffi.Dict", kv1, 6), d2 = ext_make("ffi.Dict", kv2, 6);
  TVMFFIAny m3 = ext_make("ffi.Map", kv1, 4);
  check_same(m1, m2);
  check_same(d1, d2);
  CHECK(!eq(m1, m3));
  CHECK(!eq(m1, d1));
  TVMFFIAny kv4[6] = {ext_str("a"), ext_int(2), ext_str("b"), a123, ext_int(7), ext_none()};
  TVMFFIAny m4 = ext_make("ffi.Map", kv4, 6);
  CHECK(!eq(m1, m4));

  TVMFFIAny s1 = ext_make("ffi.Shape", v, 3), s2 = ext_make("ffi.Shape", v, 3);
  TVMFFIAny s3 = ext_make("ffi.Shape", v, 2);
  check_same_ordered(s1, s2);
  check_less(s3, s1);

  /* Order tests on unorderable kinds are TypeErrors; equality is not.  Equal
   * maps are equal to the order tests too; unequal ones have no order. */
  check_same_ordered(m1, m2);
  check_unorderable(m1, m4, "ffi.Map");
  TVMFFIAny args[2], r;
  args[0] = a123;
  args[1] = ext_str("x");
  CHECK_RAISED(check_call_global("ffi.RecursiveGe", args, 2, &r), "TypeError", "ffi.Array");
  args[0] = a123;
  args[1] = l123;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "ffi.List");
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 1, &r), "TypeError", "Expected 2");
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 2, &r), "TypeError", "Expected 1");

  CHECK_EQ_INT(check_use_count(a123.v_obj), 6); /* self, nested1, m1, d1, m3, m4 */
  TVMFFIAny* all[] = {&a123, &a12, &a1f, &af, &a124, &l123, &l123b, &nested1, &nested2,
                      &m1,   &m2,  &d1,  &d2, &m3,   &m4,   &s1,    &s2,      &s3};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_objects(void) {
  TVMFFIAny p1 = ext_pair_new(1, ext_str("x"), 10);
  TVMFFIAny p2 = ext_pair_new(1, ext_str("x"), 20); /* differs only in the hidden field */
  TVMFFIAny p3 = ext_pair_new(1, ext_str("y"), 10);
  TVMFFIAny p4 = ext_pair_new(2, ext_str("a"), 10);
  check_same_ordered(p1, p2);
  check_less(p1, p3);
  check_less(p3, p4);
  TVMFFIAny w1 = ext_make("ffi.Array", (TVMFFIAny[]){p1}, 1);
  TVMFFIAny w2 = ext_make("ffi.Array", (TVMFFIAny[]){p2}, 1);
  check_same(w1, w2);
  CHECK(!eq(p1, ext_int(1)));
  TVMFFIAny* all[] = {&p1, &p2, &p3, &p4, &w1, &w2};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_cycles(void) {
  TVMFFIAny l1 = ext_make("ffi.List", (TVMFFIAny[]){ext_int(1)}, 1);
  TVMFFIAny l2 = ext_make("ffi.List", (TVMFFIAny[]){ext_int(1)}, 1);
  TVMFFIAny args[2] = {l1, l1}, r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  args[0] = args[1] = l2;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  CHECK(eq(l1, l1));
  CHECK_EQ_INT(hash(l1), hash(l1));
  /* Two distinct lists of the same cyclic shape: equal (a pair met again counts
   * as equal), with no order. */
  CHECK(eq(l1, l2));
  CHECK_EQ_INT(hash(l1), hash(l2));
  args[0] = l1;
  args[1] = l2;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "ValueError", "cyclic");

  /* A deep copy of a self-containing List contains the copy. */
  TVMFFIAny c;
  CHECK_OK(check_call_global("ffi.DeepCopy", &l1, 1, &c));
  CHECK(c.v_obj != l1.v_obj);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(c.v_obj);
  CHECK_EQ_INT(cell->size, 2);
  CHECK(((TVMFFIAny*)cell->data)[1].v_obj == c.v_obj);
  CHECK_EQ_INT(check_use_count(c.v_obj), 2);
  CHECK_OK(check_call_global("ffi.ListClear", &c, 1, &r));
  CHECK_EQ_INT(check_use_count(c.v_obj), 1);
  check_any_release(&c);
  CHECK_OK(check_call_global("ffi.ListClear", &l1, 1, &r));
  CHECK_OK(check_call_global("ffi.ListClear", &l2, 1, &r));
  check_any_release(&l1);
  check_any_release(&l2);
}

/* Shared nodes are compared and hashed once (issue 22): a 60-level DAG has 2^60 paths. */
static void test_shared_nodes(void) {
  TVMFFIAny a = check_dag("ffi.Array", ext_int(1), 60), b = check_dag("ffi.Array", ext_int(1), 60);
  check_same_ordered(a, b);
  TVMFFIAny c = check_dag("ffi.Array", ext_int(2), 60);
  CHECK(!eq(a, c));
  CHECK(cmp("ffi.RecursiveLt", a, c));
  /* the same value with and without sharing (past the memo's start): equal, same hash */
  TVMFFIAny small = check_dag("ffi.List", ext_str("s"), 9); /* 2^9 leaves, 10 nodes */
  TVMFFIAny copy;
  CHECK_OK(check_call_global("ffi.DeepCopy", &small, 1, &copy));
  TVMFFIAny unshared_items[2] = {small, copy}, shared_items[2] = {small, small};
  TVMFFIAny x = ext_make("ffi.Array", unshared_items, 2),
            y = ext_make("ffi.Array", shared_items, 2);
  check_same(x, y);
  /* cycles past the memo's start: each element of a big List holds the List itself; a
   * node's hash computed inside a cycle is not reused where the cycle is not around it */
  TVMFFIAny l1 = ext_make("ffi.List", NULL, 0), l2 = ext_make("ffi.List", NULL, 0);
  TVMFFIAny* ls[2] = {&l1, &l2};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 300; ++i) {
      TVMFFIAny pair[2] = {ext_int(i), *ls[k]};
      TVMFFIAny item = ext_make("ffi.List", pair, 2);
      TVMFFIAny args[2] = {*ls[k], item}, r;
      CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
      check_any_release(&item);
    }
  check_same(l1, l2);
  TVMFFIAny holder1[2] = {l1, ext_int(0)}, holder2[2] = {l2, ext_int(0)};
  TVMFFIAny h1 = ext_make("ffi.Array", holder1, 2), h2 = ext_make("ffi.Array", holder2, 2);
  check_same(h1, h2);
  TVMFFIAny r;
  for (int k = 0; k < 2; ++k) CHECK_OK(check_call_global("ffi.ListClear", ls[k], 1, &r));
  TVMFFIAny* all[] = {&a, &b, &c, &small, &copy, &x, &y, &l1, &l2, &h1, &h2};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_deepcopy(void) {
  TVMFFIAny s = ext_owned_str("shared immutable string");
  TVMFFIAny inner = ext_make("ffi.List", (TVMFFIAny[]){ext_int(1), s}, 2);
  TVMFFIAny kv[4] = {ext_str("k"), inner, ext_str("again"), inner};
  TVMFFIAny d = ext_make("ffi.Dict", kv, 4);
  TVMFFIAny p = ext_pair_new(5, d, 77);
  TVMFFIAny top = ext_make("ffi.Array", (TVMFFIAny[]){p, inner, ext_float(2.5)}, 3);
  TVMFFIAny c;
  CHECK_OK(check_call_global("ffi.DeepCopy", &top, 1, &c));
  CHECK(c.v_obj != top.v_obj);
  check_same(top, c);
  TVMFFIAny* ci = (TVMFFIAny*)TVMFFISeqGetCellPtr(c.v_obj)->data;
  ext_pair* cp = (ext_pair*)ci[0].v_obj;
  CHECK(ci[0].v_obj != p.v_obj);
  CHECK_EQ_INT(cp->a, 5);
  CHECK_EQ_INT(cp->hidden, 77); /* every field with a setter is copied, compared or not */
  /* Sharing preserved: both dict values and the array's second item are one copy. */
  TVMFFIMapCell* dm = TVMFFIMapGetCellPtr(cp->b.v_obj);
  CHECK(cp->b.v_obj != d.v_obj);
  uint64_t pos = TVMFFIMapCellIterBegin(dm);
  TVMFFIObject* v0 = TVMFFIMapCellValue(dm, pos)->v_obj;
  TVMFFIObject* v1 = TVMFFIMapCellValue(dm, TVMFFIMapCellIterNext(dm, pos))->v_obj;
  CHECK(v0 == v1 && v0 == ci[1].v_obj && v0 != inner.v_obj);
  /* Immutable leaves are shared, not copied. */
  CHECK(((TVMFFIAny*)TVMFFISeqGetCellPtr(v0)->data)[1].v_obj == s.v_obj);
  /* Mutating the copy leaves the original alone. */
  TVMFFIAny args[2] = {ci[1], ext_int(9)}, r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  CHECK_EQ_INT(TVMFFISeqGetCellPtr(inner.v_obj)->size, 2);
  CHECK(!eq(top, c));
  check_any_release(&c);
  CHECK_EQ_INT(check_use_count(inner.v_obj), 4); /* self, d twice, top */
  CHECK_EQ_INT(check_use_count(s.v_obj), 2);

  /* Maps are copied too, keys included; one reaching itself through a Dict yields a copy
   * whose Dict reaches the copy. */
  TVMFFIAny d2 = ext_make("ffi.Dict", NULL, 0);
  TVMFFIAny m = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("d"), d2, ext_str("l"), inner}, 4);
  CHECK_OK(check_call_global("ffi.DeepCopy", &m, 1, &c));
  CHECK(c.type_index == kTVMFFIMap && c.v_obj != m.v_obj);
  check_same(m, c);
  check_any_release(&c);
  TVMFFIAny set[3] = {d2, ext_str("back"), m};
  CHECK_OK(check_call_global("ffi.DictSetItem", set, 3, &r));
  CHECK_OK(check_call_global("ffi.DeepCopy", &m, 1, &c));
  TVMFFIMapCell* cm = TVMFFIMapGetCellPtr(c.v_obj);
  TVMFFIObject* cd = TVMFFIMapCellValue(cm, TVMFFIMapCellIterBegin(cm))->v_obj; /* "d" */
  CHECK(cd != d2.v_obj && cd->type_index == kTVMFFIDict);
  TVMFFIMapCell* cdc = TVMFFIMapGetCellPtr(cd);
  CHECK(TVMFFIMapCellValue(cdc, TVMFFIMapCellIterBegin(cdc))->v_obj == c.v_obj);
  TVMFFIAny cd_any = {.type_index = kTVMFFIDict, .v_obj = cd};
  CHECK_OK(check_call_global("ffi.DictClear", &cd_any, 1, &r)); /* break the copy's cycle */
  check_any_release(&c);
  CHECK_OK(check_call_global("ffi.DictClear", &d2, 1, &r));
  CHECK_EQ_INT(check_use_count(m.v_obj), 1);
  check_any_release(&m);
  check_any_release(&d2);

  /* POD and strings come back as owned values. */
  CHECK_OK(check_call_global("ffi.DeepCopy", (TVMFFIAny[]){ext_str("raw")}, 1, &c));
  CHECK(c.type_index == kTVMFFISmallStr);
  CHECK_RAISED(check_call_global("ffi.DeepCopy", NULL, 0, &c), "TypeError", "Expected 1");
  TVMFFIAny* all[] = {&s, &inner, &d, &p, &top};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

/* ---- type hooks: __ffi_eq__ / __ffi_compare__ / __ffi_hash__ / __ffi_repr__ ---- */

/* exttest.Keyed*: the hooks look only at `key` and reach it through the
 * callback they are given, so nested values follow the runtime's rules. */
typedef struct {
  TVMFFIObject header;
  TVMFFIAny key;   /* +24 */
  TVMFFIAny label; /* +40 */
} keyed;

static void keyed_deleter(void* self, int flags) {
  keyed* k = (keyed*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    check_any_release(&k->key);
    check_any_release(&k->label);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* How the hooks misbehave (0: they don't). */
enum { HOOK_OK, HOOK_RET_FLOAT, HOOK_RAISE, HOOK_BAD_CALLBACK_ARGS, HOOK_KEEP_CALLBACK };
static int g_hook_mode;
static int g_hook_calls;
static TVMFFIObjectHandle g_kept; /* a callback a hook held on to */

static TVMFFIAny key_of(const TVMFFIAny* v) { return ((keyed*)v->v_obj)->key; }

/* Shared body: calls f(keys...) and returns f's result, or misbehaves. */
static int keyed_hook(const TVMFFIAny* args, int32_t n, int32_t nobj, TVMFFIAny* r) {
  ++g_hook_calls;
  CHECK_EQ_INT(n, nobj + 1);
  CHECK_EQ_INT(args[nobj].type_index, kTVMFFIFunction);
  TVMFFIObjectHandle f = args[nobj].v_obj;
  if (g_hook_mode == HOOK_RET_FLOAT) {
    r->type_index = kTVMFFIFloat;
    r->v_float64 = 1.5;
    return 0;
  }
  if (g_hook_mode == HOOK_RAISE) {
    TVMFFIErrorSetRaisedFromCStr("KeyError", "hook failed on purpose");
    return -1;
  }
  if (g_hook_mode == HOOK_KEEP_CALLBACK && g_kept == NULL) {
    TVMFFIObjectIncRef(f);
    g_kept = f;
  }
  TVMFFIAny keys[3];
  for (int32_t i = 0; i < nobj; ++i) keys[i] = key_of(&args[i]);
  keys[nobj] = ext_int(0); /* passed only to misuse the callback */
  return TVMFFIFunctionCall(f, keys, nobj + (g_hook_mode == HOOK_BAD_CALLBACK_ARGS), r);
}
static int eq_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  return keyed_hook(a, n, 2, r);
}
static int cmp_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  return keyed_hook(a, n, 2, r);
}
static int hash_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  return keyed_hook(a, n, 1, r);
}
/* "K<" + repr(key) + ">" */
static int repr_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  TVMFFIAny s;
  if (keyed_hook(a, n, 1, &s) != 0) return -1;
  if (g_hook_mode == HOOK_RET_FLOAT) {
    *r = s;
    return 0;
  }
  char buf[128];
  TVMFFIByteArray ba = s.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&s)
                                                       : *TVMFFIBytesGetByteArrayPtr(s.v_obj);
  snprintf(buf, sizeof(buf), "K<%.*s>", (int)ba.size, ba.data);
  check_any_release(&s);
  TVMFFIByteArray out = check_ba(buf);
  return TVMFFIStringFromByteArray(&out, r);
}

/* __s_equal__(a, b, f): f(a.key, b.key, 0, "key"); __s_hash__(a, init, f): f(a.key, init, 0). */
static int s_equal_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  CHECK_EQ_INT(n, 3);
  if (g_hook_mode == HOOK_RET_FLOAT) return keyed_hook(a, n, 2, r);
  TVMFFIAny args[4] = {key_of(&a[0]), key_of(&a[1]), ext_int(0), ext_str("key")};
  return TVMFFIFunctionCall(a[2].v_obj, args, g_hook_mode == HOOK_BAD_CALLBACK_ARGS ? 2 : 4, r);
}
static int s_hash_hook(void* self, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)self;
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(a[1].type_index, kTVMFFIInt);
  TVMFFIAny args[3] = {key_of(&a[0]), a[1], ext_int(0)};
  return TVMFFIFunctionCall(a[2].v_obj, args, 3, r);
}

static void add_hook(int32_t t, const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, fn, NULL, &f));
  TVMFFIAny v = check_any_obj(f);
  TVMFFIByteArray n = check_ba(name);
  CHECK_OK(TVMFFITypeRegisterAttr(t, &n, &v));
  TVMFFIObjectDecRef(f);
}

/* A keyed type with fields key and label and the hooks named in `hooks`
 * ("eq", "cmp", "hash", "repr"). */
static int32_t keyed_type(const char* key, const char* hooks) {
  static const char* const names[2] = {"key", "label"};
  int32_t t = check_type_with_any_fields(key, (int32_t)sizeof(keyed), names, 2, ext_get_any);
  if (strstr(hooks, "eq")) add_hook(t, "__ffi_eq__", eq_hook);
  if (strstr(hooks, "cmp")) add_hook(t, "__ffi_compare__", cmp_hook);
  if (strstr(hooks, "hash")) add_hook(t, "__ffi_hash__", hash_hook);
  if (strstr(hooks, "repr")) add_hook(t, "__ffi_repr__", repr_hook);
  if (strstr(hooks, "s_eq")) add_hook(t, "__s_equal__", s_equal_hook);
  if (strstr(hooks, "s_hash")) add_hook(t, "__s_hash__", s_hash_hook);
  return t;
}

static TVMFFIAny keyed_new(int32_t t, TVMFFIAny key, TVMFFIAny label) {
  keyed* k = (keyed*)calloc(1, sizeof(keyed));
  CHECK(k != NULL);
  k->header.combined_ref_count = UINT64_C(0x100000001);
  k->header.type_index = t;
  k->header.deleter = keyed_deleter;
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&key, &k->key));
  CHECK_OK(TVMFFIAnyViewToOwnedAny(&label, &k->label));
  return check_any_obj(k);
}

static void test_hooks(void) {
  int32_t all = keyed_type("exttest.KeyedAll", "eq cmp hash repr s_eq s_hash");
  int32_t eq_only = keyed_type("exttest.KeyedEq", "eq");
  int32_t cmp_only = keyed_type("exttest.KeyedCmp", "cmp");
  int32_t hash_only = keyed_type("exttest.KeyedHash", "hash");

  /* Equal keys: equal and same hash whatever the labels; the hash is the
   * callback's hash of the key, as the hook returns it. */
  TVMFFIAny a1 = keyed_new(all, ext_int(1), ext_str("x"));
  TVMFFIAny a1b = keyed_new(all, ext_int(1), ext_str("y"));
  TVMFFIAny a2 = keyed_new(all, ext_int(2), ext_str("a"));
  check_same_ordered(a1, a1b);
  check_less(a1, a2);
  CHECK_EQ_INT(hash(a1), hash(ext_int(1)));
  TVMFFIAny w1 = ext_make("ffi.Array", (TVMFFIAny[]){a1, ext_str("s")}, 2);
  TVMFFIAny w2 = ext_make("ffi.Array", (TVMFFIAny[]){a1b, ext_str("s")}, 2);
  check_same_ordered(w1, w2);
  g_hook_calls = 0;
  CHECK(eq(a1, a1)); /* the same object is equal without asking the hook */
  CHECK_EQ_INT(g_hook_calls, 0);

  /* Eq hook alone: equality by key; order by fields (label decides); no hash. */
  TVMFFIAny e1 = keyed_new(eq_only, ext_int(1), ext_str("b"));
  TVMFFIAny e2 = keyed_new(eq_only, ext_int(1), ext_str("a"));
  CHECK(eq(e1, e2));
  CHECK(cmp("ffi.RecursiveLt", e2, e1));
  TVMFFIAny args[2] = {e1, e2}, r;
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", &e1, 1, &r), "ValueError",
               "'exttest.KeyedEq' defines __ffi_eq__ or __ffi_compare__ but not __ffi_hash__");
  args[0] = ext_make("ffi.List", (TVMFFIAny[]){e1}, 1);
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 1, &r), "ValueError", "__ffi_hash__");
  check_any_release(&args[0]);

  /* Compare hook alone serves equality (== 0) and the order; still no hash. */
  TVMFFIAny c1 = keyed_new(cmp_only, ext_int(1), ext_str("b"));
  TVMFFIAny c1b = keyed_new(cmp_only, ext_int(1), ext_str("a"));
  TVMFFIAny c2 = keyed_new(cmp_only, ext_int(2), ext_str("a"));
  CHECK(eq(c1, c1b));
  check_less(c1, c2);
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", &c1, 1, &r), "ValueError", "KeyedCmp");
  /* The three-way callback: equal None or maps are 0; None orders first; NaN
   * and mixed kinds raise. */
  TVMFFIAny n1 = keyed_new(cmp_only, ext_none(), ext_none());
  TVMFFIAny n2 = keyed_new(cmp_only, ext_none(), ext_int(3));
  CHECK(eq(n1, n2) && cmp("ffi.RecursiveLe", n1, n2));
  TVMFFIAny m = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("k"), ext_int(1)}, 2);
  TVMFFIAny mc = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("k"), ext_int(1)}, 2);
  TVMFFIAny m1 = keyed_new(cmp_only, m, ext_none()), m2 = keyed_new(cmp_only, mc, ext_none());
  CHECK(cmp("ffi.RecursiveGe", m1, m2));
  TVMFFIAny nan1 = keyed_new(cmp_only, ext_float(__builtin_nan("")), ext_none());
  TVMFFIAny f1 = keyed_new(cmp_only, ext_float(1.0), ext_none());
  args[0] = nan1;
  args[1] = f1;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "NaN");
  args[1] = c1;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "float");
  CHECK(!eq(n1, c1));
  check_less(n1, c1);

  /* Hash hook alone: hash by key, equality and order by fields. */
  TVMFFIAny h1 = keyed_new(hash_only, ext_int(1), ext_str("b"));
  TVMFFIAny h1b = keyed_new(hash_only, ext_int(1), ext_str("a"));
  CHECK(!eq(h1, h1b));
  CHECK(cmp("ffi.RecursiveGt", h1, h1b));
  CHECK_EQ_INT(hash(h1), hash(h1b));

  /* Different types never reach a hook. */
  g_hook_calls = 0;
  CHECK(!eq(a1, e1));
  args[0] = a1;
  args[1] = c1;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "KeyedCmp");
  CHECK_EQ_INT(g_hook_calls, 0);

  /* Repr hook, also inside containers and fields. */
  char buf[256];
  CHECK_EQ_STR(ext_call_str("ffi.ReprPrint", a1, buf, sizeof(buf)), "K<1>");
  CHECK_EQ_STR(ext_call_str("ffi.ReprPrint", w2, buf, sizeof(buf)), "(K<1>, \"s\")");
  TVMFFIAny p = ext_pair_new(7, a2, 0);
  CHECK_EQ_STR(ext_call_str("ffi.ReprPrint", p, buf, sizeof(buf)), "exttest.Pair(a=7, b=K<2>)");
  TVMFFIAny q = ext_make("ffi.Array", (TVMFFIAny[]){ext_str("q")}, 1);
  TVMFFIAny lk = keyed_new(all, q, ext_none());
  CHECK_EQ_STR(ext_call_str("ffi.ReprPrint", lk, buf, sizeof(buf)), "K<(\"q\",)>");

  /* __s_equal__ / __s_hash__: structural equality by key, the mismatch path
   * names the field the hook passed; hash consistent. */
  TVMFFIAny a1f = keyed_new(all, ext_float(1.0), ext_str("y"));
  TVMFFIAny w3 = ext_make("ffi.Array", (TVMFFIAny[]){a1f, ext_str("s")}, 2);
  TVMFFIAny sargs[4] = {w1, w3, ext_bool(0), ext_bool(0)};
  CHECK_OK(check_call_global("ffi.StructuralEqual", sargs, 4, &r));
  CHECK(r.v_int64 == 0); /* keys 1 and 1.0 differ structurally */
  sargs[1] = w2;
  CHECK_OK(check_call_global("ffi.StructuralEqual", sargs, 4, &r));
  CHECK(r.v_int64 == 1);
  TVMFFIAny sk = keyed_new(all, ext_int(1), ext_str("other label"));
  sargs[0] = a1;
  sargs[1] = sk;
  CHECK_OK(check_call_global("ffi.StructuralEqual", sargs, 4, &r));
  CHECK(r.v_int64 == 1);
  TVMFFIAny hargs[3] = {a1, ext_bool(0), ext_bool(0)};
  TVMFFIAny h_a1, h_sk;
  CHECK_OK(check_call_global("ffi.StructuralHash", hargs, 3, &h_a1));
  hargs[0] = sk;
  CHECK_OK(check_call_global("ffi.StructuralHash", hargs, 3, &h_sk));
  CHECK_EQ_INT(h_a1.v_int64, h_sk.v_int64);
  hargs[0] = a2;
  CHECK_OK(check_call_global("ffi.StructuralHash", hargs, 3, &r));
  CHECK(r.v_int64 != h_a1.v_int64);
  sargs[1] = a2;
  CHECK_OK(check_call_global("ffi.GetFirstStructuralMismatch", sargs, 4, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFIAny lpath = ((TVMFFIAny*)TVMFFISeqGetCellPtr(r.v_obj)->data)[0];
  ext_call_str("ffi.ReprPrint", lpath, buf, sizeof(buf));
  /* the mismatch is at the attribute `key` of the root, printed as a path */
  CHECK_EQ_STR(buf, "<root>.key");
  check_any_release(&r);

  /* Misbehaving hooks: wrong result kinds, errors, bad callback calls. */
  g_hook_mode = HOOK_RET_FLOAT;
  args[0] = a1;
  args[1] = a1b;
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 2, &r), "TypeError",
               "__ffi_eq__ of `exttest.KeyedAll` returned `float`, expected bool");
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "__ffi_compare__");
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 1, &r), "TypeError", "__ffi_hash__");
  CHECK_RAISED(check_call_global("ffi.ReprPrint", args, 1, &r), "TypeError",
               "__ffi_repr__ of `exttest.KeyedAll` returned `float`, expected str");
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", sargs, 4, &r), "TypeError",
               "__s_equal__ of `exttest.KeyedAll` returned `float`");
  g_hook_mode = HOOK_RAISE;
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 2, &r), "KeyError", "on purpose");
  CHECK_RAISED(check_call_global("ffi.RecursiveGe", args, 2, &r), "KeyError", "on purpose");
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 1, &r), "KeyError", "on purpose");
  CHECK_RAISED(check_call_global("ffi.ReprPrint", args, 1, &r), "KeyError", "on purpose");
  g_hook_mode = HOOK_BAD_CALLBACK_ARGS;
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 2, &r), "TypeError", "Expected 2");
  CHECK_RAISED(check_call_global("ffi.RecursiveLe", args, 2, &r), "TypeError", "Expected 2");
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 1, &r), "TypeError", "Expected 1");
  CHECK_RAISED(check_call_global("ffi.ReprPrint", args, 1, &r), "TypeError", "Expected 1");
  CHECK_RAISED(check_call_global("ffi.StructuralEqual", sargs, 4, &r), "TypeError", "Expected 4");

  /* A callback kept past its hook still works, from a fresh state. */
  g_hook_mode = HOOK_KEEP_CALLBACK;
  CHECK_EQ_INT(hash(a1), hash(ext_int(1)));
  g_hook_mode = HOOK_OK;
  CHECK(g_kept != NULL);
  TVMFFIAny kr;
  CHECK_OK(TVMFFIFunctionCall(g_kept, &w1, 1, &kr));
  CHECK_EQ_INT(kr.v_int64, hash(w1));
  TVMFFIObjectDecRef(g_kept);
  g_kept = NULL;

  /* The callbacks carry the walk's state: objects reaching themselves
   * through their keys hash finitely and compare as cyclic graphs. */
  TVMFFIAny l1 = ext_make("ffi.List", NULL, 0), l2 = ext_make("ffi.List", NULL, 0);
  TVMFFIAny k1 = keyed_new(all, l1, ext_none()), k2 = keyed_new(all, l2, ext_none());
  TVMFFIAny app[2] = {l1, k1};
  CHECK_OK(check_call_global("ffi.ListAppend", app, 2, &r));
  app[0] = l2;
  app[1] = k2;
  CHECK_OK(check_call_global("ffi.ListAppend", app, 2, &r));
  CHECK_EQ_INT(hash(k1), hash(k1));
  CHECK_EQ_INT(hash(k1), hash(k2)); /* same shape, cycle cut at the same point */
  CHECK(eq(k1, k2));
  args[0] = k1;
  args[1] = k2;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "ValueError", "cyclic");
  CHECK_EQ_STR(ext_call_str("ffi.ReprPrint", k1, buf, sizeof(buf)), "K<[...]>");
  CHECK_OK(check_call_global("ffi.ListClear", &l1, 1, &r));
  CHECK_OK(check_call_global("ffi.ListClear", &l2, 1, &r));
  CHECK_EQ_INT(check_use_count(k1.v_obj), 1);

  CHECK_EQ_INT(check_use_count(a1.v_obj), 2); /* self, w1 */
  TVMFFIAny* objs[] = {&a1, &a1b, &a2,   &w1,   &w2,  &e1,   &e2, &c1, &c1b, &c2, &n1,
                       &n2, &m,   &mc,   &m1,   &m2,  &nan1, &f1, &h1, &h1b, &p,  &q,
                       &lk, &sk,  &h_a1, &h_sk, &a1f, &w3,   &l1, &l2, &k1,  &k2};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) check_any_release(objs[i]);
}

int main(void) {
  test_pod();
  test_containers();
  test_objects();
  test_cycles();
  test_shared_nodes();
  test_deepcopy();
  test_hooks();
  printf("test_recursive: ok\n");
  return 0;
}
