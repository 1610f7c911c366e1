"""``tvm_ffi.method``: mark a ``py_class`` method for registration in the type table."""

import inspect
import json

from .._type_schema import TypeSchema

METHOD_ATTR = "__tvm_ffi_method__"
#: upstream's marker (``fn.__ffi_method__ = True``), honoured too
UPSTREAM_MARKER = "__ffi_method__"


def method_spec(func):
    """The registration record of a marked function (name, doc), or None when unmarked."""
    spec = getattr(func, METHOD_ATTR, None)
    if spec is None and getattr(func, UPSTREAM_MARKER, False) is True:
        spec = {"name": func.__name__, "doc": func.__doc__}
    return spec


def _annotation_schema(func, annotation, cls):
    """The TypeSchema of one annotation (a string one is evaluated in the function's module,
    with the class itself in scope); ``Any`` for a missing or unsupported one."""
    if annotation is inspect.Parameter.empty:
        return TypeSchema("Any")
    try:
        if isinstance(annotation, str):
            annotation = eval(annotation, dict(func.__globals__), {cls.__name__: cls})  # noqa: S307
        return TypeSchema.from_annotation(annotation)
    except Exception:  # noqa: BLE001 - an annotation FFI cannot express documents as Any
        return TypeSchema("Any")


def method_metadata(func, cls, type_key, is_static):
    """The registration metadata of a marked method: its ``type_schema`` from the Python
    annotations, the object itself first for an instance method (as C++ reflection lists it),
    so stubs and other languages see the signature."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return "{}"
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return "{}"  # variadic: the packed form says as much
    schemas = [] if is_static else [TypeSchema(type_key)]
    schemas += [_annotation_schema(func, p.annotation, cls) for p in params[0 if is_static else 1:]]
    ret = _annotation_schema(func, sig.return_annotation, cls)
    schema = TypeSchema("Callable", named_args={"return": (ret,), "params": tuple(schemas)})
    return json.dumps({"type_schema": json.dumps(schema.to_json())})


def method(func=None, *, name=None, doc=None):
    """Decorator marking a method of a ``py_class`` so other languages can call it.

    ``@method``, ``@method()`` and ``@method(name="other_name", doc="...")`` are accepted; a
    ``staticmethod`` is registered as a static method. The function itself is returned
    unchanged apart from the marker, so it still works as a plain Python method.
    """

    def mark(f):
        target = f.__func__ if isinstance(f, (staticmethod, classmethod)) else f
        if not callable(target):
            raise TypeError("method() expected a callable, got %r" % (f,))
        if isinstance(f, classmethod):
            raise TypeError("method(): @classmethod is not supported (FFI calls pass the "
                            "instance first); use @staticmethod")
        setattr(target, METHOD_ATTR, {"name": name or target.__name__,
                                      "doc": doc if doc is not None else target.__doc__})
        return f

    if func is None:
        return mark
    if isinstance(func, str):
        raise TypeError("method() takes the function; use method(name=%r) to rename" % func)
    return mark(func)
