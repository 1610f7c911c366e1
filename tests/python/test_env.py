"""Env allocator bound to the framework and env streams seen from C (kernels/envkernel.c)."""

import os
import shutil
import subprocess

import pytest

import tvm_ffi
from tvm_ffi import _loader

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def envmod(tmp_path_factory):
    cc = os.environ.get("CC", "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip("no C compiler to build the test kernel")
    include = os.path.join(HERE, "..", "..", "c", "include")
    out = str(tmp_path_factory.mktemp("envkernel") / "envkernel.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-I", include,
                    os.path.join(HERE, "kernels", "envkernel.c"), "-o", out], check=True)
    return tvm_ffi.load_module(out)


def test_raw_stream_visible_in_c(envmod):
    dev = tvm_ffi.device("cuda:0")
    assert envmod.current_stream(2, 0) == 0
    with tvm_ffi.use_raw_stream(dev, 123456789):
        assert envmod.current_stream(2, 0) == 123456789
        with tvm_ffi.use_raw_stream(dev, 987654321):
            assert envmod.current_stream(2, 0) == 987654321
        assert envmod.current_stream(2, 0) == 123456789
    assert envmod.current_stream(2, 0) == 0


def test_no_allocator_without_framework_tensor(envmod):
    np = pytest.importorskip("numpy")
    with pytest.raises(RuntimeError, match="allocator"):
        envmod.alloc_like(np.zeros(3, "float32"))


def test_torch_allocator(envmod):
    torch = pytest.importorskip("torch")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or not _loader.API_MODE:
        pytest.skip("needs torch's DLPack exchange API")
    x = torch.zeros(2, 3, dtype=torch.float32)
    y = envmod.alloc_like(x)
    assert isinstance(y, torch.Tensor)  # allocated by torch, returned as torch
    assert tuple(y.shape) == (2, 3) and y.dtype == torch.float32
    np = pytest.importorskip("numpy")
    plain = tvm_ffi.from_dlpack(np.zeros(4, "float32"))
    z = envmod.alloc_like(plain, {"x": [x]})  # a torch tensor nested in a dict/list argument
    assert isinstance(z, torch.Tensor) and tuple(z.shape) == (4,)
    # the allocator was only installed for those calls
    assert _loader.lib.TVMFFIEnvGetDLPackManagedTensorAllocator() == _loader.ffi.NULL
