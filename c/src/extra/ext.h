/*
 * ext.h -- internals shared by the extras in c/src/extra: repr.c, recursive.c,
 * deepcopy.c, json.c, serialization.c, make_object.c, pyclass.c (and, through structural.h, the
 * structural files).  Never installed; the core never includes it.
 */
#ifndef TVMFFI_SRC_EXT_H_
#define TVMFFI_SRC_EXT_H_

#include <string.h>

#include "container.h"

/* Arguments arrive as views: an rvalue-ref slot is peeked (not stolen) so the
 * walkers see a plain object view.  Other kinds are copied as they are. */
static inline TVMFFIAny tvmffi__ext_peek(const TVMFFIAny* v) {
  TVMFFIAny out = *v;
  if (v->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIObject* obj = *(TVMFFIObject**)v->v_ptr;
    if (obj == NULL) {
      tvmffi__any_set_none(&out);
    } else {
      out.type_index = obj->type_index;
      out.zero_padding = 0;
      out.v_obj = obj;
    }
  }
  return out;
}

/* The value of type attribute `name` registered for type t itself (a view; not
 * inherited), or NULL when unset.  The column may grow under a reader. */
static inline const TVMFFIAny* tvmffi__ext_type_attr(int32_t t, const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  if (col == NULL) return NULL;
  int32_t size = __atomic_load_n(&col->size, __ATOMIC_ACQUIRE);
  const TVMFFIAny* data = __atomic_load_n(&col->data, __ATOMIC_ACQUIRE);
  if (t < col->begin_index || t >= col->begin_index + size) return NULL;
  const TVMFFIAny* v = &data[t - col->begin_index];
  return v->type_index == kTVMFFINone ? NULL : v;
}

/* Walks the reflected fields of an object, ancestors first.  For each field
 * whose flags have none of `skip_flags` and that has a getter, calls
 * fn(ctx, field, value) with the value read into an owned Any (released after
 * fn returns).  A non-zero return of fn stops the walk and is returned;
 * getter failures return -1 with the error raised. */
typedef int (*tvmffi__ext_field_fn)(void* ctx, const TVMFFIFieldInfo* field,
                                    const TVMFFIAny* value);
int tvmffi__ext_visit_fields(TVMFFIObject* obj, int64_t skip_flags, tvmffi__ext_field_fn fn,
                             void* ctx);

/* Number of reflected fields (ancestors included) of a type. */
int32_t tvmffi__ext_num_fields(int32_t type_index);

/* The function a type registered under type-attribute `name` (__ffi_eq__,
 * __ffi_repr__, ...), borrowed; NULL when there is none.  `*cache` is a
 * per-call-site static that remembers the column once it exists. */
TVMFFIObject* tvmffi__ext_type_hook(const char* name, const TVMFFITypeAttrColumn** cache,
                                    int32_t type_index);

/* "cpu", "cuda", ... for a DLDeviceType; NULL when unknown. */
const char* tvmffi__ext_device_name(int32_t device_type);

/* Appends `s` as a double-quoted string with JSON escapes. 0/-1 (OOM raised). */
int tvmffi__ext_quote(tvmffi__buf* b, const char* s, size_t n);
/* b"..." with every byte outside printable ASCII escaped as \xXX. */
int tvmffi__ext_quote_bytes(tvmffi__buf* b, const char* s, size_t n);
/* The same for JSON text (ffi.json.Stringify), which also writes "/" as "\\/" as upstream does. */
int tvmffi__ext_quote_json(tvmffi__buf* b, const char* s, size_t n);
/* Appends the shortest text that reads back as x ("1.5", "1e+100"); with
 * python_style an integral value gets ".0" and non-finite ones print as
 * inf/-inf/nan.  0/-1 (OOM raised). */
int tvmffi__ext_float(tvmffi__buf* b, double x, int python_style);

/* The identity memo of the recursive walks (memo.c): node (or node pair) -> a value, so
 * that shared nodes are walked once.  Zero-initialise; tvmffi__memo_enter(m) once per node
 * entered says whether the memo is in use yet (it starts past TVMFFI__MEMO_AFTER nodes);
 * get/put are no-ops before; on out-of-memory put skips the entry (the memo only saves time). */
#define TVMFFI__MEMO_AFTER 256
typedef struct {
  const void* a;
  const void* b;
  uint64_t value;
} tvmffi__memo_entry;
typedef struct {
  uint64_t visits;
  size_t n, cap;
  tvmffi__memo_entry* slots;
  int hold; /* TVMFFI__MEMO_HOLD_*: key objects the memo keeps alive */
} tvmffi__memo;
#define TVMFFI__MEMO_HOLD_A 1
#define TVMFFI__MEMO_HOLD_B 2
int tvmffi__memo_enter(tvmffi__memo* m);
/* Whether obj has more than one owner.  Only such a node can be met twice by a walk whose
 * shared nodes are remembered: one owned once sits below a single slot, which is met again
 * only through a shared ancestor, met once.  So the walks remember shared nodes alone, and a
 * tree (however large) never fills a memo. */
static inline int tvmffi__ext_shared(const TVMFFIObject* obj) {
  return (uint32_t)__atomic_load_n(&obj->combined_ref_count, __ATOMIC_RELAXED) > 1;
}
/* The memo in use now, whatever the count (1; 0 when out of memory). */
int tvmffi__memo_start(tvmffi__memo* m);
int tvmffi__memo_get(const tvmffi__memo* m, const void* a, const void* b, uint64_t* value);
void tvmffi__memo_put(tvmffi__memo* m, const void* a, const void* b, uint64_t value);
void tvmffi__memo_free(tvmffi__memo* m);

/* Recursive equality / hashing (recursive.c), used by the other walkers. */
int tvmffi__recursive_eq(const TVMFFIAny* a, const TVMFFIAny* b, int* out);
int tvmffi__recursive_hash(const TVMFFIAny* a, uint64_t* out);

/* Registration hooks of the files above (listed in registry.c's table). */
void tvmffi__repr_globals_init(void);
void tvmffi__recursive_globals_init(void);
void tvmffi__deepcopy_globals_init(void);
void tvmffi__json_globals_init(void);
void tvmffi__serialization_globals_init(void);

#endif /* TVMFFI_SRC_EXT_H_ */
