/*
 * any.c -- view -> owned conversion (abi.md §5.5, §10.3) and the AnyHash /
 * AnyEqual used for Map/Dict keys (§5.6), which C++ code inlines: the
 * arithmetic below must match it exactly.
 */
#include <string.h>

#include "internal.h"

TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  if (any_view == NULL || out == NULL)
    return tvmffi__raise("ValueError", "TVMFFIAnyViewToOwnedAny: any_view and out must not be NULL");
  int32_t t = any_view->type_index;
  if (t >= kTVMFFIStaticObjectBegin) {
    tvmffi__incref(any_view->v_obj);
    *out = *any_view;
    return 0;
  }
  switch (t) {
    case kTVMFFIRawStr: {
      const char* s = any_view->v_c_str;
      if (s == NULL)
        return tvmffi__raise("ValueError", "TVMFFIAnyViewToOwnedAny: RawStr view holds NULL");
      return tvmffi__str_to_any(kTVMFFIStr, s, strlen(s), out);
    }
    case kTVMFFIByteArrayPtr: {
      const TVMFFIByteArray* b = (const TVMFFIByteArray*)any_view->v_ptr;
      if (b == NULL || (b->data == NULL && b->size != 0))
        return tvmffi__raise("ValueError",
                             "TVMFFIAnyViewToOwnedAny: ByteArrayPtr view holds NULL data");
      return tvmffi__str_to_any(kTVMFFIBytes, b->data, b->size, out);
    }
    case kTVMFFIObjectRValueRef: {
      TVMFFIObject** slot = (TVMFFIObject**)any_view->v_ptr;
      if (slot == NULL || *slot == NULL)
        return tvmffi__raise("InternalError", "RValueRef already moved");
      TVMFFIObject* obj = *slot;
      *slot = NULL; /* steal: the count moves from the slot to *out */
      out->type_index = obj->type_index;
      out->zero_padding = 0;
      out->v_obj = obj;
      return 0;
    }
    default:
      *out = *any_view; /* 0-7, 11, 12: no ownership involved */
      return 0;
  }
}

/* ---- AnyHash / AnyEqual ------------------------------------------------ */

#define HASH_MOD UINT64_C(2147483647)
#define HASH_MUL UINT64_C(1099511628211)

static uint64_t hash_combine(uint64_t key, uint64_t value) {
  return key ^ (value + UINT64_C(0x9e3779b9) + (key << 6) + (key >> 2));
}

static uint64_t hash_bytes(const char* p, size_t n) {
  uint64_t r = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8); /* little-endian load (x86-64) */
    r = (r * HASH_MUL + w) % HASH_MOD;
  }
  if (i < n) {
    uint64_t w = 0;
    memcpy(&w, p + i, n - i);
    r = (r * HASH_MUL + w) % HASH_MOD;
  }
  return r;
}

/* Looks up a per-type attribute column entry ("__any_hash__" etc.); returns
 * NULL when the type has none. */
static const TVMFFIAny* type_attr(const char* name, int32_t type_index) {
  TVMFFIByteArray key = {name, strlen(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&key);
  if (col == NULL || col->data == NULL) return NULL;
  int32_t i = type_index - col->begin_index;
  if (i < 0 || i >= col->size) return NULL;
  const TVMFFIAny* e = &col->data[i];
  return e->type_index == kTVMFFINone ? NULL : e;
}

/* Calls a custom hash/equality entry: an OpaquePtr to a C++ function taking
 * `const Any&` (a pointer at the ABI level) or an ffi.Function. */
static int call_custom(const TVMFFIAny* entry, const TVMFFIAny* a, const TVMFFIAny* b,
                       int64_t* out) {
  if (entry->type_index == kTVMFFIOpaquePtr) {
    if (b == NULL) {
      int64_t (*f)(const TVMFFIAny*);
      memcpy(&f, &entry->v_ptr, sizeof(f)); /* object -> function pointer, POSIX-style */
      *out = f(a);
    } else {
      _Bool (*f)(const TVMFFIAny*, const TVMFFIAny*);
      memcpy(&f, &entry->v_ptr, sizeof(f));
      *out = f(a, b);
    }
    return 0;
  }
  if (entry->type_index == kTVMFFIFunction) {
    TVMFFIAny args[2] = {*a, b ? *b : *a};
    TVMFFIAny result = {kTVMFFINone, {0}, {0}};
    if (TVMFFIFunctionCall(entry->v_obj, args, b ? 2 : 1, &result) != 0) return -1;
    int ok = result.type_index == kTVMFFIInt || result.type_index == kTVMFFIBool;
    *out = result.v_int64;
    tvmffi__any_release(&result);
    return ok ? 0 : -1;
  }
  return -1;
}

uint64_t tvmffi__any_hash(const TVMFFIAny* a) {
  switch (a->type_index) {
    case kTVMFFISmallStr:
      return hash_combine(kTVMFFIStr, a->v_uint64 % HASH_MOD);
    case kTVMFFISmallBytes:
      return hash_combine(kTVMFFIBytes, a->v_uint64 % HASH_MOD);
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* s = TVMFFIBytesGetByteArrayPtr(a->v_obj);
      return hash_combine((uint64_t)a->type_index, hash_bytes(s->data, s->size));
    }
    default:
      break;
  }
  if (a->type_index >= kTVMFFIStaticObjectBegin) {
    const TVMFFIAny* f = type_attr("__any_hash__", a->type_index);
    int64_t h;
    if (f != NULL && call_custom(f, a, NULL, &h) == 0)
      return hash_combine((uint64_t)a->type_index, (uint64_t)h);
    if (f != NULL) {
      /* A failing custom hash has no error channel here: fall back to identity. */
      TVMFFIObjectHandle err = NULL;
      TVMFFIErrorMoveFromRaised(&err);
      TVMFFIObjectDecRef(err);
    }
  }
  return hash_combine((uint64_t)a->type_index, a->v_uint64);
}

static int str_like(const TVMFFIAny* v, int32_t small, int32_t heap, TVMFFIByteArray* out) {
  if (v->type_index == small) {
    *out = TVMFFISmallBytesGetContentByteArray(v);
    return 1;
  }
  if (v->type_index == heap) {
    *out = *TVMFFIBytesGetByteArrayPtr(v->v_obj);
    return 1;
  }
  return 0;
}

static int same_content(const TVMFFIAny* a, const TVMFFIAny* b, int32_t small, int32_t heap) {
  TVMFFIByteArray x, y;
  if (!str_like(a, small, heap, &x) || !str_like(b, small, heap, &y)) return -1;
  return x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
}

int tvmffi__any_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (memcmp(a, b, sizeof(TVMFFIAny)) == 0) return 1;
  int r = same_content(a, b, kTVMFFISmallStr, kTVMFFIStr);
  if (r >= 0) return r;
  r = same_content(a, b, kTVMFFISmallBytes, kTVMFFIBytes);
  if (r >= 0) return r;
  if (a->type_index != b->type_index || a->type_index < kTVMFFIStaticObjectBegin) return 0;
  const TVMFFIAny* f = type_attr("__any_equal__", a->type_index);
  if (f == NULL) return 0;
  int64_t eq = 0;
  if (call_custom(f, a, b, &eq) != 0) {
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    return 0;
  }
  return eq != 0;
}
