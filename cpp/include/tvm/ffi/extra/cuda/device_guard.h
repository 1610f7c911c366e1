/*
 * tvm/ffi/extra/cuda/device_guard.h -- CUDADeviceGuard: switch the current
 * CUDA device for a scope and restore it afterwards.
 */
#ifndef TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_
#define TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_

#include <tvm/ffi/extra/cuda/base.h>

TVM_FFI_NS_BEGIN

/*! \brief Sets the device when it differs from the current one; restores it on exit. */
struct CUDADeviceGuard {
  CUDADeviceGuard() = delete;
  explicit CUDADeviceGuard(int device_index) : target_(device_index) {
    TVM_FFI_CHECK_CUDA_ERROR(cudaGetDevice(&original_));
    if (original_ != target_) TVM_FFI_CHECK_CUDA_ERROR(cudaSetDevice(target_));
  }
  CUDADeviceGuard(const CUDADeviceGuard&) = delete;
  CUDADeviceGuard& operator=(const CUDADeviceGuard&) = delete;
  ~CUDADeviceGuard() noexcept(false) {
    if (original_ != target_) TVM_FFI_CHECK_CUDA_ERROR(cudaSetDevice(original_));
  }

 private:
  int original_{-1};
  int target_;
};

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_
