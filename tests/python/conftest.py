"""Shared fixtures of the tvm_ffi pytest suite.

The suite runs against the build tree (tests/python/run_pytest.sh sets TVM_FFI_LIBRARY_PATH,
TVM_FFI_MODULE_DIR and PYTHONPATH); run by hand from a built checkout with
``PYTHONPATH=python python3 -m pytest tests/python``.
"""

import gc

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
