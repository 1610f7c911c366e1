/*
 * test_testing_fixtures.c -- the reflected fixture types of
 * libtvm_ffi_testing (docs/python.md §20.3, §25.8): field names, flags, defaults
 * and docs, their constructors (generated or positional) and the comparison
 * hooks, driven through the runtime's reflection entry points.
 */
#include "check.h"

int TVMFFITestingDummyTarget(void); /* links the testing library in */

static TVMFFIAny g_kwargs;

#define ARGS(...) ((TVMFFIAny[]){__VA_ARGS__})
#define NARGS(...) ((int32_t)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)))
#define MAKE(out, ...) \
  check_call_global("ffi.MakeObjectFromPackedArgs", ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), out)

static TVMFFIAny str(const char* s) { return check_any_cstr(s); }
static TVMFFIAny i64(int64_t v) { return check_any_int(v); }

static int32_t type_index(const char* key) {
  TVMFFIByteArray k = check_ba(key);
  int32_t t = -1;
  CHECK_OK(TVMFFITypeKeyToIndex(&k, &t));
  return t;
}

/* The type attribute `name` of type t (a borrowed view), or NULL. */
static const TVMFFIAny* attr(int32_t t, const char* name) {
  TVMFFIByteArray n = check_ba(name);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  if (col == NULL || t < col->begin_index || t >= col->begin_index + col->size) return NULL;
  const TVMFFIAny* v = &col->data[t - col->begin_index];
  return v->type_index == kTVMFFINone ? NULL : v;
}

static int call_attr(int32_t t, const char* name, TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  const TVMFFIAny* f = attr(t, name);
  CHECK(f != NULL && f->type_index == kTVMFFIFunction);
  out->type_index = kTVMFFINone;
  out->v_int64 = 0;
  return TVMFFIFunctionCall(f->v_obj, args, n, out);
}
#define CALL_ATTR(t, name, out, ...) call_attr(t, name, ARGS(__VA_ARGS__), NARGS(__VA_ARGS__), out)

/* The field `name` of a type or its ancestors. */
static const TVMFFIFieldInfo* field(int32_t t, const char* name) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  for (int32_t d = info->type_depth; d >= 0; --d) {
    const TVMFFITypeInfo* ti = d == info->type_depth ? info : info->type_ancestors[d];
    for (int32_t i = 0; i < ti->num_fields; ++i)
      if (ti->fields[i].name.size == strlen(name) &&
          memcmp(ti->fields[i].name.data, name, strlen(name)) == 0)
        return &ti->fields[i];
  }
  FAIL("no field %s", name);
}

/* Reads a field (owned result; released by the caller). */
static TVMFFIAny get(const TVMFFIAny* obj, const char* name) {
  const TVMFFIFieldInfo* f = field(obj->type_index, name);
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  CHECK_OK(f->getter((char*)obj->v_obj + f->offset, &v));
  return v;
}

static int64_t get_int(const TVMFFIAny* obj, const char* name) {
  TVMFFIAny v = get(obj, name);
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  return v.v_int64;
}

static void check_str(const TVMFFIAny* obj, const char* name, const char* want) {
  TVMFFIAny v = get(obj, name);
  TVMFFIByteArray b;
  if (v.type_index == kTVMFFIStr)
    b = *TVMFFIBytesGetByteArrayPtr(v.v_obj);
  else if (v.type_index == kTVMFFISmallStr)
    b = TVMFFISmallBytesGetContentByteArray(&v);
  else
    FAIL("field %s holds type %d", name, (int)v.type_index);
  CHECK_EQ_BYTES(b, want);
  check_any_release(&v);
}

static void test_object_base(void) {
  int32_t t = type_index("testing.TestObjectBase");
  const TVMFFIFieldInfo* f = field(t, "v_i64");
  CHECK_EQ_BYTES(f->doc, "i64 field");
  CHECK_EQ_INT(f->flags, kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskHasDefault);
  f = field(t, "v_f64");
  CHECK_EQ_INT(f->doc.size, 0);
  CHECK_EQ_INT(f->flags, kTVMFFIFieldFlagBitMaskHasDefault); /* read-only */
  TVMFFIAny r, v;
  CHECK_OK(MAKE(&r, str("testing.TestObjectBase")));
  CHECK_EQ_INT(get_int(&r, "v_i64"), 10);
  v = get(&r, "v_f64");
  CHECK(v.type_index == kTVMFFIFloat && v.v_float64 == 10.0);
  check_str(&r, "v_str", "hello");
  check_any_release(&r);
  /* Its generated __ffi_init__: all fields defaulted, keywords accepted. */
  CHECK_OK(call_attr(t, "__ffi_init__", NULL, 0, &r));
  CHECK_EQ_INT(get_int(&r, "v_i64"), 10);
  check_any_release(&r);
  CHECK_OK(CALL_ATTR(t, "__ffi_init__", &r, g_kwargs, str("v_i64"), i64(12), str("v_str"),
                     str("world")));
  CHECK_EQ_INT(get_int(&r, "v_i64"), 12);
  check_str(&r, "v_str", "world");
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  CHECK_EQ_INT(info->num_methods, 1);
  CHECK_EQ_BYTES(info->methods[0].name, "add_i64");
  CHECK_EQ_BYTES(info->methods[0].doc, "add_i64 method");
  TVMFFIAny sum;
  CHECK_OK(TVMFFIFunctionCall(info->methods[0].method.v_obj, ARGS(r, i64(1)), 2, &sum));
  CHECK_EQ_INT(sum.v_int64, 13);
  check_any_release(&r);
  CHECK_RAISED(MAKE(&r, str("testing.TestObjectBase"), str("v_str"), i64(1)), "TypeError",
               "field 'v_str'");
  CHECK_RAISED(MAKE(&r, str("testing.TestObjectBase"), str("v_i64"), str("hello")), "TypeError",
               "field 'v_i64'");
}

static void test_object_derived(void) {
  int32_t t = type_index("testing.TestObjectDerived");
  TVMFFIAny r, map, arr;
  CHECK_RAISED(MAKE(&r, str("testing.TestObjectDerived")), "TypeError",
               "Required field `v_map` not set in type `testing.TestObjectDerived`");
  CHECK_OK(check_call_global("ffi.Map", ARGS(str("k"), i64(1)), 2, &map));
  CHECK_OK(check_call_global("ffi.Array", ARGS(i64(1), i64(2)), 2, &arr));
  CHECK_OK(MAKE(&r, str("testing.TestObjectDerived"), str("v_map"), map, str("v_array"), arr));
  TVMFFIAny m = get(&r, "v_map"), a = get(&r, "v_array");
  CHECK(m.v_obj == map.v_obj && a.v_obj == arr.v_obj); /* the very containers */
  CHECK_EQ_INT(get_int(&r, "v_i64"), 10);
  check_str(&r, "v_str", "hello");
  check_any_release(&m);
  check_any_release(&a);
  check_any_release(&r);
  /* Generated init: required fields (v_map, v_array) first, then the
   * inherited defaulted ones. */
  CHECK_OK(CALL_ATTR(t, "__ffi_init__", &r, map, arr, i64(7)));
  CHECK_EQ_INT(get_int(&r, "v_i64"), 7);
  check_any_release(&r);
  CHECK_RAISED(CALL_ATTR(t, "__ffi_init__", &r, map), "TypeError",
               "missing required argument: 'v_array'");
  CHECK_EQ_INT(check_use_count(map.v_obj), 1);
  CHECK_EQ_INT(check_use_count(arr.v_obj), 1);
  check_any_release(&map);
  check_any_release(&arr);
}

static void test_int_pair(void) {
  int32_t t = type_index("testing.TestIntPair");
  CHECK_EQ_BYTES(field(t, "a")->doc, "Field `a`");
  CHECK_EQ_BYTES(field(t, "b")->doc, "Field `b`");
  CHECK_EQ_INT(field(t, "a")->flags & kTVMFFIFieldFlagBitMaskWritable, 0);
  TVMFFIAny r;
  CHECK_OK(CALL_ATTR(t, "__ffi_init__", &r, i64(1), i64(2)));
  CHECK(get_int(&r, "a") == 1 && get_int(&r, "b") == 2);
  check_any_release(&r);
  CHECK_OK(MAKE(&r, str("testing.TestIntPair"), str("b"), i64(4), str("a"), i64(3)));
  CHECK(get_int(&r, "a") == 3 && get_int(&r, "b") == 4);
  check_any_release(&r);
}

static void test_compare_hash_flags(void) {
  int32_t tc = type_index("testing.TestCompare"), th = type_index("testing.TestHash");
  CHECK_EQ_INT(field(tc, "ignored_field")->flags, kTVMFFIFieldFlagBitMaskCompareOff);
  CHECK_EQ_INT(field(tc, "key")->flags, 0);
  CHECK_EQ_INT(field(th, "hash_ignored")->flags, kTVMFFIFieldFlagBitMaskHashOff);
  TVMFFIAny r;
  CHECK_OK(CALL_ATTR(tc, "__ffi_init__", &r, i64(1), str("a"), i64(2)));
  CHECK_EQ_INT(get_int(&r, "ignored_field"), 2);
  check_str(&r, "name", "a");
  check_any_release(&r);
  CHECK_RAISED(CALL_ATTR(th, "__ffi_init__", &r, i64(1), i64(2), i64(3)), "TypeError",
               "Mismatched type on argument #1 when calling: `testing.TestHash.__ffi_init__(0: "
               "int, 1: ffi.String, 2: int) -> ffi.Object`. Expected `ffi.String` but got `int`");
  CHECK_RAISED(CALL_ATTR(th, "__ffi_init__", &r, i64(1)), "TypeError", "Expected 3 but got 1");
  /* Positional constructors are also methods (static), as refl::init is. */
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tc);
  CHECK_EQ_INT(info->num_methods, 1);
  CHECK_EQ_BYTES(info->methods[0].name, "__ffi_init__");
  CHECK_EQ_INT(info->methods[0].flags, kTVMFFIFieldFlagBitMaskIsStaticMethod);
}

static int key_times_ten(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)self;
  int64_t s = 0;
  for (int32_t i = 0; i < n; ++i) s = s * 100 + args[i].v_int64;
  *r = check_any_int(s * 10);
  return 0;
}

static void test_hooks(void) {
  int32_t th = type_index("testing.TestCustomHash"), tc = type_index("testing.TestCustomCompare"),
          te = type_index("testing.TestEqWithoutHash");
  CHECK(attr(th, "__ffi_hash__") && !attr(th, "__ffi_eq__"));
  CHECK(attr(tc, "__ffi_hash__") && attr(tc, "__ffi_eq__") && attr(tc, "__ffi_compare__"));
  CHECK(!attr(te, "__ffi_hash__") && attr(te, "__ffi_eq__"));
  TVMFFIObjectHandle fn = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, key_times_ten, NULL, &fn));
  TVMFFIAny f = check_any_obj(fn), x, y, r;
  CHECK_OK(CALL_ATTR(tc, "__ffi_init__", &x, i64(3), str("a")));
  CHECK_OK(CALL_ATTR(tc, "__ffi_init__", &y, i64(4), str("b")));
  /* The hooks hand the keys (only) to the callback and return its result. */
  CHECK_OK(CALL_ATTR(tc, "__ffi_hash__", &r, x, f));
  CHECK_EQ_INT(r.v_int64, 30);
  CHECK_OK(CALL_ATTR(tc, "__ffi_eq__", &r, x, y, f));
  CHECK_EQ_INT(r.v_int64, 3040);
  CHECK_OK(CALL_ATTR(tc, "__ffi_compare__", &r, y, x, f));
  CHECK_EQ_INT(r.v_int64, 4030);
  CHECK_RAISED(CALL_ATTR(tc, "__ffi_eq__", &r, x, y), "TypeError",
               "testing.TestCustomCompare.__ffi_eq__(0: ffi.Object, 1: ffi.Object, 2: "
               "ffi.Function) -> bool`. Expected 3 but got 2");
  CHECK_RAISED(CALL_ATTR(tc, "__ffi_hash__", &r, x, i64(1)), "TypeError",
               "Expected `ffi.Function` but got `int`");
  check_any_release(&x);
  check_any_release(&y);
  TVMFFIObjectDecRef(fn);
}

static void test_non_copyable_and_holder(void) {
  int32_t tn = type_index("testing.TestNonCopyable");
  TVMFFIAny r, base;
  CHECK(TVMFFIGetTypeInfo(tn)->metadata->creator == NULL);
  CHECK_RAISED(MAKE(&r, str("testing.TestNonCopyable"), str("value"), i64(1)), "TypeError",
               "cannot be created by reflection");
  CHECK_OK(CALL_ATTR(tn, "__ffi_init__", &r, i64(5)));
  CHECK_EQ_INT(get_int(&r, "value"), 5);
  check_any_release(&r);

  int32_t th = type_index("testing.TestObjectPtrHolder");
  CHECK_OK(MAKE(&base, str("testing.TestObjectBase")));
  CHECK_OK(CALL_ATTR(th, "__ffi_init__", &r, base));
  TVMFFIAny v = get(&r, "value"), o = get(&r, "optional_value");
  CHECK(v.v_obj == base.v_obj);
  CHECK_EQ_INT(o.type_index, kTVMFFINone);
  CHECK_EQ_INT(check_use_count(base.v_obj), 3); /* ours, the field's, v's */
  check_any_release(&v);
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(base.v_obj), 1);
  TVMFFIAny none = i64(0);
  none.type_index = kTVMFFINone;
  CHECK_RAISED(CALL_ATTR(th, "__ffi_init__", &r, none), "TypeError",
               "Cannot convert from type `None` to `testing.TestObjectBase`");
  CHECK_RAISED(CALL_ATTR(th, "__ffi_init__", &r, i64(1)), "TypeError", "field 'value'");
  /* The optional field, by keyword. */
  CHECK_OK(CALL_ATTR(th, "__ffi_init__", &r, base, g_kwargs, str("optional_value"), base));
  o = get(&r, "optional_value");
  CHECK(o.v_obj == base.v_obj);
  check_any_release(&o);
  check_any_release(&r);
  check_any_release(&base);
}

static void test_cxx_init_fixtures(void) {
  TVMFFIAny r;
  int32_t t = type_index("testing.TestCxxAutoInit");
  CHECK_OK(CALL_ATTR(t, "__ffi_init__", &r, i64(1), i64(2), g_kwargs, str("c"), i64(3)));
  CHECK(get_int(&r, "a") == 1 && get_int(&r, "b") == 42 && get_int(&r, "c") == 3 &&
        get_int(&r, "d") == 2);
  check_any_release(&r);
  t = type_index("testing.TestCxxAutoInitAllInitOff");
  CHECK_OK(call_attr(t, "__ffi_init__", NULL, 0, &r));
  CHECK(get_int(&r, "x") == 7 && get_int(&r, "y") == 9 && get_int(&r, "z") == 1234);
  check_any_release(&r);
  t = type_index("testing.TestCxxAutoInitChild");
  CHECK_OK(CALL_ATTR(t, "__ffi_init__", &r, i64(1), i64(2), i64(4), g_kwargs, str("child_kw_only"),
                     i64(3)));
  CHECK(get_int(&r, "parent_required") == 1 && get_int(&r, "child_required") == 2 &&
        get_int(&r, "parent_default") == 4 && get_int(&r, "child_kw_only") == 3);
  check_any_release(&r);
  CHECK(attr(type_index("testing.TestCxxNoAutoInit"), "__ffi_init__") == NULL);
  t = type_index("testing.TestCxxClassDerivedDerived");
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  CHECK_EQ_INT(info->type_depth, 3);
  CHECK_EQ_INT(info->metadata->total_size, 80);
  CHECK_EQ_INT(field(t, "v_bool")->offset, 72);
  CHECK_EQ_INT(field(t, "v_i32")->size, 4);
  CHECK_EQ_INT(field(t, "v_i64")->flags,
               kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskReprOff);
  CHECK_OK(
      CALL_ATTR(t, "__ffi_init__", &r, i64(1), i64(2), i64(3), g_kwargs, str("v_bool"), i64(1)));
  TVMFFIAny f32 = get(&r, "v_f32"), b = get(&r, "v_bool");
  CHECK(f32.type_index == kTVMFFIFloat && f32.v_float64 == 8.0);
  CHECK(b.type_index == kTVMFFIBool && b.v_int64 == 1);
  check_str(&r, "v_str", "default");
  check_any_release(&r);
  /* A deep copy goes through the creator and the setters. */
  TVMFFIAny c;
  CHECK_OK(CALL_ATTR(type_index("testing.TestFrozenCxx"), "__ffi_init__", &r, i64(5),
                     str("a tag longer than seven")));
  CHECK_OK(check_call_global("ffi.DeepCopy", ARGS(r), 1, &c));
  CHECK(c.v_obj != r.v_obj && get_int(&c, "value") == 5);
  check_str(&c, "tag", "a tag longer than seven");
  check_any_release(&c);
  check_any_release(&r);
}

int main(void) {
  CHECK_EQ_INT(TVMFFITestingDummyTarget(), 0);
  CHECK_OK(check_call_global("ffi.GetKwargsObject", NULL, 0, &g_kwargs));
  test_object_base();
  test_object_derived();
  test_int_pair();
  test_compare_hash_flags();
  test_hooks();
  test_non_copyable_and_holder();
  test_cxx_init_fixtures();
  check_any_release(&g_kwargs);
  printf("test_testing_fixtures: ok\n");
  return 0;
}
