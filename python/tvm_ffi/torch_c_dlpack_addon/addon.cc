// The torch C DLPack add-on: a DLPackExchangeAPI table implemented with ATen, for PyTorch
// releases without a native torch.Tensor.__dlpack_c_exchange_api__.  Compiled against the
// installed torch by build.py (next to this file); the only exported symbol is
// TorchDLPackExchangeAPIPtr.  Uses only ATen APIs that exist from torch 1.13 on.
#include <Python.h>
// TVM FFI's dlpack header first: it defines the exchange table (and wins the include guard
// over torch's older copy, whose structs have the same layout).
#include <dlpack/dlpack.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/python_variable.h>
#if defined(BUILD_WITH_CUDA) || defined(BUILD_WITH_ROCM)
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

DLDataType ToDLDataType(const at::Tensor& t) {
  DLDataType d;
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(t.element_size() * 8);
  switch (t.scalar_type()) {
    case at::ScalarType::Byte:
      d.code = kDLUInt;
      break;
    case at::ScalarType::Char:
    case at::ScalarType::Short:
    case at::ScalarType::Int:
    case at::ScalarType::Long:
      d.code = kDLInt;
      break;
    case at::ScalarType::Half:
    case at::ScalarType::Float:
    case at::ScalarType::Double:
      d.code = kDLFloat;
      break;
    case at::ScalarType::Bool:
      d.code = kDLBool;
      d.bits = 8;
      break;
    case at::ScalarType::ComplexHalf:
    case at::ScalarType::ComplexFloat:
    case at::ScalarType::ComplexDouble:
      d.code = kDLComplex;
      break;
    case at::ScalarType::BFloat16:
      d.code = kDLBfloat;
      break;
    default:
      throw std::runtime_error(std::string("Unsupported scalar type: ") +
                               c10::toString(t.scalar_type()));
  }
  return d;
}

at::ScalarType ToScalarType(DLDataType d) {
  if (d.lanes != 1) throw std::runtime_error("ATen does not support lanes != 1");
  switch (d.code) {
    case kDLUInt:
      if (d.bits == 8) return at::ScalarType::Byte;
      throw std::runtime_error("Unsupported kUInt bits " + std::to_string(d.bits));
    case kDLInt:
      switch (d.bits) {
        case 8:
          return at::ScalarType::Char;
        case 16:
          return at::ScalarType::Short;
        case 32:
          return at::ScalarType::Int;
        case 64:
          return at::ScalarType::Long;
      }
      throw std::runtime_error("Unsupported kInt bits " + std::to_string(d.bits));
    case kDLFloat:
      switch (d.bits) {
        case 16:
          return at::ScalarType::Half;
        case 32:
          return at::ScalarType::Float;
        case 64:
          return at::ScalarType::Double;
      }
      throw std::runtime_error("Unsupported kFloat bits " + std::to_string(d.bits));
    case kDLBfloat:
      if (d.bits == 16) return at::ScalarType::BFloat16;
      throw std::runtime_error("Unsupported kBFloat bits " + std::to_string(d.bits));
    case kDLComplex:
      switch (d.bits) {
        case 32:
          return at::ScalarType::ComplexHalf;
        case 64:
          return at::ScalarType::ComplexFloat;
        case 128:
          return at::ScalarType::ComplexDouble;
      }
      throw std::runtime_error("Unsupported kComplex bits " + std::to_string(d.bits));
    case kDLBool:
      if (d.bits == 8) return at::ScalarType::Bool;
      throw std::runtime_error("Unsupported kDLBool bits " + std::to_string(d.bits));
  }
  throw std::runtime_error("Unsupported code " + std::to_string(d.code));
}

DLDevice ToDLDevice(const at::Tensor& t) {
  const at::Device dev = t.device();
  if (dev.is_cpu()) return DLDevice{kDLCPU, 0};
  if (dev.is_cuda()) {
#ifdef BUILD_WITH_ROCM
    return DLDevice{kDLROCM, static_cast<int32_t>(static_cast<unsigned char>(dev.index()))};
#else
    return DLDevice{kDLCUDA, static_cast<int32_t>(static_cast<unsigned char>(dev.index()))};
#endif
  }
  throw std::runtime_error("Cannot pack tensors on " + dev.str());
}

at::Device ToATenDevice(DLDevice d) {
  switch (d.device_type) {
    case kDLCPU:
      return at::Device(at::DeviceType::CPU);
#ifndef BUILD_WITH_ROCM
    case kDLCUDA:
#endif
    case kDLROCM:
      return at::Device(at::DeviceType::CUDA, static_cast<c10::DeviceIndex>(d.device_id));
    default:
      throw std::runtime_error("Unsupported device_type: " + std::to_string(d.device_type));
  }
}

void FillDLTensor(const at::Tensor& t, DLTensor* out) {
  out->data = t.data_ptr();  // storage offset already applied
  out->device = ToDLDevice(t);
  out->ndim = static_cast<int32_t>(t.dim());
  out->dtype = ToDLDataType(t);
  out->shape = const_cast<int64_t*>(t.sizes().data());
  out->strides = const_cast<int64_t*>(t.strides().data());
  out->byte_offset = 0;
}

// Owns a reference to the tensor; shape/strides point into its TensorImpl.
struct Holder {
  at::Tensor tensor;
  DLManagedTensorVersioned managed;
};

void DeleteHolder(DLManagedTensorVersioned* self) {
  delete static_cast<Holder*>(self->manager_ctx);
}

DLManagedTensorVersioned* Export(const at::Tensor& t) {
  auto* h = new Holder{t, {}};
  try {
    FillDLTensor(h->tensor, &h->managed.dl_tensor);
  } catch (...) {
    delete h;
    throw;
  }
  h->managed.version.major = DLPACK_MAJOR_VERSION;
  h->managed.version.minor = DLPACK_MINOR_VERSION;
  h->managed.manager_ctx = h;
  h->managed.deleter = DeleteHolder;
  h->managed.flags = 0;
  return &h->managed;
}

void SetPyError(const char* what) { PyErr_SetString(PyExc_RuntimeError, what); }

int Allocator(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
              void (*SetError)(void* error_ctx, const char* kind, const char* message)) {
  try {
    std::vector<int64_t> shape(proto->shape, proto->shape + proto->ndim);
    at::Tensor t = at::empty(
        shape,
        at::TensorOptions().dtype(ToScalarType(proto->dtype)).device(ToATenDevice(proto->device)));
    *out = Export(t);
    return 0;
  } catch (const std::exception& e) {
    SetError(error_ctx, "MemoryError", e.what());
    return -1;
  }
}

int FromPyObject(void* obj, DLManagedTensorVersioned** out) {
  try {
    PyObject* o = static_cast<PyObject*>(obj);
    if (!THPVariable_Check(o)) throw std::runtime_error("expected a torch.Tensor");
    *out = Export(THPVariable_Unpack(o));
    return 0;
  } catch (const std::exception& e) {
    SetPyError(e.what());
    return -1;
  }
}

int DLTensorFromPyObject(void* obj, DLTensor* out) {
  try {
    PyObject* o = static_cast<PyObject*>(obj);
    if (!THPVariable_Check(o)) throw std::runtime_error("expected a torch.Tensor");
    // THPVariable_Unpack returns a reference to the tensor the object holds: no new reference
    FillDLTensor(THPVariable_Unpack(o), out);
    return 0;
  } catch (const std::exception& e) {
    SetPyError(e.what());
    return -1;
  }
}

int ToPyObject(DLManagedTensorVersioned* src, void** out) {
  try {
    const DLTensor& d = src->dl_tensor;
    std::vector<int64_t> sizes(d.shape, d.shape + d.ndim);
    auto options = at::TensorOptions().dtype(ToScalarType(d.dtype)).device(ToATenDevice(d.device));
    void* data = static_cast<char*>(d.data) + d.byte_offset;
    auto deleter = [src](void*) {
      if (src->deleter) src->deleter(src);
    };
    at::Tensor t =
        d.strides ? at::from_blob(data, sizes, std::vector<int64_t>(d.strides, d.strides + d.ndim),
                                  deleter, options)
                  : at::from_blob(data, sizes, deleter, options);
    *out = THPVariable_Wrap(t);
    return *out ? 0 : -1;
  } catch (const std::exception& e) {
    SetPyError(e.what());
    return -1;
  }
}

int CurrentWorkStream(DLDeviceType device_type, int32_t device_id, void** out) {
  try {
#if defined(BUILD_WITH_CUDA) || defined(BUILD_WITH_ROCM)
    if (device_type == kDLCUDA || device_type == kDLROCM) {
      *out = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device_id)).stream();
      return 0;
    }
#else
    (void)device_type;
    (void)device_id;
#endif
    *out = nullptr;
    return 0;
  } catch (const std::exception& e) {
    SetPyError(e.what());
    return -1;
  }
}

DLPackExchangeAPI kApi = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    Allocator,
    FromPyObject,
    ToPyObject,
    DLTensorFromPyObject,
    CurrentWorkStream,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int64_t TorchDLPackExchangeAPIPtr() {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(&kApi));
}
