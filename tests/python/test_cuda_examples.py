"""The CUDA examples (examples/quickstart/add_one_cuda.cu, examples/kernel_library/
kernel_lib_cuda.cu) built with nvcc through tvm_ffi.cpp.load and called on torch CUDA tensors.

tests/cpp/check-cuda.sh proves they compile anywhere nvcc is; this file proves they compute
the right thing on the caller's stream, so it needs a CUDA GPU (scripts/run-gpu-tests.sh).
"""

import os
import shutil

import pytest

import tvm_ffi
import tvm_ffi.cpp

try:
    import torch
except ImportError:
    torch = None

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAS_GPU = torch is not None and torch.cuda.is_available()

pytestmark = [
    pytest.mark.skipif(not shutil.which(os.environ.get("NVCC", "nvcc")),
                       reason="needs nvcc on PATH"),
    pytest.mark.skipif(not HAS_GPU, reason="needs torch with a CUDA GPU"),
]


def _load(name, relpath, tmp_path_factory):
    return tvm_ffi.cpp.load(name, cuda_files=[os.path.join(TOP, relpath)],
                            extra_ldflags=["-lcudart"],
                            build_directory=str(tmp_path_factory.mktemp(name)))


@pytest.fixture(scope="module")
def add_one(tmp_path_factory):
    return _load("add_one_cuda", "examples/quickstart/add_one_cuda.cu", tmp_path_factory)


@pytest.fixture(scope="module")
def kernel_lib(tmp_path_factory):
    return _load("kernel_lib_cuda", "examples/kernel_library/kernel_lib_cuda.cu",
                 tmp_path_factory)


def test_add_one_cuda_on_torch_tensors(add_one):
    n = 1000  # not a multiple of the block size: the tail guard matters
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.full_like(x, -7.0)
    add_one.add_one_cuda(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)


def test_add_one_cuda_runs_on_the_callers_stream(add_one):
    # the kernel is queued behind a long op on a side stream; reading y after synchronizing
    # only that stream is correct only if the launch used it (TVMFFIEnvGetStream)
    s = torch.cuda.Stream()
    x = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    y = torch.zeros_like(x)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        big = torch.randn(2048, 2048, device="cuda")
        for _ in range(8):
            big = big @ big / 2048.0
        x2 = x * 1.0  # ordered after the matmuls on s
        add_one.add_one_cuda(x2, y)
    s.synchronize()
    assert torch.equal(y, x + 1)


def test_add_one_cuda_checks_reach_python(add_one):
    x = torch.zeros(4, dtype=torch.float64, device="cuda")
    with pytest.raises(RuntimeError, match="float"):  # TVM_FFI_ICHECK raises InternalError
        add_one.add_one_cuda(x, x)
    a = torch.zeros(4, device="cuda")
    b = torch.zeros(5, device="cuda")
    with pytest.raises(RuntimeError, match="same shape"):
        add_one.add_one_cuda(a, b)


def test_kernel_lib_scale_allocates_with_the_framework(kernel_lib):
    x = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    y = kernel_lib.scale(x, 2.5)
    t = torch.from_dlpack(y)
    torch.cuda.synchronize()
    assert t.device == x.device and t.shape == x.shape and t.dtype == torch.float32
    assert torch.equal(t, x * 2.5)
    y1 = torch.from_dlpack(kernel_lib.scale(x, None))  # Optional<double> absent: scale 1
    torch.cuda.synchronize()
    assert torch.equal(y1, x)


def test_kernel_lib_zeros_own_allocator(kernel_lib):
    z = kernel_lib.zeros(tvm_ffi.Shape((2, 3)), 0)
    assert tuple(z.shape) == (2, 3)
    assert z.device.dlpack_device_type() == 2 and z.device.index == 0  # kDLCUDA
    t = torch.from_dlpack(z)
    assert torch.equal(t, torch.zeros(2, 3, device="cuda"))
    t += 1  # shares memory with z: the tensor stays alive through the capsule
    del z
    torch.cuda.synchronize()
    assert torch.equal(t, torch.ones(2, 3, device="cuda"))
