/*
 * bench/bench_cpp_call.cc -- ns per call of typed C++ functions (0 and 3
 * arguments, ints or TensorViews) against a hand-written C function called
 * through the ABI.
 * Prints figures; not a timed test.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ffi = tvm::ffi;

/* The hand-written C callee: sums its int arguments, no checks beyond the kind. */
extern "C" int bench_c_sum(void*, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  int64_t s = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (args[i].type_index != kTVMFFIInt) {
      TVMFFIErrorSetRaisedFromCStr("TypeError", "expected int");
      return -1;
    }
    s += args[i].v_int64;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = s;
  return 0;
}

/* Host memory for the tensor the TensorView rows pass. */
struct HostAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(64); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

template <typename F>
double NsPerCall(F&& body, int64_t iters) {
  for (int64_t i = 0; i < iters / 10; ++i) body(i);  // warm up
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iters; ++i) body(i);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(iters);
}

int main(int argc, char** argv) {
  int64_t iters = argc > 1 ? std::atoll(argv[1]) : 5000000;
  volatile int64_t sink = 0;

  ffi::Function typed0 = ffi::Function::FromTyped([]() -> int64_t { return 1; });
  ffi::Function typed3 = ffi::Function::FromTyped(
      [](int64_t a, int64_t b, int64_t c) -> int64_t { return a + b + c; });
  ffi::TypedFunction<int64_t(int64_t, int64_t, int64_t)> typed3t = typed3;
  TVMFFIObjectHandle cfunc = nullptr;
  if (TVMFFIFunctionCreate(nullptr, bench_c_sum, nullptr, &cfunc) != 0) return 1;

  // 1. hand-written C: TVMFFIAny arguments, TVMFFIFunctionCall, no C++ at all
  auto c_call = [&](int n) {
    return NsPerCall(
        [&](int64_t i) {
          TVMFFIAny args[3];
          for (int k = 0; k < n; ++k) {
            args[k].type_index = kTVMFFIInt;
            args[k].zero_padding = 0;
            args[k].v_int64 = i + k;
          }
          TVMFFIAny r;
          r.type_index = kTVMFFINone;
          r.zero_padding = 0;
          r.v_int64 = 0;
          if (TVMFFIFunctionCall(cfunc, args, n, &r) != 0) std::abort();
          sink = sink + r.v_int64;
        },
        iters);
  };
  // 2. typed C++ function called from C++ (Function::operator())
  double cpp0 = NsPerCall([&](int64_t) { sink = sink + typed0().cast<int64_t>(); }, iters);
  double cpp3 = NsPerCall([&](int64_t i) { sink = sink + typed3(i, 2, 3).cast<int64_t>(); }, iters);
  double cpp3t = NsPerCall([&](int64_t i) { sink = sink + typed3t(i, 2, 3); }, iters);
  // 3. typed C++ function called through the C ABI (what Python or another library does)
  auto abi_call = [&](const ffi::Function& f, int n) {
    TVMFFIObjectHandle h = ffi::details::RefHandle(f);
    return NsPerCall(
        [&](int64_t i) {
          TVMFFIAny args[3];
          for (int k = 0; k < n; ++k) {
            args[k].type_index = kTVMFFIInt;
            args[k].zero_padding = 0;
            args[k].v_int64 = i + k;
          }
          TVMFFIAny r;
          r.type_index = kTVMFFINone;
          r.zero_padding = 0;
          r.v_int64 = 0;
          if (TVMFFIFunctionCall(h, args, n, &r) != 0) std::abort();
          sink = sink + r.v_int64;
        },
        iters);
  };
  double c0 = c_call(0), c3 = c_call(3);
  double abi0 = abi_call(typed0, 0), abi3 = abi_call(typed3, 3);
  // 4. a C function called from C++ through Function (C++ caller, C callee)
  ffi::Function cwrapped = ffi::Function::FromExternC(nullptr, bench_c_sum, nullptr);
  double cw3 =
      NsPerCall([&](int64_t i) { sink = sink + cwrapped(i, 2, 3).cast<int64_t>(); }, iters);
  // 5. a kernel's signature: three TensorView parameters, called with a Tensor each
  ffi::Function kernel3 = ffi::Function::FromTyped(
      [](ffi::TensorView a, ffi::TensorView b, ffi::TensorView c) -> int64_t {
        return a.ndim() + b.ndim() + c.ndim();
      });
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(HostAlloc(), ffi::Shape({4}),
                                           DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  double tv3 = NsPerCall([&](int64_t) { sink = sink + kernel3(t, t, t).cast<int64_t>(); }, iters);
  TVMFFIObjectDecRef(cfunc);

  std::printf("ns per call (%lld iterations each, lower is better)\n",
              static_cast<long long>(iters));
  std::printf("  %-58s %8s %8s\n", "", "0 args", "3 args");
  std::printf("  %-58s %8.1f %8.1f\n", "hand-written C callee via TVMFFIFunctionCall", c0, c3);
  std::printf("  %-58s %8.1f %8.1f\n", "typed C++ function via Function::operator()", cpp0, cpp3);
  std::printf("  %-58s %8s %8.1f\n", "typed C++ function via TypedFunction<R(A...)>", "-", cpp3t);
  std::printf("  %-58s %8.1f %8.1f\n", "typed C++ function via TVMFFIFunctionCall (C caller)", abi0,
              abi3);
  std::printf("  %-58s %8s %8.1f\n", "hand-written C callee via Function::operator()", "-", cw3);
  std::printf("  %-58s %8s %8.1f\n", "typed C++ kernel, 3 TensorView, via Function::operator()",
              "-", tv3);
  return sink == 42 ? 2 : 0;
}
