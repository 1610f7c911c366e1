"""The runtime's sentinel objects: ``MISSING`` (ffi.GetInvalidObject, "no value given") and
``KWARGS`` (ffi.GetKwargsObject, the marker before the keyword arguments of a packed call);
None where the runtime has no such global.  Fetched when this module is first imported, which
``import tvm_ffi`` does not do (``core`` serves them on first access)."""

from ._function import _sentinel

MISSING = _sentinel("ffi.GetInvalidObject")
KWARGS = _sentinel("ffi.GetKwargsObject")
