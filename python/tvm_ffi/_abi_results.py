"""ABI mode: ``TVMFFIAny`` values to Python (call results, callback arguments), as
``_ffi_src/results.c`` does in the compiled module.

Which kind a type index converts as is the conversion table's (``_rules.py``, resolved once
below); object results keep wrapper identity through ``_conversion._ret_object``.
"""

from . import _rules
from ._base import _OBJ_HEADER, _addr, _decref, _type_index_of, _unpack_bytes
from ._abi_objects import pyobj_from_ptr
from ._conversion import _IDENTITY, _ret_obj, _ret_object
from ._loader import ffi, lib

# the conversion table (_rules.py) by number: result kind per static type index
_KINDS, _K = _rules.resolve(lib)
_N_STATIC = len(_KINDS)
_OBJECT_BEGIN = lib.kTVMFFIStaticObjectBegin  # from here on the payload is an object handle
_K_DEFAULT, _K_POD = _K[_rules.DEFAULT_OBJECT], _K[_rules.DEFAULT_POD]
(_K_NONE, _K_INT, _K_BOOL, _K_FLOAT, _K_SMALL_STR, _K_SMALL_BYTES, _K_RAW_STR, _K_BYTE_ARRAY,
 _K_RVALUE_REF, _K_OPAQUE_PY) = (_K[n] for n in (
    "NONE", "INT", "BOOL", "FLOAT", "SMALL_STR", "SMALL_BYTES", "RAW_STR", "BYTE_ARRAY",
    "RVALUE_REF", "OPAQUE_PY"))
_VIEW_ONLY = {_K[k]: name for k, name in _rules.VIEW_ONLY.items()}


def _malformed(t, what):
    """What a C caller or kernel handed over that would be dereferenced (as results.c)."""
    return ValueError("tvm_ffi: value of type index %d is %s" % (t, what))


def from_any(a, owned, api_obj):  # noqa: C901 - one branch per result kind
    """The Python value of TVMFFIAny a; owned: a's reference is taken over (a result)."""
    t = a.type_index
    k = _KINDS[t] if 0 <= t < _N_STATIC else _K_POD if t < 0 else _K_DEFAULT
    if k == _K_NONE:
        return None
    if k == _K_INT:
        return a.v_int64
    if k == _K_BOOL:
        return bool(a.v_int64)
    if k == _K_FLOAT:
        return a.v_float64
    if k == _K_SMALL_STR or k == _K_SMALL_BYTES:
        if a.small_str_len > 7:
            raise _malformed(t, "a small string longer than 7 bytes")
        data = bytes(ffi.buffer(a.v_bytes, a.small_str_len))
        return data.decode("utf-8", "surrogateescape") if k == _K_SMALL_STR else data
    if k in _VIEW_ONLY:
        if owned:
            raise ValueError("Return value cannot be %s" % _VIEW_ONLY[k])
        if (k == _K_RAW_STR or k == _K_BYTE_ARRAY) and (
                a.v_ptr == ffi.NULL or k == _K_BYTE_ARRAY and
                ffi.cast("TVMFFIByteArray*", a.v_ptr).data == ffi.NULL and
                ffi.cast("TVMFFIByteArray*", a.v_ptr).size):
            raise _malformed(t, "a NULL string")
        if k == _K_RAW_STR:
            return ffi.string(a.v_c_str).decode("utf-8", "surrogateescape")
        if k == _K_BYTE_ARRAY:
            return _unpack_bytes(ffi.cast("TVMFFIByteArray*", a.v_ptr))
        slot = ffi.cast("void**", a.v_ptr)  # _K_RVALUE_REF
        if slot == ffi.NULL or slot[0] == ffi.NULL:
            raise ValueError("RValueRef already moved")
        h = _addr(slot[0])
        slot[0] = ffi.NULL
        return _ret_object(_type_index_of(h), h, True, api_obj)
    if t >= _OBJECT_BEGIN and k not in _IDENTITY and a.v_obj == ffi.NULL:
        raise _malformed(t, "a NULL object")
    if k == _K_OPAQUE_PY:
        cell = ffi.cast("TVMFFIOpaqueObjectCell*", _addr(a.v_obj) + _OBJ_HEADER)
        obj = pyobj_from_ptr(cell.handle)
        if owned:
            _decref(_addr(a.v_obj))
        return obj
    if t >= _OBJECT_BEGIN:  # with identity tying, as _ffi_src/results.c
        return _ret_object(t, _addr(a.v_obj), owned, api_obj)
    return _ret_obj(t, a.v_uint64, api_obj)


# the hooks of _conversion this module provides in ABI mode (_abi.install)


def from_owned_any(any_ptr):
    return from_any(any_ptr[0], True, None)


def from_any_ptr_view(any_ptr):
    return from_any(any_ptr[0], False, None)


def from_any_view(tidx, payload):
    a = ffi.new("TVMFFIAny*")
    a.type_index = tidx
    a.v_uint64 = payload
    return from_any(a[0], False, None)
