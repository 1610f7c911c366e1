"""``fields``, ``asdict``, ``astuple``, ``replace``, ``is_dataclass`` for FFI dataclasses.

Same contracts as the stdlib functions of those names; FFI containers found in field values
are turned into plain Python ones (Array/List -> list, Map/Dict -> dict).
"""

import collections
import copy

from .._base import CObject
from ..container import Array, Dict, List, Map
from ._stepwise import PY_CLASS_ATTR
from ._copy import _shallow_copy
from .c_class import FIELDS_ATTR


def _fields_of(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return getattr(cls, FIELDS_ATTR, None)


def is_dataclass(obj):
    """True for an FFI dataclass type (``c_class``/``py_class``) or an instance of one."""
    return _fields_of(obj) is not None


def fields(class_or_instance):
    """The tuple of ``Field`` records, ancestors' fields first."""
    fs = _fields_of(class_or_instance)
    if fs is None:
        raise TypeError("fields() must be called with a c_class or py_class type or instance, "
                        "got %r" % (class_or_instance,))
    return fs


def _require_instance(obj, fn):
    if isinstance(obj, type) or not is_dataclass(obj):
        raise TypeError("%s() should be called on c_class / py_class instances, got %r"
                        % (fn, obj))


def asdict(obj, *, dict_factory=dict):
    """Recursively convert a dataclass instance to a dict of its fields."""
    _require_instance(obj, "asdict")
    return _inner(obj, dict_factory)


def astuple(obj, *, tuple_factory=tuple):
    """Recursively convert a dataclass instance to a tuple of its field values."""
    _require_instance(obj, "astuple")
    return _inner_tuple(obj, tuple_factory)


def _inner(v, dict_factory):
    return _convert(v, lambda o, rec: dict_factory([(f.name, rec(getattr(o, f.name)))
                                                    for f in _fields_of(o)]))


def _inner_tuple(v, tuple_factory):
    return _convert(v, lambda o, rec: tuple_factory([rec(getattr(o, f.name))
                                                     for f in _fields_of(o)]))


def _is_seq(v):
    return isinstance(v, (Array, List))


def _is_map(v):
    return isinstance(v, (Map, Dict))


def _convert(obj, make):
    """asdict/astuple's walk: make(instance, rec) for dataclass instances, _walk for the rest.
    An FFI object met again (a shared node) converts once, by its handle: the walk is linear
    in the distinct nodes (docs/python.md §13.2), and the result shares what the value did."""
    done = {}

    def rec(v):
        h = v._h if isinstance(v, CObject) else 0
        if h and h in done:
            return done[h]
        r = make(v, rec) if is_dataclass(v) and not isinstance(v, type) else _walk(v, rec)
        if h:
            done[h] = r  # (the root keeps every handle in it alive)
        return r

    return rec(obj)


def _walk(v, rec):
    if _is_seq(v):
        return [rec(x) for x in v]
    if _is_map(v):
        return {rec(k): rec(x) for k, x in v.items()}
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # namedtuple
        return type(v)(*[rec(x) for x in v])
    if isinstance(v, (list, tuple)):
        return type(v)(rec(x) for x in v)
    if isinstance(v, collections.defaultdict):  # keeps its default_factory
        return type(v)(v.default_factory, ((rec(k), rec(x)) for k, x in v.items()))
    if isinstance(v, dict):
        return type(v)((rec(k), rec(x)) for k, x in v.items())
    if isinstance(v, CObject):  # other FFI objects are shared, as the fields share them
        return v
    return copy.deepcopy(v)


def replace(obj, /, **changes):
    """A new instance of ``type(obj)`` with the init fields taken from ``obj`` but ``changes``.

    Fields with ``init=False`` cannot be changed (``ValueError``). A ``py_class`` instance is
    rebuilt through ``__init__`` (``init=False`` fields get their defaults); a ``c_class`` one is
    copied (``__copy__``: ``TypeError`` if the C++ type is not copyable) and then the changed
    fields are stored, read-only ones included, as upstream does.
    """
    _require_instance(obj, "replace")
    explicit = dict(changes)
    for f in _fields_of(obj):
        if not f.init:
            if f.name in changes:
                raise ValueError("field %s is declared with init=False, it cannot be specified "
                                 "with replace()" % f.name)
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    unknown = set(changes) - {f.name for f in _fields_of(obj)}
    if unknown:
        raise TypeError("replace() got unexpected field(s) %s for %s"
                        % (", ".join(sorted(unknown)), type(obj).__name__))
    if getattr(type(obj), PY_CLASS_ATTR, False):
        return type(obj)(**changes)
    # a C++ class: its __init__ may be positional only, so copy it (C++ copy constructor)
    # and store the changes through the raw setters, which read-only fields have too
    new = _shallow_copy(obj)
    for f in _fields_of(obj):
        if f.name in explicit:
            if f._c.setter is None:
                raise AttributeError("field %s of %s has no setter" % (f.name, type(obj).__name__))
            f._c.setter(new, explicit[f.name])
    return new

