"""torch tensors: exchange-API fast path (torch >= 2.10) or the legacy-capsule fallback."""

import gc
import os
import subprocess
import sys

import pytest

import tvm_ffi
from tvm_ffi import _loader

torch = pytest.importorskip("torch")
# ABI mode (no compiled module) cannot call the exchange API: it takes the fallback path
HAS_EXCHANGE = hasattr(torch.Tensor, "__dlpack_c_exchange_api__") and _loader.API_MODE


def test_import_does_not_import_torch():
    code = "import sys, tvm_ffi; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def test_echo_returns_torch_tensor(echo):
    x = torch.arange(128)
    y = echo(x)
    assert isinstance(y, torch.Tensor)
    assert y.data_ptr() == x.data_ptr() and y.dtype == x.dtype and y.shape == x.shape
    assert y.device == x.device and torch.equal(x, y)


def test_from_dlpack_torch():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = tvm_ffi.from_dlpack(x)
    assert t.shape == (3, 4) and t.dtype == "float32" and t.data_ptr() == x.data_ptr()
    back = torch.from_dlpack(t)
    back[0, 0] = 7
    assert x[0, 0] == 7


def test_torch_dtypes(echo):
    table = {torch.int8: "int8", torch.int32: "int32", torch.float16: "float16",
             torch.float32: "float32", torch.float64: "float64", torch.bfloat16: "bfloat16",
             torch.bool: "bool", torch.uint8: "uint8"}
    for tdt, name in table.items():
        assert echo(tdt) == tvm_ffi.dtype(name)
        assert tvm_ffi.convert(tdt) == tvm_ffi.dtype(name)


def test_containers_convert_lazily():
    x = torch.arange(4, dtype=torch.float32)
    a = tvm_ffi.get_global_func("testing.make_array_with_tensor")(x)
    assert isinstance(a, tvm_ffi.Array)
    assert isinstance(a[0], torch.Tensor) and a[0].data_ptr() == x.data_ptr()
    m = tvm_ffi.get_global_func("testing.make_array_with_mixed")(x, 42)
    assert isinstance(m[0], torch.Tensor) and m[1] == 42 and m[2] == "hello"
    n = tvm_ffi.get_global_func("testing.make_nested_array_with_tensor")(x)
    assert isinstance(n[0][0], torch.Tensor) and n[0][1] == 42 and isinstance(n[1], torch.Tensor)
    d = tvm_ffi.get_global_func("testing.make_map_with_tensor")(x)
    assert isinstance(d["tensor"], torch.Tensor) and d["value"] == 42
    e = tvm_ffi.get_global_func("testing.make_empty_array_with_tensor_input")(x)
    assert len(e) == 0
    again = tvm_ffi.get_global_func("testing.echo")(a)
    assert isinstance(again[0], torch.Tensor)


def test_numpy_only_gives_ffi_tensor():
    np = pytest.importorskip("numpy")
    a = tvm_ffi.get_global_func("testing.make_array_with_tensor")(tvm_ffi.from_dlpack(np.zeros(3)))
    assert type(a[0]) is tvm_ffi.Tensor


def test_callback_error_with_torch_argument():
    def cb(t):
        raise ValueError("callback saw %s" % type(t).__name__)

    f = tvm_ffi.convert(cb)
    with pytest.raises(ValueError, match="callback saw"):
        f(torch.zeros(2))


def test_convert_func_tensor_cls():
    with pytest.raises(TypeError, match="__dlpack_c_exchange_api__"):
        tvm_ffi.convert_func(lambda x: x, tensor_cls=object)
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        pytest.skip("torch has no exchange API")
    seen = []

    def cb(t):
        seen.append(type(t))
        return t

    f = tvm_ffi.convert_func(cb, tensor_cls=torch.Tensor)
    out = tvm_ffi.get_global_func("testing.apply")(f, torch.arange(3))
    assert seen == [torch.Tensor] and tuple(out.shape) == (3,)


def test_no_leak_of_torch_storage():
    echo = tvm_ffi.get_global_func("testing.echo")
    x = torch.zeros(1000)
    base = sys.getrefcount(x)
    for _ in range(1000):
        echo(x)
    gc.collect()
    assert sys.getrefcount(x) == base


def test_exchange_arguments_of_every_shape_and_count():
    # more arguments than the per-call view slots, ranks beyond the recycled blocks' room,
    # 0-d and strided tensors: each arrives with its own shape, strides and data, kept ones
    # hold their torch tensor, and afterwards no reference is left behind
    xs = [torch.tensor(3.5), torch.arange(24).reshape(2, 3, 4)[:, ::2, 1:],
          torch.zeros([1] * 7), torch.arange(10)[::3]]
    xs += [torch.full((i + 1,), float(i)) for i in range(8)]
    before = [sys.getrefcount(x) for x in xs]
    arr = tvm_ffi.get_global_func("ffi.Array")(*xs)
    for x, t in zip(xs, arr):
        t = tvm_ffi.from_dlpack(t) if not isinstance(t, torch.Tensor) else t
        back = torch.from_dlpack(t)
        assert back.shape == x.shape and back.stride() == x.stride()
        assert back.data_ptr() == x.data_ptr() and torch.equal(back, x)
    del arr, x, t, back
    gc.collect()
    assert [sys.getrefcount(x) for x in xs] == before
    nop = tvm_ffi.get_global_func("testing.nop")
    for _ in range(5):
        nop(*xs)
    assert [sys.getrefcount(x) for x in xs] == before


def test_allocator_installed_only_during_call():
    # without torch arguments no allocator is installed for the call
    assert _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator() == _loader.ffi.NULL
    seen = []
    f = tvm_ffi.convert(lambda t: seen.append(_loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator()))
    f(torch.zeros(1))
    if HAS_EXCHANGE:
        assert seen[0] != _loader.ffi.NULL
    assert _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator() == _loader.ffi.NULL


def test_argument_kept_by_callee_outlives_python_tensor():
    # an argument tensor the callee keeps (here: inside the returned Array) holds its torch
    # tensor alive after Python drops it; one that dies with the call leaves no reference
    x = torch.arange(6, dtype=torch.float32) * 2
    before = sys.getrefcount(x)
    nop = tvm_ffi.get_global_func("testing.nop")
    for _ in range(10):
        nop(x, x, x)
    assert sys.getrefcount(x) == before
    arr = tvm_ffi.get_global_func("ffi.Array")(x, 1)
    if HAS_EXCHANGE:  # the exchange-API view holds the Python tensor itself
        assert sys.getrefcount(x) == before + 1
    del x
    gc.collect()
    torch.arange(6, dtype=torch.float32).fill_(-1)  # would reuse a freed buffer
    back = tvm_ffi.from_dlpack(arr[0]) if not isinstance(arr[0], torch.Tensor) else arr[0]
    assert torch.equal(torch.from_dlpack(back), torch.arange(6, dtype=torch.float32) * 2)
    del arr, back
    gc.collect()
