"""Smoke test of an installed tvm_ffi wheel, run by test_wheel_pythons.sh in a fresh venv of
each Python version present: the compiled module (not the ABI fallback) of the venv's own
copy works, errors carry native frames, the dataclass markers exist, the config CLI answers
without loading the runtime.  Needs nothing but the wheel (and cffi): no numpy, no torch."""

import os
import subprocess
import sys
import traceback

import tvm_ffi
from tvm_ffi import dataclasses, libinfo

pkg = os.path.dirname(tvm_ffi.__file__)
assert pkg.startswith(sys.prefix), "imported %s, not the venv's copy" % pkg
assert tvm_ffi._loader.API_MODE, "the wheel's compiled cffi module was not used"
assert tvm_ffi._loader.LIB_PATH == os.path.join(pkg, "lib", "libtvm_ffi.so")

echo = tvm_ffi.get_global_func("testing.echo")
assert echo("x") == "x" and echo(3) == 3 and echo(2.5) == 2.5 and echo(None) is None
arr = tvm_ffi.convert([1, "two", 3.0])
assert isinstance(arr, tvm_ffi.Array) and arr[1] == "two" and len(arr) == 3
m = tvm_ffi.Map({"a": 1})
assert m["a"] == 1 and "a" in m
assert str(tvm_ffi.dtype("float32")) == "float32"
assert tvm_ffi.device("cpu", 0).dlpack_device_type() == 1

# an error raised by the runtime: the right kind, and a traceback that formats
try:
    m["missing"]
except KeyError as e:
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    assert "KeyError" in text, text
else:
    raise AssertionError("Map lookup of a missing key did not raise")

# a Python callback's exception crosses the runtime and comes back with its kind
def fail():
    raise ValueError("from python")

try:
    tvm_ffi.convert(fail)()
except ValueError as e:
    assert "from python" in str(e)
else:
    raise AssertionError("the callback's ValueError was lost")

assert dataclasses.KW_ONLY is not None and callable(dataclasses.c_class)

out = subprocess.run([sys.executable, "-X", "importtime", "-m", "tvm_ffi.config", "--cmakedir"],
                     capture_output=True, text=True, check=True)
cmakedir = out.stdout.strip()
assert os.path.isfile(os.path.join(cmakedir, "tvm_ffi-config.cmake")), cmakedir
assert "tvm_ffi._loader" not in out.stderr, "tvm_ffi.config loaded the runtime"
assert libinfo.find_libtvm_ffi() == tvm_ffi._loader.LIB_PATH
print("wheel smoke test passed on Python %d.%d" % sys.version_info[:2])
