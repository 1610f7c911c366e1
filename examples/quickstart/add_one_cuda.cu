/*
 * examples/quickstart/add_one_cuda.cu -- the quickstart kernel on CUDA,
 * launched on the stream the caller's framework is using
 * (TVMFFIEnvGetStream), exported as `add_one_cuda`.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/function.h>

namespace tvm_ffi_example_cuda {

namespace ffi = tvm::ffi;

__global__ void AddOneKernel(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1;
}

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_ICHECK_EQ(x.ndim(), 1) << "x must be a 1D tensor";
  DLDataType f32_dtype{kDLFloat, 32, 1};
  TVM_FFI_ICHECK_EQ(x.dtype(), f32_dtype) << "x must be a float tensor";
  TVM_FFI_ICHECK_EQ(y.dtype(), f32_dtype) << "y must be a float tensor";
  TVM_FFI_ICHECK_EQ(x.size(0), y.size(0)) << "x and y must have the same shape";
  ffi::CUDADeviceGuard guard(x.device().device_id);
  int64_t n = x.size(0);
  int64_t threads = 256, blocks = (n + threads - 1) / threads;
  cudaStream_t stream =
      static_cast<cudaStream_t>(TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  AddOneKernel<<<blocks, threads, 0, stream>>>(static_cast<const float*>(x.data_ptr()),
                                               static_cast<float*>(y.data_ptr()), n);
  TVM_FFI_CHECK_CUDA_ERROR(cudaGetLastError());
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cuda, tvm_ffi_example_cuda::AddOne);

}  // namespace tvm_ffi_example_cuda
