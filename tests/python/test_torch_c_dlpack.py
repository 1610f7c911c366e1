"""The optional torch C DLPack add-on: loader decisions (fake torch) and the real builder."""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
import types

import pytest

import tvm_ffi
from tvm_ffi import _optional_torch_c_dlpack as addon


def fake_torch(version="2.5.1+cpu", cuda=False, vcuda=None, vhip=None, abi=False, attrs=None):
    tensor = type("Tensor", (), dict(attrs or {}))
    return types.SimpleNamespace(
        __version__=version, Tensor=tensor,
        cuda=types.SimpleNamespace(is_available=lambda: cuda),
        version=types.SimpleNamespace(cuda=vcuda, hip=vhip),
        compiled_with_cxx11_abi=lambda: abi)


def test_device_truth_table():
    assert addon._torch_extension_device(fake_torch()) == "cpu"
    assert addon._torch_extension_device(fake_torch(cuda=True, vcuda="12.8")) == "cuda"
    assert addon._torch_extension_device(fake_torch(cuda=True, vhip="6.2")) == "rocm"
    assert addon._torch_extension_device(fake_torch(cuda=True)) == "cuda"
    assert addon._torch_extension_device(fake_torch(vcuda="12.8")) == "cpu"  # no GPU visible


def test_cache_name_carries_the_abi_tag():
    assert addon.cache_libname(fake_torch(), "cpu") == \
        "libtorch_c_dlpack_addon_torch25-cpu-31b644dc.so"
    assert addon.cache_libname(fake_torch("2.9.0+cu128", abi=True), "cuda") == \
        "libtorch_c_dlpack_addon_torch29-cuda-25ae710d.so"


def test_native_or_legacy_attribute_needs_no_build(monkeypatch):
    native = fake_torch(attrs={"__dlpack_c_exchange_api__": object()})
    monkeypatch.setitem(sys.modules, "torch", native)
    monkeypatch.setattr(addon, "_jit_load", lambda t: pytest.fail("must not build"))
    assert addon.load_torch_c_dlpack_extension() is None
    buf = ctypes.create_string_buffer(56)
    legacy = fake_torch(attrs={"__c_dlpack_exchange_api__": ctypes.addressof(buf)})
    monkeypatch.setitem(sys.modules, "torch", legacy)
    assert addon.load_torch_c_dlpack_extension() is None
    cap = legacy.Tensor.__dlpack_c_exchange_api__
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    assert get(cap, b"dlpack_exchange_api") == ctypes.addressof(buf)


def test_disabled_by_environment(monkeypatch):
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    monkeypatch.setattr(addon, "_jit_load", lambda t: pytest.fail("must not build"))
    assert addon.load_torch_c_dlpack_extension() is None
    assert not hasattr(t.Tensor, "__dlpack_c_exchange_api__")


def test_failed_build_warns(monkeypatch, tmp_path):
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setitem(sys.modules, "torch_c_dlpack_ext", None)  # import fails
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path))
    failing = tmp_path / "fail.py"
    failing.write_text("import sys; print('no compiler'); sys.exit(3)\n")
    monkeypatch.setattr(addon, "_BUILDER", str(failing))
    with pytest.warns(UserWarning) as rec:
        assert addon.load_torch_c_dlpack_extension() is None
    assert str(rec[0].message) == (
        "Failed to JIT torch c dlpack extension, EnvTensorAllocator will not be enabled.\n"
        "We recommend installing via `pip install torch-c-dlpack-ext`")
    assert not hasattr(t.Tensor, "__dlpack_c_exchange_api__")


class _API(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev", ctypes.c_void_p)] + [("f%d" % i, ctypes.c_void_p) for i in range(5)]


@pytest.fixture(scope="module")
def built_addon():
    torch = pytest.importorskip("torch")
    if not shutil.which((os.environ.get("CXX") or "c++").split()[0]):
        pytest.skip("no C++ compiler")
    # shared across the suite's runs: one build per torch version and machine
    out = os.path.join(tempfile.gettempdir(), "tvm-ffi-torch-addon-tests-%d" % os.getuid())
    name = "libtorch_addon_test-%s.so" % torch.__version__.replace("+", "_")
    cmd = [sys.executable, "-m", "tvm_ffi.utils._build_optional_torch_c_dlpack",
           "--output-dir", out, "--libname", name]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and "No such file" in r.stderr and "torch/extension.h" in r.stderr:
        pytest.skip("torch C++ headers not installed")
    assert r.returncode == 0, r.stdout + r.stderr
    path = os.path.join(out, name)
    assert r.stdout.strip().splitlines()[-1] == path
    return cmd, path


def test_builder_output_and_table(built_addon):
    cmd, path = built_addon
    lib = ctypes.CDLL(path)
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_int64
    addr = lib.TorchDLPackExchangeAPIPtr()
    assert addr != 0
    api = _API.from_address(addr)
    assert (api.major, api.minor) == (1, 3) and api.prev is None
    assert all(getattr(api, "f%d" % i) for i in range(5))
    # a second run finds the library and returns without building
    mtime = os.stat(path).st_mtime_ns
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    assert os.stat(path).st_mtime_ns == mtime and time.perf_counter() - t < 30


def test_addon_table_drives_tvm_ffi_calls(built_addon):
    import torch

    lib = ctypes.CDLL(built_addon[1])
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_uint64

    class AddonTensor(torch.Tensor):  # carries the add-on's table whatever torch has natively
        pass

    AddonTensor.__dlpack_c_exchange_api__ = addon._capsule(lib.TorchDLPackExchangeAPIPtr())
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1:].as_subclass(AddonTensor)
    echo = tvm_ffi.get_global_func("testing.echo")
    y = echo(x)
    assert isinstance(y, torch.Tensor)
    assert y.shape == (3, 3) and y.stride() == x.stride()
    assert y.data_ptr() == x.data_ptr()  # zero-copy through from/to_py_object
    y[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    b = torch.zeros(2, dtype=torch.bool).as_subclass(AddonTensor)
    assert echo(b).dtype == torch.bool
