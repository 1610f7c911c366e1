"""Optional torch C DLPack add-on loader: gives torch.Tensor a ``__dlpack_c_exchange_api__``
on PyTorch releases without a native one, so torch tensors take the C fast path (env tensor
allocator, current stream).

``load_torch_c_dlpack_extension()`` decides, in order: nothing when torch is not importable or
``TVM_FFI_DISABLE_TORCH_C_DLPACK`` is set to anything but "0"; nothing when torch already has
the attribute (a legacy ``__c_dlpack_exchange_api__`` int or capsule is copied over); the
prebuilt package ``torch_c_dlpack_ext``; else a JIT build of
``utils/_build_optional_torch_c_dlpack.py`` into ``$TVM_FFI_CACHE_DIR`` (default
``~/.cache/tvm-ffi``) named ``libtorch_c_dlpack_addon_torch<MM>-<device>-<abi8>.so``.  A failed
build is a UserWarning, never an error.

``import tvm_ffi`` calls it only when torch is already imported (the package never imports
torch itself); otherwise call it after importing torch.
"""

import ctypes
import hashlib
import os
import subprocess
import sys
import warnings

_LIB = None
_CAPSULE_NAME = b"dlpack_exchange_api"
_BUILDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "utils",
                        "_build_optional_torch_c_dlpack.py")


def _capsule(address):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.c_void_p(address), _CAPSULE_NAME, None)


def _has_exchange_api(torch):
    """True when torch.Tensor has the table (upgrading the legacy attribute name)."""
    if hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        return True
    legacy = getattr(torch.Tensor, "__c_dlpack_exchange_api__", None)
    if legacy is None:
        return False
    torch.Tensor.__dlpack_c_exchange_api__ = _capsule(legacy) if isinstance(legacy, int) else legacy
    return True


def _torch_extension_device(torch=None):
    """Add-on flavour for this torch: "cuda", "rocm" or "cpu" (``torch`` defaults to the
    imported module)."""
    if torch is None:
        import torch  # noqa: PLC0415

    if torch.cuda.is_available():
        version = getattr(torch, "version", None)
        if getattr(version, "cuda", None) is not None:
            return "cuda"
        if getattr(version, "hip", None) is not None:
            return "rocm"
        return "cuda"
    return "cpu"


def _abi_tag(torch):
    text = "%s|cxx11abi=%d" % (torch.__version__, int(torch.compiled_with_cxx11_abi()))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def cache_libname(torch, device):
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    minor = "".join(c for c in minor if c.isdigit())
    ext = ".dll" if sys.platform == "win32" else ".so"
    return "libtorch_c_dlpack_addon_torch%s%s-%s-%s%s" % (major, minor, device, _abi_tag(torch), ext)


def _jit_load(torch):
    global _LIB
    cache = os.path.expanduser(os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi")
    device = _torch_extension_device(torch)
    lib = os.path.join(cache, cache_libname(torch, device))
    if not os.path.exists(lib):
        cmd = [sys.executable, _BUILDER, "--output-dir", cache, "--libname", os.path.basename(lib)]
        if device == "cuda":
            cmd.append("--build-with-cuda")
        elif device == "rocm":
            cmd.append("--build-with-rocm")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("Build failed with status %d\nstdout:\n%s\nstderr:\n%s"
                               % (proc.returncode, proc.stdout, proc.stderr))
        if not os.path.exists(lib):
            raise RuntimeError("Failed to build torch c dlpack addon.")
    handle = ctypes.CDLL(lib)
    fn = handle.TorchDLPackExchangeAPIPtr
    fn.restype = ctypes.c_uint64
    fn.argtypes = []
    torch.Tensor.__dlpack_c_exchange_api__ = _capsule(fn())
    _LIB = handle
    return handle


def load_torch_c_dlpack_extension():
    """Attach the exchange table to torch.Tensor if needed; returns the add-on library or None."""
    if os.environ.get("TVM_FFI_DISABLE_TORCH_C_DLPACK", "0") != "0":
        return None
    try:
        import torch  # noqa: PLC0415
    except ImportError:
        return None
    if _has_exchange_api(torch):
        return None
    try:
        import torch_c_dlpack_ext  # noqa: F401, PLC0415 - the prebuilt package sets the attributes

        if _has_exchange_api(torch):
            return None
    except (ImportError, AttributeError):
        pass
    try:
        return _jit_load(torch)
    except ImportError:
        return None
    except Exception:  # noqa: BLE001 - any failure leaves the slower fallback path in place
        warnings.warn(
            "Failed to JIT torch c dlpack extension, EnvTensorAllocator will not be enabled.\n"
            "We recommend installing via `pip install torch-c-dlpack-ext`",
            UserWarning, stacklevel=2)
        return None


def patch_torch_cuda_stream_protocol():
    """Give torch.cuda.Stream the CUDA stream protocol method on older torch."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return
    if not hasattr(torch.cuda.Stream, "__cuda_stream__"):
        def __cuda_stream__(self):
            return (0, self.cuda_stream)

        torch.cuda.Stream.__cuda_stream__ = __cuda_stream__
