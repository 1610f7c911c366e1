"""tvm_ffi.testing: the ``testing.*`` global functions of the testing library as module
functions, the fixture classes bound to its C test types, and small test helpers.

The classes and helpers live in ``tvm_ffi.testing.testing`` (downstream tests import the
``requires_py3xx`` marks from there); this package re-exports every name of it.
"""

import inspect as _inspect

from ..registry import init_ffi_api as _init_ffi_api
from . import testing as _impl


def _defined_here(value):
    """True for what the implementation module defines (not the modules, classes and
    functions it imports)."""
    if _inspect.ismodule(value) or type(value).__module__ == "typing":
        return False
    if _inspect.isclass(value) or _inspect.isfunction(value):
        return value.__module__ == _impl.__name__
    return True


_init_ffi_api("testing", __name__)
# every name the implementation defines, private fixtures (_TestCxx*) included, so that a
# fixture added there needs no second list here
globals().update(
    {name: value for name, value in vars(_impl).items()
     if not name.startswith("__") and _defined_here(value)}
)
