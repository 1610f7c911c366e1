"""tvm_ffi: Python binding of the TVM FFI stable ABI, through cffi.

``import tvm_ffi`` loads the runtime (see ``_loader``), never imports torch and never compiles
anything; torch support wakes up on the first torch argument.
"""

import os as _os
import sys as _sys


def _config_mode():
    """True when this interpreter was started as ``python -m tvm_ffi.config`` or ``tvm-ffi-config``
    (``libinfo.config_mode``): the package then skips loading the runtime so the CLI stays fast,
    works without a built runtime, and prints nothing but its answer."""
    argv = getattr(_sys, "orig_argv", None)
    if argv is None:  # Python 3.9: only sys.argv, which reads "-m" while the package imports
        argv = _proc_cmdline() if _sys.argv[:1] == ["-m"] else []
    for i, a in enumerate(argv):
        if a == "-m" and i + 1 < len(argv) and argv[i + 1] == "tvm_ffi.config":
            return True
        if a == "-mtvm_ffi.config":
            return True
    prog = _os.path.basename(_sys.argv[0]) if _sys.argv and _sys.argv[0] else ""
    return prog in ("tvm-ffi-config", "tvm-ffi-config.exe")


def _proc_cmdline():
    """The interpreter's own command line where the OS shows it (Linux), else []."""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            return _os.fsdecode(f.read()).split("\0")
    except OSError:
        return []


def _version():
    """(__version__, __version_tuple__), read on first access (__getattr__): a wheel writes
    _version.py; a source checkout, which has none, reports the upstream release it matches
    (the failed import alone cost ~0.1 ms of every `import tvm_ffi` there)."""
    try:
        from ._version import __version__, __version_tuple__  # noqa: PLC0415
    except ImportError:
        return "0.1.15.post2", (0, 1, 15, "post2")
    return __version__, __version_tuple__


# name -> (submodule, attribute) of the names imported on first access; attribute None: the
# submodule itself (filled below unless in config mode)
_LAZY = {}


def __getattr__(name):
    if name in ("__version__", "__version_tuple__"):
        globals()["__version__"], globals()["__version_tuple__"] = _version()
        return globals()[name]
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError("module 'tvm_ffi' has no attribute %r" % name)
    from importlib import import_module  # noqa: PLC0415

    mod = import_module("." + entry[0], __name__)
    value = mod if entry[1] is None else getattr(mod, entry[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"__version__", "__version_tuple__"})


if not _config_mode():
    # (`python -m tvm_ffi.config` / `tvm-ffi-config` needs libinfo only, so the runtime is not
    # loaded there: fast, works without a built runtime, nothing on stderr.)
    # Eager: what the first call needs (the runtime, core).  Everything else, the containers
    # too (a result binds to its class through _function._LAZY_CLASS_MODULES), is imported on
    # first access by __getattr__ (_LAZY): `import tvm_ffi` must stay within 5 ms.  To export
    # a new name, add it to _LAZY (and to __all__ when the spec lists it there) rather than
    # importing it here.
    from . import core  # (initialises the call path: from_dlpack is bound after it)
    from ._base import Object  # noqa: F401
    from ._conversion import CAny  # noqa: F401
    from ._function import Function  # noqa: F401
    from ._tensor import Tensor, from_dlpack  # noqa: F401
    from ._values import Device  # noqa: F401

    # The torch C DLPack add-on attaches when the first torch tensor reaches tvm_ffi
    # (_conversion._classify), so import order does not matter and import stays cheap.  The stream
    # protocol patch for an older torch.cuda.Stream is needed before any tensor is seen.
    if _sys.modules.get("torch") is not None:
        from . import _optional_torch_c_dlpack

        _optional_torch_c_dlpack.patch_torch_cuda_stream_protocol()

    _LAZY["LIB"] = ("_loader", "LIB")
    for _mod, _names in (
        ("_dtype", "dtype DataTypeCode bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
                   "float64 float32 float16 bfloat16 float8_e3m4 float8_e4m3 float8_e4m3b11fnuz "
                   "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu "
                   "float6_e2m3fn float6_e3m2fn float4_e2m1fn float4_e2m1fnx2"),
        ("_tensor", "Shape device"),
        ("container", "Array List Map Dict CContainerBase"),  # (results import it on first need)
        ("_device_type", "DLDeviceType"),
        ("module", "Module load_module system_lib"),  # core imports it for ffi.Module results
        ("error", "register_error"),
        ("registry", "register_object register_global_func get_global_func "
                     "get_global_func_metadata init_ffi_api remove_global_func"),
        ("stream", "StreamContext use_raw_stream use_torch_stream get_raw_stream"),
        ("_convert", "convert convert_func ObjectConvertible"),
        ("structural", "structural_equal structural_hash get_first_structural_mismatch "
                       "StructuralKey structural_walk StructuralVisitor VisitInterrupt WalkOrder "
                       "WalkResult DefRegionKind InplaceMode StructuralMutator structural_map "
                       "structural_mutate structural_visit"),
        ("dataclasses", "method"),
    ):
        for _n in _names.split():
            _LAZY[_n] = (_mod, _n)
    for _n in ("registry", "module", "stream", "error", "serialization", "structural", "access_path",
               "container",
               "cpp", "libinfo", "dataclasses",
               "utils", "_dtype", "_tensor", "_convert", "_optional_torch_c_dlpack"):
        _LAZY[_n] = (_n, None)
    del _mod, _names, _n

    __all__ = [
        "LIB", "Array", "DLDeviceType", "Device", "Dict", "Function", "List", "Map", "Module",
        "Object", "ObjectConvertible", "Shape", "StreamContext", "Tensor", "convert", "convert_func",
        "device", "dtype", "from_dlpack", "get_global_func", "get_global_func_metadata",
        "get_raw_stream", "init_ffi_api", "load_module", "register_error", "register_global_func",
        "register_object", "remove_global_func", "system_lib", "use_raw_stream", "use_torch_stream",
        "__version__", "__version_tuple__", "serialization", "structural", "structural_equal",
        "structural_hash", "get_first_structural_mismatch", "StructuralKey", "cpp",
        "access_path", "structural_walk", "StructuralVisitor", "VisitInterrupt", "WalkOrder",
        "WalkResult", "DefRegionKind", "InplaceMode", "StructuralMutator", "structural_map",
        "structural_mutate", "structural_visit", "dataclasses", "method",
    ]
