"""Optional torch C DLPack add-on loader: gives torch.Tensor a ``__dlpack_c_exchange_api__``
on PyTorch releases without a native one, so torch tensors take the C fast path (env tensor
allocator, current stream).  docs/guide-python.md §4 documents it for users.

When: the first time a torch tensor reaches tvm_ffi (a call argument or ``from_dlpack``),
``core._classify`` calls ``attach_on_first_tensor`` -- whichever of torch and tvm_ffi was
imported first.  ``import tvm_ffi`` never imports torch, loads nothing and builds nothing.
``load_torch_c_dlpack_extension()`` (upstream's entry point) does the same work on demand.

What, in order: nothing when ``TVM_FFI_DISABLE_TORCH_C_DLPACK`` is set to anything but "0" or
torch is not importable; nothing when torch.Tensor has the table (a legacy
``__c_dlpack_exchange_api__`` int or capsule is copied over); the prebuilt package
``torch_c_dlpack_ext`` when it has a library for this (python, torch); else the library in
``$TVM_FFI_CACHE_DIR`` (default ``~/.cache/tvm-ffi``), built there first by
``torch_c_dlpack_addon/build.py`` in a fresh interpreter (serialised on a file lock).  A failed
build is recorded next to where the library would be (``<libname>.failed``, keyed by the
compiler) and reported once, as a UserWarning carrying the command that builds it by hand;
later processes with the same torch and compiler fall back to the slower path silently.
"""

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

_LIB = None  # the loaded add-on (kept so that the table stays mapped)
_TRIED = False  # attach_on_first_tensor ran in this process
_CAPSULE_NAME = b"dlpack_exchange_api"
_BUILD_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_c_dlpack_addon",
                         "build.py")
_WARNING = ("Failed to JIT torch c dlpack extension, EnvTensorAllocator will not be enabled.\n"
            "We recommend installing via `pip install torch-c-dlpack-ext`")


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
    """``libtorch_c_dlpack_addon_torch<MM>-<device>-<abi8>-<python>.so``: upstream's cache name
    plus the interpreter tag, as the library links the Python C API of the interpreter."""
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    minor = "".join(c for c in minor if c.isdigit())
    ext = ".dll" if sys.platform == "win32" else ".so"
    return "libtorch_c_dlpack_addon_torch%s%s-%s-%s-%s%s" % (
        major, minor, device, _abi_tag(torch), sys.implementation.cache_tag, ext)


def _compiler_key():
    """What a failed build is remembered against: the compiler (path, modification time,
    arguments) and the extra flags; installing or changing any of them retries the build."""
    cxx = os.environ.get("CXX") or "c++"
    exe = shutil.which(cxx.split()[0]) if cxx.split() else None
    try:
        stamp = "%s@%d" % (os.path.realpath(exe), os.stat(exe).st_mtime_ns) if exe else "missing"
    except OSError:
        stamp = "missing"
    extra = (os.environ.get("TVM_FFI_JIT_EXTRA_CFLAGS", ""),
             os.environ.get("TVM_FFI_JIT_EXTRA_LDFLAGS", ""))
    return "%s|%s|%s|%s" % (cxx, stamp, extra[0], extra[1])


def _failure_reason(output):
    if "No such file" in output and ("ATen/" in output or "torch/" in output):
        return ("torch's C++ headers are missing (Debian's torch: `apt-get install "
                "libtorch-dev`; pip's torch ships them)")
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    # the compiler's first error, else the builder's own verdict (torch may print notices too)
    errors = [ln for ln in lines if "error" in ln.lower()]
    verdict = [ln for ln in lines if ln.startswith("Build failed")]
    return (errors or verdict or lines[-1:] or ["no output"])[0]


def _build(torch, cache, lib, device):
    """Runs build.py in a fresh interpreter; RuntimeError (with the report) on failure."""
    marker = lib + ".failed"
    key = _compiler_key()
    cmd = [sys.executable, _BUILD_PY, "--output-dir", cache, "--libname", os.path.basename(lib)]
    if device == "cuda":
        cmd.append("--build-with-cuda")
    elif device == "rocm":
        cmd.append("--build-with-rocm")
    try:
        with open(marker) as f:
            if json.load(f).get("compiler") == key:
                return False  # failed before with this torch and compiler: reported then
    except (OSError, ValueError):
        pass
    with tempfile.TemporaryDirectory(prefix="tvm-ffi-torch-c-dlpack-") as tmp:
        proc = subprocess.run(cmd + ["--build-dir", tmp], capture_output=True, text=True)
    if proc.returncode == 0 and os.path.exists(lib):
        return True
    output = proc.stderr + proc.stdout
    report = {"compiler": key, "command": cmd, "output": output[-20000:]}
    try:
        os.makedirs(cache, exist_ok=True)
        with open(marker, "w") as f:
            json.dump(report, f)
    except OSError:
        pass
    raise RuntimeError(
        "%s\nReason: %s\nOnce that is fixed, build it (and see the compiler's output) with:\n"
        "  %s\nNot retried for torch %s with this compiler (%s records the failure); "
        "TVM_FFI_DISABLE_TORCH_C_DLPACK=1 turns the add-on off."
        % (_WARNING, _failure_reason(output), " ".join(cmd), torch.__version__, marker))


def _jit_load(torch):
    """Loads the cached add-on (building it first when missing); None when a failure was
    recorded before."""
    global _LIB
    cache = os.path.expanduser(os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi")
    device = _torch_extension_device(torch)
    lib = os.path.join(cache, cache_libname(torch, device))
    if not os.path.exists(lib) and not _build(torch, cache, lib, device):
        return None
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
    except (ImportError, AttributeError, OSError):  # no package, no matching or loadable library
        pass
    try:
        return _jit_load(torch)
    except ImportError:
        return None
    except Exception as err:  # noqa: BLE001 - any failure leaves the slower fallback path in place
        text = str(err) if str(err).startswith(_WARNING) else _WARNING
        warnings.warn(text, UserWarning, stacklevel=2)
        return None


def attach_on_first_tensor():
    """Called by ``core._classify`` for a torch.Tensor type without the table: attaches the
    add-on once per process (later types see the attribute, or stay on the fallback)."""
    global _TRIED
    if _TRIED:
        return
    _TRIED = True
    load_torch_c_dlpack_extension()
    patch_torch_cuda_stream_protocol()


def patch_torch_cuda_stream_protocol():
    """Give torch.cuda.Stream the CUDA stream protocol method on older torch."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return
    if not hasattr(torch.cuda.Stream, "__cuda_stream__"):
        def __cuda_stream__(self):
            return (0, self.cuda_stream)

        torch.cuda.Stream.__cuda_stream__ = __cuda_stream__
