"""Python <-> FFI value conversion: the hooks the call path delegates to.

The compiled fast path (``_ffi_src/pack.c``, ``results.c``) converts the common kinds itself
and calls these (through ``ffipy_config``) for the rest; ABI mode (``_abi_*.py``) calls them for
everything.  Arguments: ``_classify`` (the rule of a Python type, asked once per type) and
``_convert_slow`` (one step for the types no rule covers).  Results: ``_ret_obj`` (an object,
a Str/Bytes/Shape/Tensor value or a POD the fast path leaves to Python) and ``_ret_object``
(the same with wrapper identity, ABI mode).  ``CAny`` owns one converted value.
"""

import builtins as _builtins
import os
import sys

from . import _rules, _tensor
from ._base import (
    _cell_handle,
    _store,
    _FFI_ERROR,
    _OBJ_HEADER,
    _OK,
    _PY_ERROR,
    CObject,
    Object,
    ObjectRValueRef,
    _addr,
    _bytearray,
    _decref,
    _incref,
    _new_tied,
    _new_wrapper,
    _unpack_bytes,
)
from ._function import Function, _class_for_index
from ._identity import _tie, _tied
from ._loader import API_MODE, ffi, lib
from ._tensor import Shape, Tensor, _exchange_api_address
from ._type_index import (
    kTVMFFIDataType,
    kTVMFFIDevice,
    kTVMFFIDLTensorPtr,
    kTVMFFIOpaquePtr,
    kTVMFFIOpaquePyObject,
)
from ._values import (  # (DataType, Device, PyNativeObject: classes the table's CLASSIFY rows name)
    Bytes,
    DataType,
    Device,
    PyNativeObject,
    String,
    _device_from_payload,
    _dtype_pack,
)
from .error import _check, _exc_to_error, _raise_ffi_error, _take_exception

# the conversion table's result kinds (_rules.py), by type index
_KINDS, _KIND = _rules.resolve(lib)
_N_STATIC, _OBJECT_BEGIN = len(_KINDS), lib.kTVMFFIStaticObjectBegin
_K_POD, _K_OBJECT = _KIND[_rules.DEFAULT_POD], _KIND[_rules.DEFAULT_OBJECT]
_IDENTITY = frozenset(_KIND[k] for k in _rules.IDENTITY)
_CARRIES_API = frozenset(_KIND[k] for k in _rules.CARRIES_API)


def _kind(tidx):
    """The result kind (a code of _rules.RESULT_KINDS) of a type index."""
    return _KINDS[tidx] if 0 <= tidx < _N_STATIC else _K_POD if tidx < 0 else _K_OBJECT


def _tieable(tidx):
    """Whether results of this type index keep wrapper identity (the table's IDENTITY)."""
    return _kind(tidx) in _IDENTITY


class OpaquePyObject(CObject):
    """An FFI object (kTVMFFIOpaquePyObject) holding a strong reference to a Python object."""

    __slots__ = ()

    def pyobject(self):
        h = _cell_handle(self, kTVMFFIOpaquePyObject, "OpaquePyObject.pyobject")
        cell = ffi.cast("TVMFFIOpaqueObjectCell*", h + _OBJ_HEADER)
        return _from_any_view(kTVMFFIOpaquePyObject, h) if cell.handle else None


# ---------------------------------------------------------------------------------------------
# return conversion hooks (called from C for everything but the simple kinds)

_TORCH_FALLBACK = object()  # api marker: torch tensors without an exchange API


def _int_from_big_int(any_):
    """Python int of an Int/BigInt value (its words: least significant first, native order)."""
    ba = lib.TVMFFIBigIntGetContentByteArray(any_)
    data = bytes(ffi.buffer(ba.data, ba.size))
    if sys.byteorder == "little":
        return int.from_bytes(data, "little", signed=True)
    value = 0
    for i in reversed(range(0, len(data), 8)):
        value = (value << 64) | int.from_bytes(data[i:i + 8], "big")
    return value - (1 << (8 * len(data))) if data and data[-8] & 0x80 else value


def _big_int_arg(v):
    """An ffi.BigInt wrapper for a Python int beyond int64 (passed by reference to the call)."""
    n = ((v if v >= 0 else ~v).bit_length() + 64) // 64  # words with room for the sign bit
    if sys.byteorder == "little":
        data = v.to_bytes(8 * n, "little", signed=True)
    else:
        data = b"".join(((v >> (64 * i)) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big") for i in range(n))
    ba, buf = _bytearray(data)
    out = ffi.new("TVMFFIAny*")
    _check(lib.TVMFFIBigIntFromByteArray(ba, out))
    return _new_wrapper(Object, out.v_uint64)


(_K_BIG_INT, _K_STRING, _K_BYTES_OBJ, _K_TENSOR, _K_SHAPE, _K_OPAQUE_PTR, _K_DTYPE, _K_DEVICE,
 _K_DLTENSOR_PTR, _K_SMALL_STR, _K_SMALL_BYTES) = (_KIND[n] for n in (
    "BIG_INT", "STRING", "BYTES_OBJ", "TENSOR", "SHAPE", "OPAQUE_PTR", "DTYPE", "DEVICE",
    "DLTENSOR_PTR", "SMALL_STR", "SMALL_BYTES"))


def _ret_obj(tidx, payload, api_obj):
    """A result by its kind in the conversion table (what the C path leaves to Python)."""
    k = _KINDS[tidx] if 0 <= tidx < _N_STATIC else _kind(tidx)  # (no call for the common ones)
    if k == _K_STRING or k == _K_BYTES_OBJ:
        data = _unpack_bytes(ffi.cast("TVMFFIByteArray*", payload + _OBJ_HEADER))
        if k == _K_STRING:
            value = String(data.decode("utf-8", "surrogateescape"))
        else:
            value = Bytes(data)
        value._tvm_ffi_cached_object = _new_wrapper(Object, payload)
        return value
    if k == _K_BIG_INT:  # a Python int, the owned reference released
        any_ = ffi.new("TVMFFIAny*")
        any_.type_index, any_.v_uint64 = tidx, payload
        try:
            return _int_from_big_int(any_)
        finally:
            _decref(payload)
    if k == _K_TENSOR:
        t = _new_wrapper(_tensor._CLASS_TENSOR, payload)
        if api_obj is _TORCH_FALLBACK:
            try:
                import torch  # noqa: PLC0415 - optional, never imported by tvm_ffi itself

                return torch.from_dlpack(t)
            except Exception:  # noqa: BLE001 - fall back to tvm_ffi.Tensor
                return t
        return t
    if k == _K_SHAPE:
        return Shape._from_handle(payload)
    if tidx >= _OBJECT_BEGIN:  # any other object: the class registered for its index
        try:
            cls = _class_for_index(tidx)
        except BaseException:
            _decref(payload)  # an unregistered type index: the result is ours to drop
            raise
        obj = _new_wrapper(cls, payload)
        if api_obj is not None and k in _CARRIES_API:
            _store(obj, "_tvm_api", api_obj)
        return obj
    if k == _K_OPAQUE_PTR:
        import ctypes  # noqa: PLC0415 - ~1 ms: `import tvm_ffi` does not load it

        return ctypes.c_void_p(payload or None)
    if k == _K_DTYPE:
        from ._dtype import dtype  # noqa: PLC0415 - above core; `import tvm_ffi` skips it

        return dtype._from_packed(payload)
    if k == _K_DEVICE:
        return _device_from_payload(payload)
    if k == _K_DLTENSOR_PTR:
        t = _tensor._CLASS_TENSOR.__new__(_tensor._CLASS_TENSOR)
        _tensor._set_view(t, payload)
        return t
    raise ValueError("Unhandled type index %d" % tidx)


def _from_owned_any(any_ptr):
    """Convert an owned TVMFFIAny* (reference moved) to Python."""
    box = [None]
    if lib.ffipy_from_any(any_ptr, 1, id(box)) != _OK:
        raise _take_exception()
    return box[0]


def _from_any_view(tidx, payload):
    """Convert a view (type index + payload) to Python, taking a new reference for objects."""
    any_ = ffi.new("TVMFFIAny*")
    any_.type_index = tidx
    any_.v_uint64 = payload
    box = [None]
    if lib.ffipy_from_any(any_, 0, id(box)) != _OK:
        raise _take_exception()
    return box[0]


def _from_any_ptr_view(any_ptr):
    """Convert the value at a TVMFFIAny* to Python without taking it (objects get a new
    reference)."""
    box = [None]
    if lib.ffipy_from_any(any_ptr, 0, id(box)) != _OK:
        raise _take_exception()
    return box[0]


def _to_owned_any(value, out):
    box = [value]
    rc = lib.ffipy_to_any(id(box), out)
    if rc == _FFI_ERROR:
        _raise_ffi_error()
    if rc == _PY_ERROR:
        raise _take_exception()


# ---------------------------------------------------------------------------------------------
# argument conversion hooks

RULE_SLOW, RULE_OBJECT, RULE_EXCHANGE, RULE_POD, RULE_CONTAINER, RULE_DLPACK, RULE_SEQUENCE = (
    _rules.ARG_RULES.index(n)
    for n in ("SLOW", "OBJECT", "EXCHANGE", "POD", "CONTAINER", "DLPACK", "SEQUENCE"))
_SKIP_EXCHANGE = os.environ.get("TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API", "0") == "1"
_NO_TABLE = object()  # a type without __dlpack_c_exchange_api__


def _classify_row(test, arg, rule):
    """A CLASSIFY row with its class resolved: the binding's own or a builtin now, a module's as
    (module, name), looked up per type (the module may be imported later)."""
    if test in ("derives", "subclass"):
        if "." in arg:
            mod, _, attr = arg.rpartition(".")
            arg = (mod, attr)
        else:
            arg = globals().get(arg) or getattr(_builtins, arg)
    return (test, arg, _rules.ARG_RULES.index(rule))


# built at import: the first type classified (often a torch tensor's) would pay for it
_CLASSIFY_ROWS = tuple(_classify_row(test, arg, rule) for (test, arg), rule in _rules.CLASSIFY)
# a type deriving from this class and lacking the exchange table may get one from an add-on
# (_optional_torch_c_dlpack): left to _classify, which attaches it
_TABLE_LATER = ("torch", "Tensor")
# the rows as the compiled module walks them (classify.c): (test code, class, (module, name) or
# attribute, rule code); an exchange row's attribute is (name, _TABLE_LATER), and it is left
# out when the exchange API is skipped
_CLASSIFY_C = tuple(
    (_rules.CLASSIFY_TESTS.index(test), (arg, _TABLE_LATER) if test == "exchange" else arg, code)
    for test, arg, code in _CLASSIFY_ROWS if not (test == "exchange" and _SKIP_EXCHANGE))


def _classify(tp):
    """The argument rule of a type that is not one of the table's exact types: the first of the
    table's CLASSIFY rows that holds (asked once per type)."""
    mro = tp.__mro__
    for test, arg, code in _CLASSIFY_ROWS:
        if test == "derives" or test == "subclass":
            if type(arg) is tuple:  # None while the module is not imported
                arg = getattr(sys.modules.get(arg[0]), arg[1], None)
            if arg is not None and (arg in mro if test == "derives" else issubclass(tp, arg)):
                return code
        elif test == "has":
            if hasattr(tp, arg):
                return code
        elif test == "exchange" and not _SKIP_EXCHANGE:
            # each lookup on torch.Tensor goes through its metaclass's __getattr__: once here
            api = getattr(tp, arg, _NO_TABLE)
            if api is _NO_TABLE and API_MODE:
                later = getattr(sys.modules.get(_TABLE_LATER[0]), _TABLE_LATER[1], None)
                if later is not None and later in mro:
                    # first torch tensor seen (types are classified once): attach the torch C
                    # DLPack add-on now, whichever of torch and tvm_ffi was imported first (ABI
                    # mode cannot call the table, so it never builds one)
                    from ._optional_torch_c_dlpack import attach_on_first_tensor  # noqa: PLC0415

                    attach_on_first_tensor()
                    api = getattr(tp, arg, _NO_TABLE)
            if api is not _NO_TABLE:
                return (code, _exchange_api_address(api))
    return RULE_SLOW


def _pack_dtype_tuple(t):
    code, bits, lanes = (int(x) for x in t)
    return (kTVMFFIDataType, _dtype_pack(code, bits, lanes))


def _dtype_arg(code, what):
    if code is None:
        raise _UnsupportedDType("Unsupported %s" % what)
    return _pack_dtype_tuple(code)


class _UnsupportedDType(ValueError, KeyError):
    """A framework dtype with no DLPack code: ValueError for a call, KeyError for convert (as
    the apache package raises them)."""

    __str__ = ValueError.__str__


def _tensor_view(v):
    return (kTVMFFIDLTensorPtr, v._view) if not v._h and v._view else None


def _cany(v):  # its value as a view; the CAny outlives the call
    t = v._any.type_index  # (a small string's length is not in the payload)
    if t < _OBJECT_BEGIN and _kind(t) not in (_K_SMALL_STR, _K_SMALL_BYTES):
        return (t, v._any.v_uint64)
    return v.to_py()


def _ffi_object(v):
    obj = v.__tvm_ffi_object__()
    if not isinstance(obj, CObject):
        raise TypeError("__tvm_ffi_object__ must return an Object, got %r" % type(obj).__name__)
    return obj


def _cached(v):
    cached = getattr(v, "_tvm_ffi_cached_object", None)
    if cached is None:
        raise ValueError("%s has no cached object" % type(v).__name__)
    return cached


def _cached_str(v):
    cached = v._tvm_ffi_cached_object
    if cached is not None:
        return cached
    return str(v) if isinstance(v, str) else bytes(v)


def _torch_dtype(v):
    from ._dtype import _torch_dtype_code  # noqa: PLC0415 - above core, loaded on need

    return _dtype_arg(_torch_dtype_code(v), "torch dtype %s" % v)


def _numpy_dtype(v):
    from ._dtype import _numpy_dtype_code  # noqa: PLC0415 - above core, loaded on need

    return _dtype_arg(_numpy_dtype_code(v), "numpy dtype %s" % v)


def _dlpack_device(v):
    code, index = v.__dlpack_device__()
    return (kTVMFFIDevice, (int(code) & 0xFFFFFFFF) | ((int(index) & 0xFFFFFFFF) << 32))


def _ffi_value(v):
    r = v.__tvm_ffi_value__()
    return list(r) if type(r) is tuple else r


# the steps SLOW_ROWS names: what a call passes for a value of the row
_STEPS = {
    "tensor_view": _tensor_view,
    "empty_wrapper": lambda v: None,  # a wrapper without a handle
    "big_int": lambda v: _big_int_arg(v),  # beyond int64 (the fast path took the rest)
    "move": lambda v: v._take(),
    "cany": _cany,
    "ffi_object": _ffi_object,
    "cuda_stream": lambda v: (kTVMFFIOpaquePtr, int(v.__cuda_stream__()[1])),
    "torch_fallback": lambda v: _torch_fallback(sys.modules["torch"], v),
    "dlpack": lambda v: _tensor.from_dlpack(v),
    "bool": bool,
    "int": int,
    "float": float,
    "cached_str": _cached_str,
    "cached": _cached,
    "str": str,
    "bytes": bytes,
    "list": list,
    "dict": dict,
    "void_p": lambda v: (kTVMFFIOpaquePtr, v.value or 0),
    "opaque_ptr": lambda v: (kTVMFFIOpaquePtr, int(v.__tvm_ffi_opaque_ptr__())),
    "function": lambda v: convert_func(v),
    "torch_dtype": _torch_dtype,
    "numpy_dtype": _numpy_dtype,
    "dlpack_data_type": lambda v: _pack_dtype_tuple(v.__dlpack_data_type__()),
    "dlpack_device": _dlpack_device,
    "ffi_int": lambda v: int(v.__tvm_ffi_int__()),
    "ffi_float": lambda v: float(v.__tvm_ffi_float__()),
    "ffi_value": _ffi_value,
    "error": lambda v: _exc_to_error(v, append_native=False),
    "asobject": lambda v: v.asobject(),
    "opaque": lambda v: _make_opaque(v),
}


def _slow_test(test, arg):
    """A SLOW_ROWS test as a predicate on (type, its MRO)."""
    if test == "exact":
        cls = getattr(_builtins, arg)
        return lambda tp, mro: tp is cls
    if test == "has":
        return lambda tp, mro: hasattr(tp, arg)
    if test == "callable":  # the type's own __call__ (hasattr would find the metaclass's)
        return lambda tp, mro: any("__call__" in c.__dict__ for c in mro)
    mod, _, name = arg.rpartition(".")
    if test == "subclass":  # an ABC of the standard library (numbers): virtual subclasses too
        abc_cls = getattr(__import__(mod), name)
        return lambda tp, mro: issubclass(tp, abc_cls)
    if mod:  # a module's class: no type derives from it before the module is imported
        return lambda tp, mro: getattr(sys.modules.get(mod), name, None) in mro
    cls = globals().get(arg) or getattr(_builtins, arg)
    return lambda tp, mro: cls in mro


_SLOW_TESTS = None  # the rows' predicates, made on first use (CAny is defined below)
_SLOW_ROW_OF = {}  # type -> index of its row in SLOW_ROWS (asked once per type)
_TYPE_MEMO_MAX = 1024


def _remember_type(memo, tp, value, base=()):
    """memo[tp] = value, for a memo of per-type answers.  A program that makes classes at run
    time must not have them all kept alive by the memo: past _TYPE_MEMO_MAX entries it starts
    again from `base` (the answers are cheap to find again)."""
    if len(memo) >= _TYPE_MEMO_MAX:
        memo.clear()
        memo.update(base)
    memo[tp] = value
    return value


def _slow_row(tp, start=0):
    """The index of the first SLOW_ROWS row from `start` on whose test holds for type tp."""
    global _SLOW_TESTS
    i = _SLOW_ROW_OF.get(tp) if start == 0 else None
    if i is None:
        if _SLOW_TESTS is None:
            _SLOW_TESTS = [_slow_test(*row[0]) for row in _rules.SLOW_ROWS]
        mro = tp.__mro__
        i = next(i for i in range(start, len(_SLOW_TESTS)) if _SLOW_TESTS[i](tp, mro))
        if start == 0:
            _remember_type(_SLOW_ROW_OF, tp, i)
    return i


def _convert_slow(v):
    """One step of argument conversion for types the fast path does not know (SLOW_ROWS)."""
    return _STEPS[_rules.SLOW_ROWS[_slow_row(type(v))][1]](v)


def _torch_fallback(torch, v):
    """Rule 10: torch without an exchange API goes through a legacy capsule."""
    import torch.utils.dlpack  # noqa: PLC0415 - the caller holds a torch tensor

    t = _tensor.from_dlpack(torch.utils.dlpack.to_dlpack(v))
    dev = None
    stream = 0
    if v.device.type == "cuda":
        index = v.device.index or 0
        dev = (2 if torch.version.hip is None else 10, index)
        stream = torch.cuda.current_stream(index).cuda_stream
    return (t, dev, stream, _TORCH_FALLBACK)


def _make_opaque(v):
    box = [v]
    out = ffi.new("void**")
    if lib.ffipy_opaque_create(id(box), out) != _OK:
        _raise_ffi_error()
    return _new_wrapper(OpaquePyObject, _addr(out[0]))


def convert_func(pyfunc, tensor_cls=None):
    """Wrap a Python callable as an FFI Function."""
    if not callable(pyfunc):
        raise TypeError("convert_func expects a callable, got %s" % type(pyfunc).__name__)
    if tensor_cls is not None:
        if not hasattr(tensor_cls, "__dlpack_c_exchange_api__"):
            raise TypeError(
                "tensor_cls must define __dlpack_c_exchange_api__, got %r" % (tensor_cls,)
            )
        tag = _exchange_api_address(tensor_cls.__dlpack_c_exchange_api__)
        if API_MODE:  # the C callback converts the arguments through the table
            box = [pyfunc, tag]
            out = ffi.new("void**")
            rc = lib.ffipy_callback_create_with_api(id(box), ffi.cast("void*", tag), out)
            if rc == _FFI_ERROR:
                _raise_ffi_error()
            if rc != _OK:
                raise _take_exception()
            return _new_tied(Function, _addr(out[0]))
        inner = pyfunc

        def pyfunc(*args):
            return inner(*[_to_framework(tensor_cls, tag, a) for a in args])

    return _make_callback(pyfunc)


def _make_callback(pyfunc):
    box = [pyfunc]
    out = ffi.new("void**")
    if lib.ffipy_callback_create(id(box), out) != _OK:
        _raise_ffi_error()
    return _new_tied(Function, _addr(out[0]))


def _to_framework(tensor_cls, tag, a):
    """convert_func(tensor_cls=...) callback argument without the compiled module (which
    converts in C): tensors become tensor_cls tensors, containers a tagged copy of the wrapper
    whose tensor elements convert on access."""
    # (container: imported on first use, not by `import tvm_ffi`; a container exists only then)
    container = sys.modules.get(__package__ + ".container")
    if container is not None and isinstance(a, container.CContainerBase) and a._h:
        if a._tvm_api == tag:
            return a
        w = _new_wrapper(type(a), a._h)  # the caller's wrapper keeps its own tag
        _incref(a._h)
        _store(w, "_tvm_api", tag)
        return w
    if isinstance(a, Tensor):
        torch = sys.modules.get("torch")
        if torch is not None and issubclass(tensor_cls, torch.Tensor):
            return torch.from_dlpack(a)
    return a


# ---------------------------------------------------------------------------------------------
# CAny


class CAny:
    """Owns one converted value."""

    __slots__ = ("_any", "__weakref__")

    def __init__(self, value=None):
        self._any = ffi.new("TVMFFIAny*")
        _to_owned_any(value, self._any)

    @property
    def type_index(self):
        return self._any.type_index

    def __del__(self):
        a = getattr(self, "_any", None)
        if a is not None and a.type_index >= _OBJECT_BEGIN:
            _decref(_addr(a.v_obj))
            a.type_index = 0

    def __repr__(self):
        kind = _rules.RESULT_KINDS[_kind(self._any.type_index)]
        if kind == "NONE":
            return "CAny(None)"
        if kind in ("INT", "BOOL", "FLOAT"):
            return "CAny(%s=%r)" % (kind.lower(), self.to_py())
        return "CAny(object, type_index=%d)" % self._any.type_index

    def to_py(self):
        return _from_any_ptr_view(self._any)


# ---------------------------------------------------------------------------------------------
# object results with identity (ABI mode)


def _ret_object(tidx, h, owned, api_obj):
    """Object result with identity (ABI mode; _ffi_src/results.c does the same in C).

    Only owned results are tied: a callback's argument view gets a wrapper of its own.
    """
    tie = owned and _tieable(tidx)
    if tie:
        w = _tied(h)
        if w is not None:
            if owned:
                _decref(h)
            if api_obj is not None and _kind(tidx) in _CARRIES_API and w._tvm_api is None:
                _store(w, "_tvm_api", api_obj)
            return w
    if not owned:
        _incref(h)
    r = _ret_obj(tidx, h, api_obj)
    if tie and isinstance(r, CObject) and r._h == h:
        _tie(r, h)
    return r
