"""Core of the tvm_ffi package: object wrappers, the call path and errors.

The hot path (argument packing, the call, result conversion) is C code inside the cffi module
(``_ffi_src/``, entry points in ``helpers.h``); the Python hooks it delegates the rare cases
to are in ``_conversion.py``, which this module re-exports and installs.  In ABI mode (no
compiled module) ``_abi.py`` implements the same protocol in Python.
"""

import abc
import os
import sys

from . import _loader, _rules
from ._loader import API_MODE, ffi, lib
from ._type_index import (
    kTVMFFIDataType,
    kTVMFFIDevice,
    kTVMFFIError,
    kTVMFFIFunction,
    kTVMFFIObject,
    kTVMFFIObjectRValueRef,
    kTVMFFIOpaquePyObject,
    kTVMFFITensor,
)

# ctypes and numbers are imported where used, not here: `import tvm_ffi` stays fast

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


# ---------------------------------------------------------------------------------------------
# wrapper identity ("tying", docs/python.md §4.3): at most one live wrapper per object handle.  The
# protocol is described once, in HACKING.md "Wrapper identity": API mode's table is C
# (_ffi_src/identity.c), ABI mode's (CPython and PyPy) the dict below.

if API_MODE:

    def _tie(w, h, _f=lib.ffipy_tie, _id=id):
        _f(_id(w), h)

    def _untie(w, h, _f=lib.ffipy_untie, _id=id):
        _f(_id(w), h)

    def _drop(w, h, _f=lib.ffipy_drop_handle, _id=id):
        _f(_id(w), h)

    def _tied(h):
        """The live wrapper tied to handle h, or None."""
        box = [None]
        lib.ffipy_tied_wrapper(h, id(box))
        return box[0]

    def _tied_count():
        return lib.ffipy_tied_count()

else:  # ABI mode (CPython and PyPy): one table, handle -> a non-owning reference to the wrapper
    _TIES = {}

    if sys.implementation.name == "cpython":
        # the wrapper's address, read back through ctypes: CObject takes no weak references (as
        # upstream's), and an entry never outlives its wrapper (__del__ drops it first)
        import ctypes

        _ref = id

        def _deref(r, _cast=ctypes.cast, _py=ctypes.py_object):
            return _cast(r, _py).value

    else:  # PyPy: objects have no addresses, but every object takes weak references
        import weakref

        _ref = weakref.ref

        def _deref(r):
            return r()  # None once the GC found the wrapper dead, before its __del__ ran

    # identity comparisons only (a wrapper's __eq__ may read fields), and pop, not del: a GC
    # finaliser may run _drop in the middle of another table update
    def _tie(w, h, _ties=_TIES):
        if h:
            old = _ties.get(h)
            if old is None or _deref(old) is None:
                _ties[h] = _ref(w)

    def _untie(w, h, _ties=_TIES):
        r = _ties.get(h)
        if r is not None and _deref(r) is w:
            _ties.pop(h, None)

    # defaults bound now: finalisers run at shutdown too, after module globals are cleared
    def _drop(w, h, _ties=_TIES, _decref=_decref, _deref=_deref):
        r = _ties.get(h)
        if r is not None:
            live = _deref(r)
            if live is w or live is None:
                _ties.pop(h, None)
        _decref(h)

    def _tied(h, _ties=_TIES):
        """The live wrapper tied to handle h, or None."""
        r = _ties.get(h)
        w = _deref(r) if r is not None else None
        if w is None or w._h != h:  # dead, or stale: the wrapper moved on without untying
            _ties.pop(h, None)
            return None
        return w

    def _tied_count():
        return len(_TIES)


def _new_tied(cls, h):
    """A new wrapper owning h, tied to it (for handles fresh from a constructor)."""
    w = _new_wrapper(cls, h)
    _tie(w, h)
    return w


def _type_index_of(h):
    return ffi.cast("TVMFFIObject*", h).type_index


def _call_error(pending):
    """Exception to raise after a failed call (the FFI error, or the pending Python one)."""
    err = _move_raised_error()
    if pending is not None and (err is None or err.kind == "EnvErrorAlreadySet"):
        return pending
    if err is None:
        return RuntimeError("tvm_ffi: call failed without an error object")
    exc = err.py_error()
    # the C-level __call__ leaves no Python frame: name the package's call site explicitly
    from .error import _synthetic_frame  # noqa: PLC0415
    import types  # noqa: PLC0415

    line = Function.__dict__.get("_call_line", 1)
    frame = _synthetic_frame(__file__, line, "Function.__call__")
    return exc.with_traceback(types.TracebackType(exc.__traceback__, frame, 0, line))


if API_MODE:  # what the compiled entry points return (ffipy_status, _ffi_src/helpers.h);
    # ABI mode has neither the entry points nor, declared from the bare headers, these names
    _OK = lib.FFIPY_OK
    _FFI_ERROR = lib.FFIPY_FFI_ERROR
    _PY_ERROR = lib.FFIPY_PY_ERROR
    _BOTH_ERRORS = lib.FFIPY_BOTH_ERRORS
    _SHARED_BOX = lib.FFIPY_SHARED_BOX


def _take_exception():
    box = [None]
    if lib.ffipy_take_exception(id(box)) != _OK:
        return RuntimeError("tvm_ffi: lost a Python exception")
    return box[0]


def _move_raised_error():
    """Move the raised FFI error out of this thread's slot as an Error wrapper (or None)."""
    out = ffi.new("void**")
    lib.TVMFFIErrorMoveFromRaised(out)
    h = _addr(out[0])
    if not h:
        return None
    err = Error.__new__(Error)
    err._h = h
    return err


def _raise_ffi_error():
    err = _move_raised_error()
    if err is None:
        raise RuntimeError("tvm_ffi: call failed without an error object")
    raise err.py_error()


def _check(rc):
    if rc != 0:
        _raise_ffi_error()


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


class CObject:
    """Owner of one strong reference to an FFI object handle (slot ``_h``; 0 when empty)."""

    __slots__ = ("_h",)

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
        import ctypes  # noqa: PLC0415

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
        f = _global("ffi.ToJSONGraphString", allow_missing=True)
        if f is None:
            raise RuntimeError("pickling needs the global function ffi.ToJSONGraphString")
        return {"handle": f(self, None)}

    def __setstate__(self, state):
        if state["handle"] is None:
            _set_h(self, 0)
            return
        f = _global("ffi.FromJSONGraphString", allow_missing=True)
        if f is None:
            raise RuntimeError("unpickling needs the global function ffi.FromJSONGraphString")
        self.__move_handle_from__(f(state["handle"]))


# Stores the handle slot without going through the instance's __setattr__: subclasses may
# override it (TVM's derived_object forwards attribute writes to a wrapped instance).
_set_h = CObject._h.__set__
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


class OpaquePyObject(CObject):
    """An FFI object (kTVMFFIOpaquePyObject) holding a strong reference to a Python object."""

    __slots__ = ()

    def pyobject(self):
        cell = ffi.cast("TVMFFIOpaqueObjectCell*", self._h + _OBJ_HEADER)
        return _from_any_view(kTVMFFIOpaquePyObject, self._h) if cell.handle else None


class PyNativeObject:
    """Mixin of value-like classes that subclass builtins (String, Bytes, Shape)."""

    __slots__ = ()

    def __init_cached_object_by_constructor__(self, fconstructor, *args):
        self._tvm_ffi_cached_object = fconstructor(*args)


class String(str, PyNativeObject):
    """A ``str`` that may carry the ffi.String object it came from."""

    def __new__(cls, value=""):
        self = str.__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __reduce__(self):
        return (str, (str(self),))


class Bytes(bytes, PyNativeObject):
    """A ``bytes`` that may carry the ffi.Bytes object it came from."""

    def __new__(cls, value=b""):
        self = bytes.__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __reduce__(self):
        return (bytes, (bytes(self),))


class Function(CObject):
    """A callable FFI function object (kTVMFFIFunction)."""

    __slots__ = ("release_gil", "__dict__")

    def __new__(cls, *args, **kwargs):
        self = CObject.__new__(cls)
        self.release_gil = _RELEASE_GIL_DEFAULT
        return self

    _call_line = sys._getframe().f_lineno + 2  # the line that names the call in tracebacks

    def __call__(*args, _call=lib.ffipy_call if API_MODE else None, _id=id):
        rc = _call(_id(args))
        if rc == 0:  # FFIPY_OK
            return args[0]
        ok, value = _call_failed(rc, args)
        if ok:
            return value
        try:
            raise value  # raised here so the traceback shows one package frame
        finally:
            del value  # no cycle: exception -> traceback -> this frame -> exception

    @staticmethod
    def __from_extern_c__(c_symbol, *, keep_alive_object=None):
        out = ffi.new("void**")
        box = [keep_alive_object]
        if lib.ffipy_function_from_extern_c(_ptr(c_symbol), id(box), out) != _OK:
            _raise_ffi_error()
        return _new_wrapper(Function, _addr(out[0]))

    @staticmethod
    def __from_mlir_packed_safe_call__(addr, *, keep_alive_object=None):
        out = ffi.new("void**")
        box = [keep_alive_object]
        if lib.ffipy_function_from_mlir_packed(_ptr(addr), id(box), out) != _OK:
            _raise_ffi_error()
        return _new_wrapper(Function, _addr(out[0]))


_RELEASE_GIL_DEFAULT = bool(int(os.environ.get("TVM_FFI_RELEASE_GIL_BY_DEFAULT", "1")))


def _call_failed(rc, box):
    """(True, result) or (False, exception) for a failed ffipy_call status."""
    if rc == _SHARED_BOX:  # the *args tuple is shared: retry with a private list
        box = list(box)
        rc = lib.ffipy_call(id(box))
        if rc == _OK:
            return True, box[0]
    if rc == _PY_ERROR:
        return False, _take_exception()
    err = _move_raised_error()
    if rc == _BOTH_ERRORS:
        pending = _take_exception()
        if err is None or err.kind == "EnvErrorAlreadySet":
            return False, pending
    if err is None:
        return False, RuntimeError("tvm_ffi: call failed without an error object")
    return False, err.py_error()


# ---------------------------------------------------------------------------------------------
# errors

ERROR_NAME_TO_TYPE = {}
ERROR_TYPE_TO_NAME = {}
# OverflowError (a callback result too large for its slot), KeyboardInterrupt and SystemExit
# too: Ctrl-C or sys.exit() in a callback must reach the caller as itself, not a RuntimeError
for _cls in (RuntimeError, ValueError, TypeError, AttributeError, KeyError, IndexError,
             AssertionError, MemoryError, OverflowError, KeyboardInterrupt, SystemExit):
    ERROR_NAME_TO_TYPE[_cls.__name__] = _cls
    ERROR_TYPE_TO_NAME[_cls] = _cls.__name__


def _exit_code(message):
    """SystemExit's code back from its message (str(code)): an int, None or the text."""
    if not message:
        return None
    try:
        return int(message)
    except ValueError:
        return message


def _exc_message(exc):
    """str(exc), best effort: an exception whose __str__ raises, or whose text the runtime's
    UTF-8 cannot hold (a lone surrogate), still crosses with its kind and a readable message."""
    if isinstance(exc, SystemExit) and exc.code is None:
        return ""  # as _exit_code reads it back (str() would give "None")
    try:
        msg = str(exc)
    except BaseException as e:  # noqa: BLE001 - any failure of user code in __str__
        return "<%s: str() failed with %s>" % (type(exc).__name__, type(e).__name__)
    return msg


def _utf8(text):
    """text as the runtime's UTF-8: bytes smuggled in by surrogateescape go back out as they
    came; other lone surrogates, which UTF-8 cannot hold, are written as \\udXXX escapes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


class Error(CObject):
    """An ffi.Error object (kind, message, backtrace)."""

    __slots__ = ()

    def __init__(self, kind, message, backtrace=""):
        if self._h:
            return
        for what, v in (("kind", kind), ("message", message), ("backtrace", backtrace)):
            if not isinstance(v, str):
                raise TypeError("Error %s must be a str, got %s" % (what, type(v).__name__))
        out = ffi.new("void**")
        k, kb = _bytearray(kind.encode())
        m, mb = _bytearray(_utf8(message))
        b, bb = _bytearray(_utf8(backtrace))
        if lib.TVMFFIErrorCreate(k, m, b, out) != 0:
            raise MemoryError("TVMFFIErrorCreate failed")
        self._h = _addr(out[0])

    def _cell(self):
        return ffi.cast("TVMFFIErrorCell*", self._h + _OBJ_HEADER)

    def __reduce__(self):
        # by value (an ffi.Error has no JSON-graph form), so an exception that crossed an FFI
        # call pickles and deep-copies with the Error in its __dict__; extra_context is native
        # and dropped
        if not self._h:
            return (_restore_error, ())
        return (_restore_error, (self.kind, self.message, self.backtrace))

    @property
    def kind(self):
        return _unpack_bytes(self._cell().kind).decode("utf-8", "replace")

    @property
    def message(self):
        return _unpack_bytes(self._cell().message).decode("utf-8", "replace")

    @property
    def backtrace(self):
        return _unpack_bytes(self._cell().backtrace).decode("utf-8", "replace")

    @property
    def extra_context(self):
        h = _addr(self._cell().extra_context)
        if not h:
            return None
        _incref(h)
        return _ret_obj(_type_index_of(h), h, None)

    def update_backtrace(self, text):
        ba, buf = _bytearray(_utf8(text))
        self._cell().update_backtrace(_ptr(self._h), ba, 0)

    def py_error(self):
        cls = ERROR_NAME_TO_TYPE.get(self.kind, RuntimeError)
        message = self.message
        if cls is SystemExit:
            exc = cls(_exit_code(message))
        elif cls is KeyboardInterrupt and not message:
            exc = cls()  # as Ctrl-C raises it
        else:
            exc = cls(message)
        exc.__tvm_ffi_error__ = self
        from .error import _traceback_from_backtrace  # noqa: PLC0415

        return exc.with_traceback(_traceback_from_backtrace(self.backtrace))


def _restore_error(*state):
    """Unpickles an Error: a new one from (kind, message, backtrace), or an empty handle."""
    return Error(*state) if state else Error.__new__(Error)


def _exc_to_error(exc, append_native=True):
    """Python exception -> core.Error (callbacks, arguments, convert)."""
    from .error import _format_traceback  # noqa: PLC0415

    text = _format_traceback(exc.__traceback__)
    if isinstance(append_native, str):  # captured by the C callback at the conversion point
        text += append_native
    elif append_native:
        bt = lib.TVMFFIBacktrace(ffi.NULL, 0, ffi.NULL, 0)
        if bt != ffi.NULL and bt.size:
            text += _unpack_bytes(bt).decode("utf-8", "replace")
    existing = getattr(exc, "__tvm_ffi_error__", None)
    if isinstance(existing, Error) and existing._h:
        existing.update_backtrace(text)
        return existing
    kind = ERROR_TYPE_TO_NAME.get(type(exc))
    if kind is None:  # a subclass of Ctrl-C or sys.exit() must not become a catchable RuntimeError
        kind = next((c.__name__ for c in (KeyboardInterrupt, SystemExit) if isinstance(exc, c)),
                    "RuntimeError")
    return Error(kind, _exc_message(exc), text)


# ---------------------------------------------------------------------------------------------
# global functions

_GLOBAL_CACHE = {}


def _global_handle(name):
    """New reference to a global function handle (int), 0 when absent."""
    ba, buf = _bytearray(name.encode())
    out = ffi.new("void**")
    _check(lib.TVMFFIFunctionGetGlobal(ba, out))
    return _addr(out[0])


def _global(name, allow_missing=False):
    """Cached Function wrapper of a core global (for internal use)."""
    f = _GLOBAL_CACHE.get(name)
    if f is None:
        h = _global_handle(name)
        if not h:
            if allow_missing:
                return None
            raise ValueError("Cannot find global function %s" % name)
        f = Function.__new__(Function)
        f._h = h
        _GLOBAL_CACHE[name] = f
    return f


# ---------------------------------------------------------------------------------------------
# dtype and device (POD values carry __tvm_ffi_pod__ = (type_index, payload))

_DTYPE_TEXT_CACHE = {}


def _dtype_pack(code, bits, lanes):
    return (code & 0xFF) | ((bits & 0xFF) << 8) | ((lanes & 0xFFFF) << 16)


def _parse_dtype(text):
    ba, buf = _bytearray(text.encode())
    out = ffi.new("DLDataType*")
    if lib.TVMFFIDataTypeFromString(ba, out) != 0:
        err = _move_raised_error()
        raise ValueError(err.message if err is not None else "unknown dtype %r" % text)
    return out.code, out.bits, out.lanes


def _dtype_text(packed):
    text = _DTYPE_TEXT_CACHE.get(packed)
    if text is None:
        d = ffi.new("DLDataType*")
        d.code, d.bits, d.lanes = packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFFFF
        any_ = ffi.new("TVMFFIAny*")
        _check(lib.TVMFFIDataTypeToString(d, any_))
        text = _from_owned_any(any_)
        text = str(text)
        _DTYPE_TEXT_CACHE[packed] = text
    return text


class DataType:
    """Low-level DLDataType box: type_code, bits, lanes."""

    __slots__ = ("type_code", "bits", "lanes", "__tvm_ffi_pod__")

    def __init__(self, text=None):
        if text is not None:
            self._set(*_parse_dtype(str(text)))

    def _set(self, code, bits, lanes):
        self.type_code, self.bits, self.lanes = code, bits, lanes
        self.__tvm_ffi_pod__ = (kTVMFFIDataType, _dtype_pack(code, bits, lanes))
        return self

    @property
    def itemsize(self):
        lanes = self.lanes
        if lanes >= 0x8000:
            raise ValueError("itemsize is not defined for scalable vector types")
        return (self.bits * lanes + 7) // 8

    def __str__(self):
        return _dtype_text(self.__tvm_ffi_pod__[1])

    def __repr__(self):
        return "DataType(%r)" % str(self)

    def __eq__(self, other):
        return isinstance(other, DataType) and self.__tvm_ffi_pod__ == other.__tvm_ffi_pod__

    def __hash__(self):
        return hash(self.__tvm_ffi_pod__)

    def __reduce__(self):
        return (_make_datatype, (self.type_code, self.bits, self.lanes))


def _make_datatype(code, bits, lanes):
    return DataType()._set(code, bits, lanes)


_DEVICE_NAME_TO_CODE = {
    "cpu": 1, "cuda": 2, "opencl": 4, "vulkan": 7, "metal": 8, "mps": 8, "vpi": 9, "rocm": 10,
    "ext_dev": 12, "hexagon": 16, "wgpu": 15, "webgpu": 15, "maia": 17, "trn": 18,
}
_DEVICE_CODE_TO_NAME = {
    1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi",
    10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed", 14: "oneapi", 15: "webgpu",
    16: "hexagon", 17: "maia", 18: "trn",
}


def _is_integral(v):
    if isinstance(v, int):
        return True
    import numbers  # noqa: PLC0415

    return isinstance(v, numbers.Integral)


def _device_index(index):
    if _is_integral(index):
        return int(index)
    item = getattr(index, "item", None)
    if callable(item):
        value = item()
        if _is_integral(value):
            return int(value)
    raise TypeError("Invalid device index: %r" % (index,))


class Device:
    """A (device_type, index) pair (DLDevice)."""

    __slots__ = ("_code", "_index", "__tvm_ffi_pod__")

    def __init__(self, device_type, index=None):
        if isinstance(device_type, str):
            text = device_type.split(" ", 1)[0]
            parts = text.split(":")
            if len(parts) > 2:
                raise ValueError("Invalid device: %s" % device_type)
            name = parts[0]
            if name not in _DEVICE_NAME_TO_CODE:
                raise ValueError("Unknown device: %s" % name)
            code = _DEVICE_NAME_TO_CODE[name]
            if len(parts) == 2:
                try:
                    index = int(parts[1])
                except ValueError:
                    raise ValueError("Invalid device index: %s" % device_type) from None
        elif _is_integral(device_type):
            code = int(device_type)
        else:
            raise TypeError("Invalid device type: %r" % (device_type,))
        index = 0 if index is None else _device_index(index)
        for what, v in (("type", code), ("index", index)):
            if not -(1 << 31) <= v < 1 << 31:  # DLDevice holds two int32 (negative ids pass)
                raise OverflowError("device %s %d does not fit in int32" % (what, v))
        self._init(code, index)

    def _init(self, code, index):
        self._code = code
        self._index = index
        self.__tvm_ffi_pod__ = (kTVMFFIDevice, (code & 0xFFFFFFFF) | ((index & 0xFFFFFFFF) << 32))
        return self

    @property
    def type(self):
        return _DEVICE_CODE_TO_NAME[self._code]

    def __device_type_name__(self):
        return _DEVICE_CODE_TO_NAME[self._code]

    @property
    def index(self):
        return self._index

    def dlpack_device_type(self):
        return self._code

    def __str__(self):
        return "%s:%d" % (self.type, self._index)

    def __repr__(self):
        return "device(type='%s', index=%d)" % (self.type, self._index)

    def __eq__(self, other):
        return isinstance(other, Device) and (self._code, self._index) == (other._code, other._index)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._code, self._index))

    def __reduce__(self):
        return (_make_device, (type(self), self._code, self._index))


def _make_device(cls, code, index):
    return cls.__new__(cls)._init(code, index)


_CLASS_DEVICE = Device


def _set_class_device(cls):
    global _CLASS_DEVICE
    _CLASS_DEVICE = cls


def _device_from_payload(payload):
    code = payload & 0xFFFFFFFF
    index = (payload >> 32) & 0xFFFFFFFF
    if index >= 1 << 31:
        index -= 1 << 32
    return _CLASS_DEVICE.__new__(_CLASS_DEVICE)._init(code, index)


# ---------------------------------------------------------------------------------------------
# type registry: type index -> Python class

_TYPE_CLS = {}  # type index -> class
_CLS_TYPE = {}  # class -> type index
_TYPE_INFO = {}  # type index -> _typeinfo.TypeInfo (built on first use)


def _type_key(tidx):
    info = lib.TVMFFIGetTypeInfo(tidx)
    if info == ffi.NULL:  # an index no type was registered under (RuntimeError raised)
        _raise_ffi_error()
    return ffi.string(info.type_key.data, info.type_key.size).decode()


def _type_key_to_index(key):
    ba, buf = _bytearray(key.encode())
    out = ffi.new("int32_t*")
    if lib.TVMFFITypeKeyToIndex(ba, out) != 0:
        err = _move_raised_error()  # leave the slot clean
        del err
        return None
    return out[0]


_object_type_key_to_index = _type_key_to_index


def _register_class(tidx, cls):
    _TYPE_CLS[tidx] = cls
    _CLS_TYPE[cls] = tidx
    info = _TYPE_INFO.get(tidx)  # the reflection record (_typeinfo) follows the binding
    if info is not None:
        info.type_cls = cls


# built-in object types whose Python class lives in a module `import tvm_ffi` does not
# import (python/tvm_ffi/__init__.py, _LAZY): type key -> that module, imported on first need
_LAZY_CLASS_MODULES = {"ffi.Module": "module"}


def _class_for_index(tidx):
    cls = _TYPE_CLS.get(tidx)
    if cls is None and _LAZY_CLASS_MODULES:
        modname = _LAZY_CLASS_MODULES.pop(_type_key(tidx), None)
        if modname is not None:
            from importlib import import_module  # noqa: PLC0415

            import_module("." + modname, __package__)  # registers the class
            cls = _TYPE_CLS.get(tidx)
    if cls is None:
        from .registry import _make_fallback_class  # noqa: PLC0415

        cls = _make_fallback_class(tidx)
    return cls


def _wrapper_kind(cls):
    """How the C fast path (_ffi_src/results.c) may build result wrappers of cls without calling Python (asked once per
    class): (1, 0) only `_h` to set, (2, offset of `_tvm_api`) a plain container, (0, 0) never
    (a class with its own __new__ goes through _ret_obj)."""
    if not issubclass(cls, Object):
        return (0, 0)
    if cls.__new__ is CObject.__new__:
        return (1, 0)
    from .container import CContainerBase  # noqa: PLC0415

    if issubclass(cls, CContainerBase) and cls.__new__ is CContainerBase.__new__:
        return (2, _slot_offset(CContainerBase, "_tvm_api"))
    return (0, 0)


def _new_wrapper(cls, h):
    obj = cls.__new__(cls)
    _set_h(obj, h)
    return obj


class DLPackExchangeAPIError(TypeError, ValueError):
    """A malformed ``__dlpack_c_exchange_api__``: a TypeError, and a ValueError as in the apache
    package (whose message it keeps), so code written against either catches it."""


def _exchange_api_address(attr):
    """The address of the DLPackExchangeAPI table that ``attr`` (a type's
    ``__dlpack_c_exchange_api__``) points to, after checking that it is one: a capsule named
    "dlpack_exchange_api" (a bare int cannot be checked, so it is refused), DLPack major version
    1, and the two conversion functions present -- calls jump through them unchecked.  (Runs
    once per type, on the first torch call of a process: the accepting path is kept short.)"""
    if API_MODE:  # read in C (a non-capsule reads as address 0)
        box = [attr]
        if _api_fields_c(id(box)) != _OK:
            raise _take_exception()
        fields = box[0]
    else:
        fields = _exchange_api_fields(attr) if type(attr).__name__ == "PyCapsule" else (0, 0, 0, 0)
    if fields[0] and fields[1] == __dlpack_version__[0] and fields[3] == 3:
        return fields[0]
    raise _exchange_api_refusal(attr, *fields)


def _exchange_api_refusal(attr, addr, major, minor, present):
    """The DLPackExchangeAPIError saying why _exchange_api_address refused attr."""
    if type(attr).__name__ != "PyCapsule":
        why = '__dlpack_c_exchange_api__ must be a PyCapsule named "dlpack_exchange_api", got %s' % (
            type(attr).__name__)
    elif not addr:
        name = _capsule_name(attr)
        why = 'the __dlpack_c_exchange_api__ capsule is named %r, not "dlpack_exchange_api"' % (
            name.decode("latin-1") if name else None)
    elif major != __dlpack_version__[0]:
        why = "the table reports DLPack version %d.%d, this build knows major version %d" % (
            major, minor, __dlpack_version__[0])
    else:
        why = "the table's %s is NULL" % ("managed_tensor_from_py_object_no_sync"
                                            if not present & 1 else
                                            "managed_tensor_to_py_object_no_sync")
    return DLPackExchangeAPIError("Expect a dlpack_exchange_api field: " + why)


def _exchange_api_fields(capsule):
    """(address, DLPack major, minor, conversion functions present as bits 1 and 2) of an
    exchange table capsule in ABI mode; address 0 when the capsule has another name.  The
    compiled module reads them in C (ffipy_exchange_api_fields): cffi realising the table's
    type costs ~0.2 M instructions."""
    if _capsule_name(capsule) != b"dlpack_exchange_api":
        return (0, 0, 0, 0)
    from . import _capi  # noqa: PLC0415

    addr = _capi.capsule_pointer(capsule, b"dlpack_exchange_api")
    api = ffi.cast("DLPackExchangeAPI*", addr)
    present = ((api.managed_tensor_from_py_object_no_sync != ffi.NULL) |
               (api.managed_tensor_to_py_object_no_sync != ffi.NULL) << 1)
    return (addr, api.header.version.major, api.header.version.minor, present)


# ---------------------------------------------------------------------------------------------
# Tensor


class Tensor(CObject):
    """A managed n-dimensional array (ffi.Tensor) sharing memory with its producer."""

    __slots__ = ("_view",)

    def __new__(cls, *args, **kwargs):
        self = CObject.__new__(cls)
        self._view = 0
        return self

    def _dl(self):
        if self._h:
            return ffi.cast("DLTensor*", self._h + _OBJ_HEADER)
        if self._view:
            return ffi.cast("DLTensor*", self._view)
        raise ValueError("Tensor has no handle")

    @property
    def shape(self):
        dl = self._dl()
        return tuple(dl.shape[i] for i in range(dl.ndim))

    @property
    def ndim(self):
        return self._dl().ndim

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def size(self, idx):
        ndim = self.ndim
        i = idx + ndim if idx < 0 else idx
        if i < 0 or i >= ndim:
            raise IndexError(
                "Dimension %d out of range for tensor with %d dimensions" % (idx, ndim)
            )
        return self._dl().shape[i]

    @property
    def strides(self):
        dl = self._dl()
        if dl.strides == ffi.NULL:
            out, acc = [], 1
            for s in reversed(self.shape):
                out.append(acc)
                acc *= s
            return tuple(reversed(out))
        return tuple(dl.strides[i] for i in range(dl.ndim))

    def is_contiguous(self):
        dl = self._dl()
        if dl.strides == ffi.NULL:
            return True
        shape = self.shape
        if any(s == 0 for s in shape):
            return True
        expect = 1
        for i in reversed(range(dl.ndim)):
            if shape[i] != 1 and dl.strides[i] != expect:
                return False
            expect *= shape[i]
        return True

    def data_ptr(self):
        dl = self._dl()
        return _addr(dl.data) + dl.byte_offset

    @property
    def dtype(self):
        from ._dtype import dtype  # noqa: PLC0415

        d = self._dl().dtype
        return dtype._from_packed(_dtype_pack(d.code, d.bits, d.lanes))

    @property
    def device(self):
        d = self._dl().device
        return _CLASS_DEVICE.__new__(_CLASS_DEVICE)._init(int(d.device_type), d.device_id)

    def __dlpack_device__(self):
        d = self._dl().device
        return (int(d.device_type), int(d.device_id))

    def _to_dlpack(self):
        return self._capsule(0)

    def _to_dlpack_versioned(self):
        return self._capsule(1)

    def _capsule(self, versioned):
        if not self._h:
            raise BufferError("cannot export a tensor view without a handle")
        box = [None]
        rc = lib.ffipy_tensor_to_capsule(_ptr(self._h), versioned, id(box))
        if rc == _FFI_ERROR:
            _raise_ffi_error()
        if rc == _PY_ERROR:
            raise _take_exception()
        return box[0]

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if max_version is None or int(max_version[0]) < 1:
            return self._capsule(0)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("dl_device of different type not supported")
        if copy:
            raise BufferError("copy not yet supported")
        return self._capsule(1)

    def __repr__(self):
        if not self._h:
            return "Tensor(chandle=None)"
        return CObject.__repr__(self)


_CLASS_TENSOR = Tensor
_CLASS_TENSOR_BOX = [Tensor]  # read by the C fast path


def _set_class_tensor(cls):
    global _CLASS_TENSOR
    _CLASS_TENSOR = cls
    _CLASS_TENSOR_BOX[0] = cls


def _capsule_name(obj):
    if type(obj).__name__ != "PyCapsule":
        return None
    from . import _capi  # noqa: PLC0415

    return _capi.capsule_name(obj)


def from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False):
    """Import any DLPack producer (or capsule) as a Tensor without copying.

    Order: the type's __dlpack_c_exchange_api__ (a BufferError there falls through), then
    __dlpack__() with no arguments, then the object itself as a capsule.
    """
    box = [ext_tensor]
    rc = lib.ffipy_from_dlpack(id(box), require_alignment, 1 if require_contiguous else 0)
    if rc == _OK:
        return box[0]
    if rc == _FFI_ERROR:
        _raise_ffi_error()
    raise _take_exception()


class DLTensorTestWrapper:
    """Test helper: a type whose class carries a static DLPack exchange API over a Tensor."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, **kwargs):
        return self._tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()

    def __tvm_ffi_env_stream__(self):
        d = self._tensor.__dlpack_device__()
        return _addr(lib.TVMFFIEnvGetStream(d[0], d[1]))


__dlpack_version__ = (lib.DLPACK_MAJOR_VERSION, lib.DLPACK_MINOR_VERSION)


# ---------------------------------------------------------------------------------------------
# conversion hooks: _conversion.py, which builds on the classes above

from ._conversion import (  # noqa: E402, F401 - re-exported
    _big_int_arg,
    CAny,
    _CARRIES_API,
    _classify,
    _CLASSIFY_C,
    _CLASSIFY_ROWS,
    convert_func,
    _convert_slow,
    _IDENTITY,
    _K_BIG_INT,
    _K_BYTES_OBJ,
    _K_DEVICE,
    _K_DLTENSOR_PTR,
    _K_DTYPE,
    _K_OBJECT,
    _K_OPAQUE_PTR,
    _K_POD,
    _K_SHAPE,
    _K_SMALL_BYTES,
    _K_SMALL_STR,
    _K_STRING,
    _K_TENSOR,
    _KIND,
    _KINDS,
    _N_STATIC,
    _OBJECT_BEGIN,
    _int_from_big_int,
    _kind,
    _NO_TABLE,
    _pack_dtype_tuple,
    _ret_obj,
    _ret_object,
    _classify_row,
    RULE_CONTAINER,
    RULE_DLPACK,
    RULE_EXCHANGE,
    RULE_OBJECT,
    RULE_POD,
    RULE_SEQUENCE,
    RULE_SLOW,
    _SKIP_EXCHANGE,
    _tieable,
    _to_framework,
    _TORCH_FALLBACK,
    _torch_fallback,
)


# ---------------------------------------------------------------------------------------------
# initialisation


def _slot_offset(cls, name):
    """Byte offset of a __slots__ member in instances of cls (its member descriptor), or -1."""
    return lib.ffipy_slot_offset(id(cls), name.encode())


_EXACT_RULES = _rules.exact_types()  # the C fast path keeps references to the types


def _init():
    _register_class(kTVMFFIObject, Object)
    _register_class(kTVMFFIError, Error)
    _register_class(kTVMFFIFunction, Function)
    _register_class(kTVMFFITensor, Tensor)
    _register_class(kTVMFFIOpaquePyObject, OpaquePyObject)
    if not API_MODE:
        from . import _abi  # noqa: PLC0415

        _abi.install(sys.modules[__name__])
        return
    # cffi builds a lib function on its first access (~5k instructions): fetched here, not
    # by the first torch call of a process
    global _api_fields_c
    _api_fields_c = lib.ffipy_exchange_api_fields
    fa = _global_handle("ffi.Array")
    fm = _global_handle("ffi.Map")
    cfg = ffi.new("ffipy_config*")  # every object named here is a global of this module
    cfg.cobject_cls, cfg.function_cls, cfg.tensor_cls = id(CObject), id(Function), id(Tensor)
    cfg.tensor_cls_box = id(_CLASS_TENSOR_BOX)
    cfg.type_cls = id(_TYPE_CLS)
    cfg.test_wrapper = id(DLTensorTestWrapper)
    cfg.classify = id(_classify)
    cfg.classify_rows = id(_CLASSIFY_C)
    cfg.exchange_address = id(_exchange_api_address)
    cfg.exact_rules = id(_EXACT_RULES)
    cfg.rules_fingerprint = _rules.fingerprint()
    cfg.convert_slow = id(_convert_slow)
    cfg.ret_obj = id(_ret_obj)
    cfg.exc_to_error = id(_exc_to_error)
    cfg.wrapper_kind = id(_wrapper_kind)
    cfg.call_error = id(_call_error)
    cfg.fn_array, cfg.fn_map = _ptr(fa), _ptr(fm)
    cfg.off_h = _slot_offset(CObject, "_h")
    cfg.off_release_gil = _slot_offset(Function, "release_gil")
    cfg.off_view = _slot_offset(Tensor, "_view")
    cfg.release_gil_default = _RELEASE_GIL_DEFAULT
    rc = lib.ffipy_init(cfg)
    for h in (fa, fm):
        if h:
            _decref(h)
    if rc == -2:
        mod = getattr(sys.modules.get("tvm_ffi._ffi_cffi"), "__file__", "tvm_ffi._ffi_cffi")
        raise RuntimeError("tvm_ffi: the compiled module %s was built from another conversion "
                           "table (_rules.py changed since): rebuild it" % mod)
    if rc != 0:
        raise RuntimeError("tvm_ffi: failed to initialise the cffi fast path")
    # (ffipy_init also gave DLTensorTestWrapper its __dlpack_c_exchange_api__ capsule)
    if os.environ.get("TVM_FFI_PURE_CFFI_CALL", "0") in ("", "0"):
        box = [Function]
        if lib.ffipy_make_call_descriptor(id(box)) == _OK:
            Function.__call__ = box[0]
            lib.ffipy_install_call_slot(id(Function))  # calls skip the generic dispatch
        else:
            _take_exception()
        box = [CObject]
        if lib.ffipy_make_builtins(id(box)) == _OK:
            global from_dlpack
            from_dlpack = box[0]
            CObject.__del__ = box[1]
            if box[2] is not None:  # the Python ones stay for the other call paths
                Tensor.__dlpack__ = box[2]
                Tensor.__dlpack_device__ = box[3]
        else:
            _take_exception()
    import atexit  # noqa: PLC0415

    atexit.register(lib.ffipy_set_finalizing)


_init()
# bound after _init: ABI mode replaces these in _conversion (_abi.install)
from ._conversion import (  # noqa: E402, F401 - re-exported
    _from_any_ptr_view,
    _from_any_view,
    _from_owned_any,
    _make_callback,
    _make_opaque,
    _to_owned_any,
)

MISSING = None
KWARGS = None


def _init_sentinels():
    global MISSING, KWARGS
    f = _global("ffi.GetInvalidObject", allow_missing=True)
    MISSING = f() if f is not None else None
    f = _global("ffi.GetKwargsObject", allow_missing=True)
    KWARGS = f() if f is not None else None


# reflection records (docs/python.md §4.7) come from _typeinfo, which builds on this module and
# imports dataclasses and json (~7 ms): its names are resolved on first access, keeping
# `import tvm_ffi` fast
_TYPEINFO_NAMES = frozenset((
    "TypeField", "TypeInfo", "TypeMethod", "TypeSchema",
    "_lookup_or_register_type_info_from_type_key", "_lookup_type_attr", "_type_cls_to_type_info",
    "_register_type_attr",
))


def _print_debug_info():
    """Print the binding's dispatch state (benchmark scripts call it after a run)."""
    print("tvm_ffi binding: %s mode, %d Python classes bound to FFI type indices"
          % ("API" if API_MODE else "ABI", len(_CLS_TYPE)))


def __getattr__(name):
    if name in _TYPEINFO_NAMES:
        from . import _typeinfo  # noqa: PLC0415

        value = getattr(_typeinfo, name)
        globals()[name] = value
        return value
    if name == "_to_py_class_value":  # reads a TypeSchema.convert() result
        from ._type_convert import to_py_class_value  # noqa: PLC0415

        globals()[name] = to_py_class_value
        return to_py_class_value
    if name == "_register_py_class":  # a step of py_class (dataclasses/_stepwise.py)
        from .dataclasses._stepwise import register_py_class  # noqa: PLC0415

        globals()[name] = register_py_class
        return register_py_class
    if name == "ObjectConvertible":  # defined with convert(), which imports core
        from ._convert import ObjectConvertible  # noqa: PLC0415

        globals()[name] = ObjectConvertible
        return ObjectConvertible
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
