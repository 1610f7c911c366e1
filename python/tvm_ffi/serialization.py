"""JSON graph serialization through the runtime globals ffi.ToJSONGraphString / FromJSONGraphString."""
from ._function import _global



def to_json_graph_str(obj, metadata=None):
    return _global("ffi.ToJSONGraphString")(obj, metadata)


def from_json_graph_str(s):
    return _global("ffi.FromJSONGraphString")(s)
