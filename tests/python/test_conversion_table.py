"""One conversion table, every path (docs/python.md §6, HACKING.md "Python package").

The same cases run through each way the package converts values: API mode (the compiled fast
path), ABI mode (``_abi/``, the fallback without it) and PyPy (this file is in the suite
``run_pypy.sh`` runs).  Each case states its expected outcome literally, so
every path is held to the same results, error types and messages; ``test_paths_agree`` also runs
the cases in a subprocess per CPython path and compares the outcomes with this process's.

The rest checks that the table is the only place the rules are written: the generated C header
and the Python paths read ``_rules.py``, and no path keeps its own map from type indices or
Python types to conversions.
"""

import collections
import ctypes
import enum
import fractions
import gc
import json
import os
import re
import subprocess
import sys
import weakref

import pytest

import tvm_ffi
from tvm_ffi import _conversion, _loader, _rules, core

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(os.path.abspath(core.__file__))


class _Pair(collections.namedtuple("_Pair", "a b")):
    pass


class _Color(enum.IntEnum):
    RED = 3


class _IntLike:
    def __tvm_ffi_int__(self):
        return 7


class _FloatLike:
    def __tvm_ffi_float__(self):
        return 2.5


class _ValueLike:
    def __tvm_ffi_value__(self):
        return (1, "two")


class _BadObject:
    def __tvm_ffi_object__(self):
        return 1


class _BadDLPack:
    def __dlpack__(self, **kwargs):
        return 5


def _nested(depth):
    v = 0
    for _ in range(depth):
        v = [v]
    return v


# (name, value factory, expected outcome).  Outcomes: (result type name, plain value), or
# ("raises", exception type name, message).  Plain values: containers as lists of pairs/items.
CASES = (
    ("none", lambda: None, ("NoneType", None)),
    ("true", lambda: True, ("bool", True)),
    ("false", lambda: False, ("bool", False)),
    ("int", lambda: -5, ("int", -5)),
    ("int64 max", lambda: 2**63 - 1, ("int", 2**63 - 1)),
    ("int64 min", lambda: -(2**63), ("int", -(2**63))),
    ("big int", lambda: 2**70 + 1, ("int", 2**70 + 1)),
    ("float", lambda: 1.5, ("float", 1.5)),
    ("small str", lambda: "abc", ("str", "abc")),
    ("empty str", lambda: "", ("str", "")),
    ("str 7 bytes", lambda: "\u00e9" * 3 + "x", ("str", "\u00e9" * 3 + "x")),
    ("long str", lambda: "x" * 20, ("String", "x" * 20)),
    ("small bytes", lambda: b"ab", ("bytes", b"ab".hex())),
    ("long bytes", lambda: b"y" * 20, ("Bytes", (b"y" * 20).hex())),
    ("bytearray", lambda: bytearray(b"z" * 9), ("Bytes", (b"z" * 9).hex())),
    ("tuple", lambda: (1, "a"), ("Array", [1, "a"])),
    ("list", lambda: [1.5, None], ("Array", [1.5, None])),
    ("namedtuple", lambda: _Pair(1, 2), ("Array", [1, 2])),
    ("dict", lambda: {"k": 1}, ("Map", [["k", 1]])),
    ("nested", lambda: [[1], {"a": [2]}], ("Array", [[1], [["a", [2]]]])),
    ("int enum", lambda: _Color.RED, ("int", 3)),
    ("fraction", lambda: fractions.Fraction(1, 4), ("float", 0.25)),
    ("__tvm_ffi_int__", _IntLike, ("int", 7)),
    ("__tvm_ffi_float__", _FloatLike, ("float", 2.5)),
    ("__tvm_ffi_value__", _ValueLike, ("Array", [1, "two"])),
    ("dtype", lambda: tvm_ffi.dtype("float32"), ("dtype", "float32")),
    ("device", lambda: tvm_ffi.Device("cpu", 0), ("Device", "cpu:0")),
    ("opaque pointer", lambda: ctypes.c_void_p(4096), ("c_void_p", 4096)),
    ("shape", lambda: tvm_ffi.Shape((2, 3)), ("Shape", [2, 3])),
    ("exception", lambda: ValueError("boom"), ("Error", "ValueError: boom")),
    ("bad __tvm_ffi_object__", _BadObject,
     ("raises", "TypeError", "__tvm_ffi_object__ must return an Object, got 'int'")),
    ("bad __dlpack__", _BadDLPack,
     ("raises", "ValueError", "Expect a dltensor field: __dlpack__() returned int, not a PyCapsule")),
    ("too deep", lambda: _nested(70),
     ("raises", "RecursionError", "tvm_ffi: argument nesting is too deep")),
)

# values that come back as the very object passed (kinds with identity, opaque objects)
IDENTITY_CASES = (
    ("array", lambda: tvm_ffi.convert([1, 2])),
    ("map", lambda: tvm_ffi.convert({"a": 1})),
    ("function", lambda: tvm_ffi.convert(lambda: 1)),
    ("opaque object", object),
)


def _plain(v):
    """A JSON-comparable picture of a converted value."""
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, tvm_ffi.Map):
        return sorted([_plain(k), _plain(x)] for k, x in v.items())
    if isinstance(v, (tvm_ffi.Array, tvm_ffi.Shape, list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, ctypes.c_void_p):
        return v.value
    if isinstance(v, core.Error):
        return "%s: %s" % (v.kind, v.message)
    if isinstance(v, (tvm_ffi.dtype, tvm_ffi.Device)):
        return str(v)
    return v


def _outcome(route, make):
    try:
        r = route(make())
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ("raises", type(e).__name__, str(e))
    return (type(r).__name__, _plain(r))


def _routes():
    echo = tvm_ffi.get_global_func("testing.echo")
    apply = tvm_ffi.get_global_func("testing.apply")
    # a call's argument and result; and through a Python callback (argument as a view, the
    # callback's result packed to an owned value and converted back)
    return {"call": echo, "callback": lambda v: apply(lambda x: x, v)}


def outcomes():
    """{route: [[case, outcome], ...]} of every case on every route (also run by subprocesses)."""
    out = {}
    for route_name, route in _routes().items():
        rows = [[name, list(_outcome(route, make))] for name, make, _ in CASES]
        for name, make in IDENTITY_CASES:
            v = make()
            rows.append([name, route(v) is v])
        out[route_name] = rows
    return out


@pytest.mark.parametrize("route", ["call", "callback"])
@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_case(route, name, make, expected):
    assert _outcome(_routes()[route], make) == expected


@pytest.mark.parametrize("route", ["call", "callback"])
@pytest.mark.parametrize("name,make", IDENTITY_CASES, ids=[c[0] for c in IDENTITY_CASES])
def test_identity(route, name, make):
    v = make()
    assert _routes()[route](v) is v


@pytest.mark.parametrize("name,make,expected", CASES, ids=[c[0] for c in CASES])
def test_convert_follows_table(name, make, expected):
    """tvm_ffi.convert takes its answer for a type from the table's CONVERT column."""
    v = make()
    if expected[0] == "raises":
        return  # convert() only wraps; the call refuses (above)
    rule = _rules.ARG_RULES[_rule_code(type(v))]
    action = _rules.CONVERT[rule]
    r = tvm_ffi.convert(v)
    if action == "same" or (action == "object" and isinstance(v, core.Object)):
        assert r is v
    elif action == "array":
        assert isinstance(r, tvm_ffi.Array)
    elif action == "map":
        assert isinstance(r, tvm_ffi.Map)
    elif action == "string":
        assert type(r) is tvm_ffi.core.String and r == v
    elif action == "bytes":
        assert type(r) is tvm_ffi.core.Bytes and r == v


def test_slow_rows_name_known_steps():
    """Every SLOW_ROWS row names a step of _conversion and an answer convert() knows."""
    from tvm_ffi import _conversion  # noqa: PLC0415

    answers = set(_rules.CONVERT.values()) - {"slow", "object"} | {"step", "view", "next"}
    for test, step, answer in _rules.SLOW_ROWS:
        assert step in _conversion._STEPS and answer in answers, (test, step, answer)
    assert set(_conversion._STEPS) == {row[1] for row in _rules.SLOW_ROWS}
    assert _rules.SLOW_ROWS[-1][0] == ("derives", "object")  # every type has a row


def test_convert_and_call_pick_the_same_row(echo):
    """A type two rows match takes the first for a call and for convert alike."""

    class Both(tvm_ffi.ObjectConvertible):
        def asobject(self):
            return tvm_ffi.convert([1])

        def __call__(self):
            return 5

    assert echo(Both())() == 5
    r = tvm_ffi.convert(Both())
    assert isinstance(r, tvm_ffi.Function) and r() == 5


def _fresh_class(i):
    """A class made at run time: an int subclass (the INT row) or a plain class (the
    opaque-object row), alternating, so that a class freed and another made at its address
    would be converted by the wrong row if a stale rule were kept."""
    if i % 2:
        return type("Number%d" % i, (int,), {})
    return type("Plain%d" % i, (), {})


def test_classified_types_are_not_kept_alive(echo):
    """The per-type rule caches let classes go: a program making classes at run time does not
    grow without bound (the compiled module's table forgets a class when it is freed, the
    Python memos start again past _conversion._TYPE_MEMO_MAX entries), and a class made at a
    freed one's address gets its own rule."""
    from tvm_ffi import _conversion  # noqa: PLC0415

    made = _conversion._TYPE_MEMO_MAX * 2 + 100
    refs = []
    for i in range(made):
        cls = _fresh_class(i)
        value = cls(7) if i % 2 else cls()
        out = echo(value)
        if i % 2:
            assert type(out) is int and out == 7
        else:
            assert out is value  # the opaque-object row hands the same object back
        refs.append(weakref.ref(cls))
        del cls, value, out
    # three: on PyPy an opaque object's wrapper is finalised by one collection, its __del__
    # drops the handle (and the callback table's entry), and only a later one frees the class
    for _ in range(3):
        gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive <= _conversion._TYPE_MEMO_MAX + 1, "%d of %d classes kept alive" % (alive, made)


def _rule_code(tp):
    exact = dict(_rules.exact_types())
    rule = exact[tp] if tp in exact else _conversion._classify(tp)
    return rule[0] if isinstance(rule, tuple) else rule


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the CPython paths: API/ABI mode")
def test_paths_agree():
    """API mode and ABI mode give this process's outcomes, messages included."""
    here = outcomes()
    code = ("import json, sys; sys.path.insert(0, %r); import test_conversion_table as t; "
            "print(json.dumps(t.outcomes()))" % HERE)
    for env in ({"TVM_FFI_USE_ABI_MODE": "0"}, {"TVM_FFI_USE_ABI_MODE": "1"}):
        full = dict(os.environ, **env)
        p = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout.splitlines()[-1]) == json.loads(json.dumps(here)), env


# ---------------------------------------------------------------------------------------------
# one source: the table, read by every path


def _read(*parts):
    with open(os.path.join(PKG, *parts), encoding="utf-8") as f:
        return f.read()


def test_table_is_consistent():
    kinds = set(_rules.RESULT_KINDS)
    assert set(_rules.RESULTS.values()) <= kinds
    assert {_rules.DEFAULT_OBJECT, _rules.DEFAULT_POD} <= kinds
    assert set(_rules.IDENTITY) | set(_rules.CARRIES_API) | set(_rules.VIEW_ONLY) <= kinds
    rules = set(_rules.ARG_RULES)
    assert {r for _, r in _rules.EXACT_TYPES} <= rules
    assert {r for _, r in _rules.CLASSIFY} <= rules
    assert set(_rules.CONVERT) == rules
    for name in _rules.RESULTS:
        assert isinstance(getattr(_loader.lib, name), int), name


def test_python_paths_read_the_table():
    """Result kinds and identity as the Python paths see them come from the table."""
    kinds, codes = _rules.resolve(_loader.lib)
    for name, kind in _rules.RESULTS.items():
        assert kinds[getattr(_loader.lib, name)] == codes[kind]
    for tidx in range(len(kinds)):
        kind = _rules.RESULT_KINDS[kinds[tidx]]
        assert _conversion._tieable(tidx) == (kind in _rules.IDENTITY), tidx
    for tp, code in _rules.exact_types():
        assert _rule_code(tp) == code


def test_c_header_is_generated_from_the_table():
    h = _rules.c_header()
    for i, name in enumerate(_rules.ARG_RULES):
        assert "RULE_%s = %d," % (name, i) in h
    for name, kind in _rules.RESULTS.items():
        assert "[%s] = RES_%s," % (name, kind) in h
    assert "#define RULES_FINGERPRINT %d" % _rules.fingerprint() in h


def test_changed_table_changes_fingerprint(monkeypatch):
    before = _rules.fingerprint()
    monkeypatch.setitem(_rules.RESULTS, "kTVMFFIShape", "OBJECT")
    assert _rules.fingerprint() != before


@pytest.mark.skipif(not _loader.API_MODE, reason="the compiled module (API mode)")
def test_module_refuses_another_table():
    cfg = _loader.ffi.new("ffipy_config*")
    cfg.rules_fingerprint = _rules.fingerprint() ^ 1
    assert _loader.lib.ffipy_init(cfg) == -2


# Decisions on type indices or rule codes written outside the table.  C: a `case` or comparison
# on a kTVMFFI type index name, a RULE_/RES_ code defined by hand, a builtin type picked by hand
# (`tp == &PyFloat_Type`).  Python: a type index compared with a number (`tidx == 70`,
# `t in (71, 72)`), a builtin type picked by hand (`tp is float`), rule codes counted by hand
# (`range(7)`).
_C_DECISION = re.compile(r"case kTVMFFI\w+|[=!]= kTVMFFI(?!StaticObjectBegin|None\b)\w+|"
                         r"\b(RULE|RES)_[A-Z_]+ = \d|"
                         r"\btp == &Py(Long|Float|Bool|Unicode|Bytes|Tuple|List|Dict)_Type")
_PY_DECISION = re.compile(r"\b(t|tidx|type_index|code|kind)\s*(==|!=|>=|in)\s*\(?\d|"
                          r"\btp is (bool|float|str|bytes|list|tuple|dict)\b|"
                          r"\b(t|tidx|type_index|code|kind)\s*<\s*[1-9]|"
                          r"RULE_\w+(, RULE_\w+)* = range\(")


@pytest.mark.parametrize("path", ["_ffi_src/pack.c", "_ffi_src/results.c",
                                  "_ffi_src/identity.c", "_ffi_src/binding.h"])
def test_c_path_has_no_rules_of_its_own(path):
    found = [m.group(0) for m in _C_DECISION.finditer(_read(path))]
    assert not found, "%s decides by type index itself: %s" % (path, found)


@pytest.mark.parametrize("path", ["_abi.py", "_abi_call.py", "_abi_results.py",
                                  "_abi_callbacks.py", "_abi_objects.py", "_abi_dlpack.py",
                                  "_convert.py", "core.py", "_conversion.py", "_base.py",
                                  "_values.py", "_function.py", "_tensor.py"])
def test_python_path_has_no_rules_of_its_own(path):
    if not os.path.exists(os.path.join(PKG, path)):
        pytest.skip("%s is not in this tree" % path)
    found = [m.group(0) for m in _PY_DECISION.finditer(_read(path))]
    assert not found, "%s decides by type index itself: %s" % (path, found)
