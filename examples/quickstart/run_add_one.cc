/*
 * run_add_one.cc -- the C++ quickstart: loads the kernel library add_one_cpu.so
 * (add_one_cpu.cc) through the runtime and calls it with the C++ layer's types:
 *
 *   run_add_one_cpp path/to/add_one_cpu.so
 *
 * A failing call throws ffi::Error with the kernel's kind and message.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <cstdio>

namespace ffi = tvm::ffi;

static void Print(const char* label, const float* v) {
  std::printf("%s = [%g, %g, %g, %g, %g]\n", label, v[0], v[1], v[2], v[3], v[4]);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/add_one_cpu.so\n", argv[0]);
    return 2;
  }
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(argv[1]);
    ffi::Function add_one = mod->GetFunction("add_one_cpu").value();

    float x_data[5] = {1, 2, 3, 4, 5}, y_data[5] = {0};
    int64_t shape[1] = {5};
    DLTensor x{x_data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    DLTensor y = x;
    y.data = y_data;
    add_one(&x, &y);  // DLTensor* arguments: the kernel sees the caller's memory
    Print("x", x_data);
    Print("add_one_cpu(x, y): y", y_data);

    DLTensor ints = x;
    ints.dtype = {kDLInt, 32, 1};
    add_one(&ints, &y);
    std::printf("add_one_cpu(ints, y) unexpectedly succeeded\n");
    return 1;
  } catch (const ffi::Error& err) {
    std::printf("add_one_cpu(ints, y): %s: %s\n", err.kind().c_str(), err.message().c_str());
    return 0;
  }
}
