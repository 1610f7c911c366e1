/*
 * test_recursive.c -- ffi.RecursiveEq/Lt/Le/Gt/Ge/Hash and ffi.DeepCopy
 * (abi.md §14.4, python.md §13): numbers across int/bool/float, string
 * forms, containers (element-wise, lexicographic, maps order-free), Shape,
 * reflected objects (CompareOff/HashOff fields ignored), equal => same hash,
 * TypeError for unorderable pairs, self-containing Lists, deep copies that
 * preserve sharing and cycles, argument errors, refcounts.
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

static void test_pod(void) {
  check_same_ordered(ext_int(1), ext_float(1.0));
  check_same(ext_int(1), ext_bool(1));
  check_same(ext_bool(0), ext_float(0.0));
  check_same(ext_float(-0.0), ext_float(0.0));
  check_same(ext_none(), ext_none());
  check_less(ext_int(1), ext_float(1.5));
  check_less(ext_bool(0), ext_int(1));
  check_less(ext_int(INT64_MAX - 1), ext_int(INT64_MAX));
  CHECK(!eq(ext_int(INT64_C(9007199254740993)), ext_float(9007199254740992.0)));
  /* NaN equals nothing and has no order. */
  TVMFFIAny nan = ext_float(__builtin_nan(""));
  CHECK(!eq(nan, nan));
  CHECK(!cmp("ffi.RecursiveLt", nan, ext_int(1)) && !cmp("ffi.RecursiveGe", nan, ext_int(1)));
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
  TVMFFIAny a1f = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(1), ext_float(2.0), ext_int(3)}, 3);
  TVMFFIAny a124 = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(1), ext_int(2), ext_int(4)}, 3);
  TVMFFIAny l123 = ext_make("ffi.List", v, 3);
  TVMFFIAny l123b = ext_make("ffi.List", v, 3);
  check_same_ordered(a123, a1f);
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
  TVMFFIAny kv2[6] = {ext_int(7), ext_none(), ext_str("b"), a1f, ext_str("a"), ext_float(1.0)};
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

  /* Order tests on unorderable kinds are TypeErrors; equality is not. */
  TVMFFIAny args[2] = {m1, m2}, r;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "ffi.Map");
  args[0] = a123;
  args[1] = ext_str("x");
  CHECK_RAISED(check_call_global("ffi.RecursiveGe", args, 2, &r), "TypeError", "ffi.Array");
  args[0] = ext_none();
  args[1] = ext_none();
  CHECK_RAISED(check_call_global("ffi.RecursiveLe", args, 2, &r), "TypeError", "None");
  args[0] = a123;
  args[1] = l123;
  CHECK_RAISED(check_call_global("ffi.RecursiveLt", args, 2, &r), "TypeError", "ffi.List");
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 1, &r), "TypeError", "Expected 2");
  CHECK_RAISED(check_call_global("ffi.RecursiveHash", args, 2, &r), "TypeError", "Expected 1");

  CHECK_EQ_INT(check_use_count(a123.v_obj), 6); /* self, nested1, m1, d1, m3, m4 */
  TVMFFIAny* all[] = {&a123, &a12, &a1f, &a124, &l123, &l123b, &nested1, &nested2, &m1,
                      &m2,   &d1,  &d2,  &m3,   &m4,   &s1,    &s2,     &s3};
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
  args[0] = l1;
  args[1] = l2;
  CHECK_RAISED(check_call_global("ffi.RecursiveEq", args, 2, &r), "RuntimeError", "recursion");

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

  /* Maps are copied too; one reaching itself through a Dict is a ValueError. */
  TVMFFIAny d2 = ext_make("ffi.Dict", NULL, 0);
  TVMFFIAny m = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("d"), d2, ext_str("l"), inner}, 4);
  CHECK_OK(check_call_global("ffi.DeepCopy", &m, 1, &c));
  CHECK(c.type_index == kTVMFFIMap && c.v_obj != m.v_obj);
  check_same(m, c);
  check_any_release(&c);
  TVMFFIAny set[3] = {d2, ext_str("back"), m};
  CHECK_OK(check_call_global("ffi.DictSetItem", set, 3, &r));
  CHECK_RAISED(check_call_global("ffi.DeepCopy", &m, 1, &c), "ValueError", "contains itself");
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

int main(void) {
  test_pod();
  test_containers();
  test_objects();
  test_cycles();
  test_deepcopy();
  printf("test_recursive: ok\n");
  return 0;
}
