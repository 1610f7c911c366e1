"""pytest plugin loaded (``-p conformance_plugin``) into each run of an upstream test file.

It records one outcome per test id and, at the end of the session, which ``tvm_ffi`` package
and which ``libtvm_ffi*.so`` files the process used, into the JSON file named by
``$CONFORMANCE_RESULTS``.  ``run_conformance.py`` reads it; nothing here decides pass or fail.
"""

import json
import os
import sys

_outcomes = {}  # test id -> "passed" | "failed" | "skipped"
_messages = {}  # test id -> first line of the failure, for regenerating the expectations
_collect_errors = {}  # file id -> first line of the collection error
_collect_skips = set()


def _first_line(report):
    text = str(report.longrepr or "")
    # the last "E   ..." line is the exception; fall back to the last non-empty line
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errors = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    line = errors[-1] if errors else (lines[-1] if lines else "")
    return line[:200]


def pytest_collectreport(report):
    if report.failed:
        _collect_errors[report.nodeid] = _first_line(report)
    elif report.skipped:
        _collect_skips.add(report.nodeid)


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    previous = _outcomes.get(nodeid)
    if report.failed:
        # a failure in any phase (setup, call, teardown) fails the test
        if previous != "failed":
            _messages[nodeid] = _first_line(report)
        _outcomes[nodeid] = "failed"
    elif report.skipped:
        # pytest reports an xfail as skipped: upstream marks it, so it is neutral here too
        if previous is None:
            _outcomes[nodeid] = "skipped"
    elif report.when == "call" and previous is None:
        _outcomes[nodeid] = "passed"


def _mapped_runtimes():
    """Paths of the libtvm_ffi*.so files mapped into this process."""
    found = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)  # address perms offset dev inode [path]
                path = fields[5].strip() if len(fields) == 6 else ""
                if os.path.basename(path).startswith("libtvm_ffi"):
                    found.add(os.path.realpath(path))
    except OSError:
        pass
    return sorted(found)


def pytest_sessionfinish(session):
    out = os.environ.get("CONFORMANCE_RESULTS")
    if not out:
        return
    module = sys.modules.get("tvm_ffi")
    data = {
        "outcomes": _outcomes,
        "messages": _messages,
        "collect_errors": _collect_errors,
        "collect_skips": sorted(_collect_skips),
        "package": os.path.realpath(module.__file__) if module is not None else None,
        "runtimes": _mapped_runtimes(),
    }
    with open(out, "w") as f:
        json.dump(data, f)
