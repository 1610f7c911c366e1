/* tvm/ffi/container/optional.h -- alias of <tvm/ffi/optional.h> (path used in some docs). */
#ifndef TVM_FFI_CONTAINER_OPTIONAL_H_
#define TVM_FFI_CONTAINER_OPTIONAL_H_
#include <tvm/ffi/optional.h>
#endif  // TVM_FFI_CONTAINER_OPTIONAL_H_
