"""Wrapper identity ("tying", docs/python.md §4.3, item 126) and move semantics (§4.4).

At most one live Python wrapper per object handle: a call returning an object that already has
a live wrapper returns that wrapper.  Value-like kinds (str, bytes, Shape) and tensors are not
tied.  Everything here runs in API and ABI modes and under PyPy: the table (``_identity.py``;
C in API mode, Python in ABI mode) answers to the same tests (HACKING.md "Wrapper identity").
"""

import gc
import os
import random
import subprocess
import sys
import threading
import weakref

import pytest

import tvm_ffi
from conftest import needs_prompt_free, needs_refcounts
import tvm_ffi.testing as T
from tvm_ffi import _identity


def test_echo_returns_the_same_wrapper(echo, use_count):  # item 126
    x = tvm_ffi.convert([1, 2, 3])
    assert echo(x) is x
    m = tvm_ffi.convert({"a": 1})
    assert echo(m) is m
    p = T.TestIntPair(1, 2)
    assert echo(p) is p
    f = tvm_ffi.convert(lambda a: a + 1)
    assert echo(f) is f and f(1) == 2
    assert use_count(x) == 1  # the extra reference of the result was dropped
    assert _identity._tied(x.__chandle__()) is x


def test_field_access_is_stable():
    m, a = tvm_ffi.Map({"k": 1}), tvm_ffi.Array([1, 2])
    d = T.create_object("testing.TestObjectDerived", v_map=m, v_array=a)
    assert d.v_map is d.v_map
    assert d.v_map is m and d.v_array is a


def test_container_elements_are_stable(echo):
    inner = tvm_ffi.convert([1])
    arr = tvm_ffi.convert([inner, inner, "s"])
    assert arr[0] is arr[1] is inner
    assert list(arr)[0] is inner
    d = tvm_ffi.Dict({"x": inner})
    assert d["x"] is inner


@needs_prompt_free
def test_callback_argument_moves_do_not_empty_the_caller(use_count):
    """A callback's argument is a view: it gets a wrapper of its own (only owned results are
    tied), so moving it inside the callback leaves the caller's wrapper intact.  The move
    detaches the handle from the caller's canonical wrapper, so the result is a new wrapper
    with its own reference (as upstream's test_rvalue_ref expects)."""
    x = tvm_ffi.convert([1, 2])
    seen = []

    def callback(o):
        seen.append(use_count(o))
        return o._move()

    f = tvm_ffi.convert(callback)
    r = f(x)
    assert r is not x and r.same_as(x)
    assert seen == [2] and x.__chandle__() != 0 and use_count(x) == 2
    del r
    y = f(x._move())  # moved in, moved back out: a new owner
    assert x.__chandle__() == 0 and tuple(y) == (1, 2) and use_count(y) == 1


def test_refetch_after_drop_gives_a_live_wrapper(use_count):
    inner = tvm_ffi.convert([7])
    h = inner.__chandle__()
    holder = tvm_ffi.convert([inner])
    del inner
    gc.collect()
    assert _identity._tied(h) is None  # the dead wrapper left the table
    again = holder[0]
    assert again.__chandle__() == h and tuple(again) == (7,)
    assert _identity._tied(h) is again and holder[0] is again
    assert use_count(again) == 2  # holder's element + the one wrapper


def test_value_kinds_are_not_tied(echo):
    s = "a string longer than seven bytes"
    assert echo(s) == s
    shape = tvm_ffi.Shape((1, 2))
    assert echo(shape) == (1, 2)
    assert _identity._tied(shape._tvm_ffi_cached_object.__chandle__()) is None


def test_table_survives_churn(echo):
    """Many ties and unties in random order (exercises the table's growth and deletion)."""
    base = _identity._tied_count()
    rng = random.Random(1234)
    live = [echo(tvm_ffi.convert([i])) for i in range(3000)]
    assert _identity._tied_count() >= base + 3000
    rng.shuffle(live)
    for _ in range(2000):
        live.pop()
    for w in live:
        assert echo(w) is w
        assert _identity._tied(w.__chandle__()) is w
    del live, w
    gc.collect()
    assert _identity._tied_count() == base


def test_protocol_primitives():
    """The primitives both tables answer to (HACKING.md "Wrapper identity"): a live entry is
    never replaced, only its own wrapper unties it, a stale entry is dropped on lookup."""
    gc.collect()
    base = _identity._tied_count()
    w1 = tvm_ffi.convert([1])
    h = w1.__chandle__()
    w2 = tvm_ffi.Array.__new__(tvm_ffi.Array)  # an empty wrapper
    _identity._tie(w2, h)
    assert _identity._tied(h) is w1  # the live entry stays
    _identity._untie(w2, h)
    assert _identity._tied(h) is w1  # not w2's entry
    _identity._untie(w1, h)
    assert _identity._tied(h) is None and _identity._tied_count() == base
    _identity._tie(w2, h)  # w2 does not hold h: stale, dropped by the next lookup
    assert _identity._tied(h) is None and _identity._tied_count() == base
    _identity._tie(w1, h)
    assert _identity._tied(h) is w1 and _identity._tied_count() == base + 1
    del w1
    gc.collect()
    assert _identity._tied_count() == base


def test_last_wrapper_frees_the_object(echo):
    """A tied wrapper owns one reference however often its object came back: when it dies
    (GC on PyPy), the entry goes and so does the object (its Python callable with it)."""
    gc.collect()
    base = _identity._tied_count()

    def body():
        return 1

    alive = weakref.ref(body)
    f = tvm_ffi.convert(body)
    del body
    for _ in range(3):
        assert echo(f) is f and tvm_ffi.convert([f])[0] is f
    h = f.__chandle__()
    del f
    for _ in range(3):
        gc.collect()
    assert _identity._tied(h) is None and _identity._tied_count() == base
    assert alive() is None


def test_threads_share_the_table(echo, use_count):
    """Threads converting, echoing and dropping the same objects leave the table whole: the
    shared objects keep their wrappers, nothing else stays tied, no reference leaks."""
    gc.collect()
    base = _identity._tied_count()
    shared = [tvm_ffi.convert([i]) for i in range(8)]
    holder = tvm_ffi.convert(shared)
    errors = []

    def work(seed):
        rng = random.Random(seed)
        try:
            for _ in range(300):
                i = rng.randrange(8)
                assert echo(shared[i]) is shared[i] and holder[i] is shared[i]
                tmp = echo(tvm_ffi.convert([i, "x"]))
                assert tuple(tmp) == (i, "x")
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    gc.collect()
    assert _identity._tied_count() == base + 9  # shared and holder
    for w in shared:
        assert _identity._tied(w.__chandle__()) is w and use_count(w) == 2  # holder's + wrapper's
    del shared, holder, w
    gc.collect()
    assert _identity._tied_count() == base


@needs_refcounts
def test_constructor_result_with_live_wrapper_is_not_emptied(echo):
    x = tvm_ffi.convert([1, 2])

    class Holder(tvm_ffi.Object):
        pass

    h = Holder.__new__(Holder)
    h.__init_handle_by_constructor__(echo, x)  # "constructor" returning an existing object
    assert x.__chandle__() != 0 and h.same_as(x)
    assert echo(x) is x


def test_move_handle_from_reties():
    a = tvm_ffi.convert([1])
    b = tvm_ffi.Array.__new__(tvm_ffi.Array)
    h = a.__chandle__()
    b.__move_handle_from__(a)
    assert a.__chandle__() == 0 and b.__chandle__() == h
    assert _identity._tied(h) is b
    b.__move_handle_from__(b)  # moving from itself changes nothing
    assert b.__chandle__() == h and tuple(b) == (1,)


def test_move_detaches_the_wrapper(echo, use_count):  # §4.4
    x = tvm_ffi.convert([1, 2, 3])
    h = x.__chandle__()
    r = echo(x._move())
    assert x.__ctypes_handle__().value is None
    assert r is not x and r.__chandle__() == h and tuple(r) == (1, 2, 3)
    assert _identity._tied(h) is r and use_count(r) == 1


@needs_prompt_free
def test_move_of_empty_or_twice_raises(echo):
    x = tvm_ffi.convert([1])
    with pytest.raises(ValueError, match="moved already"):
        echo(x._move(), x._move())  # the second move finds the wrapper empty
    # the failed call gave the first move's reference back
    assert x.__chandle__() != 0 and tuple(x) == (1,) and echo(x) is x
    empty = tvm_ffi.Array.__new__(tvm_ffi.Array)
    with pytest.raises(ValueError, match="holds no object"):
        echo(empty._move())


def test_move_not_taken_gives_the_handle_back(use_count):
    nop = tvm_ffi.get_global_func("testing.nop")
    x = tvm_ffi.convert([1])
    nop(x._move())
    gc.collect()
    assert x.__chandle__() != 0 and use_count(x) == 1
    assert _identity._tied(x.__chandle__()) is x


@needs_prompt_free
def test_moved_handle_returns_after_the_call_even_if_the_ref_lives(echo):
    nop = tvm_ffi.get_global_func("testing.nop")
    x = tvm_ffi.convert([3])
    ref = x._move()
    nop(ref)
    assert x.__chandle__() != 0 and _identity._tied(x.__chandle__()) is x
    r = echo(ref)  # the same ref can move again once the handle is back
    assert x.__chandle__() == 0 and tuple(r) == (3,)


def test_subclass_finaliser_without_super_still_unties(echo, use_count):
    """A subclass __del__ that forgets super().__del__() must not leave a dangling table entry
    (or leak the reference)."""
    calls = []

    class Forgetful(tvm_ffi.Array):
        def __del__(self):
            calls.append(1)

    holder = tvm_ffi.convert([[1, 2]])
    inner = holder[0]
    h = inner.__chandle__()
    w = Forgetful.__new__(Forgetful)
    w.__move_handle_from__(inner)
    assert _identity._tied(h) is w and use_count(w) == 2
    del w, inner
    gc.collect()
    assert calls == [1] and _identity._tied(h) is None
    again = holder[0]
    assert tuple(again) == (1, 2) and use_count(again) == 2


@needs_prompt_free
def test_rvalue_ref_counts_like_upstream(use_count):
    """docs/python.md §4.4: a result obtained after a move is its own wrapper with its own reference."""

    def callback(o, expected):
        assert use_count(o) == expected
        return o._move()

    f = tvm_ffi.convert(callback)
    x = tvm_ffi.convert([1, 2])
    f(x, 2)
    y = f(x._move(), 1)
    assert x.__ctypes_handle__().value is None and tuple(y) == (1, 2)

    x = tvm_ffi.convert([1, 2])
    y = f(x, 2)
    z = f(x._move(), 2)
    assert x.__ctypes_handle__().value is None
    assert y.__ctypes_handle__().value is not None and z.same_as(y)


_SHUTDOWN_SCRIPT = """
import tvm_ffi
class Holder:
    pass
h = Holder()
h.self = h  # a cycle: collected only at shutdown, after module globals are cleared
h.objs = [tvm_ffi.convert([1, 2, 3]), tvm_ffi.convert({"a": 1})]
"""


@pytest.mark.parametrize("mode", [{}, {"TVM_FFI_USE_ABI_MODE": "1"}])
def test_wrappers_finalised_at_shutdown_quietly(mode):
    env = dict(os.environ, **mode)
    proc = subprocess.run([sys.executable, "-c", _SHUTDOWN_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr


def test_one_module_keeps_the_table():
    # The table's primitives are defined once, in _identity.py (API mode binds them to the
    # compiled module's table, ABI mode keeps the dict there): every other module of the
    # package uses those, and none defines a table of its own beside them.
    import ast

    pkg = os.path.dirname(tvm_ffi.__file__)
    names = {"_tie", "_untie", "_forget", "_tied", "_tied_count", "_TIES"}
    found = []
    for dirpath, _dirs, files in os.walk(pkg):
        for f in files:
            path = os.path.join(dirpath, f)
            if not f.endswith(".py") or path == os.path.join(pkg, "_identity.py"):
                continue
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                defined = ([node.name] if isinstance(node, ast.FunctionDef) else
                           [t.id for t in node.targets if isinstance(t, ast.Name)]
                           if isinstance(node, ast.Assign) else [])
                found += ["%s: %s" % (os.path.relpath(path, pkg), n)
                          for n in defined if n in names]
    assert not found, found
    for name in names - {"_TIES"}:
        assert getattr(tvm_ffi.core, name, getattr(_identity, name)) is getattr(_identity, name)
