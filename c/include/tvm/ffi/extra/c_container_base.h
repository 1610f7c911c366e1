/*
 * tvm/ffi/extra/c_container_base.h -- the part of <tvm/ffi/extra/c_container.h> that every
 * container needs: hashing and equality of Any values, and the sequence cells (Array, List).
 * The map cell is <tvm/ffi/extra/c_map.h>, apart so that a C++ TU that never touches a map
 * does not parse its 700 lines (any.h and the sequences include only this one).
 * Conventions (ownership, errors, storage): c_container.h.
 */
#ifndef TVM_FFI_EXTRA_C_CONTAINER_BASE_H_
#define TVM_FFI_EXTRA_C_CONTAINER_BASE_H_

#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TVMFFI_CONTAINER_INLINE static inline

/* ===================================================================== */
/* Section: AnyHash / AnyEqual                                           */
/* ===================================================================== */

/* combine(key, value) of docs/abi.md §5.6. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIContainerHashCombine(uint64_t key, uint64_t value) {
  return key ^ (value + UINT64_C(0x9e3779b9) + (key << 6) + (key >> 2));
}

/* hash_bytes(p, n): 8-byte little-endian chunks folded modulo 2^31 - 1. */
TVMFFI_CONTAINER_INLINE uint64_t TVMFFIContainerHashBytes(const char* data, size_t n) {
  const uint64_t kMul = UINT64_C(1099511628211), kMod = UINT64_C(2147483647);
  uint64_t r = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | (unsigned char)data[i + (size_t)b];
    r = (r * kMul + w) % kMod;
  }
  if (i < n) {
    uint64_t w = 0;
    for (size_t b = n; b > i; --b) w = (w << 8) | (unsigned char)data[b - 1];
    r = (r * kMul + w) % kMod;
  }
  return r;
}

/* The column entry of attribute `name` for `type_index`, or NULL for None.
 * The column pointer is cached per translation unit once it exists; data
 * and size are re-read on every call because the column may grow. */
TVMFFI_CONTAINER_INLINE const TVMFFIAny* TVMFFIContainerImplHook(const TVMFFITypeAttrColumn** cache,
                                                                 const char* name,
                                                                 int32_t type_index) {
  const TVMFFITypeAttrColumn* col = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (col == NULL) {
    TVMFFIByteArray ba;
    ba.data = name;
    ba.size = strlen(name);
    col = TVMFFIGetTypeAttrColumn(&ba);
    if (col == NULL) return NULL;
    __atomic_store_n(cache, col, __ATOMIC_RELEASE);
  }
  int32_t rel = type_index - col->begin_index;
  if (rel < 0 || rel >= col->size) return NULL;
  const TVMFFIAny* entry = &col->data[rel];
  return entry->type_index == kTVMFFINone ? NULL : entry;
}

/* Byte range of a Str/SmallStr/Bytes/SmallBytes value. */
TVMFFI_CONTAINER_INLINE TVMFFIByteArray TVMFFIContainerImplBytes(const TVMFFIAny* a) {
  if (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFISmallBytes)
    return TVMFFISmallBytesGetContentByteArray(a);
  return *TVMFFIBytesGetByteArrayPtr(a->v_obj);
}

/*
 * Calls an "__any_hash__" (b == NULL) or "__any_equal__" hook on a (and b);
 * *out gets the int / bool it returns.  The hook is an ffi.Function, called
 * packed: the runtime stores a native hook (an OpaquePtr from C++ headers of
 * any release) wrapped in one that calls it in its release's convention
 * (docs/abi.md §5.6).  Returns 0, or -1 with the hook's error (or a TypeError)
 * raised.
 */
TVMFFI_CONTAINER_INLINE int TVMFFIContainerImplCallHook(const TVMFFIAny* hook, const TVMFFIAny* a,
                                                        const TVMFFIAny* b, int64_t* out) {
  TVMFFIAny res;
  res.type_index = kTVMFFINone;
  res.zero_padding = 0;
  res.v_int64 = 0;
  if (hook->type_index != kTVMFFIFunction) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", b == NULL
                                                  ? "__any_hash__ attribute must be an ffi.Function"
                                                  : "__any_equal__ attribute must be an "
                                                    "ffi.Function");
    return -1;
  }
  TVMFFIAny args[2];
  args[0] = *a;
  if (b != NULL) args[1] = *b;
  if (TVMFFIFunctionCall(hook->v_obj, args, b == NULL ? 1 : 2, &res) != 0) return -1;
  if (res.type_index == kTVMFFIInt || (b != NULL && res.type_index == kTVMFFIBool)) {
    *out = res.v_int64;
    return 0;
  }
  if (res.type_index == kTVMFFIError) {
    TVMFFIErrorSetRaised(res.v_obj);
  } else {
    TVMFFIErrorSetRaisedFromCStr("TypeError", b == NULL ? "__any_hash__ hook must return an int"
                                                        : "__any_equal__ hook must return a bool");
  }
  if (res.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(res.v_obj);
  return -1;
}

/*
 * AnyHash of docs/abi.md §5.6 into *out.  `a` must be in owned form (no view-only
 * kinds 7..10).  Returns 0/-1; -1 only when a "__any_hash__" hook fails or
 * returns something other than an int (TypeError).
 */
TVMFFI_CONTAINER_INLINE int TVMFFIContainerAnyHash(const TVMFFIAny* a, uint64_t* out) {
  const uint64_t kMod = UINT64_C(2147483647);
  int32_t ti = a->type_index;
  if (ti == kTVMFFISmallStr || ti == kTVMFFISmallBytes) {
    *out = TVMFFIContainerHashCombine(ti == kTVMFFISmallStr ? kTVMFFIStr : kTVMFFIBytes,
                                      a->v_uint64 % kMod);
    return 0;
  }
  if (ti == kTVMFFIStr || ti == kTVMFFIBytes) {
    TVMFFIByteArray ba = *TVMFFIBytesGetByteArrayPtr(a->v_obj);
    *out = TVMFFIContainerHashCombine((uint64_t)ti, TVMFFIContainerHashBytes(ba.data, ba.size));
    return 0;
  }
  if (ti >= kTVMFFIStaticObjectBegin) {
    static const TVMFFITypeAttrColumn* cache = NULL;
    const TVMFFIAny* hook = TVMFFIContainerImplHook(&cache, "__any_hash__", ti);
    if (hook != NULL) {
      int64_t custom;
      if (TVMFFIContainerImplCallHook(hook, a, NULL, &custom) != 0) return -1;
      *out = TVMFFIContainerHashCombine((uint64_t)ti, (uint64_t)custom);
      return 0;
    }
  }
  *out = TVMFFIContainerHashCombine((uint64_t)(int64_t)ti, a->v_uint64);
  return 0;
}

/*
 * AnyEqual of docs/abi.md §5.6.  Returns 1 (equal), 0 (not equal) or -1 when an
 * "__any_equal__" hook fails.  Both values must be in owned form.
 */
TVMFFI_CONTAINER_INLINE int TVMFFIContainerAnyEqual(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == b->type_index && a->zero_padding == b->zero_padding &&
      a->v_uint64 == b->v_uint64)
    return 1;
  int32_t ta = a->type_index, tb = b->type_index;
  if (ta == tb) {
    if (ta == kTVMFFIStr || ta == kTVMFFIBytes) {
      TVMFFIByteArray x = TVMFFIContainerImplBytes(a), y = TVMFFIContainerImplBytes(b);
      return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
    }
    if (ta < kTVMFFIStaticObjectBegin) return 0;
    static const TVMFFITypeAttrColumn* cache = NULL;
    const TVMFFIAny* hook = TVMFFIContainerImplHook(&cache, "__any_equal__", ta);
    if (hook == NULL) return 0;
    int64_t eq;
    return TVMFFIContainerImplCallHook(hook, a, b, &eq) != 0 ? -1 : eq != 0;
  }
  if ((ta == kTVMFFIStr && tb == kTVMFFISmallStr) || (ta == kTVMFFISmallStr && tb == kTVMFFIStr) ||
      (ta == kTVMFFIBytes && tb == kTVMFFISmallBytes) ||
      (ta == kTVMFFISmallBytes && tb == kTVMFFIBytes)) {
    TVMFFIByteArray x = TVMFFIContainerImplBytes(a), y = TVMFFIContainerImplBytes(b);
    return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  }
  return 0;
}

/* Releases an owned Any and resets it to None. */
TVMFFI_CONTAINER_INLINE void TVMFFIContainerImplRelease(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}

/* Resets a slot whose reference was moved elsewhere (no DecRef). */
TVMFFI_CONTAINER_INLINE void TVMFFIContainerImplReset(TVMFFIAny* v) {
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
}

TVMFFI_CONTAINER_INLINE int TVMFFIContainerImplOOM(void) {
  TVMFFIErrorSetRaisedFromCStr("MemoryError", "out of memory while growing a container");
  return -1;
}

/* ===================================================================== */
/* Section: sequences (ffi.Array, ffi.List)                              */
/* ===================================================================== */

/* The element array of a sequence cell. */
TVMFFI_CONTAINER_INLINE TVMFFIAny* TVMFFISeqCellItems(TVMFFISeqCell* cell) {
  return (TVMFFIAny*)cell->data;
}

/* Releases elements [0, size) and sets size to 0 (storage is kept). */
TVMFFI_CONTAINER_INLINE void TVMFFISeqCellReleaseItems(TVMFFISeqCell* cell) {
  TVMFFIAny* items = (TVMFFIAny*)cell->data;
  int64_t n = cell->size;
  cell->size = 0;
  for (int64_t i = 0; i < n; ++i) TVMFFIContainerImplRelease(&items[i]);
}

/*
 * Grows a List buffer to hold at least `capacity` elements (docs/abi.md §7.7):
 * a new malloc'd buffer receives the elements, the old buffer goes to the
 * *existing* data_deleter, which stays in place (installing `free` when it
 * is NULL).  Never shrinks.  Returns 0/-1 (MemoryError).
 */
TVMFFI_CONTAINER_INLINE int TVMFFIListCellReserve(TVMFFISeqCell* cell, int64_t capacity) {
  if (capacity <= cell->capacity) return 0;
  if ((uint64_t)capacity > SIZE_MAX / sizeof(TVMFFIAny)) return TVMFFIContainerImplOOM();
  TVMFFIAny* fresh = (TVMFFIAny*)malloc((size_t)capacity * sizeof(TVMFFIAny));
  if (fresh == NULL) return TVMFFIContainerImplOOM();
  if (cell->size > 0) memcpy(fresh, cell->data, (size_t)cell->size * sizeof(TVMFFIAny));
  void* old = cell->data;
  if (cell->data_deleter == NULL) {
    cell->data_deleter = free; /* old buffer was inline (never for runtime lists) */
  } else {
    cell->data_deleter(old);
  }
  cell->data = fresh;
  cell->capacity = capacity;
  return 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TVM_FFI_EXTRA_C_CONTAINER_BASE_H_ */
