/*
 * test_reflection.c -- field, method and metadata registration and the
 * type-attribute columns (docs/abi.md §12.4-12.6).
 */
#include "check.h"

static int32_t new_type(const char* key, int32_t parent, int32_t depth) {
  TVMFFIByteArray k = check_ba(key);
  int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, depth, 0, 1, parent);
  CHECK(idx >= kTVMFFIDynObjectBegin);
  return idx;
}

static int getter_i64(void* addr, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = *(int64_t*)addr;
  return 0;
}

static int noop(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  (void)n;
  (void)result;
  return 0;
}

static TVMFFIFieldInfo field(const char* name, int64_t offset) {
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = check_ba(name);
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = getter_i64;
  f.field_static_type_index = kTVMFFIInt;
  return f;
}

static void test_fields(void) {
  int32_t base = new_type("test.refl.Base", kTVMFFIObject, 1);
  int32_t derived = new_type("test.refl.Derived", base, 2);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(base);

  char name[] = "value";
  char doc[] = "the value";
  char meta[] = "{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}";
  TVMFFIFieldInfo f = field(name, 24);
  f.doc = check_ba(doc);
  f.metadata = check_ba(meta);
  f.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitMaskHasDefault;
  f.default_value_or_factory.type_index = kTVMFFIInt;
  f.default_value_or_factory.v_int64 = 7;
  CHECK_OK(TVMFFITypeRegisterField(base, &f));
  name[0] = doc[0] = meta[0] = '#'; /* the runtime kept copies */
  CHECK_EQ_INT(info->num_fields, 1);
  const TVMFFIFieldInfo* got = &info->fields[0];
  CHECK_EQ_STR(got->name.data, "value");
  CHECK_EQ_INT(got->name.size, 5);
  CHECK_EQ_STR(got->doc.data, "the value");
  CHECK_EQ_STR(got->metadata.data, "{\"type_schema\":\"{\\\"type\\\":\\\"int\\\"}\"}");
  CHECK_EQ_INT(got->offset, 24);
  CHECK_EQ_INT(got->size, 8);
  CHECK(got->getter == getter_i64);
  CHECK_EQ_INT(got->default_value_or_factory.type_index, kTVMFFIInt);
  CHECK_EQ_INT(got->default_value_or_factory.v_int64, 7);
  CHECK_EQ_INT(got->field_static_type_index, kTVMFFIInt);

  /* A string default given as a view becomes an owned value; a default
   * without HasDefault is dropped; empty doc becomes {NULL, 0}. */
  TVMFFIFieldInfo g = field("label", 32);
  g.flags = kTVMFFIFieldFlagBitMaskHasDefault;
  g.default_value_or_factory.type_index = kTVMFFIRawStr;
  g.default_value_or_factory.v_c_str = "a default longer than seven";
  CHECK_OK(TVMFFITypeRegisterField(base, &g));
  got = &info->fields[1];
  CHECK_EQ_INT(got->default_value_or_factory.type_index, kTVMFFIStr);
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(got->default_value_or_factory.v_obj)->data,
               "a default longer than seven");
  CHECK(got->doc.data == NULL && got->doc.size == 0);
  CHECK(got->metadata.data == NULL && got->metadata.size == 0);
  TVMFFIFieldInfo h = field("no_default", 40);
  h.default_value_or_factory.type_index = kTVMFFIFloat;
  h.default_value_or_factory.v_float64 = 1.5;
  CHECK_OK(TVMFFITypeRegisterField(base, &h));
  CHECK_EQ_INT(info->fields[2].default_value_or_factory.type_index, kTVMFFINone);

  /* A function-object setter is retained; an object default too. */
  TVMFFIObjectHandle setter, factory;
  CHECK_OK(TVMFFIFunctionCreate(NULL, noop, NULL, &setter));
  CHECK_OK(TVMFFIFunctionCreate(NULL, noop, NULL, &factory));
  TVMFFIFieldInfo s = field("with_setter", 48);
  s.flags = kTVMFFIFieldFlagBitSetterIsFunctionObj | kTVMFFIFieldFlagBitMaskHasDefault |
            kTVMFFIFieldFlagBitMaskDefaultFromFactory;
  s.setter = setter;
  s.default_value_or_factory.type_index = kTVMFFIFunction;
  s.default_value_or_factory.v_obj = (TVMFFIObject*)factory;
  CHECK_OK(TVMFFITypeRegisterField(base, &s));
  CHECK_EQ_INT(check_use_count(setter), 2);
  CHECK_EQ_INT(check_use_count(factory), 2);
  CHECK(info->fields[3].setter == setter);
  TVMFFIObjectDecRef(setter);
  TVMFFIObjectDecRef(factory);

  /* Many fields: the array moves, contents stay. */
  char buf[32];
  for (int i = 0; i < 40; ++i) {
    snprintf(buf, sizeof(buf), "f%d", i);
    TVMFFIFieldInfo x = field(buf, 56 + 8 * i);
    CHECK_OK(TVMFFITypeRegisterField(base, &x));
  }
  CHECK_EQ_INT(info->num_fields, 44);
  CHECK_EQ_STR(info->fields[0].name.data, "value");
  CHECK_EQ_STR(info->fields[43].name.data, "f39");
  CHECK_EQ_INT(info->fields[43].offset, 56 + 8 * 39);

  /* Duplicate on the same type: InternalError; on a subclass: allowed. */
  TVMFFIFieldInfo dup = field("value", 24);
  CHECK_RAISED(TVMFFITypeRegisterField(base, &dup), "InternalError", "value");
  CHECK_EQ_INT(info->num_fields, 44);
  fprintf(stderr, "(a shadowing warning is expected next)\n");
  CHECK_OK(TVMFFITypeRegisterField(derived, &dup));
  CHECK_EQ_INT(TVMFFIGetTypeInfo(derived)->num_fields, 1); /* own fields only */

  /* Bad input. */
  CHECK_RAISED(TVMFFITypeRegisterField(100, &dup), "InternalError", "100");
  CHECK_RAISED(TVMFFITypeRegisterField(-3, &dup), "InternalError", "");
  CHECK_RAISED(TVMFFITypeRegisterField(base, NULL), "ValueError", "");
  TVMFFIFieldInfo unnamed = field("", 0);
  CHECK_RAISED(TVMFFITypeRegisterField(base, &unnamed), "ValueError", "name");
}

static void test_methods(void) {
  int32_t t = new_type("test.refl.WithMethods", kTVMFFIObject, 1);
  TVMFFIObjectHandle fn;
  CHECK_OK(TVMFFIFunctionCreate(NULL, noop, NULL, &fn));
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  char name[] = "__ffi_init__";
  m.name = check_ba(name);
  m.doc = check_ba("constructor");
  m.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
  m.method.type_index = kTVMFFIFunction;
  m.method.v_obj = (TVMFFIObject*)fn;
  CHECK_OK(TVMFFITypeRegisterMethod(t, &m));
  name[0] = 'X';
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  CHECK_EQ_INT(info->num_methods, 1);
  CHECK_EQ_STR(info->methods[0].name.data, "__ffi_init__");
  CHECK_EQ_STR(info->methods[0].doc.data, "constructor");
  CHECK(info->methods[0].metadata.data == NULL);
  CHECK_EQ_INT(info->methods[0].flags, kTVMFFIFieldFlagBitMaskIsStaticMethod);
  CHECK(info->methods[0].method.v_obj == fn);
  CHECK_EQ_INT(check_use_count(fn), 2); /* retained */
  char buf[32];
  for (int i = 0; i < 10; ++i) {
    snprintf(buf, sizeof(buf), "m%d", i);
    m.name = check_ba(buf);
    CHECK_OK(TVMFFITypeRegisterMethod(t, &m));
  }
  CHECK_EQ_INT(info->num_methods, 11);
  CHECK_EQ_STR(info->methods[10].name.data, "m9");
  CHECK_EQ_INT(check_use_count(fn), 12);
  TVMFFIObjectDecRef(fn);

  m.method.type_index = kTVMFFIInt;
  m.method.v_int64 = 1;
  CHECK_RAISED(TVMFFITypeRegisterMethod(t, &m), "TypeError", "ffi.Function");
  CHECK_RAISED(TVMFFITypeRegisterMethod(99, &m), "TypeError", ""); /* type checked first */
  m.method.type_index = kTVMFFIFunction;
  m.method.v_obj = (TVMFFIObject*)fn;
  CHECK_RAISED(TVMFFITypeRegisterMethod(99, &m), "InternalError", "99");
  CHECK_RAISED(TVMFFITypeRegisterMethod(t, NULL), "ValueError", "");
  CHECK_EQ_INT(info->num_methods, 11);
}

static int creator(TVMFFIObjectHandle* out) {
  *out = NULL;
  return 0;
}

static void test_metadata(void) {
  int32_t t = new_type("test.refl.WithMetadata", kTVMFFIObject, 1);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  CHECK(info->metadata == NULL);
  char doc[] = "a documented type";
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc = check_ba(doc);
  md.creator = creator;
  md.total_size = 48;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  CHECK_OK(TVMFFITypeRegisterMetadata(t, &md));
  doc[0] = 'X';
  CHECK(info->metadata != NULL);
  CHECK_EQ_STR(info->metadata->doc.data, "a documented type");
  CHECK(info->metadata->creator == creator);
  CHECK_EQ_INT(info->metadata->total_size, 48);
  CHECK_EQ_INT(info->metadata->structural_eq_hash_kind, kTVMFFISEqHashKindTreeNode);
  fprintf(stderr, "(an 'already registered' message is expected next)\n");
  CHECK_RAISED(TVMFFITypeRegisterMetadata(t, &md), "RuntimeError", "test.refl.WithMetadata");
  CHECK_RAISED(TVMFFITypeRegisterMetadata(kTVMFFIObject, &md), "RuntimeError", "ffi.Object");
  CHECK_RAISED(TVMFFITypeRegisterMetadata(120, &md), "InternalError", "");
  CHECK_RAISED(TVMFFITypeRegisterMetadata(t, NULL), "ValueError", "");
  /* Empty doc. */
  int32_t u = new_type("test.refl.Undocumented", kTVMFFIObject, 1);
  md.doc.data = NULL;
  md.doc.size = 0;
  CHECK_OK(TVMFFITypeRegisterMetadata(u, &md));
  CHECK(TVMFFIGetTypeInfo(u)->metadata->doc.data == NULL);
}

static void test_attr_columns(void) {
  /* Created at start-up, begin_index 0 (older binaries read a size_t). */
  TVMFFIByteArray any_hash = check_ba("__any_hash__"), any_eq = check_ba("__any_equal__");
  const TVMFFITypeAttrColumn* h = TVMFFIGetTypeAttrColumn(&any_hash);
  CHECK(h != NULL);
  CHECK_EQ_INT(h->begin_index, 0);
  CHECK(TVMFFIGetTypeAttrColumn(&any_eq) != NULL);
  CHECK(TVMFFIGetTypeAttrColumn(&any_eq) != h);
  TVMFFIByteArray unknown = check_ba("__test_no_such_attr__");
  CHECK(TVMFFIGetTypeAttrColumn(&unknown) == NULL);
  CHECK(TVMFFIGetTypeAttrColumn(NULL) == NULL);

  /* Index 0 only creates the column. */
  TVMFFIByteArray name = check_ba("__test_attr__");
  TVMFFIAny none;
  memset(&none, 0, sizeof(none));
  CHECK_OK(TVMFFITypeRegisterAttr(kTVMFFINone, &name, &none));
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  CHECK(col != NULL);
  CHECK_EQ_INT(col->size, 0);
  CHECK_EQ_INT(col->begin_index, 0);

  int32_t t1 = new_type("test.refl.Attr1", kTVMFFIObject, 1);
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFIInt;
  v.v_int64 = 123;
  CHECK_OK(TVMFFITypeRegisterAttr(t1, &name, &v));
  CHECK(TVMFFIGetTypeAttrColumn(&name) == col); /* stable address */
  CHECK(col->size > t1);
  CHECK_EQ_INT(col->data[t1].type_index, kTVMFFIInt);
  CHECK_EQ_INT(col->data[t1].v_int64, 123);
  CHECK_EQ_INT(col->data[kTVMFFIObject].type_index, kTVMFFINone);

  /* A second value: RuntimeError; the first stays. */
  v.v_int64 = 456;
  CHECK_RAISED(TVMFFITypeRegisterAttr(t1, &name, &v), "RuntimeError", "test.refl.Attr1");
  CHECK_EQ_INT(col->data[t1].v_int64, 123);
  /* None is not a value: accepted, changes nothing. */
  CHECK_OK(TVMFFITypeRegisterAttr(t1, &name, &none));
  CHECK_EQ_INT(col->data[t1].v_int64, 123);

  /* Values are owned: a raw string view is copied into a String, objects are
   * retained. */
  int32_t t2 = new_type("test.refl.Attr2", kTVMFFIObject, 1);
  TVMFFIAny sv;
  memset(&sv, 0, sizeof(sv));
  sv.type_index = kTVMFFIRawStr;
  sv.v_c_str = "attribute value text";
  CHECK_OK(TVMFFITypeRegisterAttr(t2, &name, &sv));
  CHECK_EQ_INT(col->data[t2].type_index, kTVMFFIStr);
  CHECK_EQ_STR(TVMFFIBytesGetByteArrayPtr(col->data[t2].v_obj)->data, "attribute value text");
  TVMFFIObjectHandle fn;
  CHECK_OK(TVMFFIFunctionCreate(NULL, noop, NULL, &fn));
  TVMFFIAny fv;
  memset(&fv, 0, sizeof(fv));
  fv.type_index = kTVMFFIFunction;
  fv.v_obj = (TVMFFIObject*)fn;
  CHECK_OK(TVMFFITypeRegisterAttr(kTVMFFIObject, &any_hash, &fv));
  CHECK_EQ_INT(check_use_count(fn), 2);
  CHECK(h->data[kTVMFFIObject].v_obj == fn);
  TVMFFIObjectDecRef(fn);

  /* Growth to a far index keeps earlier values and the column address. */
  int32_t far = 0;
  char key[48];
  for (int i = 0; i < 600; ++i) {
    snprintf(key, sizeof(key), "test.refl.Filler%d", i);
    far = new_type(key, kTVMFFIObject, 1);
  }
  v.v_int64 = 789;
  CHECK_OK(TVMFFITypeRegisterAttr(far, &name, &v));
  CHECK(TVMFFIGetTypeAttrColumn(&name) == col);
  CHECK(col->size > far);
  CHECK_EQ_INT(col->data[far].v_int64, 789);
  CHECK_EQ_INT(col->data[t1].v_int64, 123);
  CHECK_EQ_INT(col->data[t2].type_index, kTVMFFIStr);
  CHECK_EQ_INT(col->data[far - 1].type_index, kTVMFFINone);

  /* Bad input. */
  CHECK_RAISED(TVMFFITypeRegisterAttr(100, &name, &v), "InternalError", "100");
  CHECK_RAISED(TVMFFITypeRegisterAttr(t1, NULL, &v), "ValueError", "");
  TVMFFIByteArray empty = {"", 0};
  CHECK_RAISED(TVMFFITypeRegisterAttr(t1, &empty, &v), "ValueError", "");
  CHECK_RAISED(TVMFFITypeRegisterAttr(t1, &name, NULL), "ValueError", "");
}

/* The runtime publishes __ffi_type_final__ (bool) for its reflected types as
 * upstream's ObjectDef does: final where the C++ class is, false for the
 * bases others derive from, nothing for the static containers. */
static void test_type_final(void) {
  TVMFFIByteArray attr = check_ba("__ffi_type_final__");
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&attr);
  CHECK(col != NULL);
  static const struct {
    const char* key;
    int final;
  } expect[] = {{"ffi.Module", 1},        {"ffi.BigInt", 1},
                {"ffi.StructuralKey", 1}, {"ffi.reflection.AccessPath", 1},
                {"ffi.Enum", 0},          {"ffi.StructuralVisitor", 0}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; ++i) {
    TVMFFIByteArray key = check_ba(expect[i].key);
    int32_t t;
    CHECK_OK(TVMFFITypeKeyToIndex(&key, &t));
    CHECK(t - col->begin_index < col->size);
    CHECK_EQ_INT(col->data[t - col->begin_index].type_index, kTVMFFIBool);
    CHECK_EQ_INT(col->data[t - col->begin_index].v_int64, expect[i].final);
  }
  CHECK_EQ_INT(col->data[kTVMFFIArray - col->begin_index].type_index, kTVMFFINone);
}

int main(void) {
  test_type_final();
  test_fields();
  test_methods();
  test_metadata();
  test_attr_columns();
  CHECK_SLOT_CLEAN();
  printf("test_reflection: ok\n");
  return 0;
}
