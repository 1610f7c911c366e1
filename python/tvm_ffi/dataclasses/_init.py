"""The generated ``__init__`` of FFI dataclasses.

Parameters come from the init fields: positional ones without a default first, then those
with one, then the keyword-only ones (so C++ base fields with defaults never block required
derived ones; the runtime's generated ``__ffi_init__`` orders them the same way).

The object is built by the type's own constructor when it has one, else by reflection:
  - a generated, keyword-capable ``__ffi_init__`` (type attribute only, ``ffi._RegisterFFIInit``)
    gets every value by name after the KWARGS sentinel; unset ones take the C++ defaults and
    InitOff fields keep what the creator stored;
  - a typed constructor (a ``__ffi_init__`` method, C++ ``refl::init<...>``) gets the init
    fields positionally in declaration order, defaults filled in;
  - otherwise ``ffi.MakeObjectFromPackedArgs`` assigns the fields by name.
Fields with ``init=False`` and a class-body default are assigned after construction.
"""

import inspect
import keyword

from .. import _sentinels, _typeinfo
from . import _fields as F
from .._base import _CLS_TYPE, _TYPE_CLS
from .._function import _global
from ._fields import MISSING
from ._init_property import compute as compute_init_properties


def _constructor(info):
    """(mode, constructor) for the type: 'keyword', 'positional', 'make' or 'none'."""
    for m in info.methods:
        if m.name == "__ffi_init__":
            return "positional", m.func
    ctor = _typeinfo._lookup_type_attr(info.type_index, "__ffi_init__")
    if ctor is not None:
        return "keyword", ctor
    if info.has_creator or _typeinfo._lookup_type_attr(info.type_index, "__ffi_new__") is not None:
        return "make", _global("ffi.MakeObjectFromPackedArgs")
    return "none", None


def _py_default(f):
    """The class-body default value or factory of f, or None when it has none of its own."""
    d, fac = F.c_default_of(f)
    if not f.has_default or (f.default is d and f.default_factory is fac):
        return None
    return f


def _default_value(f):
    return f.default_factory() if F._is_missing(f.default) else f.default


def _check_type(self, cls, tidx):
    """A subclass registered for another type must not run this type's constructor."""
    t = type(self)
    if t is not cls and _CLS_TYPE.get(t, tidx) != tidx:
        raise TypeError("%s.__init__ cannot construct %s (registered for another type); "
                        "define %s.__init__" % (cls.__name__, t.__name__, t.__name__))


_DYN_OBJECT_BEGIN = 128


def _enum_member_of(f, value):
    """The member an IntEnum/StrEnum-typed field means by a plain int or str, else value."""
    from ._enum_define import payload_member  # noqa: PLC0415 - enum imports c_class

    target = _TYPE_CLS.get(f._c.value_type_index)
    member = payload_member(target, value) if target is not None else None
    return value if member is None else member


def _builder(cls, info, fields):
    """build(self, values): construct self from the init fields' values (MISSING = not given)."""
    tidx, key = info.type_index, info.type_key
    init_fields = [f for f in fields if f.init]
    extras = [f for f in fields if not f.init and _py_default(f) is not None]
    mode, ctor = _constructor(info)
    by_name = {f.name: f for f in fields}
    # A default left out (MISSING) goes to the runtime when it holds that very default: a C++
    # one (value or factory), or a py_class body's, which is registered with the field (so
    # a default the annotation refuses fails as "default for field 'x'", as upstream);
    # otherwise, and for typed constructors (positional), the value is filled in here.
    py_class = cls.__dict__.get("__tvm_ffi_py_class__", False)
    runtime_default = [mode != "positional" and f.has_default and _runtime_holds(f, py_class)
                       for f in init_fields]

    # fields of a user-defined object type: an IntEnum/StrEnum one takes its members' values
    object_typed = [f._c.value_type_index >= _DYN_OBJECT_BEGIN for f in init_fields]
    def build(self, values):
        if py_class and self._h:
            return  # super().__init__() from a subclass's own __init__: already built
        _check_type(self, cls, tidx)
        vals = []
        for f, v, by_runtime, obj in zip(init_fields, values, runtime_default, object_typed):
            if v is MISSING:
                if f.has_default and not by_runtime:
                    v = _default_value(f)
            elif obj and isinstance(v, (int, str)):
                v = _enum_member_of(f, v)
            vals.append(v)
        if mode == "keyword":
            flat = [_sentinels.KWARGS]
            for f, v in zip(init_fields, vals):
                if v is not MISSING:
                    flat += (f.name, v)
            self.__init_handle_by_constructor__(ctor, *flat)
        elif mode == "positional":
            self.__init_handle_by_constructor__(ctor, *vals)
        elif mode == "make":
            flat = [key]
            for f, v in zip(init_fields, vals):
                if v is not MISSING:
                    flat += (f.name, v)
            for f in extras:
                flat += (f.name, _default_value(f))
            self.__init_handle_by_constructor__(ctor, *flat)
        else:
            raise TypeError("`%s` cannot be constructed directly. Define a custom __init__ or "
                            "use a factory method." % cls.__name__)
        if mode != "make":
            for f in extras:
                f._c.setter(self, _default_value(f))
        compute_init_properties(self, by_name)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    return build


def _runtime_holds(f, py_class):
    """Whether the runtime's record of field f has f's own default."""
    c_value, c_factory = F.c_default_of(f)
    if F._is_missing(f.default):
        return f.default_factory is c_factory
    return f._c.c_has_default and (py_class or f.default is c_value)


def _required_first(fs):
    return [f for f in fs if not f.has_default] + [f for f in fs if f.has_default]


def _ordered(fields):
    """(positional parameters, keyword-only ones): each group required first, as upstream."""
    init_fields = [f for f in fields if f.init]
    return (_required_first([f for f in init_fields if not f.kw_only]),
            _required_first([f for f in init_fields if f.kw_only]))


def _sig_default(f):
    """A defaulted parameter shows core.MISSING: "left out", filled by the runtime or build."""
    return MISSING if f.has_default else inspect.Parameter.empty


def _valid_name(n):
    return n.isidentifier() and not keyword.iskeyword(n)


def make_init(cls, info, fields):
    """The ``__init__`` function for cls: binds its arguments by hand with upstream's wording
    (``key.__ffi_init__() missing required argument: 'a'``) and shows a real signature."""
    build = _builder(cls, info, fields)
    positional, kw_only = _ordered(fields)
    names = [f.name for f in fields if f.init]
    init = _make_init_by_hand(info.type_key, build, names, positional, kw_only)
    if all(_valid_name(n) and n != "self" for n in names):
        P = inspect.Parameter
        init.__signature__ = inspect.Signature(
            [P("self", P.POSITIONAL_OR_KEYWORD)]
            + [P(f.name, P.POSITIONAL_OR_KEYWORD, default=_sig_default(f)) for f in positional]
            + [P(f.name, P.KEYWORD_ONLY, default=_sig_default(f)) for f in kw_only])
    mode, ctor = _constructor(info)
    if mode == "positional":
        init = _typed_ctor_keywords(init, ctor)
    init.__name__ = "__init__"
    init.__qualname__ = "%s.__init__" % cls.__qualname__
    init.__module__ = cls.__module__
    return init


def _typed_ctor_keywords(init, ctor):
    """A typed C++ constructor (refl::init<...>) takes no keywords; keyword calls reach it as
    KWARGS + pairs, as upstream's c_class does, so it raises its own argument-count error."""
    sig = inspect.signature(init) if hasattr(init, "__code__") else None

    def __init__(self, /, *args, **kwargs):
        if not kwargs:
            return init(self, *args)
        flat = [_sentinels.KWARGS]
        for k, v in kwargs.items():
            flat += (k, v)
        self.__init_handle_by_constructor__(ctor, *args, *flat)
        return None

    if sig is not None:
        __init__.__signature__ = sig
    return __init__


def _make_init_by_hand(type_key, build, names, positional, kw_only):
    """``__init__(self, /, *args, **kwargs)`` binding as a signature would (a field may be
    named ``self`` or like a keyword), raising the errors of upstream's generated
    ``__ffi_init__``: too many positional arguments, then each keyword in turn, then the
    first missing argument."""
    pos_names = [f.name for f in positional]
    kw_names = {f.name for f in kw_only}
    defaults = {f.name: _sig_default(f) for f in positional + kw_only}
    where = "%s.__ffi_init__()" % type_key
    empty = inspect.Parameter.empty

    def __init__(self, /, *args, **kwargs):
        if len(args) > len(pos_names):
            raise TypeError("%s takes at most %d positional argument(s), but %d were given"
                            % (where, len(pos_names), len(args)))
        values = dict(zip(pos_names, args))
        for k, v in kwargs.items():
            if k not in defaults:
                raise TypeError("%s got an unexpected keyword argument '%s'" % (where, k))
            if k in values:
                raise TypeError("%s got multiple values for argument '%s'" % (where, k))
            values[k] = v
        for n, d in defaults.items():
            if n not in values:
                if d is empty:
                    raise TypeError("%s missing required %sargument: '%s'"
                                    % (where, "keyword-only " if n in kw_names else "", n))
                values[n] = d
        build(self, tuple(values[n] for n in names))

    return __init__
