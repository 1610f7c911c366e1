"""ABI mode: Python objects handed to the runtime as opaque objects (kTVMFFIOpaquePyObject),
and back (as ``_ffi_src/callbacks.c`` does in the compiled module).

On CPython an opaque object holds the Python object's address and one reference to it
(``ctypes.pythonapi``); elsewhere (PyPy) objects have no addresses: it holds a cffi handle,
which ``_OPAQUE`` keeps alive until the runtime's deleter runs, and no wrapper can be found
again from an address.
"""

import sys

from . import _capi
from ._base import _addr, _new_wrapper
from ._conversion import OpaquePyObject
from ._loader import ffi, lib
from ._type_index import kTVMFFIOpaquePyObject
from .error import _raise_ffi_error

BY_ADDRESS = _capi._api is not None  # Python objects by address (ctypes.pythonapi): CPython
if BY_ADDRESS:
    import ctypes

    _incref = _capi._api.Py_IncRef
    _incref.argtypes = [ctypes.py_object]
    _decref_ptr = _capi._api.Py_DecRef
    _decref_ptr.argtypes = [ctypes.c_void_p]

_OPAQUE = {}  # handle address -> cffi handle of an opaque object (no object addresses: PyPy)


def pyobj_from_ptr(p):
    """The Python object an opaque object's cell points to."""
    if BY_ADDRESS:
        return ctypes.cast(_addr(p), ctypes.py_object).value
    return ffi.from_handle(p)


# Deleters may run while the interpreter shuts down: then they leak instead of touching it.
@ffi.callback("void(void*)")
def _decref_deleter(p, _is_finalizing=sys.is_finalizing):
    try:
        if not _is_finalizing():
            if BY_ADDRESS:
                _decref_ptr(_addr(p))
            else:
                _OPAQUE.pop(_addr(p), None)
    except BaseException:  # noqa: BLE001
        pass


def make_opaque(v):
    """_conversion._make_opaque: a new OpaquePyObject holding v."""
    out = ffi.new("void**")
    if BY_ADDRESS:
        _incref(v)
        if lib.TVMFFIObjectCreateOpaque(ffi.cast("void*", id(v)), kTVMFFIOpaquePyObject,
                                        _decref_deleter, out) != 0:
            _decref_ptr(id(v))
            _raise_ffi_error()
    else:
        handle = ffi.new_handle(v)
        _OPAQUE[_addr(handle)] = handle
        if lib.TVMFFIObjectCreateOpaque(handle, kTVMFFIOpaquePyObject, _decref_deleter, out) != 0:
            _OPAQUE.pop(_addr(handle), None)
            _raise_ffi_error()
    return _new_wrapper(OpaquePyObject, _addr(out[0]))
