"""``tvm_ffi.core``: the names of upstream's ``tvm_ffi.core`` (a Cython module there) that this
binding has, for downstream code and upstream's tests, and no others.

Each is defined in a module of the package, which the package itself imports it from
(tests/python/test_layers.py checks both).  Importing this module initialises the binding
(``_boot``).  The classes keep ``tvm_ffi.core`` as their module name: pickles, reprs and stubs
name them ``tvm_ffi.core.X``, which resolves here.  Names rebound at run time
(``_CLASS_TENSOR``, ``_CLASS_DEVICE``, ``_CLASS_OBJECT``) and those of modules ``import
tvm_ffi`` does not load are read through ``__getattr__``.
"""

from ._boot import _print_debug_info  # noqa: F401 - first: importing _boot initialises
# (every name below is re-exported; from_dlpack is the one the initialisation left in _tensor)
from ._base import CObject, FFIProperty, Object, ObjectRValueRef  # noqa: F401
from ._conversion import CAny, OpaquePyObject  # noqa: F401
from ._function import Function, _object_type_key_to_index  # noqa: F401
from ._tensor import (  # noqa: F401
    DLTensorTestWrapper,
    Tensor,
    __dlpack_version__,
    _set_class_tensor,
    from_dlpack,
)
from ._values import Bytes, DataType, Device, PyNativeObject, String  # noqa: F401
from ._values import _set_class_device, _set_class_object  # noqa: F401
from .error import ERROR_NAME_TO_TYPE, ERROR_TYPE_TO_NAME, Error  # noqa: F401

for _cls in (FFIProperty, CObject, Object, ObjectRValueRef, OpaquePyObject, PyNativeObject,
             String, Bytes, Function, Error, DataType, Device, Tensor, DLTensorTestWrapper):
    _cls.__module__ = __name__
del _cls


def __getattr__(name):
    """The names whose modules ``import tvm_ffi`` leaves to first use (json and dataclasses
    for the reflection records: ~7 ms), read there once; and the classes a setter rebinds at
    run time, read there each time."""
    module, attr = {
        "_CLASS_TENSOR": ("_tensor", "_CLASS_TENSOR"),
        "_CLASS_DEVICE": ("_values", "_CLASS_DEVICE"),
        "_CLASS_OBJECT": ("_values", "_CLASS_OBJECT"),
        "MISSING": ("_sentinels", "MISSING"),
        "KWARGS": ("_sentinels", "KWARGS"),
        "TypeField": ("_typeinfo", "TypeField"),
        "TypeInfo": ("_typeinfo", "TypeInfo"),
        "TypeMethod": ("_typeinfo", "TypeMethod"),
        "TypeSchema": ("_type_schema", "TypeSchema"),
        "_lookup_or_register_type_info_from_type_key": (
            "_typeinfo", "_lookup_or_register_type_info_from_type_key"),
        "_lookup_type_attr": ("_typeinfo", "_lookup_type_attr"),
        "_type_cls_to_type_info": ("_typeinfo", "_type_cls_to_type_info"),
        "_register_type_attr": ("_typeinfo", "_register_type_attr"),
        "_to_py_class_value": ("_type_convert", "to_py_class_value"),
        "_register_py_class": ("dataclasses._stepwise", "register_py_class"),
        "CContainerBase": ("container", "CContainerBase"),
        "ObjectConvertible": ("_convert", "ObjectConvertible"),
        "DLDeviceType": ("_device_type", "DLDeviceType"),
    }.get(name, (None, None))
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    # (imported here: a module-level import would add its name to this namespace)
    from importlib import import_module  # noqa: PLC0415

    value = getattr(import_module("." + module, __package__), attr)
    if name not in ("_CLASS_TENSOR", "_CLASS_DEVICE", "_CLASS_OBJECT"):
        globals()[name] = value
    return value
