/*
 * test_repr.c -- ffi.ReprPrint (docs/abi.md §14.4, docs/python.md §4.1): every value
 * kind, the reference examples ((1, 2, 3), (42,), [1, 2, 3], {"a": 1},
 * float32[3, 4]@cpu:0, type_key(a=1, b=2)), ReprOff fields, self-containing
 * Lists/Dicts/objects, TVM_FFI_REPR_WITH_ADDR, argument errors, refcounts.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "ext_fixture.h"

static char buf[4096];

static const char* repr(TVMFFIAny v) { return ext_call_str("ffi.ReprPrint", v, buf, sizeof(buf)); }

static void test_pod(void) {
  CHECK_EQ_STR(repr(ext_none()), "None");
  CHECK_EQ_STR(repr(ext_int(-42)), "-42");
  CHECK_EQ_STR(repr(ext_bool(1)), "True");
  CHECK_EQ_STR(repr(ext_bool(0)), "False");
  CHECK_EQ_STR(repr(ext_float(1.5)), "1.5");
  /* floats print as a C++ ostream prints a double (upstream's ReprPrint) */
  CHECK_EQ_STR(repr(ext_float(2.0)), "2");
  CHECK_EQ_STR(repr(ext_float(10.0)), "10");
  CHECK_EQ_STR(repr(ext_float(1.0 / 3.0)), "0.333333");
  CHECK_EQ_STR(repr(ext_float(0.1)), "0.1");
  CHECK_EQ_STR(repr(ext_float(1e100)), "1e+100");
  CHECK_EQ_STR(repr(ext_float(-1.0 / 0.0)), "-inf");
  CHECK_EQ_STR(repr(ext_str("hi")), "\"hi\"");
  CHECK_EQ_STR(repr(ext_str("q\"\\\n\x01")), "\"q\\\"\\\\\\n\\u0001\"");
  TVMFFIAny s = ext_owned_str("a long heap string");
  CHECK_EQ_STR(repr(s), "\"a long heap string\"");
  check_any_release(&s);
  TVMFFIByteArray bb = check_ba("ab");
  TVMFFIAny b;
  CHECK_OK(TVMFFIBytesFromByteArray(&bb, &b));
  CHECK_EQ_STR(repr(b), "b\"ab\"");
  check_any_release(&b);
  /* repr is valid UTF-8 text whatever the value holds: bytes outside printable ASCII and the
   * bytes of a string that is not UTF-8 print as \xXX (issue 22: no lone surrogates) */
  TVMFFIByteArray raw = {"\0\xff\x7f\xc3\xa9\"", 6};
  CHECK_OK(TVMFFIBytesFromByteArray(&raw, &b));
  CHECK_EQ_STR(repr(b), "b\"\\x00\\xff\\x7f\\xc3\\xa9\\\"\"");
  check_any_release(&b);
  CHECK_OK(TVMFFIStringFromByteArray(&raw, &b));
  CHECK_EQ_STR(repr(b), "\"\\u0000\\xff\\u007f\xc3\xa9\\\"\"");
  check_any_release(&b);
  TVMFFIByteArray bad = {"\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82", 9}; /* surrogate, >U+10FFFF, cut */
  CHECK_OK(TVMFFIStringFromByteArray(&bad, &b));
  CHECK_EQ_STR(repr(b), "\"\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\\xe2\\x82\"");
  check_any_release(&b);
  TVMFFIAny dt;
  memset(&dt, 0, sizeof(dt));
  dt.type_index = kTVMFFIDataType;
  dt.v_dtype.code = kDLFloat;
  dt.v_dtype.bits = 32;
  dt.v_dtype.lanes = 1;
  CHECK_EQ_STR(repr(dt), "float32");
  TVMFFIAny dev;
  memset(&dev, 0, sizeof(dev));
  dev.type_index = kTVMFFIDevice;
  dev.v_device.device_type = kDLCUDA;
  dev.v_device.device_id = 1;
  CHECK_EQ_STR(repr(dev), "cuda:1");
}

static void test_containers(void) {
  TVMFFIAny items[4] = {ext_int(1), ext_int(2), ext_int(3), ext_str("x")};
  TVMFFIAny arr = ext_make("ffi.Array", items, 3);
  CHECK_EQ_STR(repr(arr), "(1, 2, 3)");
  TVMFFIAny one = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(42)}, 1);
  CHECK_EQ_STR(repr(one), "(42,)");
  TVMFFIAny empty = ext_make("ffi.Array", NULL, 0);
  CHECK_EQ_STR(repr(empty), "()");
  TVMFFIAny lst = ext_make("ffi.List", items, 3);
  CHECK_EQ_STR(repr(lst), "[1, 2, 3]");
  TVMFFIAny kv[4] = {ext_str("a"), ext_int(1), ext_str("b"), arr};
  TVMFFIAny map = ext_make("ffi.Map", kv, 2);
  CHECK_EQ_STR(repr(map), "{\"a\": 1}");
  TVMFFIAny dict = ext_make("ffi.Dict", kv, 4);
  CHECK_EQ_STR(repr(dict), "{\"a\": 1, \"b\": (1, 2, 3)}");
  TVMFFIAny nested = ext_make("ffi.List", (TVMFFIAny[]){lst, dict, one, ext_none()}, 4);
  CHECK_EQ_STR(repr(nested), "[[1, 2, 3], {\"a\": 1, \"b\": (1, 2, 3)}, (42,), None]");
  TVMFFIAny shape = ext_make("ffi.Shape", items, 3);
  CHECK_EQ_STR(repr(shape), "Shape(1, 2, 3)");
  CHECK_EQ_INT(check_use_count(arr.v_obj), 2); /* arr itself and dict's value */
  TVMFFIAny* all[] = {&arr, &one, &empty, &lst, &map, &dict, &nested, &shape};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_tensor(void) {
  float data[12] = {0};
  int64_t shape[2] = {3, 4};
  DLManagedTensor mt;
  memset(&mt, 0, sizeof(mt));
  mt.dl_tensor.data = data;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.ndim = 2;
  mt.dl_tensor.dtype.code = kDLFloat;
  mt.dl_tensor.dtype.bits = 32;
  mt.dl_tensor.dtype.lanes = 1;
  mt.dl_tensor.shape = shape;
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 0, &t));
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFITensor;
  v.v_obj = (TVMFFIObject*)t;
  CHECK_EQ_STR(repr(v), "float32[3, 4]@cpu:0");
  TVMFFIObjectDecRef(t);
}

static void test_cycles(void) {
  TVMFFIAny lst = ext_make("ffi.List", (TVMFFIAny[]){ext_int(1)}, 1);
  TVMFFIAny args[3] = {lst, lst};
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  CHECK_EQ_STR(repr(lst), "[1, ...]");
  /* Break the cycle so the list can die. */
  CHECK_OK(check_call_global("ffi.ListClear", &lst, 1, &r));
  CHECK_EQ_INT(check_use_count(lst.v_obj), 1);
  check_any_release(&lst);

  TVMFFIAny dict = ext_make("ffi.Dict", NULL, 0);
  args[0] = dict;
  args[1] = ext_str("me");
  args[2] = dict;
  CHECK_OK(check_call_global("ffi.DictSetItem", args, 3, &r));
  CHECK_EQ_STR(repr(dict), "{\"me\": ...}");
  CHECK_OK(check_call_global("ffi.DictClear", &dict, 1, &r));
  CHECK_EQ_INT(check_use_count(dict.v_obj), 1);
  check_any_release(&dict);
}

/* A large value that shares nodes prints each shared node once, labelled "#n=", and refers
 * back to it as "#n#" (issue 22); small values print in full. */
static void test_shared_nodes(void) {
  TVMFFIAny small = check_dag("ffi.Array", ext_int(1), 2);
  CHECK_EQ_STR(repr(small), "(((1,), (1,)), ((1,), (1,)))");
  TVMFFIAny big = check_dag("ffi.Array", ext_int(1), 60);
  const char* text = repr(big);
  CHECK(strncmp(text, "(#1=(#2=(#3=", 12) == 0);
  CHECK(strstr(text, "#59=(#60=(1,), #60#), #59#)") != NULL);
  CHECK(strlen(text) < 1024);
  /* a cycle in a large value: a label too */
  TVMFFIAny lst = ext_make("ffi.List", (TVMFFIAny[]){big}, 1);
  TVMFFIAny args[2] = {lst, lst}, r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  text = repr(lst);
  CHECK(strncmp(text, "#1=[(#2=(", 9) == 0);
  CHECK(strcmp(text + strlen(text) - 6, ", #1#]") == 0);
  CHECK_OK(check_call_global("ffi.ListClear", &lst, 1, &r));
  /* a large tree: no labels, the same text as ever */
  TVMFFIAny items[5000];
  for (int i = 0; i < 5000; ++i) items[i] = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(i)}, 1);
  TVMFFIAny tree = ext_make("ffi.List", items, 5000);
  static char big_buf[65536];
  text = ext_call_str("ffi.ReprPrint", tree, big_buf, sizeof(big_buf));
  CHECK(strncmp(text, "[(0,), (1,), (2,)", 17) == 0 && strchr(text, '#') == NULL);
  for (int i = 0; i < 5000; ++i) check_any_release(&items[i]);
  TVMFFIAny* all[] = {&small, &big, &lst, &tree};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_objects(void) {
  TVMFFIAny inner = ext_pair_new(2, ext_str("s"), 7);
  TVMFFIAny p = ext_pair_new(1, inner, 99);
  CHECK_EQ_STR(repr(p), "exttest.Pair(a=1, b=exttest.Pair(a=2, b=\"s\"))");
  /* An object reaching itself through a field. */
  ext_pair* raw = (ext_pair*)inner.v_obj;
  CHECK_OK(ext_set_any(&raw->b, &inner));
  CHECK_EQ_STR(repr(inner), "exttest.Pair(a=2, b=...)");
  TVMFFIAny none = ext_none();
  CHECK_OK(ext_set_any(&raw->b, &none));
  CHECK_EQ_INT(check_use_count(inner.v_obj), 2);
  check_any_release(&p);
  CHECK_EQ_INT(check_use_count(inner.v_obj), 1);

  setenv("TVM_FFI_REPR_WITH_ADDR", "1", 1);
  char expect[64];
  snprintf(expect, sizeof(expect), "exttest.Pair@%p(a=2, b=None)", (void*)inner.v_obj);
  CHECK_EQ_STR(repr(inner), expect);
  /* containers carry their address after the closing bracket, and a cycle's
   * "..." the address of the object it leads back to */
  TVMFFIAny arr = ext_make("ffi.Array", (TVMFFIAny[]){inner}, 1);
  char expect2[160];
  snprintf(expect2, sizeof(expect2), "(%s,)@%p", expect, (void*)arr.v_obj);
  CHECK_EQ_STR(repr(arr), expect2);
  CHECK_OK(ext_set_any(&raw->b, &inner));
  snprintf(expect2, sizeof(expect2), "exttest.Pair@%p(a=2, b=...@%p)", (void*)inner.v_obj,
           (void*)inner.v_obj);
  CHECK_EQ_STR(repr(inner), expect2);
  CHECK_OK(ext_set_any(&raw->b, &none));
  unsetenv("TVM_FFI_REPR_WITH_ADDR");
  check_any_release(&arr);
  check_any_release(&inner);
}

static void test_errors(void) {
  TVMFFIAny r;
  /* an error's kind and message keep their NULs, escaped */
  TVMFFIByteArray k = {"My\0Err", 6}, m = {"a\0b", 3}, bt = {"", 0};
  TVMFFIObjectHandle err = NULL;
  CHECK_OK(TVMFFIErrorCreate(&k, &m, &bt, &err));
  TVMFFIAny ev = {0};
  ev.type_index = kTVMFFIError;
  ev.v_obj = (TVMFFIObject*)err;
  CHECK_EQ_STR(repr(ev), "My\\u0000Err(\"a\\u0000b\")");
  TVMFFIObjectDecRef(err);
  CHECK_RAISED(check_call_global("ffi.ReprPrint", NULL, 0, &r), "TypeError", "ffi.ReprPrint");
  TVMFFIAny two[2] = {ext_int(1), ext_int(2)};
  CHECK_RAISED(check_call_global("ffi.ReprPrint", two, 2, &r), "TypeError", "Expected 1");
  /* Deep nesting stops with an error, not a crash. */
  TVMFFIAny cur = ext_make("ffi.Array", NULL, 0);
  for (int i = 0; i < 600; ++i) {
    TVMFFIAny next = ext_make("ffi.Array", &cur, 1);
    check_any_release(&cur);
    cur = next;
  }
  CHECK_RAISED(check_call_global("ffi.ReprPrint", &cur, 1, &r), "ValueError", "deeper");
  check_any_release(&cur);
}

int main(void) {
  test_pod();
  test_containers();
  test_tensor();
  test_cycles();
  test_shared_nodes();
  test_objects();
  test_errors();
  printf("test_repr: ok\n");
  return 0;
}
