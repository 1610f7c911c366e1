"""How an enum class body becomes FFI members (the machinery behind ``dataclasses.Enum``).

In ``class Op(Enum, type_key="my.Op")`` the body declares members three ways:
  - ``name = entry(...)`` / ``name = auto()``: a member; ``entry`` passes values for the
    fields the class declares (``arity: int = 0``);
  - ``name: ClassVar[Op]`` without a value: a member of that string index (for a type C++
    registered, it must exist already — it binds the C++ member);
  - in an ``IntEnum`` / ``StrEnum``, a plain value ``LOW = 1`` / ``ADD = "+"``: a member whose
    ``value`` (integer or string index) is that value.
A plain enum's member takes its attribute name as string index and its registration order as
integer index; an IntEnum's takes the name as string index, a StrEnum's the order as integer
index. Two names that resolve to one index are aliases of one member. The type key names a
new type (defined like a ``py_class`` with singleton structural equality) or one C++
registered (bound like a ``c_class``; members are allocated with its ``__ffi_new__``).
"""

from .. import _typeinfo
from .._base import _TYPE_CLS, FFIProperty
from .._function import _type_key_to_index
from ..container import Dict
from .c_class import _annotations, _is_classvar, c_class

ENUM_STATE_ATTR = "__ffi_enum__"
# The convention of the 0.1.0-0.1.12 headers (reflection/enum_def.h there), which libraries
# built against them still follow: a Dict name -> member, and a Dict attribute name -> List of
# values indexed by the member's ordinal.  Their members have this layout (_value, _name at the
# offsets of _int_index, _str_index): enum_state folds them into the state.
LEGACY_ENTRIES_ATTR = "__ffi_enum_entries__"
LEGACY_ATTRS_ATTR = "__ffi_enum_attrs__"
_LEGACY_SEEN = {}  # type index -> size of its legacy entries Dict when last folded in
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_BASES = {}  # "Enum"/"IntEnum"/"StrEnum" -> class, set by enum.py once they exist


class _EnumEntry:
    """A member declaration: positional and keyword values for the class's own fields."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        parts = [repr(a) for a in self.args] + ["%s=%r" % kv for kv in self.kwargs.items()]
        return "entry(%s)" % ", ".join(parts)


def entry(*args, **kwargs):
    """Declare a member, passing values for the fields the enum class declares."""
    return _EnumEntry(*args, **kwargs)


def auto():
    """Declare a member whose indices come from its name and its position."""
    return _EnumEntry()


def bind_bases(state, enum, int_enum, str_enum):
    _BASES.update(EnumState=state, Enum=enum, IntEnum=int_enum, StrEnum=str_enum)


def normalize_index(index):
    """An int (bool counts as int) within int64 or a str; OverflowError / TypeError else."""
    if isinstance(index, bool):
        return int(index)
    if isinstance(index, int):
        if not _INT64_MIN <= index <= _INT64_MAX:
            raise OverflowError("enum integer index %d does not fit in int64" % index)
        return index
    if isinstance(index, str):
        return index
    raise TypeError("an enum index is an int or a str, got %s" % type(index).__name__)


def _type_index(cls):
    info = getattr(cls, "__tvm_ffi_type_info__", None)
    return None if info is None else info.type_index


def enum_state(cls, create=False):
    """The ``ffi.EnumState`` of an enum class (made and registered when ``create``, or when a
    library registered members the legacy way), or None."""
    tidx = _type_index(cls)
    if tidx is None:
        return None
    state = _typeinfo._lookup_type_attr(tidx, ENUM_STATE_ATTR)
    legacy = _typeinfo._lookup_type_attr(tidx, LEGACY_ENTRIES_ATTR)
    if legacy is not None and len(legacy) != _LEGACY_SEEN.get(tidx):
        if state is None:
            state = _new_state(tidx)
        _fold_legacy(tidx, state, legacy)
    elif state is None and create:
        state = _new_state(tidx)
    return state


def _new_state(tidx):
    _typeinfo._register_type_attr(tidx, ENUM_STATE_ATTR, _BASES["EnumState"]())
    return _typeinfo._lookup_type_attr(tidx, ENUM_STATE_ATTR)


def _fold_legacy(tidx, state, legacy):
    """Adds the legacy members the state lacks, in ordinal order, with their attributes."""
    attrs = _typeinfo._lookup_type_attr(tidx, LEGACY_ATTRS_ATTR) or {}
    new = sorted((m for m in legacy.values() if m._str_index not in state.indexes),
                 key=lambda m: m._int_index)
    for member in new:
        state.entries.append(member)
        state.indexes[member._str_index] = member
        if member._int_index not in state.indexes:  # (a member Python added may hold it)
            state.indexes[member._int_index] = member
        for name, values in attrs.items():
            if 0 <= member._int_index < len(values) and values[member._int_index] is not None:
                if name not in state.attrs:
                    state.attrs[name] = Dict({})
                state.attrs[name][member] = values[member._int_index]
    _LEGACY_SEEN[tidx] = len(legacy)


def payload_type(cls):
    """int for IntEnum classes, str for StrEnum classes, None for the others."""
    if issubclass(cls, _BASES["IntEnum"]):
        return int
    if issubclass(cls, _BASES["StrEnum"]):
        return str
    return None


def refuse_value_field(cls, base_name):
    if "value" in cls.__dict__ or "value" in cls.__dict__.get("__annotations__", {}):
        raise TypeError("%s %s: %s reserves `value` as the alias of its index; name the field "
                        "otherwise" % (base_name, cls.__name__, base_name))


# ---------------------------------------------------------------------------------------------
# definition


def define_enum(cls, type_key, *, frozen, init, repr):
    from .py_class import py_class  # noqa: PLC0415 - it imports this module (_py_fields)

    payload = payload_type(cls)
    own_repr = "__repr__" in cls.__dict__
    binders, declarations = _read_body(cls, payload)
    cxx_backed = _type_key_to_index(type_key) is not None
    if cxx_backed:
        c_class(type_key, init=init, repr=repr)(cls)
    else:
        py_class(type_key, frozen=frozen, structural_eq="singleton")(cls)
    if payload is not None:
        _install_payload_dunders(cls, payload, own_repr)
    state = enum_state(cls, create=True)
    for alias in binders:
        member = state.indexes.get(alias)
        if member is None:
            if cxx_backed:
                raise RuntimeError("enum `%s` has no member at string index %r (a ClassVar "
                                   "binds a member C++ registered)" % (type_key, alias))
            if payload is int:
                raise TypeError("%s.%s requires an integer value" % (cls.__name__, alias))
            member = _new_member(cls, len(state.entries), alias, _EnumEntry(), cxx_backed)
            _add(cls, state, member)
        setattr(cls, alias, member)
    for alias, decl in declarations.items():
        int_index, str_index, decl = _indices(cls, alias, len(state.entries), decl, payload)
        member = state.indexes.get(int_index if payload is int else str_index)
        if member is None:
            if int_index in state.indexes or str_index in state.indexes:
                raise ValueError("%s.%s: enum index %r or %r is taken by another member"
                                 % (cls.__name__, alias, int_index, str_index))
            member = _new_member(cls, int_index, str_index, decl, cxx_backed)
            _add(cls, state, member)
        setattr(cls, alias, member)


def _read_body(cls, payload):
    """(ClassVar names without a value, {name: _EnumEntry}); removes the declarations."""
    anns = _annotations(cls)
    binders = [n for n, a in anns.items()
               if not n.startswith("_") and _is_classvar(a) and n not in cls.__dict__]
    fields = {n for n, a in anns.items() if not _is_classvar(a)}
    declarations = {}
    for name, value in list(cls.__dict__.items()):
        if name.startswith("_") or name in fields:
            continue
        if isinstance(value, _EnumEntry):
            declarations[name] = value
        elif payload is not None and not (
                callable(value) or isinstance(value, (staticmethod, classmethod, property))):
            declarations[name] = _EnumEntry(value=value)
        else:
            continue
        delattr(cls, name)
    return binders, declarations


def _indices(cls, alias, position, decl, payload):
    """(int index, str index, the declaration without `value`) of a declared member."""
    if "_int_index" in decl.kwargs or "_str_index" in decl.kwargs:
        raise TypeError("%s.%s: enum indices are inferred, not given" % (cls.__name__, alias))
    if payload is None:
        return position, alias, decl
    kwargs = dict(decl.kwargs)
    if "value" not in kwargs:
        raise TypeError("%s.%s requires a %s value" % (cls.__name__, alias, payload.__name__))
    value = kwargs.pop("value")
    if type(value) is not payload:
        raise TypeError("%s.%s: the value must be a %s, got %s"
                        % (cls.__name__, alias, payload.__name__, type(value).__name__))
    rest = _EnumEntry(*decl.args, **kwargs)
    if payload is int:
        return normalize_index(value), alias, rest
    return position, value, rest


def _new_member(cls, int_index, str_index, decl, cxx_backed):
    try:
        if not cxx_backed:
            return cls(*decl.args, _int_index=int_index, _str_index=str_index, **decl.kwargs)
        if decl.args:
            raise TypeError("members of a C++ enum take field values by keyword")
        new = _typeinfo._lookup_type_attr(_type_index(cls), "__ffi_new__")
        if new is None:
            raise TypeError("the type has no __ffi_new__ to allocate members")
        member = new()
        values = dict(decl.kwargs, _int_index=int_index, _str_index=str_index)
        for name, value in values.items():
            prop = getattr(cls, name, None)
            if not isinstance(prop, FFIProperty):
                raise TypeError("field %r is not a reflected field" % name)
            prop.set(member, value)
        return member
    except Exception as err:  # noqa: BLE001 - one message names the member whatever failed
        raise TypeError("%s.%s: invalid enum entry: %s" % (cls.__name__, str_index, err)) from None


def _add(cls, state, member):
    state.entries.append(member)
    state.indexes[member._int_index] = member
    state.indexes[member._str_index] = member
    tidx = _type_index(cls)
    legacy = _typeinfo._lookup_type_attr(tidx, LEGACY_ENTRIES_ATTR)
    if legacy is not None:  # code built against the legacy headers looks members up there
        legacy[member._str_index] = member
        _LEGACY_SEEN[tidx] = len(legacy)


# ---------------------------------------------------------------------------------------------
# IntEnum / StrEnum members behave like their value


def _install_payload_dunders(cls, payload, own_repr):
    def __eq__(self, other):
        if isinstance(other, type(self)):
            return self.value == other.value
        if isinstance(other, payload):
            return self.value == other
        return NotImplemented

    def __ne__(self, other):
        result = __eq__(self, other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(self.value)

    def __str__(self):
        return str(self.value)

    def name(self):
        """The member's string index."""
        return str(self._str_index)

    for fn in (__eq__, __ne__, __hash__, __str__):
        if fn.__name__ not in cls.__dict__:
            setattr(cls, fn.__name__, fn)
    if "name" not in cls.__dict__:
        cls.name = property(name)
    if not own_repr:
        cls.__repr__ = lambda self: "%s.%s" % (type(self).__name__, self.name)


def payload_member(cls, value):
    """The member of IntEnum/StrEnum class ``cls`` whose value is ``value``, or None when
    ``value`` is not such a payload; TypeError for an unknown or out-of-range one."""
    payload = payload_type_or_none(cls)
    if payload is None or isinstance(value, cls):
        return None
    if payload is int and isinstance(value, int) and not isinstance(value, bool):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise TypeError("expected %s, got int %d outside the int64 range"
                            % (cls.__name__, value))
    elif not (payload is str and isinstance(value, str)):
        return None
    state = enum_state(cls)
    if state is None or value not in state.indexes:
        raise TypeError("expected %s, got %s %r (no member has that value)"
                        % (cls.__name__, type(value).__name__, value))
    return state.indexes[value]


def install_payload_setters(cls, fields):
    """Assignment to a c_class field typed with an IntEnum/StrEnum class takes the member's
    value too (``holder.priority = 20``), as construction does."""
    for f in fields:
        target = _TYPE_CLS.get(f._c.value_type_index)
        if target is None or payload_type_or_none(target) is None:
            continue
        prop = cls.__dict__.get(f.name)
        if not isinstance(prop, FFIProperty) or prop.fset is None:
            continue  # frozen or replaced by the class body: leave it alone
        setattr(cls, f.name, _payload_property(prop, target))


def payload_type_or_none(cls):
    return payload_type(cls) if isinstance(cls, type) and _BASES else None


def _payload_property(prop, target):
    fset, raw_set = prop.fset, prop._raw_set

    def to_member(value):
        member = payload_member(target, value)
        return value if member is None else member

    def setter(obj, value):
        fset(obj, to_member(value))

    def raw(obj, value):
        raw_set(obj, to_member(value))

    setter.__name__ = setter.__qualname__ = getattr(fset, "__name__", "setter")
    return FFIProperty(prop.fget, setter, None, prop.__doc__, raw_set=raw)

