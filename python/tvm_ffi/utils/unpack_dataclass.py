"""unpack_dataclass_to_tuple: dataclass instances -> nested tuples an FFI call can take.

FFI functions receive tuples as ``Array``s, not Python dataclasses; this turns a (nested)
dataclass into the tuple of its field values in declaration order, recursing into fields that
are dataclasses, lists/tuples (element-wise, keeping the container type) and dict values (the
result is a plain dict).  Other values are passed through unchanged (shallow: no copies of
leaves).

Speed: the first value of each type picks that type's converter, kept in ``_BY_TYPE``: the
identity for leaves, and for a dataclass a generated function, one tuple expression that reads
every field.  The field annotations decide what the expression does with a field: a field
declared as a leaf type (``int``, ``str``, ``Optional[float]``, ``tuple[int, ...]``, ...) is
read as it is, one declared as a dataclass is unpacked inline, anything else (``Any``, ``list``,
unknown classes, unresolvable annotations) goes through ``unpack_dataclass_to_tuple`` again.
The annotations are trusted as upstream's package trusts them: an ``int`` field holding a
dataclass is passed through as it is.
"""

_BY_TYPE = {}  # type -> converter of its instances


def _identity(x):
    return x


_LEAF_TYPES = frozenset((int, float, str, bool, bytes, complex, type(None)))


def _is_leaf_type(tp, typing):
    """Whether values declared as ``tp`` can hold nothing to unpack."""
    # (before 3.11 a parameterised builtin such as dict[str, int] passes isinstance(tp, type))
    if isinstance(tp, type) and typing.get_origin(tp) is None:
        return tp in _LEAF_TYPES
    if tp is Ellipsis:
        return True
    import types  # noqa: PLC0415

    # containers whose arguments say everything they hold (list is not one: it becomes a list
    # of converted elements), and unions (typing.Union, `int | None`)
    if typing.get_origin(tp) in (tuple, dict, set, frozenset, typing.Union,
                                 getattr(types, "UnionType", typing.Union)):
        args = typing.get_args(tp)
        return bool(args) and all(_is_leaf_type(a, typing) for a in args)
    return False


UNPACK = "unpack"  # a field converted at run time (the schema's word for it)


def _field_kind(tp, seen, dataclasses, typing):
    """What a field declared as ``tp`` needs: None (read as it is), UNPACK (converted at run
    time) or the dataclass type to unpack inline."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and tp not in seen:
        return tp
    if _is_leaf_type(tp, typing):
        return None
    return UNPACK


def _hints(cls, typing):
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations: every field is dynamic
        return {}


def _field_expr(expr, tp, seen, dataclasses, typing):
    """Python source that converts ``expr``, a field declared as ``tp``."""
    kind = _field_kind(tp, seen, dataclasses, typing)
    if kind is None:
        return expr
    if kind is UNPACK:
        return "_unpack(%s)" % expr
    return _tuple_expr(expr, kind, seen | {kind}, dataclasses, typing)


def _extract_dataclass_to_tuple_schema(cls, _seen=frozenset()):
    """The plan the generated converter of dataclass ``cls`` follows, per field: None (read as
    it is), "unpack" (converted at run time) or the nested plan of a dataclass field."""
    import dataclasses  # noqa: PLC0415
    import typing  # noqa: PLC0415

    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError("Expected a dataclass class, got %r" % (cls,))
    seen = _seen | {cls}
    hints = _hints(cls, typing)
    plan = {}
    for f in dataclasses.fields(cls):
        kind = _field_kind(hints.get(f.name), seen, dataclasses, typing)
        plan[f.name] = _extract_dataclass_to_tuple_schema(kind, seen) \
            if isinstance(kind, type) else kind
    return plan


def _validate_dataclass_to_tuple_schema(schema):
    """TypeError/ValueError unless ``schema`` is such a plan whose keys are field names."""
    import keyword  # noqa: PLC0415

    if not isinstance(schema, dict):
        raise TypeError("a dataclass-to-tuple schema must be a dict, got %s"
                        % type(schema).__name__)
    for name, sub in schema.items():
        if not isinstance(name, str):
            raise TypeError("schema key %r must be a string" % (name,))
        if not name.isidentifier():
            raise ValueError("schema key %r is not a valid Python identifier" % name)
        if keyword.iskeyword(name):
            raise ValueError("schema key %r is a Python keyword" % name)
        if isinstance(sub, dict):
            _validate_dataclass_to_tuple_schema(sub)
        elif sub is not None and sub != UNPACK:
            raise ValueError("schema value for %r must be None, %r or a nested schema, got %r"
                             % (name, UNPACK, sub))


def _tuple_expr(expr, cls, seen, dataclasses, typing):
    hints = _hints(cls, typing)
    parts = []
    for f in dataclasses.fields(cls):
        if not f.name.isidentifier():  # only identifiers reach the generated source
            raise ValueError("dataclass field name %r is not an identifier" % (f.name,))
        parts.append(_field_expr("%s.%s" % (expr, f.name), hints.get(f.name), seen,
                                 dataclasses, typing))
    return "(%s)" % "".join(p + ", " for p in parts)


def _compile(cls):
    """The converter of a dataclass type's instances: one generated tuple expression."""
    import dataclasses  # noqa: PLC0415 - not needed by import tvm_ffi
    import typing  # noqa: PLC0415

    src = "def unpack(x):\n    return %s\n" % _tuple_expr("x", cls, {cls}, dataclasses, typing)
    namespace = {}
    exec(compile(src, "<unpack %s>" % cls.__qualname__, "exec"),  # noqa: S102
         {"_unpack": unpack_dataclass_to_tuple}, namespace)
    return namespace["unpack"]


def _unpack_list(x):
    return [unpack_dataclass_to_tuple(v) for v in x]


def _unpack_tuple(x):
    return tuple([unpack_dataclass_to_tuple(v) for v in x])


def _unpack_dict(x):
    return {k: unpack_dataclass_to_tuple(v) for k, v in x.items()}


_BY_TYPE.update({list: _unpack_list, tuple: _unpack_tuple, dict: _unpack_dict})
for _tp in _LEAF_TYPES:
    _BY_TYPE[_tp] = _identity


def _converter(tp):
    if hasattr(tp, "__dataclass_fields__") and isinstance(tp, type):
        return _compile(tp)
    if issubclass(tp, (list, tuple)):  # subclasses keep their type; NamedTuples take fields
        if hasattr(tp, "_fields"):
            return lambda x: tp(*[unpack_dataclass_to_tuple(v) for v in x])
        return lambda x: tp([unpack_dataclass_to_tuple(v) for v in x])
    if issubclass(tp, dict):
        return _unpack_dict
    return _identity


def unpack_dataclass_to_tuple(x):
    """``Point(1, Size(2, 3))`` -> ``(1, (2, 3))``; non-dataclass values come back as they are."""
    fn = _BY_TYPE.get(type(x))
    if fn is None:
        fn = _BY_TYPE[type(x)] = _converter(type(x))
    return fn(x)
