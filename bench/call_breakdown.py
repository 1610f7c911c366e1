"""Where the instructions of one call go: callgrind over a loop of calls of testing.nop through
this package, split by owner.  Prints instructions (Ir) per loop iteration; never fails on speed.

    python bench/call_breakdown.py [--case t3|f3|n3|i3|nop0] [-n N] [--keep DIR]

The loop runs in a worker under ``valgrind --tool=callgrind`` with collection switched on for
exactly the loop (the client-request shim of bench_upstream.py), then an empty loop of the same
length the same way.  Owners, from callgrind_annotate's inclusive counts:
  interpreter  the loop around the call, the argument loads, CALL and POP_TOP (CPython)
  gil          PyEval_SaveThread + PyEval_RestoreThread around the foreign call (CPython)
  torch        torch's DLTensorFromPyObjectNoSync, the non-owning view of each tensor
  binding      the rest of the call: conversion, the call itself, the callee, the release
The package comes from the environment (PYTHONPATH, TVM_FFI_MODULE_DIR, TVM_FFI_LIBRARY_PATH):
``BENCH_PY_SCRIPT=call_breakdown.py BENCH_PY_ARGS="--case t3" sh bench/bench_python.sh`` sets
them for the build tree.  --keep DIR keeps the
callgrind files there (``callgrind_annotate --auto=yes FILE`` shows them line by line).
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_upstream import DUMP_DESC, cg_library, read_dumps  # noqa: E402 - the shared callgrind shim

CASES = {
    "nop0": ("nop()", "no arguments"),
    "i3": ("nop(1, 2, 3)", "3 ints"),
    "f3": ("nop(a0, a1, a2)", "3 tvm_ffi.Tensor"),
    "n3": ("nop(a0, a1, a2)", "3 NumPy arrays"),
    "t3": ("nop(a0, a1, a2)", "3 torch tensors (2x3 float32, each its own)"),
}
# inclusive counts that name an owner: (owner, function name as callgrind_annotate prints it)
OWNED = [("torch", "DLTensorFromPyObjectNoSync"), ("gil", "PyEval_SaveThread"),
         ("gil", "PyEval_RestoreThread")]
ENTRIES = ("function_vectorcall", "function_tp_call")  # where the binding's call starts


def worker(case, n, cglib):
    import ctypes

    import tvm_ffi

    cg = ctypes.CDLL(cglib)
    cg.cg_dump.argtypes = [ctypes.c_char_p]
    env = {"nop": tvm_ffi.get_global_func("testing.nop")}
    if case in ("f3", "n3"):
        import numpy as np

        arrays = [np.zeros((2, 3), dtype="float32") for _ in range(3)]
        env.update(("a%d" % i, tvm_ffi.from_dlpack(x) if case == "f3" else x)
                   for i, x in enumerate(arrays))
    elif case == "t3":
        import torch

        env.update(("a%d" % i, torch.zeros(2, 3)) for i in range(3))
    for name, body in (("call", CASES[case][0]), ("loop", "pass")):
        exec("def run_%s(n):\n    for _ in range(n):\n        %s\n" % (name, body), env)
    env["run_call"](2000)  # warm: caches, the call's vectorcall entry, the interpreter
    env["run_loop"](2000)
    for name in ("call", "loop"):
        cg.cg_start()
        env["run_" + name](n)
        cg.cg_stop()
        cg.cg_dump(name.encode())


def inclusive(path):
    """{function name: inclusive Ir} from callgrind_annotate (the largest count per name)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].replace(",", "").isdigit() or "[" not in line:
            continue
        ir = int(parts[0].replace(",", ""))
        fn = line.split(":", 1)[-1].split(" [")[0].split("(")[0].split("::")[-1].strip()
        res[fn] = max(res.get(fn, 0), ir)
    return res


def dump_file(prefix, name):
    """The callgrind file of the dump named name (cg_dump) among prefix.*."""
    d, base = os.path.split(prefix)
    for f in sorted(os.listdir(d)):
        if f.startswith(base + "."):
            with open(os.path.join(d, f)) as fh:
                if any(line.strip() == DUMP_DESC + name for line in fh):
                    return os.path.join(d, f)
    raise SystemExit("call_breakdown: no callgrind dump named %s" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=sorted(CASES), default="t3")
    ap.add_argument("-n", type=int, default=20000, help="loop iterations (default 20000)")
    ap.add_argument("--keep", default=None, help="directory to keep the callgrind files in")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cglib", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.case, args.n, args.cglib)
        return 0
    with tempfile.TemporaryDirectory(prefix="call-breakdown-") as tmp:
        cglib = cg_library(tmp)
        if cglib is None:
            print("call_breakdown: needs valgrind and valgrind/callgrind.h; skipped")
            return 0
        d = args.keep or tmp
        os.makedirs(d, exist_ok=True)
        prefix = os.path.join(d, "cg-" + args.case)
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--instr-atstart=no",
               "--dump-instr=yes", "--callgrind-out-file=" + prefix, "-q", sys.executable,
               os.path.abspath(__file__), "--worker", "--case", args.case, "-n", str(args.n),
               "--cglib", cglib]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            print("call_breakdown: worker failed:\n" + run.stderr[-3000:], file=sys.stderr)
            return 1
        totals = read_dumps(prefix)
        counts = inclusive(dump_file(prefix, "call"))
    per = {k: v / args.n for k, v in totals.items()}
    own = {"torch": 0.0, "gil": 0.0}
    for owner, fn in OWNED:
        own[owner] += counts.get(fn, 0) / args.n
    entry = max(counts.get(fn, 0) for fn in ENTRIES) / args.n
    rows = [("interpreter (loop)", per["loop"]),
            ("interpreter (call site)", per["call"] - per["loop"] - entry),
            ("gil (CPython)", own["gil"]), ("torch", own["torch"]),
            ("binding + runtime + callee", entry - own["gil"] - own["torch"])]
    stmt, what = CASES[args.case]
    print("call_breakdown: %s with %s, Ir per loop iteration (callgrind, %d iterations)"
          % (stmt, what, args.n))
    for label, ir in rows:
        if ir:
            print("  %-28s %7.0f" % (label, ir))
    print("  %-28s %7.0f" % ("total", per["call"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
