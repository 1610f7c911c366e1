"""``tvm_ffi.core``: the facade of the binding's layers, and the initialisation of its call path.

Downstream code (and upstream's tests) import the binding's names from here; they are defined
in the layer modules below, in import order.  Each layer imports only the ones before it at
module level; a call up into a later layer imports it inside the function, with a comment
saying why (tests/python/test_layers.py checks both, reading ``_LAYERS``).  Names a layer
rebinds at run time (``_CLASS_TENSOR``, ``_CLASS_DEVICE``) are read through ``__getattr__``,
never copied; the ones ``_init`` and ABI mode's ``_abi.install`` replace are bound after
``_init``.  The hot path (argument packing, the call, result conversion) is C code inside the
cffi module (``_ffi_src/``, entry points in ``helpers.h``).
"""

import atexit
import sys

from . import _loader, _rules, _tensor, _values  # noqa: F401
from ._base import (  # noqa: F401 - re-exported
    _CLS_TYPE,
    _FFI_ERROR,
    _OBJ_HEADER,
    _OK,
    _PY_ERROR,
    _TYPE_CLS,
    _TYPE_INFO,
    FFIProperty,
    CObject,
    Object,
    ObjectRValueRef,
    _addr,
    _bytearray,
    _decref,
    _drop,
    _incref,
    _MovedArg,
    _new_tied,
    _new_wrapper,
    _ObjectMeta,
    _ptr,
    _RefusingFFIProperty,
    _register_class,
    _seal_slot,
    _store,
    _restore_object,
    _set_h,
    _tie,
    _tied,
    _tied_count,
    _type_index_of,
    _unpack_bytes,
    _untie,
)
from ._conversion import (  # noqa: F401 - re-exported
    OpaquePyObject,
    _big_int_arg,
    CAny,
    _CARRIES_API,
    _classify,
    _CLASSIFY_C,
    _CLASSIFY_ROWS,
    convert_func,
    _convert_slow,
    _IDENTITY,
    _K_BIG_INT,
    _K_BYTES_OBJ,
    _K_DEVICE,
    _K_DLTENSOR_PTR,
    _K_DTYPE,
    _K_OBJECT,
    _K_OPAQUE_PTR,
    _K_POD,
    _K_SHAPE,
    _K_SMALL_BYTES,
    _K_SMALL_STR,
    _K_STRING,
    _K_TENSOR,
    _KIND,
    _KINDS,
    _N_STATIC,
    _OBJECT_BEGIN,
    _int_from_big_int,
    _kind,
    _NO_TABLE,
    _pack_dtype_tuple,
    _ret_obj,
    _ret_object,
    _classify_row,
    RULE_CONTAINER,
    RULE_DLPACK,
    RULE_EXCHANGE,
    RULE_OBJECT,
    RULE_POD,
    RULE_SEQUENCE,
    RULE_SLOW,
    _SKIP_EXCHANGE,
    _tieable,
    _to_framework,
    _TORCH_FALLBACK,
    _torch_fallback,
)
from ._function import (  # noqa: F401 - re-exported
    _GLOBAL_CACHE,
    _LAZY_CLASS_MODULES,
    _RELEASE_GIL_DEFAULT,
    Function,
    _call_error,
    _class_for_index,
    _global,
    _global_handle,
    _sentinel,
    _testing_first,
    _object_type_key_to_index,
    _type_key,
    _type_key_to_index,
)
from ._loader import API_MODE, ffi, lib  # noqa: F401 - re-exported
from ._tensor import (  # noqa: F401 - re-exported (_CLASS_TENSOR: see __getattr__)
    _CLASS_TENSOR_BOX,
    DLPackExchangeAPIError,
    DLTensorTestWrapper,
    Tensor,
    __dlpack_version__,
    _capsule_name,
    _exchange_api_address,
    _exchange_api_fields,
    _exchange_api_refusal,
    _set_class_tensor,
)
from ._type_index import (
    kTVMFFIError,
    kTVMFFIFunction,
    kTVMFFIObject,
    kTVMFFIOpaquePyObject,
    kTVMFFITensor,
)
from ._values import (  # noqa: F401 - re-exported (_CLASS_DEVICE: see __getattr__)
    _DEVICE_CODE_TO_NAME,
    _DEVICE_NAME_TO_CODE,
    _DTYPE_TEXT_CACHE,
    Bytes,
    DataType,
    Device,
    PyNativeObject,
    String,
    _device_from_payload,
    _device_index,
    _dtype_pack,
    _dtype_text,
    _is_integral,
    _make_datatype,
    _make_device,
    _parse_dtype,
    _set_class_device,
)
from .error import (  # noqa: F401 - re-exported
    ERROR_NAME_TO_TYPE,
    ERROR_TYPE_TO_NAME,
    Error,
    _check,
    _exc_message,
    _exc_to_error,
    _exit_code,
    _move_raised_error,
    _raise_ffi_error,
    _restore_error,
    _take_exception,
    _utf8,
)

if not API_MODE:  # (API mode never loads the Python call path)
    from . import _abi

# Classes keep the module name they have always had (and upstream's package gives them):
# pickles, reprs and stubs name them tvm_ffi.core.X, which resolves here.
for _cls in (FFIProperty, _RefusingFFIProperty, CObject, _ObjectMeta, Object, ObjectRValueRef,
             _MovedArg, OpaquePyObject, PyNativeObject, String, Bytes, Function, Error, DataType,
             Device, DLPackExchangeAPIError, Tensor, DLTensorTestWrapper):
    _cls.__module__ = __name__
del _cls

_LAYERS = (
    "_loader",  # the runtime and the cffi module: ffi, lib, API_MODE
    "_type_index",  # the kTVMFFI... type indices by name
    "_rules",  # the conversion table (data only)
    "_capi",  # the Python C-API calls ABI mode and capsules need
    "_base",  # handles, wrapper identity, CObject/Object, type index -> class
    "error",  # errors: every crossing between C and Python, register_error
    "_values",  # String/Bytes, DataType, Device
    "_function",  # Function, global functions, type keys
    "_tensor",  # Tensor, from_dlpack and the exchange API, Shape, device()
    "container",  # Array, List, Map, Dict
    "_conversion",  # the hooks the call path delegates to, CAny, OpaquePyObject
    "_stack",  # ABI mode's C stack guard for nested callbacks (a leaf: imports no layer)
    # ABI mode, the fallback without the compiled module (PyPy, no compiler): its files by job
    "_abi_objects",  # Python objects as opaque objects
    "_abi_dlpack",  # tensors through DLPack capsules
    "_abi_results",  # TVMFFIAny to Python, by the table's result kinds
    "_abi_call",  # the call: arguments packed by the table's handlers, TVMFFIFunctionCall
    "_abi_callbacks",  # Python callables and C symbols as Functions
    "_abi",  # install: puts the above in place of the compiled module's entry points
    "core",  # this facade; _init
)




# ---------------------------------------------------------------------------------------------
# initialisation


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
    cfg = ffi.new("ffipy_config*")  # every object named here is a global of this module
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


_init()
# bound after _init, which replaces them where they are defined (ABI mode: _abi.install)
from ._tensor import from_dlpack  # noqa: E402, F401 - re-exported
from ._conversion import (  # noqa: E402, F401 - re-exported
    _from_any_ptr_view,
    _from_any_view,
    _from_owned_any,
    _make_callback,
    _make_opaque,
    _to_owned_any,
)

# MISSING and KWARGS (the runtime's sentinel objects) are fetched on first access (__getattr__)


def _init_sentinels():
    global MISSING, KWARGS
    MISSING = _sentinel("ffi.GetInvalidObject")
    KWARGS = _sentinel("ffi.GetKwargsObject")


# reflection records (docs/python.md §4.7) come from _typeinfo, which builds on this module and
# imports dataclasses and json (~7 ms): its names are resolved on first access, keeping
# `import tvm_ffi` fast
_TYPEINFO_NAMES = frozenset((
    "TypeField", "TypeInfo", "TypeMethod", "TypeSchema",
    "_lookup_or_register_type_info_from_type_key", "_lookup_type_attr", "_type_cls_to_type_info",
    "_register_type_attr",
))


def _print_debug_info():
    """Print the binding's dispatch state (benchmark scripts call it after a run)."""
    print("tvm_ffi binding: %s mode, %d Python classes bound to FFI type indices"
          % ("API" if API_MODE else "ABI", len(_CLS_TYPE)))


# rebound at run time by _set_class_tensor/_set_class_device: read where they live
_FORWARDED = {"_CLASS_TENSOR": _tensor, "_CLASS_DEVICE": _values}


def __getattr__(name):
    if name in ("MISSING", "KWARGS"):
        _init_sentinels()
        return globals()[name]
    module = _FORWARDED.get(name)
    if module is not None:
        return getattr(module, name)
    if name in _TYPEINFO_NAMES:
        from . import _typeinfo  # noqa: PLC0415 - see _TYPEINFO_NAMES

        value = getattr(_typeinfo, name)
        globals()[name] = value
        return value
    if name == "_to_py_class_value":  # reads a TypeSchema.convert() result
        from ._type_convert import to_py_class_value  # noqa: PLC0415 - it imports core

        globals()[name] = to_py_class_value
        return to_py_class_value
    if name == "_register_py_class":  # a step of py_class (dataclasses/_stepwise.py)
        from .dataclasses._stepwise import register_py_class  # noqa: PLC0415 - imports core

        globals()[name] = register_py_class
        return register_py_class
    if name == "CContainerBase":
        from .container import CContainerBase  # noqa: PLC0415 - first use: not in `import tvm_ffi`

        globals()[name] = CContainerBase
        return CContainerBase
    if name == "ObjectConvertible":  # defined with convert(), which imports core
        from ._convert import ObjectConvertible  # noqa: PLC0415 - _convert imports core

        globals()[name] = ObjectConvertible
        return ObjectConvertible
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
