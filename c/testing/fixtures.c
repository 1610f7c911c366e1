/*
 * fixtures.c -- the table-driven reflected fixtures of docs/python.md §20.3 that
 * objects.c does not hand-write: TestFrozenCxx, TestObjectPtrHolder,
 * TestNonCopyable, TestCompare / TestHash (CompareOff / HashOff fields),
 * TestCustomHash / TestCustomCompare / TestEqWithoutHash (__ffi_hash__,
 * __ffi_eq__, __ffi_compare__ hooks) and the private TestCxx* types the
 * dataclass tests use (ReprOff, InitOff, KwOnly, defaults, inheritance), and
 * TestDeepCopyEdges (an Any and a nullable ObjectRef field), and the structural
 * traversal fixtures TestVisitRegions (fields flagged as simple / pattern definition
 * regions) and TestVisitHook (a __s_visit__ hook visiting its child in a simple region)
 * behind testing.make_visit_region_graph.
 *
 * Each type is a header followed by fields of a few kinds laid out at their
 * natural alignment after the parent's fields, so offsets and sizes are the
 * ones a C++ struct would have.  One creator, deleter and getter/setter pair
 * per kind serve every type.  A type's constructor is either the runtime's
 * generated one (ffi._RegisterFFIInit: keyword-capable, from the flags) or a
 * positional one taking every field in order, as C++ `refl::init<...>` types
 * have.  testing.SchemaAllTypes, whose fields are typed containers, has its
 * own section below.
 */
#include <stddef.h>
#include <tvm/ffi/extra/c_container.h>

#include "testing.h"

typedef enum { F_I64, F_I32, F_F64, F_F32, F_BOOL, F_STR, F_BASE, F_OPT_BASE, F_ANY, F_OBJ } fkind;

#define W kTVMFFIFieldFlagBitMaskWritable
#define REPR_OFF kTVMFFIFieldFlagBitMaskReprOff
#define CMP_OFF kTVMFFIFieldFlagBitMaskCompareOff
#define HASH_OFF kTVMFFIFieldFlagBitMaskHashOff
#define INIT_OFF kTVMFFIFieldFlagBitMaskInitOff
#define KW_ONLY kTVMFFIFieldFlagBitMaskKwOnly
#define DEF_SIMPLE kTVMFFIFieldFlagBitMaskSEqHashDefSimple
#define DEF_PATTERN kTVMFFIFieldFlagBitMaskSEqHashDefPattern

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

/* One row per type, its fields on the row's last line. */
/* clang-format off */
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
    {"testing.TestCxxClassHiddenField", NULL, "v_i64, an unreflected int64, v_i32.", 1,
     INIT_AUTO, {F("v_i64", F_I64, W), F("v_i32", F_I32, W)}},
    {"testing.TestCxxClassPolymorphic", NULL, "A C++ class with a vtable pointer.", 1, INIT_AUTO,
     {F("v_i64", F_I64, W)}},
    {"testing.TestCxxAutoInitParent", NULL, NULL, 1, INIT_AUTO,
     {F("parent_required", F_I64, W), FD("parent_default", F_I64, W, 5)}},
    {"testing.TestCxxAutoInitChild", "testing.TestCxxAutoInitParent", NULL, 1, INIT_AUTO,
     {F("child_required", F_I64, W), F("child_kw_only", F_I64, W | KW_ONLY)}},
    {"testing.TestDeepCopyEdges", NULL, "Any and ObjectRef fields holding what ffi.DeepCopy copies.",
     1, INIT_AUTO, {F("v_any", F_ANY, W), F("v_obj", F_OBJ, W)}},
    {"testing.TestVisitRegions", NULL, "simple, pattern and ordinary definition regions.", 1,
     INIT_AUTO, {{"simple", F_I64, DEF_SIMPLE, 0, 0, NULL, 1},
                 {"pattern", F_I64, DEF_PATTERN, 0, 0, NULL, 2},
                 {"ordinary", F_I64, 0, 0, 0, NULL, 3}}},
    {"testing.TestVisitHook", NULL, "Visits child in a simple region, then the int 4.", 0,
     INIT_NONE, {F("child", F_OBJ, 0)}},
};
/* clang-format on */
#define NUM_TYPES ((int)(sizeof(k_specs) / sizeof(k_specs[0])))

/* What the fixtures' C++ classes have beyond their reflected fields: finality
 * (published as __ffi_type_final__), and gap_bytes unreflected bytes after the
 * first gap_after fields -- a member the registry never sees, or (at the end)
 * what a C++ vtable pointer adds to sizeof. */
static const struct {
  const char* key;
  int final;
  int32_t gap_after, gap_bytes;
} k_shapes[] = {
    {"testing.TestFrozenCxx", 1, 0, 0},
    {"testing.TestCompare", 1, 0, 0},
    {"testing.TestHash", 1, 0, 0},
    {"testing.TestCustomHash", 1, 0, 0},
    {"testing.TestCustomCompare", 1, 0, 0},
    {"testing.TestEqWithoutHash", 1, 0, 0},
    {"testing.TestCxxAutoInitChild", 1, 0, 0},
    {"testing.TestCxxClassHiddenField", 1, 1, 8},
    {"testing.TestCxxClassPolymorphic", 1, 1, 8},
    {"testing.TestVisitRegions", 1, 0, 0},
    {"testing.TestVisitHook", 1, 0, 0},
};

static int shape_of(const char* key, int32_t* gap_after, int32_t* gap_bytes) {
  for (size_t i = 0; i < sizeof(k_shapes) / sizeof(k_shapes[0]); ++i) {
    if (strcmp(k_shapes[i].key, key) == 0) {
      *gap_after = k_shapes[i].gap_after;
      *gap_bytes = k_shapes[i].gap_bytes;
      return k_shapes[i].final;
    }
  }
  *gap_after = *gap_bytes = 0;
  return 0;
}
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
    case F_ANY:
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
    case F_ANY:
      return "Any";
    case F_OBJ:
      return "ffi.Object";
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
    case F_ANY:
      return "{\\\"type\\\":\\\"Any\\\"}";
    case F_OBJ:
      return "{\\\"type\\\":\\\"ffi.Object\\\"}";
    default:
      return "{\\\"type\\\":\\\"Optional\\\",\\\"args\\\":[{\\\"type\\\":\\\"testing."
             "TestObjectBase\\\"}]}";
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
    case F_ANY:
      return kTVMFFIAny; /* Any-backed, as C++ String fields report */
    default:
      return kTVMFFIObject;
  }
}

static int is_base(const TVMFFIAny* v) {
  return g_base_index >= 0 && is_instance_of(v->type_index, g_base_index);
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
    case F_ANY:
      return 1;
    case F_OBJ:
      return t == kTVMFFINone || t >= kTVMFFIStaticObjectBegin;
    default:
      return t == kTVMFFINone || is_base(v);
  }
}

static int cannot_convert(fkind k, const TVMFFIAny* v) {
  char msg[256];
  snprintf(msg, sizeof(msg), "Cannot convert from type `%s` to `%s`", type_key_of(v), kind_name(k));
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
    case F_STR:
    case F_ANY: {
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
    case F_ANY:
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
#define ACCESSORS(K)                                                        \
  static int get_##K(void* addr, TVMFFIAny* r) { return load(K, addr, r); } \
  static int set_##K(void* addr, const TVMFFIAny* v) {                      \
    return accepts(K, v) ? store(K, addr, v) : cannot_convert(K, v);        \
  }
ACCESSORS(F_I64)
ACCESSORS(F_I32)
ACCESSORS(F_F64)
ACCESSORS(F_F32)
ACCESSORS(F_BOOL)
ACCESSORS(F_STR)
ACCESSORS(F_BASE)
ACCESSORS(F_OPT_BASE)
ACCESSORS(F_ANY)
ACCESSORS(F_OBJ)

static const TVMFFIFieldGetter k_getters[] = {get_F_I64,  get_F_I32, get_F_F64,  get_F_F32,
                                              get_F_BOOL, get_F_STR, get_F_BASE, get_F_OPT_BASE,
                                              get_F_ANY,  get_F_OBJ};
static const TVMFFIFieldSetter k_setters[] = {set_F_I64,  set_F_I32, set_F_F64,  set_F_F32,
                                              set_F_BOOL, set_F_STR, set_F_BASE, set_F_OPT_BASE,
                                              set_F_ANY,  set_F_OBJ};

/* ---- creator and deleter ------------------------------------------------- */

static void fixture_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    for (const tdesc* d = desc_of(o->type_index); d != NULL; d = d->parent) {
      for (int32_t i = 0; i < d->nfields; ++i) {
        char* addr = (char*)o + d->offsets[i];
        fkind k = d->fields[i].kind;
        if (k == F_STR || k == F_ANY) release((TVMFFIAny*)addr);
        if ((k == F_BASE || k == F_OPT_BASE || k == F_OBJ) && *(TVMFFIObject**)addr != NULL) {
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
#define CREATOR(i)                                 \
  static int create_##i(TVMFFIObjectHandle* out) { \
    TVMFFIObject* o = new_object(&g_types[i]);     \
    if (o == NULL) return -1;                      \
    *out = o;                                      \
    return 0;                                      \
  }
/* Macro expansions clang-format cannot see as declarations. */
/* clang-format off */
CREATOR(0) CREATOR(1) CREATOR(2) CREATOR(3) CREATOR(4) CREATOR(5) CREATOR(6) CREATOR(7)
CREATOR(8) CREATOR(9) CREATOR(10) CREATOR(11) CREATOR(12) CREATOR(13) CREATOR(14) CREATOR(15)
CREATOR(16) CREATOR(17) CREATOR(18) CREATOR(19) CREATOR(20) CREATOR(21) CREATOR(22)
CREATOR(23) CREATOR(24)
static const TVMFFIObjectCreator k_creators[] = {
    create_0,  create_1,  create_2,  create_3,  create_4,  create_5,  create_6,
    create_7,  create_8,  create_9,  create_10, create_11, create_12, create_13,
    create_14, create_15, create_16, create_17, create_18, create_19, create_20,
    create_21, create_22, create_23, create_24};
/* clang-format on */
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

/* ---- __ffi_shallow_copy__ (C++ copy constructor) ------------------------------ */

static int shallow_copy(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  const tdesc* d = (const tdesc*)self;
  char sig[160];
  snprintf(sig, sizeof(sig), "%s.__ffi_shallow_copy__(0: %s) -> %s", d->key, d->key, d->key);
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != d->index) return arg_mismatch(sig, 0, d->key, &args[0]);
  TVMFFIObject* o = new_object(d);
  if (o == NULL) return -1;
  for (const tdesc* p = d; p != NULL; p = p->parent) {
    for (int32_t i = 0; i < p->nfields; ++i) {
      TVMFFIAny v;
      fkind k = p->fields[i].kind;
      int rc = load(k, (char*)args[0].v_obj + p->offsets[i], &v);
      if (rc == 0) rc = store(k, (char*)o + p->offsets[i], &v);
      release(&v);
      if (rc != 0) {
        TVMFFIObjectDecRef(o);
        return -1;
      }
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
    const tdesc* d =
        args[i].type_index >= kTVMFFIStaticObjectBegin ? desc_of(args[i].type_index) : NULL;
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
  snprintf(sig, sizeof(sig), "%s.__ffi_eq__(0: ffi.Object, 1: ffi.Object, 2: ffi.Function) -> bool",
           d->key);
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

static void register_attr_fn(int32_t tindex, const char* name, TVMFFISafeCallType fn, void* self) {
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
                              "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":"
                              "[{\"type\":\"%s\"}],\"params\":[",
                              d->key);
  for (int32_t i = 0; i < d->nfields && k < sizeof(schema); ++i)
    k += (size_t)snprintf(schema + k, sizeof(schema) - k, "%s{\"type\":\"%s\"}", i ? "," : "",
                          d->fields[i].kind == F_STR ? "ffi.String" : kind_name(d->fields[i].kind));
  if (k < sizeof(schema)) snprintf(schema + k, sizeof(schema) - k, "]}}");
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
  int32_t gap_after, gap_bytes;
  int final = shape_of(d->key, &gap_after, &gap_bytes);
  while (d->nfields < MAX_FIELDS && d->fields[d->nfields].name != NULL) {
    int64_t sz = kind_size(d->fields[d->nfields].kind), al = sz > 8 ? 8 : sz;
    if (gap_bytes != 0 && d->nfields == gap_after) d->size += gap_bytes;
    d->size = (d->size + al - 1) / al * al;
    d->offsets[d->nfields++] = d->size;
    d->size += sz;
  }
  if (gap_bytes != 0 && d->nfields == gap_after) d->size += gap_bytes;
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
  tt_set_final(d->index, final);
  for (int32_t i = 0; i < d->nfields; ++i) register_field(d, i);
  if (sp->init == INIT_AUTO) call_register_ffi_init(d->index);
  if (sp->init == INIT_POSITIONAL) register_positional_init(d);
  if (strcmp(d->key, "testing.TestNonCopyable") != 0) /* its C++ copy is deleted */
    register_attr_fn(d->index, "__ffi_shallow_copy__", shallow_copy, d);
  if (strcmp(d->key, "testing.TestCustomHash") == 0 ||
      strcmp(d->key, "testing.TestCustomCompare") == 0)
    register_attr_fn(d->index, "__ffi_hash__", hook_hash, d);
  if (strcmp(d->key, "testing.TestCustomCompare") == 0 ||
      strcmp(d->key, "testing.TestEqWithoutHash") == 0)
    register_attr_fn(d->index, "__ffi_eq__", hook_eq, d);
  if (strcmp(d->key, "testing.TestCustomCompare") == 0)
    register_attr_fn(d->index, "__ffi_compare__", hook_compare, d);
}

/* ---- testing.SchemaAllTypes ------------------------------------------------ *
 * A field of every type-schema shape (scalars, Device, DataType, String,
 * Bytes, Optional, Array, Map, Variant and nestings) and typed methods, for
 * schema, stub and reflection tests.  No creator and no __ffi_init__: instances
 * come from the static make_with(v_int, v_float, v_string).  The layout is the
 * C++ one (POD inline, String/Bytes/Optional/Variant as 16-byte Any, Array/Map
 * as object pointers), so offsets match the upstream fixture. */

typedef enum {
  S_INT,
  S_FLOAT,
  S_BOOL,
  S_STR,
  S_BYTES,
  S_DEVICE,
  S_DTYPE,
  S_ARR,
  S_MAP,
  S_OPT,
  S_VARIANT
} skind;

/* A C++ field type: kind, argument types, the spelling messages show. */
typedef struct sty {
  skind k;
  const struct sty* a[3];
  const char* shown;
} sty;

static const sty t_int = {S_INT, {NULL}, "int"}, t_float = {S_FLOAT, {NULL}, "float"},
                 t_bool = {S_BOOL, {NULL}, "bool"}, t_str = {S_STR, {NULL}, "str"},
                 t_bytes = {S_BYTES, {NULL}, "bytes"}, t_device = {S_DEVICE, {NULL}, "Device"},
                 t_dtype = {S_DTYPE, {NULL}, "DataType"};
static const sty t_opt_int = {S_OPT, {&t_int}, "Optional<int>"},
                 t_opt_str = {S_OPT, {&t_str}, "Optional<str>"},
                 t_arr_int = {S_ARR, {&t_int}, "Array<int>"},
                 t_arr_str = {S_ARR, {&t_str}, "Array<str>"},
                 t_map_str_int = {S_MAP, {&t_str, &t_int}, "Map<str, int>"};
static const sty t_map_str_arr_int = {S_MAP, {&t_str, &t_arr_int}, "Map<str, Array<int>>"},
                 t_variant = {S_VARIANT,
                              {&t_str, &t_arr_int, &t_map_str_int},
                              "Variant<str, Array<int>, Map<str, int>>"},
                 t_int_or_str = {S_VARIANT, {&t_int, &t_str}, "Variant<int, str>"};
static const sty t_arr_variant = {S_ARR, {&t_int_or_str}, "Array<Variant<int, str>>"};
static const sty t_opt_arr_variant = {
    S_OPT, {&t_arr_variant}, "Optional<Array<Variant<int, str>>>"};

static int is_bytes(const TVMFFIAny* v) {
  return v->type_index == kTVMFFISmallBytes || v->type_index == kTVMFFIBytes ||
         v->type_index == kTVMFFIByteArrayPtr;
}

/* Whether v converts to t (Device and DataType also from their strings). */
static int sty_accepts(const sty* t, const TVMFFIAny* v) {
  int32_t ti = v->type_index;
  switch (t->k) {
    case S_INT:
    case S_BOOL:
      return ti == kTVMFFIInt || ti == kTVMFFIBool;
    case S_FLOAT:
      return ti == kTVMFFIFloat || ti == kTVMFFIInt || ti == kTVMFFIBool;
    case S_STR:
      return is_str(v);
    case S_BYTES:
      return is_bytes(v);
    case S_DEVICE:
      return ti == kTVMFFIDevice || is_str(v);
    case S_DTYPE:
      return ti == kTVMFFIDataType || is_str(v);
    case S_OPT:
      return ti == kTVMFFINone || sty_accepts(t->a[0], v);
    case S_VARIANT:
      for (int i = 0; i < 3 && t->a[i] != NULL; ++i)
        if (sty_accepts(t->a[i], v)) return 1;
      return 0;
    case S_ARR: {
      if (ti != kTVMFFIArray) return 0;
      TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(v->v_obj);
      const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
      for (int64_t i = 0; i < cell->size; ++i)
        if (!sty_accepts(t->a[0], &items[i])) return 0;
      return 1;
    }
    default: { /* S_MAP */
      if (ti != kTVMFFIMap) return 0;
      TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(v->v_obj);
      for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
           p = TVMFFIMapCellIterNext(cell, p))
        if (!sty_accepts(t->a[0], TVMFFIMapCellKey(cell, p)) ||
            !sty_accepts(t->a[1], TVMFFIMapCellValue(cell, p)))
          return 0;
      return 1;
    }
  }
}

static int sty_convert(const sty* t, const TVMFFIAny* v, TVMFFIAny* out);

/* The alternative of a variant (or the type itself) that v converts to. */
static const sty* sty_pick(const sty* t, const TVMFFIAny* v) {
  if (t->k != S_VARIANT) return t;
  for (int i = 0; i < 3 && t->a[i] != NULL; ++i)
    if (sty_accepts(t->a[i], v)) return t->a[i];
  return t;
}

/* Whether v (accepted by t) is already stored as t stores it: false for a bool
 * in an int slot, an int in a float slot, or a container holding such. */
static int sty_exact(const sty* t, const TVMFFIAny* v) {
  t = sty_pick(t, v);
  switch (t->k) {
    case S_INT:
      return v->type_index == kTVMFFIInt;
    case S_BOOL:
      return v->type_index == kTVMFFIBool;
    case S_FLOAT:
      return v->type_index == kTVMFFIFloat;
    case S_OPT:
      return v->type_index == kTVMFFINone || sty_exact(t->a[0], v);
    case S_ARR: {
      TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(v->v_obj);
      for (int64_t i = 0; i < cell->size; ++i)
        if (!sty_exact(t->a[0], &((const TVMFFIAny*)cell->data)[i])) return 0;
      return 1;
    }
    case S_MAP: {
      TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(v->v_obj);
      for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
           p = TVMFFIMapCellIterNext(cell, p))
        if (!sty_exact(t->a[0], TVMFFIMapCellKey(cell, p)) ||
            !sty_exact(t->a[1], TVMFFIMapCellValue(cell, p)))
          return 0;
      return 1;
    }
    default:
      return 1;
  }
}

/* A new Array / Map of v's entries converted to t's element types (C++
 * converts element by element, e.g. Array<int> from [True] holds 1). */
static int sty_rebuild(const sty* t, const TVMFFIAny* v, TVMFFIAny* out) {
  int is_arr = t->k == S_ARR;
  TVMFFISeqCell* seq = is_arr ? TVMFFISeqGetCellPtr(v->v_obj) : NULL;
  TVMFFIMapCell* map = is_arr ? NULL : TVMFFIMapGetCellPtr(v->v_obj);
  int64_t n = is_arr ? seq->size : 2 * (int64_t)map->size;
  TVMFFIAny* items = (TVMFFIAny*)calloc((size_t)n + 1, sizeof(TVMFFIAny));
  if (items == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return -1;
  }
  int64_t done = 0;
  int rc = 0;
  if (is_arr) {
    for (; done < n && rc == 0; ++done)
      rc = sty_convert(t->a[0], &((const TVMFFIAny*)seq->data)[done], &items[done]);
  } else {
    for (uint64_t p = TVMFFIMapCellIterBegin(map); p != TVMFFI_MAP_ITER_END && rc == 0;
         p = TVMFFIMapCellIterNext(map, p)) {
      rc = sty_convert(t->a[0], TVMFFIMapCellKey(map, p), &items[done++]);
      if (rc == 0) rc = sty_convert(t->a[1], TVMFFIMapCellValue(map, p), &items[done++]);
    }
  }
  if (rc != 0) --done; /* the failed slot holds nothing */
  if (rc == 0) rc = call_global(is_arr ? "ffi.Array" : "ffi.Map", items, (int32_t)n, out);
  for (int64_t i = 0; i < done; ++i) release(&items[i]);
  free(items);
  return rc;
}

/* An owned value of v (accepted by t) in the form the field stores. */
static int sty_convert(const sty* t, const TVMFFIAny* v, TVMFFIAny* out) {
  char buf[64];
  t = sty_pick(t, v);
  if (t->k == S_OPT && v->type_index != kTVMFFINone) t = sty_pick(t->a[0], v);
  if (!sty_exact(t, v)) {
    switch (t->k) {
      case S_INT:
        set_int(out, v->v_int64);
        return 0;
      case S_BOOL:
        set_bool(out, v->v_int64 != 0);
        return 0;
      case S_FLOAT:
        out->type_index = kTVMFFIFloat;
        out->zero_padding = 0;
        out->v_float64 = as_double(v);
        return 0;
      default:
        return sty_rebuild(t, v, out); /* S_ARR, S_MAP */
    }
  }
  if (t->k == S_DEVICE && is_str(v)) /* the schema_id_device fixture parses "cuda:1" */
    return call_global("testing.schema_id_device", (TVMFFIAny*)v, 1, out);
  if (t->k == S_DTYPE && is_str(v)) {
    TVMFFIByteArray b = ba(str_of(v, buf, sizeof(buf)));
    out->type_index = kTVMFFIDataType;
    out->zero_padding = 0;
    out->v_int64 = 0;
    return TVMFFIDataTypeFromString(&b, &out->v_dtype);
  }
  if (v->type_index == kTVMFFIRawStr) {
    TVMFFIByteArray b = ba(v->v_c_str);
    return TVMFFIStringFromByteArray(&b, out);
  }
  if (v->type_index == kTVMFFIByteArrayPtr)
    return TVMFFIBytesFromByteArray((const TVMFFIByteArray*)v->v_ptr, out);
  return TVMFFIAnyViewToOwnedAny(v, out);
}

/* How a field is stored: inline POD, a 16-byte Any, or an object pointer. */
typedef enum { ST_POD, ST_ANY, ST_OBJ, ST_OPT_OBJ } sstore;

typedef struct {
  const char* name;
  const sty* ty;
  sstore store;
  int64_t offset, size;
  int32_t static_type;
  const char* doc;
  const char* meta; /* metadata JSON */
} sfield;

#define SJ(x) "{\"type_schema\":\"" x "\"}"
#define Q "\\\""
static const sfield k_saf[] = {
    {"v_bool", &t_bool, ST_POD, 24, 1, kTVMFFIBool, "bool field",
     "{\"type_schema\":\"{" Q "type" Q ":" Q "bool" Q "}\",\"bool_attr\":true,\"int_attr\":1,"
     "\"str_attr\":\"hello\"}"},
    {"v_int", &t_int, ST_POD, 32, 8, kTVMFFIInt, "int field", SJ("{" Q "type" Q ":" Q "int" Q "}")},
    {"v_float", &t_float, ST_POD, 40, 8, kTVMFFIFloat, "float field",
     SJ("{" Q "type" Q ":" Q "float" Q "}")},
    {"v_device", &t_device, ST_POD, 48, 8, kTVMFFIDevice, "device field",
     SJ("{" Q "type" Q ":" Q "Device" Q "}")},
    {"v_dtype", &t_dtype, ST_POD, 56, 4, kTVMFFIDataType, "dtype field",
     SJ("{" Q "type" Q ":" Q "DataType" Q "}")},
    {"v_string", &t_str, ST_ANY, 64, 16, kTVMFFIAny, "string field",
     SJ("{" Q "type" Q ":" Q "ffi.String" Q "}")},
    {"v_bytes", &t_bytes, ST_ANY, 80, 16, kTVMFFIAny, "bytes field",
     SJ("{" Q "type" Q ":" Q "ffi.Bytes" Q "}")},
    {"v_opt_int", &t_opt_int, ST_ANY, 96, 16, kTVMFFIAny, "optional int",
     SJ("{" Q "type" Q ":" Q "Optional" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "int" Q "}]}")},
    {"v_opt_str", &t_opt_str, ST_ANY, 112, 16, kTVMFFIAny, "optional str",
     SJ("{" Q "type" Q ":" Q "Optional" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q
        "}]}")},
    {"v_arr_int", &t_arr_int, ST_OBJ, 128, 8, kTVMFFIArray, "array<int>",
     SJ("{" Q "type" Q ":" Q "ffi.Array" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "int" Q "}]}")},
    {"v_arr_str", &t_arr_str, ST_OBJ, 136, 8, kTVMFFIArray, "array<str>",
     SJ("{" Q "type" Q ":" Q "ffi.Array" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q
        "}]}")},
    {"v_map_str_int", &t_map_str_int, ST_OBJ, 144, 8, kTVMFFIObject, "map<str,int>",
     SJ("{" Q "type" Q ":" Q "ffi.Map" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q
        "},{" Q "type" Q ":" Q "int" Q "}]}")},
    {"v_map_str_arr_int", &t_map_str_arr_int, ST_OBJ, 152, 8, kTVMFFIObject, "map<str,array<int>>",
     SJ("{" Q "type" Q ":" Q "ffi.Map" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q
        "},{" Q "type" Q ":" Q "ffi.Array" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "int" Q
        "}]}]}")},
    {"v_variant", &t_variant, ST_ANY, 160, 16, kTVMFFIAny, "variant<str,array<int>,map<str,int>>",
     SJ("{" Q "type" Q ":" Q "Variant" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q
        "},{" Q "type" Q ":" Q "ffi.Array" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "int" Q "}]},{" Q
        "type" Q ":" Q "ffi.Map" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.String" Q "},{" Q
        "type" Q ":" Q "int" Q "}]}]}")},
    {"v_opt_arr_variant", &t_opt_arr_variant, ST_OPT_OBJ, 176, 8, kTVMFFIAny,
     "optional<array<variant<int,str>>>",
     SJ("{" Q "type" Q ":" Q "Optional" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "ffi.Array" Q "," Q
        "args" Q ":[{" Q "type" Q ":" Q "Variant" Q "," Q "args" Q ":[{" Q "type" Q ":" Q "int" Q
        "},{" Q "type" Q ":" Q "ffi.String" Q "}]}]}]}")},
};
#undef SJ
#undef Q
#define SAF_N ((int)(sizeof(k_saf) / sizeof(k_saf[0])))
#define SAF_SIZE 184
static int32_t g_saf_index = -1;

static const sfield* saf_field(const char* name) {
  for (int i = 0; i < SAF_N; ++i)
    if (strcmp(k_saf[i].name, name) == 0) return &k_saf[i];
  return NULL;
}

/* Stores an accepted, converted (owned) value into the field; takes `owned`. */
static void saf_store(const sfield* f, char* addr, TVMFFIAny* owned) {
  switch (f->store) {
    case ST_POD:
      switch (f->ty->k) {
        case S_BOOL:
          *(uint8_t*)addr = owned->v_int64 != 0;
          break;
        case S_INT:
          *(int64_t*)addr = owned->v_int64;
          break;
        case S_FLOAT:
          *(double*)addr = as_double(owned);
          break;
        case S_DEVICE:
          *(DLDevice*)addr = owned->v_device;
          break;
        default:
          *(DLDataType*)addr = owned->v_dtype;
          break;
      }
      release(owned);
      return;
    case ST_ANY:
      release((TVMFFIAny*)addr);
      *(TVMFFIAny*)addr = *owned;
      return;
    default: {
      TVMFFIObject* old = *(TVMFFIObject**)addr;
      *(TVMFFIObject**)addr = owned->type_index == kTVMFFINone ? NULL : owned->v_obj;
      if (old) TVMFFIObjectDecRef(old);
      return;
    }
  }
}

static int saf_set(const sfield* f, char* addr, const TVMFFIAny* v) {
  if (!sty_accepts(f->ty, v)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "Cannot convert from type `%s` to `%s`", type_key_of(v),
             f->ty->shown);
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
    return -1;
  }
  TVMFFIAny owned;
  if (sty_convert(f->ty, v, &owned) != 0) return -1;
  saf_store(f, addr, &owned);
  return 0;
}

static int saf_get(const sfield* f, const char* addr, TVMFFIAny* r) {
  r->zero_padding = 0;
  r->v_int64 = 0;
  switch (f->store) {
    case ST_POD:
      switch (f->ty->k) {
        case S_BOOL:
          set_bool(r, *(const uint8_t*)addr);
          break;
        case S_INT:
          set_int(r, *(const int64_t*)addr);
          break;
        case S_FLOAT:
          r->type_index = kTVMFFIFloat;
          r->v_float64 = *(const double*)addr;
          break;
        case S_DEVICE:
          r->type_index = kTVMFFIDevice;
          r->v_device = *(const DLDevice*)addr;
          break;
        default:
          r->type_index = kTVMFFIDataType;
          r->v_dtype = *(const DLDataType*)addr;
          break;
      }
      return 0;
    case ST_ANY:
      return TVMFFIAnyViewToOwnedAny((const TVMFFIAny*)addr, r);
    default: {
      TVMFFIObject* obj = *(TVMFFIObject* const*)addr;
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

/* Field accessors only see the address: one pair per field, by index. */
#define SAF_ACCESSORS(i)                                                             \
  static int saf_get_##i(void* a, TVMFFIAny* r) { return saf_get(&k_saf[i], a, r); } \
  static int saf_set_##i(void* a, const TVMFFIAny* v) { return saf_set(&k_saf[i], a, v); }
/* Macro expansions clang-format cannot see as declarations. */
/* clang-format off */
SAF_ACCESSORS(0) SAF_ACCESSORS(1) SAF_ACCESSORS(2) SAF_ACCESSORS(3) SAF_ACCESSORS(4)
SAF_ACCESSORS(5) SAF_ACCESSORS(6) SAF_ACCESSORS(7) SAF_ACCESSORS(8) SAF_ACCESSORS(9)
SAF_ACCESSORS(10) SAF_ACCESSORS(11) SAF_ACCESSORS(12) SAF_ACCESSORS(13) SAF_ACCESSORS(14)
static const TVMFFIFieldGetter k_saf_get[] = {
    saf_get_0, saf_get_1, saf_get_2,  saf_get_3,  saf_get_4,  saf_get_5,  saf_get_6, saf_get_7,
    saf_get_8, saf_get_9, saf_get_10, saf_get_11, saf_get_12, saf_get_13, saf_get_14};
/* clang-format on */
static const TVMFFIFieldSetter k_saf_set[] = {
    saf_set_0, saf_set_1, saf_set_2,  saf_set_3,  saf_set_4,  saf_set_5,  saf_set_6, saf_set_7,
    saf_set_8, saf_set_9, saf_set_10, saf_set_11, saf_set_12, saf_set_13, saf_set_14};
_Static_assert(sizeof(k_saf_get) / sizeof(k_saf_get[0]) == sizeof(k_saf) / sizeof(k_saf[0]),
               "one accessor pair per SchemaAllTypes field");

static void saf_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    for (int i = 0; i < SAF_N; ++i) {
      char* addr = (char*)self + k_saf[i].offset;
      if (k_saf[i].store == ST_ANY) {
        release((TVMFFIAny*)addr);
        set_none((TVMFFIAny*)addr);
      } else if (k_saf[i].store != ST_POD && *(TVMFFIObject**)addr != NULL) {
        TVMFFIObjectDecRef(*(TVMFFIObject**)addr);
        *(TVMFFIObject**)addr = NULL;
      }
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* A zeroed instance: PODs 0, Any fields None, object fields NULL. */
static TVMFFIObject* saf_alloc(void) {
  TVMFFIObject* o = (TVMFFIObject*)calloc(1, SAF_SIZE);
  if (o == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return NULL;
  }
  o->combined_ref_count = UINT64_C(0x100000001);
  o->type_index = g_saf_index;
  o->deleter = saf_deleter;
  for (int i = 0; i < SAF_N; ++i)
    if (k_saf[i].store == ST_ANY) set_none((TVMFFIAny*)((char*)o + k_saf[i].offset));
  return o;
}

/* Sets a field from a C value during construction; -1 leaves the error raised. */
static int saf_init_field(TVMFFIObject* o, const char* name, TVMFFIAny v) {
  const sfield* f = saf_field(name);
  int rc = saf_set(f, (char*)o + f->offset, &v);
  release(&v);
  return rc;
}

/* make_with(v_int, v_float, v_string): the other fields take the values the
 * C++ constructor gives them (v_bool true, cpu:0, float32, b"", empty
 * containers, v_variant "v", optionals None). */
static int saf_make_with(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)self;
  static const char sig[] =
      "testing.SchemaAllTypes.make_with(0: int, 1: float, 2: str) -> testing.SchemaAllTypes";
  if (arg_count(sig, n, 3) != 0) return -1;
  if (!sty_accepts(&t_int, &args[0])) return arg_mismatch(sig, 0, "int", &args[0]);
  if (!sty_accepts(&t_float, &args[1])) return arg_mismatch(sig, 1, "float", &args[1]);
  if (!is_str(&args[2])) return arg_mismatch(sig, 2, "str", &args[2]);
  TVMFFIObject* o = saf_alloc();
  if (o == NULL) return -1;
  TVMFFIAny dev, empty, bytes, yes;
  set_bool(&yes, 1);
  dev.type_index = kTVMFFIDevice;
  dev.zero_padding = 0;
  dev.v_int64 = 0;
  dev.v_device = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  TVMFFIByteArray nothing = {"", 0};
  int rc = 0;
  rc = saf_init_field(o, "v_bool", yes);
  rc = rc || saf_set(saf_field("v_int"), (char*)o + 32, &args[0]);
  rc = rc || saf_set(saf_field("v_float"), (char*)o + 40, &args[1]);
  rc = rc || saf_init_field(o, "v_device", dev);
  rc = rc || saf_init_field(o, "v_dtype", v_str("float32"));
  rc = rc || saf_set(saf_field("v_string"), (char*)o + 64, &args[2]);
  rc = rc || TVMFFIBytesFromByteArray(&nothing, &bytes) || saf_init_field(o, "v_bytes", bytes);
  rc = rc || saf_init_field(o, "v_variant", v_str("v"));
  static const char* const containers[] = {"v_arr_int", "v_arr_str", "v_map_str_int",
                                           "v_map_str_arr_int"};
  for (int i = 0; i < 4 && rc == 0; ++i) {
    rc = call_global(i < 2 ? "ffi.Array" : "ffi.Map", NULL, 0, &empty) ||
         saf_init_field(o, containers[i], empty);
  }
  if (rc != 0) {
    TVMFFIObjectDecRef(o);
    return -1;
  }
  r->type_index = o->type_index;
  r->zero_padding = 0;
  r->v_obj = o;
  return 0;
}

/* The receiver of an instance method, checked. */
static TVMFFIObject* saf_self(const char* sig, const TVMFFIAny* args) {
  if (args[0].type_index != g_saf_index) {
    arg_mismatch(sig, 0, "testing.SchemaAllTypes", &args[0]);
    return NULL;
  }
  return args[0].v_obj;
}

static int saf_add_int(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  static const char sig[] =
      "testing.SchemaAllTypes.add_int(0: testing.SchemaAllTypes, 1: int) -> int";
  if (arg_count(sig, n, 2) != 0) return -1;
  TVMFFIObject* o = saf_self(sig, args);
  if (o == NULL) return -1;
  if (!sty_accepts(&t_int, &args[1])) return arg_mismatch(sig, 1, "int", &args[1]);
  set_int(r, *(int64_t*)((char*)o + 32) + args[1].v_int64);
  return 0;
}

static int saf_append_int(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  static const char sig[] =
      "testing.SchemaAllTypes.append_int(0: testing.SchemaAllTypes, 1: Array<int>, 2: int) -> "
      "Array<int>";
  if (arg_count(sig, n, 3) != 0) return -1;
  if (saf_self(sig, args) == NULL) return -1;
  if (!sty_accepts(&t_arr_int, &args[1])) return arg_mismatch(sig, 1, "Array<int>", &args[1]);
  if (!sty_accepts(&t_int, &args[2])) return arg_mismatch(sig, 2, "int", &args[2]);
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(args[1].v_obj);
  int64_t k = cell->size;
  TVMFFIAny* items = (TVMFFIAny*)malloc((size_t)(k + 1) * sizeof(TVMFFIAny));
  if (items == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return -1;
  }
  memcpy(items, cell->data, (size_t)k * sizeof(TVMFFIAny)); /* views: ffi.Array copies */
  set_int(&items[k], args[2].v_int64);
  int rc = call_global("ffi.Array", items, (int32_t)(k + 1), r);
  free(items);
  return rc;
}

static int saf_maybe_concat(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  static const char sig[] =
      "testing.SchemaAllTypes.maybe_concat(0: testing.SchemaAllTypes, 1: Optional<str>, 2: "
      "Optional<str>) -> Optional<str>";
  if (arg_count(sig, n, 3) != 0) return -1;
  if (saf_self(sig, args) == NULL) return -1;
  for (int i = 1; i < 3; ++i)
    if (!sty_accepts(&t_opt_str, &args[i])) return arg_mismatch(sig, i, "Optional<str>", &args[i]);
  int has_a = args[1].type_index != kTVMFFINone, has_b = args[2].type_index != kTVMFFINone;
  if (!has_a || !has_b) { /* the one that is set, or None */
    if (!has_a && !has_b) {
      set_none(r);
      return 0;
    }
    return sty_convert(&t_str, &args[has_a ? 1 : 2], r);
  }
  TVMFFIAny owned[2];
  if (sty_convert(&t_str, &args[1], &owned[0]) != 0) return -1;
  if (sty_convert(&t_str, &args[2], &owned[1]) != 0) {
    release(&owned[0]);
    return -1;
  }
  TVMFFIByteArray a = TVMFFIContainerImplBytes(&owned[0]), b = TVMFFIContainerImplBytes(&owned[1]);
  char* buf = (char*)malloc(a.size + b.size + 1);
  int rc = -1;
  if (buf == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
  } else {
    memcpy(buf, a.data, a.size);
    memcpy(buf + a.size, b.data, b.size);
    TVMFFIByteArray cat = {buf, a.size + b.size};
    rc = TVMFFIStringFromByteArray(&cat, r);
    free(buf);
  }
  release(&owned[0]);
  release(&owned[1]);
  return rc;
}

/* merge_map(a, b): a's entries, then b's; a key in both gets a's array
 * followed by b's. */
static int saf_merge_map(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  static const char sig[] =
      "testing.SchemaAllTypes.merge_map(0: testing.SchemaAllTypes, 1: Map<str, Array<int>>, 2: "
      "Map<str, Array<int>>) -> Map<str, Array<int>>";
  if (arg_count(sig, n, 3) != 0) return -1;
  if (saf_self(sig, args) == NULL) return -1;
  for (int i = 1; i < 3; ++i)
    if (!sty_accepts(&t_map_str_arr_int, &args[i]))
      return arg_mismatch(sig, i, "Map<str, Array<int>>", &args[i]);
  TVMFFIMapCell* ca = TVMFFIMapGetCellPtr(args[1].v_obj);
  TVMFFIMapCell* cb = TVMFFIMapGetCellPtr(args[2].v_obj);
  int64_t cap = (int64_t)(ca->size + cb->size);
  /* kv holds views of keys and owned merged arrays (flag in `owned`) */
  TVMFFIAny* kv = (TVMFFIAny*)calloc((size_t)(2 * cap + 1), sizeof(TVMFFIAny));
  char* owned = (char*)calloc((size_t)(cap + 1), 1);
  int rc = 0;
  int64_t m = 0;
  if (kv == NULL || owned == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    rc = -1;
  }
  for (int side = 0; side < 2 && rc == 0; ++side) {
    TVMFFIMapCell* c = side == 0 ? ca : cb;
    for (uint64_t p = TVMFFIMapCellIterBegin(c); p != TVMFFI_MAP_ITER_END && rc == 0;
         p = TVMFFIMapCellIterNext(c, p)) {
      const TVMFFIAny* key = TVMFFIMapCellKey(c, p);
      const TVMFFIAny* val = TVMFFIMapCellValue(c, p);
      int64_t j = 0;
      while (j < m && TVMFFIContainerAnyEqual(&kv[2 * j], key) != 1) ++j;
      if (j == m) {
        kv[2 * m] = *key;
        kv[2 * m + 1] = *val;
        ++m;
        continue;
      }
      TVMFFISeqCell* x = TVMFFISeqGetCellPtr(kv[2 * j + 1].v_obj);
      TVMFFISeqCell* y = TVMFFISeqGetCellPtr(val->v_obj);
      TVMFFIAny* items = (TVMFFIAny*)malloc((size_t)(x->size + y->size + 1) * sizeof(TVMFFIAny));
      if (items == NULL) {
        TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
        rc = -1;
        break;
      }
      memcpy(items, x->data, (size_t)x->size * sizeof(TVMFFIAny));
      memcpy(items + x->size, y->data, (size_t)y->size * sizeof(TVMFFIAny));
      TVMFFIAny merged;
      rc = call_global("ffi.Array", items, (int32_t)(x->size + y->size), &merged);
      free(items);
      if (rc != 0) break;
      if (owned[j]) release(&kv[2 * j + 1]);
      kv[2 * j + 1] = merged;
      owned[j] = 1;
    }
  }
  if (rc == 0) rc = call_global("ffi.Map", kv, (int32_t)(2 * m), r);
  for (int64_t j = 0; j < m; ++j)
    if (owned[j]) release(&kv[2 * j + 1]);
  free(kv);
  free(owned);
  return rc;
}

/* __ffi_shallow_copy__: a new object sharing every field value. */
static int saf_shallow_copy(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)h;
  static const char sig[] =
      "testing.SchemaAllTypes.__ffi_shallow_copy__(0: testing.SchemaAllTypes) -> "
      "testing.SchemaAllTypes";
  if (arg_count(sig, n, 1) != 0) return -1;
  if (saf_self(sig, args) == NULL) return -1;
  TVMFFIObject* o = saf_alloc();
  if (o == NULL) return -1;
  for (int i = 0; i < SAF_N; ++i) {
    TVMFFIAny v;
    int rc = saf_get(&k_saf[i], (char*)args[0].v_obj + k_saf[i].offset, &v);
    if (rc == 0) saf_store(&k_saf[i], (char*)o + k_saf[i].offset, &v); /* takes v */
    if (rc != 0) {
      TVMFFIObjectDecRef(o);
      return -1;
    }
  }
  r->type_index = o->type_index;
  r->zero_padding = 0;
  r->v_obj = o;
  return 0;
}

static void saf_add_method(const char* name, const char* doc, int is_static, TVMFFISafeCallType fn,
                           const char* meta) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(NULL, fn, NULL, &f) != 0) return;
  TVMFFIMethodInfo m;
  memset(&m, 0, sizeof(m));
  m.name = ba(name);
  m.doc = ba(doc);
  m.metadata = ba(meta);
  m.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  m.method.type_index = kTVMFFIFunction;
  m.method.v_obj = (TVMFFIObject*)f;
  TVMFFITypeRegisterMethod(g_saf_index, &m);
  TVMFFIObjectDecRef(f);
}

static void register_schema_all_types(void) {
  TVMFFIByteArray key = ba("testing.SchemaAllTypes");
  g_saf_index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
  if (TVMFFIGetTypeInfo(g_saf_index)->metadata != NULL) return; /* another copy registered */
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc = ba("A field of every schema shape; built by make_with.");
  md.total_size = SAF_SIZE;
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVMFFITypeRegisterMetadata(g_saf_index, &md);
  tt_set_final(g_saf_index, 0);
  for (int i = 0; i < SAF_N; ++i) {
    TVMFFIFieldInfo f;
    memset(&f, 0, sizeof(f));
    f.name = ba(k_saf[i].name);
    f.doc = ba(k_saf[i].doc);
    f.metadata = ba(k_saf[i].meta);
    f.flags = kTVMFFIFieldFlagBitMaskWritable;
    f.size = k_saf[i].size;
    /* a C++ member's alignment: DLDevice is two int32s, DLDataType 16-bit lanes */
    f.alignment = k_saf[i].static_type == kTVMFFIDevice     ? 4
                  : k_saf[i].static_type == kTVMFFIDataType ? 2
                  : k_saf[i].size > 8                       ? 8
                                                            : k_saf[i].size;
    f.offset = k_saf[i].offset;
    f.getter = k_saf_get[i];
    f.setter = (void*)k_saf_set[i];
    f.field_static_type_index = k_saf[i].static_type;
    set_none(&f.default_value_or_factory);
    if (i == 1 || i == 2 || i == 5) { /* v_int = 0, v_float = 0.0, v_string = "s" */
      f.flags |= kTVMFFIFieldFlagBitMaskHasDefault;
      if (i == 1) set_int(&f.default_value_or_factory, 0);
      if (i == 2) {
        f.default_value_or_factory.type_index = kTVMFFIFloat;
        f.default_value_or_factory.v_float64 = 0.0;
      }
      if (i == 5) {
        TVMFFIByteArray b = ba("s");
        if (TVMFFIStringFromByteArray(&b, &f.default_value_or_factory) != 0) return;
      }
    }
    TVMFFITypeRegisterField(g_saf_index, &f);
    release(&f.default_value_or_factory);
  }
#define Q "\\\""
#define T(x) "{" Q "type" Q ":" Q x Q "}"
#define FN(ret, ...)                                                                              \
  "{\"type_schema\":\"{" Q "type" Q ":" Q "ffi.Function" Q "," Q "named_args" Q ":{" Q "return" Q \
  ":[" ret "]," Q "params" Q ":[" __VA_ARGS__ "]}}\""
#define ARR_INT "{" Q "type" Q ":" Q "ffi.Array" Q "," Q "args" Q ":[" T("int") "]}"
#define OPT_STR "{" Q "type" Q ":" Q "Optional" Q "," Q "args" Q ":[" T("ffi.String") "]}"
#define MAP_SAI \
  "{" Q "type" Q ":" Q "ffi.Map" Q "," Q "args" Q ":[" T("ffi.String") "," ARR_INT "]}"
  saf_add_method(
      "add_int", "add int method", 0, saf_add_int,
      FN(T("int"), T("testing.SchemaAllTypes") "," T(
                       "int")) ",\"bool_attr\":true,\"int_attr\":1,\"str_attr\":\"hello\"}");
  saf_add_method("append_int", "append int to array", 0, saf_append_int,
                 FN(ARR_INT, T("testing.SchemaAllTypes") "," ARR_INT "," T("int")) "}");
  saf_add_method("maybe_concat", "optional concat", 0, saf_maybe_concat,
                 FN(OPT_STR, T("testing.SchemaAllTypes") "," OPT_STR "," OPT_STR) "}");
  saf_add_method("merge_map", "merge maps", 0, saf_merge_map,
                 FN(MAP_SAI, T("testing.SchemaAllTypes") "," MAP_SAI "," MAP_SAI) "}");
  TVMFFIObjectHandle copy = NULL;
  if (TVMFFIFunctionCreate(NULL, saf_shallow_copy, NULL, &copy) == 0) {
    TVMFFIAny v;
    v.type_index = kTVMFFIFunction;
    v.zero_padding = 0;
    v.v_obj = (TVMFFIObject*)copy;
    TVMFFIByteArray name = ba("__ffi_shallow_copy__");
    TVMFFITypeRegisterAttr(g_saf_index, &name, &v);
    TVMFFIObjectDecRef(copy);
  }
  saf_add_method("make_with", "Constructor with subset of fields", 1, saf_make_with,
                 FN(T("testing.SchemaAllTypes"), T("int") "," T("float") "," T("ffi.String")) "}");
#undef Q
#undef T
#undef FN
#undef ARR_INT
#undef OPT_STR
#undef MAP_SAI
}

/* ---- structural traversal fixtures ----------------------------------------- */

static const tdesc* desc_by_key(const char* key) {
  for (int i = 0; i < NUM_TYPES; ++i)
    if (g_types[i].index >= 0 && strcmp(g_types[i].key, key) == 0) return &g_types[i];
  return NULL;
}

/* (visitor, child) of a TestVisitHook visit, for the callback run in the simple region. */
typedef struct {
  TVMFFIAny visitor, child;
} hook_frame;

static int visit_child(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)args;
  (void)n;
  hook_frame* fr = (hook_frame*)self;
  TVMFFIAny a[2] = {fr->visitor, fr->child};
  return call_global("ffi.StructuralVisitorVisit", a, 2, result);
}

/* __s_visit__ of TestVisitHook, called as (value, visitor): the child under
 * kTVMFFIDefRegionKindSimple, then (unless that interrupted) the int 4 in the region the
 * visit restored. */
static int visit_hook(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  const tdesc* d = (const tdesc*)self;
  if (arg_count("testing.TestVisitHook.__s_visit__(0: Object, 1: Object) -> Any", n, 2) != 0)
    return -1;
  hook_frame fr = {args[1], {0}};
  TVMFFIObject* child = *(TVMFFIObject**)((char*)args[0].v_obj + d->offsets[0]);
  set_none(&fr.child);
  if (child != NULL) {
    fr.child.type_index = child->type_index;
    fr.child.v_obj = child;
  }
  TVMFFIObjectHandle cb = NULL;
  if (TVMFFIFunctionCreate(&fr, visit_child, NULL, &cb) != 0) return -1;
  TVMFFIAny a[3] = {args[1], v_int(kTVMFFIDefRegionKindSimple), {0}};
  a[2].type_index = kTVMFFIFunction;
  a[2].v_obj = (TVMFFIObject*)cb;
  int rc = call_global("ffi.StructuralVisitorWithDefRegionKind", a, 3, result);
  TVMFFIObjectDecRef(cb);
  if (rc != 0 || result->type_index != kTVMFFINone) return rc;
  a[1] = v_int(4);
  return call_global("ffi.StructuralVisitorVisit", a, 2, result);
}

/* testing.make_visit_region_graph(with_hook): a TestVisitRegions, or a TestVisitHook
 * whose child is one. */
static int make_visit_region_graph(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)self;
  static const char sig[] = "testing.make_visit_region_graph(0: bool) -> Any";
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != kTVMFFIBool && args[0].type_index != kTVMFFIInt)
    return arg_mismatch(sig, 0, "bool", &args[0]);
  const tdesc* regions = desc_by_key("testing.TestVisitRegions");
  const tdesc* hook = desc_by_key("testing.TestVisitHook");
  if (regions == NULL || hook == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "the visit-region fixtures are not registered");
    return -1;
  }
  TVMFFIObject* fields = new_object(regions);
  if (fields == NULL) return -1;
  TVMFFIObject* out = fields;
  if (args[0].v_int64 != 0) {
    out = new_object(hook);
    if (out == NULL) {
      TVMFFIObjectDecRef(fields);
      return -1;
    }
    *(TVMFFIObject**)((char*)out + hook->offsets[0]) = fields; /* moved in */
  }
  r->type_index = out->type_index;
  r->zero_padding = 0;
  r->v_obj = out;
  return 0;
}

static void register_visit_fixtures(void) {
  const tdesc* hook = desc_by_key("testing.TestVisitHook");
  if (hook != NULL) register_attr_fn(hook->index, "__s_visit__", visit_hook, (tdesc*)hook);
  tt_reg("testing.make_visit_region_graph", make_visit_region_graph, NULL,
         "A testing.TestVisitRegions, or a testing.TestVisitHook holding one (with_hook).",
         "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"Any\"}],"
         "\"params\":[{\"type\":\"bool\"}]}}");
}

void tvmffi_testing__fixtures_init(void) {
  TVMFFIByteArray base = ba("testing.TestObjectBase");
  if (TVMFFITypeKeyToIndex(&base, &g_base_index) != 0) g_base_index = -1;
  for (int i = 0; i < NUM_TYPES; ++i) g_types[i].index = -1;
  for (int i = 0; i < NUM_TYPES; ++i) register_type(&g_types[i], i);
  register_schema_all_types();
  register_visit_fixtures();
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) {
    fprintf(stderr, "libtvm_ffi_testing: registering fixture types: %s\n",
            TVMFFIErrorGetCellPtr(err)->message.data);
    TVMFFIObjectDecRef(err);
  }
}
