"""Field records of FFI dataclasses: ``field()``, ``Field``, and the reflected C fields.

A field's final description merges two sources: what the runtime's type table says
(flags InitOff/KwOnly/ReprOff/CompareOff/HashOff, a default value or factory, the doc) and
what the Python class body says (annotation, ``= default`` or ``field(...)``). The Python
side may add defaults and switch features off; it cannot invent storage.
"""

import dataclasses as _std

from .. import _sentinels, container
from .._dtype import dtype
from .._function import _class_for_index, _type_key_to_index
from .._values import Device


#: "no value given": the runtime's own sentinel, so a ``MISSING`` passed through an
#: FFI constructor keyword means "use the default" there too.
MISSING = _sentinels.MISSING

#: Marker annotation: fields after ``_: KW_ONLY`` are keyword-only: the stdlib's marker, so
#: type checkers understand it; Python 3.9's dataclasses has none, so there it is a class of
#: our own (a class, like the stdlib's, so ``_: KW_ONLY`` reads the same either way).
KW_ONLY = getattr(_std, "KW_ONLY", None) or type("KW_ONLY", (), {"__module__": __name__})

#: Raised when assigning to a field of a frozen dataclass (an AttributeError).
FrozenInstanceError = _std.FrozenInstanceError


def _is_missing(v):
    return v is MISSING or v is _std.MISSING


class Field:
    """Description of one dataclass field (what ``fields()`` returns)."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare",
                 "kw_only", "metadata", "doc", "frozen", "structural_eq", "converter", "_ty_schema",
                 "extra_kwargs", "_c", "_py", "_kw")

    def __init__(self, name=None, _ty_schema=None, *, default=MISSING, default_factory=MISSING,
                 frozen=False, init=True, repr=True, hash=True, compare=False, kw_only=False,
                 metadata=None, structural_eq=None, doc=None, converter=None, **extra_kwargs):
        # (the keyword defaults are those of a raw record, as upstream's; field() passes its own)
        # ``metadata`` is the record's own dict (a shallow copy of the argument) that
        # extensions may edit; ``extra_kwargs`` holds the keywords this record does not know,
        # for fields-resolved hooks to consume (py_class refuses any left over).
        if not _is_missing(default) and not _is_missing(default_factory):
            raise ValueError("cannot specify both default and default_factory")
        if not _is_missing(default_factory) and not callable(default_factory):
            raise TypeError("default_factory must be a callable, got %r" % (default_factory,))
        self.name = name
        self._ty_schema = _ty_schema  # a TypeSchema, for fields declared without a class body
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only
        self.metadata = dict(metadata or {})
        self.extra_kwargs = dict(extra_kwargs)
        self.doc = doc
        self.frozen = frozen  # assignment refused even when the class is not frozen
        self.structural_eq = structural_eq  # a key of FIELD_STRUCTURAL_EQ
        self.converter = converter if converter is not None else _field_converter
        self._c = None  # the reflected field this one describes (a _typeinfo.TypeField)
        self._py = None  # the class body's field() this one was merged from (inherited by subclasses)
        self._kw = False  # whether a KW_ONLY marker / class-level kw_only applied

    def __repr__(self):
        def show(v):
            return "MISSING" if _is_missing(v) else repr(v)

        return ("Field(name=%r, type=%r, default=%s, default_factory=%s, init=%r, repr=%r, "
                "hash=%r, compare=%r, kw_only=%s, metadata=%r, doc=%r)"
                % (self.name, self.type, show(self.default), show(self.default_factory),
                   self.init, self.repr, self.hash, self.compare, show(self.kw_only),
                   dict(self.metadata), self.doc))

    def __copy__(self):
        # the two dicts are per record: a class's copy of a mixin's field edits its own
        out = Field.__new__(Field)
        for slot in Field.__slots__:
            setattr(out, slot, getattr(self, slot))
        out.metadata = dict(self.metadata)
        out.extra_kwargs = dict(self.extra_kwargs)
        return out

    @property
    def has_default(self):
        return not _is_missing(self.default) or not _is_missing(self.default_factory)


#: field(structural_eq=...) -> the field flag bits for structural equality and hashing:
#: "ignore" leaves the field out; "def"/"def-pattern" make it a definition region whose free
#: variables bind (recursively, into the variables' own fields); "def-simple" binds the
#: variables it holds, through containers and other objects, but not inside a variable.
FIELD_STRUCTURAL_EQ = {None: 0, "ignore": 1 << 3, "def": 1 << 4, "def-pattern": 1 << 4,
                       "def-simple": 1 << 12}


def _field_converter(value):
    """The ``converter`` of every field: identity, since the FFI converts the values (it
    tells type checkers, through ``dataclass_transform``, that fields accept such values)."""
    return value


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None,
          compare=True, kw_only=None, metadata=None, doc=None, frozen=False,
          structural_eq=None, converter=_field_converter, **extra_kwargs):
    """Describe a dataclass field, as ``dataclasses.field`` does (plus ``doc``, and
    ``frozen``: assignment raises ``FrozenInstanceError`` as in a frozen class; the
    ``set(obj, value)`` of the class attribute still writes).

    On a ``c_class`` the field must exist in the C++ type; ``default``/``default_factory``
    replace the C++ default, and ``init``/``repr``/``compare``/``hash`` can only switch off
    what the C++ side enables. ``kw_only`` given explicitly wins over the C++ flag.
    Other keywords land in ``Field.extra_kwargs`` for a py_class extension's
    fields-resolved hook to consume (docs/guide-dataclasses.md).
    """
    if hash is not None and not isinstance(hash, bool):
        raise TypeError("hash must be None, True or False, got %r" % (hash,))
    if not isinstance(structural_eq, (str, type(None))) or structural_eq not in FIELD_STRUCTURAL_EQ:
        raise ValueError("field(structural_eq=...) must be one of %s, got %r"
                         % (", ".join("%r" % (k,) for k in FIELD_STRUCTURAL_EQ), structural_eq))
    return Field(default=default, default_factory=default_factory, init=init, repr=repr,
                 hash=hash, compare=compare, kw_only=kw_only, metadata=metadata, doc=doc,
                 frozen=bool(frozen), structural_eq=structural_eq, converter=converter,
                 **extra_kwargs)


def merge(cf, pyf, kw_only_default):
    """The final Field of reflected field ``cf`` (a ``TypeField``) given the class body's
    ``pyf`` (or None).

    ``kw_only_default`` is True after a ``KW_ONLY`` marker or under ``c_class(kw_only=True)``.
    """
    given = pyf
    pyf = pyf if pyf is not None else field()
    f = Field(default=pyf.default, default_factory=pyf.default_factory, init=pyf.init,
              repr=pyf.repr, hash=pyf.hash, compare=pyf.compare, kw_only=pyf.kw_only,
              metadata=pyf.metadata,
              doc=pyf.doc if pyf.doc is not None else cf.doc, frozen=pyf.frozen or cf.frozen,
              structural_eq=pyf.structural_eq if given is not None else cf.c_structural_eq,
              converter=pyf.converter, **pyf.extra_kwargs)
    f.name = cf.name
    f._ty_schema = cf.ty
    f.type = pyf.type if pyf.type is not None else _python_type(cf.ty)
    f._c = cf
    f._py = given
    f._kw = bool(kw_only_default)
    if not f.has_default and cf.c_has_default:  # the C++ default applies
        if cf.c_default_from_factory:
            f.default_factory = cf.c_default
        else:
            f.default = cf.c_default
    f.init = bool(f.init) and cf.c_init
    f.repr = bool(f.repr) and cf.c_repr
    f.compare = bool(f.compare) and cf.c_compare
    if not cf.c_hash or not cf.c_compare:
        f.hash = False
    elif given is None:  # a reflected field on its own hashes as it compares
        f.hash = f.compare
    if f.kw_only is None or _is_missing(f.kw_only):
        f.kw_only = bool(kw_only_default or cf.c_kw_only)
    return f


def _python_type(ts):
    """The Python annotation a reflected field's TypeSchema stands for (``int``, a registered
    class, ``Optional[...]``...); its text when nothing closer exists; None without schema."""
    import typing  # noqa: PLC0415

    if ts is None:
        return None
    simple = {"int": int, "float": float, "bool": bool, "str": str, "bytes": bytes,
              "None": type(None), "Any": typing.Any, "Array": container.Array,
              "List": container.List, "Map": container.Map, "Dict": container.Dict,
              "Device": Device, "dtype": dtype}
    if ts.origin in simple:
        return simple[ts.origin]
    if ts.origin in ("Optional", "Union") and ts.args:
        args = tuple(_python_type(a) for a in ts.args)
        if ts.origin == "Optional":
            args += (type(None),)
        return typing.Union[args]
    tidx = _type_key_to_index(ts.origin) if "." in ts.origin else None
    cls = _class_for_index(tidx) if tidx is not None else None
    return cls if cls is not None else str(ts)


def c_default_of(f):
    """(default, factory) the C++ side declares for Field f (MISSING where none)."""
    cf = f._c
    if not cf.c_has_default:
        return MISSING, MISSING
    return (MISSING, cf.c_default) if cf.c_default_from_factory else (cf.c_default, MISSING)
