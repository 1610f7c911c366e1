"""convert(): explicit Python -> FFI value conversion, by the call path's conversion table."""

import ctypes
import numbers
import sys

from . import _rules, core


class ObjectConvertible:
    """Mixin for Python objects that convert to an FFI object through asobject()."""

    def asobject(self):
        raise NotImplementedError()


_EXACT = None  # type -> rule code of the table's exact types (filled on first use)


def convert(value):  # noqa: C901 - the table's CONVERT column, then the rows of its "slow" one
    """Explicit Python -> FFI conversion: what a call would pass, as a Python value.

    The conversion table (``_rules.CONVERT``) says what a type's argument rule makes here; the
    types of the "slow" rule take the rows below, in the order the call path's hook uses."""
    from ._dtype import dtype  # noqa: PLC0415
    from .container import Array, Map  # noqa: PLC0415

    global _EXACT
    if _EXACT is None:
        _EXACT = dict(_rules.exact_types())
    tp = type(value)
    rule = _EXACT.get(tp)
    if rule is None:
        rule = core._classify(tp)
    action = _rules.CONVERT[_rules.ARG_RULES[rule[0] if type(rule) is tuple else rule]]
    if action == "same" or (action == "object" and isinstance(value, core.Object)):
        return value
    if action == "array":
        return Array(value)
    if action == "map":
        return Map(value)
    if action == "string":
        return core.String(value)
    if action == "bytes":
        return core.Bytes(bytes(value))
    if action == "dlpack":
        return core.from_dlpack(value)
    if isinstance(value, (core.PyNativeObject, numbers.Number, ctypes.c_void_p, dtype)):
        return value
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
