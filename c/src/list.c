/*
 * list.c -- ffi.List (docs/abi.md §7.7): the Array prefix with a separate
 * malloc'd buffer and data_deleter == free (never NULL), because C++ header
 * code grows lists in place with its own malloc'd buffers and then frees
 * ours through data_deleter, and vice versa.  Mutable reference semantics:
 * every global below acts in place.
 */
#include <stdlib.h>
#include <string.h>

#include "container.h"

TVMFFIObject* tvmffi__list_new(int64_t capacity) {
  TVMFFIObject* obj = tvmffi__object_alloc(sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell),
                                           kTVMFFIList, tvmffi__seq_deleter);
  if (obj == NULL) return NULL;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(obj);
  cell->data = NULL;
  cell->size = 0;
  cell->capacity = 0;
  cell->data_deleter = free;
  if (capacity > 0 && TVMFFIListCellReserve(cell, capacity) != 0) {
    tvmffi__decref(obj);
    return NULL;
  }
  return obj;
}

/* Room for `extra` more elements, growing geometrically (x2, at least 4). */
static int list_make_room(TVMFFISeqCell* cell, int64_t extra) {
  int64_t need = cell->size + extra;
  if (need <= cell->capacity) return 0;
  int64_t cap = cell->capacity * 2;
  if (cap < 4) cap = 4;
  if (cap < need) cap = need;
  return TVMFFIListCellReserve(cell, cap);
}

/* Opens a gap of n elements at i (0 <= i <= size) and fills it with the
 * owned values vals[0..n), which are moved in. */
static int list_insert_move(TVMFFISeqCell* cell, int64_t i, TVMFFIAny* vals, int64_t n) {
  if (n == 0) return 0;
  if (list_make_room(cell, n) != 0) return -1;
  TVMFFIAny* items = TVMFFISeqCellItems(cell);
  memmove(items + i + n, items + i, (size_t)(cell->size - i) * sizeof(TVMFFIAny));
  memcpy(items + i, vals, (size_t)n * sizeof(TVMFFIAny));
  cell->size += n;
  return 0;
}

/* Removes [start, stop).  The elements are released only once the list is
 * consistent again (a deleter may look at or append to the list), so they
 * are first moved aside; without memory for that, one at a time.  Never
 * fails: erasing must not depend on the allocator. */
static void list_erase_range(TVMFFISeqCell* cell, int64_t start, int64_t stop) {
  int64_t n = stop - start;
  if (n <= 0) return;
  TVMFFIAny* items = TVMFFISeqCellItems(cell);
  TVMFFIAny small[8];
  TVMFFIAny* dead = n <= 8 ? small : (TVMFFIAny*)malloc((size_t)n * sizeof(TVMFFIAny));
  if (dead == NULL) {
    for (int64_t k = stop - 1; k >= start; --k) {
      items = TVMFFISeqCellItems(cell); /* a deleter may have grown the list */
      TVMFFIAny v = items[k];
      memmove(items + k, items + k + 1, (size_t)(cell->size - k - 1) * sizeof(TVMFFIAny));
      cell->size -= 1;
      tvmffi__any_release(&v);
    }
    return;
  }
  memcpy(dead, items + start, (size_t)n * sizeof(TVMFFIAny));
  memmove(items + start, items + stop, (size_t)(cell->size - stop) * sizeof(TVMFFIAny));
  cell->size -= n;
  for (int64_t k = 0; k < n; ++k) tvmffi__any_release(&dead[k]);
  if (dead != small) free(dead);
}

/* ---- global functions ---------------------------------------------------- */

static int list_ctor(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  /* At least the reference's initial capacity of 4, so a few appends do
   * not reallocate. */
  TVMFFIObject* list = tvmffi__list_new(num_args > 4 ? num_args : 4);
  if (list == NULL) return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  for (int32_t i = 0; i < num_args; ++i) {
    if (TVMFFIAnyViewToOwnedAny(&args[i], &TVMFFISeqCellItems(cell)[i]) != 0) {
      tvmffi__decref(list);
      return -1;
    }
    cell->size = i + 1;
  }
  tvmffi__any_set_obj(result, list);
  return 0;
}

/* The list argument: read-only globals name it `ffi.List`, mutating ones
 * `List<Any>`, as the reference does. */
static int arg_list(const char* fname, const TVMFFIAny* args, int32_t i, TVMFFIObject** out) {
  if (strstr(fname, "List<Any>") == NULL) return tvmffi__arg_obj(fname, args, i, kTVMFFIList, out);
  return tvmffi__container_arg(fname, args, i, kTVMFFIList, -1, "List<Any>", out);
}

/* Arguments (list, index, ...) of the indexing globals, `expected` in all. */
static int list_index_args(const char* fname, const TVMFFIAny* args, int32_t num_args,
                           int32_t expected, TVMFFISeqCell** cell, int64_t* i) {
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, expected) || arg_list(fname, args, 0, &list) ||
      tvmffi__arg_int(fname, args, 1, i))
    return -1;
  *cell = TVMFFISeqGetCellPtr(list);
  return 0;
}

/* As list_index_args, for an index that must name an element. */
static int list_item_args(const char* fname, const TVMFFIAny* args, int32_t num_args,
                          int32_t expected, TVMFFISeqCell** cell, int64_t* i) {
  if (list_index_args(fname, args, num_args, expected, cell, i) != 0) return -1;
  if (*i < 0 || *i >= (*cell)->size)
    return tvmffi__raise("IndexError", "Index %lld out of bounds %lld", (long long)*i,
                         (long long)(*cell)->size);
  return 0;
}

static int list_get_item(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ListGetItem(0: ffi.List, 1: int) -> Any";
  TVMFFISeqCell* cell;
  int64_t i;
  if (list_item_args(fname, args, num_args, 2, &cell, &i) != 0) return -1;
  tvmffi__any_copy(&TVMFFISeqCellItems(cell)[i], result);
  return 0;
}

static int list_set_item(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListSetItem(0: List<Any>, 1: int, 2: Any) -> void";
  TVMFFISeqCell* cell;
  int64_t i;
  if (list_item_args(fname, args, num_args, 3, &cell, &i) != 0) return -1;
  TVMFFIAny v;
  if (TVMFFIAnyViewToOwnedAny(&args[2], &v) != 0) return -1;
  TVMFFIAny old = TVMFFISeqCellItems(cell)[i];
  TVMFFISeqCellItems(cell)[i] = v;
  tvmffi__any_release(&old);
  return 0;
}

static int list_size(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ListSize(0: ffi.List) -> int";
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, 1) || arg_list(fname, args, 0, &list)) return -1;
  tvmffi__any_set_int(result, TVMFFISeqGetCellPtr(list)->size);
  return 0;
}

static int list_contains(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ListContains(0: ffi.List, 1: Any) -> bool";
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, 2) || arg_list(fname, args, 0, &list)) return -1;
  TVMFFIAny probe;
  if (tvmffi__container_key_acquire(&args[1], &probe) != 0) return -1;
  int rc = tvmffi__seq_contains(list, &probe, result);
  tvmffi__any_release(&probe);
  return rc;
}

static int list_append(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListAppend(0: List<Any>, 1: Any) -> void";
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, 2) || arg_list(fname, args, 0, &list)) return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  TVMFFIAny v;
  if (TVMFFIAnyViewToOwnedAny(&args[1], &v) != 0) return -1;
  if (list_insert_move(cell, cell->size, &v, 1) != 0) {
    tvmffi__any_release(&v);
    return -1;
  }
  return 0;
}

static int list_insert(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListInsert(0: List<Any>, 1: int, 2: Any) -> void";
  TVMFFISeqCell* cell;
  int64_t i;
  if (list_index_args(fname, args, num_args, 3, &cell, &i) != 0) return -1;
  if (i < 0 || i > cell->size)
    return tvmffi__raise("IndexError", "Index %lld out of bounds [0, %lld]", (long long)i,
                         (long long)cell->size);
  TVMFFIAny v;
  if (TVMFFIAnyViewToOwnedAny(&args[2], &v) != 0) return -1;
  if (list_insert_move(cell, i, &v, 1) != 0) {
    tvmffi__any_release(&v);
    return -1;
  }
  return 0;
}

static int list_pop(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  static const char fname[] = "ffi.ListPop(0: List<Any>, 1: int) -> Any";
  TVMFFISeqCell* cell;
  int64_t i;
  if (list_item_args(fname, args, num_args, 2, &cell, &i) != 0) return -1;
  TVMFFIAny* items = TVMFFISeqCellItems(cell);
  *result = items[i]; /* the reference moves to the caller */
  memmove(items + i, items + i + 1, (size_t)(cell->size - i - 1) * sizeof(TVMFFIAny));
  cell->size -= 1;
  return 0;
}

static int list_erase(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListErase(0: List<Any>, 1: int) -> void";
  TVMFFISeqCell* cell;
  int64_t i;
  if (list_item_args(fname, args, num_args, 2, &cell, &i) != 0) return -1;
  list_erase_range(cell, i, i + 1);
  return 0;
}

static int check_range(const char* what, int64_t start, int64_t stop, int64_t size) {
  if (start < 0 || stop > size || start > stop)
    return tvmffi__raise("IndexError", "%s range [%lld, %lld) out of bounds %lld", what,
                         (long long)start, (long long)stop, (long long)size);
  return 0;
}

static int list_erase_range_fn(void* self, const TVMFFIAny* args, int32_t num_args,
                               TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListEraseRange(0: List<Any>, 1: int, 2: int) -> void";
  TVMFFIObject* list;
  int64_t start, stop;
  if (tvmffi__args_count(fname, num_args, 3) || arg_list(fname, args, 0, &list) ||
      tvmffi__arg_int(fname, args, 1, &start) || tvmffi__arg_int(fname, args, 2, &stop))
    return -1;
  if (start == stop) return 0;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  if (check_range("Erase", start, stop, cell->size) != 0) return -1;
  list_erase_range(cell, start, stop);
  return 0;
}

static int list_replace_slice(void* self, const TVMFFIAny* args, int32_t num_args,
                              TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] =
      "ffi.ListReplaceSlice(0: List<Any>, 1: int, 2: int, 3: List<Any>) -> void";
  TVMFFIObject *list, *repl;
  int64_t start, stop;
  if (tvmffi__args_count(fname, num_args, 4) || arg_list(fname, args, 0, &list) ||
      tvmffi__arg_int(fname, args, 1, &start) || tvmffi__arg_int(fname, args, 2, &stop) ||
      tvmffi__container_arg(fname, args, 3, kTVMFFIList, kTVMFFIArray, "List<Any>", &repl))
    return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  if (check_range("Erase", start, stop, cell->size) != 0) return -1;
  /* Copy the replacement first: repl may be this very list. */
  TVMFFISeqCell* rcell = TVMFFISeqGetCellPtr(repl);
  int64_t n = rcell->size;
  TVMFFIAny* vals = NULL;
  if (n > 0) {
    vals = (TVMFFIAny*)malloc((size_t)n * sizeof(TVMFFIAny));
    if (vals == NULL) return tvmffi__raise_oom();
    for (int64_t k = 0; k < n; ++k) tvmffi__any_copy(&TVMFFISeqCellItems(rcell)[k], &vals[k]);
  }
  /* Insert behind the range, then erase it: a failed allocation changes
   * nothing, and the old elements are released only when the list is final. */
  int rc = list_insert_move(cell, stop, vals, n);
  if (rc == 0) {
    list_erase_range(cell, start, stop);
  } else {
    for (int64_t k = 0; k < n; ++k) tvmffi__any_release(&vals[k]);
  }
  free(vals);
  return rc;
}

static int list_reverse(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListReverse(0: List<Any>) -> void";
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, 1) || arg_list(fname, args, 0, &list)) return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  TVMFFIAny* items = TVMFFISeqCellItems(cell);
  for (int64_t a = 0, b = cell->size - 1; a < b; ++a, --b) {
    TVMFFIAny t = items[a];
    items[a] = items[b];
    items[b] = t;
  }
  return 0;
}

static int list_clear(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListClear(0: List<Any>) -> void";
  TVMFFIObject* list;
  if (tvmffi__args_count(fname, num_args, 1) || arg_list(fname, args, 0, &list)) return -1;
  TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(list);
  list_erase_range(cell, 0, cell->size);
  return 0;
}

/* ffi.ListReserve(list, n): room for n elements without reallocating; n <= capacity
 * (negative included) changes nothing, as List<Any>::reserve. */
static int list_reserve(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  (void)result;
  static const char fname[] = "ffi.ListReserve(0: List<Any>, 1: int) -> void";
  TVMFFIObject* list;
  int64_t n;
  if (tvmffi__args_count(fname, num_args, 2) || arg_list(fname, args, 0, &list) ||
      tvmffi__arg_int(fname, args, 1, &n))
    return -1;
  return TVMFFIListCellReserve(TVMFFISeqGetCellPtr(list), n);
}

void tvmffi__list_globals_init(void) {
  tvmffi__register_global("ffi.List", list_ctor, "Creates an ffi.List of the arguments.",
                          SCHEMA_PACKED);
  tvmffi__register_global("ffi.ListGetItem", list_get_item, "Returns element i (0 <= i < size).",
                          SCHEMA_FN("Any", ARG("ffi.List") ARG("int")));
  tvmffi__register_global("ffi.ListSetItem", list_set_item, "Replaces element i in place.",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int") ARG("Any")));
  tvmffi__register_global("ffi.ListSize", list_size, "Returns the number of elements.",
                          SCHEMA_FN("int", ARG("ffi.List")));
  tvmffi__register_global("ffi.ListContains", list_contains,
                          "Tells whether the list holds a value (AnyEqual).",
                          SCHEMA_FN("bool", ARG("ffi.List") ARG("Any")));
  tvmffi__register_global("ffi.ListAppend", list_append, "Appends a value in place.",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("Any")));
  tvmffi__register_global("ffi.ListInsert", list_insert,
                          "Inserts a value before index i (0 <= i <= size).",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int") ARG("Any")));
  tvmffi__register_global("ffi.ListPop", list_pop, "Removes and returns element i.",
                          SCHEMA_FN("Any", ARG_LIST_ANY ARG("int")));
  tvmffi__register_global("ffi.ListErase", list_erase, "Removes element i.",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int")));
  tvmffi__register_global("ffi.ListEraseRange", list_erase_range_fn,
                          "Removes elements [start, stop).",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int") ARG("int")));
  tvmffi__register_global("ffi.ListReplaceSlice", list_replace_slice,
                          "Replaces elements [start, stop) by the elements of another list.",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int") ARG("int") ARG_LIST_ANY));
  tvmffi__register_global("ffi.ListReverse", list_reverse, "Reverses the list in place.",
                          SCHEMA_FN("None", ARG_LIST_ANY));
  tvmffi__register_global("ffi.ListClear", list_clear, "Removes every element.",
                          SCHEMA_FN("None", ARG_LIST_ANY));
  tvmffi__register_global("ffi.ListReserve", list_reserve,
                          "Makes room for n elements (a larger capacity only).",
                          SCHEMA_FN("None", ARG_LIST_ANY ARG("int")));
}
