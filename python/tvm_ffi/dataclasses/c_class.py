"""``c_class``: a C++-defined type seen as a Python dataclass.

``register_object`` binds the class to the type key; then the fields (reflected, ancestors
first, optionally refined by annotations in the class body) give ``__init__``, ``__repr__``,
``__eq__``/``__hash__``/ordering and frozen-ness, the way ``dataclasses.dataclass`` derives
them from annotations. Comparison, hashing and printing run in the runtime
(``ffi.RecursiveEq``/``Lt``/``Le``/``Gt``/``Ge``/``RecursiveHash``/``ReprPrint``), which
honours the C++ CompareOff/HashOff/ReprOff flags; a class body that switches off more
than the C++ side gets a field-by-field Python version.
"""

import inspect
import sys
import types
import typing

from .. import _typeinfo
from . import _local_names, _protocol
from . import _fields as F
from .._base import FFIProperty, Object, _RefusingFFIProperty
from .._function import _global
from ..registry import register_object
from ._copy import install_copy
from ._fields import MISSING, FrozenInstanceError
from ._init import make_init

FIELDS_ATTR = "__tvm_ffi_dataclass_fields__"
PARAMS_ATTR = "__tvm_ffi_dataclass_params__"


def c_class(type_key, *, init=True, repr=True, eq=False, order=False, unsafe_hash=False,
            frozen=False, match_args=True, kw_only=False):
    """Decorator: register ``cls`` for ``type_key`` and add dataclass-style dunders.

    ``eq`` is off by default so that registered types keep identity equality and stay
    hashable unless asked otherwise (as before the dataclass features existed).
    """
    if not isinstance(type_key, str):
        raise TypeError("c_class: type_key must be a string, got %s" % type(type_key).__name__)
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    params = dict(init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash,
                  frozen=frozen, match_args=match_args, kw_only=kw_only)

    def decorator(cls):
        return _process(cls, type_key, params)

    return decorator


# ---------------------------------------------------------------------------------------------
# class body


def _is_classvar(ann):
    if ann is typing.ClassVar or typing.get_origin(ann) is typing.ClassVar:
        return True
    return isinstance(ann, str) and ann.replace(" ", "").startswith(("ClassVar", "typing.ClassVar"))


def _is_kw_only_marker(ann):
    return ann is F.KW_ONLY or (isinstance(ann, str) and ann.endswith("KW_ONLY"))


def _annotations(cls):
    """The class body's own annotations; ones written as strings (PEP 563) are evaluated as
    ``inspect.get_annotations(eval_str=True)`` would, one by one, keeping the text of those
    that do not resolve (forward references); names of the module's py_class types resolve
    even when defined in a function (see _local_names)."""
    anns = dict(inspect.get_annotations(cls) if hasattr(inspect, "get_annotations")
                else cls.__dict__.get("__annotations__", {}))
    for name, ann in anns.items():
        if isinstance(ann, str):
            try:
                anns[name] = eval_annotation(cls, ann)
            except Exception:  # noqa: BLE001 - unresolvable: keep the text
                pass
    return anns


def eval_annotation(cls, text, local=None):
    """The value of a string annotation of cls's body (raises what eval raises): names of its
    module, of the module's py_class types (see _local_names), `local` and its class body."""
    module = sys.modules.get(cls.__module__)
    env = dict(vars(module)) if module is not None else {}
    env.update(_local_names.classes_of(cls.__module__))
    local = dict(local or {})
    local.update(vars(cls))
    return eval(text, env, local)  # noqa: S307 - as inspect does


def _class_body_fields(cls, remove=True, markers=(), found=None):
    """Python-side Field records of ``cls``'s own annotations; removes their class attributes
    unless ``remove`` is false (a mixin others may share).  An annotation that is one of the
    classes ``markers`` declares no field: (marker, name, number of fields before it) goes to
    the list ``found`` (py_class's field markers, see _protocol).

    Returns ({name: Field}, names that follow a KW_ONLY marker).
    """
    anns = _annotations(cls)
    out, after_marker, seen_marker = {}, set(), False
    for name, ann in anns.items():
        if _is_classvar(ann):
            continue
        if any(ann is m for m in markers):
            found.append((ann, name, len(out)))
            continue
        if _is_kw_only_marker(ann):
            if seen_marker:
                raise TypeError("%s: KW_ONLY may appear only once" % cls.__name__)
            seen_marker = True
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, F.Field):
            f = value
        elif isinstance(value, (property, staticmethod, classmethod, types.FunctionType)):
            continue  # an annotated accessor, not a field declaration
        else:
            if isinstance(value, (list, dict, set)):
                raise ValueError("mutable default %s for field %s is not allowed: use "
                                 "default_factory" % (type(value).__name__, name))
            f = F.field(default=value)
        f.type = ann
        out[name] = f
        if seen_marker:
            after_marker.add(name)
        if remove and name in cls.__dict__:
            delattr(cls, name)  # the field becomes a property of the type
    return out, after_marker


# ---------------------------------------------------------------------------------------------
# decoration


def _process(cls, type_key, params, body=None):
    """Register cls for type_key and install the dunders; ``body`` = pre-read class body."""
    if not (isinstance(cls, type) and issubclass(cls, Object)):
        raise TypeError("c_class(%r) must decorate a subclass of tvm_ffi.Object, got %r"
                        % (type_key, cls))
    precheck(cls, params)
    info = _typeinfo._lookup_or_register_type_info_from_type_key(type_key)
    body, after_marker = body if body is not None else _class_body_fields(cls)
    cfields = info.all_fields()
    known = {cf.name for cf in cfields}
    unknown = [n for n in body if n not in known]
    if unknown:
        raise ValueError("c_class(%r): %s declares field(s) %s that the type does not reflect "
                         "(reflected: %s)" % (type_key, cls.__name__, ", ".join(unknown),
                                              ", ".join(cf.name for cf in cfields) or "none"))
    for name, f in body.items():
        f.name = name
    _protocol.refuse_leftover_keywords(cls, body.values())
    register_object(type_key, init=False)(cls)
    install_dunders(cls, info, params, body, after_marker)
    return cls


def install_dunders(cls, info, params, body, after_marker):
    """The dunders of a bound class: its reflected fields merged with the Python-side Field
    records ``body`` (name -> Field; ``after_marker``: names after a KW_ONLY marker)."""
    type_key = info.type_key
    cfields = info.all_fields()
    inherited = {f.name: f for base in reversed(cls.__mro__[1:])
                 for f in base.__dict__.get(FIELDS_ATTR, ())}
    fields = []
    for cf in cfields:
        if cf.name in body:
            fields.append(F.merge(cf, body[cf.name], params["kw_only"] or cf.name in after_marker))
        elif cf.name in inherited:  # a dataclass base described it: keep its Python side
            base_f = inherited[cf.name]
            fields.append(F.merge(cf, base_f._py, base_f._kw))
        else:
            fields.append(F.merge(cf, None, params["kw_only"]))
    _attach_missing_properties(cls, fields)
    own_fields = {id(tf) for tf in info.fields}
    for f in fields:  # the reflection record of this type's own fields points back
        if id(f._c) in own_fields:
            f._c.dataclass_field = f
    setattr(cls, FIELDS_ATTR, tuple(fields))
    setattr(cls, PARAMS_ATTR, dict(params))
    own = cls.__dict__
    if params["init"] and "__init__" not in own:
        cls.__init__ = make_init(cls, info, fields)
    elif "__init__" not in own:  # init=False: not constructible unless the class says how
        cls.__init__ = _no_init(cls)
    if params["repr"] and "__repr__" not in own:
        if any(not f.repr and f._c.c_repr for f in fields):
            cls.__repr__ = _field_repr(type_key, [f.name for f in fields if f.repr])
    if params["eq"] and "__eq__" not in own:
        _install_eq(cls, fields)
    if params["order"]:
        _install_order(cls, fields)
    _install_hash(cls, fields, params)
    install_copy(cls)
    _install_type_hooks(cls, info)
    from ._enum_define import install_payload_setters  # noqa: PLC0415 - it imports this module
    install_payload_setters(cls, [f for f in fields if id(f._c) in own_fields])
    # (a read-only C++ field is frozen already: its own refusal stays unless the class is)
    _freeze(cls, [f for f in fields if id(f._c) in own_fields
                  and (params["frozen"] or (f.frozen and not f._c.frozen))])
    if params["match_args"] and "__match_args__" not in own:
        cls.__match_args__ = tuple(f.name for f in fields if f.init and not f.kw_only)


#: Type attributes through which C++ customises comparison, hashing and printing; a type that
#: registers them shows them as class attributes (callable Functions), as upstream does.
_TYPE_HOOKS = ("__ffi_hash__", "__ffi_eq__", "__ffi_compare__", "__ffi_repr__")


def _install_type_hooks(cls, info):
    for name in _TYPE_HOOKS:
        if name not in cls.__dict__:
            hook = _typeinfo._lookup_type_attr(info.type_index, name)
            if hook is not None:
                setattr(cls, name, hook)


def _attach_field_objects(cls, type_info):
    """Give each field ``type_info`` itself reflects a fresh ``Field`` on ``dataclass_field``,
    typed by ``cls``'s own annotation of it (None when ``cls`` does not annotate it)."""
    anns = _annotations(cls)
    for tf in type_info.fields:
        f = F.merge(tf, None, False)
        f.type = anns.get(tf.name)
        tf.dataclass_field = f
    return [tf.dataclass_field for tf in type_info.fields]


# what typing.dataclass_transform would record: type checkers treat c_class like a dataclass
c_class.__dataclass_transform__ = {
    "eq_default": False, "order_default": False, "kw_only_default": False,
    "frozen_default": False, "field_specifiers": (F.Field, F.field),
    "kwargs": {"converter": F._field_converter},
}


def _no_init(cls):
    msg = ("`%s` cannot be constructed directly. Define a custom __init__ or use a factory "
           "method." % cls.__name__)

    def __init__(self, *args, **kwargs):
        raise TypeError(msg)

    __init__.__qualname__ = cls.__qualname__ + ".__init__"
    return __init__


def _has_explicit_hash(cls):
    # a class body defining __eq__ gets __hash__ = None from Python itself: not explicit
    return "__hash__" in cls.__dict__ and not (
        cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)


def precheck(cls, params):
    """The stdlib's refusals, checked before anything is registered."""
    # (unlike the stdlib, frozen and non-frozen classes may extend each other: each class
    # freezes only the fields it declares)
    if params["order"]:
        for attr, _ in _ORDER_OPS:
            if attr in cls.__dict__:
                raise TypeError("Cannot overwrite attribute %s in class %s. Consider using "
                                "functools.total_ordering" % (attr, cls.__name__))
    if params["unsafe_hash"] and _has_explicit_hash(cls):
        raise TypeError("Cannot overwrite attribute __hash__ in class %s" % cls.__name__)


def _attach_missing_properties(cls, fields):
    """register_object attaches every reflected field; keep that promise here too."""
    for f in fields:
        if inspect.getattr_static(cls, f.name, None) is None:
            setattr(cls, f.name, f._c.as_property(cls))


def _freeze(cls, fields):
    """Assignment to these fields raises FrozenInstanceError; Class.field.set() still writes."""
    for f in fields:
        prop = inspect.getattr_static(cls, f.name, None)
        if not isinstance(prop, property) or prop.fget is None:
            continue  # the class body replaced the field accessor: leave it alone
        raw_set = prop.set if isinstance(prop, FFIProperty) else prop.fset
        setattr(cls, f.name, _RefusingFFIProperty(prop.fget, prop.__doc__, raw_set,
                                                       FrozenInstanceError, f.name))


# ---------------------------------------------------------------------------------------------
# repr / eq / order / hash


def _field_repr(type_key, names):
    def __repr__(self):
        if not self._h:
            return "<%s>(chandle=None)" % type(self).__name__
        rp = _global("ffi.ReprPrint")
        return "%s(%s)" % (type_key, ", ".join("%s=%s" % (n, rp(getattr(self, n)))
                                               for n in names))

    return __repr__


def _python_compare_needed(fields):
    return any(not f.compare and f._c.c_compare for f in fields)


def _install_eq(cls, fields):
    if _python_compare_needed(fields):
        names = [f.name for f in fields if f.compare]

        def __eq__(self, other):
            if type(other) is not type(self):
                return NotImplemented
            eq = _global("ffi.RecursiveEq")
            return self.same_as(other) or all(eq(getattr(self, n), getattr(other, n))
                                              for n in names)
    else:

        def __eq__(self, other):
            if type(other) is not type(self):
                return NotImplemented
            return _global("ffi.RecursiveEq")(self, other)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    cls.__eq__ = __eq__
    cls.__ne__ = __ne__


_ORDER_OPS = (("__lt__", "ffi.RecursiveLt"), ("__le__", "ffi.RecursiveLe"),
              ("__gt__", "ffi.RecursiveGt"), ("__ge__", "ffi.RecursiveGe"))


def _install_order(cls, fields):
    python_side = _python_compare_needed(fields)
    names = [f.name for f in fields if f.compare]
    for attr, glob in _ORDER_OPS:
        setattr(cls, attr, _order_op(attr, glob, names if python_side else None))


def _order_op(attr, glob, names):
    def op(self, other):
        if type(other) is not type(self):
            return NotImplemented
        if names is None:
            return _global(glob)(self, other)
        # lexicographic over the compared fields, as tuples compare
        eq = _global("ffi.RecursiveEq")
        for n in names:
            a, b = getattr(self, n), getattr(other, n)
            if not eq(a, b):
                return _global(glob)(a, b)
        return attr in ("__le__", "__ge__")

    op.__name__ = attr
    return op


def _install_hash(cls, fields, params):
    """The stdlib's table: unsafe_hash, or eq+frozen, set a hash; eq alone removes it."""
    explicit = _has_explicit_hash(cls)
    eq, frozen = params["eq"], params["frozen"]
    if params["unsafe_hash"]:
        cls.__hash__ = _make_hash(fields)
    elif explicit:
        return
    elif eq and frozen:
        cls.__hash__ = _make_hash(fields)
    elif eq:
        cls.__hash__ = None


def _make_hash(fields):
    hashed = [f.name for f in fields if (f.hash if f.hash is not None else f.compare)]
    if any(not (f.hash if f.hash is not None else f.compare) and f._c.c_hash and f._c.c_compare
           for f in fields):

        def __hash__(self):
            h = _global("ffi.RecursiveHash")
            return hash(tuple(h(getattr(self, n)) for n in hashed))
    else:

        def __hash__(self):
            return _global("ffi.RecursiveHash")(self)

    return __hash__
