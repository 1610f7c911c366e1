"""A Relax BlockBuilder model run on the Relax VM (and exported/reloaded)."""
import os
import tempfile

import numpy as np
import tvm
from tvm import relax

bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorType((4, 8), "float32"))
w = relax.Var("w", relax.TensorType((8, 3), "float32"))
with bb.function("main", [x, w]):
    with bb.dataflow():
        y = bb.emit(relax.op.matmul(x, w))
        z = bb.emit(relax.op.nn.relu(y))
        out = bb.emit_output(relax.op.add(z, relax.const(1.0, "float32")))
    bb.emit_func_output(out)
mod = bb.get()
ex = tvm.compile(mod, target="llvm")
dev = tvm.cpu()
xn = np.random.randn(4, 8).astype("float32")
wn = np.random.randn(8, 3).astype("float32")
want = np.maximum(xn @ wn, 0) + 1
vm = relax.VirtualMachine(ex, dev)
got = vm["main"](tvm.runtime.tensor(xn, dev), tvm.runtime.tensor(wn, dev))
np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "model.so")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    vm2 = relax.VirtualMachine(loaded, dev)
    got2 = vm2["main"](tvm.runtime.tensor(xn, dev), tvm.runtime.tensor(wn, dev))
    np.testing.assert_allclose(got2.numpy(), want, rtol=1e-5)
print("relax vm ok")
