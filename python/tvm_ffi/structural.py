"""Structural equality, hashing and walking through the runtime globals (ffi.StructuralEqual, ...).

Structural equality is exact about kinds (``1`` differs from ``1.0`` and ``True``, an Array
from a List), compares containers element-wise, reflected objects field by field and tensors by
content.  ``map_free_vars=True`` lets free variables of the two sides correspond one-to-one.
"""

import inspect
from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from . import access_path as _access_path  # noqa: F401 - registers the AccessPath classes
from . import _type_index as T
from ._base import _CLS_TYPE, CObject, Object
from ._function import _global
from .registry import register_object

__all__ = [
    "DefRegionKind", "InplaceMode", "StructuralKey", "StructuralMutator", "StructuralVisitor",
    "VisitInterrupt", "WalkOrder", "WalkResult", "get_first_structural_mismatch",
    "structural_equal", "structural_hash", "structural_map", "structural_mutate",
    "structural_visit", "structural_walk",
]


class WalkOrder(IntEnum):
    """Whether a walk calls a value's callback before (pre) or after (post) its children."""

    PREORDER = 0
    POSTORDER = 1


class WalkResult(IntEnum):
    """What a pre-order callback asks for: visit the children (ADVANCE) or not (SKIP)."""

    ADVANCE = 0
    SKIP = 1


class InplaceMode(IntEnum):
    """Whether a structural mutation may change a uniquely owned value in place (ALLOW) or
    must copy on write (DISALLOW)."""

    DISALLOW = 0
    ALLOW = 1


class DefRegionKind(IntEnum):
    """Def-region state during a structural visit (``TVMFFIDefRegionKind``)."""

    NONE = 0
    DEF_PATTERN = 1
    DEF_SIMPLE = 2
    DEF_RECURSIVE = 1  # alias: the 0.1.13 names
    DEF_NON_RECURSIVE = 2  # alias


def structural_equal(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    """Whether lhs and rhs are structurally equal."""
    return _global("ffi.StructuralEqual")(lhs, rhs, bool(map_free_vars), bool(skip_tensor_content))


def structural_hash(value, map_free_vars=False, skip_tensor_content=False):
    """Structural hash of value as an unsigned 64-bit int, consistent with structural_equal."""
    h = _global("ffi.StructuralHash")(value, bool(map_free_vars), bool(skip_tensor_content))
    return h & 0xFFFFFFFFFFFFFFFF


def get_first_structural_mismatch(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    """``(lhs_path, rhs_path)`` of the first difference (AccessPath objects), or None if equal."""
    pair = _global("ffi.GetFirstStructuralMismatch")(
        lhs, rhs, bool(map_free_vars), bool(skip_tensor_content)
    )
    return None if pair is None else (pair[0], pair[1])


@register_object("ffi.StructuralKey")
class StructuralKey(Object):
    """Wraps a value so that dict/set keys (Python's and Map's) compare and hash structurally."""

    __slots__ = ()

    def __init__(self, key):
        self.__init_handle_by_constructor__(_global("ffi.StructuralKey"), key)

    def __hash__(self):
        return self.hash_i64 & 0xFFFFFFFFFFFFFFFF

    def __eq__(self, other):
        if not isinstance(other, StructuralKey):
            return NotImplemented
        return _global("ffi.StructuralKeyEqual")(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq


@register_object("ffi.VisitInterrupt")
class VisitInterrupt(Object):
    """Returned by a walk callback to stop the walk; the walk returns it, ``value`` included."""

    __slots__ = ()

    def __init__(self, value=None):
        self.__init_handle_by_constructor__(_global("ffi.VisitInterrupt"), value)


@register_object("ffi.StructuralVisitor")
class StructuralVisitor(Object):
    """State of a running walk, handed to ``__s_visit__`` hooks (not user-constructible)."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError("StructuralVisitor cannot be constructed; walks create it")

    def visit(self, value):
        """Visit ``value`` with the walk's callbacks; None, or the VisitInterrupt that stopped it."""
        return _global("ffi.StructuralVisitorVisit")(self, value)

    def default_visit(self, value):
        """Visit ``value``'s children (its default descent), bypassing the callback that
        matches ``value`` itself; None, or the VisitInterrupt that stopped it."""
        return _global("ffi.StructuralVisitorDefaultVisit")(self, value)

    def def_region_kind(self):
        """The def-region kind in effect."""
        return DefRegionKind(_global("ffi.StructuralVisitorDefRegionKind")(self))

    def with_def_region_kind(self, kind, callback):
        """Call ``callback()`` with the def-region kind set to ``kind``; returns its result."""
        return _global("ffi.StructuralVisitorWithDefRegionKind")(self, int(kind), callback)


@register_object("ffi.StructuralMutator")
class StructuralMutator(Object):
    """State of a running structural_mutate / structural_map, handed to callbacks."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise TypeError("StructuralMutator cannot be constructed; structural_mutate creates it")

    def mutate(self, value):
        """Mutate ``value`` with the mutator's callbacks (copy-on-write); the result."""
        return _global("ffi.StructuralMutatorMutate")(self, value)

    def default_mutate(self, value):
        """The registered/default mutation of ``value`` (children re-enter the callbacks)."""
        return _global("ffi.StructuralMutatorDefaultMutate")(self, value)

    def var_remap_get(self, var):
        """The replacement recorded for ``var``, or None."""
        return _global("ffi.StructuralMutatorVarRemapGet")(self, var)

    def var_remap_set(self, var, mapped_value):
        """Record ``mapped_value`` as the replacement of ``var``."""
        _global("ffi.StructuralMutatorVarRemapSet")(self, var, mapped_value)

    def def_region_kind(self):
        """The def-region kind in effect."""
        return DefRegionKind(_global("ffi.StructuralMutatorDefRegionKind")(self))

    def with_def_region_kind(self, kind, callback):
        """Call ``callback()`` with the def-region kind set to ``kind``; returns its result."""
        return _global("ffi.StructuralMutatorWithDefRegionKind")(self, int(kind), callback)


# ---- structural_walk: callback normalisation --------------------------------------------------

_BUILTIN_TYPE_INDEX = {type(None): T.kTVMFFINone, int: T.kTVMFFIInt, bool: T.kTVMFFIBool,
                       float: T.kTVMFFIFloat, str: T.kTVMFFIStr, bytes: T.kTVMFFIBytes}


def _type_index_of(tp, api_name):
    """FFI type index a callback type stands for (-1: every value)."""
    if tp is Any or tp is object:
        return -1
    if tp is None:
        return 0
    if isinstance(tp, type):
        if tp in _BUILTIN_TYPE_INDEX:
            return _BUILTIN_TYPE_INDEX[tp]
        for base in tp.__mro__:  # registered FFI classes (and their Python subclasses)
            tidx = _CLS_TYPE.get(base)
            if tidx is not None and base is not Object:
                return tidx
        for name, tidx in (("Shape", T.kTVMFFIShape), ("String", T.kTVMFFIStr),
                           ("Bytes", T.kTVMFFIBytes), ("dtype", T.kTVMFFIDataType),
                           ("DataType", T.kTVMFFIDataType), ("Device", T.kTVMFFIDevice)):
            if tp.__name__ == name and tp.__module__.startswith("tvm_ffi"):
                return tidx
        if tp is Object or tp is CObject:
            return T.kTVMFFIObject
    raise TypeError(
        "%s: callback type must be None, int, bool, float, str, bytes, typing.Any/object or an "
        "FFI-registered object class, got %r" % (api_name, tp)
    )


def _entries(callbacks, api_name):
    """[(type_index, callable)] from a callable, a (type, fn) / ((t1, t2), fn) entry or a
    sequence of such entries."""
    if callable(callbacks) and not isinstance(callbacks, type):
        return [(-1, callbacks)]
    if isinstance(callbacks, tuple) and len(callbacks) == 2 and callable(callbacks[1]) and (
        isinstance(callbacks[0], (type, tuple)) or callbacks[0] is Any or callbacks[0] is None
    ):
        items = [callbacks]
    elif isinstance(callbacks, Sequence) and not isinstance(callbacks, (str, bytes)):
        items = list(callbacks)
    else:
        raise TypeError(
            "%s: callbacks must be a callable, a (type, callback) entry or a sequence of such "
            "entries, got %r" % (api_name, type(callbacks).__name__)
        )
    out = []
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2 and callable(item[1])):
            raise TypeError("%s: each callback entry must be a (type, callback) tuple, got %r"
                            % (api_name, item))
        types = item[0] if isinstance(item[0], tuple) else (item[0],)
        out.extend((_type_index_of(t, api_name), item[1]) for t in types)
    return out


def _with_kind(fn):
    return lambda value, kind: fn(value, DefRegionKind(kind))


def _order_int(order, api_name):
    if isinstance(order, WalkOrder):
        return int(order)
    if order in ("pre", "post"):
        return 0 if order == "pre" else 1
    raise ValueError("%s: order must be 'pre', 'post' or a WalkOrder, got %r" % (api_name, order))


def structural_walk(root, callbacks=(), with_def_region_kind=(), order="post"):
    """Walk ``root`` (containers' elements, maps' values, objects' fields) and call, for each
    value, the first callback whose type matches.

    ``callbacks`` get ``(value)``; ``with_def_region_kind`` callbacks get ``(value, kind)``
    (a DefRegionKind).  Either is a callable (matches everything), a ``(type, fn)`` or
    ``((type1, type2), fn)`` entry, or a sequence of entries.  ``order`` is ``"pre"``,
    ``"post"`` (the default: children first) or a WalkOrder.  A pre-order callback returning
    WalkResult.SKIP skips the value's children; returning a VisitInterrupt stops the walk and
    returns it.  Returns None when the walk completed.
    """
    order_int = _order_int(order, "structural_walk")
    plain = _entries(callbacks, "structural_walk")
    kinded = [(t, _with_kind(fn)) for t, fn in _entries(with_def_region_kind, "structural_walk")]
    return _global("ffi.StructuralWalk")(root, plain, kinded, order_int)


def structural_visit(root, callbacks=()):
    """Visit ``root`` with callbacks that own their descent.

    The first callback whose type matches a value is called as ``(value, visitor)`` and
    decides what to visit next: ``visitor.visit(child)`` for chosen children,
    ``visitor.default_visit(value)`` for all of them, nothing to prune.  A value no callback
    matches has its children visited.  Returns None, or the VisitInterrupt a callback returned.
    """
    entries = _entries(callbacks, "structural_visit")
    return _global("ffi.StructuralVisit")(root, entries)


def _accepts_inplace_mode(fn):
    """Whether a structural_mutate callback takes the optional third ``inplace_mode``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False  # builtins without a signature get (value, mutator)
    try:
        sig.bind(None, None, InplaceMode.DISALLOW)
        return True
    except TypeError:
        pass
    try:
        sig.bind(None, None)
    except TypeError as err:
        raise TypeError("structural_mutate callback must accept (value, mutator) or "
                        "(value, mutator, inplace_mode), got %r" % (fn,)) from err
    return False


def structural_mutate(root, callbacks=()):
    """Mutate ``root`` with callbacks that own their recursion.

    The first callback whose type matches a value is called as ``(value, mutator)`` (or
    ``(value, mutator, inplace_mode)`` when it accepts three arguments) and returns the
    value's replacement, final as it is; it recurses through ``mutator.mutate(child)`` or
    ``mutator.default_mutate(value)``.  Unmatched values get the registered/default mutation:
    containers and reflected objects are rebuilt only where something changed.  Passing
    ``root._move()`` lets uniquely owned values change in place.  Returns the result.
    """
    entries = [(t, fn, _accepts_inplace_mode(fn))
               for t, fn in _entries(callbacks, "structural_mutate")]
    return _global("ffi.StructuralMutate")(root, entries)


def structural_map(root, callbacks=(), with_def_region_kind=(), order="post"):
    """Map ``root`` with typed replacement callbacks: each value becomes
    ``post(default_descent(pre(value)))``.

    Callbacks take ``(value)`` (``with_def_region_kind`` ones ``(value, kind)``) and return
    the value or its replacement; they must not change their input.  In post-order (the
    default) a callback sees the value with its children already mapped.  Containers and
    objects are copied only along changed paths (``root._move()`` allows in-place changes of
    uniquely owned values); free variables and DAG nodes map once per walk.
    """
    order_int = _order_int(order, "structural_map")
    plain = _entries(callbacks, "structural_map")
    kinded = [(t, _with_kind(fn)) for t, fn in _entries(with_def_region_kind, "structural_map")]
    return _global("ffi.StructuralMap")(root, plain, kinded, order_int)
