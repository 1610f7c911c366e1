"""``py_class``: define a new FFI object type from a Python class body.

The type goes into the runtime's type table like a C++ one: every annotated field becomes a
reflected field stored as a 16-byte Any (getter/setter from ``ffi.MakeFieldGetter`` /
``ffi.MakeFieldSetter``; the setter checks values against the annotation, so C++ writers are
checked too), ``field()`` options become the field flags (InitOff, KwOnly, ReprOff,
CompareOff, HashOff, defaults and factories), methods marked with ``tvm_ffi.method`` become
reflected methods, and ``ffi._PyClassRegisterTypeAttrColumns`` installs ``__ffi_new__``,
``__ffi_shallow_copy__`` and the generated ``__ffi_init__``. The class then gets the
``c_class`` dunders. Instances can be passed to, stored and built by C/C++ code.

A py_class may extend ``tvm_ffi.Object`` or another py_class (C++ types have their own
layouts, which a Python subclass cannot extend).
"""

import json
import types
import typing

from .. import core
from . import _fields as F
from . import _local_names
from ._enum_define import payload_member
from ._method import method_spec
from .c_class import _class_body_fields, _process, precheck

PY_CLASS_ATTR = "__tvm_ffi_py_class__"

_HEADER = 24
_SLOT = 16
_SETTER_IS_FUNCTION = 1 << 11
_FLAG_BITS = (("init", 1 << 9, False), ("repr", 1 << 6, False), ("compare", 1 << 7, False))


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
    seq_kind = STRUCTURAL_EQ_KINDS[structural_eq]
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if isinstance(type_key, type):  # bare @py_class
        return _define(type_key, None, params, seq_kind)
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError("py_class: type_key must be a string, got %s" % type(type_key).__name__)
    return lambda cls: _define(cls, type_key, params, seq_kind)


def _as_object_class(cls):
    """cls itself if it derives from tvm_ffi.Object, else the same body on top of Object."""
    if issubclass(cls, core.Object):
        return cls
    if cls.__bases__ != (object,):
        raise TypeError("py_class %s: bases must be tvm_ffi.Object or py_class types, got %s"
                        % (cls.__name__, ", ".join(b.__name__ for b in cls.__bases__)))
    ns = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    ns["__qualname__"] = cls.__qualname__  # a type slot, not in __dict__
    return type(cls.__name__, (core.Object,), ns)


def _is_enum_base(tidx):
    # the runtime's Enum bases are the C types a Python class may extend (enum.py)
    return core._type_key(tidx) in ("ffi.Enum", "ffi.IntEnum", "ffi.StrEnum")


def _parent_index(cls):
    for base in cls.__mro__[1:]:
        tidx = core._CLS_TYPE.get(base)
        if tidx is None:
            continue
        if tidx != 64 and PY_CLASS_ATTR not in base.__dict__ and not _is_enum_base(tidx):
            raise TypeError("py_class %s: cannot extend `%s`, a type defined in C/C++; extend "
                            "tvm_ffi.Object or another py_class"
                            % (cls.__name__, core._type_key(tidx)))
        return tidx
    return 64


def _define(cls, type_key, params, seq_kind=1):
    if not isinstance(cls, type):
        raise TypeError("py_class must decorate a class, got %r" % (cls,))
    cls = _as_object_class(cls)
    key = type_key or "%s.%s" % (cls.__module__, cls.__qualname__)
    if core._type_key_to_index(key) is not None:
        raise ValueError("py_class %s: type key `%s` is already registered (type keys are "
                         "process-wide and cannot be redefined)" % (cls.__name__, key))
    parent = _parent_index(cls)
    precheck(cls, params)
    body, after_marker = _class_body_fields(cls)
    rules = _check_body(cls, parent, body)  # before the type exists: a bad body leaves no trace
    pinfo = core.lib.TVMFFIGetTypeInfo(parent)
    parent_size = _HEADER if parent == 64 else int(pinfo.metadata.total_size)
    tidx = core._global("ffi._PyClassAllocTypeIndex")(key, parent)
    total = parent_size + _SLOT * len(body)
    md = core.ffi.new("TVMFFITypeMetadata*")
    doc = (cls.__doc__ or "").encode()
    md_doc = core.ffi.new("char[]", doc)
    md.doc.data, md.doc.size = md_doc, len(doc)
    md.total_size = total
    md.structural_eq_hash_kind = seq_kind
    core._check(core.lib.TVMFFITypeRegisterMetadata(tidx, md))
    for i, (name, f) in enumerate(body.items()):
        kw = params["kw_only"] or name in after_marker
        _register_field(tidx, key, name, f, parent_size + _SLOT * i, kw, rules[name])
    _register_methods(tidx, cls)
    _register_hooks(tidx, cls)
    core._global("ffi._PyClassRegisterTypeAttrColumns")(tidx, total)
    setattr(cls, PY_CLASS_ATTR, True)
    _local_names.remember(cls)
    return _process(cls, key, params, body=(body, after_marker))


# ---------------------------------------------------------------------------------------------
# fields


def _check_body(cls, parent, body):
    """Annotation rules per field; TypeError for shadowed fields and ill-typed defaults."""
    from .. import _typeinfo  # noqa: PLC0415

    for attr, value in cls.__dict__.items():
        if isinstance(value, classmethod) and method_spec(value.__func__) is not None:
            raise TypeError("py_class %s: method `%s` is marked for the FFI but wrapped by "
                            "@classmethod (FFI calls pass the instance first); use "
                            "@staticmethod" % (cls.__name__, attr))
    inherited = {f.name for f in _typeinfo._type_info_of_index(parent).all_fields()}
    rules = {}
    for name, f in body.items():
        if name in inherited:
            raise TypeError("py_class %s: field `%s` is already defined by a parent type"
                            % (cls.__name__, name))
        # a default the annotation refuses is not an error yet: like upstream, construction
        # converts it through the field's setter and raises there
        rules[name] = _annotation_rules(f.type)
    return rules


def _register_field(tidx, key, name, f, offset, kw_only_default, rules):
    sti, schema, check = rules
    flags = 1 | _SETTER_IS_FUNCTION  # Writable; frozen-ness is a Python-side matter
    for attr, bit, off_value in _FLAG_BITS:
        if getattr(f, attr) == off_value:
            flags |= bit
    hashed = f.hash if f.hash is not None else f.compare
    if not hashed:
        flags |= 1 << 8
    flags |= F.FIELD_STRUCTURAL_EQ[f.structural_eq]
    kw = f.kw_only if not F._is_missing(f.kw_only) else kw_only_default
    if kw:
        flags |= 1 << 10
    keep = []  # buffers and wrappers that must outlive the registration call
    fi = core.ffi.new("TVMFFIFieldInfo*")
    for slot, text in (("name", name), ("doc", f.doc or ""),
                       ("metadata", json.dumps({"type_schema": json.dumps(schema)}))):
        data = text.encode()
        cbuf = core.ffi.new("char[]", data)
        keep.append(cbuf)
        getattr(fi, slot).data, getattr(fi, slot).size = cbuf, len(data)
    fi.flags = flags
    fi.size, fi.alignment, fi.offset = _SLOT, 8, offset
    fi.field_static_type_index = sti
    fi.getter = core.ffi.cast("TVMFFIFieldGetter", core._global("ffi.MakeFieldGetter")(sti))
    convert = core.convert_func(_converter(key, name, check)) if check is not None else None
    setter = core._global("ffi.MakeFieldSetter")(sti, 0, convert)
    fi.setter = core.ffi.cast("void*", setter._h)
    keep.append(setter)
    if f.has_default:
        fi.flags |= 2
        if F._is_missing(f.default):
            fi.flags |= 32  # DefaultFromFactory: the runtime calls it per object
            value = core.convert_func(f.default_factory)
        else:
            value = f.default
            if check is not None:
                try:
                    value = check(value)
                except TypeError:
                    pass  # stored as given; the setter refuses it when an object is built
        core._to_owned_any(value, core.ffi.addressof(fi, "default_value_or_factory"))
    try:
        core._check(core.lib.TVMFFITypeRegisterField(tidx, fi))
    finally:
        dv = fi.default_value_or_factory
        if dv.type_index >= 64:
            core._decref(core._addr(dv.v_obj))
        dv.type_index = 0
    del keep


def _converter(key, name, check):
    def convert(value):
        try:
            return check(value)
        except TypeError as e:
            raise TypeError("field '%s' of `%s`: %s" % (name, key, e)) from None

    convert.__name__ = "convert_%s" % name
    return convert


# Annotation -> (static type index, schema type key, check) for the plain types.
def _scalar_rules():
    from ..container import Array, Dict, List, Map  # noqa: PLC0415 - container imports us

    def exact(kind, accept, conv):
        def check(v):
            if isinstance(v, accept):
                return conv(v)
            raise TypeError("expected %s, got %s" % (kind, type(v).__name__))

        return check

    seq, mapping = (Array, List), (Map, Dict)
    return {
        int: (1, "int", exact("int", int, int)),
        float: (3, "float", exact("float", (int, float), float)),
        bool: (2, "bool", exact("bool", bool, bool)),
        str: (65, "ffi.String", exact("str", str, str)),
        bytes: (66, "ffi.Bytes", exact("bytes", (bytes, bytearray), bytes)),
        list: (-1, "ffi.Array", exact("a sequence (Array or List)", seq, lambda v: v)),
        tuple: (71, "ffi.Array", exact("a sequence (Array or List)", seq, lambda v: v)),
        dict: (-1, "ffi.Map", exact("a mapping (Map or Dict)", mapping, lambda v: v)),
        Array: (71, "ffi.Array", exact("Array", Array, lambda v: v)),
        List: (75, "ffi.List", exact("List", List, lambda v: v)),
        Map: (72, "ffi.Map", exact("Map", Map, lambda v: v)),
        Dict: (76, "ffi.Dict", exact("Dict", Dict, lambda v: v)),
    }


def _annotation_rules(ann):
    """(static type index, JSON schema, check or None) of a field annotation."""
    if ann is None or ann is typing.Any or ann is object or isinstance(ann, str):
        return -1, {"type": "Any"}, None  # string annotations are not evaluated
    origin = typing.get_origin(ann)
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        args = typing.get_args(ann)
        opts = [a for a in args if a is not type(None)]
        rules = [_annotation_rules(a) for a in opts]
        optional = len(opts) < len(args)
        if len(rules) == 1:
            schema = rules[0][1]
        else:
            schema = {"type": "Variant", "args": [r[1] for r in rules]}
        if optional:
            schema = {"type": "Optional", "args": [schema]}
        checks = [r[2] for r in rules]
        if any(c is None for c in checks):
            return -1, schema, None
        names = " | ".join(getattr(a, "__name__", str(a)) for a in args)

        def check_union(v):
            if v is None and optional:
                return None
            for c in checks:
                try:
                    return c(v)
                except TypeError:
                    pass
            raise TypeError("expected %s, got %s" % (names, type(v).__name__))

        sti = rules[0][0] if len(rules) == 1 and not optional else -1
        return sti, schema, check_union
    base = origin if origin is not None else ann
    scalar = _scalar_rules().get(base)
    if scalar is not None:
        sti, key, check = scalar
        return sti, {"type": key}, check
    if isinstance(base, type) and issubclass(base, core.CObject):
        tidx = core._CLS_TYPE.get(base)
        if tidx is None:
            return -1, {"type": "Any"}, None
        tkey = core._type_key(tidx)

        def check_obj(v):
            if isinstance(v, base):
                return v
            member = payload_member(base, v)  # an IntEnum/StrEnum member named by its value
            if member is not None:
                return member
            raise TypeError("expected %s, got %s" % (tkey, type(v).__name__))

        return tidx, {"type": tkey}, check_obj
    return -1, {"type": "Any"}, None


# ---------------------------------------------------------------------------------------------
# methods

# Methods of these names in a class body become the type's hooks (type attributes) that
# ffi.RecursiveEq/Hash/Lt..., ffi.ReprPrint and the dataclass dunders consult, with the
# signatures (self, other, fn_eq) -> bool, (self, fn_hash) -> int, (self, other, fn_cmp) -> int
# and (self, fn_repr) -> str.
_HOOK_NAMES = ("__ffi_eq__", "__ffi_hash__", "__ffi_compare__", "__ffi_repr__")


def _register_hooks(tidx, cls):
    for name in _HOOK_NAMES:
        func = cls.__dict__.get(name)
        if func is None:
            continue
        if not callable(func):
            raise TypeError("py_class %s: %s must be a function, got %r"
                            % (cls.__name__, name, func))
        fobj = core.convert_func(func)
        ba, buf = core._bytearray(name.encode())
        value = core.ffi.new("TVMFFIAny*")
        value.type_index = 68
        value.v_obj = core.ffi.cast("TVMFFIObject*", fobj._h)
        core._check(core.lib.TVMFFITypeRegisterAttr(tidx, ba, value))


def _register_methods(tidx, cls):
    for attr, value in list(cls.__dict__.items()):
        func = value.__func__ if isinstance(value, staticmethod) else value
        spec = method_spec(func) if callable(func) else None
        if spec is None or spec["name"] in _HOOK_NAMES:
            continue  # (hooks become type attributes, see _register_hooks)
        fobj = core.convert_func(func)
        mi = core.ffi.new("TVMFFIMethodInfo*")
        keep = []
        for slot, text in (("name", spec["name"]), ("doc", spec["doc"] or ""),
                           ("metadata", "{}")):
            data = text.encode()
            cbuf = core.ffi.new("char[]", data)
            keep.append(cbuf)
            getattr(mi, slot).data, getattr(mi, slot).size = cbuf, len(data)
        mi.flags = 4 if isinstance(value, staticmethod) else 0
        mi.method.type_index = 68
        mi.method.v_obj = core.ffi.cast("TVMFFIObject*", fobj._h)
        core._check(core.lib.TVMFFITypeRegisterMethod(tidx, mi))
        del keep
