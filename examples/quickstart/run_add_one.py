"""examples/quickstart/run_add_one.py -- the Python quickstart: loads the kernel library
add_one_c.so (add_one_c.c) through the runtime, calls it on NumPy arrays without copying
them, catches the error it raises, and registers a Python function as an FFI global that
C and C++ code can call.

    python run_add_one.py path/to/add_one_c.so
"""

import sys

import numpy as np

import tvm_ffi

mod = tvm_ffi.load_module(sys.argv[1])
x = np.arange(1, 6, dtype="float32")
y = np.zeros_like(x)
mod.add_one(x, y)  # DLPack views of the arrays: the kernel writes into y
print("add_one(x, y): y =", y)
try:
    mod.always_fails()
except ValueError as err:  # the kernel's error kind, as the Python class of that name
    print("always_fails():", type(err).__name__ + ":", err)


@tvm_ffi.register_global_func("demo.scale")
def scale(v, k):  # a global ffi.Function: C looks it up with TVMFFIFunctionGetGlobal
    return v * k


print("demo.scale(2, 21) =", tvm_ffi.get_global_func("demo.scale")(2, 21))
print(tvm_ffi.Array([1, 2, 3]), tvm_ffi.Map({"a": 1}))
