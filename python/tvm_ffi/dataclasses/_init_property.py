"""``init_property``: a field of a ``py_class`` computed once, when an object is built.

``@init_property`` on a method of a ``py_class`` body declares a field named after it
(``init=False``, left out of structural comparison, typed by the method's return annotation,
``Any`` without one). The generated ``__init__`` calls the method right after the object is
constructed, before ``__post_init__``, and stores the result in the field: later reads are
plain field reads, from Python or C++. A subclass may redefine the method; the field stays
the parent's and the subclass's method computes it.
"""

import typing

from . import _fields as F

#: (name, function) pairs of a class and its bases, most derived definition of each name
ATTR = "__tvm_ffi_init_properties__"


class init_property:  # noqa: N801 - a decorator, named like property
    """Decorator: see the module documentation."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError("init_property expects a function, got %r" % (func,))
        self.func = func
        self.__doc__ = func.__doc__
        self.__name__ = getattr(func, "__name__", None)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        raise AttributeError("init_property `%s` of %s is only readable once the class is a "
                             "py_class" % (self.__name__, type(obj).__name__))


def collect(cls, inherited_names):
    """Turn the init_property members of ``cls``'s body into field declarations.

    A new name gets an annotation and ``field(init=False, structural_eq="ignore")`` in the
    body; one that names an inherited field is only a new way to compute it. Records the
    computing functions of cls and its bases in ``ATTR``.
    """
    own = [(n, v) for n, v in cls.__dict__.items() if isinstance(v, init_property)]
    if not own and not any(ATTR in b.__dict__ for b in cls.__mro__[1:]):
        return
    anns = cls.__dict__.get("__annotations__")
    if anns is None:
        anns = {}
        type.__setattr__(cls, "__annotations__", anns)
    for name, prop in own:
        if name in inherited_names:
            delattr(cls, name)  # the parent's field property stays visible
            continue
        anns[name] = getattr(prop.func, "__annotations__", {}).get("return", typing.Any)
        type.__setattr__(cls, name, F.field(init=False, structural_eq="ignore",
                                            doc=prop.__doc__))
    funcs = {}
    for base in reversed(cls.__mro__[1:]):
        funcs.update(base.__dict__.get(ATTR, ()))
    funcs.update((name, prop.func) for name, prop in own)
    type.__setattr__(cls, ATTR, tuple(funcs.items()))


def compute(obj, fields_by_name):
    """Store each init_property's value in a newly built ``obj``."""
    for name, func in getattr(type(obj), ATTR, ()):
        f = fields_by_name.get(name)
        if f is not None:
            f._c.setter(obj, func(obj))
