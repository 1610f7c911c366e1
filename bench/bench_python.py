"""Per-call cost of the tvm_ffi Python package: ours against the apache-tvm-ffi wheel, ctypes
and a torch.utils.cpp_extension (pybind11) function doing the same.  Prints a table; never
fails on speed.

    python bench/bench_python.py [--quick] [--no-apache] [--no-pybind]

Each tvm_ffi package is measured in a fresh subprocess running this file with ``--worker``:
ours with the interpreter and environment this runs in, apache's with the interpreter of its
venv (``scripts/apache-venv.sh --python``; this interpreter's site-packages are appended to
its path so torch is importable there too).  The ctypes and pybind11 columns run in-process.
Figures are the best of several repeats of the calling thread's CPU time (the machine is
shared: time spent descheduled is left out), in ns per call.  Import time is the CPU time of
``import tvm_ffi`` in fresh interpreters with warmed-up bytecode caches (``import_ms``).
"""

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

# (key, label, goal in ns from issue 4 or None)
ROWS = [
    ("nop0", "nop()", 150),
    ("nop3i", "nop(1, 2, 3)", 250),
    ("nop3f", "nop(3 x tvm_ffi.Tensor)", None),
    ("nop3t", "nop(3 x torch.Tensor)", 600),
    ("nop3n", "nop(3 x numpy.ndarray)", None),
    ("dl_torch", "from_dlpack(torch.Tensor)", None),
    ("dl_numpy", "from_dlpack(numpy.ndarray)", None),
    ("import", "import tvm_ffi (ms)", 5),
]


def best_ns(stmt, g, quick):
    """Best mean ns per execution of ``stmt`` over several repeats."""
    # this thread's CPU time: on the shared machine, time spent descheduled is not the call's
    t = timeit.Timer(stmt, globals=g, timer=time.thread_time)
    n, _ = t.autorange()  # loops for ~0.2 s
    if quick:
        n = max(1, n // 4)
    return min(t.repeat(repeat=3 if quick else 7, number=n)) / n * 1e9


IMPORT_HOW = ("import: CPU time (time.process_time()) of `import tvm_ffi` in fresh interpreters, "
              "best of %d, bytecode cached (PYTHONDONTWRITEBYTECODE unset, PYTHONPYCACHEPREFIX=<tmp> "
              "filled by one warm-up import; same for both packages)")


def import_runs(quick):
    return 5 if quick else 15


def import_ms(python, env, quick):
    """Best time of `import tvm_ffi` with every module's bytecode cached, as a user sees it.

    The environment may set PYTHONDONTWRITEBYTECODE (then every import recompiles the package
    sources, and an installed package keeps whatever caches pip wrote): both packages get a
    private, warmed-up cache directory instead.
    """
    code = ("import time; t = time.process_time(); import tvm_ffi; "
            "print((time.process_time() - t) * 1e3)")
    env = dict(env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-pyc-") as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for i in range(1 + import_runs(quick)):  # run 0 compiles and writes the caches
            out = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                return None
            if i:
                runs.append(float(out.stdout.strip().splitlines()[-1]))
    return min(runs)


def worker(quick, extra_path):
    if extra_path:
        sys.path.append(extra_path)  # after the venv's own packages
    import numpy as np
    import tvm_ffi

    try:
        import torch
    except ImportError:
        torch = None
    nop = tvm_ffi.get_global_func("testing.nop")
    a = [np.zeros((2, 3), dtype="float32") for _ in range(3)]
    f = [tvm_ffi.from_dlpack(x) for x in a]
    g = {"nop": nop, "a": a, "f": f, "from_dlpack": tvm_ffi.from_dlpack}
    res = {
        "nop0": best_ns("nop()", g, quick),
        "nop3i": best_ns("nop(1, 2, 3)", g, quick),
        "nop3f": best_ns("nop(f[0], f[1], f[2])", g, quick),
        "nop3n": best_ns("nop(a[0], a[1], a[2])", g, quick),
        "dl_numpy": best_ns("from_dlpack(a[0])", g, quick),
    }
    if torch is not None:
        g["t"] = [torch.zeros(2, 3) for _ in range(3)]
        res["nop3t"] = best_ns("nop(t[0], t[1], t[2])", g, quick)
        res["dl_torch"] = best_ns("from_dlpack(t[0])", g, quick)
    res["version"] = tvm_ffi.__version__
    res["file"] = tvm_ffi.__file__
    print(json.dumps(res))


def run_worker(python, env, quick, extra_path=None):
    cmd = [python, os.path.abspath(__file__), "--worker"] + (["--quick"] if quick else [])
    if extra_path:
        cmd += ["--extra-path", extra_path]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        print("bench_python: worker %s failed:\n%s" % (python, out.stderr[-2000:]), file=sys.stderr)
        return None
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["import"] = import_ms(python, env, quick)
    return res


def apache_python():
    script = os.path.join(TOP, "scripts", "apache-venv.sh")
    # with our PYTHONPATH the venv's probe would import our package instead of the wheel's
    out = subprocess.run(["sh", script, "--python"], capture_output=True, text=True,
                         env=apache_env())
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["apache-venv.sh failed"])[-1]
    return out.stdout.strip(), None


def apache_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TVM_FFI_") and k not in ("PYTHONPATH", "PYTHONHOME")}
    env["TVM_FFI_DISABLE_TORCH_C_DLPACK"] = os.environ.get("TVM_FFI_DISABLE_TORCH_C_DLPACK", "0")
    return env


def ctypes_column(quick):
    """The same calls as plain ctypes calls of C functions (what a ctypes binding costs)."""
    import ctypes

    import numpy as np

    cc = os.environ.get("CC") or "cc"
    d = tempfile.mkdtemp(prefix="bench-ctypes-")
    src, so = os.path.join(d, "nop.c"), os.path.join(d, "nop.so")
    with open(src, "w") as fh:
        fh.write("#include <stdint.h>\nvoid nop0(void) {}\n"
                 "void nop3i(int64_t a, int64_t b, int64_t c) { (void)a; (void)b; (void)c; }\n"
                 "void nop3p(void* a, void* b, void* c) { (void)a; (void)b; (void)c; }\n")
    if subprocess.run(cc.split() + ["-O2", "-shared", "-fPIC", src, "-o", so]).returncode:
        return {}
    lib = ctypes.CDLL(so)
    lib.nop0.argtypes = []
    lib.nop3i.argtypes = [ctypes.c_int64] * 3
    lib.nop3p.argtypes = [ctypes.c_void_p] * 3
    a = [np.zeros((2, 3), dtype="float32") for _ in range(3)]
    g = {"lib": lib, "a": a}
    res = {
        "nop0": best_ns("lib.nop0()", g, quick),
        "nop3i": best_ns("lib.nop3i(1, 2, 3)", g, quick),
        "nop3n": best_ns("lib.nop3p(a[0].ctypes.data, a[1].ctypes.data, a[2].ctypes.data)",
                         g, quick),
    }
    try:
        import torch
    except ImportError:
        return res
    g["t"] = [torch.zeros(2, 3) for _ in range(3)]
    res["nop3t"] = best_ns("lib.nop3p(t[0].data_ptr(), t[1].data_ptr(), t[2].data_ptr())",
                           g, quick)
    return res


PYBIND_SRC = """
#include <pybind11/numpy.h>
void nop0() {}
void nop3i(int64_t a, int64_t b, int64_t c) {}
void nop3t(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {}
void nop3n(pybind11::array a, pybind11::array b, pybind11::array c) {}
"""


def pybind_column(quick):
    """The same calls through a torch.utils.cpp_extension (pybind11) extension."""
    try:
        import numpy as np
        import torch
        from torch.utils import cpp_extension
    except ImportError:
        return {}
    try:
        mod = cpp_extension.load_inline(
            "tvm_ffi_bench_pybind", cpp_sources=PYBIND_SRC,
            functions=["nop0", "nop3i", "nop3t", "nop3n"], extra_cflags=["-O2"], verbose=False)
    except Exception as err:  # noqa: BLE001 - a missing toolchain only drops the column
        print("bench_python: pybind11 column skipped: %s" % str(err).splitlines()[0],
              file=sys.stderr)
        return {}
    a = [np.zeros((2, 3), dtype="float32") for _ in range(3)]
    t = [torch.zeros(2, 3) for _ in range(3)]
    g = {"m": mod, "a": a, "t": t}
    return {
        "nop0": best_ns("m.nop0()", g, quick),
        "nop3i": best_ns("m.nop3i(1, 2, 3)", g, quick),
        "nop3t": best_ns("m.nop3t(t[0], t[1], t[2])", g, quick),
        "nop3n": best_ns("m.nop3n(a[0], a[1], a[2])", g, quick),
    }


def fmt(v):
    return "-" if v is None else ("%.0f" % v if v >= 100 else "%.1f" % v)


def table(cols):
    ours, apache = cols["ours"], cols.get("apache") or {}
    head = ["", "ours", "apache", "ours/apache", "ctypes", "pybind11", "goal"]
    lines = [head]
    for key, label, goal in ROWS:
        o, a = ours.get(key), apache.get(key)
        ratio = "%.2f" % (o / a) if o is not None and a else "-"
        if goal is None or o is None:
            verdict = ""
        else:
            verdict = "<= %s %s" % (goal, "ok" if o <= goal else "MISSED")
        lines.append([label, fmt(o), fmt(a), ratio, fmt(cols["ctypes"].get(key)),
                      fmt(cols["pybind11"].get(key)), verdict])
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    out = []
    for i, r in enumerate(lines):
        out.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j])
                             for j, c in enumerate(r)).rstrip())
        if i == 0:
            out.append("-" * len(out[0]))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--no-apache", action="store_true", help="skip the apache-tvm-ffi column")
    ap.add_argument("--no-pybind", action="store_true", help="skip the pybind11 column")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--extra-path", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.quick, args.extra_path)
        return 0
    cols = {"ours": run_worker(sys.executable, dict(os.environ), args.quick)}
    if cols["ours"] is None:
        return 1
    note = ""
    if not args.no_apache:
        py, why = apache_python()
        if py is None:
            note = "apache column empty: %s" % why
        else:
            cols["apache"] = run_worker(py, apache_env(), args.quick,
                                        extra_path=sysconfig.get_paths()["purelib"])
    cols["ctypes"] = ctypes_column(args.quick)
    cols["pybind11"] = {} if args.no_pybind else pybind_column(args.quick)
    print("bench_python: ns per call (best of repeats, thread CPU time; import in ms); "
          "ours/apache < 1 means ours is faster")
    print("  ours:   tvm_ffi %s (%s)" % (cols["ours"]["version"], cols["ours"]["file"]))
    if cols.get("apache"):
        print("  apache: tvm_ffi %s (%s)" % (cols["apache"]["version"], cols["apache"]["file"]))
    if note:
        print("  " + note)
    print("  " + IMPORT_HOW % import_runs(args.quick))
    print(table(cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
