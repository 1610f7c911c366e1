/*
 * objects.c -- reflected object fixtures of the testing library (docs/python.md
 * §20.3), built with the C reflection API: testing.TestIntPair (read-only a,
 * b; sum(); __ffi_init__) with the global testing.TestIntPairSum, and
 * testing.TestObjectBase / testing.TestObjectDerived (fields with defaults,
 * a creator for reflection-driven construction, add_i64()).
 */
#include "testing.h"

typedef struct {
  TVMFFIObject header;
  int64_t a; /* +24 */
  int64_t b; /* +32 */
} int_pair;

typedef struct {
  TVMFFIObject header;
  int64_t v_i64;   /* +24, default 10 */
  double v_f64;    /* +32, read-only, default 10.0 */
  TVMFFIAny v_str; /* +40, owned String, default "hello" */
} obj_base;

typedef struct {
  obj_base base;
  TVMFFIAny v_map;   /* +56, owned ffi.Map, required */
  TVMFFIAny v_array; /* +72, owned ffi.Array, required */
} obj_derived;

static int32_t g_pair_index = -1, g_base_index = -1, g_derived_index = -1;

/* ---- allocation ------------------------------------------------------------ */

static void pair_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static void obj_deleter(void* self, int flags) {
  obj_base* o = (obj_base*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    release(&o->v_str);
    if (o->header.type_index == g_derived_index) {
      release(&((obj_derived*)o)->v_map);
      release(&((obj_derived*)o)->v_array);
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static TVMFFIObject* alloc_obj(size_t size, int32_t tindex, void (*deleter)(void*, int)) {
  TVMFFIObject* o = (TVMFFIObject*)calloc(1, size);
  if (o == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return NULL;
  }
  o->combined_ref_count = UINT64_C(0x100000001);
  o->type_index = tindex;
  o->deleter = deleter;
  return o;
}

/* Creator (TVMFFITypeMetadata.creator): an instance with field defaults. */
static int create_obj(int32_t tindex, size_t size, TVMFFIObjectHandle* out) {
  obj_base* o = (obj_base*)alloc_obj(size, tindex, obj_deleter);
  if (o == NULL) return -1;
  o->v_i64 = 10;
  o->v_f64 = 10.0;
  TVMFFIByteArray hello = ba("hello");
  if (TVMFFIStringFromByteArray(&hello, &o->v_str) != 0) {
    free(o);
    return -1;
  }
  *out = o;
  return 0;
}
/* TestIntPair's creator: a = b = 0 (MakeObjectFromPackedArgs sets both). */
static int create_pair(TVMFFIObjectHandle* out) {
  TVMFFIObject* o = alloc_obj(sizeof(int_pair), g_pair_index, pair_deleter);
  if (o == NULL) return -1;
  *out = o;
  return 0;
}
static int create_base(TVMFFIObjectHandle* out) {
  return create_obj(g_base_index, sizeof(obj_base), out);
}
static int create_derived(TVMFFIObjectHandle* out) {
  return create_obj(g_derived_index, sizeof(obj_derived), out);
}

/* __ffi_shallow_copy__ (the C++ copy constructor): a new object of the
 * argument's own type sharing every field value (owned Anys get a new ref).
 * Each type's hook (its index in h) copies objects of exactly that type: the
 * size and the owned fields come from the type, so another object would be
 * read past its end. */
static int shallow_copy(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  int32_t t = (int32_t)(intptr_t)h;
  static const char sig[] = "testing.__ffi_shallow_copy__(0: Object) -> Object";
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != t)
    return arg_mismatch(sig, 0,
                        t == g_pair_index      ? "testing.TestIntPair"
                        : t == g_derived_index ? "testing.TestObjectDerived"
                                               : "testing.TestObjectBase",
                        &args[0]);
  TVMFFIObject* src = args[0].v_obj;
  size_t size = t == g_pair_index      ? sizeof(int_pair)
                : t == g_derived_index ? sizeof(obj_derived)
                                       : sizeof(obj_base);
  TVMFFIObject* dst = alloc_obj(size, t, t == g_pair_index ? pair_deleter : obj_deleter);
  if (dst == NULL) return -1;
  memcpy((char*)dst + sizeof(TVMFFIObject), (char*)src + sizeof(TVMFFIObject),
         size - sizeof(TVMFFIObject));
  if (t != g_pair_index) { /* the copied Anys now have two owners */
    TVMFFIAny* owned[3] = {&((obj_base*)dst)->v_str, NULL, NULL};
    if (t == g_derived_index) {
      owned[1] = &((obj_derived*)dst)->v_map;
      owned[2] = &((obj_derived*)dst)->v_array;
    }
    for (int i = 0; i < 3; ++i)
      if (owned[i] != NULL && owned[i]->type_index >= kTVMFFIStaticObjectBegin)
        TVMFFIObjectIncRef(owned[i]->v_obj);
  }
  r->type_index = t;
  r->zero_padding = 0;
  r->v_obj = dst;
  return 0;
}

static void register_shallow_copy(int32_t tindex) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)tindex, shallow_copy, NULL, &f) != 0) return;
  TVMFFIAny v;
  v.type_index = kTVMFFIFunction;
  v.zero_padding = 0;
  v.v_obj = (TVMFFIObject*)f;
  TVMFFIByteArray name = ba("__ffi_shallow_copy__");
  TVMFFITypeRegisterAttr(tindex, &name, &v);
  TVMFFIObjectDecRef(f);
}

/* ---- field accessors -------------------------------------------------------- */

static int get_i64(void* addr, TVMFFIAny* r) {
  set_int(r, *(int64_t*)addr);
  return 0;
}
static int set_i64(void* addr, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIInt && v->type_index != kTVMFFIBool) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected `int` for an int field");
    return -1;
  }
  *(int64_t*)addr = v->v_int64;
  return 0;
}
static int get_f64(void* addr, TVMFFIAny* r) {
  r->type_index = kTVMFFIFloat;
  r->zero_padding = 0;
  r->v_float64 = *(double*)addr;
  return 0;
}
static int set_f64(void* addr, const TVMFFIAny* v) {
  if (v->type_index == kTVMFFIFloat) {
    *(double*)addr = v->v_float64;
  } else if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    *(double*)addr = (double)v->v_int64;
  } else {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected `float` for a float field");
    return -1;
  }
  return 0;
}
static int get_any(void* addr, TVMFFIAny* r) {
  return TVMFFIAnyViewToOwnedAny((TVMFFIAny*)addr, r);
}

/* Replaces the owned Any at addr with an owned copy of v. */
static int store_any(void* addr, const TVMFFIAny* v) {
  TVMFFIAny owned;
  int rc;
  if (v->type_index == kTVMFFIRawStr) {
    TVMFFIByteArray b = ba(v->v_c_str);
    rc = TVMFFIStringFromByteArray(&b, &owned);
  } else {
    rc = TVMFFIAnyViewToOwnedAny(v, &owned);
  }
  if (rc != 0) return -1;
  release((TVMFFIAny*)addr);
  *(TVMFFIAny*)addr = owned;
  return 0;
}
static int set_str(void* addr, const TVMFFIAny* v) {
  if (!is_str(v)) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected `str` for field v_str");
    return -1;
  }
  return store_any(addr, v);
}
static int set_map(void* addr, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIMap) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected `ffi.Map` for field v_map");
    return -1;
  }
  return store_any(addr, v);
}
static int set_array(void* addr, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIArray) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "expected `ffi.Array` for field v_array");
    return -1;
  }
  return store_any(addr, v);
}

/* ---- methods and globals ------------------------------------------------------ */

static int self_of(const char* sig, const TVMFFIAny* args, int32_t n, int32_t want, int32_t tindex,
                   const char* key, TVMFFIObject** out) {
  if (arg_count(sig, n, want) != 0) return -1;
  int32_t t = args[0].type_index;
  if (!is_instance_of(t, tindex)) return arg_mismatch(sig, 0, key, &args[0]);
  *out = args[0].v_obj;
  return 0;
}

static int pair_sum(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  TVMFFIObject* o = NULL;
  (void)h;
  if (self_of("testing.TestIntPair.sum(0: self) -> int", args, n, 1, g_pair_index,
              "testing.TestIntPair", &o) != 0)
    return -1;
  set_int(r, ((int_pair*)o)->a + ((int_pair*)o)->b);
  return 0;
}

static int pair_sum_global(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  TVMFFIObject* o = NULL;
  (void)h;
  if (self_of("testing.TestIntPairSum(0: testing.TestIntPair) -> int", args, n, 1, g_pair_index,
              "testing.TestIntPair", &o) != 0)
    return -1;
  set_int(r, ((int_pair*)o)->a + ((int_pair*)o)->b);
  return 0;
}

static int pair_init(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig =
      "testing.TestIntPair.__ffi_init__(0: int, 1: int) -> testing.TestIntPair";
  (void)h;
  if (arg_count(sig, n, 2) != 0) return -1;
  for (int i = 0; i < 2; ++i)
    if (args[i].type_index != kTVMFFIInt && args[i].type_index != kTVMFFIBool)
      return arg_mismatch(sig, i, "int", &args[i]);
  int_pair* p = (int_pair*)alloc_obj(sizeof(int_pair), g_pair_index, pair_deleter);
  if (p == NULL) return -1;
  p->a = args[0].v_int64;
  p->b = args[1].v_int64;
  r->type_index = g_pair_index;
  r->zero_padding = 0;
  r->v_obj = &p->header;
  return 0;
}

static int base_add_i64(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing.TestObjectBase.add_i64(0: self, 1: int) -> int";
  TVMFFIObject* o = NULL;
  (void)h;
  if (self_of(sig, args, n, 2, g_base_index, "testing.TestObjectBase", &o) != 0) return -1;
  if (args[1].type_index != kTVMFFIInt && args[1].type_index != kTVMFFIBool)
    return arg_mismatch(sig, 1, "int", &args[1]);
  set_int(r, ((obj_base*)o)->v_i64 + args[1].v_int64);
  return 0;
}

/* ---- registration ---------------------------------------------------------------- */

typedef struct {
  const char* name;
  const char* doc;
  const char* type; /* type_schema type key */
  int64_t offset, size;
  int writable;
  TVMFFIFieldGetter getter;
  TVMFFIFieldSetter setter;
  int32_t static_type;
  TVMFFIAny def; /* kTVMFFIAny marks "no default" */
} field_spec;

static void add_field(int32_t tindex, const field_spec* s) {
  char meta[128];
  snprintf(meta, sizeof(meta), "{\"type_schema\":\"{\\\"type\\\":\\\"%s\\\"}\"}", s->type);
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = ba(s->name);
  f.doc = ba(s->doc);
  f.metadata = ba(meta);
  f.flags = s->writable ? kTVMFFIFieldFlagBitMaskWritable : 0;
  f.size = s->size;
  f.alignment = 8;
  f.offset = s->offset;
  f.getter = s->getter;
  f.setter = (void*)s->setter;
  f.field_static_type_index = s->static_type;
  if (s->def.type_index != kTVMFFIAny) {
    f.flags |= kTVMFFIFieldFlagBitMaskHasDefault;
    f.default_value_or_factory = s->def;
  }
  TVMFFITypeRegisterField(tindex, &f);
}

void tt_add_method(int32_t tindex, const char* name, const char* doc, int is_static,
                   TVMFFISafeCallType fn, void* self, const char* schema) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(self, fn, NULL, &f) != 0) return;
  char meta[512];
  size_t k = (size_t)snprintf(meta, sizeof(meta), "{\"type_schema\":\"");
  for (const char* p = schema; *p && k + 4 < sizeof(meta); ++p) {
    if (*p == '"') meta[k++] = '\\';
    meta[k++] = *p;
  }
  memcpy(meta + k, "\"}", 3);
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name = ba(name);
  m.doc = ba(doc);
  m.metadata = ba(meta);
  m.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  m.method.type_index = kTVMFFIFunction;
  m.method.v_obj = (TVMFFIObject*)f;
  TVMFFITypeRegisterMethod(tindex, &m);
  if (strcmp(name, "__ffi_init__") == 0) {
    TVMFFIByteArray attr = ba("__ffi_init__");
    TVMFFITypeRegisterAttr(tindex, &attr, &m.method);
  }
  TVMFFIObjectDecRef(f);
}

static TVMFFIAny no_default(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFIAny;
  return v;
}

static int32_t alloc_type(const char* key, int32_t depth, int32_t parent) {
  TVMFFIByteArray k = ba(key);
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, 0, 1, parent);
}

static void set_metadata(int32_t tindex, const char* doc, TVMFFIObjectCreator creator,
                         size_t size) {
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc = ba(doc);
  md.creator = creator;
  md.total_size = (int32_t)size;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVMFFITypeRegisterMetadata(tindex, &md);
  /* TestObjectBase has a subclass; the other two are final in C++. */
  tt_set_final(tindex, tindex != g_base_index);
}

#define FN_SCHEMA(ret, params)                                              \
  "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"" ret \
  "\"}],\"params\":[" params "]}}"

void tvmffi_testing__objects_init(void) {
  g_pair_index = alloc_type("testing.TestIntPair", 1, kTVMFFIObject);
  g_base_index = alloc_type("testing.TestObjectBase", 1, kTVMFFIObject);
  g_derived_index = alloc_type("testing.TestObjectDerived", 2, g_base_index);
  if (TVMFFIGetTypeInfo(g_pair_index)->metadata == NULL) {
    set_metadata(g_pair_index, "A pair of integers.", create_pair, sizeof(int_pair));
    TVMFFIAny nd = no_default();
    field_spec a = {"a",     "Field `a`", "int", offsetof(int_pair, a), 8, 0, get_i64,
                    set_i64, kTVMFFIInt,  nd};
    field_spec b = {"b",     "Field `b`", "int", offsetof(int_pair, b), 8, 0, get_i64,
                    set_i64, kTVMFFIInt,  nd};
    add_field(g_pair_index, &a);
    add_field(g_pair_index, &b);
    tt_add_method(g_pair_index, "__ffi_init__", "Constructs from a and b.", 1, pair_init, NULL,
                  FN_SCHEMA("testing.TestIntPair", "{\"type\":\"int\"},{\"type\":\"int\"}"));
    tt_add_method(g_pair_index, "sum", "Method to compute sum of a and b", 0, pair_sum, NULL,
                  FN_SCHEMA("int", ""));
    register_shallow_copy(g_pair_index); /* copyable, as upstream's */
    tt_def_convert(g_pair_index);
  }
  if (TVMFFIGetTypeInfo(g_base_index)->metadata == NULL) {
    set_metadata(g_base_index, "Object with defaulted fields.", create_base, sizeof(obj_base));
    TVMFFIAny d_i64, d_f64, d_str, nd = no_default();
    set_int(&d_i64, 10);
    d_f64.type_index = kTVMFFIFloat;
    d_f64.zero_padding = 0;
    d_f64.v_float64 = 10.0;
    TVMFFIByteArray hello = ba("hello");
    TVMFFIStringFromByteArray(&hello, &d_str); /* 5 bytes: a small string, nothing owned */
    field_spec fs[3] = {
        {"v_i64", "i64 field", "int", offsetof(obj_base, v_i64), 8, 1, get_i64, set_i64, kTVMFFIInt,
         d_i64},
        {"v_f64", "", "float", offsetof(obj_base, v_f64), 8, 0, get_f64, set_f64, kTVMFFIFloat,
         d_f64},
        {"v_str", "", "ffi.String", offsetof(obj_base, v_str), 16, 1, get_any, set_str, kTVMFFIStr,
         d_str},
    };
    for (int i = 0; i < 3; ++i) add_field(g_base_index, &fs[i]);
    tt_add_method(g_base_index, "add_i64", "add_i64 method", 0, base_add_i64, NULL,
                  FN_SCHEMA("int", "{\"type\":\"int\"}"));
    set_metadata(g_derived_index, "Derived object with required container fields.", create_derived,
                 sizeof(obj_derived));
    field_spec ds[2] = {
        {"v_map", "", "ffi.Map", offsetof(obj_derived, v_map), 16, 1, get_any, set_map, kTVMFFIMap,
         nd},
        {"v_array", "", "ffi.Array", offsetof(obj_derived, v_array), 16, 1, get_any, set_array,
         kTVMFFIArray, nd},
    };
    for (int i = 0; i < 2; ++i) add_field(g_derived_index, &ds[i]);
    register_shallow_copy(g_base_index);
    register_shallow_copy(g_derived_index);
    /* Keyword-capable constructors generated from the fields, as C++
     * ObjectDef does for types without an explicit refl::init. */
    TVMFFIAny idx, r;
    set_int(&idx, g_base_index);
    if (call_global("ffi._RegisterFFIInit", &idx, 1, &r) == 0) release(&r);
    set_int(&idx, g_derived_index);
    if (call_global("ffi._RegisterFFIInit", &idx, 1, &r) == 0) release(&r);
  }
  tt_reg("testing.TestIntPairSum", pair_sum_global, NULL, "pair.a + pair.b",
         FN_SCHEMA("int", "{\"type\":\"testing.TestIntPair\"}"));
  /* Registration problems are reported, never left in the loading thread. */
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    fprintf(stderr, "libtvm_ffi_testing: registering object fixtures: %s\n",
            TVMFFIErrorGetCellPtr(err)->message.data);
    TVMFFIObjectDecRef(err);
  }
}
