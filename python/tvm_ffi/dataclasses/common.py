"""Helpers shared by the dataclass utilities, under the names upstream's package gives them.

``_make_namedtuple(name, fields)`` builds a plain ``collections.namedtuple`` class from
``Field`` records whose construction (``__new__``, ``_make``, ``_replace``) converts each
value by its field's ``TypeSchema`` (the ``_ty_schema``, else the annotation), as storing it
in the field would; errors are ``TypeError("<name>.<field>: ...")`` chained to the
conversion error. ``_asdict_inner`` / ``_astuple_inner`` are the recursive steps of
``asdict`` / ``astuple``.
"""

import collections
import inspect

from .._type_convert import to_py_class_value
from .._type_schema import TypeSchema
from ._api import _inner as _asdict_inner, _inner_tuple as _astuple_inner

__all__ = ["_asdict_inner", "_astuple_inner", "_make_namedtuple"]


def _schema_of(f):
    if f._ty_schema is not None:
        return f._ty_schema
    return TypeSchema.from_annotation(f.type)


def _make_namedtuple(name, fields):
    """A namedtuple class of ``fields`` (see the module documentation)."""
    fields = tuple(fields)
    names = [f.name for f in fields]
    native = collections.namedtuple(name, names)  # ValueError for names it refuses
    schemas = [_schema_of(f) for f in fields]
    native_new = native.__new__
    native_make = native.__dict__["_make"].__func__

    def convert(values):
        out = []
        for fname, schema, value in zip(names, schemas, values):
            try:
                out.append(to_py_class_value(schema.convert(value)))
            except TypeError as err:
                raise TypeError("%s.%s: %s" % (name, fname, err)) from err
        return out

    def __new__(_cls, *args, **kwargs):
        return tuple.__new__(_cls, convert(native_new(_cls, *args, **kwargs)))

    __new__.__signature__ = inspect.signature(native_new)

    def _make(cls, iterable):
        return tuple.__new__(cls, convert(native_make(cls, iterable)))

    native.__new__ = __new__
    native._make = classmethod(_make)
    native.__annotations__ = {f.name: f.type for f in fields if f.type is not None}
    return native
