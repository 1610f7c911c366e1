/*
 * examples/kernel_library/kernel_lib.cc -- a framework-agnostic kernel
 * library in the style of the kernel library guide: TensorView inputs,
 * Optional arguments, outputs pre-allocated by the caller, tensors allocated
 * through the framework's allocator (FromEnvAlloc) or a custom one
 * (FromNDAlloc), and the caller's stream looked up with TVMFFIEnvGetStream.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <cstdlib>

namespace kernel_lib {

namespace ffi = tvm::ffi;

// CPU allocator for FromNDAlloc, as in the guide.
struct CPUNDAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = malloc(ffi::GetDataSize(*tensor)); }
  void FreeData(DLTensor* tensor) { free(tensor->data); }
};

constexpr DLDataType kF32{kDLFloat, 32, 1};

void CheckF32Cpu(const ffi::TensorView& t, const char* name) {
  TVM_FFI_CHECK(t.dtype() == kF32, TypeError) << name << " must be float32, got " << t.dtype();
  TVM_FFI_CHECK(t.device().device_type == kDLCPU, ValueError) << name << " must be on the CPU";
  TVM_FFI_CHECK(t.IsContiguous(), ValueError) << name << " must be contiguous";
}

// output = (input + optional_input) * scale; workspace receives the pre-scale sum.
void Axpy(ffi::TensorView input, ffi::Optional<ffi::Tensor> optional_input, ffi::TensorView output,
          ffi::TensorView workspace, ffi::Optional<double> scale) {
  CheckF32Cpu(input, "input");
  CheckF32Cpu(output, "output");
  CheckF32Cpu(workspace, "workspace");
  int64_t n = input.numel();
  TVM_FFI_CHECK_EQ(output.numel(), n, ValueError) << "output size differs from input";
  TVM_FFI_CHECK_EQ(workspace.numel(), n, ValueError) << "workspace size differs from input";
  const float* other = nullptr;
  ffi::Tensor other_tensor;  // keeps the optional input alive while viewed
  if (optional_input.has_value()) {
    other_tensor = optional_input.value();
    ffi::TensorView o = other_tensor;
    CheckF32Cpu(o, "optional_input");
    TVM_FFI_CHECK_EQ(o.numel(), n, ValueError) << "optional_input size differs from input";
    other = static_cast<const float*>(o.data_ptr());
  }
  float s = static_cast<float>(scale.value_or(1.0));
  const float* x = static_cast<const float*>(input.data_ptr());
  float* ws = static_cast<float*>(workspace.data_ptr());
  float* y = static_cast<float*>(output.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    ws[i] = x[i] + (other ? other[i] : 0.0f);
    y[i] = ws[i] * s;
  }
}

// A new tensor like x (shape, dtype, device) from the framework's allocator, filled with x + 1.
ffi::Tensor AddOneAlloc(ffi::TensorView x) {
  CheckF32Cpu(x, "x");
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  const float* xp = static_cast<const float*>(x.data_ptr());
  float* yp = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] + 1;
  return y;
}

// A tensor of `shape` filled with `value`, from the library's own CPU allocator.
ffi::Tensor Full(ffi::Shape shape, double value) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUNDAlloc(), shape, kF32, DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(value);
  return t;
}

// The stream the caller registered for x's device (0 means the default stream).
int64_t CurrentStream(ffi::TensorView x) {
  DLDevice device = x.device();
  return reinterpret_cast<int64_t>(TVMFFIEnvGetStream(device.device_type, device.device_id));
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, kernel_lib::Axpy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_alloc, kernel_lib::AddOneAlloc);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(full, kernel_lib::Full);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(current_stream, kernel_lib::CurrentStream);

}  // namespace kernel_lib
