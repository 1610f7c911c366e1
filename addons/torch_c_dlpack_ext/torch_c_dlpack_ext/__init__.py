"""torch_c_dlpack_ext: prebuilt torch C DLPack add-ons.  Importing the package gives
torch.Tensor the DLPack C exchange table (``__dlpack_c_exchange_api__`` capsule and the legacy
``__c_dlpack_exchange_api__`` int) from the library built for this (python, torch) pair;
ImportError when there is none.  tvm_ffi imports it before building an add-on itself.
"""
import ctypes
import os

import torch

from ._key import key

_LIB = None


def _attach():
    global _LIB
    if hasattr(torch.Tensor, "__dlpack_c_exchange_api__") or hasattr(
            torch.Tensor, "__c_dlpack_exchange_api__"):
        return  # torch has it natively (or someone attached it already)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", key(torch),
                        "libtorch_c_dlpack_addon.so")
    if not os.path.isfile(path):
        raise ImportError("No matching prebuilt torch c dlpack extension (%s)" % path)
    lib = ctypes.CDLL(path)
    fn = lib.TorchDLPackExchangeAPIPtr
    fn.restype, fn.argtypes = ctypes.c_uint64, []
    address = fn()
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    torch.Tensor.__c_dlpack_exchange_api__ = address
    torch.Tensor.__dlpack_c_exchange_api__ = new(ctypes.c_void_p(address), b"dlpack_exchange_api",
                                                 None)
    _LIB = lib


_attach()
