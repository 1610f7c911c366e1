/*
 * fixtures.c -- the table-driven reflected fixtures of python.md §20.3 that
 * objects.c does not hand-write: TestFrozenCxx, TestObjectPtrHolder,
 * TestNonCopyable, TestCompare / TestHash (CompareOff / HashOff fields),
 * TestCustomHash / TestCustomCompare / TestEqWithoutHash (__ffi_hash__,
 * __ffi_eq__, __ffi_compare__ hooks) and the private TestCxx* types the
 * dataclass tests use (ReprOff, InitOff, KwOnly, defaults, inheritance).
 *
 * Each type is a header followed by fields of a few kinds laid out at their
 * natural alignment after the parent's fields, so offsets and sizes are the
 * ones a C++ struct would have.  One creator, deleter and getter/setter pair
 * per kind serve every type.  A type's constructor is either the runtime's
 * generated one (ffi._RegisterFFIInit: keyword-capable, from the flags) or a
 * positional one taking every field in order, as C++ `refl::init<...>` types
 * have.
 */
#include <stddef.h>

#include "testing.h"

typedef enum { F_I64, F_I32, F_F64, F_F32, F_BOOL, F_STR, F_BASE, F_OPT_BASE } fkind;

#define W kTVMFFIFieldFlagBitMaskWritable
#define REPR_OFF kTVMFFIFieldFlagBitMaskReprOff
#define CMP_OFF kTVMFFIFieldFlagBitMaskCompareOff
#define HASH_OFF kTVMFFIFieldFlagBitMaskHashOff
#define INIT_OFF kTVMFFIFieldFlagBitMaskInitOff
#define KW_ONLY kTVMFFIFieldFlagBitMaskKwOnly

typedef struct {
  const char* name;
  fkind kind;
  int64_t flags; /* reflection flags besides HasDefault */
  int has_default;
  double def_num;      /* default of numeric and bool fields */
  const char* def_str; /* default of F_STR fields */
  int64_t initial;     /* what the creator stores (a C++ member initialiser) */
} fdesc;

enum { INIT_NONE, INIT_AUTO, INIT_POSITIONAL };

#define MAX_FIELDS 6

typedef struct {
  const char* key;
  const char* parent_key; /* NULL: ffi.Object */
  const char* doc;
  int creator;
  int init;
  fdesc fields[MAX_FIELDS];
} tspec;

/* A registered type: its spec and layout. */
typedef struct tdesc {
  const tspec* spec;
  const char* key;
  const fdesc* fields;
  int32_t index;
  int32_t nfields;
  int64_t offsets[MAX_FIELDS];
  int64_t size;
  const struct tdesc* parent;
  char init_sig[256];
} tdesc;

#define F(n, k, fl) {n, k, fl, 0, 0, NULL, 0}
#define FD(n, k, fl, d) {n, k, fl, 1, d, NULL, 0}
#define FS(n, fl, s) {n, F_STR, fl, 1, 0, s, 0}

static const tspec k_specs[] = {
    {"testing.TestFrozenCxx", NULL, "Object whose writable fields a frozen class hides.", 1,
     INIT_AUTO, {F("value", F_I64, W), F("tag", F_STR, W)}},
    {"testing.TestObjectPtrHolder", NULL, "Holds a required and an optional object.", 1,
     INIT_AUTO, {F("value", F_BASE, W), FD("optional_value", F_OPT_BASE, W, 0)}},
    {"testing.TestNonCopyable", NULL, "Object without creator or copy.", 0, INIT_POSITIONAL,
     {F("value", F_I64, 0)}},
    {"testing.TestCompare", NULL, "ignored_field is left out of comparisons.", 1,
     INIT_POSITIONAL,
     {F("key", F_I64, 0), F("name", F_STR, 0), F("ignored_field", F_I64, CMP_OFF)}},
    {"testing.TestHash", NULL, "hash_ignored is left out of hashing.", 1, INIT_POSITIONAL,
     {F("key", F_I64, 0), F("name", F_STR, 0), F("hash_ignored", F_I64, HASH_OFF)}},
    {"testing.TestCustomHash", NULL, "__ffi_hash__ hashes only key.", 1, INIT_POSITIONAL,
     {F("key", F_I64, 0), F("label", F_STR, 0)}},
    {"testing.TestCustomCompare", NULL, "__ffi_eq__ / __ffi_compare__ look only at key.", 1,
     INIT_POSITIONAL, {F("key", F_I64, 0), F("label", F_STR, 0)}},
    {"testing.TestEqWithoutHash", NULL, "__ffi_eq__ without __ffi_hash__.", 1, INIT_POSITIONAL,
     {F("key", F_I64, 0), F("label", F_STR, 0)}},
    {"testing.TestCxxClassBase", NULL, NULL, 1, INIT_AUTO,
     {F("v_i64", F_I64, W | REPR_OFF), F("v_i32", F_I32, W | REPR_OFF)}},
    {"testing.TestCxxClassDerived", "testing.TestCxxClassBase", NULL, 1, INIT_AUTO,
     {F("v_f64", F_F64, W), FD("v_f32", F_F32, W, 8.0)}},
    {"testing.TestCxxClassDerivedDerived", "testing.TestCxxClassDerived", NULL, 1, INIT_AUTO,
     {FS("v_str", W, "default"), F("v_bool", F_BOOL, W)}},
    {"testing.TestCxxInitSubset", NULL, NULL, 1, INIT_AUTO,
     {F("required_field", F_I64, W), FD("optional_field", F_I64, W | INIT_OFF, -1),
      FS("note", W | INIT_OFF, "default")}},
    {"testing.TestCxxKwOnly", NULL, NULL, 1, INIT_AUTO,
     {F("x", F_I64, W | KW_ONLY), F("y", F_I64, W | KW_ONLY), F("z", F_I64, W | KW_ONLY),
      FD("w", F_I64, W | KW_ONLY, 100)}},
    {"testing.TestCxxAutoInit", NULL, "b is InitOff, c is KwOnly.", 1, INIT_AUTO,
     {F("a", F_I64, W), FD("b", F_I64, W | INIT_OFF, 42), F("c", F_I64, W | KW_ONLY),
      FD("d", F_I64, W, 99)}},
    {"testing.TestCxxAutoInitSimple", NULL, NULL, 1, INIT_AUTO,
     {F("x", F_I64, W), F("y", F_I64, W)}},
    {"testing.TestCxxAutoInitAllInitOff", NULL, NULL, 1, INIT_AUTO,
     {FD("x", F_I64, W | INIT_OFF, 7), FD("y", F_I64, W | INIT_OFF, 9),
      {"z", F_I64, W | INIT_OFF, 0, 0, NULL, 1234}}},
    {"testing.TestCxxAutoInitKwOnlyDefaults", NULL, NULL, 1, INIT_AUTO,
     {F("p_required", F_I64, W), FD("p_default", F_I64, W, 11),
      F("k_required", F_I64, W | KW_ONLY), FD("k_default", F_I64, W | KW_ONLY, 22),
      FD("hidden", F_I64, W | INIT_OFF, 33)}},
    {"testing.TestCxxNoAutoInit", NULL, "No __ffi_init__.", 1, INIT_NONE,
     {F("x", F_I64, W), F("y", F_I64, W)}},
    {"testing.TestCxxAutoInitParent", NULL, NULL, 1, INIT_AUTO,
     {F("parent_required", F_I64, W), FD("parent_default", F_I64, W, 5)}},
    {"testing.TestCxxAutoInitChild", "testing.TestCxxAutoInitParent", NULL, 1, INIT_AUTO,
     {F("child_required", F_I64, W), F("child_kw_only", F_I64, W | KW_ONLY)}},
};
#define NUM_TYPES ((int)(sizeof(k_specs) / sizeof(k_specs[0])))
static tdesc g_types[NUM_TYPES];

static int32_t g_base_index = -1; /* testing.TestObjectBase: the F_BASE target */

static const tdesc* desc_of(int32_t type_index) {
  for (int i = 0; i < NUM_TYPES; ++i)
    if (g_types[i].index == type_index) return &g_types[i];
  return NULL;
}

/* ---- kinds --------------------------------------------------------------- */

static int64_t kind_size(fkind k) {
  switch (k) {
    case F_I32:
    case F_F32:
      return 4;
    case F_BOOL:
      return 1;
    case F_STR:
      return 16;
    default:
      return 8;
  }
}

static const char* kind_name(fkind k) {
  switch (k) {
    case F_I64:
    case F_I32:
      return "int";
    case F_F64:
    case F_F32:
      return "float";
    case F_BOOL:
      return "bool";
    case F_STR:
      return "ffi.String";
    case F_BASE:
      return "testing.TestObjectBase";
    default:
      return "Optional<testing.TestObjectBase>";
  }
}

static const char* kind_schema(fkind k) {
  switch (k) {
    case F_I64:
    case F_I32:
      return "{\\\"type\\\":\\\"int\\\"}";
    case F_F64:
    case F_F32:
      return "{\\\"type\\\":\\\"float\\\"}";
    case F_BOOL:
      return "{\\\"type\\\":\\\"bool\\\"}";
    case F_STR:
      return "{\\\"type\\\":\\\"ffi.String\\\"}";
    case F_BASE:
      return "{\\\"type\\\":\\\"testing.TestObjectBase\\\"}";
    default:
      return "{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":\\\"testing.TestObjectBase\\\"}]}";
  }
}

static int32_t kind_static_type(fkind k) {
  switch (k) {
    case F_I64:
    case F_I32:
      return kTVMFFIInt;
    case F_F64:
    case F_F32:
      return kTVMFFIFloat;
    case F_BOOL:
      return kTVMFFIBool;
    case F_STR:
      return kTVMFFIAny; /* Any-backed, as C++ String fields report */
    default:
      return kTVMFFIObject;
  }
}

static int is_base(const TVMFFIAny* v) {
  if (v->type_index < kTVMFFIStaticObjectBegin || g_base_index < 0) return 0;
  if (v->type_index == g_base_index) return 1;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(v->type_index);
  const TVMFFITypeInfo* base = TVMFFIGetTypeInfo(g_base_index);
  return info->type_depth > base->type_depth &&
         info->type_ancestors[base->type_depth]->type_index == g_base_index;
}

/* Whether a value converts to the kind (the C++ Any::cast rules). */
static int accepts(fkind k, const TVMFFIAny* v) {
  int32_t t = v->type_index;
  switch (k) {
    case F_I64:
    case F_I32:
    case F_BOOL:
      return t == kTVMFFIInt || t == kTVMFFIBool;
    case F_F64:
    case F_F32:
      return t == kTVMFFIFloat || t == kTVMFFIInt || t == kTVMFFIBool;
    case F_STR:
      return is_str(v);
    case F_BASE:
      return is_base(v);
    default:
      return t == kTVMFFINone || is_base(v);
  }
}

static int cannot_convert(fkind k, const TVMFFIAny* v) {
  char msg[256];
  snprintf(msg, sizeof(msg), "Cannot convert from type `%s` to `%s`", type_key_of(v),
           kind_name(k));
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return -1;
}

static double as_double(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIFloat ? v->v_float64 : (double)v->v_int64;
}

/* Stores v (already accepted) into the field; releases what it replaces. */
static int store(fkind k, void* addr, const TVMFFIAny* v) {
  switch (k) {
    case F_I64:
      *(int64_t*)addr = v->v_int64;
      return 0;
    case F_I32:
      *(int32_t*)addr = (int32_t)v->v_int64;
      return 0;
    case F_F64:
      *(double*)addr = as_double(v);
      return 0;
    case F_F32:
      *(float*)addr = (float)as_double(v);
      return 0;
    case F_BOOL:
      *(uint8_t*)addr = v->v_int64 != 0;
      return 0;
    case F_STR: {
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
    default: {
      TVMFFIObject* old = *(TVMFFIObject**)addr;
      TVMFFIObject* obj = v->type_index == kTVMFFINone ? NULL : v->v_obj;
      if (obj) TVMFFIObjectIncRef(obj);
      *(TVMFFIObject**)addr = obj;
      if (old) TVMFFIObjectDecRef(old);
      return 0;
    }
  }
}

static int load(fkind k, void* addr, TVMFFIAny* r) {
  r->zero_padding = 0;
  switch (k) {
    case F_I64:
      set_int(r, *(int64_t*)addr);
      return 0;
    case F_I32:
      set_int(r, *(int32_t*)addr);
      return 0;
    case F_F64:
    case F_F32:
      r->type_index = kTVMFFIFloat;
      r->v_float64 = k == F_F64 ? *(double*)addr : (double)*(float*)addr;
      return 0;
    case F_BOOL:
      set_bool(r, *(uint8_t*)addr);
      return 0;
    case F_STR:
      return TVMFFIAnyViewToOwnedAny((TVMFFIAny*)addr, r);
    default: {
      TVMFFIObject* obj = *(TVMFFIObject**)addr;
      if (obj == NULL) {
        set_none(r);
        return 0;
      }
      TVMFFIObjectIncRef(obj);
      r->type_index = obj->type_index;
      r->v_obj = obj;
      return 0;
    }
  }
}

/* One getter/setter pair per kind (field accessors only see the address). */
#define ACCESSORS(K)                                                    \
  static int get_##K(void* addr, TVMFFIAny* r) { return load(K, addr, r); } \
  static int set_##K(void* addr, const TVMFFIAny* v) {                  \
    return accepts(K, v) ? store(K, addr, v) : cannot_convert(K, v);    \
  }
ACCESSORS(F_I64)
ACCESSORS(F_I32)
ACCESSORS(F_F64)
ACCESSORS(F_F32)
ACCESSORS(F_BOOL)
ACCESSORS(F_STR)
ACCESSORS(F_BASE)
ACCESSORS(F_OPT_BASE)

static const TVMFFIFieldGetter k_getters[] = {get_F_I64,  get_F_I32, get_F_F64,  get_F_F32,
                                              get_F_BOOL, get_F_STR, get_F_BASE, get_F_OPT_BASE};
static const TVMFFIFieldSetter k_setters[] = {set_F_I64,  set_F_I32, set_F_F64,  set_F_F32,
                                              set_F_BOOL, set_F_STR, set_F_BASE, set_F_OPT_BASE};

/* ---- creator and deleter ------------------------------------------------- */

static void fixture_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    for (const tdesc* d = desc_of(o->type_index); d != NULL; d = d->parent) {
      for (int32_t i = 0; i < d->nfields; ++i) {
        char* addr = (char*)o + d->offsets[i];
        fkind k = d->fields[i].kind;
        if (k == F_STR) release((TVMFFIAny*)addr);
        if ((k == F_BASE || k == F_OPT_BASE) && *(TVMFFIObject**)addr != NULL) {
          TVMFFIObjectDecRef(*(TVMFFIObject**)addr);
          *(TVMFFIObject**)addr = NULL;
        }
      }
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* A zeroed object with the member initialisers applied: numbers take
 * `initial`, strings are empty, object fields NULL. */
static TVMFFIObject* new_object(const tdesc* d) {
  TVMFFIObject* o = (TVMFFIObject*)calloc(1, (size_t)d->size);
  if (o == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return NULL;
  }
  o->combined_ref_count = UINT64_C(0x100000001);
  o->type_index = d->index;
  o->deleter = fixture_deleter;
  for (const tdesc* p = d; p != NULL; p = p->parent) {
    for (int32_t i = 0; i < p->nfields; ++i) {
      char* addr = (char*)o + p->offsets[i];
      const fdesc* f = &p->fields[i];
      if (f->kind == F_STR) {
        ((TVMFFIAny*)addr)->type_index = kTVMFFISmallStr; /* "" */
      } else if (f->initial != 0) {
        TVMFFIAny v;
        set_int(&v, f->initial);
        store(f->kind, addr, &v);
      }
    }
  }
  return o;
}

/* Creators receive no context: one per type, dispatching on its slot. */
#define CREATOR(i)                                            \
  static int create_##i(TVMFFIObjectHandle* out) {            \
    TVMFFIObject* o = new_object(&g_types[i]);                \
    if (o == NULL) return -1;                                 \
    *out = o;                                                 \
    return 0;                                                 \
  }
CREATOR(0) CREATOR(1) CREATOR(2) CREATOR(3) CREATOR(4) CREATOR(5) CREATOR(6) CREATOR(7)
CREATOR(8) CREATOR(9) CREATOR(10) CREATOR(11) CREATOR(12) CREATOR(13) CREATOR(14) CREATOR(15)
CREATOR(16) CREATOR(17) CREATOR(18) CREATOR(19)
static const TVMFFIObjectCreator k_creators[] = {
    create_0,  create_1,  create_2,  create_3,  create_4,  create_5,  create_6,
    create_7,  create_8,  create_9,  create_10, create_11, create_12, create_13,
    create_14, create_15, create_16, create_17, create_18, create_19};
_Static_assert(sizeof(k_creators) / sizeof(k_creators[0]) == sizeof(k_specs) / sizeof(k_specs[0]),
               "one creator per fixture type");

/* ---- positional constructor (C++ refl::init<Fields...>) ------------------ */

static int positional_init(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const tdesc* d = (const tdesc*)self;
  if (arg_count(d->init_sig, n, d->nfields) != 0) return -1;
  for (int32_t i = 0; i < n; ++i)
    if (!accepts(d->fields[i].kind, &args[i]))
      return arg_mismatch(d->init_sig, i, kind_name(d->fields[i].kind), &args[i]);
  TVMFFIObject* o = new_object(d);
  if (o == NULL) return -1;
  for (int32_t i = 0; i < n; ++i) {
    if (store(d->fields[i].kind, (char*)o + d->offsets[i], &args[i]) != 0) {
      TVMFFIObjectDecRef(o);
      return -1;
    }
  }
  r->type_index = o->type_index;
  r->zero_padding = 0;
  r->v_obj = o;
  return 0;
}

/* ---- comparison hooks: they look at `key` only ------------------------------ */

/* Calls f on the keys of the objects; the result is f's. */
static int call_on_keys(const char* sig, const TVMFFIAny* args, int32_t n, int32_t nobj,
                        TVMFFIAny* r) {
  if (arg_count(sig, n, nobj + 1) != 0) return -1;
  TVMFFIAny keys[2];
  for (int32_t i = 0; i < nobj; ++i) {
    const tdesc* d = args[i].type_index >= kTVMFFIStaticObjectBegin
                         ? desc_of(args[i].type_index)
                         : NULL;
    if (d == NULL || strcmp(d->fields[0].name, "key") != 0)
      return arg_mismatch(sig, i, "ffi.Object", &args[i]);
    set_int(&keys[i], *(int64_t*)((char*)args[i].v_obj + d->offsets[0]));
  }
  if (args[nobj].type_index != kTVMFFIFunction)
    return arg_mismatch(sig, nobj, "ffi.Function", &args[nobj]);
  set_none(r);
  return TVMFFIFunctionCall(args[nobj].v_obj, keys, nobj, r);
}

static int hook_hash(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const tdesc* d = (const tdesc*)self;
  char sig[160];
  snprintf(sig, sizeof(sig), "%s.__ffi_hash__(0: ffi.Object, 1: ffi.Function) -> int", d->key);
  return call_on_keys(sig, args, n, 1, r);
}

static int hook_eq(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const tdesc* d = (const tdesc*)self;
  char sig[192];
  snprintf(sig, sizeof(sig),
           "%s.__ffi_eq__(0: ffi.Object, 1: ffi.Object, 2: ffi.Function) -> bool", d->key);
  return call_on_keys(sig, args, n, 2, r);
}

static int hook_compare(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const tdesc* d = (const tdesc*)self;
  char sig[192];
  snprintf(sig, sizeof(sig),
           "%s.__ffi_compare__(0: ffi.Object, 1: ffi.Object, 2: ffi.Function) -> int", d->key);
  return call_on_keys(sig, args, n, 2, r);
}

/* ---- registration ---------------------------------------------------------- */

static void register_attr_fn(int32_t tindex, const char* name, TVMFFISafeCallType fn,
                             void* self) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(self, fn, NULL, &f) != 0) return;
  TVMFFIAny v;
  v.type_index = kTVMFFIFunction;
  v.zero_padding = 0;
  v.v_obj = (TVMFFIObject*)f;
  TVMFFIByteArray n = ba(name);
  TVMFFITypeRegisterAttr(tindex, &n, &v);
  TVMFFIObjectDecRef(f);
}

static void register_field(tdesc* d, int32_t i) {
  const fdesc* s = &d->fields[i];
  char meta[192];
  snprintf(meta, sizeof(meta), "{\"type_schema\":\"%s\"}", kind_schema(s->kind));
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = ba(s->name);
  f.metadata = ba(meta);
  f.flags = s->flags;
  f.size = kind_size(s->kind);
  f.alignment = f.size > 8 ? 8 : f.size;
  f.offset = d->offsets[i];
  f.getter = k_getters[s->kind];
  f.setter = (void*)k_setters[s->kind];
  f.field_static_type_index = kind_static_type(s->kind);
  set_none(&f.default_value_or_factory);
  if (s->has_default) {
    f.flags |= kTVMFFIFieldFlagBitMaskHasDefault;
    TVMFFIAny* dv = &f.default_value_or_factory;
    if (s->kind == F_STR) {
      TVMFFIByteArray b = ba(s->def_str);
      if (TVMFFIStringFromByteArray(&b, dv) != 0) return;
    } else if (s->kind == F_F64 || s->kind == F_F32) {
      dv->type_index = kTVMFFIFloat;
      dv->v_float64 = s->def_num;
    } else if (s->kind == F_BOOL) {
      set_bool(dv, s->def_num != 0);
    } else if (s->kind == F_I64 || s->kind == F_I32) {
      set_int(dv, (int64_t)s->def_num);
    } /* object kinds: the default is None */
  }
  TVMFFITypeRegisterField(d->index, &f);
  release(&f.default_value_or_factory); /* the runtime keeps its own reference */
}

/* The signature typed constructors show in their messages. */
static void build_init_sig(tdesc* d) {
  size_t k = (size_t)snprintf(d->init_sig, sizeof(d->init_sig), "%s.__ffi_init__(", d->key);
  for (int32_t i = 0; i < d->nfields && k < sizeof(d->init_sig); ++i)
    k += (size_t)snprintf(d->init_sig + k, sizeof(d->init_sig) - k, "%s%d: %s", i ? ", " : "",
                          (int)i, kind_name(d->fields[i].kind));
  if (k < sizeof(d->init_sig))
    snprintf(d->init_sig + k, sizeof(d->init_sig) - k, ") -> ffi.Object");
}

static void register_positional_init(tdesc* d) {
  char schema[512];
  size_t k = (size_t)snprintf(schema, sizeof(schema),
                              "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"%s\"}", d->key);
  for (int32_t i = 0; i < d->nfields && k < sizeof(schema); ++i)
    k += (size_t)snprintf(schema + k, sizeof(schema) - k, ",{\"type\":\"%s\"}",
                          d->fields[i].kind == F_STR ? "ffi.String" : kind_name(d->fields[i].kind));
  if (k < sizeof(schema)) snprintf(schema + k, sizeof(schema) - k, "]}");
  tt_add_method(d->index, "__ffi_init__", "Constructs from every field, in order.", 1,
                positional_init, (void*)d, schema);
}

static void call_register_ffi_init(int32_t tindex) {
  TVMFFIAny arg, r;
  set_int(&arg, tindex);
  if (call_global("ffi._RegisterFFIInit", &arg, 1, &r) == 0) release(&r);
}

static void register_type(tdesc* d, int idx) {
  const tspec* sp = &k_specs[idx];
  int32_t parent = kTVMFFIObject;
  d->spec = sp;
  d->key = sp->key;
  d->fields = sp->fields;
  d->parent = NULL;
  d->size = sizeof(TVMFFIObject);
  if (sp->parent_key != NULL) {
    const tdesc* p = NULL;
    for (int j = 0; j < idx; ++j)
      if (strcmp(g_types[j].key, sp->parent_key) == 0) p = &g_types[j];
    if (p == NULL || p->index < 0) return;
    d->parent = p;
    parent = p->index;
    d->size = p->size;
  }
  TVMFFIByteArray key = ba(d->key);
  int32_t depth = TVMFFIGetTypeInfo(parent)->type_depth + 1;
  d->index = TVMFFITypeGetOrAllocIndex(&key, -1, depth, 0, 1, parent);
  d->nfields = 0;
  while (d->nfields < MAX_FIELDS && d->fields[d->nfields].name != NULL) {
    int64_t sz = kind_size(d->fields[d->nfields].kind), al = sz > 8 ? 8 : sz;
    d->size = (d->size + al - 1) / al * al;
    d->offsets[d->nfields++] = d->size;
    d->size += sz;
  }
  d->size = (d->size + 7) / 8 * 8;
  build_init_sig(d);
  /* Another copy of this library registered the reflection already. */
  if (TVMFFIGetTypeInfo(d->index)->metadata != NULL) return;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc = ba(sp->doc);
  md.creator = sp->creator ? k_creators[idx] : NULL;
  md.total_size = (int32_t)d->size;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVMFFITypeRegisterMetadata(d->index, &md);
  for (int32_t i = 0; i < d->nfields; ++i) register_field(d, i);
  if (sp->init == INIT_AUTO) call_register_ffi_init(d->index);
  if (sp->init == INIT_POSITIONAL) register_positional_init(d);
  if (strcmp(d->key, "testing.TestCustomHash") == 0 ||
      strcmp(d->key, "testing.TestCustomCompare") == 0)
    register_attr_fn(d->index, "__ffi_hash__", hook_hash, d);
  if (strcmp(d->key, "testing.TestCustomCompare") == 0 ||
      strcmp(d->key, "testing.TestEqWithoutHash") == 0)
    register_attr_fn(d->index, "__ffi_eq__", hook_eq, d);
  if (strcmp(d->key, "testing.TestCustomCompare") == 0)
    register_attr_fn(d->index, "__ffi_compare__", hook_compare, d);
}

void tvmffi_testing__fixtures_init(void) {
  TVMFFIByteArray base = ba("testing.TestObjectBase");
  if (TVMFFITypeKeyToIndex(&base, &g_base_index) != 0) g_base_index = -1;
  for (int i = 0; i < NUM_TYPES; ++i) g_types[i].index = -1;
  for (int i = 0; i < NUM_TYPES; ++i) register_type(&g_types[i], i);
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    fprintf(stderr, "libtvm_ffi_testing: registering fixture types: %s\n",
            TVMFFIErrorGetCellPtr(err)->message.data);
    TVMFFIObjectDecRef(err);
  }
}
