/*
 * enums.c -- the enum fixtures of libtvm_ffi_testing, as a C++ library using
 * tvm/ffi/enum.h and reflection/enum_def.h would register them:
 *
 *   testing.TestEnumVariant  an ffi.Enum subclass whose members Alpha (0) and
 *                            Beta (1) are registered here, each with the
 *                            extensible attribute "code" (10, 20)
 *   testing.TestCxxIntEnum   ffi.IntEnum / ffi.StrEnum subclasses without
 *   testing.TestCxxStrEnum   members: Python (tvm_ffi.testing) adds them
 *   testing.TestCxxEnumHolder  fields `priority: TestCxxIntEnum` and
 *                            `opcode: TestCxxStrEnum`, generated constructor
 *   testing.enum_variant_get(str) -> TestEnumVariant member by string index
 *   testing.TestLegacyEnum   an ffi.Enum subclass registered the 0.1.0-0.1.12 way,
 *                            as reflection/enum_def.h of those headers does:
 *                            members Red (0) and Green (1) in the Dict
 *                            "__ffi_enum_entries__" (name -> member), the
 *                            attribute "code" (1, 2) in "__ffi_enum_attrs__"
 *                            (name -> List indexed by the member's ordinal)
 *   testing.legacy_enum_get(str) -> TestLegacyEnum member by name, read from
 *                            that Dict as those headers' EnumObj::Get does
 *
 * Members live in the type's ffi.EnumState (type attribute "__ffi_enum__"),
 * laid out as the runtime documents it (enum.c): entries, indexes and attrs
 * after the header; a member is the header, int64 _int_index and a String
 * Any _str_index.  Everything goes through the public C API.
 */
#include <stddef.h>

#include "testing.h"

typedef struct {
  TVMFFIObject header;
  int64_t int_index;
  TVMFFIAny str_index;
} member_obj;

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* entries;
  TVMFFIObject* indexes;
  TVMFFIObject* attrs;
} state_obj;

typedef struct {
  TVMFFIObject header;
  TVMFFIObject* priority;
  TVMFFIObject* opcode;
} holder_obj;

static int32_t g_variant = -1, g_int_enum = -1, g_str_enum = -1, g_holder = -1;

static const char k_state_attr[] = "__ffi_enum__";

/* A type attribute's value (borrowed), or NULL when the type has none. */
static const TVMFFIAny* type_attr(int32_t t, const char* name) {
  TVMFFIByteArray n = ba(name);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  if (col == NULL || t < col->begin_index || t >= col->begin_index + col->size) return NULL;
  const TVMFFIAny* v = &col->data[t - col->begin_index];
  return v->type_index == kTVMFFINone ? NULL : v;
}

static TVMFFIAny obj_any(TVMFFIObject* o) {
  TVMFFIAny v;
  v.type_index = o->type_index;
  v.zero_padding = 0;
  v.v_obj = o;
  return v;
}

/* ---- members -------------------------------------------------------------- */

static void member_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) release(&((member_obj*)self)->str_index);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static TVMFFIObject* new_member(int32_t t) {
  member_obj* m = (member_obj*)calloc(1, sizeof(member_obj));
  if (m == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return NULL;
  }
  m->header.combined_ref_count = UINT64_C(0x100000001);
  m->header.type_index = t;
  m->header.deleter = member_deleter;
  m->str_index.type_index = kTVMFFISmallStr; /* "" */
  return &m->header;
}

/* __ffi_new__ of the enum fixture types; the type index rides in self. */
static int member_new(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  (void)args;
  if (arg_count("__ffi_new__() -> ffi.Enum", n, 0) != 0) return -1;
  TVMFFIObject* o = new_member((int32_t)(intptr_t)self);
  if (o == NULL) return -1;
  *r = obj_any(o);
  return 0;
}

/* __ffi_shallow_copy__ (the C++ copy constructor): a distinct object, same indices. */
static int member_copy(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "__ffi_shallow_copy__(0: ffi.Enum) -> ffi.Enum";
  int32_t t = (int32_t)(intptr_t)self;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != t) return arg_mismatch(sig, 0, "the enum type", &args[0]);
  const member_obj* src = (const member_obj*)args[0].v_obj;
  TVMFFIObject* o = new_member(t);
  if (o == NULL) return -1;
  member_obj* dst = (member_obj*)o;
  dst->int_index = src->int_index;
  if (TVMFFIAnyViewToOwnedAny(&src->str_index, &dst->str_index) != 0) {
    TVMFFIObjectDecRef(o);
    return -1;
  }
  *r = obj_any(o);
  return 0;
}

/* ---- the enum state of testing.TestEnumVariant ----------------------------- */

static state_obj* variant_state(void) {
  const TVMFFIAny* v = g_variant < 0 ? NULL : type_attr(g_variant, k_state_attr);
  return v != NULL && v->type_index >= kTVMFFIStaticObjectBegin ? (state_obj*)v->v_obj : NULL;
}

static state_obj* ensure_state(int32_t t) {
  const TVMFFIAny* have = type_attr(t, k_state_attr);
  if (have != NULL) return (state_obj*)have->v_obj;
  TVMFFIByteArray key = ba("ffi.EnumState");
  int32_t st;
  if (TVMFFITypeKeyToIndex(&key, &st) != 0) return NULL;
  const TVMFFIAny* ctor = type_attr(st, "__ffi_new__");
  TVMFFIAny state;
  set_none(&state);
  if (ctor == NULL || ctor->type_index != kTVMFFIFunction ||
      TVMFFIFunctionCall(ctor->v_obj, NULL, 0, &state) != 0)
    return NULL;
  TVMFFIByteArray n = ba(k_state_attr);
  int rc = TVMFFITypeRegisterAttr(t, &n, &state);
  release(&state); /* the column holds it now */
  return rc == 0 ? (state_obj*)type_attr(t, k_state_attr)->v_obj : NULL;
}

static int dict_set(TVMFFIObject* dict, TVMFFIAny k, TVMFFIAny v) {
  TVMFFIAny args[3] = {obj_any(dict), k, v}, r;
  if (call_global("ffi.DictSetItem", args, 3, &r) != 0) return -1;
  release(&r);
  return 0;
}

/* attrs[name] (an owned reference in *out), made empty by the global `ctor` when absent. */
static int attr_column(TVMFFIObject* attrs, const char* name, const char* ctor, int32_t want,
                       TVMFFIAny* out) {
  TVMFFIAny get_args[2] = {obj_any(attrs), v_str(name)};
  set_none(out);
  if (call_global("ffi.DictGetItemOrMissing", get_args, 2, out) != 0) return -1;
  if (out->type_index == want) return 0;
  release(out);
  if (call_global(ctor, NULL, 0, out) != 0) return -1;
  if (dict_set(attrs, v_str(name), *out) == 0) return 0;
  release(out);
  return -1;
}

/* The member of type t at `name` in the Dict `dict` (*r), or 0 leaving *r None. */
static int dict_member(TVMFFIAny dict, const char* name, int32_t t, TVMFFIAny* r) {
  TVMFFIAny get_args[2] = {dict, v_str(name)};
  if (call_global("ffi.DictGetItemOrMissing", get_args, 2, r) != 0) return -1;
  if (r->type_index == t) return 1;
  release(r);
  set_none(r);
  return 0;
}

/* EnumDef(name).set_attr("code", code) with the registration-order index. */
static int define_variant(state_obj* s, const char* name, int64_t code) {
  TVMFFIAny size_args[1] = {obj_any(s->entries)}, size;
  if (call_global("ffi.ListSize", size_args, 1, &size) != 0) return -1;
  TVMFFIObject* m = new_member(g_variant);
  if (m == NULL) return -1;
  member_obj* mo = (member_obj*)m;
  mo->int_index = size.v_int64;
  TVMFFIByteArray text = ba(name);
  if (TVMFFIStringFromByteArray(&text, &mo->str_index) != 0) goto fail;
  TVMFFIAny append[2] = {obj_any(s->entries), obj_any(m)}, r;
  if (call_global("ffi.ListAppend", append, 2, &r) != 0) goto fail;
  release(&r);
  if (dict_set(s->indexes, v_int(mo->int_index), obj_any(m)) != 0 ||
      dict_set(s->indexes, mo->str_index, obj_any(m)) != 0)
    goto fail;
  TVMFFIAny column;
  if (attr_column(s->attrs, "code", "ffi.Dict", kTVMFFIDict, &column) != 0) goto fail;
  int rc = dict_set(column.v_obj, obj_any(m), v_int(code));
  release(&column);
  TVMFFIObjectDecRef(m);
  return rc;
fail:
  TVMFFIObjectDecRef(m);
  return -1;
}

static int enum_variant_get(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing.enum_variant_get(0: str) -> ffi.Enum";
  char buf[128];
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (!is_str(&args[0])) return arg_mismatch(sig, 0, "str", &args[0]);
  state_obj* s = variant_state();
  if (s == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "testing.TestEnumVariant has no enum state");
    return -1;
  }
  const char* name = str_of(&args[0], buf, sizeof(buf));
  int found = dict_member(obj_any(s->indexes), name, g_variant, r);
  if (found != 0) return found > 0 ? 0 : -1;
  char msg[256];
  snprintf(msg, sizeof(msg), "Enum `testing.TestEnumVariant` has no instance with index %s", name);
  TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
  return -1;
}

/* ---- testing.TestLegacyEnum: the 0.1.0-0.1.12 convention ------------------ */

static int32_t g_legacy = -1;

/* The Dict a legacy type attribute holds (borrowed), registered empty when absent. */
static TVMFFIObject* legacy_dict(const char* attr) {
  const TVMFFIAny* have = type_attr(g_legacy, attr);
  if (have != NULL) return have->type_index == kTVMFFIDict ? have->v_obj : NULL;
  TVMFFIAny d;
  if (call_global("ffi.Dict", NULL, 0, &d) != 0) return NULL;
  TVMFFIByteArray n = ba(attr);
  int rc = TVMFFITypeRegisterAttr(g_legacy, &n, &d);
  release(&d); /* the column holds it now */
  return rc == 0 ? type_attr(g_legacy, attr)->v_obj : NULL;
}

/* EnumDef<T>(name).set_attr("code", code) of the 0.1.12 headers: ordinal = entries' size. */
static int define_legacy(const char* name, int64_t code) {
  TVMFFIObject* entries = legacy_dict("__ffi_enum_entries__");
  TVMFFIObject* attrs = legacy_dict("__ffi_enum_attrs__");
  if (entries == NULL || attrs == NULL) return -1;
  TVMFFIAny size_args[1] = {obj_any(entries)}, size, column, r;
  if (call_global("ffi.DictSize", size_args, 1, &size) != 0) return -1;
  TVMFFIObject* m = new_member(g_legacy);
  if (m == NULL) return -1;
  member_obj* mo = (member_obj*)m;
  mo->int_index = size.v_int64; /* EnumObj::_value */
  TVMFFIByteArray text = ba(name);
  if (TVMFFIStringFromByteArray(&text, &mo->str_index) != 0 || /* EnumObj::_name */
      dict_set(entries, mo->str_index, obj_any(m)) != 0)
    goto fail;
  if (attr_column(attrs, "code", "ffi.List", kTVMFFIList, &column) != 0) goto fail;
  TVMFFIAny append[2] = {column, v_int(code)}; /* the ordinals are dense: one append each */
  int rc = call_global("ffi.ListAppend", append, 2, &r);
  if (rc == 0) release(&r);
  release(&column);
  TVMFFIObjectDecRef(m);
  return rc;
fail:
  TVMFFIObjectDecRef(m);
  return -1;
}

static int legacy_enum_get(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig = "testing.legacy_enum_get(0: str) -> ffi.Enum";
  char buf[128];
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (!is_str(&args[0])) return arg_mismatch(sig, 0, "str", &args[0]);
  const TVMFFIAny* entries = type_attr(g_legacy, "__ffi_enum_entries__");
  const char* name = str_of(&args[0], buf, sizeof(buf));
  int found = entries != NULL ? dict_member(*entries, name, g_legacy, r) : 0;
  if (found != 0) return found > 0 ? 0 : -1;
  char msg[256];
  snprintf(msg, sizeof(msg), "Enum `testing.TestLegacyEnum` has no instance named `%s`", name);
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg);
  return -1;
}

/* ---- testing.TestCxxEnumHolder --------------------------------------------- */

static void holder_deleter(void* self, int flags) {
  holder_obj* o = (holder_obj*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    if (o->priority) TVMFFIObjectDecRef(o->priority);
    if (o->opcode) TVMFFIObjectDecRef(o->opcode);
    o->priority = o->opcode = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int holder_create(TVMFFIObjectHandle* out) {
  holder_obj* o = (holder_obj*)calloc(1, sizeof(holder_obj));
  if (o == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "testing: out of memory");
    return -1;
  }
  o->header.combined_ref_count = UINT64_C(0x100000001);
  o->header.type_index = g_holder;
  o->header.deleter = holder_deleter;
  *out = o;
  return 0;
}

static int get_member(void* addr, TVMFFIAny* r) {
  TVMFFIObject* o = *(TVMFFIObject**)addr;
  if (o == NULL) {
    set_none(r);
    return 0;
  }
  TVMFFIObjectIncRef(o);
  *r = obj_any(o);
  return 0;
}

static int set_member(int32_t want, const char* want_key, void* addr, const TVMFFIAny* v) {
  if (v->type_index != want) {
    char msg[256];
    snprintf(msg, sizeof(msg), "Cannot convert from type `%s` to `%s`", type_key_of(v), want_key);
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
    return -1;
  }
  TVMFFIObject* old = *(TVMFFIObject**)addr;
  TVMFFIObjectIncRef(v->v_obj);
  *(TVMFFIObject**)addr = v->v_obj;
  if (old) TVMFFIObjectDecRef(old);
  return 0;
}

static int set_priority(void* addr, const TVMFFIAny* v) {
  return set_member(g_int_enum, "testing.TestCxxIntEnum", addr, v);
}

static int set_opcode(void* addr, const TVMFFIAny* v) {
  return set_member(g_str_enum, "testing.TestCxxStrEnum", addr, v);
}

static int holder_shallow_copy(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) {
  static const char* sig =
      "testing.TestCxxEnumHolder.__ffi_shallow_copy__(0: testing.TestCxxEnumHolder) -> "
      "testing.TestCxxEnumHolder";
  (void)h;
  if (arg_count(sig, n, 1) != 0) return -1;
  if (args[0].type_index != g_holder)
    return arg_mismatch(sig, 0, "testing.TestCxxEnumHolder", &args[0]);
  TVMFFIObjectHandle out;
  if (holder_create(&out) != 0) return -1;
  const holder_obj* src = (const holder_obj*)args[0].v_obj;
  holder_obj* dst = (holder_obj*)out;
  dst->priority = src->priority;
  dst->opcode = src->opcode;
  if (dst->priority) TVMFFIObjectIncRef(dst->priority);
  if (dst->opcode) TVMFFIObjectIncRef(dst->opcode);
  *r = obj_any(&dst->header);
  return 0;
}

static void holder_field(const char* name, const char* key, int32_t type, int64_t offset,
                         TVMFFIFieldSetter setter) {
  char meta[128];
  snprintf(meta, sizeof(meta), "{\"type_schema\":\"{\\\"type\\\":\\\"%s\\\"}\"}", key);
  TVMFFIFieldInfo f;
  memset(&f, 0, sizeof(f));
  f.name = ba(name);
  f.metadata = ba(meta);
  f.flags = kTVMFFIFieldFlagBitMaskWritable;
  f.size = 8;
  f.alignment = 8;
  f.offset = offset;
  f.getter = get_member;
  f.setter = (void*)setter;
  f.field_static_type_index = type;
  set_none(&f.default_value_or_factory);
  TVMFFITypeRegisterField(g_holder, &f);
}

/* ---- registration ---------------------------------------------------------- */

static void register_fn_attr(int32_t t, const char* name, TVMFFISafeCallType fn, void* self) {
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(self, fn, NULL, &f) != 0) return;
  TVMFFIAny v = obj_any((TVMFFIObject*)f);
  TVMFFIByteArray n = ba(name);
  TVMFFITypeRegisterAttr(t, &n, &v);
  TVMFFIObjectDecRef(f);
}

/* A subclass of an enum base with no fields of its own; 0 if another copy of this
 * library registered it already. */
static int32_t enum_type(const char* key, const char* parent_key, int* fresh) {
  TVMFFIByteArray pk = ba(parent_key), k = ba(key);
  int32_t parent;
  if (TVMFFITypeKeyToIndex(&pk, &parent) != 0) return -1;
  const TVMFFITypeInfo* pinfo = TVMFFIGetTypeInfo(parent);
  int32_t t = TVMFFITypeGetOrAllocIndex(&k, -1, pinfo->type_depth + 1, 0, 1, parent);
  *fresh = TVMFFIGetTypeInfo(t)->metadata == NULL;
  if (!*fresh) return t;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.total_size = (int32_t)sizeof(member_obj);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  TVMFFITypeRegisterMetadata(t, &md);
  register_fn_attr(t, "__ffi_new__", member_new, (void*)(intptr_t)t);
  register_fn_attr(t, "__ffi_shallow_copy__", member_copy, (void*)(intptr_t)t);
  tt_set_final(t, 1); /* upstream's enum classes are final */
  tt_def_convert(t);
  return t;
}

void tvmffi_testing__enums_init(void) {
  int fresh_variant, fresh_int, fresh_str;
  g_variant = enum_type("testing.TestEnumVariant", "ffi.Enum", &fresh_variant);
  g_int_enum = enum_type("testing.TestCxxIntEnum", "ffi.IntEnum", &fresh_int);
  g_str_enum = enum_type("testing.TestCxxStrEnum", "ffi.StrEnum", &fresh_str);
  int fresh_legacy;
  g_legacy = enum_type("testing.TestLegacyEnum", "ffi.Enum", &fresh_legacy);
  if (g_variant < 0 || g_int_enum < 0 || g_str_enum < 0 || g_legacy < 0) return;
  if (fresh_legacy && (define_legacy("Red", 1) != 0 || define_legacy("Green", 2) != 0))
    fprintf(stderr, "libtvm_ffi_testing: cannot register testing.TestLegacyEnum\n");
  tt_reg("testing.legacy_enum_get", legacy_enum_get, NULL,
         "The testing.TestLegacyEnum member of a name, read as the 0.1.12 headers do.",
         "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Enum\"},{\"type\":\"str\"}]}");
  if (fresh_variant) {
    state_obj* s = ensure_state(g_variant);
    if (s == NULL || define_variant(s, "Alpha", 10) != 0 || define_variant(s, "Beta", 20) != 0)
      fprintf(stderr, "libtvm_ffi_testing: cannot register testing.TestEnumVariant\n");
  }
  tt_reg("testing.enum_variant_get", enum_variant_get, NULL,
         "The testing.TestEnumVariant member at a string index.",
         "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Enum\"},{\"type\":\"str\"}]}");

  TVMFFIByteArray k = ba("testing.TestCxxEnumHolder");
  g_holder = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
  if (TVMFFIGetTypeInfo(g_holder)->metadata != NULL) return;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.creator = holder_create;
  md.total_size = (int32_t)sizeof(holder_obj);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  TVMFFITypeRegisterMetadata(g_holder, &md);
  holder_field("priority", "testing.TestCxxIntEnum", g_int_enum, offsetof(holder_obj, priority),
               set_priority);
  holder_field("opcode", "testing.TestCxxStrEnum", g_str_enum, offsetof(holder_obj, opcode),
               set_opcode);
  register_fn_attr(g_holder, "__ffi_shallow_copy__", holder_shallow_copy, NULL);
  tt_set_final(g_holder, 0);
  TVMFFIAny arg = v_int(g_holder), r;
  if (call_global("ffi._RegisterFFIInit", &arg, 1, &r) == 0) release(&r);
}
