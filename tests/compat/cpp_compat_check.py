"""tests/compat/cpp_compat_check.py -- run by test_cpp_compat.sh inside the
apache-tvm-ffi venv: kernels built with our C++ headers, called by upstream."""
import os
import sys

import numpy as np
import tvm_ffi

libdir, upstream_dir = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def expect_error(fn, exc_type, text, what):
    try:
        fn()
    except exc_type as err:  # kind arrives as the matching Python exception
        check(text in str(err), f"{what}: message {str(err)!r} lacks {text!r}")
        return err
    except Exception as err:  # noqa: BLE001
        check(False, f"{what}: raised {type(err).__name__}: {err}")
        return err
    check(False, f"{what}: no exception")
    return None


# 1. the runtime in this process is upstream's
maps = open("/proc/self/maps").read()
check(os.path.join(upstream_dir, "lib") in maps or upstream_dir in maps,
      "upstream libtvm_ffi.so is loaded")

# 2. quickstart kernel with numpy arrays and torch tensors
mod = tvm_ffi.load_module(os.path.join(libdir, "add_one_cpu.so"))
x = np.arange(5, dtype=np.float32)
y = np.zeros_like(x)
mod.add_one_cpu(tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y))
check(np.array_equal(y, x + 1), "add_one_cpu with numpy arrays")
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    xt = torch.arange(4, dtype=torch.float32)
    yt = torch.zeros_like(xt)
    mod.add_one_cpu(xt, yt)
    check(torch.equal(yt, xt + 1), "add_one_cpu with torch tensors")
    # TVM_FFI_ICHECK inside our code: upstream maps kind InternalError to RuntimeError
    expect_error(lambda: mod.add_one_cpu(xt.to(torch.int32), yt), RuntimeError,
                 "x must be a float tensor", "ICHECK failure")
# typed-argument mismatch from the unpacking machinery
expect_error(lambda: mod.add_one_cpu(1, 2), TypeError,
             "Mismatched type on argument #0 when calling: `add_one_cpu(0: DLTensor*, 1: DLTensor*) -> void`",
             "argument mismatch")

# 3. packaging example: exported function and a global registered at load time
ext = tvm_ffi.load_module(os.path.join(libdir, "extension.so"))
x = np.array([1, 2, 3], dtype=np.float32)
y = np.zeros_like(x)
ext.add_one(tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y))
check(np.array_equal(y, x + 1), "packaging add_one")
raise_error = tvm_ffi.get_global_func("my_ffi_extension.raise_error")
err = expect_error(lambda: raise_error("compat boom"), RuntimeError, "compat boom", "raise_error")
if err is not None:
    import traceback
    tb = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    check("extension.cc" in tb, "traceback names extension.cc:\n" + tb)

# 4. kernel library: Optional arguments, framework allocator, ValueError/TypeError kinds
kl = tvm_ffi.load_module(os.path.join(libdir, "kernel_lib.so"))
if torch is not None:
    a = torch.tensor([1.0, 2.0])
    other = torch.tensor([10.0, 20.0])
    out = torch.zeros(2)
    ws = torch.zeros(2)
    kl.axpy(a, None, out, ws, None)
    check(torch.equal(out, a), "axpy with None optionals")
    kl.axpy(a, other, out, ws, 0.5)
    check(torch.equal(out, (a + other) * 0.5), "axpy with optionals")
    expect_error(lambda: kl.axpy(a, None, torch.zeros(3), ws, None), ValueError,
                 "output size differs from input", "ValueError from TVM_FFI_CHECK_EQ")
    expect_error(lambda: kl.axpy(a.double(), None, out, ws, None), TypeError,
                 "input must be float32, got float64", "TypeError from TVM_FFI_CHECK")
    # FromEnvAlloc: torch tensors in the arguments install torch's allocator
    r = kl.add_one_alloc(a)
    check(isinstance(r, torch.Tensor) and torch.equal(r, a + 1), f"add_one_alloc -> {r!r}")
    full = kl.full(tvm_ffi.Shape((2, 2)), 3.0)
    check(np.array_equal(np.from_dlpack(full), np.full((2, 2), 3.0, np.float32)), "full via FromNDAlloc")
    check(kl.current_stream(a) == 0, "CPU stream is the default (0)")

# 5. BigInt: upstream's runtime makes the ffi.BigInt objects, our big_int.h reads and makes them
bi = tvm_ffi.load_module(os.path.join(libdir, "ours_big_int.so"))
big = (1 << 200) | (0xDEADBEEF << 64) | 0x0123456789ABCDEF
for a in (big, -big, (1 << 63) - 1, -(1 << 63), 7):
    for b in (3 ** 70, -(3 ** 70), 1 << 64, -5):
        check(bi.big_mul_add(a, b, -big) == a * b - big, f"big_mul_add({a}, {b})")
        check((bi.big_floordiv(a, b), bi.big_floormod(a, b)) == (a // b, a % b),
              f"big_floordiv/mod({a}, {b})")
        check(bi.big_xor(a, b) == a ^ b, f"big_xor({a}, {b})")
    check(bi.big_shr(a, 70) == a >> 70, f"big_shr({a}, 70)")
check(type(bi.big_mul_add(1 << 62, 2, 0)) is int and bi.big_mul_add(1 << 62, 4, 0) == 1 << 64,
      "BigInt results come back as Python ints")
expect_error(lambda: bi.big_floordiv(big, 0), Exception, "division by zero", "BigInt zero divisor")

print("cpp compat:", "FAILED" if failures else "ok", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
