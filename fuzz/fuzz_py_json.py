#!/usr/bin/env python3
"""Atheris target: JSON text through ffi.json.Parse and the JSON graph reader.

Input is either raw text (any bytes, decoded with surrogateescape) or a JSON graph built
from the input (nodes of random types, data of random JSON values, numbers at and past the
float64 range, shared and out-of-range node indices).  Properties:
  - ffi.json.Parse returns a value or raises ValueError (never another kind, never a crash);
  - where Python's json module reads the text as finite numbers, ffi.json.Parse agrees
    on success or failure (Infinity/NaN, which only ours accepts, are left out);
  - tvm_ffi.serialization.from_json_graph_str returns a value or raises ValueError,
    TypeError or RuntimeError (a graph that names an unknown type or a bad field);
  - the raised-error slot is clean after every call.
Run by `make fuzz-python` (see fuzz/Makefile.inc).
"""

import json
import math
import re
import sys

import atheris

with atheris.instrument_imports():
    import tvm_ffi
    from tvm_ffi import serialization

from fuzz_py_common import check_slot  # noqa: E402 - after the instrumented imports

parse = tvm_ffi.get_global_func("ffi.json.Parse")
SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
TYPES = ["None", "bool", "int", "float", "ffi.String", "ffi.Bytes", "ffi.Array", "ffi.Map",
         "ffi.Shape", "DataType", "Device", "testing.TestIntPair", "ffi.Function", "no.such"]
NUMBERS = ["0", "-0.0", "1e308", "1e309", "-1e999", "1e-400", "4.9e-324", "2.2250738585072011e-308",
           "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1" * 400,
           "9" * 5000, "0e999", "1.5", "01", "1.", "-", "1e"]


def json_value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 8 if depth < 3 else 5)
    if kind == 0:
        return fdp.PickValueInList(NUMBERS)
    if kind == 1:
        return str(fdp.ConsumeIntInRange(-(2**70), 2**70))
    if kind == 2:
        return json.dumps(fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 12)))
    if kind == 3:
        return fdp.PickValueInList(["null", "true", "false", "[]", "{}"])
    if kind == 4:
        return repr(fdp.ConsumeRegularFloat())
    if kind == 5:
        return str(fdp.ConsumeIntInRange(-3, 12))  # a plausible node index
    n = fdp.ConsumeIntInRange(0, 4)
    if kind in (6, 7):
        return "[" + ",".join(json_value(fdp, depth + 1) for _ in range(n)) + "]"
    return "{" + ",".join("%s:%s" % (json.dumps(fdp.ConsumeUnicode(6)), json_value(fdp, depth + 1))
                          for _ in range(n)) + "}"


def graph_text(fdp):
    nodes = []
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        fields = ['"type":%s' % json.dumps(fdp.PickValueInList(TYPES))]
        if fdp.ConsumeBool():
            fields.append('"data":%s' % json_value(fdp))
        nodes.append("{" + ",".join(fields) + "}")
    root = str(fdp.ConsumeIntInRange(-1, 6)) if fdp.ConsumeBool() else json_value(fdp)
    return '{"root_index":%s,"nodes":[%s]}' % (root, ",".join(nodes))


def python_reads_finite(text):
    """True/False: Python's json module reads text (with numbers float64 holds) or refuses
    it; None when the comparison says nothing (NaN/Infinity, numbers ours refuses as upstream
    does: past float64, rounded to 0.0 or a subnormal, huge integers; recursion)."""
    lossy = []

    def as_float(t):
        x = float(t)
        if math.isinf(x) or abs(x) < sys.float_info.min:
            lossy.append(t)
        return x

    def as_int(t):
        if len(t) > 300:
            lossy.append(t)
        return 0

    def constant(c):
        raise OverflowError(c)

    try:
        json.loads(text, parse_float=as_float, parse_int=as_int, parse_constant=constant)
    except (ValueError, OverflowError, RecursionError):
        return None if "Infinity" in text or "NaN" in text else False
    return None if lossy else True


def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 2)
    if mode == 0:
        text = fdp.ConsumeBytes(fdp.remaining_bytes()).decode("utf-8", "surrogateescape")
    elif mode == 1:
        text = json_value(fdp)
    else:
        text = graph_text(fdp)
    try:
        parse(text)
        ours = True
    except ValueError:
        ours = False
    except UnicodeEncodeError:  # a lone surrogate cannot reach the runtime as UTF-8
        return
    check_slot()
    # a \uD800-\uDFFF escape outside a pair ours refuses as upstream does; Python keeps it
    theirs = python_reads_finite(text) if text.isascii() and not SURROGATE.search(text) else None
    if theirs is not None and "\x00" not in text:
        assert ours == theirs, ("ffi.json.Parse and json.loads disagree", text[:200], ours)
    try:
        serialization.from_json_graph_str(text)
    except (ValueError, TypeError, RuntimeError):
        pass
    check_slot()


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
