"""Hostile input from Python never takes the process down: malformed DLPack exchange tables,
objects of unregistered types from a kernel (kernels/hostilekernel.c), exceptions that resist
conversion, out-of-range numbers.  Each case gets an exception of the right kind."""

import ctypes
import os
import shutil
import subprocess

import pytest

import tvm_ffi
from tvm_ffi import core

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# __dlpack_c_exchange_api__ is checked before the runtime jumps through it

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class _Table(ctypes.Structure):
    """DLPackExchangeAPI: version, prev_api, then five function pointers."""

    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev_api", ctypes.c_void_p), ("fns", ctypes.c_void_p * 5)]


def _producer(api_attr):
    np = pytest.importorskip("numpy")

    class Producer:
        __dlpack_c_exchange_api__ = api_attr

        def __dlpack__(self, **kwargs):
            return np.zeros(3).__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return (1, 0)

    return Producer()


def _tables():
    """(why, attribute) pairs, each a malformed exchange-API attribute."""
    zeroed = _Table()
    bad_version = _Table(major=7)
    no_import = _Table(major=1, minor=3)  # right version, every function pointer NULL
    keep = (zeroed, bad_version, no_import)
    return keep, [
        ("an int address", 12345),
        ("a zeroed table", _capsule_new(ctypes.addressof(zeroed), b"dlpack_exchange_api", None)),
        ("major version 7", _capsule_new(ctypes.addressof(bad_version), b"dlpack_exchange_api",
                                         None)),
        ("NULL functions", _capsule_new(ctypes.addressof(no_import), b"dlpack_exchange_api",
                                        None)),
        ("a misnamed capsule", _capsule_new(ctypes.addressof(zeroed), b"dltensor", None)),
        ("a string", "not a capsule"),
    ]


_KEEP, _BAD_TABLES = _tables()


@pytest.mark.skipif(core._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
@pytest.mark.parametrize("attr", [a for _, a in _BAD_TABLES], ids=[w for w, _ in _BAD_TABLES])
def test_malformed_exchange_api_is_a_type_error(attr, echo):
    producer = _producer(attr)
    with pytest.raises(TypeError, match="dlpack_exchange_api"):
        tvm_ffi.from_dlpack(producer)
    with pytest.raises(TypeError, match="dlpack_exchange_api"):
        echo(producer)
    # the apache package raises ValueError here; code catching that still works
    with pytest.raises(ValueError):
        tvm_ffi.from_dlpack(producer)


@pytest.mark.skipif(core._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
def test_malformed_exchange_api_for_callback_tensor_cls():
    producer = _producer(12345)
    with pytest.raises(TypeError, match="dlpack_exchange_api"):
        core.convert_func(lambda x: x, type(producer))


# ---------------------------------------------------------------------------------------------
# a kernel returning an object of an unregistered type


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    cc = os.environ.get("CC", "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip("no C compiler to build the test kernel")
    include = os.path.join(HERE, "..", "..", "c", "include")
    out = str(tmp_path_factory.mktemp("hostilekernel") / "hostilekernel.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-I", include,
                    os.path.join(HERE, "kernels", "hostilekernel.c"), "-o", out], check=True)
    return tvm_ffi.load_module(out)


@pytest.mark.parametrize("type_index", [5000, 99999, (1 << 31) - 1])
def test_unregistered_object_type_is_a_runtime_error(hostile, type_index):
    before = hostile.live_objects()
    with pytest.raises(RuntimeError, match="type_index=%d" % type_index):
        hostile.unknown_object(type_index)
    assert hostile.live_objects() == before  # the result was released


@pytest.mark.parametrize("type_index", [13, 30, 63, -5])
def test_unassigned_pod_type_index_is_an_error(hostile, type_index):
    with pytest.raises(ValueError, match="type index %d" % type_index):
        hostile.unknown_pod(type_index)


def test_get_type_info_of_unknown_index_returns_null():
    assert core.lib.TVMFFIGetTypeInfo(123456) == core.ffi.NULL
    err = core._move_raised_error()
    assert err is not None and err.kind == "RuntimeError"
    assert "type_index=123456" in err.message
