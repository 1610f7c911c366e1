"""The binding's initialisation, run once by the first import of ``tvm_ffi.core``: binds the
base classes to their type indices, then hands the compiled module (API mode) the classes and
Python hooks its C code calls (``ffipy_config``; it keeps the objects, module globals alive as
long as the interpreter), or puts ABI mode's call path in place (``_abi.install``)."""

import atexit
import sys

from . import _rules, _tensor
from ._base import _CLS_TYPE, _OK, _TYPE_CLS, CObject, Object, _decref, _ptr, _register_class
from ._conversion import _CLASSIFY_C, OpaquePyObject, _classify, _convert_slow, _ret_obj
from ._function import _RELEASE_GIL_DEFAULT, Function, _call_error, _global_handle
from ._loader import API_MODE, ffi, lib
from ._tensor import _CLASS_TENSOR_BOX, DLTensorTestWrapper, Tensor, _exchange_api_address
from ._type_index import (
    kTVMFFIError,
    kTVMFFIFunction,
    kTVMFFIObject,
    kTVMFFIOpaquePyObject,
    kTVMFFITensor,
)
from .error import Error, _exc_to_error, _take_exception

if not API_MODE:  # (API mode never loads the Python call path)
    from . import _abi


def _wrapper_kind(cls):
    """How the C fast path (_ffi_src/results.c) may build result wrappers of cls without
    calling Python (asked once per class): 1 only the handle to set, 2 a plain container (its
    `_tvm_api` tag too), 3 a Tensor subclass (its `_view` too), 0 never (a class with its own
    __new__ goes through _ret_obj)."""
    if issubclass(cls, Tensor) and cls.__new__ is Tensor.__new__:
        return 3
    if not issubclass(cls, Object):
        return 0
    if cls.__new__ is CObject.__new__:
        return 1
    # (a container class exists only once `container`, which `import tvm_ffi` leaves to first
    # use, is imported)
    container = sys.modules.get(__package__ + ".container")
    base = container.CContainerBase if container is not None else None
    if base is not None and issubclass(cls, base) and cls.__new__ is base.__new__:
        return 2
    return 0


_EXACT_RULES = _rules.exact_types()  # the C fast path keeps references to the types


def _init():
    _register_class(kTVMFFIObject, Object)
    _register_class(kTVMFFIError, Error)
    _register_class(kTVMFFIFunction, Function)
    _register_class(kTVMFFITensor, Tensor)
    _register_class(kTVMFFIOpaquePyObject, OpaquePyObject)
    if not API_MODE:
        _abi.install()
        return
    fa = _global_handle("ffi.Array")
    fm = _global_handle("ffi.Map")
    cfg = ffi.new("ffipy_config*")  # every object named here is a module global
    cfg.cobject_cls, cfg.function_cls, cfg.tensor_cls = id(CObject), id(Function), id(Tensor)
    cfg.tensor_cls_box = id(_CLASS_TENSOR_BOX)
    cfg.type_cls = id(_TYPE_CLS)
    cfg.test_wrapper = id(DLTensorTestWrapper)
    cfg.classify = id(_classify)
    cfg.classify_rows = id(_CLASSIFY_C)
    cfg.exchange_address = id(_exchange_api_address)
    cfg.exact_rules = id(_EXACT_RULES)
    cfg.rules_fingerprint = _rules.fingerprint()
    cfg.convert_slow = id(_convert_slow)
    cfg.ret_obj = id(_ret_obj)
    cfg.exc_to_error = id(_exc_to_error)
    cfg.wrapper_kind = id(_wrapper_kind)
    cfg.call_error = id(_call_error)
    cfg.fn_array, cfg.fn_map = _ptr(fa), _ptr(fm)
    cfg.release_gil_default = _RELEASE_GIL_DEFAULT
    rc = lib.ffipy_init(cfg)
    for h in (fa, fm):
        if h:
            _decref(h)
    if rc == -2:
        mod = getattr(sys.modules.get("tvm_ffi._ffi_cffi"), "__file__", "tvm_ffi._ffi_cffi")
        raise RuntimeError("tvm_ffi: the compiled module %s was built from another conversion "
                           "table (_rules.py changed since): rebuild it" % mod)
    if rc != 0:
        raise RuntimeError("tvm_ffi: failed to initialise the cffi fast path")
    # (ffipy_init also gave DLTensorTestWrapper its __dlpack_c_exchange_api__ capsule)
    box = [CObject]
    if lib.ffipy_make_builtins(id(box)) == _OK:
        _tensor.from_dlpack = box[0]
        CObject.__del__ = box[1]
        if box[2] is not None:  # the Python ones stay for ABI mode
            Tensor.__dlpack__ = box[2]
            Tensor.__dlpack_device__ = box[3]
    else:  # the Python versions of these stay: slower, not different
        _take_exception()
    atexit.register(lib.ffipy_set_finalizing)


def _print_debug_info():
    """Print the binding's dispatch state (benchmark scripts call it after a run, as
    ``tvm_ffi.core._print_debug_info``)."""
    print("tvm_ffi binding: %s mode, %d Python classes bound to FFI type indices"
          % ("API" if API_MODE else "ABI", len(_CLS_TYPE)))


_init()
