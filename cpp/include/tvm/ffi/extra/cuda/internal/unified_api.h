/*
 * tvm/ffi/extra/cuda/internal/unified_api.h -- one spelling, namespace
 * tvm::ffi::cuda_api, for the few CUDA calls the cubin launcher makes, over
 * either the runtime API (cudaLibrary*, CUDA >= 12.8, the default there) or
 * the driver API (cuLibrary*, link -lcuda; the default before 12.8, or chosen
 * with -DTVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1).  Not meant to be included
 * directly: include <tvm/ffi/extra/cuda/cubin_launcher.h>.
 */
#ifndef TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_
#define TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/cuda/base.h>

#include <cstdint>

#ifndef TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
#if CUDART_VERSION >= 12080
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 0
#else
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 1
#endif
#elif !TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API && CUDART_VERSION < 12080
#error "TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=0 needs the cudaLibrary runtime API of CUDA >= 12.8"
#endif

#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
#include <cuda.h>
#endif

TVM_FFI_NS_BEGIN
namespace cuda_api {

#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
using StreamHandle = CUstream;
using DeviceHandle = CUdevice;
using LibraryHandle = CUlibrary;
using KernelHandle = CUkernel;
using LaunchConfig = CUlaunchConfig;
using LaunchAttrType = CUlaunchAttribute;
using DeviceAttrType = CUdevice_attribute;
using ResultType = CUresult;
constexpr ResultType kSuccess = CUDA_SUCCESS;
#else
using StreamHandle = cudaStream_t;
using DeviceHandle = int;
using LibraryHandle = cudaLibrary_t;
using KernelHandle = cudaKernel_t;
using LaunchConfig = cudaLaunchConfig_t;
using LaunchAttrType = cudaLaunchAttribute;
using DeviceAttrType = cudaDeviceAttr;
using ResultType = cudaError_t;
constexpr ResultType kSuccess = cudaSuccess;
#endif

/* Name and description of a result code (never NULL). */
inline void GetErrorString(ResultType err, const char** name, const char** str) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  if (cuGetErrorName(err, name) != CUDA_SUCCESS) *name = "CUDA_ERROR_UNKNOWN";
  if (cuGetErrorString(err, str) != CUDA_SUCCESS) *str = "unrecognized error code";
#else
  *name = cudaGetErrorName(err);
  *str = cudaGetErrorString(err);
#endif
}

/* Loads a CUBIN/fatbin image (its size is read from its own header). */
inline ResultType LoadLibrary(LibraryHandle* library, const void* image) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#else
  return cudaLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#endif
}

inline ResultType UnloadLibrary(LibraryHandle library) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryUnload(library);
#else
  return cudaLibraryUnload(library);
#endif
}

inline ResultType GetKernel(KernelHandle* kernel, LibraryHandle library, const char* name) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryGetKernel(kernel, library, name);
#else
  return cudaLibraryGetKernel(kernel, library, name);
#endif
}

inline ResultType GetDeviceCount(int* count) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  ResultType err = cuInit(0);
  if (err != kSuccess) return err;
  return cuDeviceGetCount(count);
#else
  return cudaGetDeviceCount(count);
#endif
}

/* The device handle of ordinal device_id (the ordinal itself for the runtime API). */
inline ResultType GetDevice(DeviceHandle* device, int device_id) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuDeviceGet(device, device_id);
#else
  *device = device_id;
  return cudaSuccess;
#endif
}

/* Largest shared memory per block a kernel may opt in to on `device`. */
inline ResultType GetMaxSharedMemoryOptin(int* out, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuDeviceGetAttribute(out, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
#else
  return cudaDeviceGetAttribute(out, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
#endif
}

/* Static shared memory (bytes) the kernel declares. */
inline ResultType GetKernelSharedMem(KernelHandle kernel, int* out, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelGetAttribute(out, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel, device);
#else
  (void)device;
  cudaFuncAttributes attrs;
  cudaError_t err = cudaFuncGetAttributes(&attrs, reinterpret_cast<const void*>(kernel));
  if (err == cudaSuccess) *out = static_cast<int>(attrs.sharedSizeBytes);
  return err;
#endif
}

inline ResultType SetKernelMaxDynamicSharedMem(KernelHandle kernel, int bytes,
                                               DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes, kernel,
                              device);
#else
  return cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes,
                                         device);
#endif
}

/* Launches `kernel` with the kernel-parameter array `args` (one pointer per parameter). */
inline ResultType LaunchKernel(KernelHandle kernel, void** args, ::tvm::ffi::dim3 grid,
                               ::tvm::ffi::dim3 block, StreamHandle stream,
                               uint32_t dyn_smem_bytes = 0) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), grid.x, grid.y, grid.z, block.x,
                        block.y, block.z, dyn_smem_bytes, stream, args, nullptr);
#else
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), ::dim3(grid.x, grid.y, grid.z),
                          ::dim3(block.x, block.y, block.z), args, dyn_smem_bytes, stream);
#endif
}

/* Launches with a full configuration (attributes such as a cluster shape). */
inline ResultType LaunchKernelEx(KernelHandle kernel, void** args, const LaunchConfig& config) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLaunchKernelEx(&config, reinterpret_cast<CUfunction>(kernel), args, nullptr);
#else
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), args);
#endif
}

/* Fills `config` for grid/block/shared memory/stream; with cluster_dim > 1, `attr` becomes
 * its one attribute (a 1-d cluster of that many blocks), so `attr` must outlive the launch.
 * `kernel` is accepted for symmetry with launches that need per-kernel checks. */
inline ResultType ConstructLaunchConfig(KernelHandle kernel, StreamHandle stream,
                                        uint32_t smem_size, ::tvm::ffi::dim3 grid,
                                        ::tvm::ffi::dim3 block, int cluster_dim,
                                        LaunchConfig& config, LaunchAttrType& attr) {
  (void)kernel;
  config = LaunchConfig{};
  attr = LaunchAttrType{};
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = block.x;
  config.blockDimY = block.y;
  config.blockDimZ = block.z;
  config.sharedMemBytes = smem_size;
  config.hStream = stream;
  if (cluster_dim > 1) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = static_cast<unsigned>(cluster_dim);
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#else
  config.gridDim = ::dim3(grid.x, grid.y, grid.z);
  config.blockDim = ::dim3(block.x, block.y, block.z);
  config.dynamicSmemBytes = smem_size;
  config.stream = stream;
  if (cluster_dim > 1) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(cluster_dim);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#endif
  return kSuccess;
}

}  // namespace cuda_api
TVM_FFI_NS_END

/* Throws RuntimeError "CUDA Error: <name> (<code>): <description>" when stmt (a
 * cuda_api::ResultType) is not success. */
#define TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(stmt)                                \
  do {                                                                               \
    ::tvm::ffi::cuda_api::ResultType __tvm_ffi_cu_err = (stmt);                      \
    if (TVM_FFI_PREDICT_FALSE(__tvm_ffi_cu_err != ::tvm::ffi::cuda_api::kSuccess)) { \
      const char *__tvm_ffi_cu_name, *__tvm_ffi_cu_str;                              \
      ::tvm::ffi::cuda_api::GetErrorString(__tvm_ffi_cu_err, &__tvm_ffi_cu_name,     \
                                           &__tvm_ffi_cu_str);                       \
      TVM_FFI_THROW(RuntimeError) << "CUDA Error: " << __tvm_ffi_cu_name << " ("     \
                                  << static_cast<int>(__tvm_ffi_cu_err)              \
                                  << "): " << __tvm_ffi_cu_str;                      \
    }                                                                                \
  } while (0)

#endif  // TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_
