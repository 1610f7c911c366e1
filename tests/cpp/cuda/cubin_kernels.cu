// tests/cpp/cuda/cubin_kernels.cu -- device code for test_cubin_launcher.cu, compiled
// on its own to a fatbin (SASS + PTX) that the test embeds and loads at run time.
#include <cstdint>

extern "C" __global__ void add_one(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

// Reverses each block's slice through dynamic shared memory (blockDim.x floats).
extern "C" __global__ void reverse_blocks(const float* x, float* y, int64_t n) {
  extern __shared__ float tile[];
  int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x;
  if (base + threadIdx.x < n) tile[threadIdx.x] = x[base + threadIdx.x];
  __syncthreads();
  int64_t j = base + (blockDim.x - 1 - threadIdx.x);
  if (j < n) y[j] = tile[threadIdx.x];
}
