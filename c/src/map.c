/*
 * map.c -- ffi.Map (72) and ffi.Dict (76) objects and their globals
 * (docs/abi.md §7.8, §14.2).  The tables are the inline ones of
 * <tvm/ffi/extra/c_container.h>; this file owns object allocation:
 *
 *   - a new map is small, capacity 2, pairs inline at handle + 56, like the
 *     reference; every object is at least 80 bytes so a dense cell fits;
 *   - a Map grows the way copy-on-write C++ code grows it: into a new
 *     object (small inline capacity 4, then dense);
 *   - a Dict keeps its identity: new storage is transplanted into it.
 */
#include <stdlib.h>
#include <string.h>

#include "container.h"

/* The one probe-distance table of the library (the build defines the name, c_map.h). */
#ifdef TVMFFI_MAP_JUMP_TABLE
const uint64_t TVMFFI_MAP_JUMP_TABLE[TVMFFI_MAP_NUM_JUMPS] = TVMFFI_MAP_JUMP_VALUES;
#endif

#define MAP_PREFIX (sizeof(TVMFFIObject) + 32) /* header + common cell */
#define MAP_DENSE_SIZE (sizeof(TVMFFIObject) + sizeof(TVMFFIMapCell))

static void map_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    TVMFFIMapCellDestroy(TVMFFIMapGetCellPtr(self));
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* An object whose small table of `capacity` pairs sits inline at +56
 * (capacity 0: an object ready to receive a dense cell). */
static TVMFFIObject* map_alloc(int32_t type_index, uint64_t capacity) {
  size_t size = MAP_PREFIX + (size_t)capacity * sizeof(TVMFFIMapKV);
  if (size < MAP_DENSE_SIZE) size = MAP_DENSE_SIZE;
  TVMFFIObject* obj = tvmffi__object_alloc(size, type_index, map_deleter);
  if (obj == NULL) return NULL;
  TVMFFIMapCellInitSmall(TVMFFIMapGetCellPtr(obj), capacity ? (char*)obj + MAP_PREFIX : NULL,
                         capacity, NULL);
  return obj;
}

TVMFFIObject* tvmffi__map_new(int32_t type_index) {
  return map_alloc(type_index, TVMFFI_MAP_SMALL_INIT);
}

TVMFFIObject* tvmffi__map_new_sized(int32_t type_index, uint64_t count) {
  if (count <= TVMFFI_MAP_SMALL_MAX)
    return map_alloc(type_index, count > TVMFFI_MAP_SMALL_INIT ? count : TVMFFI_MAP_SMALL_INIT);
  TVMFFIObject* obj = map_alloc(type_index, 0);
  if (obj != NULL && TVMFFIMapCellInitDense(TVMFFIMapGetCellPtr(obj), count) != 0) {
    tvmffi__decref(obj);
    return NULL;
  }
  return obj;
}

int tvmffi__map_set(TVMFFIObject** pobj, TVMFFIAny* key, TVMFFIAny* value) {
  TVMFFIObject* obj = *pobj;
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(obj);
  int rc = TVMFFIMapCellInsert(cell, key, value, obj->type_index == kTVMFFIDict);
  if (rc <= 0) return rc;
  /* A full Map: move everything into a new, larger object. */
  uint64_t cap = TVMFFIMapCellGrowCapacity(cell);
  TVMFFIObject* grown = map_alloc(obj->type_index, cap);
  if (grown == NULL) return -1;
  TVMFFIMapCell* gcell = TVMFFIMapGetCellPtr(grown);
  if (TVMFFIMapCellGrowInto(cell, gcell, cap ? (char*)grown + MAP_PREFIX : NULL, key, value) != 0) {
    tvmffi__decref(grown);
    return -1;
  }
  tvmffi__decref(obj); /* left empty by GrowInto */
  *pobj = grown;
  return 0;
}

/* ---- global functions ---------------------------------------------------- */

typedef struct {
  int32_t type_index;
  const char* name; /* "Map" or "Dict" */
} map_kind;

static const map_kind kMap = {kTVMFFIMap, "Map"};
static const map_kind kDict = {kTVMFFIDict, "Dict"};

static int map_build(const map_kind* kind, const TVMFFIAny* args, int32_t num_args,
                     TVMFFIAny* result) {
  if (num_args % 2 != 0)
    return tvmffi__raise("InternalError",
                         "ffi.%s expects alternating keys and values (an even number of "
                         "arguments), got %d arguments",
                         kind->name, (int)num_args);
  TVMFFIObject* obj = tvmffi__map_new(kind->type_index);
  if (obj == NULL) return -1;
  for (int32_t i = 0; i < num_args; i += 2) {
    TVMFFIAny k, v;
    if (TVMFFIAnyViewToOwnedAny(&args[i], &k) != 0) goto fail;
    if (TVMFFIAnyViewToOwnedAny(&args[i + 1], &v) != 0) {
      tvmffi__any_release(&k);
      goto fail;
    }
    if (tvmffi__map_set(&obj, &k, &v) != 0) {
      tvmffi__any_release(&k);
      tvmffi__any_release(&v);
      goto fail;
    }
  }
  tvmffi__any_set_obj(result, obj);
  return 0;
fail:
  tvmffi__decref(obj);
  return -1;
}

static int map_ctor(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  return map_build(&kMap, args, n, result);
}

static int dict_ctor(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  return map_build(&kDict, args, n, result);
}

/* Checks (m, key) arguments and looks the key up.  *out_pos is the
 * position or TVMFFI_MAP_ITER_END. */
static int map_lookup(const char* fname, int32_t type_index, const TVMFFIAny* args,
                      int32_t num_args, TVMFFIObject** out_obj, uint64_t* out_pos) {
  if (tvmffi__args_count(fname, num_args, 2) ||
      tvmffi__arg_obj(fname, args, 0, type_index, out_obj))
    return -1;
  TVMFFIAny key;
  if (tvmffi__container_key_acquire(&args[1], &key) != 0) return -1;
  int rc = TVMFFIMapCellFind(TVMFFIMapGetCellPtr(*out_obj), &key, out_pos);
  tvmffi__any_release(&key);
  return rc;
}

static int map_size(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                    TVMFFIAny* result) {
  TVMFFIObject* obj;
  if (tvmffi__args_count(fname, n, 1) || tvmffi__arg_obj(fname, args, 0, type_index, &obj))
    return -1;
  tvmffi__any_set_int(result, (int64_t)TVMFFIMapGetCellPtr(obj)->size);
  return 0;
}

static int map_get_item(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                        TVMFFIAny* result) {
  TVMFFIObject* obj;
  uint64_t pos;
  if (map_lookup(fname, type_index, args, n, &obj, &pos) != 0) return -1;
  if (pos == TVMFFI_MAP_ITER_END) return tvmffi__raise("KeyError", "key is not in Map");
  tvmffi__any_copy(TVMFFIMapCellValue(TVMFFIMapGetCellPtr(obj), pos), result);
  return 0;
}

static int map_count(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                     TVMFFIAny* result) {
  TVMFFIObject* obj;
  uint64_t pos;
  if (map_lookup(fname, type_index, args, n, &obj, &pos) != 0) return -1;
  tvmffi__any_set_int(result, pos != TVMFFI_MAP_ITER_END);
  return 0;
}

/* The ffi.GetInvalidObject() sentinel (function.c), fetched once. */
static TVMFFIObject* missing_sentinel(void) {
  static TVMFFIObject* cached = NULL;
  TVMFFIObject* obj = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
  if (obj != NULL) return obj;
  TVMFFIByteArray name = {"ffi.GetInvalidObject", 20};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &f) != 0) return NULL;
  if (f == NULL) {
    tvmffi__raise("RuntimeError", "global function ffi.GetInvalidObject is not registered");
    return NULL;
  }
  TVMFFIAny res;
  tvmffi__any_set_none(&res);
  int rc = tvmffi__function_call(f, NULL, 0, &res);
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return NULL;
  if (res.type_index < kTVMFFIStaticObjectBegin) {
    tvmffi__raise("RuntimeError", "ffi.GetInvalidObject did not return an object");
    return NULL;
  }
  /* Keep the one reference we got; racing threads get the same object. */
  TVMFFIObject* expected = NULL;
  if (!__atomic_compare_exchange_n(&cached, &expected, res.v_obj, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    tvmffi__decref(res.v_obj);
    return expected;
  }
  return res.v_obj;
}

static int map_get_or_missing(const char* fname, int32_t type_index, const TVMFFIAny* args,
                              int32_t n, TVMFFIAny* result) {
  TVMFFIObject* obj;
  uint64_t pos;
  if (map_lookup(fname, type_index, args, n, &obj, &pos) != 0) return -1;
  if (pos != TVMFFI_MAP_ITER_END) {
    tvmffi__any_copy(TVMFFIMapCellValue(TVMFFIMapGetCellPtr(obj), pos), result);
    return 0;
  }
  TVMFFIObject* missing = missing_sentinel();
  if (missing == NULL) return -1;
  tvmffi__incref(missing);
  tvmffi__any_set_obj(result, missing);
  return 0;
}

/* ---- forward iterator functor ---- */

typedef struct {
  TVMFFIObject* map; /* owned */
  uint64_t pos;
} map_iter;

static void map_iter_free(void* self) {
  map_iter* it = (map_iter*)self;
  tvmffi__decref(it->map);
  free(it);
}

/* A Dict may change under a live iterator: never read a stale position. */
static int map_iter_valid(const TVMFFIMapCell* cell, uint64_t pos) {
  if (pos == TVMFFI_MAP_ITER_END) return 0;
  if (TVMFFIMapCellIsSmall(cell)) return pos < cell->size;
  if (pos >= cell->slots) return 0;
  uint8_t meta = *TVMFFIMapDenseMeta(cell, pos);
  return meta != TVMFFI_MAP_META_EMPTY && meta != TVMFFI_MAP_META_PROTECTED;
}

static int map_iter_call(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  static const char fname[] = "MapForwardIterFunctor(0: int) -> Any";
  map_iter* it = (map_iter*)self;
  int64_t cmd;
  if (tvmffi__args_count(fname, num_args, 1) || tvmffi__arg_int(fname, args, 0, &cmd)) return -1;
  TVMFFIMapCell* cell = TVMFFIMapGetCellPtr(it->map);
  if (cmd < 0 || cmd > 2)
    return tvmffi__raise("ValueError",
                         "map iterator command must be 0 (key), 1 (value) or 2 (advance), got %lld",
                         (long long)cmd);
  if (!map_iter_valid(cell, it->pos))
    return tvmffi__raise(it->pos == TVMFFI_MAP_ITER_END ? "IndexError" : "RuntimeError",
                         it->pos == TVMFFI_MAP_ITER_END ? "map iterator is past the end"
                                                        : "map changed size during iteration");
  if (cmd == 0) {
    tvmffi__any_copy(TVMFFIMapCellKey(cell, it->pos), result);
  } else if (cmd == 1) {
    tvmffi__any_copy(TVMFFIMapCellValue(cell, it->pos), result);
  } else {
    it->pos = TVMFFIMapCellIterNext(cell, it->pos);
    tvmffi__any_set_bool(result, it->pos != TVMFFI_MAP_ITER_END);
  }
  return 0;
}

static int map_iter_functor(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                            TVMFFIAny* result) {
  TVMFFIObject* obj;
  if (tvmffi__args_count(fname, n, 1) || tvmffi__arg_obj(fname, args, 0, type_index, &obj))
    return -1;
  map_iter* it = (map_iter*)malloc(sizeof(map_iter));
  if (it == NULL) return tvmffi__raise_oom();
  tvmffi__incref(obj);
  it->map = obj;
  it->pos = TVMFFIMapCellIterBegin(TVMFFIMapGetCellPtr(obj));
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(it, map_iter_call, map_iter_free, &f) != 0) {
    map_iter_free(it);
    return -1;
  }
  tvmffi__any_set_obj(result, (TVMFFIObject*)f);
  return 0;
}

/* ---- Dict mutators ---- */

static int dict_set_item(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.DictSetItem(0: Dict<Any, Any>, 1: Any, 2: Any) -> void";
  TVMFFIObject* obj;
  if (tvmffi__args_count(fname, num_args, 3) ||
      tvmffi__container_arg(fname, args, 0, kTVMFFIDict, -1, "Dict<Any, Any>", &obj))
    return -1;
  TVMFFIAny k, v;
  if (TVMFFIAnyViewToOwnedAny(&args[1], &k) != 0) return -1;
  if (TVMFFIAnyViewToOwnedAny(&args[2], &v) != 0) {
    tvmffi__any_release(&k);
    return -1;
  }
  if (tvmffi__map_set(&obj, &k, &v) != 0) {
    tvmffi__any_release(&k);
    tvmffi__any_release(&v);
    return -1;
  }
  return 0;
}

static int dict_erase(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.DictErase(0: Dict<Any, Any>, 1: Any) -> void";
  TVMFFIObject* obj;
  uint64_t pos;
  if (tvmffi__args_count(fname, num_args, 2) ||
      tvmffi__container_arg(fname, args, 0, kTVMFFIDict, -1, "Dict<Any, Any>", &obj))
    return -1;
  TVMFFIAny key;
  if (tvmffi__container_key_acquire(&args[1], &key) != 0) return -1;
  int rc = TVMFFIMapCellFind(TVMFFIMapGetCellPtr(obj), &key, &pos);
  tvmffi__any_release(&key);
  if (rc != 0) return -1;
  if (pos != TVMFFI_MAP_ITER_END) TVMFFIMapCellErase(TVMFFIMapGetCellPtr(obj), pos);
  return 0;
}

static int dict_clear(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.DictClear(0: Dict<Any, Any>) -> void";
  TVMFFIObject* obj;
  if (tvmffi__args_count(fname, num_args, 1) ||
      tvmffi__container_arg(fname, args, 0, kTVMFFIDict, -1, "Dict<Any, Any>", &obj))
    return -1;
  TVMFFIMapCellClear(TVMFFIMapGetCellPtr(obj));
  return 0;
}

/* ---- registration: one thin wrapper per (operation, kind) ---- */

#define MAP_WRAP(op, prefix, kind, sig)                                                    \
  static int prefix##_##op(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* out) { \
    (void)self;                                                                            \
    return map_##op(sig, kind, args, n, out);                                              \
  }

MAP_WRAP(size, m, kTVMFFIMap, "ffi.MapSize(0: ffi.Map) -> int")
MAP_WRAP(get_item, m, kTVMFFIMap, "ffi.MapGetItem(0: ffi.Map, 1: Any) -> Any")
MAP_WRAP(count, m, kTVMFFIMap, "ffi.MapCount(0: ffi.Map, 1: Any) -> int")
MAP_WRAP(get_or_missing, m, kTVMFFIMap, "ffi.MapGetItemOrMissing(0: ffi.Map, 1: Any) -> Any")
MAP_WRAP(iter_functor, m, kTVMFFIMap, "ffi.MapForwardIterFunctor(0: ffi.Map) -> ffi.Function")
MAP_WRAP(size, d, kTVMFFIDict, "ffi.DictSize(0: ffi.Dict) -> int")
MAP_WRAP(get_item, d, kTVMFFIDict, "ffi.DictGetItem(0: ffi.Dict, 1: Any) -> Any")
MAP_WRAP(count, d, kTVMFFIDict, "ffi.DictCount(0: ffi.Dict, 1: Any) -> int")
MAP_WRAP(get_or_missing, d, kTVMFFIDict, "ffi.DictGetItemOrMissing(0: ffi.Dict, 1: Any) -> Any")
MAP_WRAP(iter_functor, d, kTVMFFIDict, "ffi.DictForwardIterFunctor(0: ffi.Dict) -> ffi.Function")

void tvmffi__map_globals_init(void) {
  tvmffi__register_global("ffi.Map", map_ctor,
                          "Creates an ffi.Map from alternating keys and values.", SCHEMA_PACKED);
  tvmffi__register_global("ffi.MapSize", m_size, "Returns the number of entries.",
                          SCHEMA_FN("int", ARG("ffi.Map")));
  tvmffi__register_global("ffi.MapGetItem", m_get_item, "Returns the value of a key.",
                          SCHEMA_FN("Any", ARG("ffi.Map") ARG("Any")));
  tvmffi__register_global("ffi.MapCount", m_count, "Returns 1 if the key is present, else 0.",
                          SCHEMA_FN("int", ARG("ffi.Map") ARG("Any")));
  tvmffi__register_global("ffi.MapGetItemOrMissing", m_get_or_missing,
                          "Returns the value of a key or the ffi.GetInvalidObject() sentinel.",
                          SCHEMA_FN("Any", ARG("ffi.Map") ARG("Any")));
  tvmffi__register_global("ffi.MapForwardIterFunctor", m_iter_functor,
                          "Returns it(cmd): 0 key, 1 value, 2 advance (false at the end).",
                          SCHEMA_FN("ffi.Function", ARG("ffi.Map")));
  tvmffi__register_global("ffi.Dict", dict_ctor,
                          "Creates an ffi.Dict from alternating keys and values.", SCHEMA_PACKED);
  tvmffi__register_global("ffi.DictSize", d_size, "Returns the number of entries.",
                          SCHEMA_FN("int", ARG("ffi.Dict")));
  tvmffi__register_global("ffi.DictGetItem", d_get_item, "Returns the value of a key.",
                          SCHEMA_FN("Any", ARG("ffi.Dict") ARG("Any")));
  tvmffi__register_global("ffi.DictCount", d_count, "Returns 1 if the key is present, else 0.",
                          SCHEMA_FN("int", ARG("ffi.Dict") ARG("Any")));
  tvmffi__register_global("ffi.DictGetItemOrMissing", d_get_or_missing,
                          "Returns the value of a key or the ffi.GetInvalidObject() sentinel.",
                          SCHEMA_FN("Any", ARG("ffi.Dict") ARG("Any")));
  tvmffi__register_global("ffi.DictForwardIterFunctor", d_iter_functor,
                          "Returns it(cmd): 0 key, 1 value, 2 advance (false at the end).",
                          SCHEMA_FN("ffi.Function", ARG("ffi.Dict")));
  tvmffi__register_global("ffi.DictSetItem", dict_set_item, "Sets a key in place.",
                          SCHEMA_FN("None", ARG_DICT_ANY ARG("Any") ARG("Any")));
  tvmffi__register_global("ffi.DictErase", dict_erase, "Removes a key in place (no-op if absent).",
                          SCHEMA_FN("None", ARG_DICT_ANY ARG("Any")));
  tvmffi__register_global("ffi.DictClear", dict_clear, "Removes every entry in place.",
                          SCHEMA_FN("None", ARG_DICT_ANY));
}
