"""Storage of ``py_class`` fields: the rules an annotation implies, and the registration of
one field with the runtime.

The annotation decides the field's storage kind (its static type index: a bool, int,
float, void*, DataType or Device stored natively, an object type as one pointer, anything
else as a 16-byte Any), its ``type_schema`` metadata and the check its setter applies
(``ffi.MakeFieldSetter`` calls it for every writer, C and C++ ones included).  Where each
kind goes in the object is the runtime's decision (``ffi._PyClassLayout``, c/src/extra/
pyclass.c; docs/python.md §4.9).
"""

import json
import types
import typing

from .. import _conversion
from .. import _type_index as T
from . import _fields as F
from .._base import _CLS_TYPE, CObject, _addr, _decref
from .._conversion import convert_func
from .._function import _global, _type_key, _type_key_to_index
from .._loader import ffi, lib
from .._type_convert import Mismatch
from .._type_schema import TypeSchema
from ..container import Array, Dict, List, Map
from ..error import _check
from ._enum_define import payload_member

_SETTER_IS_FUNCTION = 1 << 11
_FLAG_BITS = (("init", 1 << 9, False), ("repr", 1 << 6, False), ("compare", 1 << 7, False))


def rules_of(f):
    """(static type index, JSON schema, check or None) of a Field: from its annotation, or
    from its ``_ty_schema`` when it was declared without a class body."""
    if f.type is None and f._ty_schema is not None:
        return field_rules(F._python_type(f._ty_schema), f._ty_schema)
    return field_rules(f.type)


def field_rules(ann, schema=None):
    """annotation_rules() with the check replaced by the TypeSchema conversion of the
    annotation (elements, None in object fields, strings to Device/dtype: an FFI call's
    rules); TypeError for an annotation no FFI type corresponds to."""
    sti, json_schema, check = annotation_rules(ann)
    if schema is None:
        if ann is None or ann is typing.Any or isinstance(ann, str):
            return sti, json_schema, check
        schema = TypeSchema.from_annotation(ann)
    json_schema = schema.to_json()  # the full schema (element types too), as upstream writes it
    sti = storage_kind(schema)
    if schema.origin == "Any":
        return sti, json_schema, None

    def convert(value):
        try:
            return schema._converter(value)
        except Mismatch as err:
            raise TypeError(str(err)) from None

    return sti, json_schema, convert


_NATIVE_KINDS = (T.kTVMFFIInt, T.kTVMFFIBool, T.kTVMFFIFloat, T.kTVMFFIOpaquePtr,
                 T.kTVMFFIDataType, T.kTVMFFIDevice)


def storage_kind(schema):
    """The field_static_type_index a field of this TypeSchema is stored as: its own for the
    native PODs, kTVMFFIObject for an object type (a string is a 16-byte cell, so Any), -1
    (Any) for the rest: strings, Optional, Union, Any."""
    tidx = schema.origin_type_index
    if tidx in _NATIVE_KINDS:
        return tidx
    if schema.origin == "tuple" or (tidx >= T.kTVMFFIStaticObjectBegin
                                    and tidx not in (T.kTVMFFIStr, T.kTVMFFIBytes)):
        return T.kTVMFFIObject
    return -1


_DYN_OBJECT_BEGIN = 128  # kTVMFFIDynObjectBegin
_PLAIN_CELLS = {"str": T.kTVMFFIStr, "bytes": T.kTVMFFIBytes, "ffi.String": T.kTVMFFIStr,
                "ffi.Bytes": T.kTVMFFIBytes}


def _plain_type(sti, schema):
    """ffi.MakeFieldSetter's plain_type: the type whose values the annotation's conversion
    returns as they are (a str or bytes field's, a field of one user-defined object type's),
    so that the setter stores them without calling it; -1 for the other fields."""
    if schema.get("args"):
        return -1
    if sti == -1:  # (kTVMFFIAny)
        return _PLAIN_CELLS.get(schema.get("type"), -1)
    declared = _type_key_to_index(schema.get("type", "")) if sti == T.kTVMFFIObject else None
    return declared if declared is not None and declared >= _DYN_OBJECT_BEGIN else -1


def register_field(tidx, key, name, f, place, kw_only_default, rules):
    """Register one field at ``place`` = (offset, size, alignment), from ffi._PyClassLayout."""
    sti, schema, check = rules
    flags = 1 | _SETTER_IS_FUNCTION  # Writable; frozen-ness is a Python-side matter
    for attr, bit, off_value in _FLAG_BITS:
        if getattr(f, attr) == off_value:
            flags |= bit
    hashed = f.hash if f.hash is not None else f.compare
    if not hashed:
        flags |= 1 << 8
    flags |= F.FIELD_STRUCTURAL_EQ[f.structural_eq]
    kw = kw_only_default if f.kw_only is None or F._is_missing(f.kw_only) else f.kw_only
    if kw:
        flags |= 1 << 10
    keep = []  # buffers and wrappers that must outlive the registration call
    fi = ffi.new("TVMFFIFieldInfo*")
    for slot, text in (("name", name), ("doc", f.doc or ""),
                       ("metadata", json.dumps({"type_schema": json.dumps(schema)}))):
        data = text.encode()
        cbuf = ffi.new("char[]", data)
        keep.append(cbuf)
        getattr(fi, slot).data, getattr(fi, slot).size = cbuf, len(data)
    fi.flags = flags
    fi.offset, fi.size, fi.alignment = place
    fi.field_static_type_index = sti
    fi.getter = ffi.cast("TVMFFIFieldGetter", _global("ffi.MakeFieldGetter")(sti))
    # (a refusal is the bare reason: the constructor's message names the field, as upstream)
    convert = convert_func(check) if check is not None else None
    setter = _global("ffi.MakeFieldSetter")(sti, 0, convert, _plain_type(sti, schema))
    fi.setter = ffi.cast("void*", setter._h)
    keep.append(setter)
    if f.has_default:
        fi.flags |= 2
        if F._is_missing(f.default):
            fi.flags |= 32  # DefaultFromFactory: the runtime calls it per object
            value = convert_func(f.default_factory)
        else:
            value = f.default
            if check is not None:
                try:
                    value = check(value)
                except TypeError:
                    pass  # stored as given; the setter refuses it when an object is built
        _conversion._to_owned_any(value, ffi.addressof(fi, "default_value_or_factory"))
    try:
        _check(lib.TVMFFITypeRegisterField(tidx, fi))
    finally:
        dv = fi.default_value_or_factory
        if dv.type_index >= T.kTVMFFIStaticObjectBegin:
            _decref(_addr(dv.v_obj))
        dv.type_index = 0
    del keep


# Annotation -> (static type index, schema type key, check) for the plain types.
def _scalar_rules():
    def exact(kind, accept, conv):
        def check(v):
            if isinstance(v, accept):
                return conv(v)
            raise TypeError("expected %s, got %s" % (kind, type(v).__name__))

        return check

    seq, mapping = (Array, List), (Map, Dict)
    return {
        int: (1, "int", exact("int", int, int)),
        float: (3, "float", exact("float", (int, float), float)),
        bool: (2, "bool", exact("bool", bool, bool)),
        str: (T.kTVMFFIStr, "ffi.String", exact("str", str, str)),
        bytes: (T.kTVMFFIBytes, "ffi.Bytes", exact("bytes", (bytes, bytearray), bytes)),
        list: (-1, "ffi.Array", exact("a sequence (Array or List)", seq, lambda v: v)),
        tuple: (T.kTVMFFIArray, "ffi.Array", exact("a sequence (Array or List)", seq, lambda v: v)),
        dict: (-1, "ffi.Map", exact("a mapping (Map or Dict)", mapping, lambda v: v)),
        Array: (T.kTVMFFIArray, "ffi.Array", exact("Array", Array, lambda v: v)),
        List: (T.kTVMFFIList, "ffi.List", exact("List", List, lambda v: v)),
        Map: (T.kTVMFFIMap, "ffi.Map", exact("Map", Map, lambda v: v)),
        Dict: (T.kTVMFFIDict, "ffi.Dict", exact("Dict", Dict, lambda v: v)),
    }


def annotation_rules(ann):
    """(static type index, JSON schema, check or None) of a field annotation."""
    if ann is None or ann is typing.Any or ann is object or isinstance(ann, str):
        return -1, {"type": "Any"}, None  # string annotations are not evaluated
    origin = typing.get_origin(ann)
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        args = typing.get_args(ann)
        opts = [a for a in args if a is not type(None)]
        rules = [annotation_rules(a) for a in opts]
        optional = len(opts) < len(args)
        if len(rules) == 1:
            schema = rules[0][1]
        else:
            schema = {"type": "Variant", "args": [r[1] for r in rules]}
        if optional:
            schema = {"type": "Optional", "args": [schema]}
        checks = [r[2] for r in rules]
        if any(c is None for c in checks):
            return -1, schema, None
        names = " | ".join(getattr(a, "__name__", str(a)) for a in args)

        def check_union(v):
            if v is None and optional:
                return None
            for c in checks:
                try:
                    return c(v)
                except TypeError:
                    pass
            raise TypeError("expected %s, got %s" % (names, type(v).__name__))

        sti = rules[0][0] if len(rules) == 1 and not optional else -1
        return sti, schema, check_union
    base = origin if origin is not None else ann
    scalar = _scalar_rules().get(base)
    if scalar is not None:
        sti, key, check = scalar
        return sti, {"type": key}, check
    if isinstance(base, type) and issubclass(base, CObject):
        tidx = _CLS_TYPE.get(base)
        if tidx is None:
            return -1, {"type": "Any"}, None
        tkey = _type_key(tidx)

        def check_obj(v):
            if isinstance(v, base):
                return v
            member = payload_member(base, v)  # an IntEnum/StrEnum member named by its value
            if member is not None:
                return member
            raise TypeError("expected %s, got %s" % (tkey, type(v).__name__))

        return tidx, {"type": tkey}, check_obj
    return -1, {"type": "Any"}, None
