"""`import tvm_ffi` stays light (docs/python.md §1.2, issue 4 point 8) and the call fast path keeps
the semantics of the generic one.  No timings here: what keeps import fast is which modules it
pulls in, and that is what is checked."""

import subprocess
import sys
import textwrap

import pytest

import tvm_ffi


def _fresh(code):
    """Runs code in a fresh interpreter (same environment); returns its stdout."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_pulls_in_no_heavy_module():
    # ABI mode too: its declarations come pre-parsed (_ffi_abi.py), never through cffi's
    # parser; only on CPython does it reach Python objects through ctypes (PyPy: _capi_ext)
    out = _fresh("""
        import sys
        before = set(sys.modules)
        import tvm_ffi
        new = set(sys.modules) - before
        heavy = {"torch", "numpy", "ctypes", "dataclasses", "json", "inspect", "typing",
                 "cffi", "pycparser", "tvm_ffi._typeinfo", "tvm_ffi.testing", "tvm_ffi.cpp",
                 "tvm_ffi.module", "tvm_ffi.container", "tvm_ffi.libinfo"}
        if not tvm_ffi._loader.API_MODE and sys.implementation.name != "pypy":
            heavy.discard("ctypes")
        print(sorted(new & heavy))
    """)
    assert out.strip() == "[]"


def test_lazy_names_resolve():
    out = _fresh("""
        import ctypes, sys
        import tvm_ffi
        missing = [n for n in tvm_ffi.__all__ if not hasattr(tvm_ffi, n)]
        assert missing == [], missing
        for n in ("bool", "float32", "float4_e2m1fnx2", "CAny", "CContainerBase", "core",
                  "libinfo", "registry", "error", "module", "container", "stream", "utils"):
            assert hasattr(tvm_ffi, n), n
        assert set(tvm_ffi.__all__) <= set(dir(tvm_ffi))
        assert isinstance(tvm_ffi.LIB, ctypes.CDLL)
        assert isinstance(tvm_ffi.core.TypeInfo, type)
        with __import__("pytest").raises(AttributeError):
            tvm_ffi.no_such_name
        assert "tvm_ffi.testing" not in sys.modules
        print("ok")
    """)
    assert out.strip() == "ok"


def test_runtime_loaded_global_and_testing_library_present():
    out = _fresh("""
        import ctypes
        import tvm_ffi
        # RTLD_GLOBAL: the runtime's symbols resolve from the global namespace
        assert ctypes.CDLL(None).TVMFFIFunctionCall
        assert tvm_ffi.get_global_func("testing.echo")(7) == 7
        print("ok")
    """)
    assert out.strip() == "ok"


def test_module_result_binds_its_class_before_tvm_ffi_module_is_touched():
    out = _fresh("""
        import sys
        import tvm_ffi
        m = tvm_ffi._function._global("ffi.SystemLib")("")
        print(type(m).__module__, type(m).__name__, "tvm_ffi.module" in sys.modules)
    """)
    assert out.split() == ["tvm_ffi.module", "Module", "True"]


@pytest.mark.parametrize("first", [
    "tvm_ffi.get_global_func('testing.echo')(3) == 3",
    "tvm_ffi._function._type_key_to_index('testing.TestIntPair') > 0",
    "'testing.echo' in tvm_ffi.registry.list_global_func_names()",
    "'testing.TestIntPair' in tvm_ffi.registry.get_registered_type_keys()",
    "'type_schema' in tvm_ffi.get_global_func_metadata('testing.add_one')",
    "tvm_ffi.system_lib('testing.')['add_one'](1) == 2",
])
def test_testing_library_opens_on_first_need(first):
    # `import tvm_ffi` leaves the testing library closed; each way of reaching one of its names
    # through the package opens it
    out = _fresh("""
        import tvm_ffi, tvm_ffi.registry
        from tvm_ffi import _loader
        closed = not _loader._TESTING
        ok = %s
        print(closed, ok, bool(_loader._TESTING))
    """ % first)
    assert out.split() == ["True", "True", "True"]


def test_container_results_bind_their_classes_on_first_use():
    # `import tvm_ffi` leaves tvm_ffi.container to the first container result; two threads
    # meeting their first Array at once both get tvm_ffi.Array (not a fallback class)
    out = _fresh("""
        import sys, threading
        import tvm_ffi
        print("tvm_ffi.container" in sys.modules, "MISSING" in vars(tvm_ffi.core))
        echo = tvm_ffi.get_global_func("testing.echo")
        got, go = [], threading.Barrier(4)
        def first():
            go.wait()
            got.append(type(echo([1, 2])))
        threads = [threading.Thread(target=first) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        m = echo({"a": 1})
        print(all(c is tvm_ffi.Array for c in got), len(got), type(m) is tvm_ffi.Map,
              m.get("b", 7), tvm_ffi.container.MISSING.same_as(tvm_ffi.core.MISSING),
              tvm_ffi.core.CContainerBase is tvm_ffi.container.CContainerBase)
    """)
    assert out.split() == ["False", "False", "True", "4", "True", "7", "True", "True"]


@pytest.mark.parametrize("value", [0, 1, 2**30 - 1, 2**30, 2**59, 2**60 - 1, 2**60, 2**62,
                                   2**63 - 1, -1, -(2**30), -(2**63)])
def test_int_arguments_round_trip(value):
    echo = tvm_ffi.get_global_func("testing.echo")
    assert echo(value) == value


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 2**100])
def test_int_arguments_beyond_int64(value):
    # the fast path hands them to the slow path, which passes an ffi.BigInt
    assert tvm_ffi.get_global_func("testing.echo")(value) == value


def test_call_slot_rejects_keywords_and_keeps_subclasses_working():
    echo = tvm_ffi.get_global_func("testing.echo")
    with pytest.raises(TypeError, match="keyword"):
        echo(1, x=2)

    class Mixin:
        def twice(self, x):
            return self(x) * 2

    class MyFunc(tvm_ffi.Function, Mixin):
        pass

    f = MyFunc.__new__(MyFunc)
    f.__move_handle_from__(tvm_ffi.get_global_func("testing.echo"))
    assert f(21) == 21 and f.twice(21) == 42
    # many arguments (more than the slot's stack array)
    nop = tvm_ffi.get_global_func("testing.nop")
    assert nop(*range(20)) is None


def test_vectorcall_entry_keeps_call_semantics():
    # CPython enters a Function call through the vectorcall entry of its C base (basetypes.c):
    # keywords are still refused, and a reassigned Function.__call__ still takes over, also for
    # instances whose entry is already set (CPython before 3.12 keeps the type's vectorcall flag
    # then); deleting it again gives the C base's call back.
    out = _fresh("""
        import sys
        import tvm_ffi
        F = tvm_ffi.Function
        echo = tvm_ffi.get_global_func("testing.echo")
        assert echo(1) == 1 and echo(2) == 2  # the second call takes the entry the first set
        for kwargs in ({"x": 2}, {}):
            try:
                r = echo(1, **kwargs)
            except TypeError as err:
                assert kwargs and "keyword" in str(err)
            else:
                assert not kwargs and r == 1
        assert tvm_ffi.get_global_func("testing.nop")(*range(20)) is None
        x = object()
        count = getattr(sys, "getrefcount", lambda o: 0)  # PyPy has no reference counts
        base = count(x)
        for _ in range(100):
            assert echo(x) is x
        assert count(x) == base
        fast = bool(F.__flags__ & (1 << 11))
        orig = F.__dict__.get("__call__")  # (None: the C base's)
        F.__call__ = lambda self, *a, **k: ("patched", a, k)
        assert echo(3) == ("patched", (3,), {})
        assert echo(3, y=1) == ("patched", (3,), {"y": 1})
        if orig is None:
            del F.__call__
        else:
            F.__call__ = orig
        assert echo(4) == 4 and echo(5) == 5
        print(fast, tvm_ffi._loader.API_MODE)
    """).split()
    if out[1] == "True" and sys.implementation.name == "cpython":
        assert out[0] == "True"  # the compiled module installed the entry


def test_tensor_arguments_by_handle():
    np = pytest.importorskip("numpy")
    echo = tvm_ffi.get_global_func("testing.echo")
    t = tvm_ffi.from_dlpack(np.arange(6, dtype="float32"))
    r = echo(t)
    assert isinstance(r, tvm_ffi.Tensor) and r.__chandle__() == t.__chandle__()
    empty = tvm_ffi.Tensor.__new__(tvm_ffi.Tensor)  # no handle: passes as None
    assert echo(empty) is None


def test_compiled_bases_hold_handle_and_call():
    # API mode on CPython: the handle is a field of the compiled module's C base (`_h` its
    # read-only int view, written only by _base._set_h), and Function's call is its C base's
    # slot, not a method of the Python class (one compiled call path).
    from tvm_ffi import _base

    if not _base.API_MODE:
        pytest.skip("ABI mode: CObject is a plain Python class")
    assert _base.CObject.__mro__[1] is _base._CObjectBase
    assert _base._FunctionBase in tvm_ffi.Function.__mro__
    assert "__call__" not in tvm_ffi.Function.__dict__
    assert tvm_ffi.Function.__call__ is _base._FunctionBase.__call__
    echo = tvm_ffi.get_global_func("testing.echo")
    h = echo._h
    with pytest.raises(AttributeError):
        echo._h = 12345
    with pytest.raises(TypeError, match="set_h"):
        _base._set_h(object(), 1)
    with pytest.raises(TypeError, match="set_h"):
        _base._set_h(echo, "1")
    with pytest.raises(TypeError, match="set_h"):
        _base._set_h(echo)
    assert echo._h == h and echo(7) == 7
    # Tensor._view and a container's _tvm_api: fields of the C bases too, written by set_extra
    t = tvm_ffi.Tensor.__new__(tvm_ffi.Tensor)
    arr = tvm_ffi.convert([1, 2])
    assert t._view == 0 and arr._tvm_api is None
    with pytest.raises(AttributeError):
        t._view = 12345
    with pytest.raises(AttributeError):
        arr._tvm_api = 12345
    with pytest.raises(TypeError, match="set_extra"):
        _base._set_extra(echo, 1)
    _base._store(arr, "_tvm_api", None)
    assert arr._tvm_api is None and list(echo(arr)) == [1, 2]
    # the C methods read the C fields of self unchecked: their descriptors refuse a foreign self
    with pytest.raises(TypeError):
        tvm_ffi.Tensor.__dlpack__(object())
    with pytest.raises(TypeError):
        tvm_ffi.Tensor.__dlpack_device__(arr)
    with pytest.raises(TypeError):
        _base.CObject.__del__(1)
    empty = tvm_ffi.Function.__new__(tvm_ffi.Function)
    assert empty._h == 0 and empty.release_gil in (True, False)
    with pytest.raises(ValueError, match="NULL handle"):
        empty()
