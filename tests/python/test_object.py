"""Objects, reflection and type registration (python.md §4)."""

import sys

import pytest

import tvm_ffi
from tvm_ffi import core


def test_unregistered_object_fallback_class():
    make = tvm_ffi.get_global_func("testing.make_unregistered_object")
    o = make()
    cls = type(o)
    assert cls.__name__ == "TestUnregisteredObject"
    assert cls.__module__ == "testing"
    assert cls.__qualname__ == "testing.TestUnregisteredObject"
    assert "Auto-generated fallback class" in cls.__doc__
    assert o.v1 == 41 and o.v2 == 42
    assert o.get_v1_plus_one() == 42 and o.get_v2_plus_two() == 44
    assert type(make()) is cls
    assert isinstance(o, tvm_ffi.Object)


def test_slots_no_new_attributes():
    o = tvm_ffi.get_global_func("testing.make_unregistered_object")()
    with pytest.raises(AttributeError):
        o.not_a_field = 1
    assert type(o).__slots__ == ()
    assert not hasattr(o, "__dict__")
    with pytest.raises(TypeError):
        __import__("weakref").ref(o)


def test_handle_identity_and_same_as(echo):
    x = tvm_ffi.convert([1, 2])
    y = tvm_ffi.convert([1, 2])
    assert x.id_ == x.__chandle__() != 0
    assert x.__chandle__() != y.__chandle__()
    assert x.is_(x) and not x.is_(y) and not x.is_(object()) and not x.is_(None)
    assert echo(x).same_as(x)
    assert x.__ctypes_handle__().value == x.__chandle__()
    empty = tvm_ffi.Array.__new__(tvm_ffi.Array)
    assert empty.__chandle__() == 0 and empty.__ctypes_handle__().value is None
    assert "chandle=None" in repr(empty)


def test_tvm_ffi_object_protocol(echo):
    arr = tvm_ffi.convert([1, 2, 3])

    class Holder:
        def __tvm_ffi_object__(self):
            return arr

    assert echo(Holder()).__chandle__() == arr.__chandle__()


def test_opaque_pyobject(use_count):
    class MyObject:
        pass

    x = MyObject()
    base = sys.getrefcount(x)
    o = tvm_ffi.convert(x)
    assert isinstance(o, core.OpaquePyObject)
    assert use_count(o) == 1
    assert o.pyobject() is x
    assert sys.getrefcount(x) == base + 1
    del o
    assert sys.getrefcount(x) == base


def test_register_object_errors():
    with pytest.raises(TypeError, match="type_key must be a string, type, or None"):
        tvm_ffi.register_object(1)
    with pytest.raises(ValueError, match="Cannot find object type index for no.SuchType"):

        @tvm_ffi.register_object("no.SuchType")
        class X(tvm_ffi.Object):
            pass


def test_register_object_binds_class():
    key = "testing.TestUnregisteredObject"
    tidx = core._type_key_to_index(key)
    old = core._TYPE_CLS.get(tidx)
    try:

        @tvm_ffi.register_object(key)
        class Registered(tvm_ffi.Object):
            def extra(self):
                return self.v2 * 2

        o = tvm_ffi.get_global_func("testing.make_unregistered_object")()
        assert type(o) is Registered
        assert o.extra() == 84 and o.get_v2_plus_two() == 44
        assert Registered.__slots__ == ()
        if not hasattr(Registered, "__ffi_init__"):
            with pytest.raises(TypeError, match="`Registered` cannot be constructed directly"):
                Registered()
        assert Registered.__new__(Registered).__chandle__() == 0
    finally:
        if old is not None:
            core._register_class(tidx, old)


def test_registered_type_keys():
    keys = tvm_ffi.registry.get_registered_type_keys()
    for k in ("ffi.Object", "ffi.String", "None", "int", "bool", "float", "void*", "DataType",
              "Device", "DLTensor*", "const char*", "TVMFFIByteArray*", "ObjectRValueRef"):
        assert k in keys


def test_move_semantics(echo):
    x = tvm_ffi.convert([1, 2, 3])
    r = echo(x._move())
    assert list(r) == [1, 2, 3]
    assert x.__ctypes_handle__().value is None  # moved into the callee's result


def test_cany():
    assert repr(core.CAny(3)) == "CAny(int=3)"
    assert repr(core.CAny(1.5)) == "CAny(float=1.5)"
    assert repr(core.CAny(True)) == "CAny(bool=True)"
    assert repr(core.CAny(None)) == "CAny(None)"
    a = core.CAny([1, 2])
    assert a.type_index == 71 and "type_index=71" in repr(a)
