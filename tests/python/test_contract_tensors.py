"""Acceptance audit of docs/python.md §25.3 (items 45-64): tensors, DLPack, torch, FromEnvAlloc."""

import gc
import sys
import typing

import pytest

import tvm_ffi
from conftest import jit_load_inline, needs_pythonapi, needs_refcounts
from tvm_ffi import _conversion, _loader, _tensor, core

np = pytest.importorskip("numpy")

try:
    import torch
except ImportError:  # the numpy items still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
HAS_EXCHANGE = (torch is not None and _loader.API_MODE and not _conversion._SKIP_EXCHANGE
                and hasattr(torch.Tensor, "__dlpack_c_exchange_api__"))
needs_exchange = pytest.mark.skipif(
    not HAS_EXCHANGE, reason="torch without the DLPack exchange API (or ABI mode)")
HAS_CUDA = torch is not None and torch.cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA GPU")


def _g(name):
    return tvm_ffi.get_global_func(name)


# --- items 45-49: tensor properties --------------------------------------------------------


def test_item45_properties():
    data = np.arange(640, dtype="int16").reshape(10, 8, 4, 2)
    x = tvm_ffi.from_dlpack(data)
    assert isinstance(x, tvm_ffi.Tensor)
    assert x.shape == (10, 8, 4, 2) and type(x.shape) is tuple
    assert x.ndim == 4
    assert x.numel() == 640
    assert x.size(0) == 10 and x.size(-1) == 2 and x.size(-4) == 10
    assert x.is_contiguous()
    assert x.strides == (64, 8, 2, 1)
    assert x.dtype == tvm_ffi.dtype("int16") and isinstance(x.dtype, tvm_ffi.dtype)
    assert x.device == tvm_ffi.device("cpu", 0)
    assert x.device.type == "cpu" and x.device.index == 0
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_equal(np.from_dlpack(x), data)


def test_item45_zero_dim():
    x = tvm_ffi.from_dlpack(np.array(3.5, dtype="float64"))
    assert x.shape == () and x.ndim == 0 and x.numel() == 1
    assert x.strides == () and x.is_contiguous()


def test_item46_data_ptr():
    arr = np.arange(12, dtype="float32")
    assert tvm_ffi.from_dlpack(arr).data_ptr() == arr.ctypes.data
    view = arr[2:]
    assert tvm_ffi.from_dlpack(view).data_ptr() == view.ctypes.data


def test_item47_zero_extent_is_contiguous():
    for arr in (np.zeros((4, 0, 4)), np.zeros((4, 0, 4))[:, :, ::2],
                np.zeros((4, 0, 4)).transpose(2, 1, 0)):
        x = tvm_ffi.from_dlpack(arr)
        assert x.shape == arr.shape
        assert x.is_contiguous()
        assert x.numel() == 0


def test_item48_strided_slice():
    x = tvm_ffi.from_dlpack(np.zeros((4, 4, 4))[1:3, :, 1:3])
    assert x.shape == (2, 4, 2)
    assert x.numel() == 16
    assert not x.is_contiguous()
    assert x.strides == (16, 4, 1)


def test_item49_size_out_of_range():
    x = tvm_ffi.from_dlpack(np.zeros((10, 8, 4, 2), "int16"))
    with pytest.raises(IndexError, match="Dimension 4 out of range for tensor with 4 dimensions"):
        x.size(4)
    with pytest.raises(IndexError, match="Dimension -5 out of range for tensor with 4 dimensions"):
        x.size(-5)


def test_spec81_repr_and_equality():
    arr = np.zeros((3, 4), "float32")
    x = tvm_ffi.from_dlpack(arr)
    assert repr(x) == "float32[3, 4]@cpu:0"
    y = tvm_ffi.from_dlpack(arr)
    assert x != y  # handle identity: two imports of one array differ
    assert x == x and hash(x) == hash(x)
    assert core.__dlpack_version__[0] == 1


# --- items 50-53 ---------------------------------------------------------------------------


@needs_torch
def test_item50_echo_torch_tensor(echo):
    x = torch.arange(128)
    y = echo(x)
    assert isinstance(y, torch.Tensor)
    assert y.data_ptr() == x.data_ptr()
    assert y.dtype == x.dtype and y.shape == x.shape and y.device == x.device
    assert torch.equal(x, y)


@needs_torch
def test_item51_callback_error_restores_state():
    def raise_error(x):
        raise ValueError("error in callback")

    f = tvm_ffi.convert(raise_error)
    before = _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator()
    with pytest.raises(ValueError, match="error in callback"):
        f(torch.arange(10))
    assert _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator() == before
    assert _loader.lib.TVMFFIEnvGetStream(1, 0) == _loader.ffi.NULL
    # the function still works afterwards
    g = tvm_ffi.convert(lambda x: x)
    assert isinstance(g(torch.arange(3)), torch.Tensor)


def test_item52_set_class_tensor(echo):
    class MyTensor(tvm_ffi.Tensor):
        pass

    old = core._CLASS_TENSOR
    core._set_class_tensor(MyTensor)
    try:
        assert core._CLASS_TENSOR is MyTensor
        y = echo(tvm_ffi.from_dlpack(np.zeros(4, "float32")))
        assert isinstance(y, MyTensor) and y.shape == (4,)
    finally:
        core._set_class_tensor(old)
    assert type(echo(tvm_ffi.from_dlpack(np.zeros(1)))) is tvm_ffi.Tensor


def test_item53_object_protocol_wrappers(echo):
    x = tvm_ffi.from_dlpack(np.random.rand(10).astype("float32"))

    class MyTensor:
        def __init__(self, tensor):
            self._tensor = tensor

        def __tvm_ffi_object__(self):
            return self._tensor

    class MyNamedTuple(typing.NamedTuple):
        a: MyTensor
        b: int

    class MyCustom:
        def __init__(self, tensor):
            self._tensor = tensor

        def __tvm_ffi_value__(self):
            return (MyTensor(self._tensor), 2)

    y = echo(MyTensor(x))
    assert y.__chandle__() == x.__chandle__()
    y = echo(MyNamedTuple(a=MyTensor(x), b=1))
    assert y[0].__chandle__() == x.__chandle__()
    assert y[1] == 1
    y = echo(MyCustom(x))
    assert y[0].__chandle__() == x.__chandle__()
    assert y[1] == 2


# --- items 54-59: DLPack protocol ----------------------------------------------------------


def test_item54_optional_tensor_view():
    f = _g("testing.optional_tensor_view_has_value")
    assert f(None) is False
    assert f(np.zeros(3)) is True
    assert f(tvm_ffi.from_dlpack(np.zeros(3))) is True


def test_item55_dlpack_export():
    x = tvm_ffi.from_dlpack(np.arange(6, dtype="float32"))
    assert _tensor._capsule_name(x.__dlpack__()) == b"dltensor"
    assert _tensor._capsule_name(x.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert _tensor._capsule_name(x.__dlpack__(max_version=(1, 3))) == b"dltensor_versioned"
    with pytest.raises(BufferError, match="dl_device of different type not supported"):
        x.__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    with pytest.raises(BufferError, match="copy not yet supported"):
        x.__dlpack__(max_version=(1, 0), copy=True)
    # without max_version both keywords are ignored
    assert _tensor._capsule_name(x.__dlpack__(dl_device=(2, 0), copy=True)) == b"dltensor"
    # same device and copy=False are fine
    cap = x.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False, stream=None)
    assert _tensor._capsule_name(cap) == b"dltensor_versioned"
    with pytest.raises(TypeError):
        x.__dlpack__((1, 0))  # keyword-only
    # a consumer reading the exported capsule sees the same memory
    back = np.from_dlpack(x)
    assert back.ctypes.data == x.data_ptr()


def test_item55_private_builders():
    x = tvm_ffi.from_dlpack(np.arange(3, dtype="float32"))
    assert _tensor._capsule_name(x._to_dlpack()) == b"dltensor"
    assert _tensor._capsule_name(x._to_dlpack_versioned()) == b"dltensor_versioned"


@pytest.mark.parametrize("versioned", [False, True])
def test_item56_capsule_consumed_once(versioned, use_count):
    x = tvm_ffi.from_dlpack(np.arange(6, dtype="float32"))
    cap = x.__dlpack__(max_version=(1, 0)) if versioned else x.__dlpack__()
    y = tvm_ffi.from_dlpack(cap)
    assert y.data_ptr() == x.data_ptr() and y.shape == (6,)
    used = b"used_dltensor_versioned" if versioned else b"used_dltensor"
    assert _tensor._capsule_name(cap) == used
    with pytest.raises(ValueError, match="consumed once"):
        tvm_ffi.from_dlpack(cap)
    del y, cap
    gc.collect()
    assert use_count(x) == 1


def test_item56_numpy_capsule():
    arr = np.arange(4, dtype="int32")
    cap = arr.__dlpack__()
    t = tvm_ffi.from_dlpack(cap)
    assert t.data_ptr() == arr.ctypes.data
    with pytest.raises(ValueError):
        tvm_ffi.from_dlpack(cap)


@pytest.mark.parametrize("bad", [object(), 3, "tensor", [1, 2], None])
def test_item57_from_dlpack_bad_input(bad):
    with pytest.raises(TypeError, match="Expect from_dlpack to take either a compatible tensor or PyCapsule"):
        tvm_ffi.from_dlpack(bad)


def test_item58_contiguity_and_alignment():
    arr = np.zeros((4, 4), "float32")
    with pytest.raises(RuntimeError, match="FromDLPack: Tensor is not contiguous."):
        tvm_ffi.from_dlpack(arr[:, 1:3], require_contiguous=True)
    assert tvm_ffi.from_dlpack(arr, require_contiguous=True).shape == (4, 4)
    base = np.zeros(64 + 16, "float32")
    start = (-base.ctypes.data % 64) // 4  # first 64-byte aligned element
    aligned = base[start:start + 16]
    assert aligned.ctypes.data % 64 == 0
    assert tvm_ffi.from_dlpack(aligned, require_alignment=64).data_ptr() == aligned.ctypes.data
    with pytest.raises(RuntimeError, match="FromDLPack: Data is not aligned to 64 bytes."):
        tvm_ffi.from_dlpack(aligned[1:], require_alignment=64)


def test_item59_dltensor_view_return():
    f = _g("testing.schema_id_dltensor")
    x = tvm_ffi.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3))
    t = f(x)
    assert isinstance(t, tvm_ffi.Tensor)
    assert t.__chandle__() == 0
    assert t.shape == (2, 3) and t.dtype == tvm_ffi.dtype("float32")
    assert t.data_ptr() == x.data_ptr()
    # a view can be passed on again (as a DLTensor*)
    assert f(t).shape == (2, 3)


# --- items 60-61: containers with framework tensors ----------------------------------------


@needs_torch
def test_item60_array_with_torch_tensor():
    x = torch.arange(8, dtype=torch.float32)
    a = _g("testing.make_array_with_tensor")(x)
    assert isinstance(a, tvm_ffi.Array) and len(a) == 1
    t = a[0]
    assert isinstance(t, torch.Tensor)
    assert t.data_ptr() == x.data_ptr()
    t[0] = 42.0  # shares storage
    assert x[0] == 42.0


@needs_torch
def test_item60_mixed_nested_and_mappings():
    x = torch.arange(4, dtype=torch.int32)
    m = _g("testing.make_array_with_mixed")(x, 42)
    assert isinstance(m[0], torch.Tensor) and m[1] == 42 and m[2] == "hello"
    assert m[0].data_ptr() == x.data_ptr()
    n = _g("testing.make_nested_array_with_tensor")(x)
    assert isinstance(n, tvm_ffi.Array) and isinstance(n[0], tvm_ffi.Array)
    assert isinstance(n[0][0], torch.Tensor) and n[0][1] == 42
    assert isinstance(n[1], torch.Tensor) and n[1].data_ptr() == x.data_ptr()
    lst = _g("testing.make_list_with_tensor")(x, 7)
    assert isinstance(lst, tvm_ffi.List)
    assert isinstance(lst[0], torch.Tensor) and lst[1] == 7
    mp = _g("testing.make_map_with_tensor")(x)
    assert isinstance(mp, tvm_ffi.Map)
    assert isinstance(mp["tensor"], torch.Tensor) and mp["value"] == 42 and mp["name"] == "test"
    assert mp["tensor"].data_ptr() == x.data_ptr()
    # iteration of the views converts like lookups do
    assert any(isinstance(v, torch.Tensor) for v in mp.values())
    assert isinstance(dict(mp.items())["tensor"], torch.Tensor)
    d = _g("testing.make_dict_with_tensor")(x)
    assert isinstance(d, tvm_ffi.Dict)
    assert isinstance(d["tensor"], torch.Tensor) and d["value"] == 42
    assert isinstance(dict(d.items())["tensor"], torch.Tensor)
    y = torch.ones(3)
    nm = _g("testing.make_nested_map_with_tensor")(x, y)
    assert isinstance(nm, tvm_ffi.Map)
    assert isinstance(nm["array"], tvm_ffi.Array)
    assert isinstance(nm["array"][0], torch.Tensor) and isinstance(nm["array"][1], torch.Tensor)
    assert nm["array"][1].data_ptr() == y.data_ptr()
    assert isinstance(nm["map"]["t"], torch.Tensor) and nm["scalar"] == 99


@needs_torch
def test_item60_empty_and_echo_keeps_lazy_conversion(echo):
    x = torch.zeros(2)
    e = _g("testing.make_empty_array_with_tensor_input")(x)
    assert isinstance(e, tvm_ffi.Array) and len(e) == 0 and list(e) == []
    a = _g("testing.make_array_with_tensor")(x)
    back = echo(a)
    assert isinstance(back, tvm_ffi.Array)
    assert isinstance(back[0], torch.Tensor) and back[0].data_ptr() == x.data_ptr()
    # iteration converts too
    assert all(isinstance(t, torch.Tensor) for t in back)


def test_item61_numpy_only_gives_ffi_tensor():
    arr = np.arange(3, dtype="float32")
    a = _g("testing.make_array_with_tensor")(tvm_ffi.from_dlpack(arr))
    assert type(a[0]) is tvm_ffi.Tensor and a[0].data_ptr() == arr.ctypes.data
    b = _g("testing.make_array_with_tensor")(arr)  # a numpy argument: no framework API either
    assert type(b[0]) is tvm_ffi.Tensor


# --- items 62-64: FromEnvAlloc through load_inline, GPU ------------------------------------


_ALLOC_SRC = r"""
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/extra/c_env_api.h>
namespace ffi = tvm::ffi;

ffi::Tensor return_add_one(ffi::Map<ffi::String, ffi::Array<ffi::Tensor>> kwargs) {
  ffi::Tensor x = kwargs["x"][0];
  TVM_FFI_ICHECK(x.IsContiguous());
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(),
                                            x.device());
  if (x.device().device_type == kDLCPU) {
    const float* xp = static_cast<const float*>(x.data_ptr());
    float* yp = static_cast<float*>(y.data_ptr());
    for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] + 1;
  }
  return y;
}

// the same with a Tuple value (as upstream's test writes it)
ffi::Tensor return_add_one_tuple(ffi::Map<ffi::String, ffi::Tuple<ffi::Tensor>> kwargs) {
  ffi::Tensor x = kwargs["x"].get<0>();
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(),
                                            x.device());
  const float* xp = static_cast<const float*>(x.data_ptr());
  float* yp = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] + 1;
  return y;
}
"""


@pytest.fixture(scope="module")
def alloc_module():
    return jit_load_inline("contract_env_alloc", _ALLOC_SRC,
                           functions=["return_add_one", "return_add_one_tuple"])


@needs_exchange
def test_item62_from_env_alloc_nested_argument(alloc_module):
    x_cpu = torch.arange(6, dtype=torch.float32)
    y = alloc_module.return_add_one({"x": [x_cpu]})
    assert isinstance(y, torch.Tensor)
    assert y.shape == x_cpu.shape and y.dtype == torch.float32
    assert torch.equal(y, x_cpu + 1)
    y = alloc_module.return_add_one_tuple({"x": (x_cpu,)})
    assert isinstance(y, torch.Tensor) and torch.equal(y, x_cpu + 1)
    # the allocator was installed for that call only
    assert _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator() == _loader.ffi.NULL


def test_item62_no_framework_tensor_no_allocator(alloc_module):
    x = np.arange(3, dtype="float32")
    with pytest.raises(RuntimeError, match="TVMFFIEnvTensorAlloc"):
        alloc_module.return_add_one({"x": [x]})


@needs_exchange
@needs_gpu
def test_item63_env_alloc_cuda_does_not_leak(alloc_module):
    x = torch.arange(1024, dtype=torch.float32, device="cuda")
    for _ in range(5):
        alloc_module.return_add_one({"x": [x]})
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    for _ in range(100):
        y = alloc_module.return_add_one({"x": [x]})
        assert y.device == x.device
    del y
    gc.collect()
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() <= base + 1024 * 4 * 2


@needs_gpu
def test_item64_cuda_tensors(echo):
    x = torch.empty((4, 8), device="cuda", dtype=torch.float16)
    t = tvm_ffi.from_dlpack(x)
    assert t.shape == (4, 8) and t.dtype == tvm_ffi.dtype("float16")
    assert t.device.type == "cuda" and t.data_ptr() == x.data_ptr()
    y = echo(x)
    assert isinstance(y, torch.Tensor)
    assert y.shape == x.shape and y.dtype == x.dtype and y.device == x.device


# --- §6 rules 7, 10, 11 and §8.2 details ---------------------------------------------------


@needs_torch
def test_rule10_torch_result_types(echo):
    # whichever path (exchange API or fallback), tensor results come back as torch tensors
    x = torch.ones(3, dtype=torch.float64)
    r = _g("testing.apply")(lambda t: t, x)
    assert isinstance(r, torch.Tensor) and r.data_ptr() == x.data_ptr()


@needs_refcounts
def test_rule11_numpy_argument(echo):
    arr = np.arange(5, dtype="float64")
    y = echo(arr)
    assert isinstance(y, tvm_ffi.Tensor) and y.data_ptr() == arr.ctypes.data
    base = sys.getrefcount(arr)
    nop = _g("testing.nop")
    for _ in range(50):
        nop(arr, arr)
    gc.collect()
    assert sys.getrefcount(arr) == base


def test_rule11_producer_error_propagates(echo):
    class Bad:
        def __dlpack__(self, **kw):
            raise BufferError("producer refused")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError, match="producer refused"):
        echo(Bad())
    with pytest.raises(BufferError, match="producer refused"):
        tvm_ffi.from_dlpack(Bad())


@pytest.mark.skipif(_conversion._SKIP_EXCHANGE, reason="TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1")
def test_spec82_exchange_api_attribute_validated():
    class BadApi:
        __dlpack_c_exchange_api__ = "not a capsule"

    with pytest.raises(ValueError, match="Expect a dlpack_exchange_api field"):
        tvm_ffi.from_dlpack(BadApi())


@pytest.mark.skipif(not _loader.API_MODE, reason="the test exchange table needs the compiled module")
def test_spec83_test_wrapper(echo):
    x = tvm_ffi.from_dlpack(np.arange(3, dtype="float32"))
    w = core.DLTensorTestWrapper(x)
    y = tvm_ffi.from_dlpack(w)
    assert isinstance(y, tvm_ffi.Tensor) and y.data_ptr() == x.data_ptr()


def test_spec82_legacy_capsule_without_strides_gets_compact_strides():
    arr = np.arange(24, dtype="float32").reshape(2, 3, 4)
    t = tvm_ffi.from_dlpack(arr.__dlpack__())
    assert t.strides == (12, 4, 1) and t.is_contiguous()


def _versioned_capsule(flags, deleted, ndim_shape=(4,)):
    """A hand-made "dltensor_versioned" capsule over a float32 buffer; its deleter counts."""
    import ctypes

    ffi = _loader.ffi

    @ffi.callback("void(DLManagedTensorVersioned*)")
    def deleter(p):
        deleted.append(1)

    shape = ffi.new("int64_t[]", list(ndim_shape))
    buf = ffi.new("float[]", 16)
    mt = ffi.new("DLManagedTensorVersioned*")
    mt.version.major, mt.version.minor = 1, 0
    mt.flags = flags
    mt.deleter = deleter
    mt.dl_tensor.data = buf
    mt.dl_tensor.device.device_type, mt.dl_tensor.device.device_id = 1, 0
    mt.dl_tensor.ndim = len(ndim_shape)
    mt.dl_tensor.dtype.code, mt.dl_tensor.dtype.bits, mt.dl_tensor.dtype.lanes = 2, 32, 1
    mt.dl_tensor.shape = shape
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    cap = new(int(ffi.cast("uintptr_t", mt)), b"dltensor_versioned", None)
    keep = (deleter, shape, buf, mt)
    return cap, keep


@needs_pythonapi
def test_spec82_versioned_capsule_roundtrip():
    deleted = []
    cap, keep = _versioned_capsule(0, deleted, (2, 2))
    t = tvm_ffi.from_dlpack(cap)
    assert t.shape == (2, 2) and t.strides == (2, 1)  # compact strides filled in
    assert _tensor._capsule_name(cap) == b"used_dltensor_versioned"
    del cap
    gc.collect()
    assert deleted == []  # the tensor owns it now
    del t
    gc.collect()
    assert deleted == [1]


@needs_pythonapi
def test_spec82_padded_subbyte_refused_and_not_consumed():
    deleted = []
    padded = 1 << 2  # DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED
    cap, keep = _versioned_capsule(padded, deleted)
    with pytest.raises(RuntimeError, match="Subbyte type padded"):
        tvm_ffi.from_dlpack(cap)
    assert _tensor._capsule_name(cap) == b"dltensor_versioned"  # still the producer's
    assert deleted == []
    # a capsule without a destructor is the producer's to free: do it as the producer would
    cap = None
    gc.collect()
    assert deleted == []


@needs_refcounts
def test_spec82_failed_requirement_leaves_numpy_intact():
    arr = np.zeros((4, 4), "float32")
    before = sys.getrefcount(arr)
    for _ in range(20):
        with pytest.raises(RuntimeError):
            tvm_ffi.from_dlpack(arr[:, 1:3], require_contiguous=True)
    gc.collect()
    assert sys.getrefcount(arr) == before


@pytest.mark.skipif(not _loader.API_MODE or _conversion._SKIP_EXCHANGE,
                    reason="the test exchange table needs the compiled module, and its use")
def test_spec82_exchange_buffer_error_falls_back_to_dlpack(echo):
    class Fallback(core.DLTensorTestWrapper):
        """Carries the test exchange API, whose export fails with the given error."""

        __slots__ = ("arr", "exc")

        def __init__(self, arr, exc):
            self.arr, self.exc = arr, exc

        @property
        def _tensor(self):  # read by the exchange API's export
            raise self.exc

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)

        def __dlpack_device__(self):
            return (1, 0)

    arr = np.arange(4.0)
    t = tvm_ffi.from_dlpack(Fallback(arr, BufferError("no export")))
    assert t.data_ptr() == arr.ctypes.data  # step 2: __dlpack__
    with pytest.raises(RuntimeError, match="boom"):
        tvm_ffi.from_dlpack(Fallback(arr, RuntimeError("boom")))  # other errors propagate
    with pytest.raises(BufferError, match="no export"):
        echo(Fallback(arr, BufferError("no export")))  # as an argument: producer errors propagate
