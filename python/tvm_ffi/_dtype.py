"""tvm_ffi.dtype: a str subclass describing a DLDataType."""

import enum
import operator
import sys

from ._values import DataType, _dtype_pack, _dtype_text



class DataTypeCode(enum.IntEnum):
    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    BOOL = 6
    Float8E3M4 = 7
    Float8E4M3 = 8
    Float8E4M3B11FNUZ = 9
    Float8E4M3FN = 10
    Float8E4M3FNUZ = 11
    Float8E5M2 = 12
    Float8E5M2FNUZ = 13
    Float8E8M0FNU = 14
    Float6E2M3FN = 15
    Float6E3M2FN = 16
    Float4E2M1FN = 17


_FLOAT_CODES = {2, 4} | set(range(7, 18))


def _checked_pack(code, bits, lanes):
    """Pack a DLDataType, refusing fields that would wrap (code, bits: uint8; lanes: uint16,
    or a negative int16 for scalable vectors)."""
    code, bits, lanes = operator.index(code), operator.index(bits), operator.index(lanes)
    if not (0 <= code <= 0xFF and 0 <= bits <= 0xFF and -0x8000 <= lanes <= 0xFFFF):
        raise OverflowError(
            "DLDataType field out of range: code=%d (0..255), bits=%d (0..255), lanes=%d "
            "(0..65535, or negative for scalable vectors)" % (code, bits, lanes))
    return _dtype_pack(code, bits, lanes)


class dtype(str):  # noqa: N801 - public name fixed by the spec
    """Data type text (as given) plus its parsed DataType (kept in the instance dict)."""

    def __new__(cls, content):
        text = str(content)
        self = str.__new__(cls, text)
        dt = DataType(text)  # ValueError on bad text
        self.__dict__["_dl"] = dt
        self.__dict__["__tvm_ffi_pod__"] = dt.__tvm_ffi_pod__
        return self

    @classmethod
    def _from_packed(cls, packed):
        text = _dtype_text(packed)
        self = str.__new__(cls, text)
        dt = DataType()._set(packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFFFF)
        self.__dict__["_dl"] = dt
        self.__dict__["__tvm_ffi_pod__"] = dt.__tvm_ffi_pod__
        return self

    def __repr__(self):
        return "dtype('%s')" % str.__str__(self)

    def __reduce__(self):
        return (dtype, (str(self),))

    type_code = property(lambda self: self._dl.type_code)
    bits = property(lambda self: self._dl.bits)
    lanes = property(lambda self: self._dl.lanes)
    itemsize = property(lambda self: self._dl.itemsize)
    is_bool = property(lambda self: self._dl.type_code == 6)
    is_integer = property(lambda self: self._dl.type_code in (0, 1))
    is_float = property(lambda self: self._dl.type_code in _FLOAT_CODES)
    is_handle = property(lambda self: self._dl.type_code == 3)

    def with_lanes(self, lanes):
        dl = self._dl
        return dtype._from_packed(_checked_pack(dl.type_code, dl.bits, lanes))

    @staticmethod
    def from_dlpack_data_type(t):
        code, bits, lanes = (operator.index(x) for x in t)
        return dtype._from_packed(_checked_pack(code, bits, lanes))

    @staticmethod
    def is_dtype(x):
        if isinstance(x, dtype):
            return True
        try:
            dtype(x)
        except (ValueError, TypeError):
            return False
        return True


dtype.__module__ = "tvm_ffi"

_TORCH_TABLE = {
    "int8": (0, 8, 1), "int16": (0, 16, 1), "int32": (0, 32, 1), "int64": (0, 64, 1),
    "uint8": (1, 8, 1), "uint16": (1, 16, 1), "uint32": (1, 32, 1), "uint64": (1, 64, 1),
    "float16": (2, 16, 1), "float32": (2, 32, 1), "float64": (2, 64, 1), "bfloat16": (4, 16, 1),
    "bool": (6, 8, 1), "float8_e4m3fn": (10, 8, 1), "float8_e4m3fnuz": (11, 8, 1),
    "float8_e5m2": (12, 8, 1), "float8_e5m2fnuz": (13, 8, 1), "float8_e8m0fnu": (14, 8, 1),
    "float4_e2m1fn_x2": (17, 4, 2), "complex32": (5, 32, 1), "complex64": (5, 64, 1),
    "complex128": (5, 128, 1),
}

_NUMPY_TABLE = {
    "int8": (0, 8, 1), "int16": (0, 16, 1), "int32": (0, 32, 1), "int64": (0, 64, 1),
    "uint8": (1, 8, 1), "uint16": (1, 16, 1), "uint32": (1, 32, 1), "uint64": (1, 64, 1),
    "float16": (2, 16, 1), "float32": (2, 32, 1), "float64": (2, 64, 1),
    "int2": (0, 2, 1), "uint2": (1, 2, 1), "int4": (0, 4, 1), "uint4": (1, 4, 1),
    "bfloat16": (4, 16, 1), "float8_e3m4": (7, 8, 1), "float8_e4m3": (8, 8, 1),
    "float8_e4m3b11fnuz": (9, 8, 1), "float8_e4m3fn": (10, 8, 1), "float8_e4m3fnuz": (11, 8, 1),
    "float8_e5m2": (12, 8, 1), "float8_e5m2fnuz": (13, 8, 1), "float8_e8m0fnu": (14, 8, 1),
    "float6_e2m3fn": (15, 6, 1), "float6_e3m2fn": (16, 6, 1), "float4_e2m1fn": (17, 4, 1),
    "complex64": (5, 64, 1), "complex128": (5, 128, 1),
}


def _torch_dtype_code(t):
    return _TORCH_TABLE.get(str(t).replace("torch.", ""))


def _numpy_dtype_code(t):
    return _NUMPY_TABLE.get(str(t))



class _NumpyDtypeNames(dict):
    """``np.dtype -> dtype text`` for the NumPy (and ml_dtypes) types the runtime knows, as
    ``dtype._NUMPY_DTYPE_TO_STR`` of the apache package (TVM's ``tvm.runtime.tensor`` reads
    it).  Filled on first use, so ``import tvm_ffi`` does not import NumPy."""

    __slots__ = ("_filled",)

    def _fill(self):
        self._filled = True
        np = sys.modules.get("numpy")
        if np is None:
            import numpy as np  # noqa: PLC0415 - the caller holds a NumPy dtype
        extra = sys.modules.get("ml_dtypes")
        for name in _NUMPY_TABLE:
            try:
                key = np.dtype(name)
            except TypeError:
                if extra is None or not hasattr(extra, name):
                    continue
                key = np.dtype(getattr(extra, name))
            dict.__setitem__(self, key, name)
        dict.__setitem__(self, np.dtype(np.bool_), "bool")

    def _ready(self):
        if not getattr(self, "_filled", False):
            self._fill()
        return self

    def __contains__(self, key):
        return dict.__contains__(self._ready(), key)

    def __getitem__(self, key):
        return dict.__getitem__(self._ready(), key)

    def __iter__(self):
        return dict.__iter__(self._ready())

    def __len__(self):
        return dict.__len__(self._ready())

    def get(self, key, default=None):
        return dict.get(self._ready(), key, default)

    def keys(self):
        return dict.keys(self._ready())

    def values(self):
        return dict.values(self._ready())

    def items(self):
        return dict.items(self._ready())


dtype._NUMPY_DTYPE_TO_STR = _NumpyDtypeNames()


_LITERALS = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float64 float32 float16 bfloat16 "
    "float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 "
    "float8_e5m2fnuz float8_e8m0fnu float6_e2m3fn float6_e3m2fn float4_e2m1fn float4_e2m1fnx2"
).split()

for _name in _LITERALS:
    globals()[_name] = dtype(_name)
float4_e2m1fn_x2 = dtype("float4_e2m1fn_x2")
