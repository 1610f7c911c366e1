/*
 * string.c -- ffi.String / ffi.Bytes objects and their small forms
 * (docs/abi.md §5.3, §7.1, §10.6).
 *
 * Heap objects keep the characters inline at handle + 40 with a trailing
 * NUL, because C++ header code hands `data` out as a C string.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Largest length stored in the small form (sizeof(int64_t) - 1). */
#define SMALL_MAX 7

TVMFFIObject* tvmffi__bytes_obj_new(int32_t type_index, const char* data, size_t n) {
  size_t head = sizeof(TVMFFIObject) + sizeof(TVMFFIByteArray); /* 40 */
  if (n > SIZE_MAX - head - 8) {
    tvmffi__raise_oom();
    return NULL;
  }
  size_t size = (head + n + 1 + 7) & ~(size_t)7; /* round up to 8 like upstream */
  TVMFFIObject* obj = tvmffi__object_alloc(size, type_index, tvmffi__object_deleter_plain);
  if (obj == NULL) return NULL;
  char* inline_data = (char*)obj + head;
  if (n) memcpy(inline_data, data, n);
  inline_data[n] = '\0';
  TVMFFIByteArray* cell = TVMFFIBytesGetByteArrayPtr(obj);
  cell->data = inline_data;
  cell->size = n;
  return obj;
}

int tvmffi__str_to_any(int32_t type_index, const char* data, size_t n, TVMFFIAny* out) {
  if (n <= SMALL_MAX) {
    TVMFFIAny v;
    v.type_index = type_index == kTVMFFIBytes ? kTVMFFISmallBytes : kTVMFFISmallStr;
    v.small_str_len = (uint32_t)n;
    v.v_uint64 = 0; /* canonical: unused payload bytes are zero */
    if (n) memcpy(v.v_bytes, data, n);
    *out = v;
    return 0;
  }
  TVMFFIObject* obj = tvmffi__bytes_obj_new(type_index, data, n);
  if (obj == NULL) return -1;
  out->type_index = type_index;
  out->zero_padding = 0;
  out->v_obj = obj;
  return 0;
}

int tvmffi__any_as_str(const TVMFFIAny* v, TVMFFIByteArray* out) {
  switch (v->type_index) {
    case kTVMFFIRawStr:
      if (v->v_c_str == NULL) return 0;
      out->data = v->v_c_str;
      out->size = strlen(v->v_c_str);
      return 1;
    case kTVMFFISmallStr:
      *out = TVMFFISmallBytesGetContentByteArray(v);
      return 1;
    case kTVMFFIStr:
      *out = *TVMFFIBytesGetByteArrayPtr(v->v_obj);
      return 1;
    default:
      return 0;
  }
}

int tvmffi__any_as_bytes(const TVMFFIAny* v, TVMFFIByteArray* out) {
  switch (v->type_index) {
    case kTVMFFIByteArrayPtr:
      if (v->v_ptr == NULL) return 0;
      *out = *(const TVMFFIByteArray*)v->v_ptr;
      return 1;
    case kTVMFFISmallBytes:
      *out = TVMFFISmallBytesGetContentByteArray(v);
      return 1;
    case kTVMFFIBytes:
      *out = *TVMFFIBytesGetByteArrayPtr(v->v_obj);
      return 1;
    default:
      return 0;
  }
}

static int from_byte_array(const char* api, int32_t type_index, const TVMFFIByteArray* input,
                           TVMFFIAny* out) {
  if (input == NULL || out == NULL)
    return tvmffi__raise("ValueError", "%s: input and out must not be NULL", api);
  if (input->data == NULL && input->size != 0)
    return tvmffi__raise("ValueError", "%s: input->data is NULL but size is %zu", api, input->size);
  return tvmffi__str_to_any(type_index, input->data, input->size, out);
}

TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  return from_byte_array("TVMFFIStringFromByteArray", kTVMFFIStr, input, out);
}

TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  return from_byte_array("TVMFFIBytesFromByteArray", kTVMFFIBytes, input, out);
}
