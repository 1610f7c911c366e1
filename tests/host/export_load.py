"""export_library then tvm.runtime.load_module."""
import os
import tempfile

import numpy as np
import tvm
from tvm import te

n = 256
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * A[i], name="B")
f = tvm.compile(te.create_prim_func([A, B]).with_attr("global_symbol", "square"), target="llvm")
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "square.so")
    f.export_library(path)
    g = tvm.runtime.load_module(path)
    a = np.random.rand(n).astype("float32")
    b = tvm.runtime.tensor(np.zeros(n, "float32"))
    g["square"](tvm.runtime.tensor(a), b)
    np.testing.assert_allclose(b.numpy(), a * a, rtol=1e-6)
print("export/load ok")
