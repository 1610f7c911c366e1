"""__slots__ offsets the compiled fast path reads wrappers by (_ffi_src/slots.c): taken from
the member descriptors, checked, and -1 for anything that is not an object slot."""

import ctypes

import pytest

from tvm_ffi import _base, _loader, core

pytestmark = pytest.mark.skipif(not _loader.API_MODE, reason="ABI mode reads no slots directly")


class Plain:
    __slots__ = ("a", "b")
    c = 1

    @property
    def p(self):
        return 2


class Child(Plain):
    __slots__ = ("d",)


class NoSlots:
    pass


def stored_at(obj, off):
    return ctypes.c_void_p.from_address(id(obj) + off).value


# (CObject's handle is a field of the compiled module's C base, not a slot: test_import_fastpath)
@pytest.mark.parametrize("cls,name", [(Plain, "a"), (Plain, "b"), (Child, "a"), (Child, "d"),
                                      (core.Function, "release_gil"), (core.Tensor, "_view"),
                                      (core.DLTensorTestWrapper, "_tensor")])
def test_offset_is_where_the_slot_lives(cls, name):
    off = core._slot_offset(cls, name)
    assert off > 0
    obj = cls.__new__(cls)
    marker = object()
    sealed = (cls, name) in _base._SEALED  # read-only from Python: the binding's writer stores
    _base._store(obj, name, marker) if sealed else setattr(obj, name, marker)
    assert stored_at(obj, off) == id(marker)
    if sealed:
        _base._store(obj, name, 0)  # (the finaliser reads an int handle)


@pytest.mark.parametrize("cls,name", [(Plain, "c"), (Plain, "p"), (Plain, "missing"),
                                      (NoSlots, "x"), (int, "real"), (Plain, "__class__")])
def test_not_an_object_slot(cls, name):
    assert core._slot_offset(cls, name) == -1
