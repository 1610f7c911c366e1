/*
 * kernel_util.h -- argument helpers shared by the test kernels.  Kernels are
 * plain C against the public headers only, like a user's kernel library.
 */
#ifndef TVMFFI_TESTS_C_KERNELS_KERNEL_UTIL_H_
#define TVMFFI_TESTS_C_KERNELS_KERNEL_UTIL_H_

#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

static inline int k_raise(const char* kind, const char* msg) {
  TVMFFIErrorSetRaisedFromCStr(kind, msg);
  return -1;
}

/* Integer argument (Int or Bool). */
static inline int k_int(const TVMFFIAny* a, int64_t* out) {
  if (a->type_index != kTVMFFIInt && a->type_index != kTVMFFIBool)
    return k_raise("TypeError", "expected an int argument");
  *out = a->v_int64;
  return 0;
}

/* String argument (RawStr, SmallStr or Str) as a byte range into *a. */
static inline int k_str(const TVMFFIAny* a, TVMFFIByteArray* out) {
  if (a->type_index == kTVMFFIRawStr) {
    out->data = a->v_c_str;
    out->size = strlen(a->v_c_str);
  } else if (a->type_index == kTVMFFISmallStr) {
    *out = TVMFFISmallBytesGetContentByteArray(a);
  } else if (a->type_index == kTVMFFIStr) {
    *out = *TVMFFIBytesGetByteArrayPtr(a->v_obj);
  } else {
    return k_raise("TypeError", "expected a str argument");
  }
  return 0;
}

/* Tensor argument (DLTensor* view or ffi.Tensor). */
static inline int k_tensor(const TVMFFIAny* a, DLTensor** out) {
  if (a->type_index == kTVMFFIDLTensorPtr) {
    *out = (DLTensor*)a->v_ptr;
  } else if (a->type_index == kTVMFFITensor) {
    *out = TVMFFITensorGetDLTensorPtr(a->v_obj);
  } else {
    return k_raise("TypeError", "expected a tensor argument");
  }
  return 0;
}

static inline void k_set_int(TVMFFIAny* r, int64_t v) {
  r->type_index = kTVMFFIInt;
  r->zero_padding = 0;
  r->v_int64 = v;
}

static inline int k_set_str(TVMFFIAny* r, const char* s) {
  TVMFFIByteArray b = {s, strlen(s)};
  return TVMFFIStringFromByteArray(&b, r);
}

#endif /* TVMFFI_TESTS_C_KERNELS_KERNEL_UTIL_H_ */
