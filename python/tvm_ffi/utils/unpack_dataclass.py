"""unpack_dataclass_to_tuple: dataclass instances -> nested tuples an FFI call can take.

FFI functions receive tuples as ``Array``s, not Python dataclasses; this turns a (nested)
dataclass into the tuple of its field values in declaration order, recursing into fields that
are dataclasses, lists/tuples (element-wise, keeping the container type) and dict values (the
result is a plain dict).  Other
values are passed through unchanged (shallow: no copies of leaves).
"""

_FIELD_NAMES = {}  # dataclass type -> tuple of field names (fields() is slow)


def _names(cls):
    names = _FIELD_NAMES.get(cls)
    if names is None:
        import dataclasses  # noqa: PLC0415

        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def unpack_dataclass_to_tuple(x):
    """``Point(1, Size(2, 3))`` -> ``(1, (2, 3))``; non-dataclass values come back as they are."""
    tp = type(x)
    # a dataclass instance (dataclasses.is_dataclass without importing dataclasses)
    if tp in _FIELD_NAMES or hasattr(tp, "__dataclass_fields__"):
        return tuple(unpack_dataclass_to_tuple(getattr(x, n)) for n in _names(tp))
    if tp is list:
        return [unpack_dataclass_to_tuple(v) for v in x]
    if tp is tuple:
        return tuple(unpack_dataclass_to_tuple(v) for v in x)
    if isinstance(x, (list, tuple)):  # subclasses keep their type; NamedTuples take fields
        items = (unpack_dataclass_to_tuple(v) for v in x)
        return tp(*items) if hasattr(tp, "_fields") else tp(items)
    if isinstance(x, dict):
        return {k: unpack_dataclass_to_tuple(v) for k, v in x.items()}
    return x
