"""Dataclass-style decorators for FFI object types (docs/python.md §21).

``c_class`` gives a C++-defined type the dunders of a ``dataclasses.dataclass``, derived
from its reflected fields; ``py_class`` defines a new FFI type from a Python class body;
``field``, ``KW_ONLY``, ``fields``, ``asdict``, ``astuple``, ``replace`` and ``is_dataclass``
follow the stdlib module of the same name. ``Enum``, ``IntEnum`` and ``StrEnum`` (with
``auto``, ``entry``, ``EnumAttrMap`` and the runtime's ``EnumState``) define enums whose
members are FFI singletons shared with C++. ``gen_abi_cpp`` writes the C++ structs of
registered types, ``py_class`` ones included (docs/python.md §4.9).
"""

from .._base import Object
from ._api import asdict, astuple, fields, is_dataclass, replace
from ._enum_define import auto, entry
from ._fields import KW_ONLY, MISSING, Field, FrozenInstanceError, field
from ._init_property import init_property
from ._method import method
from .c_class import c_class
from .enum import Enum, EnumAttrMap, EnumState, IntEnum, StrEnum
from .gen_abi_cpp import gen_abi_cpp
from .py_class import py_class

__all__ = [
    "Enum", "EnumAttrMap", "EnumState", "Field", "FrozenInstanceError", "IntEnum", "KW_ONLY",
    "MISSING", "Object", "StrEnum", "asdict", "astuple", "auto", "c_class", "entry", "field",
    "fields", "gen_abi_cpp", "init_property", "is_dataclass", "method", "py_class", "replace",
]
