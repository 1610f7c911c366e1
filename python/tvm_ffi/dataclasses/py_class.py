"""``py_class``: define a new FFI object type from a Python class body.

The type goes into the runtime's type table like a C++ one: every annotated field becomes a
reflected field laid out as a C++ member (``ffi._PyClassLayout``; getter/setter from
``ffi.MakeFieldGetter`` / ``ffi.MakeFieldSetter``; the setter checks values against the
annotation, so C++ writers are checked too), ``field()`` options become the field flags (InitOff, KwOnly, ReprOff,
CompareOff, HashOff, defaults and factories), methods marked with ``tvm_ffi.method`` become
reflected methods, and ``ffi._PyClassRegisterTypeAttrColumns`` installs ``__ffi_new__``,
``__ffi_shallow_copy__`` and the generated ``__ffi_init__``. The class then gets the
``c_class`` dunders. Instances can be passed to, stored and built by C/C++ code.

A py_class may extend ``tvm_ffi.Object``, another py_class or a reflected C/C++ type (not a
final one): the parent's fields stay at their C++ offsets, so its C/C++ methods read them,
and the new fields follow. A class whose annotations name a class not defined yet waits
for it with everything but its type index (_deferred).
"""

from .. import _typeinfo
from .. import _type_index as T
from . import _deferred, _init_property, _local_names, _protocol, _py_fields
from . import _fields as F, _stepwise as S
from .._base import _CLS_TYPE, _TYPE_CLS, _TYPE_INFO, Object
from .._conversion import convert_func
from .._function import _type_key, _type_key_to_index
from .._loader import ffi, lib
from .._type_schema import TypeSchema
from ..error import _check
from ._method import method_metadata, method_spec
from .c_class import (c_class, _annotations, _class_body_fields, _is_classvar,
                      _is_kw_only_marker, precheck, _process)



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
    definition = _Definition(cls, key, params, structural_eq, parent_info)
    if parent_info.fields is not None:
        definition.read_body()  # before the type exists: a bad body leaves no trace
    if retry is not None:
        _supersede(key)
    definition.info = S.register_py_class(parent_info, key, cls, reuse=retry is not None)
    _RETRYABLE.pop(key, None)
    type.__setattr__(cls, _INFO_ATTR, definition.info)  # (as upstream, before the fields)
    _local_names.remember(cls)  # (a class defined after may name it before it completes)
    try:
        ready = definition.ready()
        if ready:
            definition.finish()
    except BaseException:
        definition.abandon()
        raise
    if not ready:
        _deferred.wait(definition)
    _deferred.flush()  # (the new class may be what a waiting one names)
    return cls


_INFO_ATTR = "__tvm_ffi_type_info__"


class _Definition:
    """One ``@py_class`` definition, from its class body to its registered type.

    ``read_body`` turns the class body into Field records (once its parent's fields are
    known), ``ready`` tells whether every annotation resolves now, ``finish`` registers the
    fields, methods and hooks and installs the dunders (_deferred runs it later when an
    annotation names a class not defined yet, or the parent waits for one).
    """

    def __init__(self, cls, key, params, structural_eq, parent_info):
        self.cls, self.key, self.params = cls, key, params
        self.structural_eq, self.parent_info = structural_eq, parent_info
        self.info = self.body = self.user_init = self.error = None
        self.resolved = {}

    def parent_type_cls(self):
        return self.parent_info.type_cls

    def read_body(self):
        cls, parent_info = self.cls, self.parent_info
        _init_property.collect(cls, {f.name for f in parent_info.all_fields()})
        markers, owners, found = _protocol.marker_types(cls), [], []
        body, self.after_marker = _class_body_fields(cls, remove=False, markers=markers,
                                                     found=found)
        self.own_names = list(body)
        body = _with_mixin_fields(cls, body, markers, owners)
        owners.append((cls, self.own_names, found))
        _check_body(cls, parent_info.type_index, body)
        for name, f in body.items():
            f.name = name
        self.owners, self.body = owners, body

    def annotations(self):
        """(owner class, field name, annotation) of the fields, mixins' first."""
        if self.body is None:  # (the parent waits: the body is not read yet)
            return [(owner, name, ann) for owner in _mixins(self.cls) + [self.cls]
                    for name, ann in _field_annotations(owner)]
        owner_of = {name: owner for owner, names, _ in self.owners for name in names}
        return [(owner_of.get(name, self.cls), name, f.type) for name, f in self.body.items()]

    def ready(self):
        """Whether every annotation resolves now (their values kept for finish); raises
        what an annotation raises other than NameError/AttributeError (as upstream's
        get_type_hints, the first failing annotation decides)."""
        if self.body is None:
            if self.parent_info.fields is None:
                return False
            self.read_body()
        for owner, name, ann in self.annotations():
            if name in self.resolved or not _deferred.needs_resolution(ann):
                continue
            try:
                self.resolved[name] = _deferred.resolve(owner, self.cls, ann)
            except (NameError, AttributeError):
                return False
        return True

    def unresolved(self):
        """A construction found the annotations unresolved: as upstream, the key may be
        defined again (the class keeps waiting until then)."""
        _RETRYABLE[self.key] = self.parent_info.type_index

    def abandon(self):
        _abandon(self.info, self.cls)
        _local_names.forget(self.cls)
        if self.cls.__dict__.get(_INFO_ATTR) is self.info:
            type.__delattr__(self.cls, _INFO_ATTR)

    def finish(self):
        cls, info, params, body = self.cls, self.info, self.params, self.body
        _RETRYABLE.pop(self.key, None)
        for name, ann in self.resolved.items():
            body[name].type = ann
        _check_body(cls, self.parent_info.type_index, body)
        for name in self.own_names:
            if name in cls.__dict__:
                delattr(cls, name)  # the field becomes a property of the type
        for f in body.values():
            f._ty_schema = _schema_of(f.type)
        # per class: the hooks below may change them for this class alone
        info._decorator_args = dict(params, structural_eq=self.structural_eq,
                                    field_markers=_protocol.place_markers(self.parent_info,
                                                                          self.owners))
        _protocol.run_fields_resolved_hooks(info, cls, list(body.values()))
        params, seq_kind = _read_back(info._decorator_args, params)
        kw_defaults = {name: params["kw_only"] or name in self.after_marker for name in body}

        def methods_and_hooks(tidx):
            _register_methods(tidx, cls)
            _register_hooks(info, cls)

        S.register_fields(info, body.values(), structural_eq_kind=seq_kind, doc=cls.__doc__,
                          kw_defaults=kw_defaults, before_columns=methods_and_hooks)
        setattr(cls, S.PY_CLASS_ATTR, True)
        user_init = cls.__dict__.get("__init__")
        _process(cls, info.type_key, params, body=(body, self.after_marker))
        if user_init is not None:
            cls.__init__ = _allocating_init(user_init, info.type_index)


def _mixins(cls):
    """The plain Python classes between cls and its nearest FFI base, base-most first."""
    plain = []
    for base in cls.__mro__[1:]:
        if base is object or base in _CLS_TYPE:
            break
        plain.append(base)
    return plain[::-1]


def _field_annotations(owner):
    """(name, annotation) of owner's own annotations that may declare fields."""
    return [(name, ann) for name, ann in _annotations(owner).items()
            if not _is_classvar(ann) and not _is_kw_only_marker(ann)]


def _supersede(key):
    """A waiting definition of ``key`` gives way to a new one (see _Definition.unresolved)."""
    for definition in list(_deferred._WAITING):
        if definition.key == key:
            _deferred.drop(definition, TypeError(
                "Cannot instantiate %s: type key `%s` was defined again by another class"
                % (definition.cls.__name__, key)))


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


def _schema_of(ann):
    """The TypeSchema a fields-resolved hook sees."""
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

    plain = _mixins(cls)
    merged, marker_seen = {}, False

    def unset(f):
        return f.kw_only is None or F._is_missing(f.kw_only)

    for base in plain:
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
        if _deferred.needs_resolution(f.type):
            continue  # (checked once it resolves)
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
