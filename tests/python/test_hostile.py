"""Hostile input from Python never takes the process down: malformed DLPack exchange tables,
objects of unregistered types from a kernel (kernels/hostilekernel.c), exceptions that resist
conversion, out-of-range numbers.  Each case gets an exception of the right kind."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

import tvm_ffi
from tvm_ffi import _conversion, _function, _loader, error

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# __dlpack_c_exchange_api__ is checked before the runtime jumps through it

def _capsule_new(address, name, destructor):
    """A raw PyCapsule, or None where ctypes.pythonapi is missing (PyPy: only the cases that
    need no hand-made capsule run there)."""
    api = getattr(ctypes, "pythonapi", None)
    if api is None:
        return None
    new = api.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(address, name, destructor)


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
    return keep, [(why, attr) for why, attr in [
        ("an int address", 12345),
        ("a zeroed table", _capsule_new(ctypes.addressof(zeroed), b"dlpack_exchange_api", None)),
        ("major version 7", _capsule_new(ctypes.addressof(bad_version), b"dlpack_exchange_api",
                                         None)),
        ("NULL functions", _capsule_new(ctypes.addressof(no_import), b"dlpack_exchange_api",
                                        None)),
        ("a misnamed capsule", _capsule_new(ctypes.addressof(zeroed), b"dltensor", None)),
        ("a string", "not a capsule"),
    ] if attr is not None]


_KEEP, _BAD_TABLES = _tables()


@pytest.mark.skipif(_conversion._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
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


@pytest.mark.skipif(_conversion._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
def test_malformed_exchange_api_for_callback_tensor_cls():
    producer = _producer(12345)
    with pytest.raises(TypeError, match="dlpack_exchange_api"):
        _conversion.convert_func(lambda x: x, type(producer))


def _null_exporting_table():
    """A well-formed table whose export reports success but hands back no tensor."""
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))

    def export_null(obj, out):
        out[0] = None
        return 0

    fns = (fn(export_null), fn(lambda t, out: -1))
    table = _Table(major=1, minor=3)
    table.fns[1], table.fns[2] = (ctypes.cast(f, ctypes.c_void_p).value for f in fns)
    return table, fns


@pytest.mark.skipif(_conversion._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
def test_exchange_export_of_no_tensor_is_an_error(echo):
    table, keep = _null_exporting_table()
    attr = _capsule_new(ctypes.addressof(table), b"dlpack_exchange_api", None)
    if attr is None:
        pytest.skip("no ctypes.pythonapi to make a capsule")
    producer = _producer(attr)
    for call in (echo, lambda p: echo([p])):
        if not _loader.API_MODE:  # ABI mode never calls the table: __dlpack__ serves
            call(producer)
            continue
        with pytest.raises(BufferError, match="Failed to convert"):  # was a NULL dereference
            call(producer)
    # from_dlpack falls back to __dlpack__ after a BufferError of the exchange API
    assert tvm_ffi.from_dlpack(producer).shape == (3,)


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
    assert _loader.lib.TVMFFIGetTypeInfo(123456) == _loader.ffi.NULL
    err = error._move_raised_error()
    assert err is not None and err.kind == "RuntimeError"
    assert "type_index=123456" in err.message


_ALLOC = "ffi._PyClassAllocTypeIndex"


@pytest.mark.parametrize("parent", ["ffi.String", "ffi.Function", "ffi.Tensor"])
def test_subtype_of_final_type_is_a_type_error(parent):
    # TVMFFITypeGetOrAllocIndex ends the process here (as the reference runtime does); the path
    # Python-defined types take must raise instead, and register nothing.
    key = "hostile.%s.Sub" % parent
    with pytest.raises(TypeError, match="maximum number of sub-classes for type `%s`" % parent):
        tvm_ffi.get_global_func(_ALLOC)(key, _function._type_key_to_index(parent))
    assert _function._type_key_to_index(key) is None
    assert error._move_raised_error() is None


@pytest.mark.parametrize("parent", [-1, 5, 123456])
def test_subtype_of_unknown_parent_is_a_value_error(parent):
    with pytest.raises(ValueError, match="not a registered object type index"):
        tvm_ffi.get_global_func(_ALLOC)("hostile.Orphan", parent)


def test_py_class_type_index_comes_from_the_raising_path():
    @tvm_ffi.dataclasses.py_class("hostile.PyClassParent")
    class Parent(tvm_ffi.Object):
        x: int

    @tvm_ffi.dataclasses.py_class("hostile.PyClassChild")
    class Child(Parent):
        y: int

    info = _loader.lib.TVMFFIGetTypeInfo(_function._type_key_to_index("hostile.PyClassChild"))
    assert info.type_depth == 2
    assert Child(1, 2).y == 2


# ---------------------------------------------------------------------------------------------
# exceptions raised in callbacks


def _raising(exc):
    def callback():
        raise exc

    return callback


def _call_both_ways(callback):
    """Yields the exception a failing callback gives, called directly and from C."""
    f = tvm_ffi.convert(callback)
    for call in (f, lambda: tvm_ffi.get_global_func("testing.apply")(f)):
        with pytest.raises(BaseException) as info:
            call()
        yield info.value


def test_keyboard_interrupt_in_callback_propagates():
    for exc in _call_both_ways(_raising(KeyboardInterrupt())):
        assert type(exc) is KeyboardInterrupt and exc.args == ()


@pytest.mark.parametrize("code", [3, 0, None, "bye"])
def test_system_exit_in_callback_keeps_its_code(code):
    for exc in _call_both_ways(_raising(SystemExit(code))):
        assert type(exc) is SystemExit and exc.code == code


def test_generator_exit_in_callback_propagates():
    for exc in _call_both_ways(_raising(GeneratorExit("closed"))):
        assert type(exc) is GeneratorExit and not isinstance(exc, Exception)


@pytest.mark.parametrize(
    "base,args", [(KeyboardInterrupt, ()), (SystemExit, (4,)), (GeneratorExit, ())]
)
def test_subclass_of_interrupt_or_exit_stays_uncatchable_by_except_exception(base, args):
    sub = type("My" + base.__name__, (base,), {})
    for exc in _call_both_ways(_raising(sub(*args))):
        assert type(exc) is base and not isinstance(exc, Exception)
        assert base is not SystemExit or exc.code == 4


def test_exception_whose_str_raises_keeps_its_kind():
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no text")

    def callback():
        raise ValueError(Unprintable())  # ValueError's str() calls the argument's

    for exc in _call_both_ways(callback):
        assert type(exc) is ValueError
        assert "str() failed" in str(exc)


def test_exception_with_lone_surrogate_keeps_its_kind():
    for exc in _call_both_ways(_raising(TypeError("bad \ud800 text"))):
        assert type(exc) is TypeError
        assert str(exc) == "bad \\ud800 text"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_callback_whose_error_conversion_fails_still_fails(monkeypatch):
    # ABI mode turns a callback's exception into an FFI error in Python; when that itself
    # raises (the recursion limit hit there, here a broken converter) the callback must still
    # report failure: it reported success, and the call returned a value it never made
    def broken(*args, **kwargs):
        raise RecursionError("converter failed")

    monkeypatch.setattr(error, "_exc_to_error", broken)  # (ABI mode reads it there)
    f = tvm_ffi.convert(_raising(ValueError("x")))
    for call in (f, lambda: tvm_ffi.get_global_func("testing.apply")(f)):
        with pytest.raises((ValueError, RuntimeError)):  # compiled: ValueError, ABI: no error
            call()


@pytest.mark.parametrize("type_index,what", [
    (8, "a NULL string"), (9, "a NULL string"), (11, "a small string longer than 7 bytes"),
    (12, "a small string longer than 7 bytes"), (65, "a NULL object"), (66, "a NULL object"),
    (69, "a NULL object"), (70, "a NULL object"), (74, "a NULL object"), (78, "a NULL object")])
def test_malformed_value_from_c_is_a_value_error(type_index, what):
    # a C caller handing a Python callback a NULL RawStr/ByteArrayPtr or a NULL String, Bytes,
    # Shape, Tensor, OpaquePyObject or BigInt (objects read by value), or a small string
    # claiming more than its 7 bytes: each was dereferenced, a segfault or an over-read
    ffi, lib = _loader.ffi, _loader.lib
    f = tvm_ffi.convert(lambda *args: None)
    args = ffi.new("TVMFFIAny[1]")
    args[0].type_index = type_index
    if type_index in (11, 12):
        args[0].small_str_len = 200
    result = ffi.new("TVMFFIAny*")
    assert lib.TVMFFIFunctionCall(ffi.cast("void*", f._h), args, 1, result) == -1
    err = error._move_raised_error()
    assert err.kind == "ValueError" and ("is " + what) in err.message, err.message


def test_callback_result_too_large():
    f = tvm_ffi.convert(lambda: 2**64)
    try:
        r = f()
    except OverflowError:
        return  # no big-integer conversion: the kind says what went wrong
    assert r == 2**64  # a runtime with big integers carries it exactly


def test_overflow_error_crosses_a_callback():
    for exc in _call_both_ways(_raising(OverflowError("too big"))):
        assert type(exc) is OverflowError and str(exc) == "too big"


# ---------------------------------------------------------------------------------------------
# values out of range


@pytest.mark.parametrize("args", [(10**20,), (1, 10**20), (1, -(2**31) - 1), ("cpu", 2**31)])
def test_device_out_of_int32_range(args):
    with pytest.raises(OverflowError, match="int32"):
        tvm_ffi.Device(*args)


def test_device_negative_index_accepted_as_apache():
    assert tvm_ffi.Device(1, -1).index == -1


def test_add_one_at_int64_max():
    add_one = tvm_ffi.get_global_func("testing.add_one")
    assert add_one(2**63 - 2) == 2**63 - 1
    with pytest.raises(OverflowError, match="overflows int64"):
        add_one(2**63 - 1)  # was a signed overflow (UBSan)


def test_dlpack_returning_non_capsule(echo):
    class NotACapsule:
        def __dlpack__(self, **kwargs):
            return 42

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(ValueError, match="returned int, not a PyCapsule"):
        tvm_ffi.from_dlpack(NotACapsule())
    with pytest.raises(ValueError, match="returned int, not a PyCapsule"):
        echo(NotACapsule())


def test_dlpack_capsule_of_another_name(echo):
    other = _capsule_new(ctypes.addressof(_KEEP[0]), b"not_a_tensor", None)
    if other is None:
        pytest.skip("no ctypes.pythonapi to make a capsule")

    class OtherCapsule:
        def __dlpack__(self, **kwargs):
            return other

        def __dlpack_device__(self):
            return (1, 0)

    for call in (tvm_ffi.from_dlpack, echo):
        with pytest.raises(ValueError, match='PyCapsule is named "not_a_tensor", not "dltensor"'):
            call(OtherCapsule())
    with pytest.raises(ValueError, match='PyCapsule is named "not_a_tensor"'):
        tvm_ffi.from_dlpack(other)


# ---------------------------------------------------------------------------------------------
# deep chains of objects

_DEEP_CHAINS = r"""
import threading
from typing import Optional
import tvm_ffi

@tvm_ffi.dataclasses.py_class("hostile.ChainNode")
class Node(tvm_ffi.Object):
    nxt: Optional[tvm_ffi.Object]

def build_and_drop():
    a, n = tvm_ffi.convert([]), None
    for _ in range(%d):
        a, n = tvm_ffi.convert([a]), Node(n)
    del a, n  # each link's deleter releases the next

threading.stack_size(512 * 1024)  # a recursive release overflows this at ~10k links
t = threading.Thread(target=build_and_drop)
t.start()
t.join()
print("dropped")
"""


def test_deep_chain_of_objects_is_freed_without_recursion():
    # Arrays nested 50k deep and a 50k-long linked list of objects, dropped on a thread with a
    # small stack: destruction one C frame per link was a stack overflow (a segfault)
    r = subprocess.run([sys.executable, "-c", _DEEP_CHAINS % 50000], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0 and "dropped" in r.stdout, r.stderr[-2000:]


# ---------------------------------------------------------------------------------------------
# TVMFFIFunctionCall trusts its handle (as upstream's): the binding checks before it


@pytest.mark.parametrize("args", [(), (1, "two", None)], ids=["no-args", "three-args"])
def test_function_without_a_handle_is_a_value_error(args):
    f = tvm_ffi.Function.__new__(tvm_ffi.Function)
    with pytest.raises(ValueError, match="NULL handle"):
        f(*args)


def test_function_call_on_another_object_is_an_error():
    # API mode: the method descriptor's TypeError; ABI mode and PyPy (a plain Python
    # function): AttributeError for the Function attribute an Array lacks
    with pytest.raises((TypeError, AttributeError)):
        tvm_ffi.Function.__call__(tvm_ffi.convert([1, 2]))
