"""Structural equality and hashing through the runtime globals (ffi.StructuralEqual, ...)."""

from .core import _global


def structural_equal(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    return bool(_global("ffi.StructuralEqual")(lhs, rhs, map_free_vars, skip_tensor_content))


def structural_hash(value, map_free_vars=False, skip_tensor_content=False):
    return _global("ffi.StructuralHash")(value, map_free_vars, skip_tensor_content) & 0xFFFFFFFFFFFFFFFF


def get_first_structural_mismatch(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    return _global("ffi.GetFirstStructuralMismatch")(lhs, rhs, map_free_vars, skip_tensor_content)


class StructuralKey:
    """Wraps a value so that dict/set keys compare and hash structurally."""

    __slots__ = ("key", "_hash")

    def __init__(self, key):
        self.key = key
        self._hash = structural_hash(key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, StructuralKey) and structural_equal(self.key, other.key)
