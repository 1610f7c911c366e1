"""tvm_ffi.dataclasses.common: namedtuples of Field records that convert their values, and the
asdict/astuple steps (docs/guide-dataclasses.md §1)."""

import collections
import itertools

import pytest

from tvm_ffi.core import Object, TypeSchema
from tvm_ffi.dataclasses import Field, fields, py_class
from tvm_ffi.dataclasses.common import _asdict_inner, _astuple_inner, _make_namedtuple

_keys = itertools.count()


def test_namedtuple_converts_by_field_schema():
    @py_class("testing.common_helpers.Rec_%d" % next(_keys))
    class Rec(Object):
        count: int
        scale: float
        values: tuple[float, ...]

    T = _make_namedtuple("RecFields", fields(Rec))
    v = T(True, 2, [1])
    assert T.__bases__ == (tuple,) and T._fields == ("count", "scale", "values")
    assert (type(v.count), type(v.scale), type(v.values[0])) == (int, float, float)
    assert type(T._make([1, 2, []])) is T and type(v._replace(scale=5).scale) is float
    with pytest.raises(TypeError, match=r"RecFields\.values: .*element \[0\]") as err:
        T(1, 2, ["x"])
    assert isinstance(err.value.__cause__, TypeError)
    with pytest.raises(TypeError):
        T(1, 2)  # the namedtuple's own argument error
    with pytest.raises(ValueError):
        _make_namedtuple("Bad", (Field("for", TypeSchema("int")),))


def test_defaultdict_keeps_its_factory():
    dd = collections.defaultdict(list, a=[1])
    for result in (_asdict_inner(dd, dict), _astuple_inner(dd, tuple)):
        assert type(result) is collections.defaultdict and result.default_factory is list
        assert dict(result) == {"a": [1]}
