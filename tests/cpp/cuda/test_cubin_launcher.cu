// tests/cpp/cuda/test_cubin_launcher.cu -- the CUDA helpers of the C++ layer
// (tvm/ffi/extra/cuda/{cubin_launcher,device_guard,stream}.h) on an image that
// `python -m tvm_ffi.utils.embed_cubin` linked into this object under the name
// test_kernels.  Usage: test_cubin_launcher IMAGE_FILE (the embedded file, to compare).
// Without a GPU the checks that need none run and the program exits 77 naming what is
// missing; any failed check exits 1.
#include <tvm/ffi/extra/cuda/cubin_launcher.h>
#include <tvm/ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/extra/cuda/stream.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

TVM_FFI_EMBED_CUBIN(test_kernels);

namespace ffi = tvm::ffi;

static int failures = 0;
#define EXPECT(cond)                                                        \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                           \
    }                                                                       \
  } while (0)

static std::vector<char> ReadFile(const char* path) {
  std::vector<char> out;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
    std::fclose(f);
  }
  return out;
}

// The embedded symbols frame exactly the bytes of the image file.
static void CheckEmbedded(const char* path) {
  std::vector<char> want = ReadFile(path);
  size_t n = static_cast<size_t>(__tvm_ffi__cubin_test_kernels_end - __tvm_ffi__cubin_test_kernels);
  EXPECT(!want.empty());
  EXPECT(n == want.size());
  EXPECT(n == want.size() && std::memcmp(__tvm_ffi__cubin_test_kernels, want.data(), n) == 0);
}

// CUDAStreamGuard sets the FFI's current stream for one device and restores it.
static void CheckStreamGuard() {
  cudaStream_t fake = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(0x5a10));
  cudaStream_t before = ffi::GetCurrentCUDAStream(3);
  {
    ffi::CUDAStreamGuard g(3, fake);
    EXPECT(ffi::GetCurrentCUDAStream(3) == fake);
    EXPECT(TVMFFIEnvGetStream(kDLCUDA, 3) == static_cast<void*>(fake));
    EXPECT(ffi::GetCurrentCUDAStream(2) == nullptr);
  }
  EXPECT(ffi::GetCurrentCUDAStream(3) == before);
}

// Runs `what`, which must throw ffi::Error of `kind` whose message contains `text`.
template <typename F>
static void ExpectError(F what, const char* kind, const char* text) {
  try {
    what();
    std::fprintf(stderr, "expected %s containing '%s', nothing thrown\n", kind, text);
    ++failures;
  } catch (const ffi::Error& e) {
    std::string msg = e.message();
    if (e.kind() != kind || msg.find(text) == std::string::npos) {
      std::fprintf(stderr, "expected %s containing '%s', got %s: %s\n", kind, text,
                   e.kind().c_str(), msg.c_str());
      ++failures;
    }
  }
}

static void CheckOnGpu() {
  const int64_t n = 1000;
  const unsigned threads = 128, blocks = static_cast<unsigned>((n + threads - 1) / threads);
  std::vector<float> host(n), out(n);
  for (int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.5f;
  ffi::CUDADeviceGuard guard(0);
  float *dx = nullptr, *dy = nullptr;
  TVM_FFI_CHECK_CUDA_ERROR(cudaMalloc(&dx, n * sizeof(float)));
  TVM_FFI_CHECK_CUDA_ERROR(cudaMalloc(&dy, n * sizeof(float)));
  TVM_FFI_CHECK_CUDA_ERROR(cudaMemcpy(dx, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  TVM_FFI_CHECK_CUDA_ERROR(cudaStreamCreate(&stream));
  int64_t len = n;
  void* args[] = {&dx, &dy, &len};

  // 1. the embedded module, plain launch on a stream
  ffi::CubinKernel add_one = TVM_FFI_EMBED_CUBIN_GET_KERNEL(test_kernels, "add_one");
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
      add_one.Launch(args, ffi::dim3(blocks), ffi::dim3(threads), stream));
  TVM_FFI_CHECK_CUDA_ERROR(cudaStreamSynchronize(stream));
  TVM_FFI_CHECK_CUDA_ERROR(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < n; ++i) EXPECT(out[i] == host[i] + 1.0f);

  // 2. a module loaded from ffi::Bytes; dynamic shared memory through LaunchEx
  std::vector<char> image(__tvm_ffi__cubin_test_kernels, __tvm_ffi__cubin_test_kernels_end);
  ffi::CubinModule mod(ffi::Bytes(image.data(), image.size()));
  ffi::CubinKernel rev = mod.GetKernelWithMaxDynamicSharedMemory("reverse_blocks", -1);
  cudaLaunchConfig_t config;
  cudaLaunchAttribute attr;
  ffi::cuda_api::ConstructLaunchConfig(rev.GetHandle(), stream, threads * sizeof(float),
                                       ffi::dim3(blocks), ffi::dim3(threads), 1, config, attr);
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(rev.LaunchEx(args, config));
  TVM_FFI_CHECK_CUDA_ERROR(cudaStreamSynchronize(stream));
  TVM_FFI_CHECK_CUDA_ERROR(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < n; ++i) {
    int64_t b = i / threads * threads, j = b + (threads - 1 - (i - b));
    if (j < n) EXPECT(out[j] == host[i]);
  }
  ExpectError([&] { mod.GetKernel("no_such_kernel"); }, "RuntimeError", "CUDA Error:");

  TVM_FFI_CHECK_CUDA_ERROR(cudaStreamDestroy(stream));
  TVM_FFI_CHECK_CUDA_ERROR(cudaFree(dx));
  TVM_FFI_CHECK_CUDA_ERROR(cudaFree(dy));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s IMAGE_FILE\n", argv[0]);
    return 2;
  }
  CheckEmbedded(argv[1]);
  CheckStreamGuard();
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // No device: loading must fail with a clear error, not crash.
    ExpectError([] { ffi::CubinModule m(__tvm_ffi__cubin_test_kernels); }, "RuntimeError",
                "CUDA Error:");
    if (failures) return 1;
    std::printf("SKIP: kernel launches need a CUDA GPU (cudaGetDeviceCount: %s, %d devices); "
                "embedding, the load error and the stream guard were checked\n",
                err == cudaSuccess ? "ok" : cudaGetErrorName(err), count);
    return 77;
  }
  try {
    CheckOnGpu();
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "%s: %s\n", e.kind().c_str(), e.message().c_str());
    return 1;
  }
  if (failures) return 1;
  std::printf("ok: embedded image loaded and launched (Launch; LaunchEx, dynamic shared memory)\n");
  return 0;
}
