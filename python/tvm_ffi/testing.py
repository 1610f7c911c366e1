"""tvm_ffi.testing: the testing.* global functions and small helpers."""

import os
import tempfile

import pytest  # noqa: F401 - the upstream module requires pytest too

from .registry import get_global_func, init_ffi_api

init_ffi_api("testing", __name__)


def create_object(type_key, **kwargs):
    args = [type_key]
    for k, v in kwargs.items():
        args.append(k)
        args.append(v)
    return get_global_func("ffi.MakeObjectFromPackedArgs")(*args)


def make_unregistered_object():
    return get_global_func("testing.make_unregistered_object")()


def add_one(x):
    return get_global_func("testing.add_one")(x)


def run_with_gpu_lock(func, /, *args, **kwargs):
    import fcntl  # noqa: PLC0415

    lock_dir = os.environ.get("TVM_FFI_TEST_LOCK_DIR") or os.path.join(
        tempfile.gettempdir(), "tvm-ffi-test-locks-%s" % os.environ.get("USER", "user")
    )
    os.makedirs(lock_dir, exist_ok=True)
    with open(os.path.join(lock_dir, "gpu.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            return func(*args, **kwargs)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)

