"""tvm_ffi_orcjit: load relocatable object files (.o) as TVM FFI modules through LLVM ORC JIT.

Importing the package loads ``libtvm_ffi_orcjit.so``, which registers the global functions
``tvm_ffi_orcjit.*`` and the loader ``ffi.Module.load_from_file.o`` (so that
``tvm_ffi.load_module("x.o")`` works too).
"""
import ctypes
import os
import sys
import warnings

import tvm_ffi

_LIB_NAME = {"win32": "tvm_ffi_orcjit.dll", "darwin": "libtvm_ffi_orcjit.dylib"}.get(
    sys.platform, "libtvm_ffi_orcjit.so")


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    paths = []
    env = os.environ.get("TVM_FFI_ORCJIT_LIBRARY")  # a build tree (make check) or a custom install
    if env:
        paths.append(env if not os.path.isdir(env) else os.path.join(env, _LIB_NAME))
    paths.append(os.path.join(here, "lib", _LIB_NAME))
    paths.append(os.path.normpath(os.path.join(here, "..", "..", "build", _LIB_NAME)))
    return paths


def _load():
    paths = _candidates()
    found = [p for p in paths if os.path.isfile(p)]
    if not found:
        raise RuntimeError(
            "Could not find %s. Searched in %s and site-packages. "
            "Please ensure the package is installed correctly." % (_LIB_NAME, paths))
    path = found[0]
    # Loading it as a module runs its static initialiser (registers the globals); the library
    # is linked with -z nodelete, so dropping that module never unmaps the registered code.
    tvm_ffi.load_module(path)
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib.TVMFFIOrcJITInitialize()
    except Exception as e:  # noqa: BLE001 - the static initialiser already registered
        warnings.warn("Failed to explicitly initialize orcjit library: %s" % e, stacklevel=2)
    return path


_LIB_PATH = _load()

# The loader raises kind "IOError" for unreadable files (C.9): surface it as OSError.
if "IOError" not in tvm_ffi.core.ERROR_NAME_TO_TYPE:
    tvm_ffi.register_error("IOError", OSError)

from .session import ExecutionSession, default_session  # noqa: E402
from .loader import ObjectLoader  # noqa: E402

try:
    from importlib.metadata import version as _version

    __version__ = _version("apache-tvm_ffi_orcjit")
except Exception:  # noqa: BLE001 - not installed as a distribution
    __version__ = "0.0.0.dev0"

__all__ = ["ExecutionSession", "default_session", "ObjectLoader"]
