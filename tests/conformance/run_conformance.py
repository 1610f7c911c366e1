#!/usr/bin/env python3
"""Runs the Python test suite of the upstream apache-tvm-ffi source distribution against this
checkout and compares the outcome with a reviewed list of the tests that do not pass.

    run_conformance.py                 run every file, compare, print "N passed of M"
    run_conformance.py FILE...         only these files (e.g. test_object.py utils/test_filelock.py)
    run_conformance.py --regenerate    run, then rewrite the expectations file (see below)
    run_conformance.py --oracle        the same files with the apache wheel (scripts/apache-venv.sh)

Each test file runs in its own pytest process (``--jobs`` at a time, default 2) with this
checkout's ``python/`` first on ``sys.path`` and the build's runtime; a file whose process used
another ``tvm_ffi`` package or mapped another ``libtvm_ffi*.so`` fails the run.

The expectations file (``expected-failures.txt`` next to this script) lists the tests that fail
on this implementation, grouped under one-line reasons in brackets.  The run fails on a failure
that is not listed and on a listed test that passes, so the list can only shrink honestly.  A
file that does not even collect is listed by its name with its test count taken from the
oracle, ``test_x.py (151 tests)``, so that M stays the number of tests the suite holds.
Skipped tests (no GPU, no Rust toolchain, ...) are neither failures nor passes.

``--regenerate`` keeps the reasons of tests still failing, drops the tests that pass and puts
new failures under ``[TODO ...]`` with their error, which the run refuses until someone has
moved each to a reviewed reason.  Exit status: 0 as expected, 1 on a difference, 77 (skip)
when the source distribution cannot be fetched.
"""

import argparse
import concurrent.futures
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

PACKAGE = "apache-tvm-ffi"
VERSION = "0.1.15.post2"
SDIST_DIR = "apache_tvm_ffi-" + VERSION
HERE = os.path.dirname(os.path.abspath(__file__))
FILE_TIMEOUT_S = 1200
TODO = "TODO"


class Skip(Exception):
    """The run cannot happen here (the reason says what is missing)."""


# ---------------------------------------------------------------- the source distribution


def cache_root():
    explicit = os.environ.get("TVMFFI_CONFORMANCE_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tvm-ffi-c", "sdist")


def _download_from_pypi(dest_dir):
    """Fetch the sdist through PyPI's JSON API (checked against its sha256); returns the path."""
    url = "https://pypi.org/pypi/%s/%s/json" % (PACKAGE, VERSION)
    with urllib.request.urlopen(url, timeout=60) as resp:
        meta = json.load(resp)
    sdists = [u for u in meta.get("urls", []) if u.get("packagetype") == "sdist"]
    if not sdists:
        raise OSError("PyPI lists no sdist for %s==%s" % (PACKAGE, VERSION))
    entry = sdists[0]
    target = os.path.join(dest_dir, entry["filename"])
    with urllib.request.urlopen(entry["url"], timeout=300) as resp:
        with open(target + ".part", "wb") as f:
            shutil.copyfileobj(resp, f)
    digest = hashlib.sha256(open(target + ".part", "rb").read()).hexdigest()
    if digest != entry["digests"]["sha256"]:
        os.unlink(target + ".part")
        raise OSError("sha256 mismatch for %s" % entry["url"])
    os.replace(target + ".part", target)
    return target


def _download_with_pip(dest_dir):
    """Fallback honouring pip's own index configuration.  --no-build-isolation: otherwise pip
    builds cmake from source to prepare the metadata (scikit-build-core must be installed)."""
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
           "--no-deps", "--no-binary", ":all:", "--no-build-isolation", "-d", dest_dir,
           "%s==%s" % (PACKAGE, VERSION)]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    for name in os.listdir(dest_dir):
        if name.startswith(SDIST_DIR) and name.endswith(".tar.gz"):
            return os.path.join(dest_dir, name)
    raise OSError("pip download left no %s*.tar.gz" % SDIST_DIR)


def fetch_sdist():
    """The unpacked sdist's tests/python, downloading and unpacking it into the cache once."""
    root = cache_root()
    tests = os.path.join(root, SDIST_DIR, "tests", "python")
    if os.path.isdir(tests):
        return tests
    try:
        os.makedirs(root, exist_ok=True)
        lock = open(os.path.join(root, ".lock"), "w")
    except OSError as err:
        raise Skip("cannot create the cache %s: %s" % (root, err)) from err
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel `make check` jobs: one fetches
        if os.path.isdir(tests):
            return tests
        errors = []
        archive = None
        for fetch in (_download_from_pypi, _download_with_pip):
            try:
                archive = fetch(root)
                break
            except Exception as err:  # noqa: BLE001 -- every reason ends in the skip message
                errors.append("%s: %s" % (fetch.__name__.strip("_"), err))
        if archive is None:
            raise Skip("cannot fetch %s==%s (%s)" % (PACKAGE, VERSION, "; ".join(errors)))
        staging = tempfile.mkdtemp(dir=root)
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(staging, filter="data")
            else:
                tar.extractall(staging)
        os.replace(os.path.join(staging, SDIST_DIR), os.path.join(root, SDIST_DIR))
        shutil.rmtree(staging, ignore_errors=True)
    if not os.path.isdir(tests):
        raise Skip("%s has no tests/python" % archive)
    return tests


def test_files(tests_dir):
    """Test files relative to tests/python, biggest first (they take longest)."""
    found = []
    for sub in ("", "utils"):
        d = os.path.join(tests_dir, sub)
        for name in os.listdir(d):
            if name.startswith("test_") and name.endswith(".py"):
                found.append(os.path.join(sub, name) if sub else name)
    return sorted(found, key=lambda f: -os.path.getsize(os.path.join(tests_dir, f)))


# ---------------------------------------------------------------- running


def checkout_env(repo, libdir, module_dir):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(repo, "python"), HERE])
    env["TVM_FFI_LIBRARY_PATH"] = libdir
    if module_dir:
        env["TVM_FFI_MODULE_DIR"] = module_dir
    return env


def oracle_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "TVM_FFI_LIBRARY_PATH",
                        "TVM_FFI_MODULE_DIR")}
    env["PYTHONPATH"] = HERE
    return env


def run_file(python, env, tests_dir, rel, extra_args=()):
    """Run one test file in its own pytest; returns the plugin's record plus timing."""
    fd, out = tempfile.mkstemp(prefix="conformance-", suffix=".json")
    os.close(fd)
    env = dict(env, CONFORMANCE_RESULTS=out, PYTHONDONTWRITEBYTECODE="1")
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conformance_plugin",
           "-c", os.path.join(HERE, "pytest.ini"), "--rootdir", tests_dir, *extra_args,
           os.path.join(tests_dir, rel)]
    # a scratch working directory: some tests write build outputs relative to it, and the
    # cached sdist must stay as unpacked
    scratch = tempfile.mkdtemp(prefix="conformance-cwd-")
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=FILE_TIMEOUT_S)
        log = proc.stdout.decode(errors="replace")
        # 0 all passed, 1 some failed, 2 collection errors, 5 nothing collected
        crashed = proc.returncode not in (0, 1, 2, 5)
    except subprocess.TimeoutExpired as err:
        log = (err.stdout or b"").decode(errors="replace") + "\n[timed out]"
        crashed = True
    elapsed = time.monotonic() - start
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError):
        crashed = True
        data = {"outcomes": {}, "messages": {}, "collect_errors": {}, "collect_skips": [],
                "package": None, "runtimes": []}
    os.unlink(out)
    if crashed:
        # the process died (signal, timeout, internal error): every test it had not finished
        # and the file itself count as failed
        tail = log.strip().splitlines()[-1:] or ["no output"]
        data["collect_errors"][rel] = "pytest did not finish: " + tail[0][:150]
    data["file"] = rel
    data["seconds"] = elapsed
    data["log"] = log
    return data


def run_all(python, env, tests_dir, files, jobs):
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_file, python, env, tests_dir, f): f for f in files}
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            results[r["file"]] = r
            counts = {k: sum(1 for v in r["outcomes"].values() if v == k)
                      for k in ("passed", "failed", "skipped")}
            note = "  (does not collect)" if r["collect_errors"] else ""
            print("  %-42s %4d passed %4d failed %3d skipped %6.1fs%s"
                  % (r["file"], counts["passed"], counts["failed"], counts["skipped"],
                     r["seconds"], note), flush=True)
    return results


# ---------------------------------------------------------------- expectations

# "<test id>" or "<file> (<N> tests)", then an optional "  # note" (ids may contain spaces:
# parametrized ones)
ENTRY = re.compile(r"^(?P<id>.+?)(?:\s+\((?P<count>\d+|\?) tests\))?$")


def read_expectations(path):
    """{test id or file: (reason, file test count or None)} and the file's line errors."""
    entries, problems = {}, []
    reason = None
    if not os.path.exists(path):
        return entries, problems
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("[") and stripped.endswith("]"):
                reason = stripped[1:-1].strip()
                continue
            m = ENTRY.match(stripped.split("  #", 1)[0].strip())
            if m is None or reason is None:
                problems.append("%s:%d: not an entry under a [reason]: %s" % (path, lineno, line))
                continue
            count = m.group("count")
            entries[m.group("id")] = (reason, None if count in (None, "?") else int(count))
    return entries, problems


def write_expectations(path, groups, header):
    """groups: {reason: [entry line, ...]} written in a stable order, TODO groups last."""
    with open(path, "w") as f:
        f.write(header)
        for reason in sorted(groups, key=lambda r: (r.startswith(TODO), r)):
            f.write("\n[%s]\n" % reason)
            for line in sorted(groups[reason]):
                f.write(line + "\n")


def file_of(test_id):
    return test_id.split("::", 1)[0]


# ---------------------------------------------------------------- checks


def check_runtime(results, repo, libdir):
    """Every process must have used this checkout's package and only this build's runtime."""
    problems = []
    ours = os.path.realpath(os.path.join(repo, "python", "tvm_ffi"))
    ourlib = os.path.realpath(libdir)
    for rel, r in sorted(results.items()):
        pkg = r.get("package")
        if pkg is not None and not pkg.startswith(ours + os.sep):
            problems.append("%s imported tvm_ffi from %s, not %s" % (rel, pkg, ours))
        for lib in r.get("runtimes", []):
            name = os.path.basename(lib)
            ours_only = name in ("libtvm_ffi.so", "libtvm_ffi_testing.so")
            if ours_only and os.path.dirname(lib) != ourlib:
                problems.append("%s mapped %s (expected only %s)" % (rel, lib, ourlib))
    return problems


def summarize(results, expectations):
    """(passed, total, statuses) where statuses maps each id to its outcome; a file that does
    not collect counts the tests the expectations file gives it."""
    statuses = {}
    total = 0
    for rel, r in results.items():
        for test_id, outcome in r["outcomes"].items():
            statuses[test_id] = outcome
        total += len(r["outcomes"])
        if r["collect_errors"]:
            statuses[rel] = "failed"
            if not r["outcomes"]:
                total += (expectations.get(rel, (None, None))[1] or 0)
    passed = sum(1 for v in statuses.values() if v == "passed")
    return passed, total, statuses


def compare(results, expectations, files):
    """Lines describing every difference between the run and the expectations."""
    problems = []
    ran = set(files)
    _, _, statuses = summarize(results, expectations)
    for test_id, outcome in sorted(statuses.items()):
        listed = test_id in expectations
        if outcome == "failed" and not listed:
            r = results[file_of(test_id)]
            why = r["collect_errors"].get(test_id) or r["messages"].get(test_id, "")
            problems.append("unexpected failure: %s -- %s" % (test_id, why))
        elif outcome == "passed" and listed:
            problems.append("unexpected pass: %s (listed: %s)"
                            % (test_id, expectations[test_id][0]))
    for test_id, (reason, _) in sorted(expectations.items()):
        if reason.startswith(TODO):
            problems.append("unreviewed entry (give it a reason): %s" % test_id)
        r = results.get(file_of(test_id))
        if file_of(test_id) in ran and test_id not in statuses and r is not None:
            if not r["collect_skips"] and not r["collect_errors"]:
                problems.append("stale entry, no such test: %s" % test_id)
    return problems


def regenerate(path, results, expectations, oracle_counts):
    _, _, statuses = summarize(results, expectations)
    groups = {}
    for test_id, outcome in statuses.items():
        if outcome != "failed":
            continue
        entry = test_id
        if test_id in results:  # a whole file that does not collect
            count = oracle_counts.get(test_id, expectations.get(test_id, (None, None))[1])
            entry = "%s (%s tests)" % (test_id, "?" if count is None else count)
        if test_id in expectations and not expectations[test_id][0].startswith(TODO):
            groups.setdefault(expectations[test_id][0], []).append(entry)
        else:
            r = results[file_of(test_id)]
            why = r["collect_errors"].get(test_id) or r["messages"].get(test_id, "")
            reason = "%s: %s" % (TODO, file_of(test_id))
            groups.setdefault(reason, []).append("%s  # %s" % (entry, why.replace("\n", " ")))
    header = ""
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                header += line
    write_expectations(path, groups, header)


def oracle_python():
    try:
        out = subprocess.run(["sh", os.path.join(REPO, "scripts", "apache-venv.sh"), "--python"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    except subprocess.CalledProcessError:
        return None
    python = out.stdout.decode().strip() or None
    has_pytest = python and subprocess.run([python, "-c", "import pytest"],
                                           stderr=subprocess.DEVNULL).returncode == 0
    if python and not has_pytest:
        # the venv is made for the compatibility tests, which need no pytest
        subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "pytest"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return python


def oracle_count(python, tests_dir, rel):
    """How many tests the apache wheel collects in one file (None when it cannot)."""
    proc = subprocess.run([python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-c", os.path.join(HERE, "pytest.ini"), "--rootdir", tests_dir, rel],
                          cwd=tests_dir, env=oracle_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    ids = [ln for ln in proc.stdout.decode().splitlines() if "::" in ln]
    return len(ids) if ids else None


REPO = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="test files relative to the sdist's tests/python")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CONFORMANCE_JOBS", "2")))
    ap.add_argument("--expect", default=os.path.join(HERE, "expected-failures.txt"))
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--oracle", action="store_true", help="run with the apache wheel instead")
    ap.add_argument("--python", default=os.environ.get("PYTHON") or sys.executable)
    args = ap.parse_args()

    srcdir = os.environ.get("top_srcdir", REPO)
    builddir = os.environ.get("top_builddir", srcdir)
    libdir = os.environ.get("TVMFFI_LIBDIR", os.path.join(builddir, "c", ".libs"))
    try:
        tests_dir = fetch_sdist()
    except Skip as err:
        print("conformance: SKIP: %s" % err)
        return 77
    files = args.files or test_files(tests_dir)
    start = time.monotonic()
    if args.oracle:
        python = oracle_python()
        if python is None:
            print("conformance: SKIP: scripts/apache-venv.sh cannot make the apache wheel's venv")
            return 77
        print("conformance: %s==%s tests with the apache wheel (%s)" % (PACKAGE, VERSION, python))
        results = run_all(python, oracle_env(), tests_dir, files, args.jobs)
        passed, total, _ = summarize(results, {})
        print("%d passed of %d (apache wheel, %.0fs)" % (passed, total, time.monotonic() - start))
        return 0

    print("conformance: %s==%s tests against %s/python, runtime %s"
          % (PACKAGE, VERSION, srcdir, libdir))
    module_dir = os.path.join(builddir, "python", "tvm_ffi")
    env = checkout_env(srcdir, libdir, module_dir)
    results = run_all(args.python, env, tests_dir, files, args.jobs)
    expectations, problems = read_expectations(args.expect)
    problems += check_runtime(results, srcdir, libdir)
    if args.regenerate:
        oracle = oracle_python()
        counts = {}
        for rel, r in results.items():
            if r["collect_errors"] and not r["outcomes"] and oracle:
                counts[rel] = oracle_count(oracle, tests_dir, rel)
        regenerate(args.expect, results, expectations, counts)
        expectations, problems2 = read_expectations(args.expect)
        problems += problems2
        print("conformance: rewrote %s" % args.expect)
    problems += compare(results, expectations, files)
    passed, total, _ = summarize(results, expectations)
    for p in problems:
        print("conformance: " + p)
    for rel, r in sorted(results.items()):
        if r["collect_errors"] and rel not in expectations:
            print("---- %s output ----\n%s" % (rel, r["log"][-3000:]))
    print("%d passed of %d (%d listed as not passing, %.0fs)"
          % (passed, total, len(expectations), time.monotonic() - start))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
