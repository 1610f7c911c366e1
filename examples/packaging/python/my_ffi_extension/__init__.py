"""my_ffi_extension: a C++ library exposed through tvm_ffi."""

from .base import _LIB
from . import _ffi_api


def add_one(x, y):
    """y = x + 1 for 1-D float32 CPU tensors (anything DLPack: torch, numpy, tvm_ffi)."""
    return _LIB.add_one(x, y)


def raise_error(msg):
    """Raise a RuntimeError from C++; its traceback shows the C++ file and line."""
    return _ffi_api.raise_error(msg)


__all__ = ["add_one", "raise_error"]
