"""Reflection records of the type table (docs/python.md §4.7): TypeInfo, TypeField, TypeMethod, TypeSchema.

A ``TypeInfo`` mirrors one ``TVMFFITypeInfo`` entry: its own fields and methods (inherited ones
live on ``parent_type_info``), its ancestors, and the Python class bound to the index (or
``None``).  Records are built on first use and cached per type index; ``type_cls`` follows the
class currently registered for the index.  ``register_object`` and ``dataclasses`` attach
``TypeField.as_property`` / ``TypeMethod.as_callable`` results to classes.
"""

import dataclasses
import functools
import json
from typing import Any, Optional

from . import _conversion, _sentinels
from . import _type_index as T
from . import container  # noqa: F401 - binds Array/List/Map/Dict to their indices (type_cls)
from ._base import (
    _CLS_TYPE,
    _OK,
    _TYPE_CLS,
    _TYPE_INFO,
    CObject,
    FFIProperty,
    _RefusingFFIProperty,
    _addr,
    _bytearray,
    _decref,
    _type_index_of,
)
from ._dtype import dtype
from ._function import _type_key, _type_key_to_index
from ._loader import API_MODE, ffi, lib
from ._tensor import Shape
from ._type_schema import TypeSchema
from ._values import Bytes, DataType, Device, String
from .error import _check, _move_raised_error, _raise_ffi_error, _take_exception

# TVMFFIFieldFlagBitMask (c_api.h)
_WRITABLE = 1 << 0
_HAS_DEFAULT = 1 << 1
_IS_STATIC = 1 << 2
_DEFAULT_FROM_FACTORY = 1 << 5
_REPR_OFF = 1 << 6
_COMPARE_OFF = 1 << 7
_HASH_OFF = 1 << 8
_INIT_OFF = 1 << 9
_KW_ONLY = 1 << 10
_SETTER_IS_FUNCTION = 1 << 11


def _text(ba):
    """str of a TVMFFIByteArray ('' when empty)."""
    return ffi.unpack(ba.data, ba.size).decode("utf-8", "replace") if ba.size else ""


def _view_to_py(v):
    """Python value of a TVMFFIAny view (a cdata struct); objects get a new reference."""
    return _conversion._from_any_ptr_view(ffi.addressof(v))


def _metadata(ba):
    text = _text(ba)
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return {"__raw__": text}  # not JSON: keep it visible rather than fail a class definition


def _schema_of(meta):
    s = meta.get("type_schema")
    if not isinstance(s, (str, dict)):
        return None
    try:
        return TypeSchema._from_maybe_json(s)
    except (ValueError, TypeError, KeyError):
        return None


# ---------------------------------------------------------------------------------------------
# fields and methods


def _raised_exception():
    """The FFI error waiting in this thread's slot as a Python exception (C field getters)."""
    err = _move_raised_error()
    if err is None:
        return RuntimeError("tvm_ffi: a field getter failed without an error object")
    return err.py_error()


_OBJECT_PTR = ffi.typeof("TVMFFIObject*")


class _Owner:
    """The type a reflected field belongs to: its accessors apply only to objects of that type
    or a subtype.  The check reads the object's runtime type index (the handle's header), not
    the wrapper's class; the indices found to be subtypes are remembered."""

    __slots__ = ("index", "depth", "key", "ok")

    def __init__(self, index, depth):
        self.index, self.depth = index, depth
        self.key = None
        self.ok = {index}  # type indices found to be the owner or a subtype

    def handle_of(self, obj, name):
        """obj's handle when obj is an object of the owning type; TypeError/ValueError else."""
        if not isinstance(obj, CObject):
            raise TypeError(self._refusal(name, type(obj).__name__))
        h = obj._h
        if not h:
            raise ValueError("cannot access field `%s` of %s: the handle is empty"
                             % (name, type(obj).__name__))
        t = _type_index_of(h)
        if t not in self.ok:
            raw = lib.TVMFFIGetTypeInfo(t)
            if raw == ffi.NULL or raw.type_depth <= self.depth or \
                    raw.type_ancestors[self.depth].type_index != self.index:
                _move_raised_error()  # (an unknown index raised: keep the slot clean)
                raise TypeError(self._refusal(name, _type_key(t)))
            self.ok.add(t)
        return h

    def _refusal(self, name, got):
        if self.key is None:
            self.key = _type_key(self.index)
        return ("descriptor '%s' for '%s' objects doesn't apply to a '%s' object"
                % (name, self.key, got))


class FieldGetter:
    """Reads one reflected field of a wrapper through the C getter (python value)."""

    __slots__ = ("name", "offset", "owner", "_getter", "_c_fget")

    def __init__(self, name, offset, getter, owner):
        self.name = name
        self.offset = offset
        self.owner = owner
        self._getter = getter
        self._c_fget = None

    def c_fget(self):
        """The same read as a builtin of the compiled module (API mode), else self."""
        if self._c_fget is None:
            self._c_fget = self
            make = getattr(lib, "ffipy_make_field_getter", None) if API_MODE else None
            if make is not None:
                box = [None, _raised_exception, functools.partial(self.owner.handle_of, name=self.name)]
                if make(int(ffi.cast("intptr_t", self._getter)), self.offset, self.owner.index,
                        self.owner.depth, id(box)) == _OK:
                    self._c_fget = box[0]
                else:
                    _take_exception()  # keep the Python reader
        return self._c_fget

    def __call__(self, obj, _cast=ffi.cast, _ptr=_OBJECT_PTR):
        # the owner check inline (an object of the owning type: the common case), else
        # handle_of, which accepts a subtype once or raises
        h = obj._h if isinstance(obj, CObject) else 0
        if not h or _cast(_ptr, h).type_index not in self.owner.ok:
            h = self.owner.handle_of(obj, self.name)
        out = ffi.new("TVMFFIAny*")
        if self._getter(ffi.cast("void*", h + self.offset), out) != 0:
            _raise_ffi_error()
        return _conversion._from_owned_any(out)


class FieldSetter:
    """Writes one reflected field: a C setter, or a setter Function called with (addr, value)."""

    __slots__ = ("name", "offset", "owner", "_setter", "_is_function", "_c_fset")

    def __init__(self, name, offset, setter, is_function, owner):
        self.name = name
        self.offset = offset
        self.owner = owner
        self._setter = setter  # TVMFFIFieldSetter cdata, or a Function wrapper
        self._is_function = is_function
        self._c_fset = None

    def c_fset(self):
        """The same write as a builtin of the compiled module (API mode), else self."""
        if self._c_fset is None:
            self._c_fset = self
            make = getattr(lib, "ffipy_make_field_setter", None) if API_MODE else None
            if make is not None:
                fn = self._setter if self._is_function else None
                addr = 0 if self._is_function else int(ffi.cast("intptr_t", self._setter))
                box = [None, functools.partial(self.owner.handle_of, name=self.name), self.name, fn]
                if make(addr, self.offset, self.owner.index, self.owner.depth, id(box)) == _OK:
                    self._c_fset = box[0]
                else:
                    _take_exception()  # keep the Python writer
        return self._c_fset

    def __call__(self, obj, value, _cast=ffi.cast, _ptr=_OBJECT_PTR):
        h = obj._h if isinstance(obj, CObject) else 0  # (as FieldGetter.__call__)
        if not h or _cast(_ptr, h).type_index not in self.owner.ok:
            h = self.owner.handle_of(obj, self.name)
        if self._is_function:
            import ctypes  # noqa: PLC0415

            try:
                self._setter(ctypes.c_void_p(h + self.offset), value)
            except TypeError as err:  # a py_class field's conversion: say which field
                raise TypeError("field '%s' of `%s`: %s" % (self.name, describe_type(obj), err)) \
                    from None
            return
        val = ffi.new("TVMFFIAny*")
        _conversion._to_owned_any(value, val)
        try:
            if self._setter(ffi.cast("void*", h + self.offset), val) != 0:
                _raise_ffi_error()
        finally:
            if val.type_index >= T.kTVMFFIStaticObjectBegin:
                _decref(_addr(val.v_obj))
                val.type_index = 0


def describe_type(obj):
    info = getattr(type(obj), "__tvm_ffi_type_info__", None)
    return info.type_key if info is not None else type(obj).__name__


class _ReadOnlyError(AttributeError):
    """Assignment to a field the C++ type declares read-only."""

    def __init__(self, message):
        AttributeError.__init__(self, message + ": it is read-only")


@dataclasses.dataclass(eq=False)
class TypeField:
    """One reflected field of a type (``TVMFFIFieldInfo``)."""

    name: str
    doc: Optional[str]
    size: int
    offset: int
    frozen: bool
    metadata: dict
    getter: Any
    setter: Any
    ty: Optional[TypeSchema] = None
    flags: int = 0
    static_type_index: int = -1
    c_init: bool = True
    c_kw_only: bool = False
    c_has_default: bool = False
    c_default_from_factory: bool = False
    c_default: Any = None  # the default value, or the zero-argument factory Function
    c_repr: bool = True
    c_compare: bool = True
    c_hash: bool = True
    alignment: int = 0
    dataclass_field: Any = None  # free for tvm_ffi.dataclasses

    # the factory of a DefaultFromFactory field (MISSING otherwise)
    c_default_factory = property(
        lambda self: self.c_default if self.c_default_from_factory else _sentinels.MISSING)
    @property
    def c_structural_eq(self):
        """The field's structural-comparison role as ``field(structural_eq=...)`` spells it."""
        from .dataclasses._fields import FIELD_STRUCTURAL_EQ  # noqa: PLC0415 - see _register_fields

        for name, bit in FIELD_STRUCTURAL_EQ.items():
            if bit and self.flags & bit:
                return name
        return None

    # upstream's name of the static type index (for a py_class field: its storage kind)
    field_static_type_index = property(lambda self: self.static_type_index)

    @property
    def value_type_index(self):
        """The type index of the values the field is declared to hold: its schema's (a
        py_class object field's static type index is only its kind, kTVMFFIObject)."""
        tidx = self.ty.origin_type_index if self.ty is not None else -1
        return tidx if tidx >= T.kTVMFFIStaticObjectBegin else self.static_type_index

    # flag spellings without the c_ prefix
    init = property(lambda self: self.c_init)
    kw_only = property(lambda self: self.c_kw_only)
    has_default = property(lambda self: self.c_has_default)
    repr = property(lambda self: self.c_repr)
    compare = property(lambda self: self.c_compare)
    hash = property(lambda self: self.c_hash)

    def as_property(self, cls):
        """A property reading/writing this field on instances of cls (no setter when frozen)."""
        fget, fset = self.getter, self.setter
        name, qual = self.name, "%s.%s" % (cls.__qualname__, self.name)
        getter = fget.c_fget() if isinstance(fget, FieldGetter) else None
        if getter is None or getter is fget:

            def getter(obj):
                return fget(obj)

            getter.__name__, getter.__qualname__, getter.__module__ = name, qual, cls.__module__

        setter = fset.c_fset() if isinstance(fset, FieldSetter) else None
        if setter is None or setter is fset:

            def setter(obj, value):
                fset(obj, value)

            setter.__name__, setter.__qualname__, setter.__module__ = name, qual, cls.__module__
        if self.frozen:  # read-only in C++: no assignment, and no escape hatch either
            return _RefusingFFIProperty(getter, self.doc or None, None, _ReadOnlyError,
                                             name)
        return FFIProperty(getter, setter, None, self.doc or None)


@dataclasses.dataclass(eq=False)
class TypeMethod:
    """One reflected method of a type (``TVMFFIMethodInfo``); ``func`` is the Function."""

    name: str
    doc: Optional[str]
    func: Any
    is_static: bool
    metadata: dict
    ty: Optional[TypeSchema] = None

    def as_callable(self, cls):
        """A function to set on cls: instance methods get ``self`` first; static ones wrapped."""
        func = self.func
        if self.is_static:

            def method(*args):
                return func(*args)

        else:

            def method(self, *args):
                return func(self, *args)

        method.__name__ = self.name
        method.__qualname__ = "%s.%s" % (cls.__qualname__, self.name)
        method.__module__ = cls.__module__
        method.__doc__ = self.doc or None
        return staticmethod(method) if self.is_static else method


@dataclasses.dataclass(eq=False)
class TypeInfo:
    """One entry of the type table, with the Python class bound to it (or None)."""

    type_cls: Optional[type]
    type_index: int
    type_key: str
    type_ancestors: list
    fields: list
    methods: list
    parent_type_info: Optional["TypeInfo"]

    def __repr__(self):
        cls = self.type_cls.__qualname__ if self.type_cls is not None else None
        names = None if self.fields is None else [f.name for f in self.fields]
        return "TypeInfo(type_key=%r, type_index=%d, type_cls=%s, fields=%s, methods=%s)" % (
            self.type_key, self.type_index, cls, names, [m.name for m in self.methods])

    @property
    def doc(self):
        md = lib.TVMFFIGetTypeInfo(self.type_index).metadata
        return (_text(md.doc) or None) if md != ffi.NULL else None

    @property
    def total_size(self):
        """Byte size of instances as registered (0 when unknown)."""
        md = lib.TVMFFIGetTypeInfo(self.type_index).metadata
        return int(md.total_size) if md != ffi.NULL else 0

    @property
    def has_creator(self):
        md = lib.TVMFFIGetTypeInfo(self.type_index).metadata
        return md != ffi.NULL and md.creator != ffi.NULL

    def all_fields(self):
        """Fields of the ancestors (root first), then this type's own fields."""
        chain, info = [], self
        while info is not None:
            chain.append(info)
            info = info.parent_type_info
        return [f for info in reversed(chain) for f in info.fields or ()]

    def _register_fields(self, fields):
        """Register the own fields of a Python-defined type (``_stepwise.register_py_class``)."""
        from .dataclasses import _stepwise  # noqa: PLC0415 - dataclasses imports this module

        return _stepwise.register_fields(self, fields)

    def refresh(self):
        """Re-read fields and methods (after more were registered in C)."""
        raw = lib.TVMFFIGetTypeInfo(self.type_index)
        owner = _Owner(self.type_index, len(self.type_ancestors))
        self.fields = [_make_field(raw.fields[i], owner) for i in range(raw.num_fields)]
        self.methods = [_make_method(raw.methods[i]) for i in range(raw.num_methods)]
        return self


def _make_field(fi, owner):
    name = _text(fi.name)
    meta = _metadata(fi.metadata)
    flags = int(fi.flags)
    offset = int(fi.offset)
    if flags & _SETTER_IS_FUNCTION:
        setter = FieldSetter(name, offset, _conversion._from_any_view(T.kTVMFFIFunction, _addr(fi.setter)),
                             True, owner)
    else:
        setter = FieldSetter(name, offset, ffi.cast("TVMFFIFieldSetter", fi.setter), False, owner)
    has_default = bool(flags & _HAS_DEFAULT)
    return TypeField(
        name=name,
        doc=_text(fi.doc) or None,
        size=int(fi.size),
        offset=offset,
        frozen=not flags & _WRITABLE,
        metadata=meta,
        getter=FieldGetter(name, offset, fi.getter, owner),
        setter=setter,
        ty=_schema_of(meta),
        flags=flags,
        static_type_index=int(fi.field_static_type_index),
        c_init=not flags & _INIT_OFF,
        c_kw_only=bool(flags & _KW_ONLY),
        c_has_default=has_default,
        c_default_from_factory=bool(flags & _DEFAULT_FROM_FACTORY),
        c_default=_view_to_py(fi.default_value_or_factory) if has_default else _sentinels.MISSING,
        c_repr=not flags & _REPR_OFF,
        c_compare=not flags & _COMPARE_OFF,
        c_hash=not flags & _HASH_OFF,
        alignment=int(fi.alignment),
    )


def _make_method(mi):
    meta = _metadata(mi.metadata)
    return TypeMethod(
        name=_text(mi.name),
        doc=_text(mi.doc) or None,
        func=_view_to_py(mi.method),
        is_static=bool(mi.flags & _IS_STATIC),
        metadata=meta,
        ty=_schema_of(meta),
    )


# ---------------------------------------------------------------------------------------------
# the per-index cache

_INFO_BY_INDEX = _TYPE_INFO  # type index -> TypeInfo; _base._register_class updates type_cls


def _type_info_of_index(tidx):
    """TypeInfo of a type index (built once), or None for an index the runtime doesn't know."""
    info = _INFO_BY_INDEX.get(tidx)
    if info is not None:
        return info
    raw = lib.TVMFFIGetTypeInfo(tidx)
    if raw == ffi.NULL:
        _move_raised_error()  # the runtime raised: leave its error slot clean
        return None
    ancestors = [int(raw.type_ancestors[d].type_index) for d in range(raw.type_depth)]
    parent = _type_info_of_index(ancestors[-1]) if ancestors else None
    info = TypeInfo(
        type_cls=_TYPE_CLS.get(tidx),
        type_index=tidx,
        type_key=_text(raw.type_key),
        type_ancestors=ancestors,
        fields=[],
        methods=[],
        parent_type_info=parent,
    )
    _INFO_BY_INDEX[tidx] = info  # before refresh: a method's default may need this type
    return info.refresh()


def _lookup_or_register_type_info_from_type_key(type_key):
    """TypeInfo of a registered type key; ValueError when the runtime has no such type."""
    tidx = _type_key_to_index(type_key)
    if tidx is None:
        raise ValueError("Cannot find object type index for %s" % type_key)
    return _type_info_of_index(tidx)


# value-like classes that stand for a type index without being object wrappers of it
def _value_class_index(cls):
    table = {String: T.kTVMFFIStr, Bytes: T.kTVMFFIBytes, Shape: T.kTVMFFIShape,
             DataType: T.kTVMFFIDataType, dtype: T.kTVMFFIDataType, Device: T.kTVMFFIDevice}
    for klass, tidx in table.items():
        if cls is klass:
            return tidx
    if isinstance(cls, type) and issubclass(cls, Device):
        return 6
    return None


def _type_cls_to_type_info(cls):
    """TypeInfo bound to a Python class (registered, fallback or built-in), or None."""
    info = cls.__dict__.get("__tvm_ffi_type_info__") if isinstance(cls, type) else None
    if isinstance(info, TypeInfo):
        return info
    tidx = _CLS_TYPE.get(cls)
    if tidx is None:
        tidx = _value_class_index(cls)
        if tidx is None:
            return None
        info = _type_info_of_index(tidx)
        if info is not None and info.type_cls is None:
            info.type_cls = cls
        return info
    info = _type_info_of_index(tidx)
    if info is not None and _TYPE_CLS.get(tidx) is cls:
        info.type_cls = cls
    return info


def _register_type_info(tidx, cls):
    """Bind cls to tidx in the reflection records; sets ``cls.__tvm_ffi_type_info__``."""
    info = _type_info_of_index(tidx)
    if info is None:
        raise ValueError("type index %d is not in the type table" % tidx)
    info.type_cls = cls
    type.__setattr__(cls, "__tvm_ffi_type_info__", info)
    return info


def _register_type_attr(type_index, name, value):
    """Set type attribute ``name`` of a type (once: the runtime refuses a second value)."""
    ba, buf = _bytearray(name.encode())
    any_ = ffi.new("TVMFFIAny*")
    _conversion._to_owned_any(value, any_)
    try:
        _check(lib.TVMFFITypeRegisterAttr(type_index, ba, any_))
    finally:
        if any_.type_index >= T.kTVMFFIStaticObjectBegin:
            _decref(_addr(any_.v_obj))


def _lookup_type_attr(type_index, name, ancestor=False):
    """Value of type attribute ``name`` for a type (walking up ancestors if asked), or None."""
    ba, buf = _bytearray(name.encode())
    col = lib.TVMFFIGetTypeAttrColumn(ba)
    if col == ffi.NULL:
        return None
    chain = [type_index]
    if ancestor:
        raw = lib.TVMFFIGetTypeInfo(type_index)
        if raw == ffi.NULL:
            _move_raised_error()  # leave the error slot clean
        else:
            chain += [int(raw.type_ancestors[d].type_index) for d in reversed(range(raw.type_depth))]
    for tidx in chain:
        i = tidx - col.begin_index
        if 0 <= i < col.size:
            v = col.data[i]
            if v.type_index != T.kTVMFFINone:
                return _view_to_py(v)
    return None
