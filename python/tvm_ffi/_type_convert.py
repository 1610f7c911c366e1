"""Conversion of one Python value by a ``TypeSchema`` (``check_value`` / ``convert``).

The rules are those of an FFI call receiving the value for a parameter of that type: ``int``
takes bools and integers within int64 (and ``__tvm_ffi_int__``), ``float`` takes ints and bools,
``bool`` takes ints, ``str``/``bytes`` their Python types, ``Device``/``dtype`` also strings,
containers take Python sequences and mappings and convert their elements, ``Optional`` adds
None, ``Union`` takes the first alternative that accepts the value, an object type takes its
instances and whatever the binding marshals into one (a type's ``__ffi_convert__`` attribute
may build it). Before dispatch a value is unwrapped through ``__tvm_ffi_object__``,
``__tvm_ffi_value__`` (repeatedly, cycles refused) and ``ObjectConvertible.asobject()``. An
IntEnum/StrEnum type also takes the value of one of its members.

``build(schema)`` makes the converter once per schema (cached on it); a converter maps a value
to the Python value to pack, raising ``Mismatch`` with the reason. Containers whose elements
need no change are passed through as they are (no copy).
"""

import collections.abc
import ctypes
import numbers
import os

from . import _values
from ._base import _CLS_TYPE, _TYPE_CLS, CObject, _type_index_of
from ._convert import ObjectConvertible
from ._conversion import _K_DTYPE, CAny, _kind
from ._dtype import dtype
from ._function import Function, _type_key, _type_key_to_index
from ._tensor import Tensor, device
from ._type_index import kTVMFFIObject, kTVMFFIStaticObjectBegin
from ._typeinfo import _lookup_type_attr, _type_info_of_index
from ._values import Bytes, DataType, Device, PyNativeObject, String
from .container import Array, Dict, List, Map

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_MAX_VALUE_PROTOCOL_DEPTH = 64


class Mismatch(Exception):
    """The value does not fit the schema (the message says why)."""


def run(schema, value, what):
    """Convert ``value`` by ``schema`` into a CAny; TypeError "<what> <schema>: <reason>"."""
    conv = schema._converter
    try:
        out = conv(value)
        return CAny(out)
    except Mismatch as err:
        raise TypeError("%s %r: %s" % (what, schema, err)) from None
    except RecursionError:
        raise TypeError("%s %r: infinite __tvm_ffi_value__ cycle detected" % (what, schema)) \
            from None


def describe(value):
    """The type of a value as error messages name it."""
    if value is None:
        return "None"
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind.__name__
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, CObject):
        tidx = _CLS_TYPE.get(type(value))
        if tidx is None and value._h:
            tidx = _type_index_of(value._h)
        return _type_key(tidx) if tidx is not None else type(value).__qualname__
    return type(value).__qualname__


def _expected(hint, value, detail=None):
    msg = "expected %s, got %s" % (hint, describe(value))
    return Mismatch(msg + (": %s" % detail if detail is not None else ""))


def _pack(value, hint, original):
    """``value`` as the binding marshals it (a CAny); Mismatch when it cannot be."""
    try:
        return CAny(value)
    except Mismatch:
        raise
    except Exception as err:  # noqa: BLE001 - every marshal failure is a mismatch here
        raise _expected(hint, original, err) from None


# ---------------------------------------------------------------------------------------------
# value protocols, applied before every dispatch


def _unwrap(value):
    """(value after __tvm_ffi_object__ / __tvm_ffi_value__ / asobject, stalled flag)."""
    if isinstance(value, (CObject, PyNativeObject)):
        return value, False
    t = type(value)
    if hasattr(t, "__tvm_ffi_object__"):
        try:
            return value.__tvm_ffi_object__(), False
        except Exception:  # noqa: BLE001
            raise Mismatch("__tvm_ffi_object__() failed for %s" % describe(value)) from None
    if hasattr(t, "__tvm_ffi_value__"):
        try:
            inner = value.__tvm_ffi_value__()
        except Exception:  # noqa: BLE001 - reported as the schema mismatch
            return value, True
        return inner, inner is value
    if isinstance(value, ObjectConvertible):
        try:
            inner = value.asobject()
        except Exception:  # noqa: BLE001
            raise Mismatch("asobject() failed for %s" % describe(value)) from None
        if not isinstance(inner, CObject):
            raise Mismatch("asobject() returned %s for %s" % (describe(inner), describe(value)))
        return inner, False
    return value, False


def _with_protocols(dispatch, hint):
    def conv(value):
        for _ in range(_MAX_VALUE_PROTOCOL_DEPTH):
            inner, stalled = _unwrap(value)
            if stalled:
                if hint == "Any":
                    raise Mismatch("failed to convert Any from %s" % describe(value))
                raise _expected(hint, value)
            if inner is value:
                return dispatch(value)
            value = inner
        raise Mismatch("infinite __tvm_ffi_value__ cycle detected")

    conv.hint = hint
    return conv


# ---------------------------------------------------------------------------------------------
# leaf types


def _int(value):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise Mismatch("integer %d out of int64 range [%d, %d]" % (value, INT64_MIN, INT64_MAX))
        return value
    if isinstance(value, numbers.Integral):
        try:
            ivalue = int(value)
        except Exception as err:  # noqa: BLE001
            raise Mismatch("int() failed for %s: %s" % (type(value).__qualname__, err)) from None
        return _int(ivalue)
    if hasattr(type(value), "__tvm_ffi_int__"):
        return _int(value.__tvm_ffi_int__())
    raise _expected("int", value)


def _float(value):
    if isinstance(value, float):
        return value
    if isinstance(value, (bool, int, numbers.Real)) or hasattr(type(value), "__tvm_ffi_float__"):
        try:
            fn = getattr(value, "__tvm_ffi_float__", None)
            return float(fn() if fn is not None else value)
        except Exception as err:  # noqa: BLE001
            raise Mismatch("float() failed for %s: %s" % (type(value).__qualname__, err)) from None
    raise _expected("float", value)


def _bool(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, numbers.Integral)):
        try:
            return bool(value)
        except Exception as err:  # noqa: BLE001
            raise Mismatch("bool() failed for %s: %s" % (type(value).__qualname__, err)) from None
    raise _expected("bool", value)


def _none(value):
    if value is None:
        return None
    raise _expected("None", value)


def _str(value):
    if isinstance(value, str):
        return value
    raise _expected("str", value)


def _bytes(value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray):
        return bytes(value)
    raise _expected("bytes", value)


def _parse(text, parse, kind):
    """A Device / dtype from its string form; Mismatch naming the string when it is not one."""
    try:
        return parse(text)
    except Exception:  # noqa: BLE001
        raise Mismatch("expected %s, got invalid %s string %r"
                       % (kind, kind.lower(), text)) from None


def _device(value):
    if isinstance(value, (Device, _values._CLASS_DEVICE)):
        return value
    if isinstance(value, str):
        return _parse(value, device, "Device")
    if hasattr(type(value), "__dlpack_device__"):
        return _pack(value, "Device", value).to_py()
    raise _expected("Device", value)


def _dtype(value):
    if isinstance(value, (DataType, dtype)):
        return value
    if isinstance(value, str):
        return _parse(value, dtype, "dtype")
    t = type(value)
    if hasattr(t, "__dlpack_data_type__") or (t.__module__ == "torch" and t.__name__ == "dtype") \
            or _is_numpy_dtype(value):
        packed = _pack(value, "dtype", value)
        if _kind(packed.type_index) == _K_DTYPE:
            return packed.to_py()
    raise _expected("dtype", value)


def _is_numpy_dtype(value):
    np = __import__("sys").modules.get("numpy")
    return np is not None and isinstance(value, np.dtype)


def _opaque_ptr(value):
    if isinstance(value, ctypes.c_void_p):
        return value
    if value is None:
        return ctypes.c_void_p(None)
    t = type(value)
    if hasattr(t, "__tvm_ffi_opaque_ptr__") or hasattr(t, "__cuda_stream__"):
        return _pack(value, "ctypes.c_void_p", value).to_py()
    raise _expected("ctypes.c_void_p", value)


def _tensor(value):
    if isinstance(value, Tensor):
        return value
    t = type(value)
    if hasattr(t, "__dlpack__") or (
            os.environ.get("TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API", "0") != "1"
            and hasattr(t, "__dlpack_c_exchange_api__")):
        return _pack(value, "Tensor", value).to_py()
    raise _expected("Tensor", value)


def _callable(value):
    if isinstance(value, Function):
        return value
    if callable(value) and not isinstance(value, CObject):
        return _pack(value, "Callable", value).to_py()
    raise _expected("Callable", value)


def _any(value):
    return value  # run() packs it; a value the binding cannot marshal fails there


# ---------------------------------------------------------------------------------------------
# containers


def _elements(convs, values):
    """([converted values], whether any changed); a converter None keeps its value."""
    items, changed = [], False
    for i, (conv, x) in enumerate(zip(convs, values)):
        y = x
        if conv is not None:
            try:
                y = conv(x)
            except Mismatch as err:
                raise Mismatch("element [%d]: %s" % (i, err)) from None
        changed = changed or y is not x
        items.append(y)
    return items, changed


def _sequence(kind, elem):
    """Array / List of ``elem`` (None: any element)."""
    target = Array if kind == "Array" else List

    def conv(value):
        if isinstance(value, (str, bytes, bytearray)) or not isinstance(
                value, (list, tuple, Array, List)):
            raise _expected(kind, value)
        if elem is None and isinstance(value, target):
            return value
        items, changed = _elements([elem] * len(value), value)
        if not changed and isinstance(value, target):
            return value
        try:
            return target(items)
        except Exception as err:  # noqa: BLE001
            raise _expected(kind, value, err) from None

    return conv


def _mapping(kind, key, val):
    target = Map if kind == "Map" else Dict

    def conv(value):
        if not isinstance(value, collections.abc.Mapping):
            raise _expected(kind, value)
        if key is None and val is None and isinstance(value, target):
            return value
        pairs, changed = [], not isinstance(value, target)
        for k, v in value.items():
            k2, v2 = k, v
            if key is not None:
                try:
                    k2 = key(k)
                except Mismatch as err:
                    raise Mismatch("key %r: %s" % (k, err)) from None
            if val is not None:
                try:
                    v2 = val(v)
                except Mismatch as err:
                    raise Mismatch("value for key %r: %s" % (k, err)) from None
            changed = changed or k2 is not k or v2 is not v
            pairs.append((k2, v2))
        if not changed:
            return value
        try:
            return target(dict(pairs))
        except Exception as err:  # noqa: BLE001
            raise _expected(kind, value, err) from None

    return conv


def _tuple(elems):
    """A fixed-length tuple (elems: converters), or any length when elems is None."""
    def conv(value):
        if isinstance(value, (str, bytes, bytearray)) or not isinstance(
                value, (list, tuple, Array, List)):
            raise _expected("tuple", value)
        if elems is None:
            return value if isinstance(value, Array) else Array(list(value))
        if len(value) != len(elems):
            raise Mismatch("expected tuple of length %d, got %s of length %d"
                           % (len(elems), type(value).__name__, len(value)))
        items, changed = _elements(elems, value)
        return value if not changed and isinstance(value, Array) else Array(items)

    return conv


# ---------------------------------------------------------------------------------------------
# Optional, Union, objects


def _optional(inner):
    def conv(value):
        return None if value is None else inner(value)

    return conv


def _union(alts, hint):
    def conv(value):
        for alt in alts:
            try:
                return alt(value)
            except Mismatch:
                continue
        raise _expected(hint, value)

    return conv


def _is_instance_index(actual, target):
    if actual == target:
        return True
    if actual < kTVMFFIStaticObjectBegin:
        return False
    info = _type_info_of_index(actual)
    return info is not None and target in info.type_ancestors


def _object(tidx, hint):
    # (the dataclasses package imports this module)
    from .dataclasses._enum_define import payload_member  # noqa: PLC0415

    def conv(value):
        if isinstance(value, CObject):
            if value._h and (tidx == kTVMFFIObject or _is_instance_index(_type_index_of(value._h),
                                                              tidx)):
                return value
        else:  # an IntEnum/StrEnum type takes the value of one of its members
            cls = _TYPE_CLS.get(tidx)
            try:
                member = payload_member(cls, int(value) if type(value) is bool else value)
            except TypeError:
                raise _expected(hint, value) from None
            if member is not None:
                return member
        return _marshal_object(value, tidx, hint)

    return conv


def _marshal_object(value, tidx, hint):
    """Pack the value, apply the type's ``__ffi_convert__`` if any, keep an instance."""
    fn = _lookup_type_attr(tidx, "__ffi_convert__") if tidx > kTVMFFIObject else None
    try:
        packed = CAny(value)
    except Exception as err:  # noqa: BLE001
        raise _expected(hint, value, err) from None
    if fn is not None:
        try:
            packed = CAny(fn(packed.to_py()))
        except Exception as err:  # noqa: BLE001
            text = str(err).replace("\n", "\n    ")
            raise Mismatch("expected %s, got %s\n  __ffi_convert__ failed:\n    %s"
                           % (hint, describe(value), text)) from None
    if packed.type_index >= kTVMFFIStaticObjectBegin and _is_instance_index(packed.type_index, tidx):
        return packed.to_py()
    raise _expected(hint, value)


# ---------------------------------------------------------------------------------------------
# the builder

_LEAVES = {"int": _int, "float": _float, "bool": _bool, "None": _none, "str": _str,
           "bytes": _bytes, "Device": _device, "dtype": _dtype, "ctypes.c_void_p": _opaque_ptr,
           "Tensor": _tensor, "Callable": _callable}


def _sub(schema):
    """The converter of an argument schema; None for Any (nothing to check)."""
    return None if schema.origin == "Any" else schema._converter


def build(schema):
    origin, args = schema.origin, schema.args or ()
    if origin == "Any" or schema.origin_type_index == -1:
        return _with_protocols(_any, "Any")
    if origin == "Optional":
        inner = args[0]._converter
        return _with_protocols(_optional(inner), inner.hint)
    if origin == "Union":
        hint = " | ".join(repr(a) for a in args)
        return _with_protocols(_union([a._converter for a in args], hint), hint)
    if origin in _LEAVES:
        return _with_protocols(_LEAVES[origin], origin)
    if origin in ("Array", "List", "list"):
        kind = "Array" if origin == "Array" else "List"
        return _with_protocols(_sequence(kind, _sub(args[0]) if args else None), kind)
    if origin in ("Map", "Dict", "dict"):
        kind = "Map" if origin == "Map" else "Dict"
        subs = (_sub(args[0]), _sub(args[1])) if len(args) == 2 else (None, None)
        return _with_protocols(_mapping(kind, *subs), kind)
    if origin == "tuple":
        elems = None if schema.args is None else [a._converter for a in schema.args]
        return _with_protocols(_tuple(elems), "tuple")
    tidx = schema.origin_type_index
    if tidx < kTVMFFIStaticObjectBegin:
        tidx = _type_key_to_index(origin) if origin != "Object" else kTVMFFIObject
    if tidx is None or tidx < kTVMFFIStaticObjectBegin:
        raise TypeError("unknown TypeSchema origin: %r" % origin)
    return _with_protocols(_object(tidx, origin), origin)


def to_py_class_value(cany):
    """The Python value a CAny holds, as a py_class field reads it (strings and bytes as
    ``String``/``Bytes``)."""
    value = cany.to_py()
    if type(value) is str:
        return String(value)
    if type(value) is bytes:
        return Bytes(value)
    return value
