/*
 * tvm/ffi/base_detail.h -- the name 0.1.15 gave base_details.h (compiler helpers,
 * the static-init macro); code written for either name compiles.
 */
#ifndef TVM_FFI_BASE_DETAIL_H_
#define TVM_FFI_BASE_DETAIL_H_

#include <tvm/ffi/base_details.h>

#endif  // TVM_FFI_BASE_DETAIL_H_
