"""ABI mode: tensors through DLPack capsules (``from_dlpack``, ``Tensor.__dlpack__``), as
``_ffi_src/dlpack.c`` does in the compiled module.

The DLPack C exchange API is not used here: its functions need the GIL, which cffi releases
around ABI-mode calls; framework tensors go through ``__dlpack__``.  Capsules are read and
made through ``_capi`` (``ctypes.pythonapi`` on CPython, a small extension module on PyPy).
"""

from . import _capi, _tensor
from ._base import _addr, _new_wrapper
from ._conversion import _SKIP_EXCHANGE
from ._loader import ffi, lib
from ._tensor import _capsule_name, _exchange_api_address
from .error import _check, _raise_ffi_error


def consume_capsule(cap, align, contig):
    """The handle of a new Tensor taking over the DLPack tensor of capsule cap (marked used)."""
    out = ffi.new("void**")
    name = _capi.capsule_name(cap)
    if name == b"dltensor_versioned":
        p = ffi.cast("DLManagedTensorVersioned*", _capi.capsule_pointer(cap, name))
        if p.version.major != lib.DLPACK_MAJOR_VERSION:
            major = p.version.major
            if p.deleter != ffi.NULL:
                p.deleter(p)
            _capi.capsule_mark_used(cap)
            raise BufferError("unsupported DLPack major version %d" % major)
        _check(lib.TVMFFITensorFromDLPackVersioned(p, align, contig, out))
    elif name == b"dltensor":
        p = ffi.cast("DLManagedTensor*", _capi.capsule_pointer(cap, name))
        _check(lib.TVMFFITensorFromDLPack(p, align, contig, out))
    elif type(cap).__name__ != "PyCapsule":  # what a producer's __dlpack__() returned
        raise ValueError("Expect a dltensor field: __dlpack__() returned %s, not a PyCapsule"
                         % type(cap).__name__)
    elif name is not None and name.startswith(b"used_dltensor"):
        raise ValueError("Expect a dltensor field, PyCapsule can only be consumed once")
    else:  # a capsule of something else (as in the compiled module's consume_capsule)
        raise ValueError('Expect a dltensor field: the PyCapsule is named %s, not "dltensor" '
                         'or "dltensor_versioned"'
                         % ('"%s"' % name.decode("utf-8", "replace") if name else "NULL"))
    _capi.capsule_mark_used(cap)
    return _addr(out[0])


def settle(r, align=0, contig=0):
    """The handle that an answer of _capi.import_tensor other than None stands for."""
    if r is False:  # the runtime refused the tensor
        _raise_ffi_error()
    return consume_capsule(r[0], align, contig)  # (the capsule,): its checks and errors


def import_handle(ext_tensor, align, contig):
    """A DLPack producer or capsule as a new Tensor handle (from_dlpack without the wrapper:
    an argument's tensor lives for the call only)."""
    tp = type(ext_tensor)
    if not _SKIP_EXCHANGE and hasattr(tp, "__dlpack_c_exchange_api__"):
        # unused here, but validated as in API mode (ValueError for a malformed field)
        _exchange_api_address(tp.__dlpack_c_exchange_api__)
    if not hasattr(tp, "__dlpack__") and _capsule_name(ext_tensor) is None:
        raise TypeError("Expect from_dlpack to take either a compatible tensor or PyCapsule")
    r = _capi.import_tensor(ext_tensor, align, contig)  # (_capi's importers: set by install)
    return _capi.take_imported() if r is None else settle(r, align, contig)


def from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False):
    """tvm_ffi.from_dlpack in ABI mode."""
    h = import_handle(ext_tensor, require_alignment, 1 if require_contiguous else 0)
    return _new_wrapper(_tensor._CLASS_TENSOR, h)  # (rebound at run time: read it there)


def tensor_capsule(self, versioned):
    """Tensor._capsule in ABI mode: a DLPack capsule exporting the tensor."""
    if not self._h:
        raise BufferError("cannot export a tensor view without a handle")
    if versioned:
        out = ffi.new("DLManagedTensorVersioned**")
        _check(lib.TVMFFITensorToDLPackVersioned(ffi.cast("void*", self._h), out))
    else:
        out = ffi.new("DLManagedTensor**")
        _check(lib.TVMFFITensorToDLPack(ffi.cast("void*", self._h), out))
    return _capi.export_tensor(_addr(out[0]), versioned)
