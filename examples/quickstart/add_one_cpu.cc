/*
 * examples/quickstart/add_one_cpu.cc -- the quickstart kernel: y = x + 1 on
 * a 1-d float32 CPU tensor, exported as `add_one_cpu`.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

namespace tvm_ffi_example_cpu {

namespace ffi = tvm::ffi;

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_ICHECK_EQ(x.ndim(), 1) << "x must be a 1D tensor";
  DLDataType f32_dtype{kDLFloat, 32, 1};
  TVM_FFI_ICHECK_EQ(x.dtype(), f32_dtype) << "x must be a float tensor";
  TVM_FFI_ICHECK_EQ(y.ndim(), 1) << "y must be a 1D tensor";
  TVM_FFI_ICHECK_EQ(y.dtype(), f32_dtype) << "y must be a float tensor";
  TVM_FFI_ICHECK_EQ(x.size(0), y.size(0)) << "x and y must have the same shape";
  float* xp = static_cast<float*>(x.data_ptr());
  float* yp = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) yp[i] = xp[i] + 1;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cpu, tvm_ffi_example_cpu::AddOne);

}  // namespace tvm_ffi_example_cpu
