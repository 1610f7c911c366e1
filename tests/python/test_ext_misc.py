"""The [ext] odds and ends: tvm_ffi.utils, cpp.nvrtc / to_cpp_dtype, core.Error, signals,
convert_func, the registry helpers and tvm_ffi._ffi_api (docs/python.md §5.4, §5.7, §14.5, §14.6, §18.6,
§20.2, §21)."""

import dataclasses
import inspect
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import typing

import pytest

import tvm_ffi
from conftest import needs_native_signal_check
from tvm_ffi import core, error
from tvm_ffi.utils import (
    FileLock, make_kwargs_wrapper, make_kwargs_wrapper_from_signature, unpack_dataclass_to_tuple,
)

echo = tvm_ffi.get_global_func("testing.echo")

# A child process that holds a FileLock until its stdin closes (prints "locked" once it has it).
_HOLDER = """
import sys
from tvm_ffi.utils.lockfile import FileLock
with FileLock(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def _hold_lock(path):
    p = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "locked"
    return p


def _release(p):
    p.stdin.close()
    assert p.wait(timeout=30) == 0


# --------------------------------------------------------------------------------------------
# FileLock and run_with_gpu_lock


def test_filelock_excludes_other_processes(tmp_path):
    path = tmp_path / "sub" / "x.lock"  # parent directories are created
    holder = _hold_lock(path)
    try:
        lock = FileLock(path)
        assert lock.acquire() is False and not lock.locked
        t0 = time.monotonic()
        with pytest.raises(TimeoutError, match="x.lock"):
            lock.blocking_acquire(timeout=0.3, poll_interval=0.05)
        assert time.monotonic() - t0 >= 0.25
    finally:
        _release(holder)
    with FileLock(path) as lock:  # free again once the holder exited
        assert lock.locked
        assert FileLock(path).acquire() is False  # a second description in this process waits too
    assert not lock.locked and FileLock(path).acquire() is True


def test_filelock_released_on_exception_and_bad_arguments(tmp_path):
    path = tmp_path / "y.lock"
    with pytest.raises(KeyError):
        with FileLock(path):
            raise KeyError("inside")
    other = FileLock(path)
    assert other._file_descriptor is None  # upstream's attribute: the fd while held, else None
    assert other.acquire()
    fd = other._file_descriptor
    assert isinstance(fd, int) and os.fstat(fd).st_ino == os.stat(path).st_ino
    assert other.acquire() is False  # not re-entrant
    with pytest.raises(RuntimeError, match="already held"):
        other.blocking_acquire()  # would wait for itself forever: say so instead
    assert other.locked
    other.release()
    assert other._file_descriptor is None
    other.release()  # idempotent
    with pytest.raises(ValueError):
        FileLock(path).blocking_acquire(timeout=-1)


def test_run_with_gpu_lock_holds_the_lock(tmp_path, monkeypatch):
    from tvm_ffi import testing

    monkeypatch.setenv("TVM_FFI_TEST_LOCK_DIR", str(tmp_path / "locks"))

    def body(a, *, b):
        # while func runs, gpu.lock is taken: nobody else gets it
        assert not FileLock(tmp_path / "locks" / "gpu.lock").acquire()
        return a + b

    assert testing.run_with_gpu_lock(body, 1, b=2) == 3
    assert FileLock(tmp_path / "locks" / "gpu.lock").acquire()


# --------------------------------------------------------------------------------------------
# kwargs wrappers


def test_make_kwargs_wrapper_binds_like_python():
    calls = []

    def target(*args):
        calls.append(args)
        return len(calls)

    w = make_kwargs_wrapper(target, ["x", "y", "z"], arg_defaults=(10, 20),
                            kwonly_names=["debug", "timeout"], kwonly_defaults={"timeout": 30})
    assert str(inspect.signature(w)) == "(x, y=10, z=20, *, debug, timeout=30)"
    w(1, debug=True)
    w(1, 2, z=3, debug=False, timeout=5)
    w(x=7, debug=None)
    assert calls == [(1, 10, 20, True, 30), (1, 2, 3, False, 5), (7, 10, 20, None, 30)]
    with pytest.raises(TypeError, match="debug"):
        w(1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        w(1, debug=1, nope=2)
    with pytest.raises(TypeError, match="multiple values"):
        w(1, x=1, debug=1)
    with pytest.raises(TypeError):
        w(1, 2, 3, 4, debug=1)  # keyword-only cannot be passed positionally


def test_make_kwargs_wrapper_over_ffi_function_and_prototype():
    def proto(value, extra=None):
        """Doc of the prototype."""

    w = make_kwargs_wrapper(echo, ["value", "extra"], arg_defaults=(None,), prototype=proto)
    assert w(value=5) == 5 and w("abc", extra=1) == "abc"
    assert (w.__name__, w.__doc__) == ("proto", "Doc of the prototype.")
    default = object()
    w2 = make_kwargs_wrapper(lambda *a: a, ["a"], arg_defaults=(default,))
    assert w2()[0] is default  # defaults are the objects themselves, not re-created from text


@pytest.mark.parametrize("kwargs, exc, text", [
    (dict(arg_names=["a", "a"]), ValueError, "Duplicate"),
    (dict(arg_names=["a"], kwonly_names=["a"]), ValueError, "both positional and keyword-only"),
    (dict(arg_names=["a b"]), ValueError, "not a valid"),
    (dict(arg_names=["class"]), ValueError, "is a Python keyword"),
    (dict(arg_names=[1]), TypeError, "str"),
    (dict(arg_names=["a"], arg_defaults=[1]), TypeError, "tuple"),
    (dict(arg_names=["a"], arg_defaults=(1, 2)), ValueError, "arg_defaults"),
    (dict(arg_names=["a"], kwonly_names=["k"], kwonly_defaults={"z": 1}), ValueError, "z"),
    (dict(arg_names=["a"], map_dataclass_to_tuple=["q"]), ValueError, "q"),
    (dict(arg_names=["_tvm_ffi_target"]), ValueError, "conflict with internal names"),
    (dict(arg_names=["__i_x"]), ValueError, "conflict with internal names"),
])
def test_make_kwargs_wrapper_rejects_bad_specs(kwargs, exc, text):
    with pytest.raises(exc, match=text):
        make_kwargs_wrapper(lambda *a: a, **kwargs)


def test_make_kwargs_wrapper_from_signature():
    def f(a, b=2, /, c=3, *, d, e=5, ctx=None):
        pass

    w = make_kwargs_wrapper_from_signature(lambda *a: a, inspect.signature(f), prototype=f,
                                           exclude_arg_names=["ctx", "not_there"])
    assert w(1, d=4) == (1, 2, 3, 4, 5)
    assert w(1, 9, c=8, d=7, e=6) == (1, 9, 8, 7, 6)
    assert w.__name__ == "f"
    with pytest.raises(ValueError, match=r"\*args"):
        make_kwargs_wrapper_from_signature(print, inspect.signature(lambda *args: 0))
    with pytest.raises(ValueError, match=r"\*\*kw"):
        make_kwargs_wrapper_from_signature(print, inspect.signature(lambda **kw: 0))
    with pytest.raises(TypeError, match="Signature"):
        make_kwargs_wrapper_from_signature(print, f)


# --------------------------------------------------------------------------------------------
# unpack_dataclass_to_tuple


@dataclasses.dataclass
class _Size:
    h: int
    w: int


@dataclasses.dataclass
class _Box:
    origin: tuple
    size: _Size
    tags: list
    extra: dict


class _Pair(typing.NamedTuple):
    first: object
    second: object


def test_unpack_dataclass_to_tuple_nested():
    leaf = object()
    box = _Box((0, 1), _Size(2, 3), [_Size(4, 5), leaf], {"k": _Size(6, 7)})
    out = unpack_dataclass_to_tuple(box)
    assert out == ((0, 1), (2, 3), [(4, 5), leaf], {"k": (6, 7)})
    assert out[2][1] is leaf  # leaves are not copied
    pair = unpack_dataclass_to_tuple(_Pair(_Size(1, 2), 3))
    assert type(pair) is _Pair and pair == ((1, 2), 3)
    assert unpack_dataclass_to_tuple(5) == 5 and unpack_dataclass_to_tuple(_Size) is _Size

    class MyList(list):
        pass

    sub = unpack_dataclass_to_tuple(MyList([_Size(1, 1)]))
    assert type(sub) is MyList and sub == [(1, 1)]
    # what it is for: a dataclass argument reaches an FFI function as nested Arrays
    w = make_kwargs_wrapper(echo, ["x"], map_dataclass_to_tuple=["x"])
    arr = w(x=_Size(8, 9))
    assert isinstance(arr, tvm_ffi.Array) and list(arr) == [8, 9]


# --------------------------------------------------------------------------------------------
# embed_cubin


_USE_C = r"""
#include <stddef.h>
extern const unsigned char __tvm_ffi__cubin_kern[];
extern const unsigned char __tvm_ffi__cubin_kern_end[];
size_t cubin_size(void) { return (size_t)(__tvm_ffi__cubin_kern_end - __tvm_ffi__cubin_kern); }
const unsigned char* cubin_data(void) { return __tvm_ffi__cubin_kern; }
"""


def _need_tools(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip("needs %s" % ", ".join(missing))


def _embed_and_load(tmp_path, blob, *cli_extra):
    import ctypes

    (tmp_path / "use.c").write_text(_USE_C)
    (tmp_path / "k.cubin").write_bytes(blob)
    subprocess.run(["cc", "-c", "-fPIC", str(tmp_path / "use.c"), "-o", str(tmp_path / "use.o")],
                   check=True)
    r = subprocess.run([sys.executable, "-m", "tvm_ffi.utils.embed_cubin",
                        "--output-obj", str(tmp_path / "out.o"), "--input-obj", str(tmp_path / "use.o"),
                        "--cubin", str(tmp_path / "k.cubin"), "--name", "kern", *cli_extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    nm = subprocess.run(["nm", str(tmp_path / "out.o")], capture_output=True, text=True, check=True)
    syms = dict(line.split()[-1:] + line.split()[-2:-1] for line in nm.stdout.splitlines()
                if "__tvm_ffi__cubin" in line)
    # defined, read-only and local: libraries embedding the same name cannot clash
    assert syms == {"__tvm_ffi__cubin_kern": "r", "__tvm_ffi__cubin_kern_end": "r"}, nm.stdout
    lib_path = tmp_path / "libk.so"
    subprocess.run(["cc", "-shared", str(tmp_path / "out.o"), "-o", str(lib_path)], check=True)
    lib = ctypes.CDLL(str(lib_path))
    lib.cubin_size.restype = ctypes.c_size_t
    lib.cubin_data.restype = ctypes.c_void_p
    return ctypes.string_at(lib.cubin_data(), lib.cubin_size()), lib.cubin_data()


def test_embed_cubin_cli_defines_the_launcher_symbols(tmp_path):
    _need_tools("cc", "ld", "objcopy", "nm")
    blob = bytes(range(256)) * 7 + b"\x7fELF tail"
    data, addr = _embed_and_load(tmp_path, blob)
    assert data == blob
    assert addr % 64 == 0  # aligned for loaders that map the image directly
    stack = subprocess.run(["readelf", "-lW", str(tmp_path / "libk.so")], capture_output=True, text=True)
    if stack.returncode == 0:
        assert "GNU_STACK" in stack.stdout and "RWE" not in stack.stdout


def test_embed_cubin_errors(tmp_path):
    from tvm_ffi.utils.embed_cubin import embed_cubin

    (tmp_path / "a.cubin").write_bytes(b"x")
    (tmp_path / "in.o").write_bytes(b"not an object")
    with pytest.raises(ValueError, match="C identifier"):
        embed_cubin(tmp_path / "a.cubin", tmp_path / "in.o", tmp_path / "o.o", "bad-name")
    with pytest.raises(FileNotFoundError, match="missing.cubin"):
        embed_cubin(tmp_path / "missing.cubin", tmp_path / "in.o", tmp_path / "o.o", "k")
    _need_tools("cc", "ld", "objcopy")
    with pytest.raises(RuntimeError, match="ld exited"):
        embed_cubin(tmp_path / "a.cubin", tmp_path / "in.o", tmp_path / "o.o", "k")
    assert not (tmp_path / "o.o").exists()  # no half-written output
    r = subprocess.run([sys.executable, "-m", "tvm_ffi.utils.embed_cubin", "--output-obj", "o.o",
                        "--input-obj", str(tmp_path / "in.o"), "--cubin", str(tmp_path / "a.cubin"),
                        "--name", "1x"], capture_output=True, text=True)
    assert r.returncode == 1 and "C identifier" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tvm_ffi.utils.embed_cubin"], capture_output=True, text=True)
    assert r.returncode == 2 and "--output-obj" in r.stderr


# --------------------------------------------------------------------------------------------
# NVRTC and to_cpp_dtype

_KERNEL = r"""
extern "C" __global__ void add_one(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
"""


def _nvrtc():
    from tvm_ffi.cpp import nvrtc

    try:
        nvrtc._load_nvrtc()
    except RuntimeError as e:
        pytest.skip("libnvrtc not available: %s" % e)
    return nvrtc


def test_nvrtc_compiles_cuda_to_cubin():
    nvrtc = _nvrtc()
    cubin = nvrtc.nvrtc_compile(_KERNEL, arch="sm_80", extra_opts=["-DUNUSED=1"])
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    assert int.from_bytes(cubin[18:20], "little") == 190  # e_machine EM_CUDA: real SASS, not PTX
    assert b"add_one" in cubin
    other = nvrtc.nvrtc_compile(_KERNEL, arch="sm_90")
    assert other != cubin  # the architecture really reaches the compiler


def test_nvrtc_errors():
    nvrtc = _nvrtc()
    with pytest.raises(RuntimeError, match="undefined_thing"):  # the compiler log is in the message
        nvrtc.nvrtc_compile("__global__ void f() { undefined_thing(); }", name="bad.cu", arch="sm_80")
    with pytest.raises(ValueError, match="sm_80"):
        nvrtc.nvrtc_compile(_KERNEL, arch="compute_80")
    with pytest.raises(TypeError):
        nvrtc.nvrtc_compile(123, arch="sm_80")
    with pytest.raises(TypeError, match="sequence"):
        nvrtc.nvrtc_compile(_KERNEL, arch="sm_80", extra_opts="-DX=1")


def test_nvrtc_cubin_embeds(tmp_path):
    nvrtc = _nvrtc()
    _need_tools("cc", "ld", "objcopy", "nm")
    cubin = nvrtc.nvrtc_compile(_KERNEL, arch="sm_80")
    data, _ = _embed_and_load(tmp_path, cubin)
    assert data == cubin


def test_to_cpp_dtype():
    from tvm_ffi.cpp import to_cpp_dtype

    assert [to_cpp_dtype(d) for d in ("int32", "float32", "bool", "uint8", "float64", "int64")] == [
        "int32_t", "float", "bool", "uint8_t", "double", "int64_t"]
    assert to_cpp_dtype(tvm_ffi.dtype("int16")) == "int16_t"
    assert to_cpp_dtype("torch.float32") == "float"
    with pytest.raises(ValueError, match="Unsupported dtype string: complex64"):
        to_cpp_dtype("complex64")
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        with pytest.raises(ValueError, match="Unsupported dtype string: float16"):
            to_cpp_dtype("float16")  # GPU-only spellings need a GPU


# --------------------------------------------------------------------------------------------
# core.Error and signals


def test_error_object():
    e = core.Error("ValueError", "bad value", '  File "x.cc", line 7, in f\n')
    assert (e.kind, e.message, e.extra_context) == ("ValueError", "bad value", None)
    assert e.backtrace == '  File "x.cc", line 7, in f\n'
    e.update_backtrace('  File "y.cc", line 8, in g\n')
    assert e.backtrace == '  File "y.cc", line 8, in g\n'
    exc = e.py_error()
    assert type(exc) is ValueError and str(exc) == "bad value"
    assert exc.__tvm_ffi_error__.same_as(e)
    assert [(f.f_code.co_filename, ln) for f, ln in _frames(exc.__traceback__)] == [("y.cc", 8)]
    assert type(core.Error("NoSuchKind", "m").py_error()) is RuntimeError
    returned = echo(e)
    assert isinstance(returned, core.Error) and returned.same_as(e)  # errors are values here
    assert core.Error("TypeError", "ünï").message == "ünï"
    with pytest.raises(TypeError, match="kind must be a str"):
        core.Error(1, "m")
    with pytest.raises(TypeError, match="message must be a str"):
        core.Error("ValueError", None)


def _frames(tb):
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def test_error_registered_kind_round_trip():
    @tvm_ffi.register_error
    class ExtMiscError(RuntimeError):
        pass

    err = tvm_ffi.convert(ExtMiscError("boom"))
    assert err.kind == "ExtMiscError" and type(err.py_error()) is ExtMiscError

    def raiser():
        raise ExtMiscError("from a callback")

    with pytest.raises(ExtMiscError, match="from a callback"):
        tvm_ffi.get_global_func("testing.apply")(raiser)


def _interrupt_soon(delay=0.3):
    t = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    return t


@needs_native_signal_check
def test_sigint_interrupts_a_native_loop(capfd, sigint_raises):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")
    f = tvm_ffi.get_global_func("testing.run_check_signal")
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):  # also catches a signal that lands before the call
        timer = _interrupt_soon()
        try:
            f(10)  # 10 s unless the C loop sees the signal through PyErr_CheckSignals
        finally:
            timer.cancel()
    assert time.monotonic() - t0 < 5
    assert "without catching signal" not in capfd.readouterr().out
    assert error._move_raised_error() is None  # the slot is clean afterwards
    assert tvm_ffi.get_global_func("testing.add_one")(1) == 2


_SIGNAL_CHILD = """
import os, signal, threading, time, tvm_ffi
signal.signal(signal.SIGINT, signal.default_int_handler)  # see conftest.sigint_raises
f = tvm_ffi.get_global_func("testing.run_check_signal")
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
t0 = time.monotonic()
try:
    f(10)
except KeyboardInterrupt:
    print("interrupted after %.1f" % (time.monotonic() - t0))
print(tvm_ffi.get_global_func("testing.add_one")(1))
"""


@needs_native_signal_check
@pytest.mark.parametrize("mode", ["api", "abi"])
def test_sigint_in_a_fresh_interpreter(mode):
    env = dict(os.environ, TVM_FFI_USE_ABI_MODE="1" if mode == "abi" else "0")
    r = subprocess.run([sys.executable, "-c", _SIGNAL_CHILD], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0].startswith("interrupted after") and float(lines[0].split()[-1]) < 5, r.stdout
    assert lines[1] == "2" and "without catching" not in r.stdout


# --------------------------------------------------------------------------------------------
# convert_func, registry helpers, _ffi_api


def test_convert_func_checks_its_arguments():
    with pytest.raises(TypeError, match="__dlpack_c_exchange_api__"):
        tvm_ffi.convert_func(lambda x: x, tensor_cls=object)
    with pytest.raises(TypeError, match="callable"):
        tvm_ffi.convert_func(42)

    def cb(x):
        raise ValueError("boom %d" % x)

    f = tvm_ffi.convert_func(cb)
    assert isinstance(f, tvm_ffi.Function)
    with pytest.raises(ValueError, match="boom 42"):
        f(42)
    assert tvm_ffi.convert_func(lambda a, b: a * b)(6, 7) == 42


def _tensor_cls_params():
    out = [pytest.param("test_wrapper", id="DLTensorTestWrapper")]
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        out.append(pytest.param("torch", id="torch"))
    return out


@pytest.mark.parametrize("which", _tensor_cls_params())
def test_convert_func_tensor_cls_converts_arguments(which):
    import numpy as np

    if which == "torch":
        import torch

        tensor_cls = torch.Tensor
    else:
        tensor_cls = core.DLTensorTestWrapper
        if not hasattr(tensor_cls, "__dlpack_c_exchange_api__"):
            pytest.skip("the test exchange table exists in API mode only")
    seen = []

    def cb(t, arr, n):
        # tensors arrive as tensor_cls; tensors inside containers convert on element access
        seen.append((type(t), type(arr[0]), arr[1], n, tuple(getattr(t, "shape", (2, 3)))))
        return n + 1

    f = tvm_ffi.convert_func(cb, tensor_cls=tensor_cls)
    x = tvm_ffi.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3))
    arr = tvm_ffi.Array([x, 7])
    assert tvm_ffi.get_global_func("testing.apply")(f, x, arr, 41) == 42
    assert seen == [(tensor_cls, tensor_cls, 7, 41, (2, 3))]
    assert type(arr[0]) is tvm_ffi.Tensor  # the caller's container is not re-tagged
    with pytest.raises(ValueError, match="dlpack_exchange_api"):
        tvm_ffi.convert_func(cb, tensor_cls=type("Bad", (), {"__dlpack_c_exchange_api__": "x"}))


def test_registry_helpers():
    from tvm_ffi import registry

    names = registry.list_global_func_names()
    assert isinstance(names, list) and "testing.echo" in names and "ffi.Array" in names
    assert len(names) == len(set(names))
    meta = registry.get_global_func_metadata("testing.add_one")
    assert "type_schema" in meta and '"int"' in meta["type_schema"]
    with pytest.raises(RuntimeError, match="Global Function is not found: no.such.func"):
        registry.get_global_func_metadata("no.such.func")
    assert registry.remove_global_func("no.such.func") is None  # missing names are ignored
    with pytest.raises(TypeError, match="str"):
        tvm_ffi.get_global_func(5)
    with pytest.raises(TypeError, match="named callable"):
        tvm_ffi.register_global_func(5)
    with pytest.raises(TypeError, match="callable"):
        tvm_ffi.register_global_func("extmisc.bad", 5)

    @tvm_ffi.register_global_func("extmisc.twice")
    def twice(x):
        return 2 * x

    try:
        assert "extmisc.twice" in registry.list_global_func_names()
        assert registry.get_global_func_metadata("extmisc.twice") == {}
        assert tvm_ffi.get_global_func("extmisc.twice")(21) == 42
    finally:
        assert registry.remove_global_func("extmisc.twice") is None
    assert "extmisc.twice" not in registry.list_global_func_names()
    assert tvm_ffi.get_global_func("extmisc.twice", allow_missing=True) is None


def test_type_schema_reads_both_function_spellings():
    from tvm_ffi import _typeinfo

    old = '{"type":"ffi.Function","args":[{"type":"int"},{"type":"ffi.String"},{"type":"float"}]}'
    new = ('{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],'
           '"params":[{"type":"ffi.String"},{"type":"float"}]}}')
    assert str(_typeinfo.TypeSchema.from_json_str(old)) == "Callable[[str, float], int]"
    assert str(_typeinfo.TypeSchema.from_json_str(new)) == "Callable[[str, float], int]"
    none = '{"type":"ffi.Function","named_args":{"return":[{"type":"None"}],"params":[]}}'
    assert str(_typeinfo.TypeSchema.from_json_str(none)) == "Callable[[], None]"


def test_ffi_api_module_binds_every_core_global():
    from tvm_ffi import _ffi_api, registry

    expected = {n[len("ffi."):] for n in registry.list_global_func_names()
                if n.startswith("ffi.") and "." not in n[len("ffi."):]}
    assert expected and all(isinstance(getattr(_ffi_api, n), tvm_ffi.Function) for n in expected)
    assert _ffi_api.ReprPrint(tvm_ffi.convert([1, 2])) == "(1, 2)"
    assert _ffi_api.ArraySize.__name__ == "ArraySize"
    assert not hasattr(_ffi_api, "Module.load_from_file.so")  # deeper names are not exported
    # the generated stub list names only functions that exist
    assert set(_ffi_api.__all__) <= expected


@dataclasses.dataclass
class _PlanLeaf:
    x: int
    tag: typing.Optional[str]


@dataclasses.dataclass
class _PlanTree:
    leaf: _PlanLeaf
    items: list
    table: dict[str, int]


def test_unpack_dataclass_plan_and_its_validation():
    from tvm_ffi.utils.unpack_dataclass import (
        _extract_dataclass_to_tuple_schema as extract,
        _validate_dataclass_to_tuple_schema as validate,
    )

    plan = extract(_PlanTree)
    assert plan == {"leaf": {"x": None, "tag": None}, "items": "unpack", "table": None}
    validate(plan)
    with pytest.raises(TypeError, match="Expected a dataclass class"):
        extract(int)
    for bad, kind in (([], TypeError), ({1: None}, TypeError), ({"a-b": None}, ValueError),
                      ({"class": None}, ValueError), ({"a": {"b c": None}}, ValueError)):
        with pytest.raises(kind):
            validate(bad)
