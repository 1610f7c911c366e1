"""What the atheris targets of issue 22 item 11 share (fuzz_py_json, _blob, _class)."""

import tvm_ffi
import tvm_ffi.error


def check_slot():
    """Every call must leave this thread's raised-error slot empty."""
    err = tvm_ffi.error._move_raised_error()
    assert err is None, "raised-error slot not clean: %s: %s" % (err.kind, err.message)
