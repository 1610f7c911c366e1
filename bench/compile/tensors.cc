/*
 * bench/compile/tensors.cc -- a compile-time benchmark TU (bench/bench_cpp.sh): kernels over
 * TensorView and Tensor exported with TVM_FFI_DLL_EXPORT_TYPED_FUNC, argument checks with
 * TVM_FFI_THROW and TVM_FFI_ICHECK, outputs from the caller's allocator. Builds against both
 * header sets.
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

namespace bench_tensors {

namespace ffi = tvm::ffi;

constexpr DLDataType kF32{kDLFloat, 32, 1};

void CheckF32(const ffi::TensorView& t, const char* what) {
  if (t.dtype() != kF32) TVM_FFI_THROW(TypeError) << what << " must be float32, got " << t.dtype();
  TVM_FFI_ICHECK(t.device().device_type == kDLCPU) << what << " must be on the CPU";
  TVM_FFI_ICHECK(t.IsContiguous()) << what << " must be contiguous";
}

void Add(ffi::TensorView a, ffi::TensorView b, ffi::TensorView out) {
  CheckF32(a, "a");
  CheckF32(b, "b");
  CheckF32(out, "out");
  TVM_FFI_ICHECK_EQ(a.numel(), b.numel()) << "a and b differ in size";
  TVM_FFI_ICHECK_EQ(a.numel(), out.numel()) << "out differs in size";
  const float* x = static_cast<const float*>(a.data_ptr());
  const float* y = static_cast<const float*>(b.data_ptr());
  float* z = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < a.numel(); ++i) z[i] = x[i] + y[i];
}

void Gemv(ffi::TensorView m, ffi::TensorView v, ffi::TensorView out, ffi::Optional<double> beta) {
  CheckF32(m, "m");
  CheckF32(v, "v");
  CheckF32(out, "out");
  TVM_FFI_ICHECK_EQ(m.ndim(), 2) << "m must be 2-D";
  TVM_FFI_ICHECK_EQ(m.size(1), v.numel()) << "shape mismatch";
  TVM_FFI_ICHECK_EQ(m.size(0), out.numel()) << "shape mismatch";
  float b = static_cast<float>(beta.value_or(0.0));
  const float* mp = static_cast<const float*>(m.data_ptr());
  const float* vp = static_cast<const float*>(v.data_ptr());
  float* op = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < m.size(0); ++i) {
    float s = b * op[i];
    for (int64_t j = 0; j < m.size(1); ++j) s += mp[i * m.size(1) + j] * vp[j];
    op[i] = s;
  }
}

ffi::Tensor Relu(ffi::TensorView x) {
  CheckF32(x, "x");
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  const float* xp = static_cast<const float*>(x.data_ptr());
  float* yp = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] > 0 ? xp[i] : 0;
  return y;
}

ffi::Shape OutShape(ffi::Tensor a, ffi::Tensor b) {
  if (a.ndim() != 2 || b.ndim() != 2) TVM_FFI_THROW(ValueError) << "matmul wants 2-D tensors";
  TVM_FFI_ICHECK_EQ(a.size(1), b.size(0)) << "inner dimensions differ";
  return ffi::Shape({a.size(0), b.size(1)});
}

double Sum(ffi::TensorView x) {
  CheckF32(x, "x");
  const float* p = static_cast<const float*>(x.data_ptr());
  double s = 0;
  for (int64_t i = 0; i < x.numel(); ++i) s += p[i];
  return s;
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, bench_tensors::Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(gemv, bench_tensors::Gemv);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(relu, bench_tensors::Relu);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(out_shape, bench_tensors::OutShape);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum, bench_tensors::Sum);

}  // namespace bench_tensors
