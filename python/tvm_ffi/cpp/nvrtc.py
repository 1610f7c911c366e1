"""nvrtc_compile: CUDA C++ source -> CUBIN bytes with NVRTC, through ctypes.

No GPU is needed to compile (only to pick the default architecture).  libnvrtc is looked up in
``$CUDA_HOME``/``$CUDA_PATH``, ``/usr/local/cuda``, the ``nvidia-cuda-nvrtc`` pip wheel, then
the loader's default search.  The CUBIN can be embedded into a library with
``tvm_ffi.utils.embed_cubin`` / ``build_inline(embed_cubin={...})``.
"""

import ctypes
import glob
import os
import sys

_NVRTC = None


def _candidate_dirs():
    dirs = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            dirs += [os.path.join(os.environ[var], d) for d in ("lib64", "lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
    for entry in sys.path:  # pip wheels: nvidia/cu13/lib, nvidia/cuda_nvrtc/lib
        base = os.path.join(entry or ".", "nvidia")
        if os.path.isdir(base):
            dirs += sorted(glob.glob(os.path.join(base, "*", "lib")), reverse=True)
    return dirs


def _load_nvrtc():
    global _NVRTC
    if _NVRTC is not None:
        return _NVRTC
    tried = []
    for d in _candidate_dirs():
        for path in sorted(glob.glob(os.path.join(d, "libnvrtc.so*")), reverse=True):
            if "builtins" in path or ".alt." in path:
                continue
            tried.append(path)
            try:
                # libnvrtc dlopen()s its builtins by soname: load the sibling copy first so a
                # directory outside the loader path (pip wheel) works too
                for b in sorted(glob.glob(os.path.join(d, "libnvrtc-builtins.so*"))):
                    if ".alt." not in b:
                        ctypes.CDLL(b, mode=ctypes.RTLD_GLOBAL)
                _NVRTC = ctypes.CDLL(path)
                return _NVRTC
            except OSError:
                continue
    for name in ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"):
        try:
            _NVRTC = ctypes.CDLL(name)
            return _NVRTC
        except OSError:
            tried.append(name)
    raise RuntimeError(
        "NVRTC is not available: libnvrtc was not found (tried %s). Install the CUDA toolkit "
        "or `pip install nvidia-cuda-nvrtc`, or set CUDA_HOME." % ", ".join(tried) or "nothing")


def _detect_arch():
    """sm_XY of GPU 0 through the CUDA driver, else the first TVM_FFI_CUDA_ARCH_LIST entry."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        major, minor = ctypes.c_int(), ctypes.c_int()
        # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
        if (cuda.cuInit(0) == 0 and cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, 0) == 0
                and cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0) == 0):
            return "sm_%d%d" % (major.value, minor.value)
    except OSError:
        pass
    archs = os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "").split()
    if archs:
        text = archs[0]
        major, _, rest = text.partition(".")
        if major.isdigit() and rest[:1].isdigit():
            return "sm_%s%s" % (major, rest)
        raise ValueError("Invalid CUDA architecture: %s" % text)
    raise RuntimeError(
        "Failed to auto-detect the GPU architecture (no CUDA device); pass arch='sm_XY' or set "
        "TVM_FFI_CUDA_ARCH_LIST")


def _check(nvrtc, rc, what, prog=None):
    if rc == 0:
        return
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    text = (nvrtc.nvrtcGetErrorString(rc) or b"").decode()
    if prog is not None:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    raise RuntimeError("NVRTC %s failed: %s (%d)" % (what, text, rc))


def nvrtc_compile(source, *, name="kernel.cu", arch=None, extra_opts=None):
    """Compile CUDA C++ ``source`` to CUBIN and return its bytes.

    ``arch`` like ``"sm_80"`` (default: GPU 0's, else ``TVM_FFI_CUDA_ARCH_LIST``); ``extra_opts``
    are further NVRTC options (``-I…``, ``-D…``, ``--std=c++17``).  ``-default-device`` is always
    passed, so plain functions compile as device code.  Compilation errors raise
    ``RuntimeError`` with NVRTC's log.
    """
    if not isinstance(source, (str, bytes)):
        raise TypeError("source must be str or bytes, got %s" % type(source).__name__)
    if arch is None:
        arch = _detect_arch()
    if not isinstance(arch, str) or not arch.startswith(("sm_", "compute_")):
        raise ValueError("arch must look like 'sm_80', got %r" % (arch,))
    if arch.startswith("compute_"):
        raise ValueError("arch %r produces PTX, not CUBIN: use 'sm_%s'" % (arch, arch[8:]))
    if not isinstance(name, str):
        raise TypeError("name must be a str, got %s" % type(name).__name__)
    if isinstance(extra_opts, (str, bytes)):
        raise TypeError("extra_opts must be a sequence of options, not a single %s"
                        % type(extra_opts).__name__)
    opts = ["--gpu-architecture=" + arch, "-default-device"]
    for o in extra_opts or ():
        if not isinstance(o, (str, bytes)):
            raise TypeError("extra_opts must contain str, got %r" % (o,))
        opts.append(o)
    nvrtc = _load_nvrtc()
    src = source.encode() if isinstance(source, str) else source
    prog = ctypes.c_void_p()
    _check(nvrtc, nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, name.encode(), 0, None, None),
           "create program")
    c_opts = (ctypes.c_char_p * len(opts))(*[o.encode() if isinstance(o, str) else o for o in opts])
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), c_opts)
    if rc != 0:
        size = ctypes.c_size_t()
        log = b""
        if nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size)) == 0 and size.value > 1:
            buf = ctypes.create_string_buffer(size.value)
            if nvrtc.nvrtcGetProgramLog(prog, buf) == 0:
                log = buf.value
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
        raise RuntimeError("NVRTC compilation of %s failed (%s):\n%s"
                           % (name, " ".join(str(o) for o in opts), log.decode("utf-8", "replace")))
    size = ctypes.c_size_t()
    _check(nvrtc, nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "get CUBIN size", prog)
    buf = ctypes.create_string_buffer(size.value)
    _check(nvrtc, nvrtc.nvrtcGetCUBIN(prog, buf), "get CUBIN", prog)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw
