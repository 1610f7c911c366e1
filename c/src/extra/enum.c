/*
 * enum.c -- the runtime side of enums (since ABI 0.1.16): ffi.EnumState and
 * the ffi.Enum / ffi.IntEnum / ffi.StrEnum bases that C++ (tvm/ffi/enum.h) and
 * Python (tvm_ffi.dataclasses.Enum) enum classes derive from.
 *
 * An enum class keeps its singletons in the EnumState stored under its type
 * attribute "__ffi_enum__": `entries` in registration order, `indexes` mapping
 * each singleton's integer and string index to it, `attrs` holding
 * per-singleton extensible attributes.  Layouts (shared with C++ code):
 *   EnumState { header; List* entries +24; Dict* indexes +32; Dict* attrs +40 }
 *   Enum      { header; int64_t _int_index +24; String _str_index +32 (16 bytes) }
 * IntEnum and StrEnum add no storage: their `value` field aliases
 * _int_index or _str_index.  Enum singletons compare by identity
 * (UniqueInstance).
 *
 * The rest of the runtime asks this file about members: ffi.DeepCopy shares
 * them, ReprPrint prints `type_key.str_index`, the JSON graph writes their
 * canonical index and reads it back through the state, and py_class enum
 * objects (Any slots after the Enum fields) let it release and copy the
 * Enum part.
 */
#include <string.h>

#include "structural.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* entries; /* +24, owned ffi.List */
  TVMFFIObject* indexes; /* +32, owned ffi.Dict */
  TVMFFIObject* attrs;   /* +40, owned ffi.Dict */
} enum_state;

typedef struct {
  TVMFFIObject header;
  int64_t int_index; /* +24 */
  TVMFFIAny str_index; /* +32, owned String */
} enum_obj;

static void state_deleter(void* self, int flags) {
  enum_state* s = (enum_state*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    tvmffi__decref(s->entries);
    tvmffi__decref(s->indexes);
    tvmffi__decref(s->attrs);
    s->entries = s->indexes = s->attrs = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static void enum_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    tvmffi__any_release(&((enum_obj*)self)->str_index);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int32_t g_state_index = -1, g_enum_index = -1, g_int_enum_index = -1, g_str_enum_index = -1;

/* ---- fields ---------------------------------------------------------------------- */

/* Setter of an owned object field of type `want` (List or Dict). */
static int set_obj(void* addr, const TVMFFIAny* v, int32_t want, const char* what) {
  TVMFFIAny x = tvmffi__ext_peek(v);
  if (x.type_index != want)
    return tvmffi__raise("TypeError", "ffi.EnumState.%s must be `%s`, got `%s`", what,
                         tvmffi__type_key(want), tvmffi__any_type_key(&x));
  tvmffi__incref(x.v_obj);
  tvmffi__decref(*(TVMFFIObject**)addr);
  *(TVMFFIObject**)addr = x.v_obj;
  return 0;
}
static int set_entries(void* addr, const TVMFFIAny* v) {
  return set_obj(addr, v, kTVMFFIList, "entries");
}
static int set_indexes(void* addr, const TVMFFIAny* v) {
  return set_obj(addr, v, kTVMFFIDict, "indexes");
}
static int set_attrs(void* addr, const TVMFFIAny* v) {
  return set_obj(addr, v, kTVMFFIDict, "attrs");
}

static int set_int_index(void* addr, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIInt && v->type_index != kTVMFFIBool)
    return tvmffi__raise("TypeError", "ffi.Enum._int_index must be `int`, got `%s`",
                         tvmffi__any_type_key(v));
  *(int64_t*)addr = v->v_int64;
  return 0;
}

static int set_str_index(void* addr, const TVMFFIAny* v) {
  TVMFFIByteArray s;
  if (!tvmffi__any_as_str(v, &s))
    return tvmffi__raise("TypeError", "ffi.Enum._str_index must be `str`, got `%s`",
                         tvmffi__any_type_key(v));
  TVMFFIAny owned;
  if (tvmffi__str_to_any(kTVMFFIStr, s.data, s.size, &owned) != 0) return -1;
  tvmffi__any_release((TVMFFIAny*)addr);
  *(TVMFFIAny*)addr = owned;
  return 0;
}

static void add_field(int32_t t, const char* name, const char* doc, int64_t offset, int64_t size,
                      int64_t flags, tvmffi__field_getter getter, TVMFFIFieldSetter setter,
                      int32_t static_type) {
  TVMFFIFieldInfo info;
  memset(&info, 0, sizeof(info));
  info.name.data = name;
  info.name.size = strlen(name);
  info.doc.data = doc;
  info.doc.size = strlen(doc);
  info.flags = flags | kTVMFFIFieldFlagBitMaskWritable;
  info.size = size;
  info.alignment = 8;
  info.offset = offset;
  info.getter = getter;
  info.setter = (void*)setter;
  info.field_static_type_index = static_type;
  tvmffi__any_set_none(&info.default_value_or_factory);
  if (TVMFFITypeRegisterField(t, &info) != 0) tvmffi__fatal("cannot register field %s", name);
}

/* ---- constructors --------------------------------------------------------------------- */

static TVMFFIObject* state_new(void) {
  enum_state* s =
      (enum_state*)tvmffi__object_alloc(sizeof(enum_state), g_state_index, state_deleter);
  if (s == NULL) return NULL;
  s->entries = tvmffi__list_new(0);
  s->indexes = s->entries ? tvmffi__map_new(kTVMFFIDict) : NULL;
  s->attrs = s->indexes ? tvmffi__map_new(kTVMFFIDict) : NULL;
  if (s->attrs == NULL) {
    tvmffi__decref(&s->header);
    return NULL;
  }
  return &s->header;
}

static int g_state_init(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count("ffi.EnumState.__ffi_init__() -> ffi.EnumState", n, 0) != 0) return -1;
  TVMFFIObject* s = state_new();
  if (s == NULL) return -1;
  tvmffi__any_set_obj(result, s);
  return 0;
}

/* __ffi_new__ of the Enum family: an empty singleton of the exact type asked for (the
 * type index rides in the function's self pointer). */
static int g_enum_new(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)args;
  if (tvmffi__args_count("ffi.Enum.__ffi_new__() -> ffi.Enum", n, 0) != 0) return -1;
  enum_obj* e =
      (enum_obj*)tvmffi__object_alloc(sizeof(enum_obj), (int32_t)(intptr_t)h, enum_deleter);
  if (e == NULL) return -1;
  tvmffi__any_set_none(&e->str_index);
  if (tvmffi__str_to_any(kTVMFFIStr, "", 0, &e->str_index) != 0) {
    tvmffi__decref(&e->header);
    return -1;
  }
  tvmffi__any_set_obj(result, &e->header);
  return 0;
}

static void register_fn_attr(int32_t t, const char* name, TVMFFISafeCallType fn, void* self) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(self, fn, NULL, &f) != 0) tvmffi__fatal("cannot create %s", name);
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
  TVMFFIByteArray key = {name, strlen(name)};
  if (TVMFFITypeRegisterAttr(t, &key, &v) != 0) tvmffi__fatal("cannot register %s", name);
  TVMFFIObjectDecRef(f);
}

static void enum_new_attr(int32_t type_index) {
  register_fn_attr(type_index, "__ffi_new__", g_enum_new, (void*)(intptr_t)type_index);
}

/* A type of the Enum family (subclasses allowed: enum classes derive from it). */
static int32_t new_enum_type(const char* key, int32_t depth, int32_t parent, const char* doc) {
  TVMFFIByteArray k = {key, strlen(key)};
  int32_t t = TVMFFITypeGetOrAllocIndex(&k, -1, depth, 0, 1, parent);
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc.data = doc;
  md.doc.size = strlen(doc);
  md.total_size = (int32_t)sizeof(enum_obj);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  if (TVMFFITypeRegisterMetadata(t, &md) != 0) tvmffi__fatal("cannot register %s", key);
  return t;
}

void tvmffi__enum_globals_init(void) {
  g_state_index = tvmffi__structural_new_type("ffi.EnumState", -1, (int32_t)sizeof(enum_state),
                                              kTVMFFISEqHashKindUnsupported,
                                              "Singletons and extensible attributes of an enum.");
  const int64_t init_off = kTVMFFIFieldFlagBitMaskInitOff;
  add_field(g_state_index, "entries", "Enum singletons in registration order.",
            offsetof(enum_state, entries), 8, init_off, tvmffi__getter_obj, set_entries,
            kTVMFFIList);
  add_field(g_state_index, "indexes", "Integer and string indices to singletons.",
            offsetof(enum_state, indexes), 8, init_off, tvmffi__getter_obj, set_indexes,
            kTVMFFIObject);
  add_field(g_state_index, "attrs", "Extensible attributes keyed by singleton.",
            offsetof(enum_state, attrs), 8, init_off, tvmffi__getter_obj, set_attrs, kTVMFFIObject);
  tvmffi__structural_add_method(g_state_index, "__ffi_init__", "An empty state.", 1, g_state_init);
  tvmffi__structural_add_attr_fn(g_state_index, "__ffi_init__", g_state_init);
  register_fn_attr(g_state_index, "__ffi_new__", g_state_init, NULL);

  g_enum_index = new_enum_type("ffi.Enum", 1, kTVMFFIObject, "Base of enum singletons.");
  add_field(g_enum_index, "_int_index", "Canonical integer index.", offsetof(enum_obj, int_index),
            8, kTVMFFIFieldFlagBitMaskSEqHashIgnore, tvmffi__getter_i64, set_int_index, kTVMFFIInt);
  add_field(g_enum_index, "_str_index", "Canonical string index.", offsetof(enum_obj, str_index),
            16, 0, tvmffi__getter_any, set_str_index, kTVMFFIAny);
  g_int_enum_index =
      new_enum_type("ffi.IntEnum", 2, g_enum_index, "Enum whose value is its integer index.");
  g_str_enum_index =
      new_enum_type("ffi.StrEnum", 2, g_enum_index, "Enum whose value is its string index.");
  const int64_t alias = kTVMFFIFieldFlagBitMaskInitOff | kTVMFFIFieldFlagBitMaskSEqHashIgnore;
  add_field(g_int_enum_index, "value", "Canonical integer index.", offsetof(enum_obj, int_index), 8,
            alias, tvmffi__getter_i64, set_int_index, kTVMFFIInt);
  add_field(g_str_enum_index, "value", "Canonical string index.", offsetof(enum_obj, str_index), 16,
            alias, tvmffi__getter_any, set_str_index, kTVMFFIAny);
  enum_new_attr(g_enum_index);
  enum_new_attr(g_int_enum_index);
  enum_new_attr(g_str_enum_index);
  TVMFFIByteArray col = {"__ffi_enum__", 12};
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  if (TVMFFITypeRegisterAttr(kTVMFFINone, &col, &none) != 0)
    tvmffi__fatal("cannot create the __ffi_enum__ column");
}

int tvmffi__enum_is_instance_type(int32_t type_index) {
  if (g_enum_index < 0 || type_index < g_enum_index) return 0; /* subclasses come later */
  if (type_index == g_enum_index) return 1;
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  return info != NULL && info->type_depth > 1 &&
         info->type_ancestors[1]->type_index == g_enum_index;
}

const TVMFFIAny* tvmffi__enum_str_index(const TVMFFIObject* obj) {
  return &((const enum_obj*)obj)->str_index;
}

/* ---- JSON graph: a member is written as its canonical index ---------------------- */

static int derives_from(int32_t type_index, int32_t base) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  const TVMFFITypeInfo* b = tvmffi__type_info_lookup(base);
  return type_index == base || (info != NULL && b != NULL && info->type_depth > b->type_depth &&
                                info->type_ancestors[b->type_depth]->type_index == base);
}

int tvmffi__enum_index_of(const TVMFFIObject* obj, TVMFFIAny* out) {
  const enum_obj* e = (const enum_obj*)obj;
  if (derives_from(obj->type_index, g_int_enum_index)) {
    tvmffi__any_set_int(out, e->int_index);
    return 0;
  }
  tvmffi__any_copy(&e->str_index, out);
  return 0;
}

int tvmffi__enum_member_at(int32_t type_index, const TVMFFIAny* index, TVMFFIAny* out) {
  static const TVMFFITypeAttrColumn* col = NULL;
  TVMFFIByteArray name = {"__ffi_enum__", 12};
  if (col == NULL) col = TVMFFIGetTypeAttrColumn(&name);
  const TVMFFIAny* state = NULL;
  if (col != NULL && type_index >= col->begin_index && type_index < col->begin_index + col->size &&
      col->data[type_index - col->begin_index].type_index == g_state_index)
    state = &col->data[type_index - col->begin_index];
  TVMFFIByteArray s;
  int is_int = index->type_index == kTVMFFIInt, is_str = tvmffi__any_as_str(index, &s);
  if (!is_int && !is_str)
    return tvmffi__raise("TypeError", "an index of enum `%s` must be an int or a str, got `%s`",
                         tvmffi__type_key(type_index), tvmffi__any_type_key(index));
  if (state != NULL) {
    TVMFFIAny key;
    if (tvmffi__container_key_acquire(index, &key) != 0) return -1;
    TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(((enum_state*)state->v_obj)->indexes);
    uint64_t pos;
    int rc = TVMFFIMapCellFind(cell, &key, &pos);
    tvmffi__any_release(&key);
    if (rc == 0 && pos != TVMFFI_MAP_ITER_END) {
      tvmffi__any_copy(TVMFFIMapCellValue(cell, pos), out);
      return 0;
    }
  }
  if (is_int)
    return tvmffi__raise("ValueError", "enum `%s` has no member at integer index %lld",
                         tvmffi__type_key(type_index), (long long)index->v_int64);
  return tvmffi__raise("ValueError", "enum `%s` has no member at string index \"%.*s\"",
                       tvmffi__type_key(type_index), (int)s.size, s.data);
}
