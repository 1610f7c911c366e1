"""What the runtime knows: global function names and schemas, object types, fields, methods."""

import json

from .. import core
from ..registry import get_global_func_metadata, list_global_func_names
from . import schema as _schema
from .utils import ObjectInfo

_HAS_DEFAULT, _STATIC, _INIT_OFF, _KW_ONLY = 1 << 1, 1 << 2, 1 << 9, 1 << 10


def _text(ba):
    return core.ffi.unpack(ba.data, ba.size).decode("utf-8", "replace") if ba.size else ""


def _meta_schema(ba):
    text = _text(ba)
    if not text:
        return None
    try:
        meta = json.loads(text)
    except ValueError:
        return None
    return _schema.parse(meta.get("type_schema")) if isinstance(meta, dict) else None


def global_functions(prefix):
    """{short name: schema node or None} of the globals ``prefix.<name>`` (no deeper dots)."""
    out = {}
    for name in list_global_func_names():
        if not name.startswith(prefix + "."):
            continue
        short = name[len(prefix) + 1:]
        if not short or "." in short:
            continue
        try:
            meta = get_global_func_metadata(name)
        except (RuntimeError, ValueError):
            meta = {}
        out[short] = _schema.parse(meta.get("type_schema")) if isinstance(meta, dict) else None
    return dict(sorted(out.items()))


def global_namespaces():
    """Every namespace that holds at least one global function (``a.b`` for ``a.b.f``)."""
    return sorted({n.rpartition(".")[0] for n in list_global_func_names() if "." in n})


def type_keys():
    return [k for k in core._global("ffi.GetRegisteredTypeKeys")() if "." in k]


def collect_type_keys():
    """``{namespace: [type keys, sorted]}`` of every registered object type (``a.b`` for
    ``a.b.C``)."""
    out = {}
    for key in type_keys():
        out.setdefault(key.rpartition(".")[0], []).append(key)
    return {ns: sorted(keys) for ns, keys in sorted(out.items())}


def object_info_from_type_key(type_key):
    """The ``ObjectInfo`` of a registered type (KeyError when it is not registered)."""
    if core._type_key_to_index(type_key) is None:
        raise KeyError(type_key)
    return ObjectInfo.from_type_info(core._lookup_or_register_type_info_from_type_key(type_key))


class Field:
    __slots__ = ("name", "schema", "flags")

    def __init__(self, name, schema, flags):
        self.name, self.schema, self.flags = name, schema, flags

    @property
    def has_default(self):
        return bool(self.flags & _HAS_DEFAULT)

    @property
    def in_init(self):
        return not self.flags & _INIT_OFF

    @property
    def kw_only(self):
        return bool(self.flags & _KW_ONLY)


class Method:
    __slots__ = ("name", "schema", "is_static")

    def __init__(self, name, schema, is_static):
        self.name, self.schema, self.is_static = name, schema, is_static


class TypeRecord:
    """Reflection of one object type: key, ancestors (root first), own fields and methods."""

    def __init__(self, key):
        tidx = core._type_key_to_index(key)
        if tidx is None:
            raise KeyError(key)
        info = core.lib.TVMFFIGetTypeInfo(tidx)
        self.key, self.index = key, tidx
        self.ancestors = [core._type_key(info.type_ancestors[i].type_index)
                          for i in range(info.type_depth)]
        self.fields = [Field(_text(f.name), _meta_schema(f.metadata), f.flags)
                       for f in (info.fields[i] for i in range(info.num_fields))]
        self.methods = [Method(_text(m.name), _meta_schema(m.metadata), bool(m.flags & _STATIC))
                        for m in (info.methods[i] for i in range(info.num_methods))]
        self.auto_init = _has_type_attr(tidx, b"__ffi_init__")

    @property
    def parent(self):
        return self.ancestors[-1] if self.ancestors else None

    def init_fields(self):
        """Fields of the reflection-built constructor: ancestors' first, then own."""
        out = []
        for key in self.ancestors:
            if key not in ("ffi.Object",):
                try:
                    out += TypeRecord(key).fields
                except KeyError:
                    pass
        return [f for f in out + self.fields if f.in_init]


def _has_type_attr(tidx, name):
    ba, buf = core._bytearray(name)
    col = core.lib.TVMFFIGetTypeAttrColumn(ba)
    if col == core.ffi.NULL or not col.begin_index <= tidx < col.begin_index + col.size:
        return False
    return col.data[tidx - col.begin_index].type_index != 0


def python_class(key):
    """The Python class registered for ``key`` (None when only a fallback would exist)."""
    tidx = core._type_key_to_index(key)
    if tidx is None:
        return None
    cls = core._TYPE_CLS.get(tidx)
    if cls is None or cls.__dict__.get("__tvm_ffi_fallback__") or "Auto-generated fallback" in (cls.__doc__ or ""):
        return None
    return cls
