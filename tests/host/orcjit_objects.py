"""apache-tvm-ffi-orcjit 0.1.3 (an LLVM ORC JIT in a library built against apache-tvm-ffi
0.1.14.post1+): the object file argv[1] (orcjit_kernel.cc, compiled against the apache
package's headers) JIT-linked and called: ints, strings, NumPy arrays, an array, a callback,
an error thrown across."""
import sys

import numpy as np
import tvm_ffi_orcjit as oj

mod = oj.default_session().load_module(sys.argv[1])
assert mod.add_int(2, 40) == 42
assert mod.greet("orc") == "hello, orc"
x = np.arange(5, dtype="float32")
y = np.zeros(5, dtype="float32")
mod.add_one(x, y)
np.testing.assert_array_equal(y, x + 1)
assert mod.sum_array([1, 2, 3, 4]) == 10
assert mod.apply(lambda v: v + 1, 3) == 8
try:
    mod.fail(7)
    raise AssertionError("fail(7) returned")
except ValueError as err:
    assert "orcjit kernel failed with code 7" in str(err), err
print("orcjit: object file JIT-linked, 6 functions ok")
