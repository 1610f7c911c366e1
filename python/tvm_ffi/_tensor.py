"""Tensors: ``Tensor`` (an ffi.Tensor), ``from_dlpack`` and the DLPack exchange API checks,
``Shape`` and ``device()``."""

from . import _values
from ._base import (
    _cell_handle,
    _field_writer,
    _seal_slot,
    _TensorBase,
    _FFI_ERROR,
    _OBJ_HEADER,
    _OK,
    _PY_ERROR,
    CObject,
    Object,
    _addr,
    _new_wrapper,
    _ptr,
)
from ._function import _global
from ._loader import API_MODE, ffi, lib
from ._type_index import kTVMFFITensor
from ._values import Device, PyNativeObject, _dtype_pack, _is_integral
from .error import _raise_ffi_error, _take_exception


# ---------------------------------------------------------------------------------------------
# the DLPack C exchange API of a framework's tensor type (checked once per type)


# cffi builds a lib function on its first access (~5k instructions): fetched at import, not by
# the first torch call of a process
_api_fields_c = lib.ffipy_exchange_api_fields if API_MODE else None


class DLPackExchangeAPIError(TypeError, ValueError):
    """A malformed ``__dlpack_c_exchange_api__``: a TypeError, and a ValueError as in the apache
    package (whose message it keeps), so code written against either catches it."""


def _exchange_api_address(attr):
    """The address of the DLPackExchangeAPI table that ``attr`` (a type's
    ``__dlpack_c_exchange_api__``) points to, after checking that it is one: a capsule named
    "dlpack_exchange_api" (a bare int cannot be checked, so it is refused), DLPack major version
    1, and the two conversion functions present -- calls jump through them unchecked.  (Runs
    once per type, on the first torch call of a process: the accepting path is kept short.)"""
    if API_MODE:  # read in C (a non-capsule reads as address 0)
        box = [attr]
        if _api_fields_c(id(box)) != _OK:
            raise _take_exception()
        fields = box[0]
    else:
        fields = _exchange_api_fields(attr) if type(attr).__name__ == "PyCapsule" else (0, 0, 0, 0)
    if fields[0] and fields[1] == __dlpack_version__[0] and fields[3] == 3:
        return fields[0]
    raise _exchange_api_refusal(attr, *fields)


def _exchange_api_refusal(attr, addr, major, minor, present):
    """The DLPackExchangeAPIError saying why _exchange_api_address refused attr."""
    if type(attr).__name__ != "PyCapsule":
        why = '__dlpack_c_exchange_api__ must be a PyCapsule named "dlpack_exchange_api", got %s' % (
            type(attr).__name__)
    elif not addr:
        name = _capsule_name(attr)
        why = 'the __dlpack_c_exchange_api__ capsule is named %r, not "dlpack_exchange_api"' % (
            name.decode("latin-1") if name else None)
    elif major != __dlpack_version__[0]:
        why = "the table reports DLPack version %d.%d, this build knows major version %d" % (
            major, minor, __dlpack_version__[0])
    else:
        why = "the table's %s is NULL" % ("managed_tensor_from_py_object_no_sync"
                                            if not present & 1 else
                                            "managed_tensor_to_py_object_no_sync")
    return DLPackExchangeAPIError("Expect a dlpack_exchange_api field: " + why)


def _exchange_api_fields(capsule):
    """(address, DLPack major, minor, conversion functions present as bits 1 and 2) of an
    exchange table capsule in ABI mode; address 0 when the capsule has another name.  The
    compiled module reads them in C (ffipy_exchange_api_fields): cffi realising the table's
    type costs ~0.2 M instructions."""
    if _capsule_name(capsule) != b"dlpack_exchange_api":
        return (0, 0, 0, 0)
    from . import _capi  # noqa: PLC0415 - it loads ctypes (~1 ms), which `import tvm_ffi` does not

    addr = _capi.capsule_pointer(capsule, b"dlpack_exchange_api")
    api = ffi.cast("DLPackExchangeAPI*", addr)
    present = ((api.managed_tensor_from_py_object_no_sync != ffi.NULL) |
               (api.managed_tensor_to_py_object_no_sync != ffi.NULL) << 1)
    return (addr, api.header.version.major, api.header.version.minor, present)


# ---------------------------------------------------------------------------------------------
# Tensor


class Tensor(*((CObject, _TensorBase) if API_MODE else (CObject,))):
    """A managed n-dimensional array (ffi.Tensor) sharing memory with its producer."""

    __slots__ = () if API_MODE else ("_view",)  # (API mode: `_view` is the C base's)

    def __new__(cls, *args, **kwargs):
        self = CObject.__new__(cls)
        _set_view(self, 0)
        return self

    def _dl(self):
        if not isinstance(self, Tensor) or self._h:
            h = _cell_handle(self, kTVMFFITensor, "a Tensor accessor")
            return ffi.cast("DLTensor*", h + _OBJ_HEADER)
        if self._view:
            return ffi.cast("DLTensor*", self._view)
        raise ValueError("Tensor has no handle")

    @property
    def shape(self):
        dl = self._dl()
        return tuple(dl.shape[i] for i in range(dl.ndim))

    @property
    def ndim(self):
        return self._dl().ndim

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def size(self, idx):
        ndim = self.ndim
        i = idx + ndim if idx < 0 else idx
        if i < 0 or i >= ndim:
            raise IndexError(
                "Dimension %d out of range for tensor with %d dimensions" % (idx, ndim)
            )
        return self._dl().shape[i]

    @property
    def strides(self):
        dl = self._dl()
        if dl.strides == ffi.NULL:
            out, acc = [], 1
            for s in reversed(self.shape):
                out.append(acc)
                acc *= s
            return tuple(reversed(out))
        return tuple(dl.strides[i] for i in range(dl.ndim))

    def is_contiguous(self):
        dl = self._dl()
        if dl.strides == ffi.NULL:
            return True
        shape = self.shape
        if any(s == 0 for s in shape):
            return True
        expect = 1
        for i in reversed(range(dl.ndim)):
            if shape[i] != 1 and dl.strides[i] != expect:
                return False
            expect *= shape[i]
        return True

    def data_ptr(self):
        dl = self._dl()
        return _addr(dl.data) + dl.byte_offset

    @property
    def dtype(self):
        from ._dtype import dtype  # noqa: PLC0415 - above core; `import tvm_ffi` skips it

        d = self._dl().dtype
        return dtype._from_packed(_dtype_pack(d.code, d.bits, d.lanes))

    @property
    def device(self):
        d = self._dl().device
        cls = _values._CLASS_DEVICE
        return cls.__new__(cls)._init(int(d.device_type), d.device_id)

    def __dlpack_device__(self):
        d = self._dl().device
        return (int(d.device_type), int(d.device_id))

    def _to_dlpack(self):
        return self._capsule(0)

    def _to_dlpack_versioned(self):
        return self._capsule(1)

    def _capsule(self, versioned):
        if not self._h:
            raise BufferError("cannot export a tensor view without a handle")
        box = [None]
        rc = lib.ffipy_tensor_to_capsule(_ptr(self._h), versioned, id(box))
        if rc == _FFI_ERROR:
            _raise_ffi_error()
        if rc == _PY_ERROR:
            raise _take_exception()
        return box[0]

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if max_version is None or int(max_version[0]) < 1:
            return self._capsule(0)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("dl_device of different type not supported")
        if copy:
            raise BufferError("copy not yet supported")
        return self._capsule(1)

    def __repr__(self):
        if not self._h:
            return "Tensor(chandle=None)"
        return CObject.__repr__(self)


# a DLTensor address the fast path reads: only the binding stores it
_set_view = _field_writer(Tensor, "_view")
_seal_slot(Tensor, "_view")


_CLASS_TENSOR = Tensor  # the class results are made of; read it as _tensor._CLASS_TENSOR
_CLASS_TENSOR_BOX = [Tensor]  # read by the C fast path


def _set_class_tensor(cls):
    global _CLASS_TENSOR
    _CLASS_TENSOR = cls
    _CLASS_TENSOR_BOX[0] = cls


def _capsule_name(obj):
    if type(obj).__name__ != "PyCapsule":
        return None
    from . import _capi  # noqa: PLC0415 - it loads ctypes (~1 ms), which `import tvm_ffi` does not

    return _capi.capsule_name(obj)


def from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False):
    """Import any DLPack producer (or capsule) as a Tensor without copying.

    Order: the type's __dlpack_c_exchange_api__ (a BufferError there falls through), then
    __dlpack__() with no arguments, then the object itself as a capsule.
    """
    box = [ext_tensor]
    rc = lib.ffipy_from_dlpack(id(box), require_alignment, 1 if require_contiguous else 0)
    if rc == _OK:
        return box[0]
    if rc == _FFI_ERROR:
        _raise_ffi_error()
    raise _take_exception()


class DLTensorTestWrapper:
    """Test helper: a type whose class carries a static DLPack exchange API over a Tensor."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, **kwargs):
        return self._tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()

    def __tvm_ffi_env_stream__(self):
        d = self._tensor.__dlpack_device__()
        return _addr(lib.TVMFFIEnvGetStream(d[0], d[1]))


__dlpack_version__ = (lib.DLPACK_MAJOR_VERSION, lib.DLPACK_MINOR_VERSION)


# ---------------------------------------------------------------------------------------------
# shapes and devices (DLDeviceType: _device_type.py)


class Shape(tuple, PyNativeObject):
    """A tuple of ints mirroring an ffi.Shape object (kept in _tvm_ffi_cached_object)."""

    def __new__(cls, content=()):
        items = tuple(content)
        if not all(_is_integral(x) for x in items):
            raise ValueError("Shape must be a tuple of integers")
        self = tuple.__new__(cls, (int(x) for x in items))
        self._tvm_ffi_cached_object = _global("ffi.Shape")(*self)._tvm_ffi_cached_object
        return self

    @classmethod
    def _from_handle(cls, h):
        cell = ffi.cast("TVMFFIShapeCell*", h + _OBJ_HEADER)
        self = tuple.__new__(cls, (cell.data[i] for i in range(cell.size)))
        self._tvm_ffi_cached_object = _new_wrapper(Object, h)
        return self

    def __reduce__(self):
        return (Shape, (tuple(self),))


def device(device_type, index=None):
    """Build a device (of the current device class) from a name, 'name:index' or a code."""
    cls = _values._CLASS_DEVICE
    d = Device(device_type, index)
    if cls is Device:
        return d
    return cls.__new__(cls)._init(d._code, d._index)
