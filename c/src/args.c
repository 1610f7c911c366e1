/*
 * args.c -- argument checking for the runtime's own global functions.
 *
 * `fname` is the function's name followed by its signature, e.g.
 * "ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any", so the messages match
 * the ones typed C++ functions raise (docs/cpp.md §8.4); argument indices are
 * 0-based.  Accepted kinds follow docs/abi.md §8: int takes Int and Bool, bool
 * takes Bool and Int, str takes RawStr/SmallStr/Str, objects take the type
 * or a subclass (also through an rvalue-ref slot, borrowed).
 */
#include "internal.h"

static int mismatch(const char* fname, int32_t i, const char* expected, const TVMFFIAny* v) {
  const char* got;
  if (v->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIObject* obj = *(TVMFFIObject**)v->v_ptr;
    got = obj ? tvmffi__type_key(obj->type_index) : "ObjectRValueRef";
  } else {
    got = tvmffi__any_type_key(v);
  }
  return tvmffi__raise("TypeError",
                       "Mismatched type on argument #%d when calling: `%s`. Expected `%s` but "
                       "got `%s`",
                       (int)i, fname, expected, got);
}

int tvmffi__args_count(const char* fname, int32_t num_args, int32_t expected) {
  if (num_args == expected) return 0;
  return tvmffi__raise("TypeError",
                       "Mismatched number of arguments when calling: `%s`. Expected %d but got "
                       "%d arguments",
                       fname, (int)expected, (int)num_args);
}

int tvmffi__arg_int(const char* fname, const TVMFFIAny* args, int32_t i, int64_t* out) {
  const TVMFFIAny* v = &args[i];
  if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    *out = v->v_int64;
    return 0;
  }
  return mismatch(fname, i, "int", v);
}

int tvmffi__arg_bool(const char* fname, const TVMFFIAny* args, int32_t i, int* out) {
  const TVMFFIAny* v = &args[i];
  if (v->type_index == kTVMFFIBool || v->type_index == kTVMFFIInt) {
    *out = v->v_int64 != 0;
    return 0;
  }
  return mismatch(fname, i, "bool", v);
}

int tvmffi__arg_str(const char* fname, const TVMFFIAny* args, int32_t i, TVMFFIByteArray* out) {
  if (tvmffi__any_as_str(&args[i], out)) return 0;
  return mismatch(fname, i, "str", &args[i]);
}

int tvmffi__arg_obj(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index,
                    TVMFFIObject** out) {
  const TVMFFIAny* v = &args[i];
  TVMFFIObject* obj = NULL;
  if (v->type_index >= kTVMFFIStaticObjectBegin) {
    obj = v->v_obj;
  } else if (v->type_index == kTVMFFIObjectRValueRef) {
    obj = *(TVMFFIObject**)v->v_ptr; /* borrowed: the caller's slot keeps it alive */
  }
  if (obj != NULL && tvmffi__type_is_instance(obj->type_index, type_index)) {
    *out = obj;
    return 0;
  }
  return mismatch(fname, i, tvmffi__type_key(type_index), v);
}
