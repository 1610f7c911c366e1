/*
 * container.h -- internals shared by array.c, list.c, map.c and
 * container_globals.c.  Never installed.  The table algorithms themselves
 * live in the installed <tvm/ffi/extra/c_container.h> so C++ code inlines
 * the very same ones.
 */
#ifndef TVMFFI_SRC_CONTAINER_H_
#define TVMFFI_SRC_CONTAINER_H_

#include <tvm/ffi/extra/c_container.h>

#include "internal.h"

/* Owned copy of an argument used as a key or probe: view-only kinds are
 * converted (strings copied), an rvalue-ref slot is peeked, not stolen.
 * Release with tvmffi__any_release.  Returns 0/-1. */
int tvmffi__container_key_acquire(const TVMFFIAny* view, TVMFFIAny* out);

/* Borrowed object argument i whose type is `type_index` or `alt_index`
 * (-1: none), for parameters the reference types as `List<Any>` or
 * `Dict<Any, Any>`; the TypeError names `expected` like typed C++ code.
 * Returns 0/-1. */
int tvmffi__container_arg(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index,
                          int32_t alt_index, const char* expected, TVMFFIObject** out);

/* ffi.Array of owned copies of args[0..n).  Returns 0/-1. */
int tvmffi__array_from_views(const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result);

/* Bool result: does the Array/List hold a value equal to `probe` (owned form)? */
int tvmffi__seq_contains(TVMFFIObject* seq, const TVMFFIAny* probe, TVMFFIAny* result);

/* Object deleter of Array and List: releases the items, then the buffer
 * through data_deleter (when not NULL: C++ code may have installed its own),
 * then the block. */
void tvmffi__seq_deleter(void* self, int flags);

/* New empty ffi.List with room for `capacity` elements.  NULL after raising. */
TVMFFIObject* tvmffi__list_new(int64_t capacity);

/* New empty ffi.Map (72) or ffi.Dict (76): small layout, capacity 2, pairs
 * inline.  NULL after raising. */
TVMFFIObject* tvmffi__map_new(int32_t type_index);

/* New empty ffi.Map or ffi.Dict laid out for `count` entries (small up to 4, else the
 * dense table C++ builds for a range), so that filling it rarely replaces a Map.  NULL
 * after raising. */
TVMFFIObject* tvmffi__map_new_sized(int32_t type_index, uint64_t count);

/* Inserts or assigns, moving *key and *value (owned) in.  For a Map the
 * object may be replaced by a larger one (*obj updated); a Dict keeps its
 * identity.  On failure nothing is moved.  Returns 0/-1. */
int tvmffi__map_set(TVMFFIObject** obj, TVMFFIAny* key, TVMFFIAny* value);

/* JSON type schema of a typed global: SCHEMA_FN("int", ARG("ffi.List")). */
#define SCHEMA_FN(ret, ...) \
  "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"" ret "\"}" __VA_ARGS__ "]}"
#define ARG(t) ",{\"type\":\"" t "\"}"
/* `List<Any>` / `Dict<Any, Any>` parameters of the mutating globals. */
#define ARG_LIST_ANY ",{\"type\":\"ffi.List\",\"args\":[{\"type\":\"Any\"}]}"
#define ARG_DICT_ANY ",{\"type\":\"ffi.Dict\",\"args\":[{\"type\":\"Any\"},{\"type\":\"Any\"}]}"
/* Schema of a packed (variadic) global. */
#define SCHEMA_PACKED "{\"type\":\"ffi.Function\"}"

/* Registration hooks called by tvmffi__container_globals_init. */
void tvmffi__array_globals_init(void);
void tvmffi__list_globals_init(void);
void tvmffi__map_globals_init(void);

#endif /* TVMFFI_SRC_CONTAINER_H_ */
