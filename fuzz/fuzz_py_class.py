#!/usr/bin/env python3
"""Atheris target: py_class field descriptors with hostile values.

Classes defined here (typed, optional, container, object and Any fields; a frozen one; a
subclass) get random Python values through every writer: the constructor (positional and
keyword), attribute assignment, dataclasses.replace and copy.  Properties:
  - a write succeeds or raises TypeError, ValueError, OverflowError, AttributeError or
    FrozenInstanceError (never another kind, never a crash);
  - a value written to an int, float, bool or str field reads back equal, of the field's type;
  - a failed write leaves the field's old value; the raised-error slot is clean;
  - repr, ==, copy.deepcopy and the JSON graph round trip of a built object work or raise
    one of the kinds above (the graph of an object with Any fields may hold values it
    cannot write).
Run by `make fuzz-python` (see fuzz/Makefile.inc).
"""

import copy
import sys
import typing
import uuid

import atheris

with atheris.instrument_imports():
    import tvm_ffi
    from tvm_ffi import dataclasses as dc
    from tvm_ffi import serialization

from fuzz_py_common import check_slot  # noqa: E402 - after the instrumented imports

REFUSALS = (TypeError, ValueError, OverflowError, AttributeError, dc.FrozenInstanceError)


def _key(name):
    return "testing.fuzz_py_class.%s_%s" % (name, uuid.uuid4().hex[:8])


@dc.py_class(_key("Typed"), eq=True)
class Typed(tvm_ffi.Object):
    i: int = 0
    f: float = 0.0
    b: bool = False
    s: str = ""
    o: typing.Optional[int] = None
    arr: typing.Optional[tvm_ffi.Array] = None
    m: typing.Optional[tvm_ffi.Map] = None
    anything: typing.Any = None


@dc.py_class(_key("Child"))
class Child(Typed):
    parent: typing.Optional[Typed] = None
    tag: str = dc.field(default="t", kw_only=True)


@dc.py_class(_key("Frozen"), frozen=True)
class Frozen(tvm_ffi.Object):
    x: int = 0
    y: typing.Optional[str] = None


CLASSES = [Typed, Child, Frozen]
SCALAR = {"i": int, "f": float, "b": bool, "s": str, "x": int}


def value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 13 if depth < 2 else 9)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-(2**63), 2**63 - 1)
    if kind == 3:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(8, 16))  # past int64
    if kind == 4:
        return fdp.ConsumeFloat()
    if kind == 5:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 16))
    if kind == 6:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 16))
    if kind == 7:
        return fdp.PickValueInList([object(), type, len, 1j, Ellipsis, NotImplemented])
    if kind == 8:
        return tvm_ffi.Device(1, 0) if fdp.ConsumeBool() else tvm_ffi.dtype("int8")
    if kind == 9:
        return Typed(i=fdp.ConsumeIntInRange(-5, 5))
    n = fdp.ConsumeIntInRange(0, 3)
    if kind == 10:
        return [value(fdp, depth + 1) for _ in range(n)]
    if kind == 11:
        items = [value(fdp, depth + 1) for _ in range(n)]
        try:
            return tvm_ffi.Array(items)
        except REFUSALS:  # e.g. a lone surrogate (UnicodeEncodeError, a ValueError)
            return items
    if kind == 12:
        return {fdp.ConsumeUnicode(4): value(fdp, depth + 1) for _ in range(n)}
    return Frozen(x=fdp.ConsumeIntInRange(0, 9))


def field_names(cls):
    return [f.name for f in dc.fields(cls)]


def check_read_back(obj, name, v):
    want = SCALAR.get(name)
    if want is None or type(v) is not want:
        return
    got = getattr(obj, name)
    # str fields may read back as tvm_ffi.String, a str subclass
    assert isinstance(got, want) and (got == v or (v != v and got != got)), (name, v, got)


def build(fdp, cls):
    names = field_names(cls)
    args = [value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 2))]
    kwargs = {}
    for _ in range(fdp.ConsumeIntInRange(0, 3)):
        name = fdp.PickValueInList(names + ["nope"])
        kwargs[name] = value(fdp)
    try:
        obj = cls(*args, **kwargs)
    except REFUSALS:
        return None
    for name, v in kwargs.items():
        check_read_back(obj, name, v)
    return obj


def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    cls = fdp.PickValueInList(CLASSES)
    obj = build(fdp, cls)
    check_slot()
    if obj is None:
        return
    names = field_names(cls)
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        name = fdp.PickValueInList(names)
        v = value(fdp)
        old = getattr(obj, name)
        how = fdp.ConsumeIntInRange(0, 1)
        try:
            if how == 0:
                setattr(obj, name, v)
                check_read_back(obj, name, v)
            else:
                check_read_back(dc.replace(obj, **{name: v}), name, v)
        except REFUSALS:
            after = getattr(obj, name)
            assert after is old or after == old or old != old, (name, old, after)
        check_slot()
    try:
        repr(obj)
        assert obj == obj or cls is not Typed
        copy.deepcopy(obj)
        back = serialization.from_json_graph_str(serialization.to_json_graph_str(obj))
        assert type(back) is cls, (type(back), cls)
    except REFUSALS + (RuntimeError,):
        pass
    check_slot()


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
