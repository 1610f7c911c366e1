/*
 * tvm/ffi/extra/cuda/stream.h -- the CUDA stream a kernel should launch on: the one the
 * caller's framework registered for the device (TVMFFIEnvGetStream, e.g. torch's current
 * stream when called from Python), and a guard that makes a stream current for a scope.
 */
#ifndef TVM_FFI_EXTRA_CUDA_STREAM_H_
#define TVM_FFI_EXTRA_CUDA_STREAM_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/base.h>

TVM_FFI_NS_BEGIN

/*! \brief This thread's current stream for CUDA device `device_id` (NULL: the default stream). */
inline cudaStream_t GetCurrentCUDAStream(int device_id) {
  return static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, device_id));
}

/*!
 * \brief Makes `stream` this thread's current stream for device `device_id` (what
 * GetCurrentCUDAStream and callees reached through the FFI see) until the scope ends, then
 * restores the previous one.
 */
class CUDAStreamGuard {
 public:
  CUDAStreamGuard(int device_id, cudaStream_t stream) : device_id_(device_id) {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvSetStream(kDLCUDA, device_id, stream, &original_));
  }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  ~CUDAStreamGuard() noexcept(false) {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvSetStream(kDLCUDA, device_id_, original_, nullptr));
  }

 private:
  int device_id_;
  TVMFFIStreamHandle original_{nullptr};
};

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_CUDA_STREAM_H_
