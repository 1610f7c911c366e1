"""Errors across the language boundary (docs/python.md §14)."""

import copy
import gc
import pickle
import traceback

import pytest

import tvm_ffi
from conftest import needs_prompt_free
from tvm_ffi import core
from tvm_ffi.error import _parse_backtrace


def _raise_error():
    return tvm_ffi.get_global_func("testing.test_raise_error")


def test_kind_message_backtrace():
    with pytest.raises(ValueError) as info:
        _raise_error()("ValueError", "error XYZ")
    err = info.value.__tvm_ffi_error__
    assert isinstance(err, core.Error)
    assert err.kind == "ValueError"
    assert err.message == "error XYZ"
    assert "TestRaiseError" in err.backtrace
    assert str(info.value) == "error XYZ"


@pytest.mark.parametrize(
    "kind, cls",
    [("TypeError", TypeError), ("KeyError", KeyError), ("IndexError", IndexError),
     ("AttributeError", AttributeError), ("RuntimeError", RuntimeError),
     ("InternalError", RuntimeError), ("NotImplementedError", RuntimeError)],
)
def test_kind_mapping(kind, cls):
    with pytest.raises(cls) as info:
        _raise_error()(kind, "x")
    assert type(info.value) is cls


def test_cpp_frames_in_traceback():
    try:
        _raise_error()("ValueError", "boom")
    except ValueError as e:
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    assert "in TestRaiseError" in text
    lines = [ln for ln in text.splitlines() if ln.strip().startswith("File ")]
    # user frame, then the package's call frame, then the native frames
    assert "test_error.py" in lines[0]
    assert "tvm_ffi" in lines[1]
    assert "TestRaiseError" in lines[-1]


def test_through_python_callback():
    raise_error = _raise_error()
    with pytest.raises(TypeError):
        tvm_ffi.get_global_func("testing.apply")(lambda: raise_error("TypeError", "inner"))


def test_nested_roundtrip_identity():
    raise_error = _raise_error()
    seen = []

    def f():
        try:
            raise_error("ValueError", "msg")
        except ValueError as e:
            seen.append(e.__tvm_ffi_error__)
            raise

    with pytest.raises(ValueError) as info:
        tvm_ffi.get_global_func("testing.apply")(f)
    assert info.value.__tvm_ffi_error__.same_as(seen[0])
    bt = info.value.__tvm_ffi_error__.backtrace
    assert bt.count("TestRaiseError") >= 1
    assert bt.index("TestRaiseError") < bt.index("in f\n")


def _crossed_twice():
    """A native error that crossed back through a callback and out again (what gets marked for
    linear unwinding)."""
    raise_error = _raise_error()

    def f():
        raise_error("ValueError", "error XYZ")

    try:
        tvm_ffi.get_global_func("testing.apply")(f)
    except ValueError as e:
        return e
    raise AssertionError("no error")


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_ffi_exception_pickles_and_deepcopies(how):
    # the crossing state kept for linear unwinding holds a traceback, which pickle refuses: it
    # must stay out of the exception's __dict__
    err = _crossed_twice()
    restored = pickle.loads(pickle.dumps(err)) if how == "pickle" else copy.deepcopy(err)
    assert type(restored) is ValueError and restored.args == err.args
    ffi_error = restored.__tvm_ffi_error__
    assert isinstance(ffi_error, core.Error) and not ffi_error.same_as(err.__tvm_ffi_error__)
    assert (ffi_error.kind, ffi_error.message) == ("ValueError", "error XYZ")
    assert ffi_error.backtrace == err.__tvm_ffi_error__.backtrace
    # the restored exception crosses a callback again, and the original still unwinds
    for exc in (restored, err):
        def g(exc=exc):
            raise exc

        with pytest.raises(ValueError, match="error XYZ") as info:
            tvm_ffi.get_global_func("testing.apply")(g)
        assert info.value.__tvm_ffi_error__.backtrace.count("in g\n") == 1


def test_python_exception_to_error():
    def raise_error():
        raise ValueError("py boom")

    try:
        raise_error()
    except ValueError as e:
        err = tvm_ffi.convert(e)
        assert isinstance(err, core.Error)
        assert err.kind == "ValueError" and err.message == "py boom"
        assert "raise_error" in err.backtrace
        echoed = tvm_ffi.get_global_func("testing.echo")(e)
        assert isinstance(echoed, core.Error) and echoed.kind == "ValueError"


def test_cpp_error_backtrace_gets_python_frames():
    def caller():
        _raise_error()("ValueError", "x")

    try:
        caller()
    except ValueError as e:
        assert "caller" not in e.__tvm_ffi_error__.backtrace
        assert "caller" in tvm_ffi.convert(e).backtrace


def test_register_error():
    @tvm_ffi.register_error
    class MyError(RuntimeError):
        pass

    assert isinstance(tvm_ffi.convert(MyError("boom")).py_error(), MyError)

    def f():
        raise MyError("from python")

    with pytest.raises(MyError, match="from python"):
        tvm_ffi.get_global_func("testing.apply")(f)

    @tvm_ffi.register_error("CustomKind")
    class Custom(Exception):
        pass

    with pytest.raises(Custom, match="c"):
        _raise_error()("CustomKind", "c")


def test_unregistered_subclass_travels_as_runtime_error():
    class Sub(ValueError):
        pass

    def f():
        raise Sub("sub")

    with pytest.raises(RuntimeError, match="sub"):
        tvm_ffi.get_global_func("testing.apply")(f)


def test_parse_backtrace():
    text = '  File "test.py", line 1, in <module>\n  File "test.py", line 3, in run_test\n'
    assert _parse_backtrace(text) == [("test.py", 1, "<module>"), ("test.py", 3, "run_test")]


@needs_prompt_free
def test_no_reference_cycle():
    class Marker:
        pass

    def run(ref):
        m = Marker()
        ref.append(__import__("weakref").ref(m))
        try:
            tvm_ffi.Map({})["missing"]
        except KeyError:
            pass

    gc.disable()
    try:
        refs = []
        run(refs)
        assert refs[0]() is None
    finally:
        gc.enable()


def test_error_object_api():
    e = core.Error("ValueError", "msg", '  File "a.cc", line 3, in f\n')
    assert (e.kind, e.message) == ("ValueError", "msg")
    assert "a.cc" in e.backtrace
    e.update_backtrace('  File "b.cc", line 4, in g\n')
    assert "b.cc" in e.backtrace and "a.cc" not in e.backtrace
    exc = e.py_error()
    assert isinstance(exc, ValueError) and exc.__tvm_ffi_error__.same_as(e)
    assert tvm_ffi.get_global_func("testing.echo")(e).same_as(e)  # returned, not raised


def test_signal_interrupts_native_loop(sigint_raises):
    import os
    import signal
    import threading

    f = tvm_ffi.get_global_func("testing.run_check_signal", allow_missing=True)
    if f is None or threading.current_thread() is not threading.main_thread():
        pytest.skip("needs testing.run_check_signal on the main thread")
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            f(5)  # polls TVMFFIEnvCheckSignals; the pending KeyboardInterrupt surfaces here
    finally:
        timer.cancel()
