// tests/host/orcjit_kernel.cc -- an object file for apache-tvm-ffi-orcjit
// (orcjit_objects.py), compiled against the apache package's headers.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>

namespace ffi = tvm::ffi;

namespace {

int64_t AddInt(int64_t a, int64_t b) { return a + b; }

ffi::String Greet(ffi::String name) { return ffi::String("hello, " + std::string(name)); }

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  const float* src = static_cast<const float*>(x.data_ptr());
  float* dst = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) dst[i] = src[i] + 1.0f;
}

int64_t SumArray(ffi::Array<int64_t> a) {
  int64_t sum = 0;
  for (int64_t v : a) sum += v;
  return sum;
}

int64_t Apply(ffi::Function f, int64_t x) { return f(x).cast<int64_t>() * 2; }

void Fail(int64_t code) { TVM_FFI_THROW(ValueError) << "orcjit kernel failed with code " << code; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_array, SumArray);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(apply, Apply);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
