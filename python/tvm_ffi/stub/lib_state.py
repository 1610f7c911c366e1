"""What the runtime knows: global function names and schemas, object types, fields, methods."""

import heapq

from .._base import _TYPE_CLS
from .._function import _global, _testing_first, _type_key_to_index
from .._type_schema import TypeSchema
from .._typeinfo import _lookup_or_register_type_info_from_type_key
from ..registry import get_global_func_metadata, list_global_func_names
from .utils import FuncInfo, ObjectInfo


def _func_info(name):
    """The ``FuncInfo`` of a global function; packed (``(*args: Any) -> Any``) when its
    ``type_schema`` metadata is absent or unreadable."""
    try:
        meta = get_global_func_metadata(name)
    except (RuntimeError, ValueError):
        meta = {}
    text = meta.get("type_schema") if isinstance(meta, dict) else None
    schema = TypeSchema("Callable")
    if text:
        try:
            schema = TypeSchema.from_json_str(text)
        except (ValueError, TypeError):
            pass
    return FuncInfo.from_schema(name, schema)


def collect_global_funcs():
    """``{namespace: [FuncInfo, sorted by name]}`` of every global function (``a.b`` for
    ``a.b.f``)."""
    out = {}
    for name in sorted(list_global_func_names()):
        if "." in name:
            out.setdefault(name.rpartition(".")[0], []).append(_func_info(name))
    return dict(sorted(out.items()))


def is_registered(type_key):
    return _type_key_to_index(type_key) is not None


def type_keys():
    _testing_first()
    return [k for k in _global("ffi.GetRegisteredTypeKeys")() if "." in k]


def collect_type_keys():
    """``{namespace: [type keys, sorted]}`` of every registered object type (``a.b`` for
    ``a.b.C``)."""
    out = {}
    for key in type_keys():
        out.setdefault(key.rpartition(".")[0], []).append(key)
    return {ns: sorted(keys) for ns, keys in sorted(out.items())}


def object_info_from_type_key(type_key):
    """The ``ObjectInfo`` of a registered type (KeyError when it is not registered)."""
    if _type_key_to_index(type_key) is None:
        raise KeyError(type_key)
    return ObjectInfo.from_type_info(_lookup_or_register_type_info_from_type_key(type_key))


def toposort_objects(objects):
    """``objects`` (ObjectInfo, or registered type keys, which are looked up) with every
    parent before its children: the least type key whose parent is already placed comes
    next, so a child follows its parent as closely as the order by type key allows."""
    infos = [object_info_from_type_key(o) if isinstance(o, str) else o for o in objects]
    keys = {o.type_key for o in infos}
    children: dict = {}
    ready = []
    for i, o in enumerate(infos):
        if o.parent_type_key in keys and o.parent_type_key != o.type_key:
            children.setdefault(o.parent_type_key, []).append(i)
        else:
            ready.append((o.type_key or "", i))
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(infos[i])
        for c in children.pop(infos[i].type_key, ()):
            heapq.heappush(ready, (infos[c].type_key or "", c))
    return out


def python_class(key):
    """The Python class registered for ``key`` (None when only a fallback would exist)."""
    tidx = _type_key_to_index(key)
    if tidx is None:
        return None
    cls = _TYPE_CLS.get(tidx)
    if cls is None or cls.__dict__.get("__tvm_ffi_fallback__") or "Auto-generated fallback" in (cls.__doc__ or ""):
        return None
    return cls
