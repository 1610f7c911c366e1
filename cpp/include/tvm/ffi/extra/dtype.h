/*
 * tvm/ffi/extra/dtype.h -- tvm_ffi::dtype_trait<T>::value: the DLDataType of
 * a C++ element type (namespace tvm_ffi, as upstream).  CUDA/HIP element
 * types are only forward-declared, so no vendor header is needed.
 */
#ifndef TVM_FFI_EXTRA_DTYPE_H_
#define TVM_FFI_EXTRA_DTYPE_H_

#include <dlpack/dlpack.h>

#include <cstdint>

struct __half;
struct __nv_bfloat16;
struct __nv_fp8_e4m3;
struct __nv_fp8_e5m2;
struct __nv_fp8_e8m0;
struct __nv_fp4_e2m1;
struct __nv_fp4x2_e2m1;
struct __hip_bfloat16;

namespace tvm_ffi {

template <typename T>
struct dtype_trait;

#define TVM_FFI_DTYPE_TRAIT_(T, code, bits, lanes)                              \
  template <>                                                                   \
  struct dtype_trait<T> {                                                       \
    static constexpr DLDataType value{static_cast<uint8_t>(code), bits, lanes}; \
  }

TVM_FFI_DTYPE_TRAIT_(signed char, kDLInt, 8, 1);
TVM_FFI_DTYPE_TRAIT_(short, kDLInt, 16, 1);
TVM_FFI_DTYPE_TRAIT_(int, kDLInt, 32, 1);
TVM_FFI_DTYPE_TRAIT_(long, kDLInt, 8 * sizeof(long), 1);
TVM_FFI_DTYPE_TRAIT_(long long, kDLInt, 64, 1);
TVM_FFI_DTYPE_TRAIT_(unsigned char, kDLUInt, 8, 1);
TVM_FFI_DTYPE_TRAIT_(unsigned short, kDLUInt, 16, 1);
TVM_FFI_DTYPE_TRAIT_(unsigned int, kDLUInt, 32, 1);
TVM_FFI_DTYPE_TRAIT_(unsigned long, kDLUInt, 8 * sizeof(unsigned long), 1);
TVM_FFI_DTYPE_TRAIT_(unsigned long long, kDLUInt, 64, 1);
TVM_FFI_DTYPE_TRAIT_(float, kDLFloat, 32, 1);
TVM_FFI_DTYPE_TRAIT_(double, kDLFloat, 64, 1);
TVM_FFI_DTYPE_TRAIT_(bool, kDLBool, 8, 1);
TVM_FFI_DTYPE_TRAIT_(__half, kDLFloat, 16, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_bfloat16, kDLBfloat, 16, 1);
TVM_FFI_DTYPE_TRAIT_(__hip_bfloat16, kDLBfloat, 16, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_fp8_e4m3, kDLFloat8_e4m3fn, 8, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_fp8_e5m2, kDLFloat8_e5m2, 8, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_fp8_e8m0, kDLFloat8_e8m0fnu, 8, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_fp4_e2m1, kDLFloat4_e2m1fn, 4, 1);
TVM_FFI_DTYPE_TRAIT_(__nv_fp4x2_e2m1, kDLFloat4_e2m1fn, 4, 2);
#undef TVM_FFI_DTYPE_TRAIT_

}  // namespace tvm_ffi
#endif  // TVM_FFI_EXTRA_DTYPE_H_
