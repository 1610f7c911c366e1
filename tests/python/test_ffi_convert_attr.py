"""The `__ffi_convert__` type attributes (docs/abi.md §12.6): what the runtime registers for its
core object types, what a fixture's def_convert registers, and TypeSchema.convert using them."""

import pytest

import tvm_ffi
from tvm_ffi.core import TypeSchema, _lookup_type_attr, _object_type_key_to_index, _to_py_class_value
from tvm_ffi.testing import TestIntPair

CORE = ["ffi.Object", "ffi.String", "ffi.Bytes", "ffi.Error", "ffi.Function", "ffi.Shape",
        "ffi.Tensor", "ffi.Array", "ffi.List", "ffi.Map", "ffi.Dict", "ffi.IntEnum", "ffi.StrEnum"]


def convert_fn(key):
    return _lookup_type_attr(_object_type_key_to_index(key), "__ffi_convert__")


@pytest.mark.parametrize("key", CORE + ["testing.TestIntPair", "testing.TestEnumVariant"])
def test_registered(key):
    assert isinstance(convert_fn(key), tvm_ffi.Function)


def test_not_registered_without_def_convert():
    assert convert_fn("testing.TestObjectBase") is None


def test_widening_casts():
    shape = convert_fn("ffi.Shape")
    assert type(shape([1, True])) is tvm_ffi.Shape and tuple(shape([1, True])) == (1, 1)
    assert tuple(shape(tvm_ffi.List([3, 4]))) == (3, 4) and tuple(shape(())) == ()
    arr = convert_fn("ffi.Array")(tvm_ffi.List([1, "a"]))
    assert type(arr) is tvm_ffi.Array and list(arr) == [1, "a"]
    lst = convert_fn("ffi.List")(tvm_ffi.Array([1, 2]))
    assert type(lst) is tvm_ffi.List and list(lst) == [1, 2]
    m = convert_fn("ffi.Map")(tvm_ffi.Dict({"k": 1, "j": [2]}))
    assert type(m) is tvm_ffi.Map and dict(m)["k"] == 1 and list(dict(m)["j"]) == [2]
    d = convert_fn("ffi.Dict")(tvm_ffi.Map({1: 2}))
    assert type(d) is tvm_ffi.Dict and dict(d) == {1: 2}
    assert convert_fn("ffi.String")("x" * 40) == "x" * 40
    assert convert_fn("ffi.Bytes")(b"y" * 40) == b"y" * 40


def test_instances_pass_and_nullable_refs_take_none():
    pair = TestIntPair(1, 2)
    assert convert_fn("ffi.Object")(pair).same_as(pair)
    assert convert_fn("testing.TestIntPair")(pair).same_as(pair)
    for key in ("ffi.Object", "ffi.Function", "ffi.Tensor"):
        assert convert_fn(key)(None) is None


@pytest.mark.parametrize("key, value, got, want", [
    ("ffi.Shape", [1, "x"], "ffi.Array", "ffi.Shape"),
    ("ffi.Shape", [1.5], "ffi.Array", "ffi.Shape"),
    ("ffi.Shape", None, "None", "ffi.Shape"),
    ("ffi.Array", {1: 2}, "ffi.Map", "Array<Any>"),
    ("ffi.Map", [1], "ffi.Array", "Map<Any, Any>"),
    ("ffi.String", b"b", "ffi.SmallBytes", "str"),
    ("ffi.Object", 5, "int", "ffi.Object"),
    ("ffi.Error", None, "None", "ffi.Error"),
    ("ffi.IntEnum", 1, "int", "ffi.IntEnum"),
    ("testing.TestIntPair", [1, 2], "ffi.Array", "testing.TestIntPair"),
])
def test_cast_errors(key, value, got, want):
    with pytest.raises(TypeError, match=f"^Cannot cast from `{got}` to `{want}`$"):
        convert_fn(key)(value)


def test_arity_error():
    with pytest.raises(TypeError, match="Expected 1 but got 2 arguments"):
        convert_fn("ffi.Shape")(1, 2)


def test_type_schema_convert_builds_shape():
    s = TypeSchema("ffi.Shape")
    for value in ([1, 2, 3], tvm_ffi.List([1, 2, 3]), tvm_ffi.Array([1, 2, 3])):
        out = _to_py_class_value(s.convert(value))
        assert isinstance(out, tvm_ffi.Shape) and tuple(out) == (1, 2, 3)
    with pytest.raises(TypeError) as info:
        s.convert([1, "x"])
    text = str(info.value)
    assert "expected ffi.Shape, got list" in text
    assert "\n  __ffi_convert__ failed:\n    Cannot cast from `ffi.Array` to `ffi.Shape`" in text
