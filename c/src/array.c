/*
 * array.c -- ffi.Array (docs/abi.md §7.6): a TVMFFISeqCell at +24 followed by the
 * elements inline (data == handle + 56, data_deleter == NULL), as upstream
 * lays it out.  C++ header code copies on write and never reallocates an
 * existing Array's buffer, so the runtime only builds arrays once.
 */
#include <stdlib.h>
#include <string.h>

#include "container.h"

#define ARRAY_HEADER_SIZE (sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell))

void tvmffi__seq_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(self);
    TVMFFISeqCellReleaseItems(cell);
    if (cell->data_deleter != NULL) cell->data_deleter(cell->data);
    cell->data = NULL;
    cell->capacity = 0;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

TVMFFIObject* tvmffi__array_new(int64_t capacity) {
  if (capacity < 0 || (uint64_t)capacity > (SIZE_MAX - ARRAY_HEADER_SIZE) / sizeof(TVMFFIAny)) {
    tvmffi__raise("ValueError", "ffi.Array: invalid capacity %lld", (long long)capacity);
    return NULL;
  }
  TVMFFIObject* obj = tvmffi__object_alloc(ARRAY_HEADER_SIZE + (size_t)capacity * sizeof(TVMFFIAny),
                                           kTVMFFIArray, tvmffi__seq_deleter);
  if (obj == NULL) return NULL;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
  cell->data = (char*)obj + ARRAY_HEADER_SIZE;
  cell->size = 0;
  cell->capacity = capacity;
  cell->data_deleter = NULL;
  return obj;
}

void tvmffi__array_push_move(TVMFFIObject* array, TVMFFIAny* v) {
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(array);
  if (cell->size >= cell->capacity)
    tvmffi__fatal("tvmffi__array_push_move: array of capacity %lld is full",
                  (long long)cell->capacity);
  ((TVMFFIAny*)cell->data)[cell->size++] = *v;
  tvmffi__any_set_none(v);
}

/* ---- global functions ---------------------------------------------------- */

int tvmffi__array_from_views(const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  TVMFFIObject* arr = tvmffi__array_new(num_args);
  if (arr == NULL) return -1;
  for (int32_t i = 0; i < num_args; ++i) {
    TVMFFIAny owned;
    if (TVMFFIAnyViewToOwnedAny(&args[i], &owned) != 0) {
      tvmffi__decref(arr);
      return -1;
    }
    tvmffi__array_push_move(arr, &owned);
  }
  tvmffi__any_set_obj(result, arr);
  return 0;
}

static int array_ctor(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  return tvmffi__array_from_views(args, num_args, result);
}

static int array_get_item(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any";
  TVMFFIObject* arr;
  int64_t i;
  if (tvmffi__args_count(fname, num_args, 2) ||
      tvmffi__arg_obj(fname, args, 0, kTVMFFIArray, &arr) || tvmffi__arg_int(fname, args, 1, &i))
    return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(arr);
  if (i < 0 || i >= cell->size)
    return tvmffi__raise("IndexError", "Index %lld out of bounds %lld", (long long)i,
                         (long long)cell->size);
  tvmffi__any_copy(&((const TVMFFIAny*)cell->data)[i], result);
  return 0;
}

static int array_size(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ArraySize(0: ffi.Array) -> int";
  TVMFFIObject* arr;
  if (tvmffi__args_count(fname, num_args, 1) || tvmffi__arg_obj(fname, args, 0, kTVMFFIArray, &arr))
    return -1;
  tvmffi__any_set_int(result, TVMFFISeqGetCellPtr(arr)->size);
  return 0;
}

/* Shared by ffi.ArrayContains and ffi.ListContains: linear AnyEqual scan. */
int tvmffi__seq_contains(TVMFFIObject* seq, const TVMFFIAny* v, TVMFFIAny* result) {
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(seq);
  int found = 0;
  for (int64_t i = 0; i < cell->size && !found; ++i) {
    int eq = TVMFFIContainerAnyEqual(&((const TVMFFIAny*)cell->data)[i], v);
    if (eq < 0) return -1;
    found = eq;
  }
  tvmffi__any_set_bool(result, found);
  return 0;
}

static int array_contains(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ArrayContains(0: ffi.Array, 1: Any) -> bool";
  TVMFFIObject* arr;
  if (tvmffi__args_count(fname, num_args, 2) || tvmffi__arg_obj(fname, args, 0, kTVMFFIArray, &arr))
    return -1;
  TVMFFIAny probe;
  if (tvmffi__container_key_acquire(&args[1], &probe) != 0) return -1;
  int rc = tvmffi__seq_contains(arr, &probe, result);
  tvmffi__any_release(&probe);
  return rc;
}

void tvmffi__array_globals_init(void) {
  tvmffi__register_global("ffi.Array", array_ctor, "Creates an ffi.Array of the arguments.",
                          SCHEMA_PACKED);
  tvmffi__register_global("ffi.ArrayGetItem", array_get_item,
                          "Returns element i of an array (0 <= i < size).",
                          SCHEMA_FN("Any", ARG("ffi.Array") ARG("int")));
  tvmffi__register_global("ffi.ArraySize", array_size, "Returns the number of elements.",
                          SCHEMA_FN("int", ARG("ffi.Array")));
  tvmffi__register_global("ffi.ArrayContains", array_contains,
                          "Tells whether an array holds a value (AnyEqual).",
                          SCHEMA_FN("bool", ARG("ffi.Array") ARG("Any")));
}
