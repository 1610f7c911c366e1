"""Values: ``String``/``Bytes`` (builtins that may carry their FFI object), and the POD values
``DataType`` and ``Device`` (they carry ``__tvm_ffi_pod__ = (type_index, payload)``)."""

from ._base import Object, _bytearray
from ._loader import ffi, lib
from ._type_index import kTVMFFIDataType, kTVMFFIDevice
from .error import _check, _move_raised_error

# The generic object class a downstream package names (TVM's runtime of tilelang 0.1.8 calls
# core._set_class_object(Object) on import, as every 0.1.x release's core allows).  Upstream
# wraps a PyNativeObject's constructed object in it; here that object is the constructor's own
# result (below), so the class is recorded and read back, not used.
_CLASS_OBJECT = Object


def _set_class_object(cls):
    if not (isinstance(cls, type) and issubclass(cls, Object)):
        raise TypeError("_set_class_object expects a subclass of tvm_ffi.Object, got %r" % (cls,))
    global _CLASS_OBJECT
    _CLASS_OBJECT = cls


class PyNativeObject:
    """Mixin of value-like classes that subclass builtins (String, Bytes, Shape)."""

    __slots__ = ()

    def __init_cached_object_by_constructor__(self, fconstructor, *args):
        self._tvm_ffi_cached_object = fconstructor(*args)


class String(str, PyNativeObject):
    """A ``str`` that may carry the ffi.String object it came from."""

    def __new__(cls, value=""):
        self = str.__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __reduce__(self):
        return (str, (str(self),))


class Bytes(bytes, PyNativeObject):
    """A ``bytes`` that may carry the ffi.Bytes object it came from."""

    def __new__(cls, value=b""):
        self = bytes.__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __reduce__(self):
        return (bytes, (bytes(self),))


# ---------------------------------------------------------------------------------------------
# dtype and device (POD values carry __tvm_ffi_pod__ = (type_index, payload))

_DTYPE_TEXT_CACHE = {}


def _dtype_pack(code, bits, lanes):
    return (code & 0xFF) | ((bits & 0xFF) << 8) | ((lanes & 0xFFFF) << 16)


def _parse_dtype(text):
    ba, buf = _bytearray(text.encode())
    out = ffi.new("DLDataType*")
    if lib.TVMFFIDataTypeFromString(ba, out) != 0:
        err = _move_raised_error()
        raise ValueError(err.message if err is not None else "unknown dtype %r" % text)
    return out.code, out.bits, out.lanes


def _dtype_text(packed):
    text = _DTYPE_TEXT_CACHE.get(packed)
    if text is None:
        d = ffi.new("DLDataType*")
        d.code, d.bits, d.lanes = packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFFFF
        any_ = ffi.new("TVMFFIAny*")
        _check(lib.TVMFFIDataTypeToString(d, any_))
        from ._conversion import _from_owned_any  # noqa: PLC0415 - that layer builds on this one

        text = _from_owned_any(any_)
        text = str(text)
        _DTYPE_TEXT_CACHE[packed] = text
    return text


class DataType:
    """Low-level DLDataType box: type_code, bits, lanes."""

    __slots__ = ("type_code", "bits", "lanes", "__tvm_ffi_pod__")

    def __init__(self, text=None):
        if text is not None:
            self._set(*_parse_dtype(str(text)))

    def _set(self, code, bits, lanes):
        self.type_code, self.bits, self.lanes = code, bits, lanes
        self.__tvm_ffi_pod__ = (kTVMFFIDataType, _dtype_pack(code, bits, lanes))
        return self

    @property
    def itemsize(self):
        lanes = self.lanes
        if lanes >= 0x8000:
            raise ValueError("itemsize is not defined for scalable vector types")
        return (self.bits * lanes + 7) // 8

    def __str__(self):
        return _dtype_text(self.__tvm_ffi_pod__[1])

    def __repr__(self):
        return "DataType(%r)" % str(self)

    def __eq__(self, other):
        return isinstance(other, DataType) and self.__tvm_ffi_pod__ == other.__tvm_ffi_pod__

    def __hash__(self):
        return hash(self.__tvm_ffi_pod__)

    def __reduce__(self):
        return (_make_datatype, (self.type_code, self.bits, self.lanes))


def _make_datatype(code, bits, lanes):
    return DataType()._set(code, bits, lanes)


_DEVICE_NAME_TO_CODE = {
    "cpu": 1, "cuda": 2, "opencl": 4, "vulkan": 7, "metal": 8, "mps": 8, "vpi": 9, "rocm": 10,
    "ext_dev": 12, "hexagon": 16, "wgpu": 15, "webgpu": 15, "maia": 17, "trn": 18,
}
_DEVICE_CODE_TO_NAME = {
    1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi",
    10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed", 14: "oneapi", 15: "webgpu",
    16: "hexagon", 17: "maia", 18: "trn",
}


def _is_integral(v):
    if isinstance(v, int):
        return True
    import numbers  # noqa: PLC0415 - rare (not an int), and not loaded by `import tvm_ffi`

    return isinstance(v, numbers.Integral)


def _device_index(index):
    if _is_integral(index):
        return int(index)
    item = getattr(index, "item", None)
    if callable(item):
        value = item()
        if _is_integral(value):
            return int(value)
    raise TypeError("Invalid device index: %r" % (index,))


class Device:
    """A (device_type, index) pair (DLDevice)."""

    __slots__ = ("_code", "_index", "__tvm_ffi_pod__")

    def __init__(self, device_type, index=None):
        if isinstance(device_type, str):
            text = device_type.split(" ", 1)[0]
            parts = text.split(":")
            if len(parts) > 2:
                raise ValueError("Invalid device: %s" % device_type)
            name = parts[0]
            if name not in _DEVICE_NAME_TO_CODE:
                raise ValueError("Unknown device: %s" % name)
            code = _DEVICE_NAME_TO_CODE[name]
            if len(parts) == 2:
                try:
                    index = int(parts[1])
                except ValueError:
                    raise ValueError("Invalid device index: %s" % device_type) from None
        elif _is_integral(device_type):
            code = int(device_type)
        else:
            raise TypeError("Invalid device type: %r" % (device_type,))
        index = 0 if index is None else _device_index(index)
        for what, v in (("type", code), ("index", index)):
            if not -(1 << 31) <= v < 1 << 31:  # DLDevice holds two int32 (negative ids pass)
                raise OverflowError("device %s %d does not fit in int32" % (what, v))
        self._init(code, index)

    def _init(self, code, index):
        self._code = code
        self._index = index
        self.__tvm_ffi_pod__ = (kTVMFFIDevice, (code & 0xFFFFFFFF) | ((index & 0xFFFFFFFF) << 32))
        return self

    @property
    def type(self):
        return _DEVICE_CODE_TO_NAME[self._code]

    def __device_type_name__(self):
        return _DEVICE_CODE_TO_NAME[self._code]

    @property
    def index(self):
        return self._index

    def dlpack_device_type(self):
        return self._code

    def __str__(self):
        return "%s:%d" % (self.type, self._index)

    def __repr__(self):
        return "device(type='%s', index=%d)" % (self.type, self._index)

    def __eq__(self, other):
        return isinstance(other, Device) and (self._code, self._index) == (other._code, other._index)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._code, self._index))

    def __reduce__(self):
        return (_make_device, (type(self), self._code, self._index))


def _make_device(cls, code, index):
    return cls.__new__(cls)._init(code, index)


_CLASS_DEVICE = Device  # the class results are made of; read it as _values._CLASS_DEVICE


def _set_class_device(cls):
    global _CLASS_DEVICE
    _CLASS_DEVICE = cls


def _device_from_payload(payload):
    code = payload & 0xFFFFFFFF
    index = (payload >> 32) & 0xFFFFFFFF
    if index >= 1 << 31:
        index -= 1 << 32
    return _CLASS_DEVICE.__new__(_CLASS_DEVICE)._init(code, index)

