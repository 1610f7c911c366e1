"""Shared fixtures of the tvm_ffi pytest suite.

The suite runs against the build tree (tests/python/run_pytest.sh sets TVM_FFI_LIBRARY_PATH,
TVM_FFI_MODULE_DIR and PYTHONPATH); run by hand from a built checkout with
``PYTHONPATH=python python3 -m pytest tests/python``.
"""

import gc
import os
import shutil
import signal
import sys
import tempfile

import pytest

import tvm_ffi
import tvm_ffi.error


def pytest_sessionstart(session):
    """run_pytest.sh's compiled-module legs: a module that builds but cannot be imported would
    otherwise run the suite in ABI mode, its API-mode tests skipped, and pass."""
    # ABI_MODE_REASON is None where ABI mode was asked for (TVM_FFI_USE_ABI_MODE=1)
    reason = tvm_ffi._loader.ABI_MODE_REASON
    if os.environ.get("TVM_FFI_TEST_EXPECT_API_MODE") == "1" and reason is not None:
        raise pytest.UsageError("tvm_ffi runs in ABI mode, the compiled module was expected: "
                                + reason)


@pytest.fixture
def echo():
    return tvm_ffi.get_global_func("testing.echo")


@pytest.fixture
def use_count():
    return tvm_ffi.get_global_func("testing.object_use_count")


@pytest.fixture
def np():
    return pytest.importorskip("numpy")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _error_slot_clean():
    """Every test must leave this thread's raised-error slot empty."""
    yield
    gc.collect()
    err = tvm_ffi.error._move_raised_error()
    assert err is None, "raised-error slot not clean: %s: %s" % (err.kind, err.message)


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt for the test's duration, as in a terminal.

    A suite started as a background job of a non-interactive shell (`sh -c 'make check &'`)
    inherits SIGINT ignored, and Python then installs no handler: the Ctrl-C tests, which
    check our polling of PyErr_CheckSignals, would wait out their loop for nothing."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


# What the PyPy leg (tests/python/run_pypy.sh) lacks; each marker names the missing piece.
ON_PYPY = sys.implementation.name == "pypy"
needs_refcounts = pytest.mark.skipif(
    not hasattr(sys, "getrefcount"), reason="sys.getrefcount: PyPy has no reference counts")
needs_pythonapi = pytest.mark.skipif(
    ON_PYPY, reason="a hand-made PyCapsule needs ctypes.pythonapi, which PyPy lacks")
needs_prompt_free = pytest.mark.skipif(
    ON_PYPY, reason="PyPy frees an object at its next GC, not when its last reference goes")
needs_gil_held_call = pytest.mark.skipif(
    ON_PYPY, reason="release_gil=False: PyPy's cffi releases the GIL around every foreign call "
    "and PyPy has no ctypes.PYFUNCTYPE to keep it")
needs_native_signal_check = pytest.mark.skipif(
    ON_PYPY, reason="PyErr_CheckSignals from native code: PyPy's cpyext does not see a pending "
    "SIGINT while a foreign call runs")
needs_cpython_layout = pytest.mark.skipif(
    ON_PYPY, reason="CPython's instance layout (__basicsize__, __slots__ without __weakref__ "
    "refusing weak references), which PyPy does not have")
needs_torch_addon = pytest.mark.skipif(
    ON_PYPY, reason="the torch C DLPack add-on: torch has no PyPy build")
needs_callback_native_frames = pytest.mark.skipif(
    ON_PYPY, reason="native frames below a Python callback: PyPy's cffi callback trampoline "
    "is not CPython's invoke_callback, where ABI mode cuts the capture")


def requires_global(name):
    """Skip marker for tests that need a runtime global another part of the tree provides."""
    present = tvm_ffi.get_global_func(name, allow_missing=True) is not None
    return pytest.mark.skipif(not present, reason="runtime lacks global function %s" % name)


def jit_load_inline(name, cpp_sources, **kwargs):
    """tvm_ffi.cpp.load_inline into a per-user cache shared by the suite's JIT tests (built once
    per content), skipping when no C++ compiler or ninja is installed."""
    if not shutil.which((os.environ.get("CXX") or "c++").split()[0]):
        pytest.skip("no C++ compiler")
    try:
        tvm_ffi.cpp.extension.tc.find_ninja()
    except RuntimeError:
        pytest.skip("ninja not installed")
    old = os.environ.get("TVM_FFI_CACHE_DIR")
    os.environ["TVM_FFI_CACHE_DIR"] = os.path.join(
        tempfile.gettempdir(), "tvm-ffi-jit-tests-%d" % os.getuid())
    try:
        return tvm_ffi.cpp.load_inline(name, cpp_sources=cpp_sources, **kwargs)
    finally:
        if old is None:
            del os.environ["TVM_FFI_CACHE_DIR"]
        else:
            os.environ["TVM_FFI_CACHE_DIR"] = old
