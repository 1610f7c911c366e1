/*
 * any_hash.c -- AnyHash / AnyEqual for runtime internals (docs/abi.md §5.6) and
 * the key normalisation the container globals share.
 *
 * The algorithms are the inline ones of <tvm/ffi/extra/c_container.h>;
 * these wrappers also accept the view-only string kinds (RawStr,
 * ByteArrayPtr) and rvalue-ref slots, hashing them like their owned forms.
 */
#include <string.h>

#include "container.h"

/* 65 for string-like values, 66 for bytes-like ones, else 0; *out gets the
 * content. */
static int32_t bytes_kind(const TVMFFIAny* v, TVMFFIByteArray* out) {
  if (tvmffi__any_as_str(v, out)) return kTVMFFIStr;
  if (tvmffi__any_as_bytes(v, out)) return kTVMFFIBytes;
  return 0;
}

/* Replaces an rvalue-ref slot by a borrowed view of its object. */
static const TVMFFIAny* deref(const TVMFFIAny* v, TVMFFIAny* tmp) {
  if (v->type_index != kTVMFFIObjectRValueRef) return v;
  TVMFFIObject* obj = *(TVMFFIObject**)v->v_ptr;
  tmp->zero_padding = 0;
  if (obj == NULL) {
    tmp->type_index = kTVMFFINone;
    tmp->v_int64 = 0;
  } else {
    tmp->type_index = obj->type_index;
    tmp->v_obj = obj;
  }
  return tmp;
}

uint64_t tvmffi__any_hash(const TVMFFIAny* a) {
  TVMFFIByteArray ba;
  int32_t kind = bytes_kind(a, &ba);
  if (kind != 0)
    return TVMFFIContainerHashCombine((uint64_t)kind, TVMFFIContainerHashBytes(ba.data, ba.size));
  TVMFFIAny tmp;
  uint64_t h;
  a = deref(a, &tmp);
  if (TVMFFIContainerAnyHash(a, &h) != 0) {
    /* This entry point cannot fail: a failing __any_hash__ hook degrades to
     * the default hash and its error is dropped. */
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    h = TVMFFIContainerHashCombine((uint64_t)(int64_t)a->type_index, a->v_uint64);
  }
  return h;
}

int tvmffi__any_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  TVMFFIByteArray x, y;
  int32_t ka = bytes_kind(a, &x), kb = bytes_kind(b, &y);
  if (ka != 0 || kb != 0)
    return ka == kb && x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  TVMFFIAny ta, tb;
  int eq = TVMFFIContainerAnyEqual(deref(a, &ta), deref(b, &tb));
  if (eq < 0) {
    /* As above: a failing __any_equal__ hook means "not equal". */
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    eq = 0;
  }
  return eq;
}

int tvmffi__container_key_acquire(const TVMFFIAny* view, TVMFFIAny* out) {
  if (view->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIAny tmp;
    tvmffi__any_copy(deref(view, &tmp), out);
    return 0;
  }
  return TVMFFIAnyViewToOwnedAny(view, out);
}

int tvmffi__container_arg(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index,
                          int32_t alt_index, const char* expected, TVMFFIObject** out) {
  TVMFFIAny tmp;
  const TVMFFIAny* v = deref(&args[i], &tmp);
  if (v->type_index == type_index || (alt_index >= 0 && v->type_index == alt_index)) {
    *out = v->v_obj;
    return 0;
  }
  return tvmffi__raise("TypeError",
                       "Mismatched type on argument #%d when calling: `%s`. Expected `%s` but "
                       "got `%s`",
                       (int)i, fname, expected, tvmffi__any_type_key(&args[i]));
}
