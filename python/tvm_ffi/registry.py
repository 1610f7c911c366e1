"""Global function registry and object type registration."""

import sys

from . import core
from .core import Function, _global


def get_global_func(name, allow_missing=False):
    """A new Function wrapper for a registered global function."""
    h = core._global_handle(name)
    if not h:
        if allow_missing:
            return None
        raise ValueError("Cannot find global function %s" % name)
    return core._new_wrapper(Function, h)


def register_global_func(func_name, f=None, override=False):
    """Register f (or decorate) under func_name; returns the registered Function."""
    if not isinstance(func_name, str):
        f = func_name
        func_name = f.__name__

    def register(func):
        fobj = func if isinstance(func, Function) else core.convert_func(func)
        ba, buf = core._bytearray(func_name.encode())
        core._check(core.lib.TVMFFIFunctionSetGlobal(ba, core._ptr(fobj._h), 1 if override else 0))
        core._GLOBAL_CACHE.pop(func_name, None)
        return fobj

    if f is None:
        return register
    return register(f)


def list_global_func_names():
    functor = _global("ffi.FunctionListGlobalNamesFunctor")()
    return [functor(i) for i in range(functor(-1))]


def remove_global_func(name):
    core._GLOBAL_CACHE.pop(name, None)
    _global("ffi.FunctionRemoveGlobal")(name)


def get_global_func_metadata(name):
    text = _global("ffi.GetGlobalFuncMetadata")(name)
    return __import__("json").loads(text) if text else {}


def get_registered_type_keys():
    return list(_global("ffi.GetRegisteredTypeKeys")())


def init_ffi_api(namespace, target_module_name=None):
    """Copy the global functions of one namespace onto a Python module."""
    target_module_name = target_module_name or namespace
    module = sys.modules[target_module_name]
    prefix = namespace[4:] if namespace.startswith("tvm.") else namespace
    for name in list_global_func_names():
        if not name.startswith(prefix):
            continue
        fname = name[len(prefix) + 1 :]
        if "." in fname or not fname:
            continue
        f = get_global_func(name)
        f.__name__ = fname
        setattr(module, fname, f)


_SKIP_UNKNOWN_OBJECTS = False


def _type_info_fields(tidx):
    info = core.lib.TVMFFIGetTypeInfo(tidx)
    return info


def _attach_fields(cls, tidx):
    """Attach reflected fields of type tidx not defined by cls, as properties."""
    info = core.lib.TVMFFIGetTypeInfo(tidx)
    for i in range(info.num_fields):
        fi = info.fields[i]
        name = core.ffi.unpack(fi.name.data, fi.name.size).decode()
        if name in cls.__dict__:
            continue
        doc = core.ffi.unpack(fi.doc.data, fi.doc.size).decode() if fi.doc.size else None
        setattr(cls, name, _field_property(tidx, i, name, doc))


def _attach_reflection(cls, tidx):
    """Attach reflected fields (properties) and methods of type tidx not defined by cls."""
    _attach_fields(cls, tidx)
    info = core.lib.TVMFFIGetTypeInfo(tidx)
    for i in range(info.num_methods):
        mi = info.methods[i]
        name = core.ffi.unpack(mi.name.data, mi.name.size).decode()
        if name in cls.__dict__ or name == "__ffi_init__":
            continue
        func = core._from_any_view(mi.method.type_index, mi.method.v_uint64)
        doc = core.ffi.unpack(mi.doc.data, mi.doc.size).decode() if mi.doc.size else None
        if mi.flags & 4:  # static method
            meth = staticmethod(func)
        else:
            meth = _method(func, name, doc)
        setattr(cls, name, meth)


def _method(func, name, doc):
    def method(self, *args):
        return func(self, *args)

    method.__name__ = name
    method.__doc__ = doc
    return method


def _field_property(tidx, i, name, doc):
    def fget(self):
        fi = core.lib.TVMFFIGetTypeInfo(tidx).fields[i]
        out = core.ffi.new("TVMFFIAny*")
        core._check(fi.getter(core.ffi.cast("char*", self._h) + fi.offset, out))
        return core._from_owned_any(out)

    writable = bool(core.lib.TVMFFIGetTypeInfo(tidx).fields[i].flags & 1)

    def fset(self, value):
        if not writable:
            raise AttributeError("field %s is read-only" % name)
        fi = core.lib.TVMFFIGetTypeInfo(tidx).fields[i]
        val = core.ffi.new("TVMFFIAny*")
        core._to_owned_any(value, val)
        try:
            if fi.flags & (1 << 11):  # setter is a function object
                setter = core._from_any_view(core._type_index_of(fi.setter), core._addr(fi.setter))
                setter(self, core._from_owned_any(val))
                val = None
            else:
                setter = core.ffi.cast("TVMFFIFieldSetter", fi.setter)
                core._check(setter(core.ffi.cast("char*", self._h) + fi.offset, val))
        finally:
            if val is not None and val.type_index >= 64:
                core._decref(core._addr(val.v_obj))
                val.type_index = 0

    return property(fget, fset, None, doc)


def _find_constructor(tidx):
    """The __ffi_init__ Function of a type (method or type attribute), or None."""
    info = core.lib.TVMFFIGetTypeInfo(tidx)
    for i in range(info.num_methods):
        mi = info.methods[i]
        if core.ffi.unpack(mi.name.data, mi.name.size) == b"__ffi_init__":
            return core._from_any_view(mi.method.type_index, mi.method.v_uint64)
    ba, buf = core._bytearray(b"__ffi_init__")
    col = core.lib.TVMFFIGetTypeAttrColumn(ba)
    if col != core.ffi.NULL and col.begin_index <= tidx < col.begin_index + col.size:
        v = col.data[tidx - col.begin_index]
        if v.type_index != 0:
            return core._from_any_view(v.type_index, v.v_uint64)
    return None


def _attach_init(cls, tidx, init):
    ctor = _find_constructor(tidx)
    if ctor is not None:

        def __ffi_init__(self, *args, **kwargs):
            if type(self) is not cls and core._CLS_TYPE.get(type(self), tidx) != tidx:
                # a parent's constructor would build the wrong type
                raise TypeError("%s.__ffi_init__ cannot construct %s" % (cls.__name__, type(self).__name__))
            if kwargs:
                flat = [core.KWARGS]
                for k, v in kwargs.items():
                    if core.MISSING is not None and isinstance(v, core.CObject) and v.same_as(core.MISSING):
                        continue
                    flat += (k, v)
                args = args + tuple(flat)
            self.__init_handle_by_constructor__(ctor, *args)

        cls.__ffi_init__ = __ffi_init__
    if init and "__init__" not in cls.__dict__:
        if ctor is not None:
            cls.__init__ = cls.__ffi_init__
        else:
            name = cls.__name__

            def __init__(self, *args, **kwargs):
                raise TypeError(
                    "`%s` cannot be constructed directly. Define a custom __init__ or use a factory method." % name
                )

            cls.__init__ = __init__


def register_object(type_key=None, *, init=True):
    """Bind a Python class to a registered type key."""

    def register(cls, key):
        tidx = core._type_key_to_index(key)
        if tidx is None:
            if _SKIP_UNKNOWN_OBJECTS:
                return cls
            raise ValueError("Cannot find object type index for %s" % key)
        core._register_class(tidx, cls)
        _attach_reflection(cls, tidx)
        _attach_init(cls, tidx, init)
        return cls

    if isinstance(type_key, type):
        return register(type_key, type_key.__name__)
    if type_key is None:
        return lambda cls: register(cls, cls.__name__)
    if isinstance(type_key, str):
        return lambda cls: register(cls, type_key)
    raise TypeError("type_key must be a string, type, or None")


def _make_fallback_class(tidx):
    """Auto-generated class for an object type with no Python class."""
    info = core.lib.TVMFFIGetTypeInfo(tidx)
    key = core.ffi.unpack(info.type_key.data, info.type_key.size).decode()
    base = core.Object
    if info.type_depth > 0:  # parent first (a fallback class itself when unregistered)
        base = core._class_for_index(info.type_ancestors[info.type_depth - 1].type_index)
    module, _, name = key.rpartition(".")
    cls = type(name, (base,), {"__slots__": (), "__doc__": "Auto-generated fallback class for %s" % key})
    cls.__qualname__ = key
    cls.__module__ = module
    core._register_class(tidx, cls)
    _attach_reflection(cls, tidx)
    return cls
