/*
 * tvm/ffi/extra/cuda/cubin_launcher.h -- load a CUBIN (or fatbin) image at run time and
 * launch its kernels, without linking the device code into the library.
 *
 *   CubinModule mod(bytes);                 // ffi::Bytes, or a pointer to the image
 *   CubinKernel k = mod["add_one"];         // extern "C" __global__ name
 *   void* args[] = {&x_ptr, &y_ptr, &n};    // one pointer per kernel parameter
 *   TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(k.Launch(args, grid, block, stream, smem));
 *
 * TVM_FFI_EMBED_CUBIN(name) consumes the image that `python -m tvm_ffi.utils.embed_cubin`
 * (or tvm_ffi.cpp.build(..., embed_cubin={name: bytes})) links into the object as the local
 * symbols __tvm_ffi__cubin_<name> .. __tvm_ffi__cubin_<name>_end; the module is loaded on
 * first use and kept for the life of the process:
 *
 *   TVM_FFI_EMBED_CUBIN(my_kernels);
 *   ... TVM_FFI_EMBED_CUBIN_GET_KERNEL(my_kernels, "add_one").Launch(...) ...
 *
 * The CUDA calls go through cuda_api (internal/unified_api.h): the runtime API by default
 * (CUDA >= 12.8, link -lcudart), the driver API with TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1
 * (link -lcuda).  Failures throw RuntimeError "CUDA Error: ..."; Launch returns the result
 * code instead, for TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR or the caller to check.
 */
#ifndef TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
#define TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/base.h>
#include <tvm/ffi/extra/cuda/internal/unified_api.h>
#include <tvm/ffi/string.h>

#include <cstdint>

TVM_FFI_NS_BEGIN

/*! \brief A kernel of a loaded CubinModule; valid while the module is.  Move-only. */
class CubinKernel {
 public:
  /*! \brief Looks `name` up in `library`; throws RuntimeError when it is not there. */
  CubinKernel(cuda_api::LibraryHandle library, const char* name) {
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cuda_api::GetKernel(&kernel_, library, name));
  }
  ~CubinKernel() = default;
  CubinKernel(const CubinKernel&) = delete;
  CubinKernel& operator=(const CubinKernel&) = delete;
  CubinKernel(CubinKernel&& other) noexcept : kernel_(other.kernel_) { other.kernel_ = nullptr; }
  CubinKernel& operator=(CubinKernel&& other) noexcept {
    kernel_ = other.kernel_;
    other.kernel_ = nullptr;
    return *this;
  }

  /*! \brief Launches on `stream` with `dyn_smem_bytes` of dynamic shared memory. */
  cuda_api::ResultType Launch(void** args, dim3 grid, dim3 block, cuda_api::StreamHandle stream,
                              uint32_t dyn_smem_bytes = 0) {
    return cuda_api::LaunchKernel(kernel_, args, grid, block, stream, dyn_smem_bytes);
  }
  /*! \brief Launches with a configuration from cuda_api::ConstructLaunchConfig. */
  cuda_api::ResultType LaunchEx(void** args, const cuda_api::LaunchConfig& config) {
    return cuda_api::LaunchKernelEx(kernel_, args, config);
  }
  cuda_api::KernelHandle GetHandle() const { return kernel_; }

  /*!
   * \brief Lets launches use up to `dynamic_smem_max` bytes of dynamic shared memory on every
   * device (-1: as much as each device allows beside the kernel's static shared memory).
   * Throws RuntimeError when no device accepts it.
   */
  void SetMaxDynamicSharedMemory(int64_t dynamic_smem_max = -1) {
    int count = 0;
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cuda_api::GetDeviceCount(&count));
    cuda_api::ResultType last = cuda_api::kSuccess;
    bool any = false;
    for (int id = 0; id < count; ++id) {
      cuda_api::DeviceHandle dev;
      int bytes = static_cast<int>(dynamic_smem_max);
      last = cuda_api::GetDevice(&dev, id);
      if (last == cuda_api::kSuccess && dynamic_smem_max < 0) {
        int optin = 0, fixed = 0;
        last = cuda_api::GetMaxSharedMemoryOptin(&optin, dev);
        if (last == cuda_api::kSuccess) last = cuda_api::GetKernelSharedMem(kernel_, &fixed, dev);
        bytes = optin - fixed;
      }
      if (last == cuda_api::kSuccess) {
        last = cuda_api::SetKernelMaxDynamicSharedMem(kernel_, bytes, dev);
      }
      any = any || last == cuda_api::kSuccess;
    }
    if (!any) {
      TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(last);
      TVM_FFI_THROW(RuntimeError) << "SetMaxDynamicSharedMemory: no CUDA device";
    }
  }

 private:
  cuda_api::KernelHandle kernel_{nullptr};
};

/*! \brief A loaded CUBIN/fatbin image; unloaded by the destructor.  Move-only. */
class CubinModule {
 public:
  /*! \brief Loads the image held by `bytes` (copied by CUDA; `bytes` may go away after). */
  explicit CubinModule(const Bytes& bytes) { Load(bytes.data()); }
  /*! \brief Loads the image at `image` (for instance an embedded array). */
  explicit CubinModule(const char* image) { Load(image); }
  explicit CubinModule(const unsigned char* image) { Load(image); }
  ~CubinModule() {
    if (library_ != nullptr) cuda_api::UnloadLibrary(library_);
  }
  CubinModule(const CubinModule&) = delete;
  CubinModule& operator=(const CubinModule&) = delete;
  CubinModule(CubinModule&& other) noexcept : library_(other.library_) { other.library_ = nullptr; }
  CubinModule& operator=(CubinModule&& other) noexcept {
    if (this != &other) {
      if (library_ != nullptr) cuda_api::UnloadLibrary(library_);
      library_ = other.library_;
      other.library_ = nullptr;
    }
    return *this;
  }

  /*! \brief The kernel `name` (an extern "C" entry); throws RuntimeError when missing. */
  CubinKernel GetKernel(const char* name) { return CubinKernel(library_, name); }
  CubinKernel operator[](const char* name) { return GetKernel(name); }
  /*! \brief GetKernel, then SetMaxDynamicSharedMemory(dynamic_smem_max). */
  CubinKernel GetKernelWithMaxDynamicSharedMemory(const char* name, int64_t dynamic_smem_max) {
    CubinKernel k = GetKernel(name);
    k.SetMaxDynamicSharedMemory(dynamic_smem_max);
    return k;
  }
  cuda_api::LibraryHandle GetHandle() const { return library_; }

 private:
  void Load(const void* image) {
    if (image == nullptr) TVM_FFI_THROW(ValueError) << "CubinModule: null image";
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(cuda_api::LoadLibrary(&library_, image));
  }
  cuda_api::LibraryHandle library_{nullptr};
};

TVM_FFI_NS_END

/* Declares the image embedded under `name` and EmbedCubinModule_<name>::Global(), which
 * loads it on first use (thread-safe, as any function-local static). */
#define TVM_FFI_EMBED_CUBIN(name)                        \
  extern "C" const char __tvm_ffi__cubin_##name[];       \
  extern "C" const char __tvm_ffi__cubin_##name##_end[]; \
  TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, __tvm_ffi__cubin_##name)

/* As TVM_FFI_EMBED_CUBIN, for an image the program holds itself (an array, ffi::Bytes). */
#define TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, image) \
  namespace {                                       \
  struct EmbedCubinModule_##name {                  \
    ::tvm::ffi::CubinModule mod{image};             \
    static EmbedCubinModule_##name* Global() {      \
      static EmbedCubinModule_##name the_module;    \
      return &the_module;                           \
    }                                               \
  };                                                \
  } /* namespace */

/* The kernel `kernel_name` of the module embedded under `name` (a CubinKernel). */
#define TVM_FFI_EMBED_CUBIN_GET_KERNEL(name, kernel_name) \
  (EmbedCubinModule_##name::Global()->mod[kernel_name])

#endif  // TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
