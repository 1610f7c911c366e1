"""dlpack (pydlpack-compatible): export any array-like Python object through DLPack.

``asdlpack(obj)`` wraps an object speaking one of four producer protocols -- DLPack, the NumPy
array interface v3, the CUDA array interface v2/v3, or the buffer protocol -- in a
``DLPackObject`` that any DLPack consumer (``numpy.from_dlpack``, ``torch.from_dlpack``, ...)
imports without copying.  See README.md for the deliberate differences from pydlpack 0.2.1.
"""
import ctypes
import sys
import threading
import warnings

from . import buffer as _buffer
from ._structs import (DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor,
                       DLManagedTensorVersioned, DLPackVersion, DLTensor, Deleter,
                       DLPACK_FLAG_BITMASK_READ_ONLY, kDLBool, kDLComplex, kDLCPU, kDLCUDA,
                       kDLFloat, kDLInt, kDLUInt)
from .capsule import Capsule, PyCapsule_Destructor, check_capsule

__all__ = ["asdlpack"]

try:
    from importlib.metadata import version as _version

    __version__ = _version("pydlpack")
except Exception:  # noqa: BLE001 - not installed as a distribution
    __version__ = "N/A"

_LEGACY_NAME = b"dltensor"
_VERSIONED_NAME = b"dltensor_versioned"

# ---- export bookkeeping ---------------------------------------------------------------------
# Every __dlpack__() call allocates its own managed struct (plus shape/strides arrays); the
# entry lives until the consumer calls the deleter, or until the capsule dies unconsumed.
# The entry holds the DLPackObject's metadata owner, which holds the producer object.

_LIVE = {}  # struct address -> (struct, shape array, strides array, owner)
_LIVE_LOCK = threading.Lock()


def _release(addr):
    try:
        with _LIVE_LOCK:
            _LIVE.pop(addr, None)
    except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to release
        pass


_DELETER = Deleter(_release)


def _capsule_field(cap, index):
    # PyCapsule after PyObject_HEAD: pointer, name, context, destructor (unchanged since 3.1).
    return ctypes.c_void_p.from_address(cap + ctypes.sizeof(ctypes.c_void_p) * (2 + index)).value


def _capsule_destructor(cap):
    # A capsule still carrying one of our names was never consumed: release its tensor.
    # Only plain memory reads here: the capsule may die while an exception is pending (a
    # consumer that rejected it), and any C-API call made through ctypes would re-raise that.
    name = _capsule_field(cap, 1)
    if not name:
        return
    for ours in (_LEGACY_NAME, _VERSIONED_NAME):
        if (ctypes.c_char * (len(ours) + 1)).from_address(name).raw == ours + b"\0":
            _release(_capsule_field(cap, 0))
            return


_CAPSULE_DESTRUCTOR = PyCapsule_Destructor(_capsule_destructor)
_PyCapsule_New = ctypes.pythonapi["PyCapsule_New"]
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, PyCapsule_Destructor]


class DLManagedTensorImpl:
    """The metadata of one wrapped tensor and the factory of its managed structs."""

    def __init__(self, base, data, device, dtype, shape, strides, byte_offset=0, readonly=False,
                 impl_cls=None, version=(1, 0)):
        self.impl_cls = impl_cls or DLManagedTensor
        if self.impl_cls not in (DLManagedTensor, DLManagedTensorVersioned):
            raise TypeError("impl_cls must be DLManagedTensor or DLManagedTensorVersioned, got %r"
                            % (self.impl_cls,))
        self.base = base  # the producer (or what keeps its memory alive)
        self.data = data or None
        self.device = device  # (device_type, device_id)
        self.dtype = dtype  # (code, bits, lanes)
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.byte_offset = byte_offset
        self.readonly = bool(readonly)
        self.version = version
        self._template = self.make(self.impl_cls)  # what managed_pointer shows

    def make(self, cls):
        """A new managed struct of ``cls`` with its own shape/strides arrays."""
        m = cls()
        ndim = len(self.shape)
        shape = (ctypes.c_int64 * ndim)(*self.shape)
        strides = (ctypes.c_int64 * ndim)(*self.strides)
        t = m.dl_tensor
        t.data = self.data
        t.device.device_type = self.device[0]
        t.device.device_id = self.device[1]
        t.ndim = ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = self.dtype
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = self.byte_offset
        m.manager_ctx = None
        m.deleter = _DELETER
        if cls is DLManagedTensorVersioned:
            m.version.major, m.version.minor = self.version
            m.flags = DLPACK_FLAG_BITMASK_READ_ONLY if self.readonly else 0
        return m, shape, strides

    @property
    def managed_pointer(self):
        return ctypes.addressof(self._template[0])

    def get_dlpack_device(self):
        return self.device

    def get_dlpack_data(self):
        return self.data

    def export(self, versioned):
        m, shape, strides = self.make(DLManagedTensorVersioned if versioned else DLManagedTensor)
        addr = ctypes.addressof(m)
        with _LIVE_LOCK:
            _LIVE[addr] = (m, shape, strides, self)
        try:
            return _PyCapsule_New(addr, _VERSIONED_NAME if versioned else _LEGACY_NAME,
                                  _CAPSULE_DESTRUCTOR)
        except BaseException:
            _release(addr)
            raise


class DLPackObject:
    """A light object speaking the DLPack Python protocol over a wrapped producer."""

    __slots__ = ("impl", "__weakref__")

    def __init__(self, impl):
        self.impl = impl

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """A new capsule; ``max_version >= (1, 0)`` gets a ``dltensor_versioned`` one.

        ``stream`` is accepted and ignored (no synchronisation; CPU data needs none).
        ``dl_device`` must be None or this tensor's device; ``copy=True`` is refused
        (BufferError): asdlpack only ever shares memory."""
        if dl_device is not None and tuple(dl_device) != self.impl.device:
            raise BufferError("asdlpack cannot move data: the tensor lives on %r, requested %r"
                              % (self.impl.device, tuple(dl_device)))
        if copy:
            raise BufferError("asdlpack never copies (copy=True requested); copy the result "
                              "in the consumer instead")
        if max_version is None:
            versioned = self.impl.impl_cls is DLManagedTensorVersioned
        else:
            versioned = int(max_version[0]) >= 1
        return self.impl.export(versioned)

    def __dlpack_device__(self):
        return self.impl.device

    def __repr__(self):
        return "DLPackObject(device=%r, dtype=%r, shape=%r)" % (
            self.impl.device, self.impl.dtype, self.impl.shape)


# ---- helpers -------------------------------------------------------------------------------


def _get_strides(shape, strides=None, itemsize=1):
    """Element strides: byte ``strides`` floor-divided by ``itemsize``, or C order if None."""
    if strides is not None:
        return tuple(int(s) // itemsize for s in strides)
    out = []
    step = 1
    for n in reversed(tuple(shape)):
        out.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(out))


def _is_big_endian_mismatch(order):
    """True when a byte-order mark says non-native order (DLPack has no byte order)."""
    if order in (">", "!"):
        return sys.byteorder == "little"
    if order == "<":
        return sys.byteorder == "big"
    return False


_TYPESTR_KINDS = {"i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex, "b": kDLBool}
_TYPESTR_UNSUPPORTED = {"t": "Bit", "m": "Timedelta", "M": "Datetime", "O": "Object",
                        "S": "String", "U": "Unicode", "V": "VoidP"}


def _parse_typestr(typestr):
    order, kind, size = typestr[0], typestr[1], int(typestr[2:])
    assert order in "<>|", typestr
    if kind in _TYPESTR_UNSUPPORTED:
        raise ValueError("DLPack does not support `%s` type" % _TYPESTR_UNSUPPORTED[kind])
    if kind not in _TYPESTR_KINDS:
        raise ValueError("DLPack does not support `%s` type" % kind)
    if size > 1 and _is_big_endian_mismatch(order):
        raise ValueError("DLPack does not support non-native byte order (typestr %r); "
                         "convert the data to native order first" % typestr)
    return (_TYPESTR_KINDS[kind], 8 * size, 1), size


def _interface_meta(ai, what):
    data = ai.get("data")
    if not isinstance(data, tuple):
        raise NotImplementedError("buffer object %s" % (data,))
    offset = ai.get("offset", 0)
    assert offset == 0, offset
    dtype, itemsize = _parse_typestr(ai["typestr"])
    shape = tuple(ai["shape"])
    strides = _get_strides(shape, ai.get("strides"), itemsize)
    if ai.get("mask") is not None:
        warnings.warn("%s ignores mask" % what, UserWarning, stacklevel=3)
    return data[0], bool(data[1]), dtype, shape, strides


# ---- producers -----------------------------------------------------------------------------


def asdlpack_dlpack(obj, impl_cls=None):
    """Wraps a DLPack producer: reads (without consuming) the capsule of ``obj.__dlpack__()``."""
    cap = obj.__dlpack__()
    d = todict(cap)
    del cap  # dropped unconsumed: the producer's deleter runs; obj keeps the data alive
    t = d["dl_tensor"]
    dev = DLDeviceType.from_label(t["device"]["device_type"]).value
    code = DLDataTypeCode.from_label(t["dtype"]["code"]).value
    shape = t["shape"] or ()
    strides = t["strides"] if t["strides"] is not None else _get_strides(shape)
    flags = d.get("flags", 0)
    return DLPackObject(DLManagedTensorImpl(
        obj, t["data"], (dev, t["device"]["device_id"]),
        (code, t["dtype"]["bits"], t["dtype"]["lanes"]), shape, strides, t["byte_offset"],
        readonly=bool(flags & DLPACK_FLAG_BITMASK_READ_ONLY), impl_cls=impl_cls))


def asdlpack_array_interface_v3(obj, impl_cls=None):
    """Wraps an object with a NumPy ``__array_interface__`` (version 3), on the CPU."""
    ai = obj.__array_interface__
    assert ai.get("version") == 3, ai.get("version")
    ptr, ro, dtype, shape, strides = _interface_meta(ai, "export_array_interface_v3")
    return DLPackObject(DLManagedTensorImpl(obj, ptr, (kDLCPU, 0), dtype, shape, strides,
                                            readonly=ro, impl_cls=impl_cls))


def asdlpack_array_interface_v2(obj, impl_cls=None):
    """The v2 interface (``__array_shape__``/``__array_typestr__``) is not supported."""
    raise NotImplementedError(type(obj).__name__)


_LIBCUDA = []  # [handle or None], resolved once


def _cuda_device_of(ptr):
    """Device ordinal of a CUDA pointer through the driver API, or 0 when unavailable."""
    if not _LIBCUDA:
        try:
            _LIBCUDA.append(ctypes.CDLL("libcuda.so.1"))
        except OSError:
            _LIBCUDA.append(None)
    cuda = _LIBCUDA[0]
    if cuda is None:
        return 0
    ordinal = ctypes.c_int(0)
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
    try:
        rc = cuda.cuPointerGetAttribute(ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                        ctypes.c_uint64(ptr))
    except AttributeError:
        return 0
    return ordinal.value if rc == 0 else 0


def asdlpack_cuda_array_interface(obj, impl_cls=None):
    """Wraps an object with a ``__cuda_array_interface__`` (version 2 or 3)."""
    ai = obj.__cuda_array_interface__
    assert ai.get("version", 0) >= 2, ai.get("version")
    ptr, ro, dtype, shape, strides = _interface_meta(ai, "asdlpack_cuda_array_interface")
    if ai.get("stream") is not None:
        warnings.warn("asdlpack_cuda_array_interface ignores stream", UserWarning, stacklevel=2)
    device = (kDLCUDA, _cuda_device_of(ptr) if ptr else 0)
    return DLPackObject(DLManagedTensorImpl(obj, ptr, device, dtype, shape, strides,
                                            readonly=ro, impl_cls=impl_cls))


_FORMAT_CODES = {}
for _c in "cbhilq":
    _FORMAT_CODES[_c] = kDLInt
for _c in "BHILQ":
    _FORMAT_CODES[_c] = kDLUInt
for _c in "efd":
    _FORMAT_CODES[_c] = kDLFloat
for _c in ("Ze", "Zf", "Zd"):
    _FORMAT_CODES[_c] = kDLComplex
_FORMAT_CODES["?"] = kDLBool


def asdlpack_buffer(obj, impl_cls=None):
    """Wraps an object with the buffer protocol (bytes, bytearray, array.array, memoryview...).

    The buffer view is held as long as any export is alive, so the exporter cannot resize or
    close the memory (bytearray, array.array, mmap) under a consumer."""
    buf = _buffer.Buffer(obj, _buffer.PyBUF_RECORDS_RO)
    fmt = buf.format or "B"
    order = fmt[0] if fmt[0] in "@=<>!" else ""
    code_fmt = fmt.lstrip("@=<>!")
    if code_fmt not in _FORMAT_CODES:
        buf.release()
        raise AssertionError(fmt)
    if buf.itemsize > 1 and _is_big_endian_mismatch(order):
        buf.release()
        raise ValueError("DLPack does not support non-native byte order (format %r)" % fmt)
    shape = buf.shape or ()
    strides = _get_strides(shape, buf.strides, buf.itemsize)
    impl = DLManagedTensorImpl((obj, buf), buf.pointer, (kDLCPU, 0),
                               (_FORMAT_CODES[code_fmt], 8 * buf.itemsize, 1), shape, strides,
                               readonly=True, impl_cls=impl_cls)
    return DLPackObject(impl)


def asdlpack(obj, impl_cls=None):
    """A DLPackObject over ``obj``: DLPack, then array interface v3, then CUDA array
    interface, then (v2 interface: NotImplementedError) the buffer protocol."""
    if hasattr(obj, "__dlpack__"):
        return asdlpack_dlpack(obj, impl_cls=impl_cls)
    if hasattr(obj, "__array_interface__"):
        return asdlpack_array_interface_v3(obj, impl_cls=impl_cls)
    if hasattr(obj, "__cuda_array_interface__"):
        return asdlpack_cuda_array_interface(obj, impl_cls=impl_cls)
    if hasattr(obj, "__array_shape__") and hasattr(obj, "__array_typestr__"):
        return asdlpack_array_interface_v2(obj, impl_cls=impl_cls)
    return asdlpack_buffer(obj, impl_cls=impl_cls)


# ---- decoding ------------------------------------------------------------------------------


def todict(capsule):
    """The managed tensor of a DLPack capsule as a dict (the capsule is not consumed).

    ``dltensor_versioned`` capsules are read as DLManagedTensorVersioned.  For ``dltensor``
    capsules, ours are looked up; foreign ones go through pydlpack's layout heuristic (the
    first 8 bytes as two uint32: either above 10000 means a legacy struct's data pointer)."""
    check_capsule(capsule)
    cap = Capsule(capsule)
    name = cap.get_name()
    if name not in ("dltensor", "dltensor_versioned"):
        raise ValueError("%s-capsule is not a valid dltensor-capsule" % name)
    ptr = cap.get_pointer(name)
    if name == "dltensor_versioned":
        cls = DLManagedTensorVersioned
    else:
        with _LIVE_LOCK:
            ours = _LIVE.get(ptr)
        if ours is not None:
            cls = type(ours[0])
        else:
            a, b = (ctypes.c_uint32 * 2).from_address(ptr)
            cls = DLManagedTensor if (a > 10000 or b > 10000) else DLManagedTensorVersioned
    return cls.from_address(ptr).todict()
