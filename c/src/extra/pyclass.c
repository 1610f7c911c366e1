/*
 * pyclass.c -- runtime support for object types defined from Python
 * (tvm_ffi.dataclasses.py_class; docs/abi.md §14.4):
 *
 *   ffi.MakeFieldGetter(field_static_type_index) -> int
 *       address of the TVMFFIFieldGetter of a Python-defined field
 *   ffi.MakeFieldSetter(field_type_index, type_converter, f_convert) -> Function
 *       setter Function (called with (OpaquePtr field_addr, value)); when
 *       f_convert is a Function the stored value is f_convert(value), so the
 *       binding's type rules apply to every writer, C and C++ ones included
 *   ffi._PyClassAllocTypeIndex(type_key, parent_type_index) -> int
 *       allocates the index of a new type under a parent; a parent that takes
 *       no more children (a final type) is a TypeError, not the process exit
 *       of TVMFFITypeGetOrAllocIndex
 *   ffi._PyClassRegisterTypeAttrColumns(type_index, total_size) -> None
 *       registers `__ffi_new__`, `__ffi_shallow_copy__` and (unless present) a
 *       generated `__ffi_init__` for the type
 *
 * Layout: a Python-defined object is the header followed by one owned
 * 16-byte Any per field, ancestors' fields first, `total_size` bytes in all
 * (the type's metadata records it; the deleter reads it back), so every slot
 * after the header is an Any and a zeroed block is all None.  An enum class
 * (tvm_ffi.dataclasses.Enum) starts with the ffi.Enum fields instead of the
 * bare header; enum.c handles that part.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GETTER_SIG "ffi.MakeFieldGetter(0: int) -> int"
#define SETTER_SIG "ffi.MakeFieldSetter(0: int, 1: int, 2: Optional[ffi.Function]) -> ffi.Function"
#define COLUMNS_SIG "ffi._PyClassRegisterTypeAttrColumns(0: int, 1: int) -> None"
#define ALLOC_SIG "ffi._PyClassAllocTypeIndex(0: str, 1: int) -> int"

/* ---- fields ----------------------------------------------------------------- */

static int any_slot_get(void* field_addr, TVMFFIAny* result) {
  tvmffi__any_copy((const TVMFFIAny*)field_addr, result);
  return 0;
}

static int make_field_getter(void* self, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  (void)self;
  int64_t sti;
  if (tvmffi__args_count(GETTER_SIG, num_args, 1) || tvmffi__arg_int(GETTER_SIG, args, 0, &sti))
    return -1;
  /* Every Python-defined field is stored as an Any, whatever its declared type. */
  tvmffi__any_set_int(result, (int64_t)(intptr_t)any_slot_get);
  return 0;
}

typedef struct {
  TVMFFIObject* convert; /* owned ffi.Function, or NULL */
} setter_ctx;

static void setter_ctx_free(void* self) {
  setter_ctx* c = (setter_ctx*)self;
  tvmffi__decref(c->convert);
  free(c);
}

#define SET_SIG "<py_class field setter>(0: void*, 1: Any) -> None"

static int setter_call(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  setter_ctx* c = (setter_ctx*)self;
  if (tvmffi__args_count(SET_SIG, num_args, 2)) return -1;
  if (args[0].type_index != kTVMFFIOpaquePtr || args[0].v_ptr == NULL)
    return tvmffi__raise("TypeError", "%s: argument #0 must be the field address (void*), got `%s`",
                         SET_SIG, tvmffi__any_type_key(&args[0]));
  TVMFFIAny v;
  tvmffi__any_set_none(&v);
  if (c->convert != NULL) {
    TVMFFIAny arg = args[1]; /* the call takes a mutable array; the view stays borrowed */
    if (tvmffi__function_call(c->convert, &arg, 1, &v) != 0) return -1;
  } else if (TVMFFIAnyViewToOwnedAny(&args[1], &v) != 0) {
    return -1;
  }
  TVMFFIAny* slot = (TVMFFIAny*)args[0].v_ptr;
  TVMFFIAny old = *slot;
  *slot = v; /* store first: releasing the old value may run arbitrary deleters */
  tvmffi__any_release(&old);
  tvmffi__any_set_none(result);
  return 0;
}

static int make_field_setter(void* self, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  (void)self;
  int64_t type_index, converter;
  if (tvmffi__args_count(SETTER_SIG, num_args, 3) ||
      tvmffi__arg_int(SETTER_SIG, args, 0, &type_index) ||
      tvmffi__arg_int(SETTER_SIG, args, 1, &converter))
    return -1;
  if (converter != 0)
    return tvmffi__raise("ValueError",
                         "ffi.MakeFieldSetter: type_converter must be 0 (reserved); pass a "
                         "conversion Function as f_convert instead, got %lld",
                         (long long)converter);
  TVMFFIObject* convert = NULL;
  if (args[2].type_index != kTVMFFINone &&
      tvmffi__arg_obj(SETTER_SIG, args, 2, kTVMFFIFunction, &convert) != 0)
    return -1;
  setter_ctx* c = (setter_ctx*)malloc(sizeof(setter_ctx));
  if (c == NULL) return tvmffi__raise_oom();
  c->convert = convert;
  if (convert != NULL) tvmffi__incref(convert);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(c, setter_call, setter_ctx_free, &f) != 0) {
    setter_ctx_free(c);
    return -1;
  }
  tvmffi__any_set_obj(result, (TVMFFIObject*)f);
  return 0;
}

/* ---- objects ------------------------------------------------------------------ */

static int32_t registered_size(int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  if (info == NULL) return 0;
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  return md != NULL ? md->total_size : 0;
}

static void pyobj_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    int64_t size = registered_size(o->type_index), first = tvmffi__enum_prefix_size(o->type_index);
    TVMFFIAny* slots = (TVMFFIAny*)((char*)o + first);
    int64_t n = size > first ? (size - first) / (int64_t)sizeof(TVMFFIAny) : 0;
    for (int64_t i = 0; i < n; ++i) tvmffi__any_release(&slots[i]);
    tvmffi__enum_prefix_release(o);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* The type index rides in the function's self pointer. */
static int new_object(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)args;
  int32_t t = (int32_t)(intptr_t)self;
  if (tvmffi__args_count("__ffi_new__() -> Object", num_args, 0)) return -1;
  TVMFFIObject* o = tvmffi__object_alloc((size_t)registered_size(t), t, pyobj_deleter);
  if (o == NULL) return -1;
  tvmffi__any_set_obj(result, o);
  return 0;
}

static int shallow_copy(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  int32_t t = (int32_t)(intptr_t)self;
  static const char sig[] = "__ffi_shallow_copy__(0: Object) -> Object";
  TVMFFIObject* src;
  if (tvmffi__args_count(sig, num_args, 1) || tvmffi__arg_obj(sig, args, 0, t, &src)) return -1;
  if (src->type_index != t)
    return tvmffi__raise("TypeError", "%s: expected `%s`, got `%s`", sig, tvmffi__type_key(t),
                         tvmffi__type_key(src->type_index));
  size_t size = (size_t)registered_size(t);
  TVMFFIObject* o = tvmffi__object_alloc(size, t, pyobj_deleter);
  if (o == NULL) return -1;
  size_t first = (size_t)tvmffi__enum_prefix_size(t);
  tvmffi__enum_prefix_copy(src, o);
  const TVMFFIAny* from = (const TVMFFIAny*)((const char*)src + first);
  TVMFFIAny* to = (TVMFFIAny*)((char*)o + first);
  for (size_t i = 0; i < (size - first) / sizeof(TVMFFIAny); ++i)
    tvmffi__any_copy(&from[i], &to[i]);
  tvmffi__any_set_obj(result, o);
  return 0;
}

static int has_attr(int32_t t, const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  if (col == NULL) return 0;
  int64_t i = (int64_t)t - col->begin_index;
  return i >= 0 && i < col->size && col->data[i].type_index != kTVMFFINone;
}

static int register_fn_attr(int32_t t, const char* name, TVMFFISafeCallType fn) {
  if (has_attr(t, name)) return 0; /* a second registration would be an error */
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate((void*)(intptr_t)t, fn, NULL, &f) != 0) return -1;
  TVMFFIAny v;
  tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
  TVMFFIByteArray n = {name, strlen(name)};
  int rc = TVMFFITypeRegisterAttr(t, &n, &v);
  tvmffi__any_release(&v);
  return rc;
}

static int call_register_ffi_init(int32_t t) {
  TVMFFIByteArray n = {"ffi._RegisterFFIInit", 20};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) return -1;
  if (f == NULL) return tvmffi__raise("RuntimeError", "ffi._RegisterFFIInit is not registered");
  TVMFFIAny arg, r;
  tvmffi__any_set_int(&arg, t);
  tvmffi__any_set_none(&r);
  int rc = tvmffi__function_call(f, &arg, 1, &r);
  tvmffi__decref((TVMFFIObject*)f);
  tvmffi__any_release(&r);
  return rc;
}

static int register_columns(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  (void)self;
  int64_t t, size;
  if (tvmffi__args_count(COLUMNS_SIG, num_args, 2) || tvmffi__arg_int(COLUMNS_SIG, args, 0, &t) ||
      tvmffi__arg_int(COLUMNS_SIG, args, 1, &size))
    return -1;
  if (t < kTVMFFIStaticObjectBegin || t > INT32_MAX || tvmffi__type_info_lookup((int32_t)t) == NULL)
    return tvmffi__raise("ValueError", "%s: %lld is not a registered object type index",
                         COLUMNS_SIG, (long long)t);
  int64_t header = tvmffi__enum_prefix_size((int32_t)t), slot = (int64_t)sizeof(TVMFFIAny);
  if (size < header || size > INT32_MAX || (size - header) % slot != 0)
    return tvmffi__raise("ValueError",
                         "%s: total_size must be %lld plus a multiple of %lld (one Any per "
                         "field), got %lld",
                         COLUMNS_SIG, (long long)header, (long long)slot, (long long)size);
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup((int32_t)t);
  const TVMFFITypeMetadata* md = __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
  if (md == NULL) {
    TVMFFITypeMetadata m;
    memset(&m, 0, sizeof(m));
    m.total_size = (int32_t)size;
    m.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
    if (TVMFFITypeRegisterMetadata((int32_t)t, &m) != 0) return -1;
  } else if (md->total_size != size) {
    return tvmffi__raise("ValueError", "%s: `%s` is registered with total_size %d, not %lld",
                         COLUMNS_SIG, tvmffi__type_key((int32_t)t), md->total_size,
                         (long long)size);
  }
  if (register_fn_attr((int32_t)t, "__ffi_new__", new_object) != 0 ||
      register_fn_attr((int32_t)t, "__ffi_shallow_copy__", shallow_copy) != 0)
    return -1;
  if (!has_attr((int32_t)t, "__ffi_init__") && call_register_ffi_init((int32_t)t) != 0) return -1;
  tvmffi__any_set_none(result);
  return 0;
}

/* ---- type index --------------------------------------------------------------- */

static int alloc_type_index(void* self, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  (void)self;
  TVMFFIByteArray key;
  int64_t parent;
  if (tvmffi__args_count(ALLOC_SIG, num_args, 2) || tvmffi__arg_str(ALLOC_SIG, args, 0, &key) ||
      tvmffi__arg_int(ALLOC_SIG, args, 1, &parent))
    return -1;
  const TVMFFITypeInfo* pinfo = (parent >= kTVMFFIStaticObjectBegin && parent <= INT32_MAX)
                                    ? tvmffi__type_info_lookup((int32_t)parent)
                                    : NULL;
  if (pinfo == NULL)
    return tvmffi__raise("ValueError", "%s: parent %lld is not a registered object type index",
                         ALLOC_SIG, (long long)parent);
  /* Children may overflow their parent's block: a Python class hierarchy has
   * no fixed size. */
  int32_t t =
      tvmffi__type_alloc_or_raise(key.data, key.size, pinfo->type_depth + 1, 0, 1, (int32_t)parent);
  if (t < 0) return -1;
  tvmffi__any_set_int(result, t);
  return 0;
}

void tvmffi__pyclass_globals_init(void) {
  tvmffi__register_global(
      "ffi.MakeFieldGetter", make_field_getter,
      "Address of the getter of a field of a Python-defined type (every "
      "such field is stored as an Any).",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"},{\"type\":\"int\"}]}");
  tvmffi__register_global("ffi.MakeFieldSetter", make_field_setter,
                          "Setter Function of a field of a Python-defined type; stores "
                          "f_convert(value) when f_convert is given.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"ffi.Function\"},"
                          "{\"type\":\"int\"},{\"type\":\"int\"},{\"type\":\"Optional\","
                          "\"args\":[{\"type\":\"ffi.Function\"}]}]}");
  tvmffi__register_global("ffi._PyClassAllocTypeIndex", alloc_type_index,
                          "Allocates the type index of a Python-defined type under a parent; "
                          "raises when the parent takes no more children.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"},"
                          "{\"type\":\"str\"},{\"type\":\"int\"}]}");
  tvmffi__register_global("ffi._PyClassRegisterTypeAttrColumns", register_columns,
                          "Registers __ffi_new__, __ffi_shallow_copy__ and a generated "
                          "__ffi_init__ for a Python-defined type.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"None\"},"
                          "{\"type\":\"int\"},{\"type\":\"int\"}]}");
}
