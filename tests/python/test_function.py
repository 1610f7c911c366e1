"""Functions, the argument/return conversion tables (docs/python.md §5-§7) and the registry."""

import ctypes
import gc
import sys

import pytest

import tvm_ffi
from conftest import needs_prompt_free, needs_refcounts
from tvm_ffi import core


def test_scalars_roundtrip(echo):
    assert echo(None) is None
    assert echo(True) is True and echo(False) is False
    r = echo(1)
    assert r == 1 and type(r) is int
    r = echo(1.25)
    assert r == 1.25 and type(r) is float
    assert echo(2**63 - 1) == 2**63 - 1
    assert echo(-(2**63)) == -(2**63)


@pytest.mark.parametrize("big", [2**63, -(2**63) - 1])
def test_int_beyond_int64_round_trips(echo, big):
    r = echo(big)  # as an ffi.BigInt (test_big_int.py has the rest)
    assert r == big and type(r) is int


def test_strings_and_bytes(echo):
    assert echo("hello") == "hello" and isinstance(echo("hello"), str)
    assert type(echo("short")) is str  # <= 7 bytes: plain str
    long = "x" * 500
    r = echo(long)
    assert r == long and isinstance(r, core.String)
    assert r._tvm_ffi_cached_object is not None
    assert echo(b"abc") == b"abc" and type(echo(b"abc")) is bytes
    rb = echo(b"y" * 500)
    assert rb == b"y" * 500 and rb._tvm_ffi_cached_object is not None
    assert echo(bytearray(b"hey")) == b"hey"
    assert echo("ünïcødé text") == "ünïcødé text"
    # an FFI-backed String passes its cached object back
    assert echo(r)._tvm_ffi_cached_object.same_as(r._tvm_ffi_cached_object)


def test_unencodable_string(echo):
    with pytest.raises(UnicodeEncodeError):
        echo("\udcff")


def test_dtype_device_pointer(echo):
    d = echo(tvm_ffi.dtype("float32"))
    assert type(d) is tvm_ffi.dtype and d == "float32"
    assert echo(core.DataType("float32")) == tvm_ffi.dtype("float32")
    assert echo(tvm_ffi.dtype("f32")) == "float32"  # canonical text back
    dev = echo(tvm_ffi.device("cuda:1"))
    assert dev.dlpack_device_type() == tvm_ffi.DLDeviceType.kDLCUDA and dev.index == 1
    assert str(dev) == "cuda:1" and repr(dev) == "device(type='cuda', index=1)"
    p = echo(ctypes.c_void_p(0x12345678))
    assert isinstance(p, ctypes.c_void_p) and p.value == 0x12345678
    assert echo(ctypes.c_void_p(None)).value is None


def test_numeric_protocols(echo, np):
    r = echo(np.int32(1))
    assert r == 1 and type(r) is int
    r = echo(np.float64(2.0))
    assert r == 2.0 and type(r) is float


def test_protocol_objects(echo):
    class P:
        def __tvm_ffi_opaque_ptr__(self):
            return 10

    class D:
        def __dlpack_data_type__(self):
            return (2, 32, 1)

    class Dev:
        def __dlpack_device__(self):
            return (2, 1)

    class Int:
        def __tvm_ffi_int__(self):
            return 7

    class F:
        def __tvm_ffi_float__(self):
            return 10

    class V:
        def __init__(self, v):
            self.v = v

        def __tvm_ffi_value__(self):
            return self.v

    assert echo(P()).value == 10
    assert echo(D()) == tvm_ffi.dtype("float32")
    assert tvm_ffi.convert(D()) == tvm_ffi.dtype("float32")
    assert echo(Dev()) == tvm_ffi.device("cuda:1")
    r = echo(Int())
    assert r == 7 and type(r) is int
    r = echo(F())
    assert r == 10.0 and type(r) is float
    assert echo(V(10)) == 10
    assert list(echo(V([1, 2, 3]))) == [1, 2, 3]
    assert list(echo(V([1, V(2), 3]))) == [1, 2, 3]
    assert echo(V(V(V(10)))) == 10


@needs_refcounts
def test_opaque_python_object_identity(echo):
    class MyObject:
        pass

    x = MyObject()
    base = sys.getrefcount(x)
    y = echo(x)
    assert y is x
    assert sys.getrefcount(x) == base + 1
    del y
    gc.collect()
    assert sys.getrefcount(x) == base
    seen = []
    tvm_ffi.get_global_func("testing.apply")(lambda o: seen.append(o), x)
    assert seen[0] is x


def test_callbacks(echo):
    f = tvm_ffi.convert(lambda x, y: x + y)
    assert isinstance(f, tvm_ffi.Function)
    assert f(1, 2) == 3
    g = echo(f)
    assert g.same_as(f) and g(1, 2) == 3
    assert tvm_ffi.convert(lambda: "hello")() == "hello"
    assert tvm_ffi.convert(lambda: b"hello")() == b"hello"
    assert tvm_ffi.convert(lambda: bytearray(b"hello"))() == b"hello"
    apply = tvm_ffi.convert(lambda fn, *a: fn(*a))
    add = tvm_ffi.convert(lambda a, b: a + b)
    assert apply(add, 1, 3.3) == 4.3
    assert tvm_ffi.get_global_func("testing.apply")(lambda a: a * 2, 21) == 42


def test_callback_arity_error():
    f = tvm_ffi.convert(lambda x: x)
    with pytest.raises(TypeError):
        f()


def test_keyword_arguments_rejected(echo):
    with pytest.raises(TypeError):
        echo(x=1)


def test_release_gil_flag(echo):
    assert echo.release_gil is True
    echo.release_gil = False
    assert echo(5) == 5
    echo.release_gil = True


@needs_prompt_free
def test_nested_container_refcounts(echo, use_count):
    obj = tvm_ffi.convert((1, 2, 3))
    assert use_count(obj) == 1
    y = echo([obj, {"a": 1, "b": obj}])
    assert use_count(y) == 1
    assert use_count(obj) == 3
    assert use_count(y[1]) == 2


def test_global_registry():
    name = "mytest.echo_py"

    @tvm_ffi.register_global_func(name)
    def my_echo(x):
        return x

    assert isinstance(my_echo, tvm_ffi.Function)
    assert tvm_ffi.get_global_func(name).same_as(my_echo)
    assert name in tvm_ffi.registry.list_global_func_names()
    assert my_echo(3) == 3
    with pytest.raises(RuntimeError):
        tvm_ffi.register_global_func(name, lambda x: x + 1)
    tvm_ffi.register_global_func(name, lambda x: x + 1, override=True)
    assert tvm_ffi.get_global_func(name)(1) == 2
    tvm_ffi.remove_global_func(name)
    assert tvm_ffi.get_global_func(name, allow_missing=True) is None
    with pytest.raises(ValueError, match="no.such.func"):
        tvm_ffi.get_global_func("no.such.func")


def test_register_by_callable_name():
    def pyfunc_registered_by_name(x):
        return x * 3

    f = tvm_ffi.register_global_func(pyfunc_registered_by_name)
    try:
        assert tvm_ffi.get_global_func("pyfunc_registered_by_name")(2) == 6
        assert f(1) == 3
    finally:
        tvm_ffi.remove_global_func("pyfunc_registered_by_name")


def test_init_ffi_api():
    import types

    mod = types.ModuleType("fake_testing_api")
    sys.modules["fake_testing_api"] = mod
    try:
        tvm_ffi.init_ffi_api("testing", "fake_testing_api")
        assert mod.echo(5) == 5
        assert mod.echo.__name__ == "echo"
    finally:
        del sys.modules["fake_testing_api"]
    with pytest.raises(KeyError):
        tvm_ffi.init_ffi_api("testing", "not_a_loaded_module")


@needs_refcounts
def test_extern_c_function():
    sym = tvm_ffi.get_global_func("testing.get_add_one_c_symbol")()
    keep = [1, 2, 3]
    base = sys.getrefcount(keep)
    f = tvm_ffi.Function.__from_extern_c__(sym, keep_alive_object=keep)
    assert f(1) == 2 and f(2) == 3
    with pytest.raises(TypeError):
        f(None)
    assert sys.getrefcount(keep) == base + 1
    del f
    gc.collect()
    assert sys.getrefcount(keep) == base


def test_add_one_type_error():
    class MyObject:
        pass

    with pytest.raises(TypeError, match="Mismatched type on argument #0"):
        tvm_ffi.get_global_func("testing.add_one")(MyObject())


def test_many_arguments(echo):
    nop = tvm_ffi.get_global_func("testing.nop")
    assert nop(*range(100)) is None
    assert echo(*range(20)) == 0


def test_shared_args_tuple(echo):
    # calling __call__ with an explicit tuple shares it: the slow path must still work
    args = (echo, 5)
    assert tvm_ffi.Function.__call__(*args) == 5
    assert args == (echo, 5)


def test_function_subclass(echo):
    class Mixin:
        def hello(self):
            return "hi"

    class MyFunc(tvm_ffi.Function, Mixin):
        def __init__(self, f):
            self.__move_handle_from__(f)

        __call__ = tvm_ffi.Function.__call__

    src = tvm_ffi.convert(lambda x: x * 2)
    handle = src.__chandle__()
    f = MyFunc(src)
    assert src.__chandle__() == 0 and f.__chandle__() == handle
    assert isinstance(f, Mixin) and f.hello() == "hi"
    assert f(21) == 42
    back = echo(f)
    assert isinstance(back, tvm_ffi.Function) and back.__chandle__() == handle
    f.name_attr = "x"  # Function instances have a __dict__
    assert f.__dict__["name_attr"] == "x"


def test_mlir_packed_function():
    get = tvm_ffi.get_global_func("testing.get_mlir_add_one_c_symbol", allow_missing=True)
    if get is None:
        pytest.skip("no testing.get_mlir_add_one_c_symbol")
    f = tvm_ffi.Function.__from_mlir_packed_safe_call__(get())
    assert f(1) == 2 and f(41) == 42


# A C function made into a Function may outlive every Python wrapper of it (kept in an Array
# here): its keep-alive object, and ABI mode's trampoline of an MLIR entry, live as long as the
# C object.  In a child process per mode: in ABI mode a trampoline that died with its wrapper
# was a call into freed code (SIGILL or SIGSEGV).
_OUTLIVES_WRAPPER = """
import gc, weakref, tvm_ffi
g = tvm_ffi.get_global_func
class Keep:
    pass
keep = Keep()
alive = weakref.ref(keep)
F = tvm_ffi.Function
arr = tvm_ffi.convert([F.__from_mlir_packed_safe_call__(g("testing.get_mlir_add_one_c_symbol")()),
                       F.__from_extern_c__(g("testing.get_add_one_c_symbol")(), keep_alive_object=keep)])
del keep
for _ in range(3):
    gc.collect()
junk = [tvm_ffi.convert(lambda i=i: i) for i in range(64)]  # reuses what the GC freed
print(arr[0](41), arr[1](1), alive() is not None)
del arr
for _ in range(3):
    gc.collect()
print(alive() is None)
"""


@pytest.mark.parametrize("abi_mode", ["0", "1"])
def test_c_function_outlives_its_wrapper(abi_mode):
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415

    env = dict(os.environ, TVM_FFI_USE_ABI_MODE=abi_mode)
    r = subprocess.run([sys.executable, "-c", _OUTLIVES_WRAPPER], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["42", "2", "True", "True"]


def test_convert_function_double_wraps():
    f = tvm_ffi.convert(lambda: 1)
    g = tvm_ffi.convert(f)  # quirk kept: a Function is callable, not an Object
    assert isinstance(g, tvm_ffi.Function) and not g.same_as(f) and g() == 1


def test_release_gil_default_from_environment():
    import os
    import subprocess

    code = (
        "import tvm_ffi; f = tvm_ffi.get_global_func('testing.echo'); "
        "assert f.release_gil is False and tvm_ffi.convert(lambda: 1).release_gil is False; "
        "assert f(3) == 3"
    )
    env = dict(os.environ, TVM_FFI_RELEASE_GIL_BY_DEFAULT="0")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
