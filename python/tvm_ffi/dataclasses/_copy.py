"""``__copy__``/``__deepcopy__``/``__replace__`` for ``c_class`` types.

Without them ``copy.copy`` falls back to ``__reduce__`` (the JSON graph), which needs a
creator and fails for types that have none. The C++ copy constructor is exposed as the
``__ffi_shallow_copy__`` type attribute: a type without it cannot be copied.
"""

from .. import _typeinfo
from .._base import _type_index_of
from .._function import _global

_SHALLOW = "__ffi_shallow_copy__"


def _not_copyable(cls):
    return TypeError("Type `%s` does not support copy. The underlying C++ type is not "
                     "copy-constructible." % cls.__name__)


def _shallow_copy(obj):
    cls = type(obj)
    h = obj._h
    if not h:
        raise ValueError("cannot copy an empty %s (it holds no object)" % cls.__name__)
    # the object's own type only: an ancestor's hook would build an ancestor-sized object.
    # The type is the object's, not the wrapper class's (which __class__ can change).
    fn = _typeinfo._lookup_type_attr(_type_index_of(h), _SHALLOW)
    if fn is None:
        raise _not_copyable(cls)
    return fn(obj)


def __copy__(self):
    """A new object whose fields are the very values of this one's (C++ copy constructor)."""
    return _shallow_copy(self)


def __deepcopy__(self, memo):
    """A copy of the whole reachable graph (global ``ffi.DeepCopy``; sharing is kept)."""
    return _global("ffi.DeepCopy")(self)


def __replace__(self, /, **changes):
    """``copy.replace`` protocol (Python 3.13): the same as ``dataclasses.replace``."""
    from ._api import replace  # noqa: PLC0415 - _api imports c_class, which imports this module
    return replace(self, **changes)


def install_copy(cls):
    """Adds the copy dunders the class body does not define itself."""
    own = cls.__dict__
    for fn in (__copy__, __deepcopy__, __replace__):
        if fn.__name__ not in own:
            setattr(cls, fn.__name__, fn)
