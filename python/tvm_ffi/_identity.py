"""Wrapper identity ("tying", docs/python.md §4.3): at most one live wrapper per object handle.

The one table a process has, and the primitives every other module uses on it (the protocol
is described once, in HACKING.md "Wrapper identity"):

* ``_tie(w, h)``: w becomes h's wrapper, unless h has a live one already;
* ``_untie(w, h)``: h's entry goes if it is w's (w is about to hold another handle);
* ``_forget(w, h)``: the same from a finaliser, which also drops an entry whose wrapper died;
* ``_tied(h)``: h's live wrapper, or None (a stale entry found is dropped);
* ``_tied_count()``: the number of entries (tests).

API mode: the table is the compiled module's (``_ffi_src/identity.c``), because the result
conversion that consults it on every object result is C: the dict below, used from C, costs a
PyLong and a dict lookup per result (~32 ns measured, against ~2 ns).  ABI mode (no compiled
module; CPython and PyPy): the dict below, mapping the handle to a non-owning reference.
"""

import sys

from ._loader import API_MODE, lib

if API_MODE:

    def _tie(w, h, _f=lib.ffipy_tie, _id=id):
        _f(_id(w), h)

    def _untie(w, h, _f=lib.ffipy_untie, _id=id):
        _f(_id(w), h)

    _forget = _untie  # (identity.c drops a stale entry when it meets it)

    def _tied(h):
        """The live wrapper tied to handle h, or None."""
        box = [None]
        lib.ffipy_tied_wrapper(h, id(box))
        return box[0]

    def _tied_count():
        return lib.ffipy_tied_count()

else:  # ABI mode (CPython and PyPy): one table, handle -> a non-owning reference to the wrapper
    _TIES = {}

    if sys.implementation.name == "cpython":
        # the wrapper's address, read back through ctypes: CObject takes no weak references (as
        # upstream's), and an entry never outlives its wrapper (__del__ drops it first)
        import ctypes

        _ref = id

        def _deref(r, _cast=ctypes.cast, _py=ctypes.py_object):
            return _cast(r, _py).value

    else:  # PyPy: objects have no addresses, but every object takes weak references
        import weakref

        _ref = weakref.ref

        def _deref(r):
            return r()  # None once the GC found the wrapper dead, before its __del__ ran

    # identity comparisons only (a wrapper's __eq__ may read fields), and pop, not del: a GC
    # finaliser may run _forget in the middle of another table update
    def _tie(w, h, _ties=_TIES):
        if h:
            old = _ties.get(h)
            if old is None or _deref(old) is None:
                _ties[h] = _ref(w)

    def _untie(w, h, _ties=_TIES):
        r = _ties.get(h)
        if r is not None and _deref(r) is w:
            _ties.pop(h, None)

    # defaults bound now: finalisers run at shutdown too, after module globals are cleared
    def _forget(w, h, _ties=_TIES, _deref=_deref):
        r = _ties.get(h)
        if r is not None:
            live = _deref(r)
            if live is w or live is None:
                _ties.pop(h, None)

    def _tied(h, _ties=_TIES):
        """The live wrapper tied to handle h, or None."""
        r = _ties.get(h)
        w = _deref(r) if r is not None else None
        if w is None or w._h != h:  # dead, or stale: the wrapper moved on without untying
            _ties.pop(h, None)
            return None
        return w

    def _tied_count():
        return len(_TIES)
