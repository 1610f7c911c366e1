/*
 * any.c -- view -> owned conversion (docs/abi.md §5.5, §10.3).  AnyHash /
 * AnyEqual live in any_hash.c (containers).
 */
#include <string.h>

#include "internal.h"

TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  if (any_view == NULL || out == NULL)
    return tvmffi__raise("ValueError",
                         "TVMFFIAnyViewToOwnedAny: any_view and out must not be NULL");
  int32_t t = any_view->type_index;
  if (t >= kTVMFFIStaticObjectBegin) {
    if (TVMFFI__UNLIKELY(any_view->v_obj == NULL)) {
      tvmffi__any_set_none(out); /* non-canonical null reference: None */
      return 0;
    }
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
