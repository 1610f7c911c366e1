"""TE: vector add and matmul compiled for llvm, checked against numpy."""
import numpy as np
import tvm
from tvm import te

n = 1024
A = te.placeholder((n,), name="A")
B = te.placeholder((n,), name="B")
C = te.compute((n,), lambda i: A[i] + B[i], name="C")
f = tvm.compile(te.create_prim_func([A, B, C]), target="llvm")
dev = tvm.cpu()
a = np.random.rand(n).astype("float32")
b = np.random.rand(n).astype("float32")
c = tvm.runtime.tensor(np.zeros(n, "float32"), dev)
f(tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), c)
np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)

m, k, p = 32, 48, 16
X = te.placeholder((m, k), name="X")
Y = te.placeholder((k, p), name="Y")
r = te.reduce_axis((0, k), name="r")
Z = te.compute((m, p), lambda i, j: te.sum(X[i, r] * Y[r, j], axis=r), name="Z")
g = tvm.compile(te.create_prim_func([X, Y, Z]), target="llvm")
x = np.random.rand(m, k).astype("float32")
y = np.random.rand(k, p).astype("float32")
z = tvm.runtime.tensor(np.zeros((m, p), "float32"), dev)
g(tvm.runtime.tensor(x, dev), tvm.runtime.tensor(y, dev), z)
np.testing.assert_allclose(z.numpy(), x @ y, rtol=1e-5)
print("te ok")
