"""Loads the extension library shipped inside the package."""

import os
import sys

import tvm_ffi  # first: it loads libtvm_ffi globally, which the extension needs


def _load_lib():
    file_dir = os.path.dirname(os.path.realpath(__file__))
    if sys.platform.startswith("win32"):
        lib_name = "my_ffi_extension.dll"
    elif sys.platform.startswith("darwin"):
        lib_name = "my_ffi_extension.dylib"
    else:
        lib_name = "my_ffi_extension.so"
    return tvm_ffi.load_module(os.path.join(file_dir, lib_name))


_LIB = _load_lib()
