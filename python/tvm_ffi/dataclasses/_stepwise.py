"""``py_class`` in four steps, each reachable on its own.

``@py_class`` reads a class body and then: allocates the type (``register_py_class``),
registers its fields (``register_fields``), binds the class and attaches the field
properties and methods (``add_class_attrs``), and installs the dataclass dunders
(``install_dataclass_dunders``). Code that builds a type from a list of ``Field`` records
instead of a class body runs the same steps under the names upstream's package gives them:
``core._register_py_class``, ``TypeInfo._register_fields``, ``registry._add_class_attrs``
and ``_dunder._install_dataclass_dunders`` (docs/guide-dataclasses.md §1).
"""

from .. import _typeinfo
from .. import _type_index as T
from . import _py_fields
from . import _fields as F
from .._base import _TYPE_INFO, _register_class
from .._function import _global, _type_key_to_index
from .._loader import ffi, lib
from ..error import _check
from ..registry import _attach_reflection
from .c_class import install_dunders, precheck

_OBJECT = T.kTVMFFIObject
#: set on classes defined by @py_class (fields laid out by ffi._PyClassLayout)
PY_CLASS_ATTR = "__tvm_ffi_py_class__"


def extendable(tidx):
    """Whether a Python-defined type may extend type index ``tidx``: ``tvm_ffi.Object``, a
    Python-defined type, or a C/C++ type whose metadata gives its size (its reflected fields
    stay at their C++ offsets, the new fields follow; a final type is refused when the index
    is allocated)."""
    if tidx == _OBJECT:
        return True
    info = _TYPE_INFO.get(tidx)
    if info is not None and getattr(info, "_py_defined", False):
        return True
    return _typeinfo._type_info_of_index(tidx).total_size > 0


def _check_parent(parent_info):
    if not isinstance(parent_info, _typeinfo.TypeInfo):
        raise TypeError("parent_type_info must be a TypeInfo, got %s"
                        % type(parent_info).__name__)
    if not extendable(parent_info.type_index):
        raise TypeError("cannot extend `%s`: the type registers no metadata, so its size is "
                        "unknown (a Python-defined type extends tvm_ffi.Object, a "
                        "Python-defined type or a reflected C/C++ type)" % parent_info.type_key)


def register_py_class(parent_info, type_key, type_cls, reuse=False):
    """Allocate a type index for ``type_key`` under ``parent_info`` and bind ``type_cls``.

    Returns the new TypeInfo, whose ``fields`` is None until ``_register_fields`` runs.
    ValueError when the key is taken (type keys are process-wide; the first stays intact),
    unless ``reuse``: py_class retries a key whose definition failed before its fields.
    """
    if not isinstance(type_key, str) or not type_key:
        raise TypeError("type_key must be a non-empty str, got %r" % (type_key,))
    _check_parent(parent_info)
    if not reuse and _type_key_to_index(type_key) is not None:
        raise ValueError("type key `%s` is already registered (type keys are process-wide and "
                         "cannot be redefined)" % type_key)
    parent = parent_info.type_index
    # (the raising allocator: TVMFFITypeGetOrAllocIndex ends the process on a refusal)
    tidx = _global("ffi._PyClassAllocTypeIndex")(type_key, parent)
    info = _typeinfo.TypeInfo(type_cls=type_cls, type_index=tidx, type_key=type_key,
                              type_ancestors=list(parent_info.type_ancestors) + [parent],
                              fields=None, methods=[], parent_type_info=parent_info)
    info._py_defined = True
    _TYPE_INFO[tidx] = info
    if type_cls is not None:
        _register_class(tidx, type_cls)
    return info


def register_fields(info, fields, *, structural_eq_kind=1, doc=None, kw_defaults=None,
                    before_columns=None):
    """Register ``fields`` (Field records with a name) as the own fields of ``info``'s type.

    The runtime places the fields after the parent's (``ffi._PyClassLayout``); the metadata
    (size, structural kind, doc), the fields and then the construction attributes
    (``__ffi_new__``, ``__ffi_init__``) go to the runtime. ``kw_defaults`` maps a name to its
    keyword-only default when the Field leaves ``kw_only`` unset; ``before_columns(type_index)``
    registers methods before ``__ffi_init__`` is generated.
    """
    if info.fields is not None:
        raise RuntimeError("fields of `%s` are already registered" % info.type_key)
    ancestor = info.parent_type_info
    while ancestor is not None:  # (the layout follows the ancestors' fields)
        if ancestor.fields is None:
            raise RuntimeError("register the fields of `%s` before those of its subclass `%s`"
                               % (ancestor.type_key, info.type_key))
        ancestor = ancestor.parent_type_info
    fields = list(fields)
    names = set()
    for f in fields:
        if not isinstance(f, F.Field) or not isinstance(f.name, str) or not f.name:
            raise TypeError("_register_fields expects Field records with a name, got %r" % (f,))
        if f.name in names:
            raise ValueError("field `%s` of `%s` is declared twice" % (f.name, info.type_key))
        names.add(f.name)
    rules = [_py_fields.rules_of(f) for f in fields]  # before anything reaches the runtime
    tidx = info.type_index
    parent = info.parent_type_info
    placed = [int(x) for x in _global("ffi._PyClassLayout")(parent.type_index,
                                                                  *[r[0] for r in rules])]
    total = placed[0]
    md = ffi.new("TVMFFITypeMetadata*")
    text = (doc or "").encode()
    md_doc = ffi.new("char[]", text)
    md.doc.data, md.doc.size = md_doc, len(text)
    md.total_size = total
    md.structural_eq_hash_kind = structural_eq_kind
    _check(lib.TVMFFITypeRegisterMetadata(tidx, md))
    kw_defaults = kw_defaults or {}
    for i, (f, rule) in enumerate(zip(fields, rules)):
        _py_fields.register_field(tidx, info.type_key, f.name, f, placed[1 + 3 * i:4 + 3 * i],
                                  kw_defaults.get(f.name, False), rule)
    if before_columns is not None:
        before_columns(tidx)
    _global("ffi._PyClassRegisterTypeAttrColumns")(tidx, total)
    info.fields = []
    info.refresh()
    for tf, f in zip(info.fields, fields):
        tf.dataclass_field = f  # the Python-side record, read by install_dataclass_dunders
    return info


def add_class_attrs(type_cls, type_info, type_attr_names=()):
    """Bind ``type_cls`` to the type and attach its field properties and methods."""
    if type_info.fields is None:
        raise RuntimeError("register the fields of `%s` before binding its class"
                           % type_info.type_key)
    _register_class(type_info.type_index, type_cls)
    _typeinfo._register_type_info(type_info.type_index, type_cls)
    _attach_reflection(type_cls, type_info)
    return type_cls


def install_dataclass_dunders(cls, *, init, repr, eq, order, unsafe_hash, match_args=True,
                              py_class_mode=False, frozen=False, kw_only=False):
    """``__init__``, ``__repr__``, ``__eq__``, ordering, ``__hash__``, copying and
    ``__match_args__`` of a bound class, from the Field records its fields were registered
    with."""
    info = cls.__dict__.get("__tvm_ffi_type_info__")
    if not isinstance(info, _typeinfo.TypeInfo):
        raise TypeError("%s is not bound to a type (run _add_class_attrs first)"
                        % getattr(cls, "__name__", cls))
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    params = dict(init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash,
                  frozen=frozen, match_args=match_args, kw_only=kw_only)
    precheck(cls, params)
    body = {tf.name: tf.dataclass_field for tf in info.fields
            if isinstance(tf.dataclass_field, F.Field)}
    install_dunders(cls, info, params, body, set())
