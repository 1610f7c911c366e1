/*
 * examples/packaging/src/extension.cc -- the C++ part of the packaging
 * example: one function exported as a C symbol (loaded with
 * tvm_ffi.load_module / Module::LoadFromFile) and one registered as a global
 * function at load time.  Written exactly the way the packaging guide shows,
 * including the older TVM_FFI_STATIC_INIT_BLOCK({ ... }); spelling.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

namespace my_ffi_extension {

namespace ffi = tvm::ffi;

/* y = x + 1 for 1-d float32 CPU tensors. */
void AddOne(DLTensor* x, DLTensor* y) {
  TVM_FFI_ICHECK(x->ndim == 1) << "x must be a 1D tensor";
  DLDataType f32_dtype{kDLFloat, 32, 1};
  TVM_FFI_ICHECK(x->dtype == f32_dtype) << "x must be a float tensor";
  TVM_FFI_ICHECK(y->ndim == 1) << "y must be a 1D tensor";
  TVM_FFI_ICHECK(y->dtype == f32_dtype) << "y must be a float tensor";
  TVM_FFI_ICHECK(x->shape[0] == y->shape[0]) << "x and y must have the same shape";
  for (int64_t i = 0; i < x->shape[0]; ++i) {
    static_cast<float*>(y->data)[i] = static_cast<float*>(x->data)[i] + 1;
  }
}

/* Raises a RuntimeError whose backtrace names this file and line. */
void RaiseError(ffi::String msg) { TVM_FFI_THROW(RuntimeError) << msg; }

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, my_ffi_extension::AddOne);

// The 0.1.x form: the apache package's current headers (a build with pip's build isolation
// gets them) accept only this one; this package also takes the older TVM_FFI_STATIC_INIT_BLOCK({...});
TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = tvm::ffi::reflection;
  refl::GlobalDef().def("my_ffi_extension.raise_error", RaiseError);
}

}  // namespace my_ffi_extension
