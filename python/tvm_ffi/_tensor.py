"""Shape, device() and DLDeviceType; re-exports Tensor, Device and from_dlpack."""

import enum
import numbers

from . import core
from .core import Device, Tensor, from_dlpack  # noqa: F401 - re-exported


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


class Shape(tuple, core.PyNativeObject):
    """A tuple of ints mirroring an ffi.Shape object (kept in _tvm_ffi_cached_object)."""

    def __new__(cls, content=()):
        items = tuple(content)
        if not all(isinstance(x, numbers.Integral) for x in items):
            raise ValueError("Shape must be a tuple of integers")
        self = tuple.__new__(cls, (int(x) for x in items))
        self._tvm_ffi_cached_object = core._global("ffi.Shape")(*self)._tvm_ffi_cached_object
        return self

    @classmethod
    def _from_handle(cls, h):
        cell = core.ffi.cast("TVMFFIShapeCell*", h + core._OBJ_HEADER)
        self = tuple.__new__(cls, (cell.data[i] for i in range(cell.size)))
        self._tvm_ffi_cached_object = core._new_wrapper(core.Object, h)
        return self

    def __reduce__(self):
        return (Shape, (tuple(self),))


def device(device_type, index=None):
    """Build a device (of the current device class) from a name, 'name:index' or a code."""
    cls = core._CLASS_DEVICE
    d = Device(device_type, index)
    if cls is Device:
        return d
    return cls.__new__(cls)._init(d._code, d._index)
