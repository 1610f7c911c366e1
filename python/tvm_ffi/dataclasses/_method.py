"""``tvm_ffi.method``: mark a ``py_class`` method for registration in the type table."""

METHOD_ATTR = "__tvm_ffi_method__"
#: upstream's marker (``fn.__ffi_method__ = True``), honoured too
UPSTREAM_MARKER = "__ffi_method__"


def method_spec(func):
    """The registration record of a marked function (name, doc), or None when unmarked."""
    spec = getattr(func, METHOD_ATTR, None)
    if spec is None and getattr(func, UPSTREAM_MARKER, False) is True:
        spec = {"name": func.__name__, "doc": func.__doc__}
    return spec


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
