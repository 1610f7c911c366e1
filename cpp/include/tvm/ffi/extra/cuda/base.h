/*
 * tvm/ffi/extra/cuda/base.h -- CUDA error checking.  Needs <cuda_runtime.h>
 * (compile with nvcc or with the CUDA include path); nothing here is used by
 * CPU-only code.
 */
#ifndef TVM_FFI_EXTRA_CUDA_BASE_H_
#define TVM_FFI_EXTRA_CUDA_BASE_H_

#include <cuda_runtime.h>
#include <tvm/ffi/error.h>

/* Throws RuntimeError "CUDA Runtime Error: <name> (<code>): <string>" when stmt fails. */
#define TVM_FFI_CHECK_CUDA_ERROR(stmt)                                                \
  do {                                                                                \
    cudaError_t __tvm_ffi_cuda_err = (stmt);                                          \
    if (TVM_FFI_PREDICT_FALSE(__tvm_ffi_cuda_err != cudaSuccess)) {                   \
      TVM_FFI_THROW(RuntimeError) << "CUDA Runtime Error: "                           \
                                  << cudaGetErrorName(__tvm_ffi_cuda_err) << " ("     \
                                  << static_cast<int>(__tvm_ffi_cuda_err)             \
                                  << "): " << cudaGetErrorString(__tvm_ffi_cuda_err); \
    }                                                                                 \
  } while (0)

TVM_FFI_NS_BEGIN
/*! \brief Launch dimensions (distinct from CUDA's global ::dim3); defaults to (1, 1, 1). */
struct dim3 {
  unsigned int x, y, z;
  dim3() : x(1), y(1), z(1) {}
  explicit dim3(unsigned int x_) : x(x_), y(1), z(1) {}
  dim3(unsigned int x_, unsigned int y_) : x(x_), y(y_), z(1) {}
  dim3(unsigned int x_, unsigned int y_, unsigned int z_) : x(x_), y(y_), z(z_) {}
};
TVM_FFI_NS_END

#endif  // TVM_FFI_EXTRA_CUDA_BASE_H_
