/*
 * test_serialization.c -- ffi.ToJSONGraph / ToJSONGraphString /
 * FromJSONGraph / FromJSONGraphString (docs/abi.md §14.4; docs/python.md §4.1 pickle):
 * the node format, round trips of every serializable kind (bytes via
 * base64, dtype, device, shape, containers, reflected objects), sharing and
 * cycles preserved, metadata, TypeError for values without a JSON form,
 * ValueError for malformed graphs, refcounts; the __data_to_json__ /
 * __data_from_json__ type attributes (how libraries give tensors a JSON form).
 */
#include <tvm/ffi/extra/c_container.h>

#include "ext_fixture.h"

static char buf[8192];

static const char* to_string(TVMFFIAny v, TVMFFIAny metadata) {
  TVMFFIAny args[2] = {v, metadata}, r;
  CHECK_OK(check_call_global("ffi.ToJSONGraphString", args, 2, &r));
  TVMFFIByteArray ba = r.type_index == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(&r)
                                                       : *TVMFFIBytesGetByteArrayPtr(r.v_obj);
  CHECK(ba.size < sizeof(buf));
  memcpy(buf, ba.data, ba.size);
  buf[ba.size] = '\0';
  check_any_release(&r);
  return buf;
}

static TVMFFIAny from_string(const char* s) {
  TVMFFIAny arg = ext_str(s), r;
  CHECK_OK(check_call_global("ffi.FromJSONGraphString", &arg, 1, &r));
  return r;
}

static int eq(TVMFFIAny a, TVMFFIAny b) {
  TVMFFIAny args[2] = {a, b}, r;
  CHECK_OK(check_call_global("ffi.RecursiveEq", args, 2, &r));
  return (int)r.v_int64;
}

/* Serializes to text and back; the result must equal v. */
static TVMFFIAny roundtrip(TVMFFIAny v) {
  TVMFFIAny back = from_string(to_string(v, ext_none()));
  CHECK(eq(v, back));
  return back;
}

static void test_format(void) {
  TVMFFIAny arr = ext_make("ffi.Array", (TVMFFIAny[]){ext_int(7), ext_str("s")}, 2);
  /* children first, the root last (the reference writer's order) */
  CHECK_EQ_STR(
      to_string(arr, ext_none()),
      "{\"root_index\":2,\"nodes\":[{\"type\":\"int\",\"data\":7},"
      "{\"type\":\"ffi.String\",\"data\":\"s\"},{\"type\":\"ffi.Array\",\"data\":[0,1]}]}");
  TVMFFIAny md = ext_make("ffi.Map", (TVMFFIAny[]){ext_str("v"), ext_int(1)}, 2);
  CHECK_EQ_STR(to_string(ext_none(), md),
               "{\"root_index\":0,\"nodes\":[{\"type\":\"None\"}],\"metadata\":{\"v\":1}}");
  /* ToJSONGraph gives the same as JSON values. */
  TVMFFIAny args[2] = {arr, ext_none()}, g;
  CHECK_OK(check_call_global("ffi.ToJSONGraph", args, 2, &g));
  CHECK_EQ_INT(g.type_index, kTVMFFIMap);
  TVMFFIAny back;
  CHECK_OK(check_call_global("ffi.FromJSONGraph", &g, 1, &back));
  CHECK(eq(arr, back));
  check_any_release(&back);
  check_any_release(&g);
  check_any_release(&md);
  CHECK_EQ_INT(check_use_count(arr.v_obj), 1);
  check_any_release(&arr);
}

static void test_roundtrip(void) {
  TVMFFIByteArray bb = {"\x00\xff\x10xyz\x01\x02", 8};
  TVMFFIAny bytes;
  CHECK_OK(TVMFFIBytesFromByteArray(&bb, &bytes));
  TVMFFIAny dt, dev;
  memset(&dt, 0, sizeof(dt));
  dt.type_index = kTVMFFIDataType;
  dt.v_dtype.code = kDLBfloat;
  dt.v_dtype.bits = 16;
  dt.v_dtype.lanes = 1;
  memset(&dev, 0, sizeof(dev));
  dev.type_index = kTVMFFIDevice;
  dev.v_device.device_type = kDLCUDA;
  dev.v_device.device_id = 3;
  TVMFFIAny shape = ext_make("ffi.Shape", (TVMFFIAny[]){ext_int(2), ext_int(5)}, 2);
  TVMFFIAny heap = ext_owned_str("a heap string with \"quotes\"\n");
  TVMFFIAny kv[4] = {ext_str("k"), ext_float(0.25), ext_int(3), bytes};
  TVMFFIAny dict = ext_make("ffi.Dict", kv, 4);
  TVMFFIAny map = ext_make("ffi.Map", kv, 4);
  TVMFFIAny obj = ext_pair_new(-4, dict, 5);
  TVMFFIAny items[] = {ext_none(), ext_bool(1), ext_int(-9), ext_float(1.5), heap, bytes,
                       dt,         dev,         shape,       dict,           map,  obj};
  TVMFFIAny list = ext_make("ffi.List", items, (int32_t)(sizeof(items) / sizeof(items[0])));
  TVMFFIAny back = roundtrip(list);
  TVMFFIAny* bi = (TVMFFIAny*)TVMFFISeqGetCellPtr(back.v_obj)->data;
  CHECK_EQ_INT(bi[1].type_index, kTVMFFIBool);
  CHECK_EQ_INT(bi[3].type_index, kTVMFFIFloat);
  CHECK_EQ_INT(bi[5].type_index, kTVMFFIBytes);
  CHECK_EQ_INT(TVMFFIBytesGetByteArrayPtr(bi[5].v_obj)->size, 8);
  CHECK(memcmp(TVMFFIBytesGetByteArrayPtr(bi[5].v_obj)->data, bb.data, 8) == 0);
  CHECK(bi[6].v_uint64 == dt.v_uint64);
  CHECK(bi[7].v_uint64 == dev.v_uint64);
  CHECK_EQ_INT(bi[9].type_index, kTVMFFIDict);
  CHECK_EQ_INT(bi[10].type_index, kTVMFFIMap);
  CHECK_EQ_INT(bi[11].type_index, ext_pair_index);
  ext_pair* p = (ext_pair*)bi[11].v_obj;
  CHECK_EQ_INT(p->a, -4);
  CHECK_EQ_INT(p->hidden, 5); /* serialization keeps every field */
  /* Sharing: the Dict inside the object is the Dict of the list. */
  CHECK(p->b.v_obj == bi[9].v_obj);
  check_any_release(&back);
  TVMFFIAny* all[] = {&bytes, &shape, &heap, &dict, &map, &obj, &list};
  /* The originals are held only by the test and each other. */
  CHECK_EQ_INT(check_use_count(bytes.v_obj), 4); /* self, dict, map, list */
  CHECK_EQ_INT(check_use_count(dict.v_obj), 3);  /* self, obj.b, list */
  CHECK_EQ_INT(check_use_count(obj.v_obj), 2);
  CHECK_EQ_INT(check_use_count(list.v_obj), 1);
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) check_any_release(all[i]);
}

static void test_cycles(void) {
  TVMFFIAny l = ext_make("ffi.List", (TVMFFIAny[]){ext_int(1)}, 1);
  TVMFFIAny args[2] = {l, l}, r;
  CHECK_OK(check_call_global("ffi.ListAppend", args, 2, &r));
  /* a value that contains itself has no node order: the writer refuses it */
  args[1] = ext_none();
  CHECK_RAISED(check_call_global("ffi.ToJSONGraphString", args, 2, &r), "ValueError", "cycle");
  CHECK_OK(check_call_global("ffi.ListClear", &l, 1, &r));
  check_any_release(&l);
  /* the reader still rebuilds a List that refers to itself */
  TVMFFIAny back = from_string(
      "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.List\",\"data\":[1,0]},"
      "{\"type\":\"int\",\"data\":1}]}");
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(back.v_obj);
  CHECK_EQ_INT(c->size, 2);
  CHECK(((TVMFFIAny*)c->data)[1].v_obj == back.v_obj);
  CHECK_OK(check_call_global("ffi.ListClear", &back, 1, &r));
  CHECK_EQ_INT(check_use_count(back.v_obj), 1);
  check_any_release(&back);
}

static void check_bad(const char* text, const char* kind, const char* needle) {
  TVMFFIAny arg = ext_str(text), r;
  CHECK_RAISED(check_call_global("ffi.FromJSONGraphString", &arg, 1, &r), kind, needle);
}

static void test_errors(void) {
  check_bad("[]", "TypeError", "expected a JSON object");
  check_bad("{}", "ValueError", "\"nodes\"");
  check_bad("{\"root_index\": 1, \"nodes\": [{\"type\": \"None\"}]}", "ValueError", "root_index");
  check_bad("{\"root_index\": 0, \"nodes\": [1]}", "ValueError", "node 0");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"data\": 1}]}", "ValueError", "\"type\"");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"int\", \"data\": \"x\"}]}", "ValueError",
            "integer");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"ffi.Array\", \"data\": [5]}]}",
            "ValueError", "node index");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"ffi.Array\", \"data\": [0]}]}",
            "ValueError", "cycle");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"ffi.Map\", \"data\": [0]}]}",
            "ValueError", "pairs");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"ffi.Bytes\", \"data\": \"abc\"}]}",
            "ValueError", "base64");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"DataType\", \"data\": \"nope\"}]}",
            "ValueError", "");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"no.SuchType\"}]}", "ValueError",
            "unknown type key");
  check_bad("not json", "ValueError", "Expecting value: line 1 column 1 (char 0)");

  /* Values without a JSON form. */
  TVMFFIAny f;
  CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &f));
  TVMFFIAny args[2] = {f, ext_none()}, r;
  CHECK_RAISED(check_call_global("ffi.ToJSONGraphString", args, 2, &r), "TypeError",
               "ffi.Function");
  TVMFFIAny arr = ext_make("ffi.Array", &f, 1);
  args[0] = arr;
  CHECK_RAISED(check_call_global("ffi.ToJSONGraph", args, 2, &r), "TypeError", "ffi.Function");
  CHECK_EQ_INT(check_use_count(f.v_obj), 2);
  check_any_release(&arr);
  check_any_release(&f);
  TVMFFIAny ptr;
  memset(&ptr, 0, sizeof(ptr));
  ptr.type_index = kTVMFFIOpaquePtr;
  ptr.v_ptr = &ptr;
  args[0] = ptr;
  CHECK_RAISED(check_call_global("ffi.ToJSONGraphString", args, 2, &r), "TypeError", "void*");
  CHECK_RAISED(check_call_global("ffi.ToJSONGraphString", NULL, 0, &r), "TypeError", "Expected 2");
  CHECK_RAISED(check_call_global("ffi.FromJSONGraph", NULL, 0, &r), "TypeError", "Expected 1");
  args[0] = ext_int(1);
  CHECK_RAISED(check_call_global("ffi.FromJSONGraphString", args, 1, &r), "TypeError", "str");
}

/* ---- __data_to_json__ / __data_from_json__ ---------------------------------------- */

/* "test.serial.Blob": a payload with a reflected field, whose hooks write it as
 * the text "blob-<payload>" instead of its fields (the hook wins, as upstream). */
typedef struct {
  TVMFFIObject header;
  int64_t payload; /* +24 */
} blob;

static int32_t g_blob_index = -1;

static void blob_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static TVMFFIAny blob_new(int64_t payload) {
  blob* b = (blob*)calloc(1, sizeof(blob));
  CHECK(b != NULL);
  b->header.combined_ref_count = UINT64_C(0x100000001);
  b->header.type_index = g_blob_index;
  b->header.deleter = blob_deleter;
  b->payload = payload;
  return check_any_obj(b);
}

static int blob_to_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(result->type_index, kTVMFFINone); /* an empty slot, as upstream's headers check */
  CHECK_EQ_INT(args[0].type_index, g_blob_index);
  int64_t p = ((blob*)args[0].v_obj)->payload;
  if (p < 0) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "a negative blob has no JSON form");
    return -1;
  }
  char text[32];
  snprintf(text, sizeof(text), "blob-%lld", (long long)p);
  TVMFFIByteArray ba = check_ba(text);
  return TVMFFIStringFromByteArray(&ba, result);
}

static int blob_from_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(result->type_index, kTVMFFINone); /* an empty slot, as upstream's headers check */
  TVMFFIByteArray ba = args[0].type_index == kTVMFFISmallStr
                           ? TVMFFISmallBytesGetContentByteArray(&args[0])
                           : *TVMFFIBytesGetByteArrayPtr(args[0].v_obj);
  long long p;
  char text[32];
  if (ba.size >= sizeof(text)) ba.size = sizeof(text) - 1;
  memcpy(text, ba.data, ba.size);
  text[ba.size] = '\0';
  if (sscanf(text, "blob-%lld", &p) != 1) {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "not a blob");
    return -1;
  }
  *result = blob_new(p);
  return 0;
}

static void blob_register(void) {
  TVMFFIByteArray key = check_ba("test.serial.Blob");
  g_blob_index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = check_ba("payload");
  f.size = f.alignment = 8;
  f.offset = 24;
  f.getter = ext_get_int;
  f.field_static_type_index = kTVMFFIInt;
  CHECK_OK(TVMFFITypeRegisterField(g_blob_index, &f));
  TVMFFISafeCallType fns[2] = {blob_to_json, blob_from_json};
  const char* names[2] = {"__data_to_json__", "__data_from_json__"};
  for (int i = 0; i < 2; ++i) {
    TVMFFIObjectHandle fn;
    CHECK_OK(TVMFFIFunctionCreate(NULL, fns[i], NULL, &fn));
    TVMFFIByteArray name = check_ba(names[i]);
    TVMFFIAny v = check_any_obj(fn);
    CHECK_OK(TVMFFITypeRegisterAttr(g_blob_index, &name, &v));
    TVMFFIObjectDecRef(fn);
  }
}

static void test_data_hooks(void) {
  /* Both columns exist before any type registers a hook (upstream-built code
   * looks them up at start-up). */
  TVMFFIByteArray to = check_ba("__data_to_json__"), from = check_ba("__data_from_json__");
  CHECK(TVMFFIGetTypeAttrColumn(&to) != NULL);
  CHECK(TVMFFIGetTypeAttrColumn(&from) != NULL);
  blob_register();
  TVMFFIAny b = blob_new(7);
  TVMFFIAny arr = ext_make("ffi.Array", (TVMFFIAny[]){b, b}, 2);
  /* the hook's result is the node's data; the second use shares the node */
  CHECK_EQ_STR(to_string(arr, ext_none()),
               "{\"root_index\":1,\"nodes\":[{\"type\":\"test.serial.Blob\",\"data\":\"blob-7\"},"
               "{\"type\":\"ffi.Array\",\"data\":[0,0]}]}");
  TVMFFIAny back = from_string(buf);
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(back.v_obj);
  CHECK_EQ_INT(c->size, 2);
  TVMFFIAny* items = (TVMFFIAny*)c->data;
  CHECK_EQ_INT(items[0].type_index, g_blob_index);
  CHECK_EQ_INT(((blob*)items[0].v_obj)->payload, 7);
  CHECK(items[0].v_obj == items[1].v_obj);
  CHECK(items[0].v_obj != b.v_obj);
  CHECK_EQ_INT(check_use_count(items[0].v_obj), 2);
  check_any_release(&back);
  /* the hooks' errors are the calls' errors */
  TVMFFIAny neg = blob_new(-1), args[2] = {neg, ext_none()}, r;
  CHECK_RAISED(check_call_global("ffi.ToJSONGraphString", args, 2, &r), "ValueError",
               "negative blob");
  check_bad("{\"root_index\": 0, \"nodes\": [{\"type\": \"test.serial.Blob\", \"data\": \"x\"}]}",
            "ValueError", "not a blob");
  check_any_release(&neg);
  check_any_release(&arr);
  CHECK_EQ_INT(check_use_count(b.v_obj), 1);
  check_any_release(&b);
}

int main(void) {
  test_format();
  test_roundtrip();
  test_cycles();
  test_errors();
  test_data_hooks();
  printf("test_serialization: ok\n");
  return 0;
}
