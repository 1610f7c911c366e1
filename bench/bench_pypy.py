"""Per-call cost of the tvm_ffi package under PyPy beside CPython: the same rows as
bench_python.py (its worker, run by each interpreter in a fresh subprocess).  Prints a table;
never fails on speed.

    python bench/bench_pypy.py [--quick] [--runs N] [--pypy PATH]

CPython runs the compiled fast path (API mode); PyPy runs ABI mode (``_abi_*.py``), which its
JIT compiles, with ``tvm_ffi._capi_ext`` for capsules (built by ``_build_ffi.py --capi`` into
``$TVM_FFI_MODULE_DIR``).  The PyPy interpreter is the venv of ``scripts/pypy-venv.sh`` unless
``--pypy`` names one.  Figures: best of several repeats of the thread's CPU time, ns per call
(each row's statement loops long enough for PyPy's JIT to warm up); import in ms.  With
``--runs N`` each interpreter's worker runs N times and a row shows the median of the N
figures (PyPy's move with the traces its JIT happens to make).  The goal column holds issue 24's
goals for PyPy: NumPy array arguments at most 3x CPython, the import within 100 ms.
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_python  # noqa: E402  (the worker and the table rows)


def pypy_python():
    out = subprocess.run(["sh", os.path.join(TOP, "scripts", "pypy-venv.sh")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["pypy-venv.sh failed"])[-1]
    return out.stdout.strip(), None


# issue 24 item 5: (row, "ratio" of PyPy to CPython or "pypy" figure, at most)
GOALS = {"nop3n": ("ratio", 3.0), "import": ("pypy", 100.0)}


def verdict(key, c, p):
    if key not in GOALS or p is None:
        return ""
    kind, most = GOALS[key]
    if kind == "ratio" and not c:
        return ""
    value = p / c if kind == "ratio" else p
    return "%s <= %g %s" % ("x" if kind == "ratio" else "pypy", most,
                            "ok" if value <= most else "MISSED")


def median_worker(python, env, quick, runs):
    """bench_python.run_worker's figures, each row the median over runs workers."""
    results = [bench_python.run_worker(python, env, quick) for _ in range(max(1, runs))]
    if any(r is None for r in results):
        return None
    out = dict(results[0])
    for key, _label, _goal in bench_python.ROWS:
        values = [r[key] for r in results if r.get(key) is not None]
        if values:
            out[key] = statistics.median(values)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--runs", type=int, default=1, help="workers per interpreter (median)")
    ap.add_argument("--pypy", default=None, help="the PyPy interpreter (default: the venv's)")
    args, _ = ap.parse_known_args()  # bench_python.sh passes BENCH_PY_ARGS meant for both
    pypy, why = (args.pypy, None) if args.pypy else pypy_python()
    if pypy is None:
        print("bench_pypy: no PyPy (%s); skipped" % why)
        return 0
    env = dict(os.environ)
    mod_dir = env.get("TVM_FFI_MODULE_DIR") or os.path.join(TOP, "python", "tvm_ffi")
    build = subprocess.run([pypy, os.path.join(TOP, "python", "tvm_ffi", "_build_ffi.py"), "--capi",
                            "--include", os.path.join(TOP, "c", "include"), "--out-dir", mod_dir,
                            "--tmp-dir", os.path.join(os.path.dirname(mod_dir), "_capi_build")],
                           capture_output=True, text=True)
    if build.returncode != 0:
        print("bench_pypy: building tvm_ffi._capi_ext failed:\n%s" % build.stderr[-2000:])
        return 1
    cols = {"cpython": median_worker(sys.executable, env, args.quick, args.runs),
            "pypy": median_worker(pypy, env, args.quick, args.runs)}
    if cols["cpython"] is None or cols["pypy"] is None:
        return 1
    print("bench_pypy: ns per call (best of repeats, thread CPU time; import in ms%s); "
          "pypy/cpython < 1 means PyPy is faster"
          % ("; median of %d runs" % args.runs if args.runs > 1 else ""))
    print("  cpython: %s (API mode)" % sys.version.split()[0])
    ver = subprocess.run([pypy, "-c", "import sys; print(sys.version.split()[0], "
                          "'PyPy %d.%d.%d' % sys.pypy_version_info[:3])"],
                         capture_output=True, text=True).stdout.strip()
    print("  pypy:    %s (ABI mode)" % ver)
    rows = [("", "cpython", "pypy", "pypy/cpython", "goal")]
    for key, label, _goal in bench_python.ROWS:
        c, p = cols["cpython"].get(key), cols["pypy"].get(key)
        ratio = "%.2f" % (p / c) if c and p is not None else "-"
        rows.append((label, bench_python.fmt(c), bench_python.fmt(p), ratio, verdict(key, c, p)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for i, r in enumerate(rows):
        line = "  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(r))
        print(line)
        if i == 0:
            print("-" * len(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
