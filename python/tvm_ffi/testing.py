"""tvm_ffi.testing: the testing.* global functions and small helpers."""

import os
import tempfile

import pytest  # noqa: F401 - the upstream module requires pytest too

from . import core, registry
from .core import Object
from .registry import get_global_func, init_ffi_api

init_ffi_api("testing", __name__)


def _register(type_key):
    """register_object for fixtures the testing library may lack (an older runtime)."""

    def wrap(cls):
        if core._type_key_to_index(type_key) is None:
            return cls
        return registry.register_object(type_key)(cls)

    return wrap


# Helper classes of python.md §20.3 (upstream registers them with dataclasses.c_class).
@_register("testing.TestObjectBase")
class TestObjectBase(Object):
    """testing.TestObjectBase: v_i64 (10), read-only v_f64 (10.0), v_str ("hello"), add_i64()."""


@_register("testing.TestObjectDerived")
class TestObjectDerived(TestObjectBase):
    """testing.TestObjectDerived: TestObjectBase plus required v_map and v_array."""


@_register("testing.TestIntPair")
class TestIntPair(Object):
    """testing.TestIntPair(a, b): read-only a and b, sum()."""


@_register("testing.TestFrozenCxx")
class TestFrozenCxx(Object):
    """testing.TestFrozenCxx: read-only fields."""


@_register("testing.TestObjectPtrHolder")
class TestObjectPtrHolder(Object):
    """testing.TestObjectPtrHolder: an object field and an optional one."""


@_register("testing.TestNonCopyable")
class TestNonCopyable(Object):
    """testing.TestNonCopyable(value)."""


@_register("testing.TestCompare")
class TestCompare(Object):
    """testing.TestCompare(key, name, ignored_field): ignored_field is left out of comparisons."""


@_register("testing.TestHash")
class TestHash(Object):
    """testing.TestHash(key, name, hash_ignored): hash_ignored is left out of hashing."""


@_register("testing.TestCustomHash")
class TestCustomHash(Object):
    """testing.TestCustomHash(key, label): a C++ __ffi_hash__ hook."""


@_register("testing.TestCustomCompare")
class TestCustomCompare(Object):
    """testing.TestCustomCompare(key, label): C++ __ffi_eq__/__ffi_compare__ hooks."""


@_register("testing.TestEqWithoutHash")
class TestEqWithoutHash(Object):
    """testing.TestEqWithoutHash(key, label): equality hook without a hash hook."""


def create_object(type_key, **kwargs):
    """Build an object by reflection: unspecified fields take their defaults (python.md §20.2)."""
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
    from .utils.lockfile import FileLock  # noqa: PLC0415

    lock_dir = os.environ.get("TVM_FFI_TEST_LOCK_DIR") or os.path.join(
        tempfile.gettempdir(), "tvm-ffi-test-locks-%s" % os.environ.get("USER", "user")
    )
    with FileLock(os.path.join(lock_dir, "gpu.lock")):
        return func(*args, **kwargs)

