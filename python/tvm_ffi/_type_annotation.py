"""``TypeSchema.from_annotation``: the schema of a Python type annotation.

``int``/``float``/``bool``/``str``/``bytes``/``None``/``Any`` are themselves; ``list[T]`` is a
List and ``dict[K, V]`` a Dict (mutable, like the Python types), ``tuple[T, ...]`` an Array
and ``tuple[A, B]`` a fixed tuple; ``Optional``/``Union``/``X | Y`` are Optional and Union;
``Callable[[P...], R]`` a Callable; a registered FFI class (``Array[int]``, ``Map[str, V]``,
``testing.TestIntPair``) its type; ``Device``, ``dtype``, ``ctypes.c_void_p`` and DLPack
tensor classes their FFI values.
"""

import collections.abc
import ctypes
import types
import typing

from . import _typeinfo
from ._base import _CLS_TYPE, CObject
from ._dtype import dtype
from ._function import _type_key
from ._type_index import kTVMFFIShape
from ._type_schema import INDEX_ORIGIN, TypeSchema
from ._values import Bytes, DataType, Device, String

_UNION_TYPE = getattr(types, "UnionType", None)
_SCALARS = {bool: "bool", int: "int", float: "float", str: "str", bytes: "bytes",
            list: "List", dict: "Dict", collections.abc.Callable: "Callable"}


def schema_of_annotation(ann):
    if ann is None or ann is type(None):
        return TypeSchema("None")
    if ann is typing.Any:
        return TypeSchema("Any")
    if ann is tuple:
        return TypeSchema("tuple")
    if isinstance(ann, type) and ann in _SCALARS:
        return TypeSchema(_SCALARS[ann])
    if ann is collections.abc.Callable:
        return TypeSchema("Callable")
    if _UNION_TYPE is not None and isinstance(ann, _UNION_TYPE):
        return _union(typing.get_args(ann))
    origin, targs = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union:
        return _union(targs)
    if origin is list:
        if len(targs) > 1:
            raise TypeError("list takes at most 1 type argument, got %d" % len(targs))
        return TypeSchema("List", tuple(schema_of_annotation(a) for a in targs))
    if origin is dict:
        if len(targs) not in (0, 2):
            raise TypeError("dict requires 0 or 2 type arguments, got %d" % len(targs))
        return TypeSchema("Dict", tuple(schema_of_annotation(a) for a in targs))
    if origin is tuple:
        if len(targs) == 2 and targs[1] is Ellipsis:
            return TypeSchema("Array", (schema_of_annotation(targs[0]),))
        return TypeSchema("tuple", tuple(schema_of_annotation(a) for a in targs))
    if origin is collections.abc.Callable:
        return _callable(targs)
    if ann is typing.Callable:
        return TypeSchema("Callable")
    if isinstance(origin, type) and issubclass(origin, CObject):
        return _object_class(origin, targs)
    if isinstance(ann, type):
        return _plain_class(ann)
    raise TypeError("Cannot convert %r to TypeSchema: no FFI type corresponds to it" % (ann,))


def _union(args):
    rest = [a for a in args if a is not type(None)]
    inner = tuple(schema_of_annotation(a) for a in rest)
    if len(rest) == len(args):
        return TypeSchema("Union", inner)
    if len(inner) == 1:
        return TypeSchema("Optional", inner)
    return TypeSchema("Optional", (TypeSchema("Union", inner),))


def _callable(targs):
    if len(targs) != 2:
        return TypeSchema("Callable")
    params, ret = targs
    named = {"return": (schema_of_annotation(ret),)}
    if isinstance(params, (list, tuple)):
        named["params"] = tuple(schema_of_annotation(p) for p in params)
    return TypeSchema("Callable", named_args=named)


def _plain_class(cls):
    if issubclass(cls, CObject):
        return _object_class(cls, ())
    if issubclass(cls, String):
        return TypeSchema("str")
    if issubclass(cls, Bytes):
        return TypeSchema("bytes")
    if cls is DataType or cls is dtype:
        return TypeSchema("dtype")
    if issubclass(cls, Device):
        return TypeSchema("Device")
    if cls is ctypes.c_void_p:
        return TypeSchema("ctypes.c_void_p")
    if _typeinfo._value_class_index(cls) == kTVMFFIShape:
        return TypeSchema("Shape", origin_type_index=kTVMFFIShape)
    if hasattr(cls, "__dlpack__"):
        return TypeSchema("Tensor")
    raise TypeError("Cannot convert %r to TypeSchema: no FFI type corresponds to it" % (cls,))


def _object_class(cls, targs):
    tidx = _CLS_TYPE.get(cls)
    if tidx is None:
        raise TypeError("Cannot convert %r to TypeSchema: the class is not registered with "
                        "an FFI type (use register_object / c_class / py_class)" % (cls,))
    origin = INDEX_ORIGIN.get(tidx) or _type_key(tidx)
    if targs:
        want = {"Array": 1, "List": 1, "Map": 2, "Dict": 2}.get(origin)
        if want is not None and len(targs) != want:
            raise TypeError("%s requires %d type argument%s, got %d"
                            % (origin, want, "" if want == 1 else "s", len(targs)))
        return TypeSchema(origin, tuple(schema_of_annotation(a) for a in targs),
                          origin_type_index=tidx)
    return TypeSchema(origin, origin_type_index=tidx)
