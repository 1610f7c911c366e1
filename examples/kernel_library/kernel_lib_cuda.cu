/*
 * examples/kernel_library/kernel_lib_cuda.cu -- the guide's CUDA and NVSHMEM
 * allocators for FromNDAlloc, and a kernel that allocates its output with
 * the framework allocator on the caller's stream.  NVSHMEM is used only
 * where its header exists.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#if defined(__has_include)
#if __has_include(<nvshmem.h>)
#include <nvshmem.h>
#define KERNEL_LIB_HAVE_NVSHMEM 1
#endif
#endif

namespace kernel_lib_cuda {

namespace ffi = tvm::ffi;

// CUDA Allocator
struct CUDANDAlloc {
  void AllocData(DLTensor* tensor) {
    size_t data_size = ffi::GetDataSize(*tensor);
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, data_size);
    TVM_FFI_ICHECK_EQ(err, cudaSuccess) << "cudaMalloc failed: " << cudaGetErrorString(err);
    tensor->data = ptr;
  }
  void FreeData(DLTensor* tensor) {
    if (tensor->data != nullptr) {
      cudaError_t err = cudaFree(tensor->data);
      TVM_FFI_ICHECK_EQ(err, cudaSuccess) << "cudaFree failed: " << cudaGetErrorString(err);
      tensor->data = nullptr;
    }
  }
};

#ifdef KERNEL_LIB_HAVE_NVSHMEM
// NVSHMEM Allocator
struct NVSHMEMNDAlloc {
  void AllocData(DLTensor* tensor) {
    size_t size = tvm::ffi::GetDataSize(*tensor);
    tensor->data = nvshmem_malloc(size);
    TVM_FFI_ICHECK_NE(tensor->data, nullptr) << "nvshmem_malloc failed. size: " << size;
  }
  void FreeData(DLTensor* tensor) { nvshmem_free(tensor->data); }
};
#endif

__global__ void ScaleKernel(const float* x, float* y, float s, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * s;
}

// y = x * scale on the caller's stream; a new tensor from the framework allocator.
ffi::Tensor Scale(ffi::TensorView x, ffi::Optional<double> scale) {
  ffi::DLDevice device = x.device();
  ffi::CUDADeviceGuard guard(device.device_id);
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), device);
  cudaStream_t stream =
      reinterpret_cast<cudaStream_t>(TVMFFIEnvGetStream(device.device_type, device.device_id));
  int64_t n = x.numel();
  ScaleKernel<<<(n + 255) / 256, 256, 0, stream>>>(static_cast<const float*>(x.data_ptr()),
                                                   static_cast<float*>(y.data_ptr()),
                                                   static_cast<float>(scale.value_or(1.0)), n);
  TVM_FFI_CHECK_CUDA_ERROR(cudaGetLastError());
  return y;
}

// A zero-filled CUDA tensor from the library's own allocator.
ffi::Tensor Zeros(ffi::Shape shape, int device_id) {
  ffi::CUDADeviceGuard guard(device_id);
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CUDANDAlloc(), shape, DLDataType{kDLFloat, 32, 1},
                                           DLDevice{kDLCUDA, device_id});
  TVM_FFI_CHECK_CUDA_ERROR(cudaMemset(t.data_ptr(), 0, ffi::GetDataSize(t)));
  return t;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, kernel_lib_cuda::Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(zeros, kernel_lib_cuda::Zeros);

}  // namespace kernel_lib_cuda
