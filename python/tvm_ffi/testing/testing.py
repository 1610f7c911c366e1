"""tvm_ffi.testing.testing: the fixture classes over the C test types, helpers and pytest marks.

``tvm_ffi.testing`` re-exports all of it together with the ``testing.*`` global functions.
"""

import os
import sys
import tempfile
from typing import ClassVar

import pytest

from .._base import Object
from .._function import _type_key_to_index
from .._typeinfo import _lookup_type_attr
from ..dataclasses._enum_define import entry
from ..dataclasses.c_class import c_class
from ..dataclasses.enum import IntEnum, StrEnum
from ..registry import get_global_func

# skip marks for tests that need a newer interpreter (upstream's tests import them from here)
requires_py310 = pytest.mark.skipif(sys.version_info < (3, 10), reason="requires Python 3.10+")
requires_py312 = pytest.mark.skipif(sys.version_info < (3, 12), reason="requires Python 3.12+")
requires_py313 = pytest.mark.skipif(sys.version_info < (3, 13), reason="requires Python 3.13+")


def _c_class(type_key, **params):
    """dataclasses.c_class, skipped for a fixture the loaded testing library lacks (an older
    or foreign runtime): the class then stays a plain, unregistered Object subclass."""

    def wrap(cls):
        if _type_key_to_index(type_key) is None:
            return cls
        return c_class(type_key, **params)(cls)

    return wrap


# Helper classes of docs/python.md §20.3, declared with the same names, type keys and c_class
# arguments as upstream's tvm_ffi.testing so that tests written against it run unchanged.
# Fields, defaults and constructors all come from the C fixtures (c/testing/objects.c and
# fixtures.c) through reflection; the class bodies only add what reflection cannot say.
# `__test__ = False` keeps pytest from collecting the Test* names as test classes.


@_c_class("testing.TestObjectBase")
class TestObjectBase(Object):
    """v_i64 (default 10), read-only v_f64 (10.0), v_str ("hello"); add_i64(x)."""

    __test__ = False


@_c_class("testing.TestIntPair")
class TestIntPair(Object):
    """TestIntPair(a, b): read-only a and b; sum()."""

    __test__ = False


@_c_class("testing.TestFrozenCxx", frozen=True)
class TestFrozenCxx(Object):
    """value and tag are writable in C++; frozen=True makes them read-only from Python."""

    __test__ = False


@_c_class("testing.TestObjectDerived")
class TestObjectDerived(TestObjectBase):
    """TestObjectBase plus the required v_map and v_array."""

    __test__ = False


@_c_class("testing.TestObjectPtrHolder")
class TestObjectPtrHolder(Object):
    """value: a TestObjectBase; optional_value: one or None."""

    __test__ = False


@_c_class("testing.TestNonCopyable")
class TestNonCopyable(Object):
    """TestNonCopyable(value): a type without a copy hook."""

    __test__ = False


@_c_class("testing.SchemaAllTypes")
class _SchemaAllTypes(Object):
    """A field of every schema kind and methods with typed signatures (no constructor:
    instances come from the static make_with(v_int, v_float, v_string))."""


@_c_class("testing.TestCompare")
class TestCompare(Object):
    """TestCompare(key, name, ignored_field): ignored_field is left out of comparisons."""

    __test__ = False


@_c_class("testing.TestHash")
class TestHash(Object):
    """TestHash(key, name, hash_ignored): hash_ignored is left out of hashing."""

    __test__ = False


@_c_class("testing.TestCustomHash")
class TestCustomHash(Object):
    """TestCustomHash(key, label): its __ffi_hash__ hook hashes key only."""

    __test__ = False


@_c_class("testing.TestCustomCompare")
class TestCustomCompare(Object):
    """TestCustomCompare(key, label): __ffi_eq__/__ffi_compare__ hooks look at key only."""

    __test__ = False


@_c_class("testing.TestEqWithoutHash")
class TestEqWithoutHash(Object):
    """TestEqWithoutHash(key, label): an __ffi_eq__ hook and no __ffi_hash__."""

    __test__ = False


@_c_class("testing.TestCxxClassBase")
class _TestCxxClassBase(Object):
    """v_i64 and v_i32 (both ReprOff).  The constructor stores v_i64 + 1 and v_i32 + 2, so
    tests can tell this hand-written __init__ from a generated one."""

    v_i64: int
    v_i32: int
    not_field_1 = 1  # class attributes, not fields: c_class must leave them alone
    not_field_2: ClassVar[int] = 2

    def __init__(self, v_i64, v_i32):
        ffi_init = _lookup_type_attr(type(self).__tvm_ffi_type_info__.type_index,
                                          "__ffi_init__")
        self.__init_handle_by_constructor__(ffi_init, v_i64 + 1, v_i32 + 2)


@_c_class("testing.TestCxxClassDerived", eq=True, order=True, unsafe_hash=True)
class _TestCxxClassDerived(_TestCxxClassBase):
    """Adds v_f64 and v_f32 (default 8.0); gets a generated __init__ (no +1/+2)."""

    v_f64: float
    v_f32: float


@_c_class("testing.TestCxxClassDerivedDerived")
class _TestCxxClassDerivedDerived(_TestCxxClassDerived):
    """Adds v_str (default "default") and the required v_bool."""

    v_str: str
    v_bool: bool


@_c_class("testing.TestCxxInitSubset")
class _TestCxxInitSubset(Object):
    """Only required_field is an __init__ parameter (optional_field, note are InitOff)."""


@_c_class("testing.TestCxxKwOnly")
class _TestCxxKwOnly(Object):
    """Keyword-only x, y, z and w (default 100)."""


@_c_class("testing.TestCxxAutoInit")
class _TestCxxAutoInit(Object):
    """a; b InitOff (42); c keyword-only; d defaults to 99."""

    __test__ = False


@_c_class("testing.TestCxxAutoInitSimple")
class _TestCxxAutoInitSimple(Object):
    """Positional x and y."""

    __test__ = False


@_c_class("testing.TestCxxAutoInitAllInitOff")
class _TestCxxAutoInitAllInitOff(Object):
    """x (7), y (9), z: all InitOff, so __init__ takes no arguments."""

    __test__ = False


@_c_class("testing.TestCxxAutoInitKwOnlyDefaults")
class _TestCxxAutoInitKwOnlyDefaults(Object):
    """p_required, p_default (11), keyword-only k_required and k_default (22), InitOff hidden (33)."""

    __test__ = False


@_c_class("testing.TestCxxNoAutoInit", init=False)
class _TestCxxNoAutoInit(Object):
    """x and y, but no __ffi_init__: not constructible from Python."""

    __test__ = False


@_c_class("testing.TestCxxAutoInitParent")
class _TestCxxAutoInitParent(Object):
    """parent_required and parent_default (5)."""

    __test__ = False


@_c_class("testing.TestCxxAutoInitChild")
class _TestCxxAutoInitChild(_TestCxxAutoInitParent):
    """Adds child_required and keyword-only child_kw_only."""

    __test__ = False


# The enum fixtures (c/testing/enums.c registers the types, without members): the members
# are declared here, allocated through the types' __ffi_new__.
if _type_key_to_index("testing.TestCxxIntEnum") is not None:

    class _TestCxxIntEnum(IntEnum, type_key="testing.TestCxxIntEnum"):
        """C-registered IntEnum: low (10) and high (20)."""

        low = entry(value=10)
        high = entry(value=20)

    class _TestCxxStrEnum(StrEnum, type_key="testing.TestCxxStrEnum"):
        """C-registered StrEnum: add ("+") and mul ("*")."""

        add = entry(value="+")
        mul = entry(value="*")


@_c_class("testing.TestCxxEnumHolder")
class _TestCxxEnumHolder(Object):
    """priority: _TestCxxIntEnum and opcode: _TestCxxStrEnum (payloads convert to members)."""

    __test__ = False
    priority: "_TestCxxIntEnum"
    opcode: "_TestCxxStrEnum"


def create_object(type_key, **kwargs):
    """Build an object by reflection: unspecified fields take their defaults (docs/python.md §20.2)."""
    if not isinstance(type_key, str):
        raise TypeError("type_key must be a str, got %s" % type(type_key).__name__)
    args = [type_key]
    for k, v in kwargs.items():
        args.append(k)
        args.append(v)
    return get_global_func("ffi.MakeObjectFromPackedArgs")(*args)


def make_unregistered_object():
    return get_global_func("testing.make_unregistered_object")()


def add_one(x):
    return get_global_func("testing.add_one")(x)


def run_with_gpu_lock(func, /, *args, **kwargs):
    """Run func while holding the inter-process GPU lock (<lock dir>/gpu.lock)."""
    from ..utils.lockfile import FileLock  # noqa: PLC0415 - only GPU tests take the lock

    lock_dir = os.environ.get("TVM_FFI_TEST_LOCK_DIR") or os.path.join(
        tempfile.gettempdir(), "tvm-ffi-test-locks-%s" % os.environ.get("USER", "user")
    )
    with FileLock(os.path.join(lock_dir, "gpu.lock")):
        return func(*args, **kwargs)

