/*
 * convert.c -- the `__ffi_convert__` type attributes of the core object types
 * (docs/abi.md §12.6): a function (value) -> the value as that type, or TypeError.
 *
 * C++ registers the attribute with ObjectDef/TypeAttrDef::def_convert<TRef>(), as
 * TRef's cast from AnyView; these are the same casts for the runtime's own types, so
 * that a type-schema converter (Python's TypeSchema.convert) can build, say, an
 * ffi.Shape from a list of ints.  A value that already is an instance passes through;
 * the nullable references (ObjectRef, Function, Tensor) also take None; the widenings
 * are exactly the C++ casts': strings to String, bytes to Bytes, Array <-> List,
 * Map <-> Dict, and an Array or List of integers to Shape.
 */
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/extra/c_container.h>

#include "structural.h"

/* Writes the widened value of v to *out: 1 converted, 0 not applicable, -1 raised. */
typedef int (*widen_fn)(const TVMFFIAny* v, TVMFFIAny* out);

typedef struct {
  const char* key;    /* the type registered under */
  const char* target; /* the C++ reference type's name, as upstream's errors print it */
  int nullable;
  widen_fn widen;
} convert_rule;

static int widen_str(const TVMFFIAny* v, TVMFFIAny* out) {
  TVMFFIByteArray s;
  if (!tvmffi__any_as_str(v, &s)) return 0;
  return tvmffi__str_to_any(kTVMFFIStr, s.data, s.size, out) == 0 ? 1 : -1;
}

static int widen_bytes(const TVMFFIAny* v, TVMFFIAny* out) {
  TVMFFIByteArray s;
  if (!tvmffi__any_as_bytes(v, &s)) return 0;
  return tvmffi__str_to_any(kTVMFFIBytes, s.data, s.size, out) == 0 ? 1 : -1;
}

static const TVMFFISeqCell* seq_of(const TVMFFIAny* v, int32_t type_index) {
  return v->type_index == type_index ? TVMFFISeqGetCellPtr(v->v_obj) : NULL;
}

/* ctor(*args): the containers are built by their global constructors. */
static int call_ctor(const char* ctor, TVMFFIAny* args, uint64_t n, TVMFFIAny* out) {
  if (n > INT32_MAX) return tvmffi__raise("ValueError", "%s: too many items", ctor);
  TVMFFIByteArray name = {ctor, strlen(ctor)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &f) != 0) return -1;
  if (f == NULL) return tvmffi__raise("InternalError", "%s is not registered", ctor);
  int rc = TVMFFIFunctionCall(f, args, (int32_t)n, out);
  TVMFFIObjectDecRef(f);
  return rc == 0 ? 1 : -1;
}

/* ctor(*items) over the items of the sequence in v (of type `from`). */
static int copy_seq(const TVMFFIAny* v, int32_t from, const char* ctor, TVMFFIAny* out) {
  const TVMFFISeqCell* cell = seq_of(v, from);
  return cell == NULL ? 0 : call_ctor(ctor, (TVMFFIAny*)cell->data, (uint64_t)cell->size, out);
}

static int widen_array(const TVMFFIAny* v, TVMFFIAny* out) {
  return copy_seq(v, kTVMFFIList, "ffi.Array", out);
}

static int widen_list(const TVMFFIAny* v, TVMFFIAny* out) {
  return copy_seq(v, kTVMFFIArray, "ffi.List", out);
}

/* ctor(k0, v0, k1, v1, ...) over the entries of the Map or Dict in v (of type `from`). */
static int copy_map(const TVMFFIAny* v, int32_t from, const char* ctor, TVMFFIAny* out) {
  if (v->type_index != from) return 0;
  const TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(v->v_obj);
  TVMFFIAny* kv = (TVMFFIAny*)malloc((size_t)(cell->size * 2 + 1) * sizeof(TVMFFIAny));
  if (kv == NULL) return tvmffi__raise_oom();
  uint64_t n = 0;
  for (uint64_t p = TVMFFIMapCellIterBegin(cell); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(cell, p)) {
    kv[n++] = *TVMFFIMapCellKey(cell, p);  /* views: the source map holds them */
    kv[n++] = *TVMFFIMapCellValue(cell, p);
  }
  int rc = call_ctor(ctor, kv, n, out);
  free(kv);
  return rc;
}

static int widen_map(const TVMFFIAny* v, TVMFFIAny* out) {
  return copy_map(v, kTVMFFIDict, "ffi.Map", out);
}

static int widen_dict(const TVMFFIAny* v, TVMFFIAny* out) {
  return copy_map(v, kTVMFFIMap, "ffi.Dict", out);
}

/* An Array or List of integers (bools count, as in the int64 cast) to a Shape. */
static int widen_shape(const TVMFFIAny* v, TVMFFIAny* out) {
  const TVMFFISeqCell* cell = seq_of(v, kTVMFFIArray);
  if (cell == NULL) cell = seq_of(v, kTVMFFIList);
  if (cell == NULL) return 0;
  const TVMFFIAny* items = (const TVMFFIAny*)cell->data;
  for (int64_t i = 0; i < cell->size; ++i)
    if (items[i].type_index != kTVMFFIInt && items[i].type_index != kTVMFFIBool) return 0;
  int64_t small[8] = {0};
  int64_t* dims = cell->size <= 8 ? small : (int64_t*)malloc((size_t)cell->size * sizeof(int64_t));
  if (dims == NULL) return tvmffi__raise_oom();
  for (int64_t i = 0; i < cell->size; ++i) dims[i] = items[i].v_int64;
  TVMFFIObject* shape = tvmffi__shape_new(dims, (size_t)cell->size);
  if (dims != small) free(dims);
  if (shape == NULL) return -1;
  tvmffi__any_set_obj(out, shape);
  return 1;
}

static const convert_rule rules[] = {
    {"ffi.Object", "ffi.Object", 1, NULL},         {"ffi.String", "str", 0, widen_str},
    {"ffi.Bytes", "bytes", 0, widen_bytes},        {"ffi.Error", "ffi.Error", 0, NULL},
    {"ffi.Function", "ffi.Function", 1, NULL},     {"ffi.Shape", "ffi.Shape", 0, widen_shape},
    {"ffi.Tensor", "ffi.Tensor", 1, NULL},         {"ffi.Array", "Array<Any>", 0, widen_array},
    {"ffi.List", "List<Any>", 0, widen_list},      {"ffi.Map", "Map<Any, Any>", 0, widen_map},
    {"ffi.Dict", "Dict<Any, Any>", 0, widen_dict}, {"ffi.IntEnum", "ffi.IntEnum", 0, NULL},
    {"ffi.StrEnum", "ffi.StrEnum", 0, NULL},
};

/* self: 1 + the rule's index in rules[] (a NULL self means none); its type index is looked up once at registration. */
static int32_t rule_types[sizeof rules / sizeof rules[0]];

static int convert_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  size_t r = (size_t)(uintptr_t)self - 1;
  const convert_rule* rule = &rules[r];
  if (n != 1)
    return tvmffi__raise("TypeError",
                         "Mismatched number of arguments when calling: `%s.__ffi_convert__(0: "
                         "AnyView) -> %s`. Expected 1 but got %d arguments",
                         rule->key, rule->target, (int)n);
  const TVMFFIAny* v = &args[0];
  if ((v->type_index == kTVMFFINone && rule->nullable) ||
      (v->type_index >= kTVMFFIStaticObjectBegin &&
       tvmffi__type_is_instance(v->type_index, rule_types[r])))
    return TVMFFIAnyViewToOwnedAny(v, result);
  int rc = rule->widen == NULL ? 0 : rule->widen(v, result);
  if (rc != 0) return rc > 0 ? 0 : -1;
  return tvmffi__raise("TypeError", "Cannot cast from `%s` to `%s`", tvmffi__any_type_key(v),
                       rule->target);
}

void tvmffi__convert_globals_init(void) {
  tvmffi__structural_ensure_column("__ffi_convert__");
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
    TVMFFIByteArray key = {rules[r].key, strlen(rules[r].key)};
    if (TVMFFITypeKeyToIndex(&key, &rule_types[r]) != 0)
      tvmffi__fatal("%s is not registered", rules[r].key);
    TVMFFIObjectHandle f = NULL;
    if (TVMFFIFunctionCreate((void*)(uintptr_t)(r + 1), convert_call, NULL, &f) != 0)
      tvmffi__fatal("cannot create the __ffi_convert__ of %s", rules[r].key);
    TVMFFIAny v;
    tvmffi__any_set_obj(&v, (TVMFFIObject*)f);
    TVMFFIByteArray name = {"__ffi_convert__", strlen("__ffi_convert__")};
    int rc = TVMFFITypeRegisterAttr(rule_types[r], &name, &v);
    TVMFFIObjectDecRef(f);
    if (rc != 0) tvmffi__fatal("cannot register the __ffi_convert__ of %s", rules[r].key);
  }
}
