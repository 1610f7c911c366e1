/*
 * test_pyclass.c -- runtime support of Python-defined types (docs/abi.md §14.4):
 * ffi._PyClassLayout, ffi.MakeFieldGetter, ffi.MakeFieldSetter,
 * ffi._PyClassRegisterTypeAttrColumns, exercised the way
 * tvm_ffi.dataclasses.py_class drives them, on:
 *
 *   pc.Point           s (required, plain setter), x = 7 (setter with a converter)
 *   pc.Point3 : Point  z (required, plain setter)
 *   pc.Flag            one bool (its tail padding is reused by children)
 *   pc.Native          one field of each kind, read back through a C struct
 *   pc.CParent         a type laid out by C: an object pointer, an Any, an int32
 *   pc.CParentChild : CParent  z (an Any), and an alias of the parent's Any
 *   pc.OwnedChild : Owned  z; Owned's part is constructed, copied and destroyed by C
 *
 * Point's fields are Any slots after the header; a heap string stored in
 * fields tells, through its use count, that copies and deleters balance.
 */
#include "check.h"

#define HDR ((int64_t)sizeof(TVMFFIObject))
#define SLOT ((int64_t)sizeof(TVMFFIAny))

static int32_t g_point = -1, g_point3 = -1;

/* f_convert of x: ints pass, floats truncate to int, anything else is a TypeError. */
static int g_to_int_calls = 0;

static int to_int(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  ++g_to_int_calls;
  if (n != 1) return TVMFFIErrorSetRaisedFromCStr("TypeError", "to_int takes 1 argument"), -1;
  if (args[0].type_index == kTVMFFIInt) {
    *result = args[0];
    return 0;
  }
  if (args[0].type_index == kTVMFFIFloat) {
    *result = check_any_int((int64_t)args[0].v_float64);
    return 0;
  }
  TVMFFIErrorSetRaisedFromCStr("TypeError", "x expects an int");
  return -1;
}

static TVMFFIObjectHandle new_function(TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, fn, NULL, &f));
  return f;
}

/* Result of a global called with up to three int/object arguments. */
static TVMFFIAny call3(const char* name, TVMFFIAny a, TVMFFIAny b, TVMFFIAny c, int n) {
  TVMFFIAny args[3] = {a, b, c}, r;
  CHECK_OK(check_call_global(name, args, n, &r));
  return r;
}

static TVMFFIAny none_any(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  return a;
}

static void add_kind_field(int32_t t, const char* name, int64_t kind, const int64_t* place,
                           TVMFFIObjectHandle convert, int has_default, int64_t def) {
  TVMFFIAny g = call3("ffi.MakeFieldGetter", check_any_int(kind), none_any(), none_any(), 1);
  CHECK_EQ_INT(g.type_index, kTVMFFIInt);
  TVMFFIAny s = call3("ffi.MakeFieldSetter", check_any_int(kind), check_any_int(0),
                      convert ? check_any_obj(convert) : none_any(), 3);
  CHECK_EQ_INT(s.type_index, kTVMFFIFunction);
  TVMFFIFieldInfo fi;
  memset(&fi, 0, sizeof(fi));
  fi.name = check_ba(name);
  fi.flags = kTVMFFIFieldFlagBitMaskWritable | kTVMFFIFieldFlagBitSetterIsFunctionObj;
  fi.offset = place[0];
  fi.size = place[1];
  fi.alignment = place[2];
  fi.getter = (TVMFFIFieldGetter)(intptr_t)g.v_int64;
  fi.setter = s.v_obj;
  if (has_default) {
    fi.flags |= kTVMFFIFieldFlagBitMaskHasDefault;
    fi.default_value_or_factory = check_any_int(def);
  }
  fi.field_static_type_index = (int32_t)kind;
  CHECK_OK(TVMFFITypeRegisterField(t, &fi));
  check_any_release(&s); /* the type table keeps its own reference */
}

/* An Any field at `offset`, as the first tests lay them out by hand. */
static void add_field(int32_t t, const char* name, int64_t offset, TVMFFIObjectHandle convert,
                      int has_default, int64_t def) {
  int64_t place[3] = {offset, SLOT, 8};
  add_kind_field(t, name, kTVMFFIAny, place, convert, has_default, def);
}

static int32_t alloc_type(const char* key, int32_t parent) {
  TVMFFIByteArray k = check_ba(key);
  int32_t depth = TVMFFIGetTypeInfo(parent)->type_depth + 1;
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, 0, 1, parent);
}

static const TVMFFIFieldInfo* field_of(int32_t t, const char* name) {
  const TVMFFITypeInfo* own = TVMFFIGetTypeInfo(t);
  for (int32_t d = own->type_depth; d >= 0; --d) { /* own fields, then the ancestors' */
    const TVMFFITypeInfo* info = d == own->type_depth ? own : own->type_ancestors[d];
    for (int32_t i = 0; i < info->num_fields; ++i)
      if (info->fields[i].name.size == strlen(name) &&
          memcmp(info->fields[i].name.data, name, strlen(name)) == 0)
        return &info->fields[i];
  }
  FAIL("no field %s", name);
  return NULL;
}

static TVMFFIAny get_field(TVMFFIObjectHandle obj, int32_t t, const char* name) {
  const TVMFFIFieldInfo* f = field_of(t, name);
  TVMFFIAny v = none_any();
  CHECK_OK(f->getter((char*)obj + f->offset, &v));
  return v;
}

/* Calls the setter Function of a field with (field address, value). */
static int set_field(TVMFFIObjectHandle obj, int32_t t, const char* name, TVMFFIAny value) {
  const TVMFFIFieldInfo* f = field_of(t, name);
  TVMFFIAny args[2], r = none_any();
  memset(args, 0, sizeof(args));
  args[0].type_index = kTVMFFIOpaquePtr;
  args[0].v_ptr = (char*)obj + f->offset;
  args[1] = value;
  int rc = TVMFFIFunctionCall(f->setter, args, 2, &r);
  check_any_release(&r);
  return rc;
}

static const TVMFFIAny* attr_of(int32_t t, const char* name) {
  TVMFFIByteArray n = check_ba(name);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  CHECK(col != NULL);
  CHECK(t - col->begin_index < col->size);
  return &col->data[t - col->begin_index];
}

static void define_types(void) {
  TVMFFIObjectHandle conv = new_function(to_int);
  g_point = alloc_type("pc.Point", kTVMFFIObject);
  add_field(g_point, "s", HDR, NULL, 0, 0);
  add_field(g_point, "x", HDR + SLOT, conv, 1, 7);
  TVMFFIObjectDecRef(conv);
  TVMFFIAny r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(g_point),
                      check_any_int(HDR + 2 * SLOT), none_any(), 2);
  check_any_release(&r);
  CHECK_EQ_INT(TVMFFIGetTypeInfo(g_point)->metadata->total_size, HDR + 2 * SLOT);
  /* a second call is harmless: the attributes are there already */
  r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(g_point),
            check_any_int(HDR + 2 * SLOT), none_any(), 2);

  g_point3 = alloc_type("pc.Point3", g_point);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)(HDR + 3 * SLOT);
  CHECK_OK(TVMFFITypeRegisterMetadata(g_point3, &md));
  add_field(g_point3, "z", HDR + 2 * SLOT, NULL, 0, 0);
  r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(g_point3),
            check_any_int(HDR + 3 * SLOT), none_any(), 2);
}

static void test_make_and_fields(TVMFFIObjectHandle probe) {
  TVMFFIAny name = check_any_cstr("s");
  TVMFFIAny key = check_any_cstr("pc.Point");
  TVMFFIAny obj = call3("ffi.MakeObjectFromPackedArgs", key, name, check_any_obj(probe), 3);
  CHECK_EQ_INT(obj.type_index, g_point);
  CHECK_EQ_INT(check_use_count(probe), 2);
  TVMFFIAny x = get_field(obj.v_obj, g_point, "x");
  CHECK_EQ_INT(x.type_index, kTVMFFIInt);
  CHECK_EQ_INT(x.v_int64, 7); /* the default, through the converter */
  TVMFFIAny s = get_field(obj.v_obj, g_point, "s");
  CHECK(s.v_obj == probe);
  CHECK_EQ_INT(check_use_count(probe), 3); /* the getter returns an owned copy */
  check_any_release(&s);

  TVMFFIAny f;
  memset(&f, 0, sizeof(f));
  f.type_index = kTVMFFIFloat;
  f.v_float64 = 2.75;
  CHECK_OK(set_field(obj.v_obj, g_point, "x", f));
  x = get_field(obj.v_obj, g_point, "x");
  CHECK_EQ_INT(x.type_index, kTVMFFIInt);
  CHECK_EQ_INT(x.v_int64, 2);
  CHECK_RAISED(set_field(obj.v_obj, g_point, "x", check_any_cstr("no")), "TypeError", "int");
  x = get_field(obj.v_obj, g_point, "x");
  CHECK_EQ_INT(x.v_int64, 2); /* a rejected value leaves the field alone */
  /* the plain setter turns views into owned values: a raw C string becomes a String */
  CHECK_OK(set_field(obj.v_obj, g_point, "s", check_any_cstr("a longer string value")));
  CHECK_EQ_INT(check_use_count(probe), 1);
  s = get_field(obj.v_obj, g_point, "s");
  CHECK_EQ_INT(s.type_index, kTVMFFIStr);
  check_any_release(&s);
  CHECK_OK(set_field(obj.v_obj, g_point, "s", check_any_obj(probe)));
  CHECK_EQ_INT(check_use_count(probe), 2);

  /* shallow copy shares the field values */
  TVMFFIAny arg = check_any_obj(obj.v_obj), copy = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(g_point, "__ffi_shallow_copy__")->v_obj, &arg, 1, &copy));
  CHECK_EQ_INT(copy.type_index, g_point);
  CHECK(copy.v_obj != obj.v_obj);
  CHECK_EQ_INT(check_use_count(probe), 3);
  check_any_release(&copy);
  check_any_release(&obj);
  CHECK_EQ_INT(check_use_count(probe), 1); /* the deleter released every slot */
}

static void test_generated_init_and_subtype(TVMFFIObjectHandle probe) {
  /* __ffi_init__ takes the required s first, then x */
  TVMFFIAny args[2] = {check_any_obj(probe), check_any_int(5)}, r = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(g_point, "__ffi_init__")->v_obj, args, 2, &r));
  CHECK_EQ_INT(r.type_index, g_point);
  TVMFFIAny x = get_field(r.v_obj, g_point, "x");
  CHECK_EQ_INT(x.v_int64, 5);
  check_any_release(&r);

  TVMFFIAny key = check_any_cstr("pc.Point3");
  TVMFFIAny a[5] = {key, check_any_cstr("s"), check_any_obj(probe), check_any_cstr("z"),
                    check_any_obj(probe)};
  CHECK_OK(check_call_global("ffi.MakeObjectFromPackedArgs", a, 5, &r));
  CHECK_EQ_INT(r.type_index, g_point3);
  CHECK_EQ_INT(check_use_count(probe), 3);
  x = get_field(r.v_obj, g_point3, "x");
  CHECK_EQ_INT(x.v_int64, 7);
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(probe), 1);

  /* __ffi_new__ gives a blank object: every field None */
  r = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(g_point3, "__ffi_new__")->v_obj, NULL, 0, &r));
  TVMFFIAny z = get_field(r.v_obj, g_point3, "z");
  CHECK_EQ_INT(z.type_index, kTVMFFINone);
  check_any_release(&r);
}

/* ---- a Python-defined type over a type laid out by C ---------------------- */

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* obj; /* +24, an ObjectRef */
  TVMFFIAny any;     /* +32 */
  int32_t n;         /* +48 */
} c_parent;

static int get_n(void* addr, TVMFFIAny* r) {
  *r = check_any_int(*(int32_t*)addr);
  return 0;
}

static void add_c_field(int32_t t, const char* name, int64_t offset, int64_t size,
                        int32_t static_type) {
  TVMFFIFieldInfo fi;
  memset(&fi, 0, sizeof(fi));
  fi.name = check_ba(name);
  fi.size = size;
  fi.alignment = size < 8 ? size : 8;
  fi.offset = offset;
  fi.getter = get_n; /* (the test reads the bytes itself) */
  fi.field_static_type_index = static_type;
  CHECK_OK(TVMFFITypeRegisterField(t, &fi));
}

static void test_c_parent(TVMFFIObjectHandle probe) {
  int32_t parent = alloc_type("pc.CParent", kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)sizeof(c_parent);
  CHECK_OK(TVMFFITypeRegisterMetadata(parent, &md));
  add_c_field(parent, "obj", offsetof(c_parent, obj), 8, kTVMFFIObject);
  add_c_field(parent, "any", offsetof(c_parent, any), 16, kTVMFFIAny);
  add_c_field(parent, "n", offsetof(c_parent, n), 4, kTVMFFIInt);
  int32_t child = alloc_type("pc.CParentChild", parent);
  add_field(child, "z", (int64_t)sizeof(c_parent), NULL, 0, 0);
  add_c_field(child, "any_alias", offsetof(c_parent, any), 16, kTVMFFIAny);
  TVMFFIAny r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(child),
                      check_any_int((int64_t)sizeof(c_parent) + SLOT), none_any(), 2);
  check_any_release(&r);

  r = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(child, "__ffi_new__")->v_obj, NULL, 0, &r));
  c_parent* o = (c_parent*)r.v_obj;
  CHECK(o->obj == NULL && o->any.type_index == kTVMFFINone && o->n == 0); /* zeroed */
  TVMFFIObjectIncRef(probe);
  o->obj = probe;
  TVMFFIObjectIncRef(probe);
  o->any = check_any_obj(probe);
  o->n = 42;
  CHECK_OK(set_field(r.v_obj, child, "z", check_any_obj(probe)));
  CHECK_EQ_INT(check_use_count(probe), 4);

  /* the copy holds the parent's fields at their offsets, each reference taken once more */
  TVMFFIAny arg = check_any_obj(r.v_obj), copy = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(child, "__ffi_shallow_copy__")->v_obj, &arg, 1, &copy));
  c_parent* c = (c_parent*)copy.v_obj;
  CHECK(c->obj == probe && c->any.v_obj == probe && c->n == 42);
  CHECK_EQ_INT(check_use_count(probe), 7);
  check_any_release(&copy);
  CHECK_EQ_INT(check_use_count(probe), 4);
  /* the deleter releases the parent's object pointer and Any (the alias once) */
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(probe), 1);

  /* a reference in bytes that are neither an Any nor a pointer cannot be owned */
  int32_t odd = alloc_type("pc.Odd", kTVMFFIObject);
  add_c_field(odd, "ref", HDR, 12, kTVMFFIObject);
  TVMFFIAny bad[2] = {check_any_int(odd), check_any_int(HDR + 16)};
  CHECK_RAISED(check_call_global("ffi._PyClassRegisterTypeAttrColumns", bad, 2, &r), "TypeError",
               "neither an Any");
}

static void test_errors(void) {
  TVMFFIAny r;
  TVMFFIAny bad_size[2] = {check_any_int(g_point), check_any_int(HDR + 3)};
  CHECK_RAISED(check_call_global("ffi._PyClassRegisterTypeAttrColumns", bad_size, 2, &r),
               "ValueError", "total_size");
  TVMFFIAny other_size[2] = {check_any_int(g_point), check_any_int(HDR + 4 * SLOT)};
  CHECK_RAISED(check_call_global("ffi._PyClassRegisterTypeAttrColumns", other_size, 2, &r),
               "ValueError", "registered with total_size");
  TVMFFIAny pod[2] = {check_any_int(kTVMFFIInt), check_any_int(HDR)};
  CHECK_RAISED(check_call_global("ffi._PyClassRegisterTypeAttrColumns", pod, 2, &r), "ValueError",
               "not a registered object type");
  TVMFFIAny conv[3] = {check_any_int(-1), check_any_int(1), none_any()};
  CHECK_RAISED(check_call_global("ffi.MakeFieldSetter", conv, 3, &r), "ValueError", "reserved");
  TVMFFIAny notfn[3] = {check_any_int(-1), check_any_int(0), check_any_int(3)};
  CHECK_RAISED(check_call_global("ffi.MakeFieldSetter", notfn, 3, &r), "TypeError", "#2");
  TVMFFIAny getter_arg = check_any_cstr("x");
  CHECK_RAISED(check_call_global("ffi.MakeFieldGetter", &getter_arg, 1, &r), "TypeError", "#0");
  /* the setter Function insists on a field address */
  const TVMFFIFieldInfo* f = field_of(g_point, "s");
  TVMFFIAny sargs[2] = {check_any_int(1), check_any_int(2)};
  CHECK_RAISED(TVMFFIFunctionCall(f->setter, sargs, 2, &r), "TypeError", "field address");
}

/* ---- native layouts ---------------------------------------------------------- */

/* What a C compiler makes of pc.Native's fields: ffi._PyClassLayout must agree. */
typedef struct {
  TVMFFIObject header;
  uint8_t flag;
  int64_t count;
  double ratio;
  void* ptr;
  DLDataType dtype;
  DLDevice device;
  TVMFFIAny any;
  TVMFFIObject* obj;
  uint8_t tail;
} native_t;

#define N_NATIVE 9
static const char* const g_native_names[N_NATIVE] = {"flag",   "count", "ratio", "ptr", "dtype",
                                                     "device", "any",   "obj",   "tail"};
static const int64_t g_native_kinds[N_NATIVE] = {kTVMFFIBool,      kTVMFFIInt,      kTVMFFIFloat,
                                                 kTVMFFIOpaquePtr, kTVMFFIDataType, kTVMFFIDevice,
                                                 kTVMFFIAny,       kTVMFFIObject,   kTVMFFIBool};
static const size_t g_native_offsets[N_NATIVE] = {
    offsetof(native_t, flag), offsetof(native_t, count), offsetof(native_t, ratio),
    offsetof(native_t, ptr),  offsetof(native_t, dtype), offsetof(native_t, device),
    offsetof(native_t, any),  offsetof(native_t, obj),   offsetof(native_t, tail)};

/* ffi._PyClassLayout(parent, kinds...) as int64s: [total, offset, size, align, ...]. */
static void layout_of(int32_t parent, const int64_t* kinds, int n, int64_t* out) {
  TVMFFIAny args[1 + N_NATIVE], r;
  args[0] = check_any_int(parent);
  for (int i = 0; i < n; ++i) args[1 + i] = check_any_int(kinds[i]);
  CHECK_OK(check_call_global("ffi._PyClassLayout", args, 1 + n, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIArray);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(r.v_obj);
  CHECK_EQ_INT(cell->size, 1 + 3 * n);
  for (int64_t i = 0; i < cell->size; ++i) out[i] = ((TVMFFIAny*)cell->data)[i].v_int64;
  check_any_release(&r);
}

static int32_t define_native(int32_t* flag_type) {
  int64_t got[1 + 3 * N_NATIVE];
  layout_of(kTVMFFIObject, g_native_kinds, N_NATIVE, got);
  CHECK_EQ_INT(got[0], sizeof(native_t));
  for (int i = 0; i < N_NATIVE; ++i) CHECK_EQ_INT(got[1 + 3 * i], g_native_offsets[i]);
  int32_t t = alloc_type("pc.Native", kTVMFFIObject);
  for (int i = 0; i < N_NATIVE; ++i) {
    /* `count` converts floats to int (as Point.x); the others store values as they are */
    TVMFFIObjectHandle conv = i == 1 ? new_function(to_int) : NULL;
    add_kind_field(t, g_native_names[i], g_native_kinds[i], &got[1 + 3 * i], conv, 0, 0);
    if (conv != NULL) TVMFFIObjectDecRef(conv);
  }
  TVMFFIAny r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(t),
                      check_any_int(got[0]), none_any(), 2);
  check_any_release(&r);

  /* a child starts in its parent's tail padding, as a C++ derived class does */
  const int64_t one_bool = kTVMFFIBool, one_int = kTVMFFIInt;
  layout_of(kTVMFFIObject, &one_bool, 1, got);
  CHECK_EQ_INT(got[0], 32);
  CHECK_EQ_INT(got[1], 24);
  *flag_type = alloc_type("pc.Flag", kTVMFFIObject);
  add_kind_field(*flag_type, "f", one_bool, &got[1], NULL, 0, 0);
  r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(*flag_type), check_any_int(got[0]),
            none_any(), 2);
  check_any_release(&r);
  layout_of(*flag_type, &one_bool, 1, got);
  CHECK_EQ_INT(got[0], 32);
  CHECK_EQ_INT(got[1], 25);
  layout_of(*flag_type, &one_int, 1, got);
  CHECK_EQ_INT(got[0], 40);
  CHECK_EQ_INT(got[1], 32);
  layout_of(*flag_type, NULL, 0, got);
  CHECK_EQ_INT(got[0], 32); /* no fields: the parent's size */
  return t;
}

static TVMFFIAny pod_any(int32_t type_index) {
  TVMFFIAny a = none_any();
  a.type_index = type_index;
  return a;
}

static void test_native_fields(TVMFFIObjectHandle probe) {
  int32_t flag_type;
  int32_t t = define_native(&flag_type);
  TVMFFIAny r = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(t, "__ffi_new__")->v_obj, NULL, 0, &r));
  native_t* n = (native_t*)r.v_obj;
  /* unset fields are zero: 0, False, None */
  TVMFFIAny v = get_field(n, t, "flag");
  CHECK_EQ_INT(v.type_index, kTVMFFIBool);
  CHECK_EQ_INT(v.v_int64, 0);
  v = get_field(n, t, "obj");
  CHECK_EQ_INT(v.type_index, kTVMFFINone);
  v = get_field(n, t, "any");
  CHECK_EQ_INT(v.type_index, kTVMFFINone);

  CHECK_OK(set_field(n, t, "flag", check_any_int(1))); /* an int passes for a bool */
  CHECK_OK(set_field(n, t, "count", check_any_int(-5)));
  CHECK_OK(set_field(n, t, "ratio", check_any_int(3))); /* and for a float */
  TVMFFIAny p = pod_any(kTVMFFIOpaquePtr);
  p.v_ptr = &flag_type;
  CHECK_OK(set_field(n, t, "ptr", p));
  TVMFFIAny dt = pod_any(kTVMFFIDataType);
  dt.v_dtype.code = kDLFloat, dt.v_dtype.bits = 16, dt.v_dtype.lanes = 4;
  CHECK_OK(set_field(n, t, "dtype", dt));
  TVMFFIAny dev = pod_any(kTVMFFIDevice);
  dev.v_device.device_type = kDLCUDA, dev.v_device.device_id = 3;
  CHECK_OK(set_field(n, t, "device", dev));
  CHECK_OK(set_field(n, t, "any", check_any_obj(probe)));
  CHECK_OK(set_field(n, t, "obj", check_any_obj(probe)));
  TVMFFIAny yes = pod_any(kTVMFFIBool);
  yes.v_int64 = 1;
  CHECK_OK(set_field(n, t, "tail", yes));
  CHECK_EQ_INT(check_use_count(probe), 3);
  /* C reads what the setters stored, through the struct */
  CHECK_EQ_INT(n->flag, 1);
  CHECK_EQ_INT(n->count, -5);
  CHECK(n->ratio == 3.0);
  CHECK(n->ptr == &flag_type);
  CHECK_EQ_INT(n->dtype.bits, 16);
  CHECK_EQ_INT(n->dtype.lanes, 4);
  CHECK_EQ_INT(n->device.device_type, kDLCUDA);
  CHECK_EQ_INT(n->device.device_id, 3);
  CHECK(n->any.v_obj == probe && n->obj == probe);
  CHECK_EQ_INT(n->tail, 1);
  v = get_field(n, t, "ratio");
  CHECK_EQ_INT(v.type_index, kTVMFFIFloat);
  CHECK(v.v_float64 == 3.0);
  v = get_field(n, t, "device");
  CHECK_EQ_INT(v.type_index, kTVMFFIDevice);
  CHECK_EQ_INT(v.v_device.device_id, 3);
  v = get_field(n, t, "obj");
  CHECK(v.v_obj == probe);
  check_any_release(&v);

  /* a value the kind cannot hold is a TypeError and leaves the field alone */
  /* an int needs no conversion: the converter only sees other values */
  int calls = g_to_int_calls;
  CHECK_OK(set_field(n, t, "count", check_any_int(-5)));
  CHECK_EQ_INT(g_to_int_calls, calls);
  TVMFFIAny f = pod_any(kTVMFFIFloat);
  f.v_float64 = -5.5;
  CHECK_OK(set_field(n, t, "count", f));
  CHECK_EQ_INT(g_to_int_calls, calls + 1);
  CHECK_EQ_INT(n->count, -5);
  CHECK_RAISED(set_field(n, t, "count", check_any_cstr("seven")), "TypeError", "expects an int");
  CHECK_RAISED(set_field(n, t, "ratio", check_any_cstr("seven")), "TypeError", "`float`");
  CHECK_RAISED(set_field(n, t, "obj", check_any_int(1)), "TypeError", "Object");
  CHECK_RAISED(set_field(n, t, "dtype", check_any_int(1)), "TypeError", "DataType");
  CHECK_EQ_INT(n->count, -5);
  CHECK(n->obj == probe);
  {
    /* a setter whose plain type is pc.Flag stores its objects without converting */
    TVMFFIObjectHandle conv = new_function(to_int);
    TVMFFIAny targs[4] = {check_any_int(kTVMFFIObject), check_any_int(0), check_any_obj(conv),
                          check_any_int(flag_type)},
              typed = none_any();
    CHECK_OK(check_call_global("ffi.MakeFieldSetter", targs, 4, &typed));
    TVMFFIObjectDecRef(conv);
    TVMFFIAny flag = none_any(), sargs[2], sr = none_any();
    CHECK_OK(TVMFFIFunctionCall(attr_of(flag_type, "__ffi_new__")->v_obj, NULL, 0, &flag));
    sargs[0] = pod_any(kTVMFFIOpaquePtr);
    sargs[0].v_ptr = &n->obj;
    sargs[1] = flag;
    int before = g_to_int_calls;
    CHECK_OK(TVMFFIFunctionCall(typed.v_obj, sargs, 2, &sr));
    CHECK_EQ_INT(g_to_int_calls, before);
    CHECK(n->obj == flag.v_obj);
    sargs[1] = check_any_obj(probe); /* another type: the conversion decides (and refuses) */
    CHECK_RAISED(TVMFFIFunctionCall(typed.v_obj, sargs, 2, &sr), "TypeError", "expects an int");
    CHECK_EQ_INT(g_to_int_calls, before + 1);
    check_any_release(&flag);
    check_any_release(&typed);
  }
  /* a short string is boxed: the field holds a pointer */
  CHECK_OK(set_field(n, t, "obj", check_any_cstr("ab")));
  CHECK_EQ_INT(n->obj->type_index, kTVMFFIStr);
  CHECK_EQ_INT(check_use_count(probe), 2);
  CHECK_OK(set_field(n, t, "obj", check_any_obj(probe)));
  CHECK_OK(set_field(n, t, "ptr", none_any()));
  CHECK(n->ptr == NULL);

  /* the copy owns its values too; the deleter releases both objects' */
  TVMFFIAny arg = check_any_obj(n), copy = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(t, "__ffi_shallow_copy__")->v_obj, &arg, 1, &copy));
  native_t* c = (native_t*)copy.v_obj;
  CHECK_EQ_INT(check_use_count(probe), 5);
  CHECK_EQ_INT(c->count, -5);
  CHECK_EQ_INT(c->tail, 1);
  CHECK(c->obj == probe && c->any.v_obj == probe);
  check_any_release(&copy);
  check_any_release(&r);
  CHECK_EQ_INT(check_use_count(probe), 1);

  TVMFFIAny bad[2] = {check_any_int(kTVMFFIObject), check_any_int(7)};
  CHECK_RAISED(check_call_global("ffi._PyClassLayout", bad, 2, &r), "ValueError",
               "not a field kind");
  bad[0] = check_any_int(kTVMFFIInt);
  CHECK_RAISED(check_call_global("ffi._PyClassLayout", bad, 2, &r), "ValueError",
               "not a registered object type");
  CHECK_RAISED(check_call_global("ffi.MakeFieldGetter", &bad[1], 1, &r), "ValueError",
               "not a field kind");
  TVMFFIAny bad_plain[4] = {check_any_int(kTVMFFIAny), check_any_int(0), none_any(),
                            check_any_int(kTVMFFIInt)};
  CHECK_RAISED(check_call_global("ffi.MakeFieldSetter", bad_plain, 4, &r), "ValueError",
               "plain_type");
  TVMFFIAny small[2] = {check_any_int(flag_type), check_any_int(24)};
  CHECK_RAISED(check_call_global("ffi._PyClassRegisterTypeAttrColumns", small, 2, &r), "ValueError",
               "holds every field");
}

/* pc.Owned: a type laid out by C that owns a heap block reflection does not see
 * (`buf`, after the reflected `n`) and registers __ffi_construct_at__ and
 * __ffi_data_size__ as refl::ObjectDef does for a C++ class (docs/cpp.md §5):
 * the runtime constructs its part of a child's object in place, copies it with
 * its copy routine and frees `buf` through its deleter, once per object. */
typedef struct {
  TVMFFIObject header;
  int64_t n;
  char* buf;
} owned;
static int g_owned_destroyed = 0;

static void owned_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    free(((owned*)self)->buf);
    ++g_owned_destroyed;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int owned_construct_at(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  CHECK_EQ_INT(n, 2);
  owned* o = (owned*)args[0].v_ptr;
  const owned* src = args[1].type_index == kTVMFFINone ? NULL : (const owned*)args[1].v_obj;
  memset(&o->header, 0, sizeof(o->header));
  o->n = src ? src->n : 5;
  const char* text = src ? src->buf : "a block the destructor frees";
  o->buf = (char*)malloc(strlen(text) + 1);
  strcpy(o->buf, text);
  memset(result, 0, sizeof(*result));
  result->type_index = kTVMFFIOpaquePtr;
  result->v_ptr = (void*)(uintptr_t)owned_deleter;
  return 0;
}

static int owned_creator(TVMFFIObjectHandle* out) {
  owned* o = (owned*)calloc(1, sizeof(owned));
  TVMFFIAny args[2], r;
  memset(args, 0, sizeof(args));
  args[0].type_index = kTVMFFIOpaquePtr;
  args[0].v_ptr = o;
  owned_construct_at(NULL, args, 2, &r);
  o->header.combined_ref_count = (1ULL << 32) | 1; /* one strong, one weak unit */
  o->header.deleter = owned_deleter;
  *out = o;
  return 0;
}

static void test_c_parent_constructed_in_place(TVMFFIObjectHandle probe) {
  int32_t parent = alloc_type("pc.Owned", kTVMFFIObject);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)sizeof(owned);
  md.creator = owned_creator;
  CHECK_OK(TVMFFITypeRegisterMetadata(parent, &md));
  add_c_field(parent, "n", offsetof(owned, n), 8, kTVMFFIInt);
  TVMFFIObjectHandle construct = new_function(owned_construct_at);
  TVMFFIAny v = check_any_obj(construct);
  TVMFFIByteArray name = check_ba("__ffi_construct_at__");
  CHECK_OK(TVMFFITypeRegisterAttr(parent, &name, &v));
  TVMFFIObjectDecRef(construct);
  v = check_any_int((int64_t)sizeof(owned));
  name = check_ba("__ffi_data_size__");
  CHECK_OK(TVMFFITypeRegisterAttr(parent, &name, &v));

  /* the child's field goes after `buf`, which no field record names */
  int64_t place[4]; /* [total, offset, size, align] of the one field */
  int64_t kind = kTVMFFIAny;
  layout_of(parent, &kind, 1, place);
  CHECK_EQ_INT(place[1], (int64_t)sizeof(owned));
  int32_t child = alloc_type("pc.OwnedChild", parent);
  add_kind_field(child, "z", kTVMFFIAny, place + 1, NULL, 0, 0);
  TVMFFIAny r = call3("ffi._PyClassRegisterTypeAttrColumns", check_any_int(child),
                      check_any_int(place[0]), none_any(), 2);
  check_any_release(&r);

  r = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(child, "__ffi_new__")->v_obj, NULL, 0, &r));
  owned* o = (owned*)r.v_obj;
  CHECK(o->n == 5 && strcmp(o->buf, "a block the destructor frees") == 0);
  CHECK_EQ_INT(o->header.type_index, child);
  CHECK_OK(set_field(r.v_obj, child, "z", check_any_obj(probe)));
  CHECK_EQ_INT(check_use_count(probe), 2);

  TVMFFIAny arg = check_any_obj(r.v_obj), copy = none_any();
  CHECK_OK(TVMFFIFunctionCall(attr_of(child, "__ffi_shallow_copy__")->v_obj, &arg, 1, &copy));
  owned* c = (owned*)copy.v_obj;
  CHECK(c->buf != o->buf && strcmp(c->buf, o->buf) == 0); /* the copy routine's own block */
  CHECK_EQ_INT(check_use_count(probe), 3);
  check_any_release(&copy);
  CHECK_EQ_INT(g_owned_destroyed, 1);
  CHECK_EQ_INT(check_use_count(probe), 2);

  /* a weak reference: the strong release destroys (once), the weak one frees */
  __atomic_fetch_add(&o->header.combined_ref_count, 1ULL << 32, __ATOMIC_RELAXED);
  check_any_release(&r);
  CHECK_EQ_INT(g_owned_destroyed, 2);
  CHECK_EQ_INT(check_use_count(probe), 1);
  CHECK(o->header.combined_ref_count == 1ULL << 32); /* the block is still there */
  if (__atomic_fetch_sub(&o->header.combined_ref_count, 1ULL << 32, __ATOMIC_ACQ_REL) == 1ULL << 32)
    o->header.deleter(o, kTVMFFIObjectDeleterFlagBitMaskWeak);
  CHECK_EQ_INT(g_owned_destroyed, 2);
}

int main(void) {
  define_types();
  TVMFFIByteArray text = check_ba("a string held by fields");
  TVMFFIAny probe_any;
  CHECK_OK(TVMFFIStringFromByteArray(&text, &probe_any));
  CHECK_EQ_INT(probe_any.type_index, kTVMFFIStr);
  TVMFFIObjectHandle probe = probe_any.v_obj;
  test_make_and_fields(probe);
  test_generated_init_and_subtype(probe);
  test_c_parent(probe);
  test_errors();
  test_native_fields(probe);
  test_c_parent_constructed_in_place(probe);
  CHECK_EQ_INT(check_use_count(probe), 1);
  TVMFFIObjectDecRef(probe);
  CHECK_SLOT_CLEAN();
  printf("test_pyclass: ok\n");
  return 0;
}
