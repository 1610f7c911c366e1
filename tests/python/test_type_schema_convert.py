"""TypeSchema.from_annotation / check_value / convert (docs/guide-dataclasses.md §1): the conversion
rules of an FFI call applied to one value."""

import ctypes
import typing
from typing import Callable, Optional, Union

import pytest

import tvm_ffi
from tvm_ffi import core
from tvm_ffi.core import CAny, TypeSchema, _to_py_class_value
from tvm_ffi.testing import TestIntPair

A = TypeSchema.from_annotation


@pytest.mark.parametrize("ann, text", [
    (int, "int"), (Optional[str], "str | None"), (Union[int, str], "int | str"),
    (list[int], "List[int]"), (dict[str, float], "Dict[str, float]"),
    (tuple[int, ...], "Array[int]"), (tuple[int, str], "tuple[int, str]"),
    (Callable[[int], str], "Callable[[int], str]"), (typing.Any, "Any"),
    (tvm_ffi.Map[str, int], "Map[str, int]"), (TestIntPair, "testing.TestIntPair"),
    (ctypes.c_void_p, "ctypes.c_void_p"), (tvm_ffi.Device, "Device"),
])
def test_from_annotation(ann, text):
    s = A(ann)
    assert repr(s) == text
    assert TypeSchema.from_json_obj(s.to_json()) == s


def test_from_annotation_refuses_unknown():
    with pytest.raises(TypeError, match="Cannot convert"):
        A(complex)
    with pytest.raises(TypeError, match="dict requires 0 or 2"):
        A(dict[str])


def test_scalar_conversions():
    assert _to_py_class_value(A(int).convert(True)) == 1
    assert type(_to_py_class_value(A(float).convert(3))) is float
    assert _to_py_class_value(A(bool).convert(0)) is False
    assert isinstance(_to_py_class_value(A(str).convert("hi")), core.String)
    assert _to_py_class_value(A(Optional[int]).convert(None)) is None
    assert str(_to_py_class_value(A(tvm_ffi.dtype).convert("float32"))) == "float32"
    assert _to_py_class_value(A(tvm_ffi.Device).convert("cuda:1")) == tvm_ffi.device("cuda", 1)
    assert isinstance(A(int).convert(5), CAny)


@pytest.mark.parametrize("ann, value, pattern", [
    (int, "x", r"type check failed for int: expected int, got str"),
    (int, 1 << 63, r"out of int64 range"),
    (int, 2.5, r"expected int, got float"),
    (tuple[int, ...], [1, "x"], r"element \[1\]: expected int, got str"),
    (tvm_ffi.Map[str, int], {"a": "b"}, r"value for key 'a': expected int, got str"),
    (tuple[int, str], (1,), r"expected tuple of length 2"),
    (Union[int, str], 1.5, r"expected int \| str, got float"),
    (tvm_ffi.Device, "nowhere", r"invalid device string"),
    (TestIntPair, tvm_ffi.Array([1]), r"expected testing.TestIntPair, got ffi.Array"),
])
def test_mismatch_messages(ann, value, pattern):
    with pytest.raises(TypeError, match=pattern):
        A(ann).check_value(value)


def test_containers_convert_elements_and_pass_through_unchanged():
    result = _to_py_class_value(A(tuple[float, ...]).convert([1, True]))
    assert isinstance(result, tvm_ffi.Array) and [type(x) for x in result] == [float, float]
    same = tvm_ffi.Array([1, 2])
    assert _to_py_class_value(A(tuple[int, ...]).convert(same)).same_as(same)
    as_list = _to_py_class_value(A(list[int]).convert(same))  # Array -> List: a new container
    assert isinstance(as_list, tvm_ffi.List) and list(as_list) == [1, 2]


def test_value_protocols():
    pair = TestIntPair(1, 2)

    class Wrapper:
        def __tvm_ffi_object__(self):
            return pair

    class Loop:
        def __tvm_ffi_value__(self):
            return self

    assert _to_py_class_value(A(TestIntPair).convert(Wrapper())).same_as(pair)
    with pytest.raises(TypeError, match="expected int"):
        A(int).check_value(Loop())


def test_unknown_origin_fails_on_use_only():
    s = TypeSchema("no.such.Type")
    with pytest.raises(TypeError, match="unknown TypeSchema origin"):
        s.check_value(1)


def test_schema_shape_and_arity():
    assert A(Optional[int]).origin_type_index == -2
    assert TypeSchema.from_type_index(1).origin == "int"
    with pytest.raises(ValueError, match="exactly one"):
        TypeSchema("Optional")
    with pytest.raises(ValueError, match="0 or 1"):
        TypeSchema("Array", (TypeSchema("int"), TypeSchema("int")))
    with pytest.raises(TypeError, match="expected schema dict"):
        TypeSchema.from_json_obj({"args": []})
    assert TypeSchema.from_json_str('{"type":"std::optional","args":[{"type":"int"}]}').repr() \
        == "int | None"
