"""tvm.ir.save_json / load_json on this runtime: a runtime tensor (its __data_to_json__ hook,
registered by TVM) gives the same text as the apache package, computed here with the venv's
own apache tvm_ffi in a child process, and reads back; TIR variables and expressions, whose
ir.PrimType keys TVM hashes with 0.1.14-convention native hooks (docs/abi.md §5.6), round
trip structurally equal.  With --apache: print the tensor's text (the child's part)."""

import os
import subprocess
import sys

import numpy as np
import tvm
import tvm_ffi
from tvm import tirx


def tensor_json():
    data = np.arange(12, dtype="float32").reshape(3, 4) / 7
    return tvm.ir.save_json(tvm.runtime.tensor(data)), data


if "--apache" in sys.argv:
    print(tensor_json()[0])
    sys.exit(0)

ours, data = tensor_json()
env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TVM_FFI_LIBRARY_PATH")}
apache = subprocess.run(
    [sys.executable, os.path.abspath(__file__), "--apache"],
    env=env,
    check=True,
    capture_output=True,
    text=True,
).stdout.strip()
assert ours == apache, (ours, apache)
back = tvm.ir.load_json(apache)
np.testing.assert_array_equal(back.numpy(), data)

x, y = tirx.Var("x", "int32"), tirx.Var("y", "float16")
exprs = [
    x,
    y,
    x * 2 + tirx.IntImm("int32", 3),
    tirx.Cast("float16", x) * y,
    tirx.Select(x > 1, x, x - 1),
    tvm.ir.PrimType("int32"),
]
for e in exprs:
    tvm.ir.assert_structural_equal(tvm.ir.load_json(tvm.ir.save_json(e)), e, map_free_vars=True)
# ir.PrimType as a map key: equal types made apart are one key
m = tvm_ffi.Map({tvm.ir.PrimType("int32"): 1, tvm.ir.PrimType("float16"): 2})
assert len(m) == 2 and m[tvm.ir.PrimType("int32")] == 1
print("save_json tensor == apache's (%d bytes); %d TIR values round trip" % (len(ours), len(exprs)))
