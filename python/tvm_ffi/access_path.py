"""Access paths: where a sub-value sits inside a root value (``ffi.reflection.AccessPath``).

``get_first_structural_mismatch`` reports its result as a pair of paths.  A path is immutable;
each extension returns a new path whose ``parent`` is the old one.
"""

import json
from enum import IntEnum

from ._base import Object
from .registry import register_object

__all__ = ["AccessKind", "AccessStep", "AccessPath"]


class AccessKind(IntEnum):
    """Kind of one access step (the values of the C ABI)."""

    ATTR = 0
    ARRAY_ITEM = 1
    MAP_ITEM = 2
    ATTR_MISSING = 3
    ARRAY_ITEM_MISSING = 4
    MAP_ITEM_MISSING = 5


def _key_text(key):
    if isinstance(key, str):
        return json.dumps(key, ensure_ascii=False)
    return repr(key)


@register_object("ffi.reflection.AccessStep")
class AccessStep(Object):
    """One step of an access path: ``kind`` and ``key`` (attribute name, index or map key)."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError("AccessStep cannot be constructed directly; extend an AccessPath instead")

    def __repr__(self):
        kind, key = self.kind, self.key
        if kind == AccessKind.ATTR:
            return "." + str(key)
        if kind >= AccessKind.ATTR_MISSING:
            return "[<missing:%s>]" % _key_text(key)
        return "[%s]" % _key_text(key)


@register_object("ffi.reflection.AccessPath")
class AccessPath(Object):
    """Path from a root value to a sub-value; compare with ``==``, extend with the methods below."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise ValueError(
            "AccessPath can't be initialized directly. Use AccessPath.root() to create a path to "
            "the root object"
        )

    @staticmethod
    def root():
        """The empty path (depth 0)."""
        return AccessPath._root()

    def attr(self, attr_key):
        """This path followed by attribute ``attr_key``."""
        return self._attr(attr_key)

    def attr_missing(self, attr_key):
        """This path followed by attribute ``attr_key`` that does not exist."""
        return self._attr_missing(attr_key)

    def array_item(self, index):
        """This path followed by array element ``index``."""
        return self._array_item(index)

    def array_item_missing(self, index):
        """This path followed by array element ``index`` that does not exist."""
        return self._array_item_missing(index)

    def map_item(self, key):
        """This path followed by map entry ``key``."""
        return self._map_item(key)

    def map_item_missing(self, key):
        """This path followed by map entry ``key`` that does not exist."""
        return self._map_item_missing(key)

    def is_prefix_of(self, other):
        """Whether ``other`` starts with all the steps of this path (a path is its own prefix)."""
        return self._is_prefix_of(other)

    def to_steps(self):
        """The steps from the root, as an Array of AccessStep."""
        return self._to_steps()

    def __eq__(self, other):
        if not isinstance(other, AccessPath):
            return NotImplemented
        return self._path_equal(other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        # consistent with __eq__ (step-wise), not with identity
        h = hash(self.depth)
        for step in self.to_steps():
            try:
                key_hash = hash(step.key)
            except TypeError:
                key_hash = 0
            h = hash((h, int(step.kind), key_hash))
        return h

    def __repr__(self):
        return "<root>" + "".join(repr(s) for s in self.to_steps())

    __str__ = __repr__
