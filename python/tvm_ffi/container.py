"""Array, List, Map, Dict: FFI containers with Python's sequence and mapping protocols."""

import collections.abc
import itertools
import operator

from . import _type_index as T
from ._base import (
    CObject,
    Object,
    _ContainerBase,
    _field_writer,
    _register_class,
    _seal_slot,
)
from ._function import _global, _sentinel
from ._loader import API_MODE


def _g(name):
    return _global(name)


class CContainerBase(*((Object, _ContainerBase) if API_MODE else (Object,))):
    """Base of the four containers; _tvm_api tags results of calls that had framework tensors."""

    __slots__ = () if API_MODE else ("_tvm_api",)  # (API mode: `_tvm_api` is the C base's)

    def __new__(cls, *args, **kwargs):
        self = Object.__new__(cls)
        _set_api(self, None)
        return self

    def __eq__(self, other):
        if isinstance(other, CContainerBase) and (
            issubclass(type(self), type(other)) or issubclass(type(other), type(self))
        ):
            return bool(_g("ffi.RecursiveEq")(self, other))
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return _g("ffi.RecursiveHash")(self) & 0xFFFFFFFFFFFFFFFF

    def __deepcopy__(self, memo):
        return _g("ffi.DeepCopy")(self)


# the exchange table a call's tensors convert through (its address): only the binding tags
_set_api = _field_writer(CContainerBase, "_tvm_api")
_seal_slot(CContainerBase, "_tvm_api")


def _norm_index(i, n):
    if not isinstance(i, int):
        i = operator.index(i)  # TypeError for non-integers, as Python's sequences
    j = i + n if i < 0 else i
    if j < 0 or j >= n:
        raise IndexError("Index out of range. size: %d, got index %d" % (n, i))
    return j


class _SeqMixin:
    __slots__ = ()
    _size_fn = _get_fn = _contains_fn = ""

    def __len__(self):
        return _g(self._size_fn)(self)

    def __getitem__(self, idx):
        n = len(self)
        if isinstance(idx, slice):
            return [self[i] for i in range(*idx.indices(n))]
        if not hasattr(idx, "__index__"):
            raise TypeError("indices must be integers or slices, not %s" % type(idx).__name__)
        return _g(self._get_fn)(self, _norm_index(idx, n))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        return len(self) > 0

    def __contains__(self, value):
        if _g(self._contains_fn)(self, value):
            return True
        if isinstance(value, collections.abc.Sequence) and not isinstance(value, (str, bytes)):
            # Stored tuples/lists are Arrays even inside a List: convert to each
            # element's own sequence type so RecursiveEq compares like with like.
            for x in self:
                if isinstance(x, (Array, List)):
                    try:
                        if x == type(x)(value):
                            return True
                    except Exception:  # noqa: BLE001
                        return False
            return False
        return False

    def __eq__(self, other):
        if isinstance(other, CContainerBase) and (
            issubclass(type(self), type(other)) or issubclass(type(other), type(self))
        ):
            return CContainerBase.__eq__(self, other)
        # any other sequence (list, tuple, an unrelated List/Array) compares as type(self)
        if isinstance(other, collections.abc.Sequence) and not isinstance(
            other, (str, bytes, collections.abc.Mapping)
        ):
            try:
                other = type(self)(other)
            except Exception:  # noqa: BLE001
                return NotImplemented
            return CContainerBase.__eq__(self, other)
        return NotImplemented

    def __hash__(self):
        return CContainerBase.__hash__(self)

    def __add__(self, other):
        return type(self)(itertools.chain(self, other))

    def __radd__(self, other):
        return type(self)(itertools.chain(other, self))


class Array(_SeqMixin, CContainerBase, collections.abc.Sequence):
    """Immutable FFI sequence (ffi.Array)."""

    __slots__ = ()
    _size_fn, _get_fn, _contains_fn = "ffi.ArraySize", "ffi.ArrayGetItem", "ffi.ArrayContains"

    def __init__(self, input_list=()):
        if not isinstance(input_list, collections.abc.Iterable):
            raise TypeError("Array expects an iterable, got %s" % type(input_list).__name__)
        self.__init_handle_by_constructor__(_g("ffi.Array"), *input_list)


class List(_SeqMixin, CContainerBase, collections.abc.MutableSequence):
    """Mutable FFI sequence (ffi.List) with shared-reference semantics."""

    __slots__ = ()
    _size_fn, _get_fn, _contains_fn = "ffi.ListSize", "ffi.ListGetItem", "ffi.ListContains"

    def __init__(self, input_list=()):
        if not isinstance(input_list, collections.abc.Iterable):
            raise TypeError("List expects an iterable, got %s" % type(input_list).__name__)
        self.__init_handle_by_constructor__(_g("ffi.List"), *input_list)

    def __setitem__(self, idx, value):
        n = len(self)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            values = list(value)
            if step == 1:
                stop = max(stop, start)
                _g("ffi.ListReplaceSlice")(self, start, stop, List(values))
                return
            targets = list(range(start, stop, step))
            if len(targets) != len(values):
                raise ValueError(
                    "attempt to assign sequence of size %d to extended slice of size %d"
                    % (len(values), len(targets))
                )
            for i, v in zip(targets, values):
                _g("ffi.ListSetItem")(self, i, v)
            return
        _g("ffi.ListSetItem")(self, _norm_index(idx, n), value)

    def __delitem__(self, idx):
        n = len(self)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            if step == 1:
                if stop > start:
                    _g("ffi.ListEraseRange")(self, start, stop)
                return
            for i in sorted(range(start, stop, step), reverse=True):
                _g("ffi.ListErase")(self, i)
            return
        _g("ffi.ListErase")(self, _norm_index(idx, n))

    def insert(self, index, value):
        n = len(self)
        i = index + n if index < 0 else index
        i = min(max(i, 0), n)
        _g("ffi.ListInsert")(self, i, value)

    def append(self, value):
        _g("ffi.ListAppend")(self, value)

    def extend(self, values):
        for v in list(values):
            self.append(v)

    def clear(self):
        _g("ffi.ListClear")(self)

    def reverse(self):
        _g("ffi.ListReverse")(self)

    def pop(self, index=-1):
        n = len(self)
        if n == 0:
            raise IndexError("pop from empty list")
        i = _norm_index(index, n)
        value = self[i]
        _g("ffi.ListErase")(self, i)
        return value


class _MapView:
    def __init__(self, m):
        self._m = m
        self._mapping = m  # what collections.abc's view __repr__ reads

    def __len__(self):
        return len(self._m)

    def _iter(self, what):
        m = self._m
        n = len(m)
        if n == 0:
            return
        f = _g(m._iter_fn)(m)
        for _ in range(n):
            yield what(f)
            if not f(2):
                break


class KeysView(_MapView, collections.abc.KeysView):
    def __iter__(self):
        return self._iter(lambda f: f(0))

    def __contains__(self, k):
        return k in self._m


class ValuesView(_MapView, collections.abc.ValuesView):
    def __iter__(self):
        m = self._m
        if m._tvm_api is not None:  # lookups pass the tagged map: framework tensors convert
            return (m[k] for k in self._iter(lambda f: f(0)))
        return self._iter(lambda f: f(1))


class ItemsView(_MapView, collections.abc.ItemsView):
    def __iter__(self):
        m = self._m
        if m._tvm_api is not None:  # as in ValuesView
            return ((k, m[k]) for k in self._iter(lambda f: f(0)))
        return self._iter(lambda f: (f(0), f(1)))

    def __contains__(self, item):
        k, v = item
        return k in self._m and self._m[k] == v


class _MapMixin:
    __slots__ = ()
    _size_fn = _count_fn = _get_fn = _get_missing_fn = _iter_fn = ""

    def __len__(self):
        return _g(self._size_fn)(self)

    def __getitem__(self, key):
        return _g(self._get_fn)(self, key)

    def __contains__(self, key):
        return _g(self._count_fn)(self, key) != 0

    def __iter__(self):
        return iter(self.keys())

    def __bool__(self):
        return len(self) > 0

    def keys(self):
        return KeysView(self)

    def values(self):
        return ValuesView(self)

    def items(self):
        return ItemsView(self)

    def get(self, key, default=None):
        r = _g(self._get_missing_fn)(self, key)
        missing = _sentinel("ffi.GetInvalidObject")
        if isinstance(r, CObject) and missing is not None and r.same_as(missing):
            return default
        return r

    def __eq__(self, other):
        return CContainerBase.__eq__(self, other)

    def __hash__(self):
        return CContainerBase.__hash__(self)


def _flatten_items(input_dict):
    items = input_dict.items()
    args = []
    for k, v in items:
        args.append(k)
        args.append(v)
    return args


class Map(_MapMixin, CContainerBase, collections.abc.Mapping):
    """Immutable FFI mapping (ffi.Map), insertion ordered."""

    __slots__ = ()
    _size_fn, _count_fn, _get_fn = "ffi.MapSize", "ffi.MapCount", "ffi.MapGetItem"
    _get_missing_fn, _iter_fn = "ffi.MapGetItemOrMissing", "ffi.MapForwardIterFunctor"

    def __init__(self, input_dict=None):
        args = _flatten_items(input_dict) if input_dict is not None else []
        self.__init_handle_by_constructor__(_g("ffi.Map"), *args)


class Dict(_MapMixin, CContainerBase, collections.abc.MutableMapping):
    """Mutable FFI mapping (ffi.Dict), insertion ordered, no copy-on-write."""

    __slots__ = ()
    _size_fn, _count_fn, _get_fn = "ffi.DictSize", "ffi.DictCount", "ffi.DictGetItem"
    _get_missing_fn, _iter_fn = "ffi.DictGetItemOrMissing", "ffi.DictForwardIterFunctor"

    def __init__(self, input_dict=None):
        args = _flatten_items(input_dict) if input_dict is not None else []
        self.__init_handle_by_constructor__(_g("ffi.Dict"), *args)

    def __setitem__(self, key, value):
        _g("ffi.DictSetItem")(self, key, value)

    def __delitem__(self, key):
        if key not in self:
            raise KeyError(key)
        _g("ffi.DictErase")(self, key)

    def pop(self, key, *default):
        if len(default) > 1:
            raise TypeError("pop expected at most 2 arguments, got %d" % (1 + len(default)))
        if key in self:
            value = self[key]
            _g("ffi.DictErase")(self, key)
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def clear(self):
        _g("ffi.DictClear")(self)

    def update(self, other=(), **kw):
        items = other.items() if hasattr(other, "items") else other
        for k, v in items:
            self[k] = v
        for k, v in kw.items():
            self[k] = v


def _register():
    for tidx, cls in ((T.kTVMFFIArray, Array), (T.kTVMFFIMap, Map), (T.kTVMFFIList, List),
                      (T.kTVMFFIDict, Dict)):
        _register_class(tidx, cls)


_register()


def __getattr__(name):
    if name == "MISSING":  # the sentinel Map.get compares with (core.MISSING)
        return _sentinel("ffi.GetInvalidObject")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
