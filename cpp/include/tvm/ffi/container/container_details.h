/*
 * tvm/ffi/container/container_details.h -- a header of releases
 * 0.1.0-0.1.14 (0.1.15: container_detail.h) that held their containers' shared
 * internals.  Code that includes it gets the containers; those internals
 * (iterator adapters, storage traits) are not API and have no counterpart
 * here (docs/cpp.md).
 */
#ifndef TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_
#define TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

#endif  // TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_
