/*
 * tvm/ffi/function_detail.h -- the name 0.1.15 gave function_details.h (the
 * typed-call machinery); code written for either name compiles.
 */
#ifndef TVM_FFI_FUNCTION_DETAIL_H_
#define TVM_FFI_FUNCTION_DETAIL_H_

#include <tvm/ffi/function_details.h>

#endif  // TVM_FFI_FUNCTION_DETAIL_H_
