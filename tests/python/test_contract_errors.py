"""Acceptance audit of docs/python.md §25.2 (items 35-44) and §14 (errors across languages)."""

import gc
import traceback
import weakref

import pytest

import tvm_ffi
from conftest import jit_load_inline, needs_callback_native_frames, needs_prompt_free
from tvm_ffi import core, error
from tvm_ffi.error import _parse_backtrace


def _raise():
    return tvm_ffi.get_global_func("testing.test_raise_error")


def test_item35_error_from_cxx():
    with pytest.raises(ValueError) as info:
        _raise()("ValueError", "error XYZ")
    e = info.value
    assert type(e) is ValueError
    assert str(e) == "error XYZ" and e.args == ("error XYZ",)
    err = e.__tvm_ffi_error__
    assert isinstance(err, core.Error)
    assert err.kind == "ValueError"
    assert err.message == "error XYZ"
    assert "TestRaiseError" in err.backtrace


def test_item36_through_python_lambda():
    fapply = tvm_ffi.convert(lambda f, *args: f(*args))
    with pytest.raises(TypeError) as info:
        fapply(_raise(), "TypeError", "error XYZ")
    assert str(info.value) == "error XYZ"
    assert info.value.__tvm_ffi_error__.kind == "TypeError"


@needs_callback_native_frames
def test_item37_nested_roundtrip():
    fapply = tvm_ffi.convert(lambda f, *args: f(*args))
    cxx_raise = _raise()
    cxx_apply = tvm_ffi.get_global_func("testing.apply")
    recorded = []

    def raise_error():
        try:
            fapply(cxx_raise, "ValueError", "error XYZ")
        except ValueError as e:
            assert e.__tvm_ffi_error__.kind == "ValueError"
            assert e.__tvm_ffi_error__.message == "error XYZ"
            assert "TestRaiseError" in e.__tvm_ffi_error__.backtrace
            recorded.append(e.__tvm_ffi_error__)
            raise e

    with pytest.raises(ValueError) as info:
        cxx_apply(raise_error)
    err = info.value.__tvm_ffi_error__
    assert err.same_as(recorded[0])
    bt = err.backtrace
    assert bt.count("TestRaiseError") == 1
    assert bt.count("TestApply") == 1
    assert bt.count("<lambda>") == 1
    assert bt.find("TestRaiseError") < bt.find("<lambda>") < bt.find("TestApply")
    # the Python frame that re-raised sits between the lambda and TestApply
    assert bt.find("<lambda>") < bt.find("in raise_error") < bt.find("TestApply")


def test_item38_convert_python_exception():
    def raise_error():
        raise ValueError("error XYZ")

    try:
        raise_error()
    except ValueError as e:
        err = tvm_ffi.convert(e)
    assert isinstance(err, core.Error)
    assert err.kind == "ValueError" and err.message == "error XYZ"
    assert "raise_error" in err.backtrace


def test_item39_backtrace_update_with_python_frames():
    echo = tvm_ffi.get_global_func("testing.echo")

    def raise_cxx_error():
        _raise()("ValueError", "error XYZ")

    try:
        raise_cxx_error()
    except ValueError as e:
        assert "raise_cxx_error" not in e.__tvm_ffi_error__.backtrace
        original = e.__tvm_ffi_error__
        err1 = tvm_ffi.convert(e)
        err2 = echo(e)
    assert "raise_cxx_error" in err1.backtrace
    assert "raise_cxx_error" in err2.backtrace
    assert "TestRaiseError" in err1.backtrace  # the C++ frames stay
    assert err1.same_as(original) and err2.same_as(original)  # the same Error, refreshed


@needs_prompt_free
def test_item40_no_reference_cycle():
    class SampleObject:
        pass

    refs = []

    def trigger():
        obj = SampleObject()
        refs.append(weakref.ref(obj))
        try:
            tvm_ffi.Map({})["missing key"]
        except KeyError:
            pass

    was = gc.isenabled()
    gc.disable()
    try:
        trigger()
        assert refs[0]() is None
        refs.clear()

        def trigger_call():
            obj = SampleObject()
            refs.append(weakref.ref(obj))
            try:
                _raise()("ValueError", "x")
            except ValueError:
                pass

        trigger_call()
        assert refs[0]() is None
    finally:
        if was:
            gc.enable()


def test_item40_map_missing_key_is_key_error():
    with pytest.raises(KeyError):
        tvm_ffi.Map({})["a"]


def test_item41_parse_backtrace():
    text = """
    File "test.py", line 1, in <module>
    File "test.py", line 3, in run_test
    """
    assert _parse_backtrace(text) == [("test.py", 1, "<module>"), ("test.py", 3, "run_test")]
    assert tvm_ffi.error._parse_backtrace(text)[1] == ("test.py", 3, "run_test")


@pytest.mark.parametrize("kind", ["InternalError", "NotImplementedError", "SomeUnknownKind"])
def test_item42_unregistered_kind_is_runtime_error(kind):
    with pytest.raises(RuntimeError) as info:
        _raise()(kind, "x")
    assert type(info.value) is RuntimeError
    assert str(info.value) == "x"
    assert info.value.__tvm_ffi_error__.kind == kind


@pytest.mark.parametrize("cls", [RuntimeError, ValueError, TypeError, AttributeError, KeyError,
                                 IndexError, AssertionError, MemoryError])
def test_spec141_default_table(cls):
    with pytest.raises(cls) as info:
        _raise()(cls.__name__, "msg %s" % cls.__name__)
    assert type(info.value) is cls
    assert info.value.args == ("msg %s" % cls.__name__,)
    assert core.ERROR_NAME_TO_TYPE[cls.__name__] is cls
    assert core.ERROR_TYPE_TO_NAME[cls] == cls.__name__


def test_item43_register_error():
    @tvm_ffi.register_error
    class ContractError(RuntimeError):
        pass

    assert core.ERROR_NAME_TO_TYPE["ContractError"] is ContractError
    assert core.ERROR_TYPE_TO_NAME[ContractError] == "ContractError"
    err = tvm_ffi.convert(ContractError("boom"))
    assert err.kind == "ContractError"
    assert isinstance(err.py_error(), ContractError)
    assert str(err.py_error()) == "boom"

    def f():
        raise ContractError("from callback")

    with pytest.raises(ContractError, match="from callback"):
        tvm_ffi.get_global_func("testing.apply")(f)
    with pytest.raises(ContractError, match="from cxx"):
        _raise()("ContractError", "from cxx")


def test_spec142_register_error_forms():
    class A(Exception):
        pass

    class B(Exception):
        pass

    assert tvm_ffi.error.register_error("ContractKindA", A) is A
    assert tvm_ffi.register_error("ContractKindB")(B) is B
    with pytest.raises(A):
        _raise()("ContractKindA", "a")
    with pytest.raises(B):
        _raise()("ContractKindB", "b")
    assert tvm_ffi.convert(B("b")).kind == "ContractKindB"


def test_spec142_exact_type_not_mro():
    class Sub(ValueError):
        pass

    def f():
        raise Sub("sub")

    with pytest.raises(RuntimeError) as info:
        tvm_ffi.get_global_func("testing.apply")(f)
    assert type(info.value) is RuntimeError and str(info.value) == "sub"
    assert tvm_ffi.convert(Sub("s")).kind == "RuntimeError"


def test_item44_printed_traceback_has_cxx_frame():
    def caller():
        _raise()("ValueError", "boom")

    try:
        caller()
    except ValueError as e:
        text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    files = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("File ")]
    user = next(i for i, ln in enumerate(files) if "in caller" in ln)
    cxx = next(i for i, ln in enumerate(files) if "TestRaiseError" in ln)
    assert user < cxx
    # the C++ frame names a C/C++ source file, not a Python one
    cxx_file = files[cxx].split('"')[1]
    assert not cxx_file.endswith(".py")
    # the package's call frame sits between the user frame and the native frames
    assert any("tvm_ffi" in ln for ln in files[user + 1:cxx])
    assert text.rstrip().endswith("ValueError: boom")


def test_spec143_callback_exception_kind_message():
    def f():
        raise IndexError("idx 3")

    with pytest.raises(IndexError, match="idx 3") as info:
        tvm_ffi.get_global_func("testing.apply")(f)
    err = info.value.__tvm_ffi_error__
    assert err.kind == "IndexError" and err.message == "idx 3"
    assert "in f" in err.backtrace


def test_spec145_error_object():
    e = core.Error("ValueError", "msg", '  File "a.cc", line 3, in f\n')
    assert e.kind == "ValueError" and e.message == "msg"
    assert e.backtrace == '  File "a.cc", line 3, in f\n'
    assert e.extra_context is None
    e.update_backtrace('  File "b.cc", line 4, in g\n')
    assert e.backtrace == '  File "b.cc", line 4, in g\n'
    exc = e.py_error()
    assert type(exc) is ValueError and str(exc) == "msg"
    assert exc.__tvm_ffi_error__.same_as(e)
    frames = traceback.extract_tb(exc.__traceback__)
    assert [(f.filename, f.lineno, f.name) for f in frames] == [("b.cc", 4, "g")]


def test_callback_error_leaves_slot_clean():
    f = tvm_ffi.convert(lambda: 1 / 0)
    with pytest.raises(RuntimeError, match="division by zero"):
        f()  # ZeroDivisionError is unregistered: it travels as RuntimeError
    assert error._move_raised_error() is None
    assert f.__chandle__() != 0


# --- item 44 with a C++ TVM_FFI_THROW (seed 001's traceback line) ---------------------------


_THROW_SRC = r"""
#include <tvm/ffi/function.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>
namespace my_ffi_extension {
void RaiseError(tvm::ffi::String msg) { TVM_FFI_THROW(ValueError) << msg; }
}  // namespace my_ffi_extension
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_error, my_ffi_extension::RaiseError);
"""


@pytest.fixture(scope="module")
def throw_module():
    return jit_load_inline("contract_throw", _THROW_SRC)


def test_item44_cxx_throw_frame(throw_module):
    def user_call():
        throw_module.raise_error("bad input")

    with pytest.raises(ValueError, match="^bad input$") as info:
        user_call()
    text = "".join(traceback.format_exception(info.type, info.value, info.tb))
    files = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("File ")]
    sig = "in void my_ffi_extension::RaiseError(tvm::ffi::String)"
    cxx = [i for i, ln in enumerate(files) if ln.endswith(sig)]
    assert len(cxx) == 1, text  # the throwing function once (not also its physical frame)
    assert files[cxx[0]].startswith('File "') and '.cpp", line ' in files[cxx[0]]
    user = next(i for i, ln in enumerate(files) if ln.endswith("in user_call"))
    assert user < cxx[0]
    assert any("tvm_ffi" in ln for ln in files[user + 1:cxx[0]])  # the package's call frame
    assert "ErrorBuilder" not in text  # C++ throw plumbing stays hidden
    assert "RaiseError" in info.value.__tvm_ffi_error__.backtrace


def test_errors_stay_on_their_thread():
    import threading

    raise_error = _raise()
    apply = tvm_ffi.get_global_func("testing.apply")
    failures = []

    def work(k):
        try:
            for i in range(200):
                msg = "t%d-%d" % (k, i)
                try:
                    raise_error("IndexError" if k % 2 else "KeyError", msg)
                except (IndexError, KeyError) as e:
                    assert type(e) is (IndexError if k % 2 else KeyError)
                    assert e.__tvm_ffi_error__.message == msg
                assert apply(lambda a: a + k, i) == i + k
                assert error._move_raised_error() is None
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
