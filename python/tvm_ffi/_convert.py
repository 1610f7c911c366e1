"""convert(): explicit Python -> FFI value conversion, mirroring call-time conversion."""

import ctypes
import numbers
import sys

from . import core


class ObjectConvertible:
    """Mixin for Python objects that convert to an FFI object through asobject()."""

    def asobject(self):
        raise NotImplementedError()


def convert(value):  # noqa: C901 - follows the spec's table row by row
    from ._dtype import dtype  # noqa: PLC0415
    from .container import Array, Map  # noqa: PLC0415

    if isinstance(value, (core.Object, core.PyNativeObject, bool, numbers.Number, ctypes.c_void_p, dtype)):
        return value
    if isinstance(value, (tuple, list)):
        return Array(value)
    if isinstance(value, dict):
        return Map(value)
    if isinstance(value, str):
        return core.String(value)
    if isinstance(value, (bytes, bytearray)):
        return core.Bytes(bytes(value))
    if isinstance(value, ObjectConvertible):
        return value.asobject()
    if callable(value):
        return core.convert_func(value)
    if value is None:
        return None
    if hasattr(value, "__dlpack__"):
        return core.from_dlpack(value)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        from ._dtype import _torch_dtype_code  # noqa: PLC0415

        code = _torch_dtype_code(value)
        if code is None:
            raise KeyError(value)
        return dtype.from_dlpack_data_type(code)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.dtype):
        from ._dtype import _numpy_dtype_code  # noqa: PLC0415

        code = _numpy_dtype_code(value)
        if code is None:
            raise KeyError(value)
        return dtype.from_dlpack_data_type(code)
    if hasattr(value, "__dlpack_data_type__"):
        return dtype.from_dlpack_data_type(value.__dlpack_data_type__())
    if isinstance(value, BaseException):
        return core._exc_to_error(value, append_native=False)
    if hasattr(value, "__tvm_ffi_object__"):
        return value.__tvm_ffi_object__()
    for attr in ("__cuda_stream__", "__tvm_ffi_opaque_ptr__", "__dlpack_device__",
                 "__tvm_ffi_int__", "__tvm_ffi_float__"):
        if hasattr(value, attr):
            return value
    return core._make_opaque(value)


convert_func = core.convert_func
