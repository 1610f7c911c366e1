"""Runs one of the host programs with this checkout's tvm_ffi, then checks that the only
libtvm_ffi.so mapped into the process is ours.  Usage: run_on_ours.py PROGRAM.py [ARG...]
(PROGRAM sees sys.argv[1:], as if run itself)."""
import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(repo, "python"))
import tvm_ffi  # noqa: E402  (ours, before tvm imports the apache one)

assert os.path.dirname(tvm_ffi.__file__) == os.path.join(repo, "python", "tvm_ffi"), tvm_ffi.__file__
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps if line.rstrip().endswith("libtvm_ffi.so")}
assert len(mapped) == 1, mapped
ours = os.path.realpath(tvm_ffi._loader.find_library())
assert {os.path.realpath(p) for p in mapped} == {ours}, (mapped, ours)
print("only", ours, "mapped")
