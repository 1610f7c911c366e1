"""Global function registry and object type registration."""

import sys

from . import _sentinels, _typeinfo
from ._base import (
    _CLS_TYPE,
    _TYPE_CLS,
    CObject,
    Object,
    _bytearray,
    _new_wrapper,
    _ptr,
    _register_class,
)
from ._conversion import convert_func
from ._function import (
    _GLOBAL_CACHE,
    Function,
    _class_for_index,
    _global,
    _global_handle,
    _testing_first,
    _type_key_to_index,
)
from ._loader import lib
from ._tensor import Tensor, _set_class_tensor
from ._type_index import kTVMFFITensor
from .error import _check


def get_global_func(name, allow_missing=False):
    """A new Function wrapper for a registered global function."""
    if not isinstance(name, str):
        raise TypeError("global function name must be a str, got %s" % type(name).__name__)
    h = _global_handle(name)
    if not h:
        if allow_missing:
            return None
        raise ValueError("Cannot find global function %s" % name)
    return _new_wrapper(Function, h)


def register_global_func(func_name, f=None, override=False):
    """Register f (or decorate) under func_name; returns the registered Function."""
    if not isinstance(func_name, str):
        f = func_name
        func_name = getattr(f, "__name__", None)
        if not callable(f) or not isinstance(func_name, str):
            raise TypeError(
                "register_global_func expects a name or a named callable, got %r" % (f,))

    def register(func):
        _testing_first(func_name)  # its globals first, as if loaded at import
        fobj = func if isinstance(func, Function) else convert_func(func)
        ba, buf = _bytearray(func_name.encode())
        _check(lib.TVMFFIFunctionSetGlobal(ba, _ptr(fobj._h), 1 if override else 0))
        _GLOBAL_CACHE.pop(func_name, None)
        return fobj

    if f is None:
        return register
    return register(f)


def list_global_func_names():
    _testing_first()
    functor = _global("ffi.FunctionListGlobalNamesFunctor")()
    return [functor(i) for i in range(functor(-1))]


def remove_global_func(name):
    _testing_first(name)
    _GLOBAL_CACHE.pop(name, None)
    _global("ffi.FunctionRemoveGlobal")(name)


def get_global_func_metadata(name):
    _testing_first(name)
    text = _global("ffi.GetGlobalFuncMetadata")(name)
    return __import__("json").loads(text) if text else {}


def get_registered_type_keys():
    _testing_first()
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


def _attach_field(cls, f):
    """A field's property, unless its name is one the class object cannot rebind: TVM built
    against 0.1.2-0.1.9 (tilelang 0.1.8's) reflects DictAttrs' ``__dict__``, which those releases
    left to Python (they skipped every name the class already had) and 0.1.12 fails to set."""
    if f.name in _TYPE_OWNED:
        return
    setattr(cls, f.name, f.as_property(cls))


# attributes of every class that are data descriptors of ``type`` itself: read-only there
_TYPE_OWNED = frozenset(n for n, v in vars(type).items() if hasattr(v, "__set__"))


def _attach_reflection(cls, info):
    """Attach reflected fields (properties) and methods of info not defined by cls.

    Own fields are attached unless the class body defines the name; inherited fields only when
    no Python base already provides them (an unregistered C++ parent has no class).
    """
    for f in info.fields:
        if f.name not in cls.__dict__:
            _attach_field(cls, f)
    parent = info.parent_type_info
    while parent is not None:
        for f in parent.fields:
            if not hasattr(cls, f.name):
                _attach_field(cls, f)
        parent = parent.parent_type_info
    for m in info.methods:
        if m.name == "__ffi_init__" or hasattr(cls, m.name):
            continue
        setattr(cls, m.name, m.as_callable(cls))


def _add_class_attrs(type_cls, type_info, type_attr_names=()):
    """Bind a class to a Python-defined type and attach its fields and methods (a step of
    ``py_class``, see dataclasses/_stepwise.py)."""
    from .dataclasses._stepwise import add_class_attrs  # noqa: PLC0415 - it imports us

    return add_class_attrs(type_cls, type_info, type_attr_names)


def _attach_fields(cls, tidx):
    """Attach the reflected fields of type tidx that cls does not define, as properties."""
    for f in _typeinfo._type_info_of_index(tidx).fields:
        if f.name not in cls.__dict__:
            setattr(cls, f.name, f.as_property(cls))


def _field_property(tidx, i, name, doc):
    """Property of field #i of type tidx (older helper; prefer TypeField.as_property)."""
    f = _typeinfo._type_info_of_index(tidx).fields[i]
    prop = f.as_property(type(name, (), {}))
    return property(prop.fget, prop.fset, None, doc)


def _find_constructor(info):
    """The __ffi_init__ Function of a type (method or type attribute), or None."""
    for m in info.methods:
        if m.name == "__ffi_init__":
            return m.func
    return _typeinfo._lookup_type_attr(info.type_index, "__ffi_init__")


def _attach_init(cls, info, init):
    tidx = info.type_index
    ctor = _find_constructor(info)
    if ctor is not None:

        def __ffi_init__(self, /, *args, **kwargs):  # a field may be named self
            if _CLS_TYPE.get(type(self), tidx) != tidx:
                # a parent's constructor would build an object of the wrong type
                raise TypeError(
                    "%s.__ffi_init__ on a %s is not supported: it builds `%s` objects"
                    % (cls.__name__, type(self).__name__, info.type_key)
                )
            if kwargs:
                flat = [_sentinels.KWARGS]
                missing = _sentinels.MISSING
                for k, v in kwargs.items():
                    if missing is not None and isinstance(v, CObject) and v.same_as(missing):
                        continue
                    flat += (k, v)
                args = args + tuple(flat)
            self.__init_handle_by_constructor__(ctor, *args)

        __ffi_init__.__qualname__ = "%s.__ffi_init__" % cls.__qualname__
        __ffi_init__.__doc__ = "Construct a `%s` through its registered __ffi_init__." % info.type_key
        cls.__ffi_init__ = __ffi_init__
    if init and "__init__" not in cls.__dict__:
        if ctor is not None:
            cls.__init__ = cls.__ffi_init__
        else:
            name = cls.__name__

            def __init__(self, *args, **kwargs):
                raise TypeError(
                    "`%s` cannot be constructed directly. Define a custom __init__ or use a factory method."
                    % name
                )

            cls.__init__ = __init__


def _bind_tensor_class(cls):
    """Registering a class for ffi.Tensor makes it the class of every tensor the binding makes
    (results, callback arguments, from_dlpack), as _set_class_tensor does."""
    if not issubclass(cls, Tensor):
        raise TypeError("register_object(\"ffi.Tensor\") decorates a subclass of tvm_ffi.Tensor, "
                        "got %s" % cls.__qualname__)
    _set_class_tensor(cls)


def _warn_missing_field_annotations(cls, type_info, stacklevel=2):
    """Warn (UserWarning) when ``cls`` does not annotate every field ``type_info`` itself
    reflects (inherited fields are the parent class's business); returns the missing names."""
    import warnings  # noqa: PLC0415 - rarely needed

    annotated = cls.__dict__.get("__annotations__", {})
    missing = [f.name for f in type_info.fields if f.name not in annotated]
    if missing:
        warnings.warn("%s does not annotate the reflected field(s) %s of `%s`"
                      % (cls.__name__, ", ".join(missing), type_info.type_key),
                      UserWarning, stacklevel=stacklevel + 1)
    return missing


def register_object(type_key=None, *, init=True):
    """Bind a Python class to a type registered in the C type table (see docs/python.md §4.6)."""

    def register(cls, key):
        if not isinstance(cls, type) or not issubclass(cls, CObject):
            raise TypeError(
                "register_object decorates a subclass of tvm_ffi.Object, got %r" % (cls,)
            )
        tidx = _type_key_to_index(key)
        if tidx is None:
            if _SKIP_UNKNOWN_OBJECTS:
                return cls
            raise ValueError("Cannot find object type index for %s" % key)
        if tidx == kTVMFFITensor:
            _bind_tensor_class(cls)
        _register_class(tidx, cls)
        _forget_fallback_descendants(tidx)
        info = _typeinfo._register_type_info(tidx, cls)
        _attach_reflection(cls, info)
        _attach_init(cls, info, init)
        return cls

    if isinstance(type_key, type):
        return register(type_key, type_key.__name__)
    if type_key is None:
        return lambda cls: register(cls, cls.__name__)
    if isinstance(type_key, str):
        return lambda cls: register(cls, type_key)
    raise TypeError("type_key must be a string, type, or None")


def _forget_fallback_descendants(tidx):
    """Auto-generated classes of types derived from tidx were built on its old class: drop
    them so the next result of those types gets one deriving from the newly registered class."""
    stale = [t for t, c in _TYPE_CLS.items()
             if c.__dict__.get("__tvm_ffi_fallback__") and t != tidx
             and tidx in _typeinfo._type_info_of_index(t).type_ancestors]
    for t in stale:
        del _TYPE_CLS[t]


def _make_fallback_class(tidx):
    """Auto-generated class for an object type with no Python class (docs/python.md §4.6)."""
    info = _typeinfo._type_info_of_index(tidx)
    if info is None:  # e.g. an object a faulty kernel returned
        raise RuntimeError("Cannot find type info for type_index=%d" % tidx)
    key = info.type_key
    base = Object
    if info.parent_type_info is not None:  # the parent's class first (a fallback itself if needed)
        base = _class_for_index(info.parent_type_info.type_index)
    module, _, name = key.rpartition(".")
    doc = "Auto-generated fallback class for `%s`." % key
    if info.doc:
        doc += "\n\n" + info.doc
    ns = {"__slots__": (), "__doc__": doc, "__module__": module or "tvm_ffi",
          "__tvm_ffi_fallback__": True}
    cls = type(name, (base,), ns)
    cls.__qualname__ = key
    _register_class(tidx, cls)
    _typeinfo._register_type_info(tidx, cls)
    _attach_reflection(cls, info)
    return cls
