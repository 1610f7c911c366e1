"""ctypes mirrors of the DLPack structs (dlpack.h v1.x, x86-64 layouts)."""
import ctypes

_DEVICE_LABELS = {1: "DLCPU", 2: "DLCUDA", 3: "DLCUDAHost", 4: "DLOpenCL", 7: "DLVulkan",
                  8: "DLMetal", 9: "DLVPI", 10: "DLROCM", 11: "DLROCMHost", 12: "DLExtDev",
                  13: "DLCUDAManaged"}
_CODE_LABELS = {0: "DLInt", 1: "DLUInt", 2: "DLFloat", 3: "DLOpaqueHandle", 4: "DLBfloat",
                5: "DLComplex", 6: "DLBool"}

kDLCPU, kDLCUDA = 1, 2
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = range(7)
DLPACK_FLAG_BITMASK_READ_ONLY = 1
DLPACK_FLAG_BITMASK_IS_COPIED = 2


class _Labeled:
    """An enum value with ``label`` (KeyError for values this module does not know)."""

    _labels = {}

    @property
    def label(self):
        return self._labels[self.value]

    @classmethod
    def from_label(cls, label):
        for k, v in cls._labels.items():
            if v == label:
                return cls(k)
        raise KeyError(label)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.label)


class DLDeviceType(_Labeled, ctypes.c_int32):
    _labels = _DEVICE_LABELS


class DLDataTypeCode(_Labeled, ctypes.c_uint8):
    _labels = _CODE_LABELS


def _tuple(p, n):
    return None if not p else tuple(p[i] for i in range(n))


class _Struct(ctypes.Structure):
    def todict(self):
        out = {}
        for name, _ in self._fields_:
            v = getattr(self, name)
            if isinstance(v, _Struct):
                v = v.todict()
            elif isinstance(v, _Labeled):
                v = v.label
            out[name] = v
        return out

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in self.todict().items()))


class DLDevice(_Struct):
    _fields_ = [("device_type", DLDeviceType), ("device_id", ctypes.c_int32)]


class DLDataType(_Struct):
    _fields_ = [("code", DLDataTypeCode), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(_Struct):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]

    def todict(self):
        return {
            "data": self.data,
            "device": self.device.todict(),
            "ndim": self.ndim,
            "dtype": self.dtype.todict(),
            "shape": _tuple(self.shape, self.ndim),
            "strides": _tuple(self.strides, self.ndim),
            "byte_offset": self.byte_offset,
        }


class DLPackVersion(_Struct):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION = 1, 0

# Deleters take the managed struct's address (void*), so one prototype serves both layouts.
Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(_Struct):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", Deleter)]

    def todict(self):
        return {"dl_tensor": self.dl_tensor.todict(), "manager_ctx": self.manager_ctx,
                "deleter": self.deleter}


class DLManagedTensorVersioned(_Struct):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

    def todict(self):
        return {"version": self.version.todict(), "manager_ctx": self.manager_ctx,
                "deleter": self.deleter, "flags": self.flags,
                "dl_tensor": self.dl_tensor.todict()}


assert ctypes.sizeof(DLTensor) == 48 and ctypes.sizeof(DLManagedTensor) == 64
assert ctypes.sizeof(DLManagedTensorVersioned) == 80
