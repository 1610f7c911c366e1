"""Functions: the ``Function`` wrapper, global functions, and
the runtime's type keys (name <-> type index, the class bound to an index)."""

import os
import sys
import types
from importlib import import_module

from ._base import (
    _FunctionBase,
    _OK,
    CObject,
    _TYPE_CLS,
    _addr,
    _bytearray,
    _new_wrapper,
    _ptr,
    _set_h,
)
from ._loader import API_MODE, ffi, lib, load_testing
from .error import _check, _move_raised_error, _raise_ffi_error, _synthetic_frame


# ---------------------------------------------------------------------------------------------
# Function: the compiled call is its C base's (_FunctionBase: tp_call and vectorcall, the
# compiled module's basetypes.c); without the compiled module ABI mode installs its own
# (_abi).  Neither is a method written here.


class Function(*((CObject, _FunctionBase) if API_MODE else (CObject,))):
    """A callable FFI function object (kTVMFFIFunction)."""

    # (API mode: release_gil is the C base's)
    __slots__ = ("__dict__",) if API_MODE else ("release_gil", "__dict__")

    def __new__(cls, *args, **kwargs):
        self = CObject.__new__(cls)
        self.release_gil = _RELEASE_GIL_DEFAULT
        return self

    # a failed call made in C names this line in its traceback (_call_error)
    _call_line = sys._getframe().f_lineno  # Function.__call__: converts, calls, converts back

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


if API_MODE:  # calls by vectorcall where the class statement did not give it (before 3.12)
    lib.ffipy_function_class_ready(id(Function))

_RELEASE_GIL_DEFAULT = bool(int(os.environ.get("TVM_FFI_RELEASE_GIL_BY_DEFAULT", "1")))


def _call_error(pending):
    """Exception to raise after a failed call (the FFI error, or the pending Python one)."""
    err = _move_raised_error()
    if pending is not None and (err is None or err.kind == "EnvErrorAlreadySet"):
        return pending
    if err is None:
        return RuntimeError("tvm_ffi: call failed without an error object")
    exc = err.py_error()
    # the C-level __call__ leaves no Python frame: name the package's call site explicitly
    line = Function.__dict__.get("_call_line", 1)
    frame = _synthetic_frame(__file__, line, "Function.__call__")
    return exc.with_traceback(types.TracebackType(exc.__traceback__, frame, 0, line))


# ---------------------------------------------------------------------------------------------
# global functions

_GLOBAL_CACHE = {}


def _global_handle(name):
    """New reference to a global function handle (int), 0 when absent."""
    ba, buf = _bytearray(name.encode())
    out = ffi.new("void**")
    _check(lib.TVMFFIFunctionGetGlobal(ba, out))
    if out[0] == ffi.NULL and _testing_first(name):
        _check(lib.TVMFFIFunctionGetGlobal(ba, out))
    return _addr(out[0])


def _testing_first(name=None):
    """Opens the testing library (_loader.load_testing) when `name` (a global function or type
    key; None: every name, for listings) may be one of its; True when it was opened just now."""
    return (name is None or name.startswith("testing.")) and load_testing()


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
        _set_h(f, h)
        _GLOBAL_CACHE[name] = f
    return f


# ---------------------------------------------------------------------------------------------
# type keys: the runtime's names of type indices, and the class results of an index get


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
        if not _testing_first(key):
            return None
        return _type_key_to_index(key)
    return out[0]


_object_type_key_to_index = _type_key_to_index


# built-in object types whose Python class lives in a module `import tvm_ffi` does not
# import (python/tvm_ffi/__init__.py, _LAZY): type key -> that module, imported on first need
_LAZY_CLASS_MODULES = {"ffi.Module": "module", "ffi.Array": "container", "ffi.List": "container",
                       "ffi.Map": "container", "ffi.Dict": "container"}


_SENTINELS = {}


def _sentinel(name):
    """The runtime's sentinel object global `name` returns (ffi.GetInvalidObject: MISSING,
    ffi.GetKwargsObject: KWARGS), fetched once; None where the runtime has no such global."""
    try:
        return _SENTINELS[name]
    except KeyError:
        f = _global(name, allow_missing=True)
        value = _SENTINELS[name] = f() if f is not None else None
        return value


def _class_for_index(tidx):
    cls = _TYPE_CLS.get(tidx)
    if cls is None:
        # (get, not pop: a thread meeting the type while another imports the module waits on
        # the import lock and then finds the class, rather than making a fallback class)
        modname = _LAZY_CLASS_MODULES.get(_type_key(tidx))
        if modname is not None:
            import_module("." + modname, __package__)  # registers the class
            cls = _TYPE_CLS.get(tidx)
    if cls is None:
        # registry imports _typeinfo (dataclasses, json: ~7 ms), which `import tvm_ffi` does not
        from .registry import _make_fallback_class  # noqa: PLC0415

        cls = _make_fallback_class(tidx)
    return cls

