"""Upstream's own benchmark scripts under our tvm_ffi and under the apache-tvm-ffi wheel.

    python bench/bench_upstream.py [--quick] [--no-callgrind] [--rounds N] [--scripts DIR]

Runs the four scripts of the apache-tvm-ffi sdist's ``tests/scripts`` (benchmark_dlpack.py,
benchmark_pycallback.py, benchmark_kwargs_wrapper.py, benchmark_unpack_dataclass.py; the sdist
comes from scripts/fetch-upstream-sdist.sh) in worker processes, once with this checkout's
package and once with the wheel (``scripts/apache-venv.sh --python``; this interpreter's
site-packages are appended to its path so both see the same torch), and prints one table:
per row of the scripts, ns per call and callgrind instructions per call for both packages
and their ratio (ours/apache: below 1 means ours is faster).

The scripts' own code runs unchanged; the worker only replaces two names in each script's
namespace: ``time`` (its ``time()`` returns the thread's CPU time, so time spent descheduled
on a shared machine is left out, and under callgrind it also switches instruction counting
on at a loop's start and off at its end) and ``print_speed`` (records the row).  Loops run
fewer iterations than the scripts' defaults (``--quick`` fewer still); GPU rows run only
where torch sees a GPU.  Times are the best of ``--rounds`` runs alternating between the
packages; instruction counts are exact and stable under load, so they are the figure to
compare.  Prints figures; never fails on speed.
"""

import argparse
import ast
import functools
import importlib
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_python import apache_env, apache_python  # noqa: E402

SCRIPTS = ("dlpack", "pycallback", "kwargs_wrapper", "unpack_dataclass")
# loop iterations per row: (timing, callgrind); upstream's defaults are 10**4 and 10**6
REPEAT = {"dlpack": (10000, 500), "pycallback": (10000, 500),
          "kwargs_wrapper": (200000, 2000), "unpack_dataclass": (100000, 1000),
          "first_call": (1, 1)}

CG_SRC = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_TOGGLE_COLLECT; }
void cg_stop(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_STOP_INSTRUMENTATION; }
void cg_dump(const char* what) { CALLGRIND_DUMP_STATS_AT(what); }
"""


# ---------------------------------------------------------------------------------------------
# worker: runs one script's rows in the package this interpreter imports


class Clock:
    """Stands in for a script's ``time`` module: ``time()`` pairs open and close a loop."""

    def __init__(self, cg):
        # the ctypes functions fetched now: a CDLL attribute's first lookup costs ~15k
        # instructions, which would land inside the first counted loop
        self.cg_start = cg.cg_start if cg else None
        self.cg_stop = cg.cg_stop if cg else None
        self.inside = False

    def time(self):
        if self.inside:  # end of a timed loop
            t = time.thread_time()
            if self.cg_stop:
                self.cg_stop()
            self.inside = False
            return t
        self.inside = True
        if self.cg_start:
            self.cg_start()
        return time.thread_time()

    def __getattr__(self, name):
        return getattr(time, name)


def load_script(dirname, name):
    if dirname not in sys.path:
        sys.path.insert(0, dirname)  # benchmark_pycallback imports benchmark_dlpack
    return importlib.import_module("benchmark_" + name)


def main_block(mod):
    """The body of the script's ``if __name__ == "__main__":`` as a code object."""
    path = mod.__file__
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.dump(node.test):
            return compile(ast.Module(body=node.body, type_ignores=[]), path, "exec")
    raise RuntimeError("%s has no __main__ block" % path)


def dlpack_rows(m, repeat):
    """benchmark_dlpack.main()'s calls, CPU ones always, CUDA ones with a GPU."""
    torch, np, tvm_ffi = m.torch, m.np, m.tvm_ffi
    cuda = torch.cuda.is_available()
    rows = [
        lambda: m.baseline_numpy_add(repeat),
        lambda: m.baseline_torch_add(repeat),  # its CUDA half raises without a GPU
        lambda: m.tvm_ffi_nop_from_torch_dlpack(repeat),
        lambda: m.tvm_ffi_nop_from_numpy_dlpack(repeat),
        lambda: m.tvm_ffi_self_dlpack_nop(repeat),
        lambda: m.tvm_ffi_nop_from_torch_utils_to_dlpack(repeat),
        lambda: m.tvm_ffi_nop_autodlpack_from_torch(repeat, "cpu"),
        lambda: m.tvm_ffi_nop_autodlpack_from_numpy(repeat),
        lambda: m.tvm_ffi_nop_autodlpack_from_dltensor_test_wrapper(repeat, "cpu"),
        lambda: m.tvm_ffi_nop_autodlpack_from_test_tensor_namedtuple(repeat, "cpu"),
        lambda: m.tvm_ffi_nop(repeat),
        lambda: m.bench_torch_utils_to_dlpack(repeat),
        lambda: m.bench_to_dlpack(torch.arange(1), "torch.__dlpack__", repeat),
        lambda: m.bench_to_dlpack(np.arange(1), "numpy.__dlpack__", repeat),
        lambda: m.bench_to_dlpack(tvm_ffi.from_dlpack(torch.arange(1)), "tvm.__dlpack__",
                                  repeat),
        lambda: m.bench_to_dlpack_versioned(torch.arange(1),
                                            "torch.__dlpack__(max_version=(1,1))", repeat),
        lambda: m.bench_to_dlpack_versioned(np.arange(1),
                                            "numpy.__dlpack__(max_version=(1,1))", repeat),
        lambda: m.bench_to_dlpack_versioned(tvm_ffi.from_dlpack(torch.arange(1)),
                                            "tvm.__dlpack__(max_version=(1,1))", repeat),
    ]
    if cuda:
        rows += [
            lambda: m.tvm_ffi_nop_autodlpack_from_torch(repeat, "cuda"),
            lambda: m.tvm_ffi_nop_autodlpack_from_torch(repeat, "cuda", stream=True),
            lambda: m.tvm_ffi_nop_autodlpack_from_dltensor_test_wrapper(repeat, "cuda"),
            lambda: m.tvm_ffi_nop_autodlpack_from_test_tensor_namedtuple(repeat, "cuda"),
        ]
    return rows


def worker(args):
    cg = None
    if args.cglib:
        import ctypes  # noqa: PLC0415

        cg = ctypes.CDLL(args.cglib)
        cg.cg_dump.argtypes = [ctypes.c_char_p]
    if args.extra_path:
        sys.path.append(args.extra_path)  # after the venv's own packages
    if args.script in ("dlpack", "pycallback", "first_call"):
        import torch  # noqa: PLC0415 - imported before the clock is installed
    import tvm_ffi  # noqa: PLC0415

    out = {"rows": {}, "errors": [], "file": tvm_ffi.__file__, "version": tvm_ffi.__version__}
    clock = Clock(cg)
    repeat = REPEAT[args.script][1 if cg else 0]

    def print_speed(name, speed):
        if cg:
            cg.cg_dump(name.encode())
        out["rows"][name] = {"ns": speed * 1e9, "n": repeat}

    def run(row):
        try:
            row()
        except Exception as err:  # noqa: BLE001 - a failing row is reported, not fatal
            out["errors"].append("%s: %s" % (type(err).__name__, str(err).splitlines()[0]))
        clock.inside = False

    if args.script == "first_call":
        nop = tvm_ffi.get_global_func("testing.nop")
        x = torch.zeros(1)
        t0 = clock.time()
        nop(x)
        print_speed("first nop(torch.Tensor) in a process", clock.time() - t0)
    else:
        m = load_script(args.scripts, args.script)
        m.time = clock
        m.print_speed = print_speed
        if args.script == "dlpack":
            for row in dlpack_rows(m, repeat):
                run(row)
            try:
                import contextlib  # noqa: PLC0415
                import io  # noqa: PLC0415

                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    tvm_ffi.core._print_debug_info()
                out["debug_info"] = buf.getvalue().strip()
            except Exception as err:  # noqa: BLE001
                out["errors"].append("core._print_debug_info: %s: %s"
                                     % (type(err).__name__, err))
        elif args.script == "pycallback":
            invoke_n = m._load_invoke_n()
            a, b, c = (torch.zeros(1) for _ in range(3))
            run(lambda: m.bench_pycallback_tensor_cls_torch(invoke_n, a, b, c, repeat))
            run(lambda: m.bench_pycallback_from_dlpack(invoke_n, a, b, c, repeat))
        elif args.script == "kwargs_wrapper":
            run(lambda: m.benchmark_kwargs_wrapper(repeat))
        else:
            m.benchmark_unpack = functools.partial(m.benchmark_unpack, repeat=repeat)
            run(lambda: exec(main_block(m), m.__dict__))  # noqa: S102
    print(json.dumps(out))
    return 0


# ---------------------------------------------------------------------------------------------
# driver


def cg_library(tmp):
    """Compile the callgrind client-request shim; None without valgrind or its header."""
    if subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode:
        return None
    src, so = os.path.join(tmp, "cgctl.c"), os.path.join(tmp, "cgctl.so")
    with open(src, "w") as fh:
        fh.write(CG_SRC)
    cc = (os.environ.get("CC") or "cc").split()
    if subprocess.run(cc + ["-O1", "-shared", "-fPIC", src, "-o", so],
                      capture_output=True).returncode:
        return None
    return so


DUMP_DESC = "desc: Trigger: Client Request: "


def read_dumps(prefix):
    """{row name: instructions} from callgrind's per-dump output files."""
    res = {}
    d, base = os.path.split(prefix)
    for f in sorted(os.listdir(d)):
        if not f.startswith(base + "."):
            continue
        name, total = None, None
        with open(os.path.join(d, f)) as fh:
            for line in fh:
                if line.startswith(DUMP_DESC):
                    name = line[len(DUMP_DESC):].strip()
                elif line.startswith(("summary:", "totals:")):
                    total = int(line.split()[1])
        if name is not None and total is not None:
            res[name] = total
    return res


def run_worker(pkg, script, scripts_dir, cglib, tmp):
    python, env, extra = pkg["python"], pkg["env"], pkg["extra"]
    cmd = [python, os.path.abspath(__file__), "--worker", "--script", script,
           "--scripts", scripts_dir]
    if extra:
        cmd += ["--extra-path", extra]
    prefix = None
    if cglib:
        prefix = os.path.join(tmp, "cg-%s-%s" % (pkg["name"], script))
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--instr-atstart=no",
               "--callgrind-out-file=" + prefix, "-q"] + cmd + ["--cglib", cglib]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        print("bench_upstream: %s %s worker failed:\n%s"
              % (pkg["name"], script, out.stderr[-3000:]), file=sys.stderr)
        return None
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if prefix:
        for name, ir in read_dumps(prefix).items():
            if name in res["rows"]:
                res["rows"][name]["ir"] = ir / res["rows"][name]["n"]
    return res


def packages(with_apache):
    ours_env = dict(os.environ)
    ours_env["PYTHONPATH"] = os.path.join(TOP, "python") + (
        os.pathsep + ours_env["PYTHONPATH"] if ours_env.get("PYTHONPATH") else "")
    pkgs = [{"name": "ours", "python": sys.executable, "env": ours_env, "extra": None}]
    if with_apache:
        py, why = apache_python()
        if py is None:
            print("bench_upstream: apache column empty: %s" % why)
        else:
            pkgs.append({"name": "apache", "python": py, "env": apache_env(),
                         "extra": sysconfig.get_paths()["purelib"]})
    return pkgs


def fmt(v, digits=0):
    if v is None:
        return "-"
    return ("%%.%df" % digits) % v


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def print_table(order, cols, with_ir):
    head = ["row", "ours ns", "apache ns", "ratio"]
    if with_ir:
        head += ["ours Ir", "apache Ir", "Ir ratio"]
    lines = [head]
    for script, name in order:
        o = cols["ours"].get((script, name), {})
        a = cols.get("apache", {}).get((script, name), {})
        line = [name, fmt(o.get("ns")), fmt(a.get("ns")), ratio(o.get("ns"), a.get("ns"))]
        if with_ir:
            line += [fmt(o.get("ir")), fmt(a.get("ir")), ratio(o.get("ir"), a.get("ir"))]
        lines.append(line)
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    for i, r in enumerate(lines):
        print("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j])
                        for j, c in enumerate(r)))
        if i == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))


def scripts_dir(given):
    if given:
        return given
    out = subprocess.run(["sh", os.path.join(TOP, "scripts", "fetch-upstream-sdist.sh")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return os.path.join(out.stdout.strip(), "tests", "scripts")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one round, fewer iterations")
    ap.add_argument("--rounds", type=int, default=3, help="timing runs per package (best)")
    ap.add_argument("--no-callgrind", action="store_true", help="times only")
    ap.add_argument("--no-apache", action="store_true", help="our package only")
    ap.add_argument("--scripts", default=None, help="upstream's tests/scripts directory")
    ap.add_argument("--only", action="append", choices=SCRIPTS + ("first_call",),
                    help="run only these scripts (repeatable)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--script", help=argparse.SUPPRESS)
    ap.add_argument("--cglib", help=argparse.SUPPRESS)
    ap.add_argument("--extra-path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    sdir = scripts_dir(args.scripts)
    if not sdir or not os.path.isdir(sdir):
        print("bench_upstream: upstream's tests/scripts not found (scripts/fetch-upstream-sdist.sh)")
        return 0
    try:
        import torch  # noqa: F401, PLC0415
    except ImportError:
        print("bench_upstream: %s has no torch; the scripts need it, skipped" % sys.executable)
        return 0
    if args.quick:
        args.rounds = min(args.rounds, 1)
        for k, (t, c) in REPEAT.items():
            REPEAT[k] = (max(1, t // 10), c)
    pkgs = packages(not args.no_apache)
    todo = args.only or list(SCRIPTS) + ["first_call"]
    cols = {p["name"]: {} for p in pkgs}
    order, notes = [], []
    with tempfile.TemporaryDirectory(prefix="bench-upstream-") as tmp:
        cglib = None if args.no_callgrind else cg_library(tmp)
        for script in todo:
            for rnd in range(args.rounds + (1 if cglib else 0)):
                cg = cglib if rnd == args.rounds else None
                for p in pkgs:
                    res = run_worker(p, script, sdir, cg, tmp)
                    if res is None:
                        continue
                    if rnd == 0:
                        for e in res["errors"]:
                            notes.append("%s %s: %s" % (p["name"], script, e))
                        if "debug_info" in res:
                            notes.append("%s core._print_debug_info(): %s"
                                         % (p["name"], res["debug_info"].replace("\n", "; ")))
                        p["file"] = res["file"]
                    for name, v in res["rows"].items():
                        key = (script, name)
                        if key not in order:
                            order.append(key)
                        cell = cols[p["name"]].setdefault(key, {})
                        if cg:
                            cell["ir"] = v.get("ir")
                        elif cell.get("ns") is None or v["ns"] < cell["ns"]:
                            cell["ns"] = v["ns"]
    print("bench_upstream: upstream's tests/scripts (%s), CPU rows%s" % (
        sdir, "" if cglib else "; no callgrind (valgrind or valgrind/callgrind.h missing)"))
    for p in pkgs:
        print("  %-6s %s" % (p["name"], p.get("file", "(failed)")))
    print("  ns: best of %d runs, thread CPU time per loop iteration; Ir: callgrind "
          "instructions per loop iteration (both include the script's loop); "
          "ratio = ours/apache" % args.rounds)
    print_table(order, cols, bool(cglib))
    for n in notes:
        print("  note: " + n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
