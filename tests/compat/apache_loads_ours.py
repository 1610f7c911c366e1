"""Loads plain C kernels (ours_kernel.c) with whichever tvm_ffi Python
package is first on the path, on that package's own runtime: numpy arrays in,
scalars and strings both ways, and errors whose kind, message and C frame
arrive intact.

- test_ours_kernel.sh: the apache-tvm-ffi wheel's package loads the kernel
  built against OUR c_api.h.
- test_apache_kernel.sh: OUR package loads the kernel built against the
  c_api.h of every apache-tvm-ffi 0.1.x release.

usage: python apache_loads_ours.py RAISE_LINE KERNEL.so [KERNEL.so ...]
Prints "ok KERNEL" or "FAIL KERNEL" per kernel; exits 1 if one failed.
"""
import os
import sys
import traceback

import numpy as np
import tvm_ffi

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def mapped_runtimes():
    """Real paths of every mapped libtvm_ffi.so* (one expected: the package's)."""
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libtvm_ffi.so"):
                paths.add(os.path.realpath(path))
    return paths


def package_runtime():
    """The libtvm_ffi.so the imported package runs on: ours finds it with its
    loader, the wheel's sits in the package."""
    loader = getattr(tvm_ffi, "_loader", None)
    if loader is not None and hasattr(loader, "find_library"):
        return os.path.realpath(loader.find_library())
    return os.path.realpath(os.path.join(os.path.dirname(tvm_ffi.__file__), "lib", "libtvm_ffi.so"))


def expect_error(cls, needle, fn, *args):
    try:
        fn(*args)
    except cls as err:
        check(needle in str(err), f"{cls.__name__} message {str(err)!r} lacks {needle!r}")
        return err
    except Exception as err:  # noqa: BLE001 -- report the wrong kind
        check(False, f"expected {cls.__name__}, got {type(err).__name__}: {err}")
        return None
    check(False, f"expected {cls.__name__}, nothing raised")
    return None


def run(kernel, raise_line):
    mod = tvm_ffi.load_module(kernel)
    check(mapped_runtimes() == {package_runtime()},
          f"expected only the package's runtime mapped, got {mapped_runtimes()}")

    # numpy arrays, directly and through from_dlpack
    x = np.array([0.0, 1.0, 2.5, -4.0, 100.0], dtype=np.float32)
    y = np.zeros_like(x)
    mod.add_one(x, y)
    check(np.array_equal(y, x + 1), f"add_one(numpy): {y}")
    y[:] = 0
    mod.add_one(tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y))
    check(np.array_equal(y, x + 1), f"add_one(from_dlpack): {y}")
    # a strided view: every other element
    xs = np.arange(10, dtype=np.float32)[::2]
    ys = np.zeros(10, dtype=np.float32)[::2]
    mod.add_one(xs, ys)
    check(np.array_equal(ys, xs + 1), f"add_one(strided): {ys}")
    expect_error(TypeError, "add_one: argument #0 must be a 1-d float32 CPU tensor",
                 mod.add_one, np.zeros(5, dtype=np.int32), y)
    expect_error(ValueError, "add_one: x and y differ in length",
                 mod.add_one, x, np.zeros(4, dtype=np.float32))
    expect_error(TypeError, "add_one: expected 2 arguments", mod.add_one, x)

    # scalars and strings round-trip through the C kernel
    for value in (0, -(2**63), 2**63 - 1, 2.5, float("inf"), True, None, "hi",
                  "a string longer than the small-string limit"):
        got = mod.echo(value)
        same_type = type(got) is type(value) or isinstance(value, str) and isinstance(got, str)
        check(got == value and same_type, f"echo({value!r}) -> {got!r}")
    check(mod.sum(1, 2, 39) == 42 and isinstance(mod.sum(1, 2), int), "sum of ints")
    check(mod.sum(1, 0.5) == 1.5, "sum with a float")
    expect_error(TypeError, "sum: argument #1 must be an int or a float", mod.sum, 1, "x")
    check(mod.greet("world") == "hello, world!", "greet")
    check(mod.greet("é" * 40) == "hello, " + "é" * 40 + "!", "greet (utf-8, heap string)")

    # a tensor object passes through the kernel and comes back as the same data
    t = mod.echo(tvm_ffi.from_dlpack(x))
    check(isinstance(t, tvm_ffi.Tensor) and tuple(t.shape) == (5,), f"echo(tensor) -> {t!r}")
    check(np.array_equal(np.from_dlpack(t), x), "echo(tensor) data")

    # errors made in C arrive with kind, message and the kernel's frame
    err = expect_error(ValueError, "bad value here", mod.raise_error, "ValueError", "bad value here")
    if err is not None:
        check(str(err) == "bad value here", f"message {str(err)!r}")
        frames = traceback.extract_tb(err.__traceback__)
        check(any(f.filename.endswith("ours_kernel.c") and f.lineno == raise_line for f in frames),
              f"no ours_kernel.c:{raise_line} frame in {[(f.filename, f.lineno) for f in frames]}")
    expect_error(KeyError, "no such key", mod.raise_error, "KeyError", "no such key")
    expect_error(IndexError, "out of range", mod.raise_error, "IndexError", "out of range")
    expect_error(RuntimeError, "kind unknown to python", mod.raise_error, "MadeUpError",
                 "kind unknown to python")


raise_line = int(sys.argv[1])
failed = 0
for kernel in sys.argv[2:]:
    before = len(failures)
    run(kernel, raise_line)
    ok = len(failures) == before
    failed += not ok
    print(("ok " if ok else "FAIL ") + kernel)
if failed:
    print(f"{len(failures)} check(s) failed in {failed} kernel(s)", file=sys.stderr)
    sys.exit(1)
print(f"tvm_ffi {tvm_ffi.__version__} ran {len(sys.argv) - 2} C kernel(s): all checks passed")
