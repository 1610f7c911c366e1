"""TVMScript: a module printed, structurally compared, compiled and run."""
import numpy as np
import tvm
import tvm_ffi
from tvm.script import ir as I
from tvm.script import tirx as T


def make():
    @I.ir_module
    class Mod:
        @T.prim_func
        def scale(a: T.Buffer((64,), "float32"), b: T.Buffer((64,), "float32")):
            T.func_attr({"global_symbol": "scale"})
            for i in range(64):
                b[i] = a[i] * T.float32(2) + T.float32(1)

    return Mod


mod = make()
text = mod.script()
assert "def scale" in text, text
tvm.ir.assert_structural_equal(mod, make())
assert tvm_ffi.structural_equal(mod, make())
assert tvm_ffi.structural_hash(mod) == tvm_ffi.structural_hash(make())
reparsed = tvm.script.from_source(text)
tvm.ir.assert_structural_equal(mod, reparsed)
f = tvm.compile(mod, target="llvm")
a = np.arange(64, dtype="float32")
b = tvm.runtime.tensor(np.zeros(64, "float32"))
f["scale"](tvm.runtime.tensor(a), b)
np.testing.assert_allclose(b.numpy(), a * 2 + 1)
print("tvmscript ok")
