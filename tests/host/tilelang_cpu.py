"""tilelang 0.1.15 (built against apache-tvm-ffi 0.1.12): a vector add JIT-compiled for the C
target and run on torch CPU tensors, checked against torch; the two 0.1.12 conventions it
depends on, checked where they show: its tvm.runtime.Tensor (a registered ffi.Tensor subclass
with a __dict__) is the class of every tensor, and the members its C++ registered the legacy
way (__ffi_enum_entries__) bind to its SwizzleMode enum."""
import numpy as np
import torch
import tilelang
import tilelang.language as T
import tvm
import tvm_ffi
from tilelang.layout import SwizzleMode

N, BLOCK = 1024, 256


@tilelang.jit(target="c")
def vadd(n=N, block=BLOCK):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32"),
             C: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            for i in T.serial(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    return main


kernel = vadd()
a = torch.arange(N, dtype=torch.float32)
b = torch.full((N,), 0.5)
c = torch.zeros(N)
kernel(a, b, c)
torch.testing.assert_close(c, a + b)

# tensors made anywhere are tvm.runtime.Tensor, each with its own __dict__
t = tvm.runtime.tensor(np.arange(8, dtype="float32"))
u = tvm_ffi.from_dlpack(np.ones(3, dtype="float32"))
assert type(t) is tvm.runtime.Tensor and type(u) is tvm.runtime.Tensor, (type(t), type(u))
t.note = "kept"
assert t.note == "kept" and not hasattr(u, "note")
np.testing.assert_array_equal(t.numpy(), np.arange(8, dtype="float32"))

# C++-registered members (legacy convention), reached from Python and back through C++
assert [m.swizzle_byte_size() for m in SwizzleMode] == [1, 32, 64, 128]
assert SwizzleMode.NONE.is_none() and SwizzleMode.from_ordinal(2).same_as(SwizzleMode.SWIZZLE_64B)
print("tilelang", tilelang.__version__, "vadd (target c) ok; Tensor class and SwizzleMode ok")
