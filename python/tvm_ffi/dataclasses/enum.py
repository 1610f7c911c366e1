"""Enums whose members are FFI singletons shared with C/C++ (``tvm_ffi.dataclasses.Enum``).

An enum class is an FFI type deriving from ``ffi.Enum`` (or ``ffi.IntEnum`` / ``ffi.StrEnum``,
whose ``value`` is the integer or string index). Each member is one object carrying a
canonical integer index ``_int_index`` and string index ``_str_index``; the type's
``ffi.EnumState`` (type attribute ``__ffi_enum__``) lists the members in registration order,
maps both indices to them and holds per-member extensible attributes, so C++ code
(``reflection/enum_def.h``) and Python see the same members. Declaring
``class Op(Enum, type_key="my.Op")`` creates the type (or binds one C++ registered) and its
members from the class body; see ``_enum_define`` for the rules.
"""

from .. import _sentinels
from . import _enum_define as _define
from .._base import Object
from ..container import Dict
from ._enum_define import ENUM_STATE_ATTR, auto, entry, enum_state, normalize_index
from .c_class import c_class
from ._enum_define import _EnumEntry  # noqa: F401 - importable from here, as in the apache package

__all__ = ["ENUM_STATE_ATTR", "Enum", "EnumAttrMap", "EnumState", "IntEnum", "StrEnum",
           "auto", "entry"]


@c_class("ffi.EnumState")
class EnumState(Object):
    """An enum type's members (``entries``), index map (``indexes``) and attributes (``attrs``)."""


class _EnumMeta(type(Object)):
    """``len(E)``, ``iter(E)`` over the members in order, and ``E(index)`` looking one up."""

    def __iter__(cls):
        return iter(_members(cls))

    def __len__(cls):
        return len(_members(cls))

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs:
            index = args[0]
            if isinstance(index, cls):
                return index
            if isinstance(index, (int, str)):
                try:
                    return cls.get(index)
                except KeyError:
                    raise ValueError("%r is not a valid %s" % (index, cls.__name__)) from None
        return super().__call__(*args, **kwargs)


def _members(cls):
    state = enum_state(cls)
    return [] if state is None else list(state.entries)


class _ClassProperty:
    """A read-only attribute computed from the class (``E.attr_dict``)."""

    def __init__(self, fget):
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, obj, owner=None):
        return self.fget(owner if owner is not None else type(obj))


@c_class("ffi.Enum", init=False, frozen=True)
class Enum(Object, metaclass=_EnumMeta):
    """Base of FFI enum classes: ``class Color(Enum, type_key="my.Color"): RED = auto()``."""

    _int_index: int
    _str_index: str

    def __init_subclass__(cls, *, type_key=None, frozen=True, init=True, repr=True, **kwargs):
        super().__init_subclass__(**kwargs)
        if type_key is not None:  # without one: an abstract base other enums derive from
            if not isinstance(type_key, str):
                raise TypeError("%s: type_key must be a str, got %s"
                                % (cls.__name__, type(type_key).__name__))
            _define.define_enum(cls, type_key, frozen=frozen, init=init, repr=repr)

    @classmethod
    def get(cls, index):
        """The member whose canonical integer or string index is ``index`` (KeyError if none)."""
        index = normalize_index(index)
        state = enum_state(cls)
        if state is None or index not in state.indexes:
            raise KeyError(index)
        return state.indexes[index]

    @classmethod
    def all_entries(cls):
        """An iterator over the members in registration order."""
        return iter(_members(cls))

    @_ClassProperty
    def attr_dict(cls):
        """The live ``{attribute name: {member: value}}`` dictionary of the enum state."""
        state = enum_state(cls)
        return Dict({}) if state is None else state.attrs

    @classmethod
    def def_attr(cls, name, *, default=_sentinels.MISSING):
        """An ``EnumAttrMap`` of the per-member attribute ``name`` (``default`` when unset)."""
        return EnumAttrMap(cls, name, default=default)


@c_class("ffi.IntEnum", init=False, frozen=True)
class IntEnum(Enum):
    """Enum whose ``value`` is its (signed 64-bit) integer index: ``LOW = 1``."""

    def __init_subclass__(cls, **kwargs):
        _define.refuse_value_field(cls, "IntEnum")
        super().__init_subclass__(**kwargs)


@c_class("ffi.StrEnum", init=False, frozen=True)
class StrEnum(Enum):
    """Enum whose ``value`` and ``name`` are its string index: ``ADD = "+"``."""

    def __init_subclass__(cls, **kwargs):
        _define.refuse_value_field(cls, "StrEnum")
        super().__init_subclass__(**kwargs)


class EnumAttrMap:
    """A mapping member -> value of one extensible attribute, stored in the enum state
    (``attrs[name]``) so that C++ ``EnumDef(...).set_attr`` values show here and back."""

    __slots__ = ("_cls", "_name", "_default")

    def __init__(self, enum_cls, name, *, default=_sentinels.MISSING):
        self._cls = enum_cls
        self._name = name
        self._default = default

    @property
    def name(self):
        """The attribute name."""
        return self._name

    def _column(self, create):
        state = enum_state(self._cls, create=create)
        if state is None:
            return None
        column = state.attrs.get(self._name)
        if column is None and create:
            state.attrs[self._name] = Dict({})
            column = state.attrs[self._name]
        return column

    def _member(self, member):
        if not isinstance(member, self._cls):
            raise TypeError("%s attribute %r is keyed by %s members, got %s"
                            % (self._cls.__name__, self._name, self._cls.__name__,
                               type(member).__name__))
        return member

    def __setitem__(self, member, value):
        self._column(True)[self._member(member)] = value

    def __getitem__(self, member):
        column = self._column(False)
        if column is not None and self._member(member) in column:
            return column[member]
        self._member(member)
        if self._default is not _sentinels.MISSING:
            return self._default
        raise KeyError("%r has no value for enum attribute %r" % (member, self._name))

    def __contains__(self, member):
        if not isinstance(member, self._cls):
            return False
        column = self._column(False)
        return column is not None and member in column

    def get(self, member, default=None):
        """The stored value for ``member``, or ``default`` when it has none."""
        return self[member] if member in self else default

    def __repr__(self):
        return "EnumAttrMap(%s, %r)" % (self._cls.__name__, self._name)


_define.bind_bases(EnumState, Enum, IntEnum, StrEnum)
