"""Object handles and their wrappers: the first layer above the runtime (core.py lists them).

A handle is an int, the address of a ``TVMFFIObject``.  ``CObject`` owns one strong reference
to one; ``Object`` is the base of registered classes; wrapper identity ("tying") keeps at most
one live wrapper per handle (the table is ``_identity.py``'s: wrappers tie, untie and leave it
here); ``_TYPE_CLS``/``_CLS_TYPE`` bind type indices to classes.
"""

import abc
import sys

from ._identity import _forget, _tie, _tied, _untie
from ._loader import API_MODE, ffi, lib
from ._type_index import kTVMFFIObjectRValueRef

if not API_MODE:  # (API mode's sealed fields are members of the compiled module's C bases)
    from . import _capi

_OBJ_HEADER = 24  # sizeof(TVMFFIObject): cells start right after the header

# ---------------------------------------------------------------------------------------------
# small helpers


def _ptr(h):
    return ffi.cast("void*", h)


def _addr(cdata):
    return int(ffi.cast("uintptr_t", cdata))


def _bytearray(b):
    """A TVMFFIByteArray* for bytes b; the buffer is kept alive by the returned pair."""
    buf = ffi.from_buffer(b)
    ba = ffi.new("TVMFFIByteArray*")
    ba.data = ffi.cast("const char*", buf)
    ba.size = len(b)
    return ba, buf


def _unpack_bytes(ba):
    return ffi.unpack(ba.data, ba.size) if ba.size else b""


if API_MODE:
    _decref = lib.ffipy_dec_ref
else:

    def _decref(h, _decref=lib.TVMFFIObjectDecRef, _cast=ffi.cast):
        _decref(_cast("void*", h))


def _incref(h):
    lib.TVMFFIObjectIncRef(_ptr(h))



# what the compiled entry points return (ffipy_status, _ffi_src/helpers.h); ABI mode has
# neither the entry points nor, declared from the bare headers, these names: None there
if API_MODE:
    _OK = lib.FFIPY_OK
    _FFI_ERROR = lib.FFIPY_FFI_ERROR
    _PY_ERROR = lib.FFIPY_PY_ERROR
else:
    _OK = _FFI_ERROR = _PY_ERROR = None


# ---------------------------------------------------------------------------------------------
# a wrapper's end: leave the identity table (_identity.py), then drop the reference

if API_MODE:

    def _drop(w, h, _f=lib.ffipy_drop_handle, _id=id):
        _f(_id(w), h)

else:
    # defaults bound now: finalisers run at shutdown too, after module globals are cleared
    def _drop(w, h, _forget=_forget, _decref=_decref):
        _forget(w, h)
        _decref(h)


def _cell_handle(obj, tidx, what):
    """obj's handle when it holds an object of type index tidx (whose cell a method is about to
    read); TypeError for another object, ValueError for an empty wrapper."""
    h = obj._h if isinstance(obj, CObject) else None
    if not h:
        if h is None:
            raise TypeError("%s needs a tvm_ffi object, got %s" % (what, type(obj).__name__))
        raise ValueError("%s: the %s holds no object" % (what, type(obj).__name__))
    if _type_index_of(h) != tidx:
        raise TypeError("%s does not apply to a %s object (type index %d)"
                        % (what, type(obj).__name__, _type_index_of(h)))
    return h


def _new_tied(cls, h):
    """A new wrapper owning h, tied to it (for handles fresh from a constructor)."""
    w = _new_wrapper(cls, h)
    _tie(w, h)
    return w


def _type_index_of(h):
    return ffi.cast("TVMFFIObject*", h).type_index


def _new_wrapper(cls, h):
    obj = cls.__new__(cls)
    _set_h(obj, h)
    return obj


# ---------------------------------------------------------------------------------------------
# object wrappers


class FFIProperty(property):
    # The class attribute of a reflected field: a ``property`` whose ``set(obj, value)`` writes
    # through the field's setter even where plain assignment is refused (a frozen field, whose
    # ``fset`` is None), e.g. to finish building an immutable object.

    def __init__(self, fget=None, fset=None, fdel=None, doc=None, raw_set=None):
        property.__init__(self, fget, fset, fdel, doc)
        # a property subclass does not keep doc by itself (nor fall back to fget's)
        self.__doc__ = doc if doc is not None else getattr(fget, "__doc__", None)
        self._raw_set = raw_set if raw_set is not None else fset

    def set(self, obj, value):
        """Store value in obj's field, frozen or not."""
        if self._raw_set is None:
            raise AttributeError("field `%s` of %s has no setter"
                                 % (getattr(self.fget, "__name__", "?"), type(obj).__name__))
        self._raw_set(obj, value)


class _RefusingFFIProperty(FFIProperty):
    # An FFIProperty without ``fset`` whose assignment and deletion raise ``refusal(message)``
    # (read-only C++ fields, frozen dataclass fields) instead of property's generic error.

    def __init__(self, fget, doc, raw_set, refusal, name):
        FFIProperty.__init__(self, fget, None, None, doc, raw_set)
        self._refusal = refusal
        self._name = name

    def __set__(self, obj, value):
        raise self._refusal("cannot assign to field '%s' of %s" % (self._name, type(obj).__name__))

    def __delete__(self, obj):
        raise self._refusal("cannot delete field '%s' of %s" % (self._name, type(obj).__name__))


if API_MODE:
    # the compiled module's C bases (_ffi_src/basetypes.c): the handle as a C field beside `_h`,
    # Function's call, Tensor's `_view`, a container's `_tvm_api`; set_h and set_extra are the
    # writers of those fields
    def _base_types():
        box = [None]
        if lib.ffipy_base_types(id(box)) != lib.FFIPY_OK:
            raise RuntimeError("tvm_ffi: the compiled module could not make its base types")
        return box[0]

    (_CObjectBase, _FunctionBase, _TensorBase, _ContainerBase, _set_h_compiled,
     _set_extra) = _base_types()
    _COBJECT_BASES = (_CObjectBase,)
else:
    _FunctionBase = _TensorBase = _ContainerBase = None
    _COBJECT_BASES = ()


class CObject(*_COBJECT_BASES):
    """Owner of one strong reference to an FFI object handle (slot ``_h``; 0 when empty)."""

    __slots__ = () if API_MODE else ("_h",)  # (API mode: `_h` is the C base's)

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        _set_h(self, 0)
        return self

    def __del__(self, _drop=_drop, _set_h=None):  # _set_h bound below, once it exists
        h = self._h
        if h:
            _set_h(self, 0)
            _drop(self, h)  # untie, then drop the reference

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        user_del = cls.__dict__.get("__del__")
        if user_del is not None and not getattr(user_del, "_tvm_ffi_chained", False):
            # the wrapper must leave the identity table and drop its reference even when a
            # subclass finaliser forgets super().__del__() (a second call finds _h == 0)
            def __del__(self, _user=user_del):
                try:
                    _user(self)
                finally:
                    CObject.__del__(self)

            __del__._tvm_ffi_chained = True
            cls.__del__ = __del__

    def __chandle__(self):
        return self._h

    @property
    def id_(self):
        return self._h

    def __ctypes_handle__(self):
        import ctypes  # noqa: PLC0415 - ~1 ms: `import tvm_ffi` does not load it

        return ctypes.c_void_p(self._h or None)

    def same_as(self, other):
        return isinstance(other, CObject) and self._h == other._h

    def is_(self, other):  # docs/python.md §4.1: same as same_as (two empty wrappers included)
        return isinstance(other, CObject) and self._h == other._h

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return self._h

    def __repr__(self):
        if not self._h:
            return "<%s>(chandle=None)" % type(self).__name__
        from ._function import _global  # noqa: PLC0415 - the function layer builds on this one

        try:
            return _global("ffi.ReprPrint")(self)
        except Exception:  # noqa: BLE001 - repr never raises
            return "<%s>(0x%x)" % (type(self).__name__, self._h)

    def __init_handle_by_constructor__(self, fconstructor, *args):
        obj = fconstructor(*args)
        if not isinstance(obj, CObject):
            raise TypeError("constructor returned %r, not an object" % type(obj).__name__)
        refs = getattr(sys, "getrefcount", None)
        if refs is not None and refs(obj) > 2 and obj._h:
            # the constructor returned an object that already has a live wrapper: share the
            # object instead of emptying that wrapper
            h = obj._h
            _incref(h)
            old = self._h
            _set_h(self, h)
            if old:
                _drop(self, old)
            return
        self.__move_handle_from__(obj)

    def __move_handle_from__(self, other):
        if other is self:
            return
        h, old = other._h, self._h
        if h:
            _untie(other, h)
        _set_h(other, 0)
        _set_h(self, h)
        if old:
            _drop(self, old)
        if h:
            _tie(self, h)

    def _move(self):
        return ObjectRValueRef(self)

    def __reduce__(self):
        return (_restore_object, (type(self), self.__getstate__()))

    def __getstate__(self):
        if not self._h:
            return {"handle": None}
        from ._function import _global  # noqa: PLC0415 - the function layer builds on this one

        f = _global("ffi.ToJSONGraphString", allow_missing=True)
        if f is None:
            raise RuntimeError("pickling needs the global function ffi.ToJSONGraphString")
        return {"handle": f(self, None)}

    def __setstate__(self, state):
        if state["handle"] is None:
            _set_h(self, 0)
            return
        from ._function import _global  # noqa: PLC0415 - the function layer builds on this one

        f = _global("ffi.FromJSONGraphString", allow_missing=True)
        if f is None:
            raise RuntimeError("unpickling needs the global function ffi.FromJSONGraphString")
        self.__move_handle_from__(f(state["handle"]))


# ---------------------------------------------------------------------------------------------
# sealed fields: what the runtime trusts (an object address in `_h`, a DLTensor address in
# Tensor._view, a container's exchange table in _tvm_api) is read-only from Python; only the
# binding stores into them, through the writer _seal_slot returns.  API mode: they are
# read-only members of the compiled module's C bases, written by its set_h / set_extra.

_WRITERS = {}  # field name -> its writer(obj, value) (_store)


def _store(obj, name, value):
    """obj.name = value for a sealed field name (e.g. a container's _tvm_api tag)."""
    _WRITERS[name](obj, value)


def _field_writer(cls, name):
    """The writer(obj, value) of the field name of cls, for the binding alone (bound before
    _seal_slot, which makes a fresh instance)."""
    if API_MODE:  # (a read-only member of the C base)
        return _set_h_compiled if name == "_h" else _set_extra
    return cls.__dict__[name].__set__


def _seal_slot(cls, name):
    """Make the field name of cls read-only from Python (assignment and deletion raise
    AttributeError); _store(obj, name, value) writes it."""
    _WRITERS[name] = _field_writer(cls, name)
    if API_MODE:
        return
    raw = cls.__dict__[name]
    d = _capi.readonly_member(cls, raw, name)  # CPython, through ctypes
    if d is not None:
        type.__setattr__(cls, name, d)
        return

    # PyPy (no member descriptors to make): a property, which its JIT inlines
    def refuse(obj, value=None):
        raise AttributeError("'%s' of %s objects is read-only: it is the binding's own state"
                             % (name, type(obj).__name__))

    def get(obj, _get=raw.__get__):
        return _get(obj)

    type.__setattr__(cls, name, property(get, refuse, refuse))


# Stores the handle without going through the instance's __setattr__: subclasses may override
# it (TVM's derived_object forwards attribute writes to a wrapped instance).
_set_h = _field_writer(CObject, "_h")
_seal_slot(CObject, "_h")
# Finalisers run at interpreter shutdown too, after module globals are cleared: bind now.
CObject.__del__.__defaults__ = (_drop, _set_h)


def _restore_object(cls, state):
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj


class _ObjectMeta(abc.ABCMeta):
    """Gives every subclass ``__slots__ = ()`` unless it declares its own."""

    def __new__(mcs, name, bases, ns, **kw):
        ns.setdefault("__slots__", ())
        return super().__new__(mcs, name, bases, ns, **kw)


class Object(CObject, metaclass=_ObjectMeta):
    """Base class of FFI object types (registered classes derive from it)."""

    __slots__ = ()


class ObjectRValueRef:
    """``obj._move()``: passed as an argument, lets the callee take obj's reference."""

    __slots__ = ("obj", "_cell")

    def __init__(self, obj):
        self.obj = obj
        self._cell = None

    def _take(self):
        # the cell holds the reference for the call; the wrapper is detached (and untied)
        obj = self.obj
        h = obj._h if isinstance(obj, CObject) else 0
        if not h:
            raise ValueError(
                "cannot move %s: it holds no object (moved already?)" % type(obj).__name__
            )
        # Moving detaches the handle from its canonical wrapper, whichever wrapper that is
        # (a callback's argument moves the caller's object): what comes back is a new wrapper.
        tied = _tied(h)
        if tied is not None:
            _untie(tied, h)
        self._cell = cell = ffi.new("void**", _ptr(h))
        _set_h(obj, 0)
        payload = _MovedArg(_addr(cell))
        payload.give_back = (obj, cell)
        return (kTVMFFIObjectRValueRef, payload)


class _MovedArg(int):
    """Payload of an rvalue-ref argument: the address of the cell holding the handle.

    It lives in the call's temporaries; when they are released (after the call and its result
    conversion), a handle the callee did not take goes back to the wrapper.
    """

    def __del__(self):
        obj, cell = self.give_back
        if cell[0] != ffi.NULL:
            h = _addr(cell[0])
            cell[0] = ffi.NULL
            if obj._h:
                _decref(h)  # the wrapper was given another handle meanwhile
            else:
                _set_h(obj, h)
                _tie(obj, h)



# ---------------------------------------------------------------------------------------------
# type registry: type index -> Python class

_TYPE_CLS = {}  # type index -> class
_CLS_TYPE = {}  # class -> type index
_TYPE_INFO = {}  # type index -> _typeinfo.TypeInfo (built on first use)


def _register_class(tidx, cls):
    _TYPE_CLS[tidx] = cls
    _CLS_TYPE[cls] = tidx
    info = _TYPE_INFO.get(tidx)  # the reflection record (_typeinfo) follows the binding
    if info is not None:
        info.type_cls = cls

