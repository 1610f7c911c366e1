"""Shared fixtures of the tvm_ffi pytest suite.

The suite runs against the build tree (tests/python/run_pytest.sh sets TVM_FFI_LIBRARY_PATH,
TVM_FFI_MODULE_DIR and PYTHONPATH); run by hand from a built checkout with
``PYTHONPATH=python python3 -m pytest tests/python``.
"""

import gc
import os
import shutil
import tempfile

import pytest

import tvm_ffi


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
    err = tvm_ffi.core._move_raised_error()
    assert err is None, "raised-error slot not clean: %s: %s" % (err.kind, err.message)


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
