#!/usr/bin/env python3
"""Atheris target: random nested Python values through testing.echo must come back equal.

Values: None, bool, int (int64 and beyond), float (nan, inf, -0.0), str (any code point,
lone surrogates included), bytes, lists, tuples, dicts (hashable keys), Device and dtype.
A value the FFI cannot carry must raise one of the documented kinds (OverflowError, a
UnicodeEncodeError for surrogates, TypeError); anything else -- another exception, a
mismatch, a crash -- is a finding.  Run by `make fuzz` (see fuzz/Makefile.inc).
"""

import math
import sys

import atheris

with atheris.instrument_imports():
    import tvm_ffi

echo = tvm_ffi.get_global_func("testing.echo")
MAX_DEPTH = 4
DTYPES = ["int8", "uint16", "float32", "bfloat16", "bool", "float8_e4m3fn", "complex64",
          "int32x4", "handle"]


def make_value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 12 if depth < MAX_DEPTH else 7)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
    if kind == 3:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 12))  # up to 96 bits: past int64
    if kind == 4:
        return fdp.ConsumeRegularFloat() if fdp.ConsumeBool() else fdp.ConsumeFloat()
    if kind == 5:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 40))
    if kind == 6:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 40))
    if kind == 7:
        return tvm_ffi.dtype(fdp.PickValueInList(DTYPES)) if fdp.ConsumeBool() else tvm_ffi.Device(
            fdp.ConsumeIntInRange(1, 16), fdp.ConsumeIntInRange(-(2**31), 2**31 - 1))
    n = fdp.ConsumeIntInRange(0, 5)
    if kind in (8, 9):
        return [make_value(fdp, depth + 1) for _ in range(n)]
    if kind == 10:
        return tuple(make_value(fdp, depth + 1) for _ in range(n))
    return {make_key(fdp): make_value(fdp, depth + 1) for _ in range(n)}


def make_key(fdp):
    kind = fdp.ConsumeIntInRange(0, 4)
    if kind == 0:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 12))
    if kind == 1:
        return fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
    if kind == 2:
        return None
    if kind == 3:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 12))
    return fdp.ConsumeRegularFloat()  # no nan: nan != nan makes dicts incomparable


def check_equal(sent, got, path="value"):
    """Raises AssertionError when got is not what echoing sent must give."""
    if isinstance(sent, tvm_ffi.dtype):
        assert isinstance(got, tvm_ffi.dtype) and str(got) == str(sent), (path, sent, got)
    elif sent is None or isinstance(sent, (bool, int)):
        assert type(got) is type(sent) and got == sent, (path, sent, got)
    elif isinstance(sent, float):
        assert type(got) is float, (path, sent, got)
        assert (math.isnan(sent) and math.isnan(got)) or (
            got == sent and math.copysign(1, got) == math.copysign(1, sent)), (path, sent, got)
    elif isinstance(sent, (str, bytes)):
        assert isinstance(got, type(sent)) and got == sent, (path, sent, got)
    elif isinstance(sent, tvm_ffi.Device):
        assert isinstance(got, tvm_ffi.Device) and got == sent, (path, sent, got)
    elif isinstance(sent, (list, tuple)):
        assert isinstance(got, tvm_ffi.Array) and len(got) == len(sent), (path, sent, got)
        for i, (s, g) in enumerate(zip(sent, got)):
            check_equal(s, g, "%s[%d]" % (path, i))
    elif isinstance(sent, dict):
        assert isinstance(got, tvm_ffi.Map) and len(got) == len(sent), (path, sent, got)
        for k, v in sent.items():
            check_equal(v, got[k], "%s[%r]" % (path, k))
    else:
        raise AssertionError("generator made %r" % (sent,))


def fits(value):
    """False when value holds something the FFI refuses by design."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, str):
        return not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, (list, tuple)):
        return all(fits(v) for v in value)
    if isinstance(value, dict):
        return all(fits(k) and fits(v) for k, v in value.items())
    return True


def TestOneInput(data):  # noqa: N802 - atheris' name
    fdp = atheris.FuzzedDataProvider(data)
    value = make_value(fdp)
    try:
        got = echo(value)
    except (OverflowError, UnicodeEncodeError) as e:
        assert not fits(value), "refused a value that fits: %r (%r)" % (value, e)
        return
    check_equal(value, got)  # also when it does not fit: a runtime with big integers carries them


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
