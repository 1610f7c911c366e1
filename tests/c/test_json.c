/*
 * test_json.c -- ffi.json.Parse / ffi.json.Stringify (docs/abi.md §14.4): value
 * kinds, escapes and \u surrogate pairs, int vs float, round trips, compact
 * and indented output, RFC 8259 violations as ValueError with the position,
 * non-serializable values and cycles, argument errors, refcounts.
 */
#include <float.h>
#include <tvm/ffi/extra/c_container.h>

#include "ext_fixture.h"

static char buf[4096];

static TVMFFIAny parse(const char* text) {
  TVMFFIAny r;
  TVMFFIAny arg = ext_str(text);
  CHECK_OK(check_call_global("ffi.json.Parse", &arg, 1, &r));
  return r;
}

static const char* stringify(TVMFFIAny v, TVMFFIAny indent) {
  TVMFFIAny args[2] = {v, indent}, r;
  CHECK_OK(check_call_global("ffi.json.Stringify", args, 2, &r));
  TVMFFIByteArray ba;
  if (r.type_index == kTVMFFISmallStr) {
    ba = TVMFFISmallBytesGetContentByteArray(&r);
  } else {
    CHECK_EQ_INT(r.type_index, kTVMFFIStr);
    ba = *TVMFFIBytesGetByteArrayPtr(r.v_obj);
  }
  CHECK(ba.size < sizeof(buf));
  memcpy(buf, ba.data, ba.size);
  buf[ba.size] = '\0';
  check_any_release(&r);
  return buf;
}

/* Parses and prints compactly. */
static const char* roundtrip(const char* text) {
  TVMFFIAny v = parse(text);
  stringify(v, ext_none());
  check_any_release(&v);
  return buf;
}

static void check_parse_error(const char* text, const char* needle) {
  TVMFFIAny arg = ext_str(text), r;
  CHECK_RAISED(check_call_global("ffi.json.Parse", &arg, 1, &r), "ValueError", needle);
}

static void test_scalars(void) {
  TVMFFIAny v = parse(" 42 ");
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK_EQ_INT(v.v_int64, 42);
  v = parse("-9223372036854775808");
  CHECK_EQ_INT(v.type_index, kTVMFFIInt);
  CHECK(v.v_int64 == INT64_MIN);
  v = parse("9223372036854775808"); /* beyond int64: float */
  CHECK_EQ_INT(v.type_index, kTVMFFIFloat);
  v = parse("2.5e1");
  CHECK_EQ_INT(v.type_index, kTVMFFIFloat);
  CHECK(v.v_float64 == 25.0);
  v = parse("true");
  CHECK_EQ_INT(v.type_index, kTVMFFIBool);
  CHECK_EQ_INT(v.v_int64, 1);
  v = parse("null");
  CHECK_EQ_INT(v.type_index, kTVMFFINone);
  v = parse("NaN");
  CHECK(v.type_index == kTVMFFIFloat && v.v_float64 != v.v_float64);
  v = parse("\"a\\u00e9\\ud83d\\ude00\\n\\\"\\/\"");
  TVMFFIByteArray ba;
  CHECK_EQ_INT(v.type_index, kTVMFFIStr);
  ba = *TVMFFIBytesGetByteArrayPtr(v.v_obj);
  CHECK_EQ_BYTES(ba, "a\xc3\xa9\xf0\x9f\x98\x80\n\"/");
  check_any_release(&v);

  CHECK_EQ_STR(stringify(ext_float(1.0), ext_none()), "1.0");
  CHECK_EQ_STR(stringify(ext_float(0.1), ext_none()), "0.1");
  /* shortest round-trip digits, laid out like Python's float repr */
  CHECK_EQ_STR(stringify(ext_float(10.0), ext_none()), "10.0");
  CHECK_EQ_STR(stringify(ext_float(1e16), ext_none()), "1e+16");
  CHECK_EQ_STR(stringify(ext_float(1e15), ext_none()), "1000000000000000.0");
  CHECK_EQ_STR(stringify(ext_float(2.5e-7), ext_none()), "2.5e-07");
  CHECK_EQ_STR(stringify(ext_float(1e-4), ext_none()), "0.0001");
  CHECK_EQ_STR(stringify(ext_float(1.0 / 0.0), ext_none()), "Infinity");
  CHECK_EQ_STR(stringify(ext_int(-7), ext_none()), "-7");
  CHECK_EQ_STR(stringify(ext_bool(0), ext_none()), "false");
  CHECK_EQ_STR(stringify(ext_none(), ext_none()), "null");
  CHECK_EQ_STR(stringify(ext_str("tab\there\x01"), ext_none()), "\"tab\\there\\u0001\"");
}

static void test_containers(void) {
  CHECK_EQ_STR(roundtrip(" [1, 2.5, \"x\", [], {}, [true, null]] "),
               "[1,2.5,\"x\",[],{},[true,null]]");
  CHECK_EQ_STR(roundtrip("{\"b\": 1, \"a\": {\"c\": [1.0]}}"), "{\"b\":1,\"a\":{\"c\":[1.0]}}");
  CHECK_EQ_STR(roundtrip("{\"k\": 1, \"k\": 2}"), "{\"k\":2}"); /* later duplicate wins */
  /* "/" is written escaped, as upstream's writer does; both forms read back as "/". */
  CHECK_EQ_STR(roundtrip("{\"a/b\": \"c\\/d\"}"), "{\"a\\/b\":\"c\\/d\"}");
  TVMFFIAny v = parse("{\"a\": [1, 2], \"b\": {}}");
  CHECK_EQ_INT(v.type_index, kTVMFFIMap);
  CHECK_EQ_STR(stringify(v, ext_int(2)), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}");
  CHECK_EQ_STR(stringify(v, ext_int(0)), "{\n\"a\": [\n1,\n2\n],\n\"b\": {}\n}");
  /* One argument is accepted too (indent defaults to None). */
  TVMFFIAny r;
  CHECK_OK(check_call_global("ffi.json.Stringify", &v, 1, &r));
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(v.v_obj), 1);
  check_any_release(&v);

  /* Lists and Dicts serialize like Arrays and Maps. */
  TVMFFIAny kv[2] = {ext_str("x"), ext_float(0.5)};
  TVMFFIAny d = ext_make("ffi.Dict", kv, 2);
  TVMFFIAny l = ext_make("ffi.List", (TVMFFIAny[]){d, ext_int(3)}, 2);
  CHECK_EQ_STR(stringify(l, ext_none()), "[{\"x\":0.5},3]");
  /* A List that contains itself is a ValueError, not a hang. */
  TVMFFIAny args[2] = {l, l};
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  args[1] = ext_none();
  CHECK_RAISED(check_call_global("ffi.json.Stringify", args, 2, &r), "ValueError", "circular");
  CHECK_OK(check_call_global("ffi.ListClear", &l, 1, &r));
  CHECK_EQ_INT(check_use_count(l.v_obj), 1);
  check_any_release(&l);
  check_any_release(&d);
}

/* A container met again is written again, by copying its first text (issue 22): the text
 * reads back equal to the value, compact and indented, past the memo's start (2^9 paths). */
static void test_shared_nodes(void) {
  TVMFFIAny m = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("k"), ext_int(1)}, 2);
  TVMFFIAny dag = check_dag("ffi.Array", m, 9);
  TVMFFIAny indents[2] = {ext_none(), ext_int(2)};
  for (int k = 0; k < 2; ++k) {
    TVMFFIAny args[2] = {dag, indents[k]}, text, back, r;
    CHECK_OK(check_call_global("ffi.json.Stringify", args, 2, &text));
    CHECK_OK(check_call_global("ffi.json.Parse", &text, 1, &back));
    TVMFFIAny pair[2] = {dag, back};
    CHECK_OK(check_call_global("ffi.RecursiveEq", pair, 2, &r));
    CHECK_EQ_INT(r.v_int64, 1);
    check_any_release(&text);
    check_any_release(&back);
  }
  /* a text that doubles at every level is refused, fast */
  TVMFFIAny huge = check_dag("ffi.Array", ext_int(1), 60), r;
  CHECK_RAISED(check_call_global("ffi.json.Stringify", &huge, 1, &r), "ValueError",
               "JSON cannot express sharing");
  check_any_release(&huge);
  check_any_release(&dag);
  check_any_release(&m);
}

static void test_errors(void) {
  /* Python json's wording and positions, as upstream's parser reports them. */
  check_parse_error("", "Expecting value: line 1 column 1 (char 0)");
  check_parse_error("[1, 2,]", "Expecting value: line 1 column 7 (char 6)");
  check_parse_error("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)");
  check_parse_error("{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)");
  check_parse_error("{a: 1}", "Expecting property name enclosed in double quotes: line 1 column 2");
  check_parse_error("{\"a\": 1,}", "Expecting property name enclosed in double quotes");
  check_parse_error("{\"a\": 1 2}", "Expecting ',' delimiter: line 1 column 9 (char 8)");
  /* a number is its whole run of number characters */
  check_parse_error("01", "Expecting value: line 1 column 1 (char 0)");
  check_parse_error("[1.]", "Expecting value: line 1 column 2 (char 1)");
  check_parse_error("1e", "Expecting value: line 1 column 1");
  check_parse_error("-", "Expecting value: line 1 column 1");
  check_parse_error("1.2.3", "Expecting value: line 1 column 1");
  check_parse_error("\"abc", "Unterminated string starting at: line 1 column 1 (char 0)");
  check_parse_error("\"abc\\", "Unterminated string starting at: line 1 column 1 (char 0)");
  check_parse_error("\"a\nb\"", "Invalid control character at: line 1 column 3 (char 2)");
  check_parse_error("\"\\x\"", "Invalid \\escape: line 1 column 3 (char 2)");
  check_parse_error("\"\\u12zz\"", "Invalid \\uXXXX escape: line 1 column 3 (char 2)");
  check_parse_error("\"\\u12", "Invalid \\uXXXX escape: line 1 column 3 (char 2)");
  check_parse_error("\"\\ud800\"", "Invalid surrogate pair of \\uXXXX escapes: line 1 column 3");
  check_parse_error("\"\\udc00x\"", "Invalid surrogate pair of \\uXXXX escapes");
  check_parse_error("\"\\ud800\\u00\"", "Invalid \\uXXXX escape: line 1 column 10 (char 9)");
  check_parse_error("[1]\n x", "Extra data: line 2 column 2 (char 5)");
  check_parse_error("tru", "Expecting value: line 1 column 1 (char 0)");
  /* numbers float64 cannot hold are refused as upstream does (strtod's ERANGE), never
   * rounded to inf or 0.0 (issue 22 item 9); zero and the extremes still parse */
  check_parse_error("1e999",
                    "Expecting value: line 1 column 1 (char 0): the number's magnitude "
                    "is too large for float64");
  check_parse_error("[0, -1e999]", "Expecting value: line 1 column 5 (char 4)");
  check_parse_error("1.7976931348623159e308", "too large for float64");
  check_parse_error("1e-400", "too small for float64 (nonzero");
  check_parse_error("-4.9e-324", "too small for float64"); /* subnormal, as upstream */
  static char huge[100002];
  memset(huge, '7', 100000);
  huge[100000] = '\0';
  check_parse_error(huge, "the integer is too large for int64 and for float64");
  TVMFFIAny z = parse("0e999");
  CHECK(z.type_index == kTVMFFIFloat && z.v_float64 == 0.0);
  z = parse("1.7976931348623157e308");
  CHECK(z.type_index == kTVMFFIFloat && z.v_float64 == DBL_MAX);
  z = parse("2.2250738585072014e-308");
  CHECK(z.type_index == kTVMFFIFloat && z.v_float64 == DBL_MIN);
  huge[300] = '\0'; /* 300 digits: beyond int64, a float as upstream */
  z = parse(huge);
  CHECK(z.type_index == kTVMFFIFloat && z.v_float64 > 7e299);
  /* Nesting is bounded. */
  static char deep[3000];
  memset(deep, '[', 2000);
  deep[2000] = '\0';
  check_parse_error(deep, "Nesting deeper than 1000 levels: line 1 column 1001 (char 1000)");

  TVMFFIAny r;
  TVMFFIAny bad[2] = {ext_int(1), ext_none()};
  CHECK_RAISED(check_call_global("ffi.json.Parse", bad, 1, &r), "TypeError", "ffi.json.Parse");
  CHECK_RAISED(check_call_global("ffi.json.Parse", bad, 2, &r), "TypeError", "Expected 1");
  bad[1] = ext_int(-1);
  CHECK_RAISED(check_call_global("ffi.json.Stringify", bad, 2, &r), "ValueError", "indent");
  bad[1] = ext_str("2");
  CHECK_RAISED(check_call_global("ffi.json.Stringify", bad, 2, &r), "TypeError", "Expected `int`");
  CHECK_RAISED(check_call_global("ffi.json.Stringify", NULL, 0, &r), "TypeError", "Expected 2");
  /* Values with no JSON form. */
  TVMFFIAny kv[2] = {ext_int(1), ext_int(2)};
  TVMFFIAny m = ext_make("ffi.Map", kv, 2);
  bad[0] = m;
  bad[1] = ext_none();
  CHECK_RAISED(check_call_global("ffi.json.Stringify", bad, 2, &r), "TypeError",
               "keys must be str");
  check_any_release(&m);
  TVMFFIAny s = ext_make("ffi.Shape", kv, 2);
  bad[0] = s;
  CHECK_RAISED(check_call_global("ffi.json.Stringify", bad, 2, &r), "TypeError", "ffi.Shape");
  check_any_release(&s);
}

int main(void) {
  test_shared_nodes();
  test_scalars();
  test_containers();
  test_errors();
  printf("test_json: ok\n");
  return 0;
}
