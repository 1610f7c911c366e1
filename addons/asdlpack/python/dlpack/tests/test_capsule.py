"""Capsule and Buffer helpers."""
import ctypes
import gc

import pytest

from dlpack import Capsule
from dlpack.buffer import Buffer, PyBUF_RECORDS_RO, PyBUF_SIMPLE


def test_capsule_new_and_accessors():
    c = Capsule.new(1234, "abc")
    assert c.get_name() == "abc" and c.is_valid("abc") and not c.is_valid("abd")
    assert c.get_pointer("abc") == 1234
    c.set_pointer(5678)
    assert c.get_pointer("abc") == 5678
    c.set_name("xyz")
    assert c.get_name() == "xyz" and c.is_valid("xyz")
    assert c.get_context() is None
    c.set_context(42)
    assert c.get_context() == 42
    c.set_context(None)
    assert c.get_context() is None
    n = Capsule.new(1, None)
    assert n.get_name() is None and n.is_valid(None)


def test_capsule_destructor_runs_once():
    calls = []
    c = Capsule.new(99, "d", destructor=lambda cap: calls.append(cap.get_pointer("d")))
    del c
    gc.collect()
    assert calls == [99]


def test_capsule_set_destructor_later():
    calls = []
    c = Capsule.new(7, "late")
    c.set_destructor(lambda cap: calls.append(cap.is_valid("late")))
    del c
    gc.collect()
    assert calls == [True]


def test_capsule_type_check():
    with pytest.raises(TypeError, match="expected capsule object but got builtins.int"):
        Capsule(3)


def test_buffer_bytes():
    data = b"123"
    b = Buffer(data, PyBUF_RECORDS_RO)
    assert (b.ndim, b.shape, b.strides, b.itemsize, b.format) == (1, (3,), (1,), 1, "B")
    assert ctypes.string_at(b.pointer, 3) == data
    assert b.readonly
    b.release()
    b.release()  # idempotent


def test_buffer_numpy():
    np = pytest.importorskip("numpy")
    a = np.array([[1, 2], [3, 4]], dtype=np.int32)
    b = Buffer(a, PyBUF_RECORDS_RO)
    assert (b.ndim, b.shape, b.strides, b.itemsize, b.format) == (2, (2, 2), (8, 4), 4, "i")
    assert b.pointer == a.__array_interface__["data"][0]


def test_buffer_errors():
    with pytest.raises(TypeError):
        Buffer([1, 2, 3], PyBUF_SIMPLE)
