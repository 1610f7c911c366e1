/*
 * tvm/ffi/extra/deep_copy.h -- where 0.1.9 declared DeepCopy(const Any&);
 * later releases, and this project, declare it in extra/dataclass.h.
 */
#ifndef TVM_FFI_EXTRA_DEEP_COPY_H_
#define TVM_FFI_EXTRA_DEEP_COPY_H_

#include <tvm/ffi/extra/dataclass.h>

#endif  // TVM_FFI_EXTRA_DEEP_COPY_H_
