// C++ kernels through the C++ layer: typed export, containers, exceptions,
// and a static object whose destructor must run when the module is dropped.
#include <stdexcept>
#include <string>

#include <tvm/ffi/tvm_ffi.h>

namespace ffi = tvm::ffi;

static int g_ctor_runs = 0;
struct Counter {
  Counter() { ++g_ctor_runs; }
  ~Counter() {
    if (auto f = ffi::Function::GetGlobal("testing.orcjit_append_log")) (*f)("<cpp dtor>");
  }
};
static Counter g_counter;

static int64_t ScaleAdd(int64_t a, int64_t b) { return a * 10 + b + g_ctor_runs - 1; }
static ffi::String Replace(ffi::String s) {
  std::string t(s.data(), s.size());
  for (char& c : t)
    if (c == 'l') c = 'L';
  return ffi::String(t);
}
static ffi::Array<int64_t> Concat(ffi::Array<int64_t> a, ffi::Array<int64_t> b) {
  ffi::Array<int64_t> r = a;
  for (int64_t x : b) r.push_back(x);
  return r;
}
static int64_t Throw(int64_t) { throw std::runtime_error("test error"); }
static double FloatMultiply(double a, double b) { return a * b; }

TVM_FFI_DLL_EXPORT_TYPED_FUNC(cpp_scale_add, ScaleAdd);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(cpp_replace, Replace);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(cpp_concat, Concat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(cpp_throw, Throw);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(cpp_float_multiply, FloatMultiply);
