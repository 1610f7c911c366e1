"""``py_class``: define a new FFI object type from a Python class body.

The type goes into the runtime's type table like a C++ one: every annotated field becomes a
reflected field stored as a 16-byte Any (getter/setter from ``ffi.MakeFieldGetter`` /
``ffi.MakeFieldSetter``; the setter checks values against the annotation, so C++ writers are
checked too), ``field()`` options become the field flags (InitOff, KwOnly, ReprOff,
CompareOff, HashOff, defaults and factories), methods marked with ``tvm_ffi.method`` become
reflected methods, and ``ffi._PyClassRegisterTypeAttrColumns`` installs ``__ffi_new__``,
``__ffi_shallow_copy__`` and the generated ``__ffi_init__``. The class then gets the
``c_class`` dunders. Instances can be passed to, stored and built by C/C++ code.

A py_class may extend ``tvm_ffi.Object``, another py_class or a reflected C/C++ type (not a
final one): the parent's fields stay at their C++ offsets, so its C/C++ methods read them,
and the new fields follow.
"""

from .. import _typeinfo
from .. import _type_index as T
from . import _init_property, _local_names, _protocol, _py_fields
from . import _fields as F, _stepwise as S
from .._base import _CLS_TYPE, _TYPE_CLS, _TYPE_INFO, Object
from .._conversion import convert_func
from .._function import _type_key, _type_key_to_index
from .._loader import ffi, lib
from .._type_schema import TypeSchema
from ..error import _check
from ._method import method_metadata, method_spec
from .c_class import c_class, _class_body_fields, eval_annotation, precheck, _process



#: py_class(structural_eq=...) -> the type's structural equality/hash kind (TVMFFISEqHashKind):
#: "tree" compares by fields (the default), "var" is a free variable (equal only to itself
#: unless bound), "dag" also compares the sharing, "const-tree" is a tree that may be
#: shortcut by pointer equality, "singleton" compares by pointer only, and None refuses
#: structural comparison (TypeError).
STRUCTURAL_EQ_KINDS = {None: 0, "tree": 1, "var": 2, "dag": 3, "const-tree": 4, "singleton": 5}


def py_class(type_key=None, *, init=True, repr=True, eq=False, order=False, unsafe_hash=False,
             frozen=False, match_args=True, kw_only=False, structural_eq="tree"):
    """Decorator: register ``cls`` as a new FFI type (``@py_class``, ``@py_class("ns.Name")``).

    The default type key is ``<module>.<qualname>``. Options are those of ``c_class``, plus
    ``structural_eq`` (a key of ``STRUCTURAL_EQ_KINDS``).
    """
    if not isinstance(structural_eq, (str, type(None))) or structural_eq not in STRUCTURAL_EQ_KINDS:
        raise ValueError("py_class(structural_eq=...) must be one of %s, got %r"
                         % (", ".join("%r" % (k,) for k in STRUCTURAL_EQ_KINDS), structural_eq))
    params = dict(init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash,
                  frozen=frozen, match_args=match_args, kw_only=kw_only)
    if order and not eq:
        raise ValueError("py_class: order=True requires eq=True")
    if isinstance(type_key, type):  # bare @py_class
        return _define(type_key, None, params, structural_eq)
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError("py_class: type_key must be a string, got %s" % type(type_key).__name__)
    return lambda cls: _define(cls, type_key, params, structural_eq)


# what type checkers read (PEP 681): the same record as c_class's
py_class.__dataclass_transform__ = c_class.__dataclass_transform__


def _check_object_class(cls):
    """A py_class derives from tvm_ffi.Object (directly or through other py_classes)."""
    if not issubclass(cls, Object):
        raise TypeError("py_class %s must inherit from tvm_ffi.Object (or another py_class), "
                        "got bases %s" % (cls.__name__,
                                          ", ".join(b.__name__ for b in cls.__bases__)))


def _parent_index(cls):
    for base in cls.__mro__[1:]:
        tidx = _CLS_TYPE.get(base)
        if tidx is None:
            continue
        if not S.extendable(tidx):
            raise TypeError("py_class %s: cannot extend `%s`: the type registers no metadata, "
                            "so its size is unknown; extend tvm_ffi.Object, a py_class or a "
                            "reflected C/C++ type" % (cls.__name__, _type_key(tidx)))
        return tidx
    return T.kTVMFFIObject


def _define(cls, type_key, params, structural_eq="tree"):
    if not isinstance(cls, type):
        raise TypeError("py_class must decorate a class, got %r" % (cls,))
    _check_object_class(cls)
    key = type_key or "%s.%s" % (cls.__module__, cls.__qualname__)
    retry = _RETRYABLE.get(key)
    if retry is None and _type_key_to_index(key) is not None:
        raise ValueError("py_class %s: type key `%s` is already registered (type keys are "
                         "process-wide and cannot be redefined)" % (cls.__name__, key))
    parent = _parent_index(cls)
    if retry is not None and retry != parent:
        raise ValueError("py_class %s: type key `%s` is left from a failed definition under "
                         "`%s`; define it again with that parent or use another key"
                         % (cls.__name__, key, _type_key(retry)))
    parent_info = _typeinfo._type_info_of_index(parent)
    precheck(cls, params)
    _protocol.type_attr_names(cls)  # (refuses malformed lists before the type exists)
    _init_property.collect(cls, {f.name for f in parent_info.all_fields()})
    markers, owners, found = _protocol.marker_types(cls), [], []
    body, after_marker = _class_body_fields(cls, markers=markers, found=found)
    own_names = list(body)
    body = _with_mixin_fields(cls, body, markers, owners)
    owners.append((cls, own_names, found))
    _check_body(cls, parent, body)  # before the type exists: a bad body leaves no trace
    for name, f in body.items():
        f.name = name
        f._ty_schema = _schema_of(f.type)
    # string annotations that did not resolve: the fields take any value, and building an
    # object first checks that they resolve by then (check_forward_refs)
    unresolved = {name: f.type for name, f in body.items() if isinstance(f.type, str)}
    if unresolved:
        setattr(cls, UNRESOLVED_ATTR, unresolved)
    info = S.register_py_class(parent_info, key, cls, reuse=retry is not None)
    _RETRYABLE.pop(key, None)
    _resolve_self_references(cls, body, unresolved)
    try:
        # per class: the hooks below may change them for this class alone
        info._decorator_args = dict(params, structural_eq=structural_eq,
                                    field_markers=_protocol.place_markers(parent_info, owners))
        _protocol.run_fields_resolved_hooks(info, cls, list(body.values()))
        params, seq_kind = _read_back(info._decorator_args, params)
    except BaseException:
        _abandon(info, cls)
        raise
    kw_defaults = {name: params["kw_only"] or name in after_marker for name in body}

    def methods_and_hooks(tidx):
        _register_methods(tidx, cls)
        _register_hooks(info, cls)

    S.register_fields(info, body.values(), structural_eq_kind=seq_kind, doc=cls.__doc__,
                      kw_defaults=kw_defaults, before_columns=methods_and_hooks)
    setattr(cls, S.PY_CLASS_ATTR, True)
    _local_names.remember(cls)
    user_init = cls.__dict__.get("__init__")
    _process(cls, key, params, body=(body, after_marker))
    if user_init is not None:
        cls.__init__ = _allocating_init(user_init, info.type_index)
    return cls


#: type key -> parent type index, of the definitions that failed before anything of their
#: type reached the runtime but its index: the key may be defined again (the same index)
_RETRYABLE = {}


def _abandon(info, cls):
    """Unbind a type whose definition failed in its hooks, so that the key can be retried."""
    raw = lib.TVMFFIGetTypeInfo(info.type_index)
    if raw.num_fields or raw.num_methods or raw.metadata != ffi.NULL:
        return  # a hook registered fields or methods: the key stays taken
    _TYPE_CLS.pop(info.type_index, None)
    _CLS_TYPE.pop(cls, None)
    _TYPE_INFO.pop(info.type_index, None)
    _RETRYABLE[info.type_key] = info.parent_type_info.type_index


def _resolve_self_references(cls, body, unresolved):
    """Annotations that name the class itself (``children: list["Node"]``) resolve once its
    type exists: their fields get the layout and checks of the type they name."""
    for name, text in list(unresolved.items()):
        try:
            ann = eval_annotation(cls, text, {cls.__name__: cls})
            _py_fields.field_rules(ann)  # an annotation no FFI type fits stays unchecked
            schema = _schema_of(ann)
        except Exception:  # noqa: BLE001 - still unresolved: checked when an object is built
            continue
        body[name].type, body[name]._ty_schema = ann, schema
        del unresolved[name]
    if not unresolved and UNRESOLVED_ATTR in cls.__dict__:
        delattr(cls, UNRESOLVED_ATTR)


def _schema_of(ann):
    """The TypeSchema a fields-resolved hook sees (Any for a string that did not resolve)."""
    if ann is None or isinstance(ann, str):
        return TypeSchema("Any")
    return TypeSchema.from_annotation(ann)


def _read_back(args, params):
    """(params, structural kind) as the fields-resolved hooks left ``_decorator_args``."""
    kind = args.get("structural_eq")
    if not isinstance(kind, (str, type(None))) or kind not in STRUCTURAL_EQ_KINDS:
        raise ValueError("_decorator_args['structural_eq'] must be one of %s, got %r"
                         % (", ".join("%r" % (k,) for k in STRUCTURAL_EQ_KINDS), kind))
    params = {name: args.get(name, value) for name, value in params.items()}
    if params["order"] and not params["eq"]:
        raise ValueError("py_class: order=True requires eq=True")
    return params, STRUCTURAL_EQ_KINDS[kind]


UNRESOLVED_ATTR = "__tvm_ffi_unresolved_annotations__"


def check_forward_refs(cls):
    """TypeError naming the string annotations of cls and its py_class bases that still do
    not resolve (an undefined name, an expression that fails), as upstream words it; those
    that resolve now are forgotten."""
    failures = []
    for owner in reversed(cls.__mro__):
        pending = owner.__dict__.get(UNRESOLVED_ATTR)
        if not pending:
            continue
        local = _local_names.classes_of_other_modules(owner.__module__)
        local.update({c.__name__: c for c in cls.__mro__})
        for name, text in list(pending.items()):
            try:
                eval_annotation(owner, text, local)
            except Exception as err:  # noqa: BLE001 - reported below
                failures.append("%s: %s (%s)" % (name, text, err))
            else:
                del pending[name]
    if failures:
        raise TypeError("Cannot instantiate %s: unresolved forward references: %s"
                        % (cls.__name__, failures))


def _allocating_init(user_init, tidx):
    """A class body's own ``__init__``, run on an allocated object (all fields None) so that
    it can assign fields; ``super().__init__()`` of a py_class parent is then a no-op."""
    import functools  # noqa: PLC0415

    @functools.wraps(user_init)
    def __init__(self, *args, **kwargs):
        if not self._h:
            new = _typeinfo._lookup_type_attr(_CLS_TYPE.get(type(self), tidx), "__ffi_new__")
            self.__init_handle_by_constructor__(new)
        user_init(self, *args, **kwargs)

    return __init__


# ---------------------------------------------------------------------------------------------
# fields


def _with_mixin_fields(cls, body, markers=(), owners=None):
    """Fields annotated in plain Python classes between cls and its nearest FFI base come
    first (base-most first), as upstream collects them; a name cls redeclares keeps its
    place with cls's declaration, and a mixin's KW_ONLY marker covers every later field.
    Each mixin's (class, field names, field markers found) is appended to ``owners``."""
    import copy  # noqa: PLC0415

    plain = []
    for base in cls.__mro__[1:]:
        if base is object or base in _CLS_TYPE:
            break
        plain.append(base)
    merged, marker_seen = {}, False

    def unset(f):
        return f.kw_only is None or F._is_missing(f.kw_only)

    for base in reversed(plain):
        found = []
        fields, after_marker = _class_body_fields(base, remove=False, markers=markers,
                                                  found=found)
        if owners is not None:
            owners.append((base, list(fields), found))
        for name, f in fields.items():
            f = copy.copy(f)  # the mixin's own record stays as it is
            if (marker_seen or name in after_marker) and unset(f):
                f.kw_only = True
            merged[name] = f
        marker_seen = marker_seen or bool(after_marker)
    if not merged:
        return body
    for f in body.values():  # a mixin's KW_ONLY marker also covers what follows it
        if marker_seen and unset(f):
            f.kw_only = True
    for name in merged:
        if name in body:
            merged[name] = body[name]
    merged.update(body)
    return merged


def _check_body(cls, parent, body):
    """TypeError for @classmethod-wrapped FFI methods, shadowed fields and annotations."""
    for attr, value in cls.__dict__.items():
        if isinstance(value, classmethod) and method_spec(value.__func__) is not None:
            raise TypeError("py_class %s: method `%s` is marked for the FFI but wrapped by "
                            "@classmethod (FFI calls pass the instance first); use "
                            "@staticmethod" % (cls.__name__, attr))
    inherited = {f.name for f in _typeinfo._type_info_of_index(parent).all_fields()}
    for name, f in body.items():
        if name in inherited:
            raise TypeError("py_class %s: field `%s` is already defined by a parent type"
                            % (cls.__name__, name))
        # a default the annotation refuses is not an error yet: like upstream, construction
        # converts it through the field's setter and raises there
        try:
            _py_fields.rules_of(f)
        except TypeError as err:
            raise TypeError("py_class %s: field `%s`: %s" % (cls.__name__, name, err)) from None


# ---------------------------------------------------------------------------------------------
# methods

# Methods of these names in a class body become the type's hooks (type attributes) that
# ffi.RecursiveEq/Hash/Lt..., ffi.ReprPrint and the dataclass dunders consult, with the
# signatures (self, other, fn_eq) -> bool, (self, fn_hash) -> int, (self, other, fn_cmp) -> int
# and (self, fn_repr) -> str; they must be functions.  The other names of
# _protocol.TYPE_ATTR_NAMES (structural and serialization hooks, ``__ffi_convert_type_schema__``
# and the like) and those a class lists in ``__ffi_type_attr_names__`` take any value.
_HOOK_NAMES = ("__ffi_eq__", "__ffi_hash__", "__ffi_compare__", "__ffi_repr__")


def _register_hooks(info, cls):
    """Register the type attributes of cls's body, then those it inherits (_protocol)."""
    tidx = info.type_index
    names, inherited = _protocol.type_attr_names(cls)
    for name, value in list(cls.__dict__.items()):
        if name not in names:
            continue
        if isinstance(value, classmethod):
            raise TypeError("py_class %s: type attribute `%s` is wrapped by @classmethod (FFI "
                            "calls pass the instance first); use @staticmethod"
                            % (cls.__name__, name))
        if isinstance(value, staticmethod):
            value = value.__func__
        if value is None:
            continue  # an explicit None: no entry, and subclasses inherit none
        if name in _HOOK_NAMES and not callable(value):
            raise TypeError("py_class %s: %s must be a function, got %r"
                            % (cls.__name__, name, value))
        if callable(value) and not isinstance(value, Object):
            value = convert_func(value)
        _typeinfo._register_type_attr(tidx, name, value)
    for name, value in _protocol.inherited_type_attrs(info, cls, inherited):
        _typeinfo._register_type_attr(tidx, name, value)


def _collect_py_methods(cls):
    """What a class body registers besides its fields, as (attribute name, value, is_static):
    the type attributes it defines (see _register_hooks) and the functions marked with
    ``tvm_ffi.method``; None when there is none.  Any other method stays Python's,
    ``__ffi_*__`` dunders included (``__ffi_init__``, ``__ffi_shallow_copy__``,
    ``__ffi_custom_op__``), as upstream."""
    attr_names = _protocol.type_attr_names(cls)[0]
    out = []
    for name, value in cls.__dict__.items():
        is_static = isinstance(value, staticmethod)
        func = value.__func__ if is_static else value
        if name in attr_names or (callable(func) and method_spec(func) is not None):
            out.append((name, func, is_static))
    return out or None


def _register_methods(tidx, cls):
    attr_names = _protocol.type_attr_names(cls)[0]
    for name, func, is_static in _collect_py_methods(cls) or ():
        spec = method_spec(func) if callable(func) else None
        if spec is None or name in attr_names or spec["name"] in attr_names:
            continue  # (type attributes: see _register_hooks)
        fobj = convert_func(func)
        mi = ffi.new("TVMFFIMethodInfo*")
        keep = []
        meta = method_metadata(func, cls, _type_key(tidx), is_static)
        for slot, text in (("name", spec["name"]), ("doc", spec["doc"] or ""),
                           ("metadata", meta)):
            data = text.encode()
            cbuf = ffi.new("char[]", data)
            keep.append(cbuf)
            getattr(mi, slot).data, getattr(mi, slot).size = cbuf, len(data)
        mi.flags = 4 if is_static else 0
        mi.method.type_index = T.kTVMFFIFunction
        mi.method.v_obj = ffi.cast("TVMFFIObject*", fobj._h)
        _check(lib.TVMFFITypeRegisterMethod(tidx, mi))
        del keep
