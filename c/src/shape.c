/*
 * shape.c -- ffi.Shape objects (docs/abi.md §7.4) and the ffi.Shape global (§14.1).
 *
 * Layout: header (24) | data (8) | size (8) | int64 values inline at +40.
 * data always points at the inline values, so a Shape is one allocation and
 * the plain deleter frees it.
 */
#include <string.h>

#include "internal.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIShapeCell cell;
  int64_t values[];
} tvmffi__shape_obj;

TVMFFIObject* tvmffi__shape_new(const int64_t* data, size_t n) {
  if (n > (SIZE_MAX - sizeof(tvmffi__shape_obj)) / sizeof(int64_t)) {
    tvmffi__raise("ValueError", "Shape of %zu dimensions is too large", n);
    return NULL;
  }
  tvmffi__shape_obj* s = (tvmffi__shape_obj*)tvmffi__object_alloc(
      sizeof(tvmffi__shape_obj) + n * sizeof(int64_t), kTVMFFIShape, tvmffi__object_deleter_plain);
  if (s == NULL) return NULL;
  if (n != 0) memcpy(s->values, data, n * sizeof(int64_t));
  s->cell.data = s->values;
  s->cell.size = n;
  return &s->header;
}

/* ffi.Shape(*ints) -> ffi.Shape.  Bools count as integers, as in the
 * reference runtime's int64 cast; anything else is a ValueError. */
static int shape_global(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)self;
  if (num_args < 0) return tvmffi__raise("ValueError", "ffi.Shape: negative argument count");
  tvmffi__shape_obj* s = (tvmffi__shape_obj*)tvmffi__object_alloc(
      sizeof(tvmffi__shape_obj) + (size_t)num_args * sizeof(int64_t), kTVMFFIShape,
      tvmffi__object_deleter_plain);
  if (s == NULL) return -1;
  for (int32_t i = 0; i < num_args; ++i) {
    if (args[i].type_index != kTVMFFIInt && args[i].type_index != kTVMFFIBool) {
      const char* got = tvmffi__any_type_key(&args[i]);
      tvmffi__decref(&s->header);
      return tvmffi__raise("ValueError", "ffi.Shape expects int arguments, but argument %d is `%s`",
                           (int)i, got);
    }
    s->values[i] = args[i].v_int64;
  }
  s->cell.data = s->values;
  s->cell.size = (size_t)num_args;
  tvmffi__any_set_obj(result, &s->header);
  return 0;
}

void tvmffi__shape_globals_init(void) {
  /* Packed (variadic): the schema names no argument list. */
  tvmffi__register_global("ffi.Shape", shape_global, "Creates an ffi.Shape from integer arguments.",
                          "{\"type\":\"ffi.Function\"}");
}
