"""The compiled module's int fast path (_ffi_src/pyint.c) against int.to_bytes/from_bytes.

The fast path reads CPython's private int layout (handles in `_h`, int arguments).  On each
edge value it must either decline (negative, 2**60 and above) or give exactly the value
int.to_bytes spells out; and ints through a call must come back unchanged.  Runs under pytest
here and, as a script, on every other CPython 3.9 to 3.13 present
(tests/python/test_pyint_pythons.sh builds the module for each).
"""

import random
import sys

import tvm_ffi
from tvm_ffi import core

LIMIT = 1 << 60  # the fast path decodes up to two 30-bit digits


def edge_values():
    vals = {0, 1, 2, 7, 255, 256, LIMIT - 1, LIMIT, LIMIT + 1, (1 << 63) - 1, 1 << 63,
            (1 << 64) - 1, 1 << 64, 1 << 90, -1, -2, -(LIMIT - 1), -LIMIT, -(1 << 63)}
    for bit in (15, 16, 29, 30, 31, 32, 33, 45, 59):
        vals.update(((1 << bit) - 1, 1 << bit, (1 << bit) + 1, -(1 << bit)))
    rnd = random.Random(20261127)
    vals.update(rnd.randrange(LIMIT) for _ in range(200))
    vals.update(rnd.randrange(1 << 30) for _ in range(50))
    return sorted(vals)


def expected(v):
    """What the fast path must give: the value for 0 <= v < 2**60 (as 8 little-endian bytes
    read back), None (declined) otherwise."""
    if not 0 <= v < LIMIT:
        return None
    return int.from_bytes(v.to_bytes(8, "little"), "little")


def check_fast_path():
    """Problems found (empty: none); which layout the interpreter got is in the message."""
    out = core.ffi.new("uint64_t*")
    problems = []
    layout_known = None
    for v in edge_values():
        v = int(str(v))  # a fresh int object, not one folded into this module's constants
        rc = core.lib.ffipy_int_fast(id(v), out)
        if rc == -1:
            layout_known = False
            break
        layout_known = True
        want = expected(v)
        got = out[0] if rc == 1 else None
        if got != want:
            problems.append("%d: fast path gave %r, int.to_bytes says %r" % (v, got, want))
    echo = tvm_ffi.get_global_func("testing.echo")
    for v in edge_values():
        if -(1 << 63) <= v < (1 << 63) and echo(v) != v:
            problems.append("%d: echo gave %r" % (v, echo(v)))
    return layout_known, problems


# where the fast path is meant to be on: a layout probe failing there is a regression
TARGETED = sys.implementation.name == "cpython" and (3, 9) <= sys.version_info[:2] <= (3, 13)


def test_int_fast_path_agrees_with_to_bytes():
    if not core.API_MODE:
        import pytest  # noqa: PLC0415 - the script form runs without pytest

        pytest.skip("ABI mode has no compiled int fast path")
    layout_known, problems = check_fast_path()
    assert not problems, problems
    assert layout_known or not TARGETED, "the int layout probe failed on a CPython it targets"


def main():
    layout_known, problems = check_fast_path()
    name = "CPython %d.%d.%d" % sys.version_info[:3]
    for p in problems:
        print("test_pyint: %s: %s" % (name, p))
    if not layout_known and TARGETED:
        print("test_pyint: %s: the int layout probe failed" % name)
        return 1
    if problems:
        return 1
    print("ok - %s: int fast path %s, %d edge values agree with int.to_bytes" % (
        name, "on" if layout_known else "off (layout unknown: generic API)", len(edge_values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
