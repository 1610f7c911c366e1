"""ABI mode: Functions whose calls run Python (callables passed as arguments or converted) or
a C symbol (``Function.__from_extern_c__``, MLIR packed entries), as ``_ffi_src/callbacks.c``
does in the compiled module.

A C Function made here carries a cffi handle of its record (the callable, or the C entry and
a keep-alive object); ``_CALLBACKS`` keeps the record until the C object's deleter runs, not
as long as some Python wrapper: the Function may outlive every wrapper inside an Array, a
global, a field.
"""

import sys

from . import _stack, error
from ._abi_call import to_owned_any
from ._abi_results import from_any
from ._base import _addr, _new_tied, _new_wrapper
from ._function import Function
from ._loader import ffi, lib
from .error import _INTERPRETER_LIMIT, _check, _raise_ffi_error

_INTERPRETER_LIMIT_C = _INTERPRETER_LIMIT.encode()  # set from C, when Python has no room left

# where a native backtrace leaves FFI code (the runtime's own boundary rule, backtrace.c)
_BOUNDARY_PREFIXES = ("TVMFFIFunctionCall", "slot_tp_call", "object_is_not_callable", "_Py",
                      "PyObject", "cfunction_call", "cfunction_vectorcall")

_CALLBACKS = {}  # handle address -> record; ("h", address) -> the cffi handle itself


# Deleters may run while the interpreter shuts down: then they leak instead of touching it.
@ffi.callback("void(void*)")
def _callback_deleter(p, _is_finalizing=sys.is_finalizing):
    try:
        if not _is_finalizing():
            key = _addr(p)
            _CALLBACKS.pop(key, None)
            _CALLBACKS.pop(("h", key), None)
    except BaseException:  # noqa: BLE001
        pass


def _native_caller_frames():
    """The native frames between this callback and the FFI boundary (e.g. the C function
    that called it), innermost first.  A capture that stops at the boundary would stop at
    the interpreter frames running this callback: capture across it and keep the part
    after cffi's callback trampoline, up to the next boundary frame."""
    bt = lib.TVMFFIBacktrace(ffi.NULL, 0, ffi.NULL, 1)
    if bt == ffi.NULL or not bt.size:
        return ""
    lines = ffi.unpack(bt.data, bt.size).decode("utf-8", "replace").splitlines(True)
    out = []
    for i, line in enumerate(lines):
        if line.rstrip().endswith(" in invoke_callback"):
            for frame in lines[i + 1:]:
                func = frame.rstrip().rsplit(" in ", 1)[-1]
                if func.startswith(_BOUNDARY_PREFIXES):
                    break
                out.append(frame)
            break
    return "".join(out)


_guard = _stack.guard


# error=-1: should even the handler below raise (the recursion limit reached in it), cffi
# returns failure, which the caller reports as an error without an object; its default, 0,
# reported success with a result never written
@ffi.callback("int(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)", error=-1)
def _safe_call(self, args, n, result):
    try:
        if _guard.depth >= _guard.limit:
            raise _stack.refuse()
        _guard.depth += 1
        try:
            f = _CALLBACKS[_addr(self)]
            py_args = [from_any(args[i], False, None) for i in range(n)]
            to_owned_any(f(*py_args), result)
        finally:
            _guard.depth -= 1
        return 0
    except BaseException as e:  # noqa: BLE001 - every exception becomes an FFI error
        tb = e.__traceback__
        if tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            e.__traceback__ = tb.tb_next  # this trampoline is plumbing, not a user frame
        try:
            # (read from the module at each call: a test replaces it)
            err = error._exc_to_error(e, _native_caller_frames())
            lib.TVMFFIErrorSetRaised(ffi.cast("void*", err._h))
        except RecursionError:  # the interpreter's limit, reached in the conversion
            lib.TVMFFIErrorSetRaisedFromCStr(b"RecursionError", _INTERPRETER_LIMIT_C)
        return -1


def _create_function(record, trampoline):
    """Handle of a new C Function whose calls run trampoline(self=a handle of record)."""
    handle = ffi.new_handle(record)
    key = _addr(handle)
    _CALLBACKS[key] = record
    _CALLBACKS[("h", key)] = handle
    out = ffi.new("void**")
    if lib.TVMFFIFunctionCreate(handle, trampoline, _callback_deleter, out) != 0:
        _CALLBACKS.pop(key, None)
        _CALLBACKS.pop(("h", key), None)
        _raise_ffi_error()
    return _addr(out[0])


def make_callback(pyfunc):
    """_conversion._make_callback: a Function calling the Python callable pyfunc."""
    return _new_tied(Function, _create_function(pyfunc, _safe_call))


# C functions as Functions (as _ffi_src/callbacks.c make_extern): the callee gets self NULL;
# a keep-alive object, and for an MLIR packed entry this trampoline's record, live as long as
# the C object
@ffi.callback("int(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)", error=-1)
def _extern_call(self, args, n, result):
    fn, entry, _ = _CALLBACKS[_addr(self)]
    if fn is not None:
        return fn(ffi.NULL, args, n, result)
    # the packed slots point to: handle, args pointer, count, result pointer, return code
    handle = ffi.new("void**")
    a = ffi.new("const TVMFFIAny**", args)
    nn = ffi.new("int32_t*", n)
    r = ffi.new("TVMFFIAny**", result)
    rc = ffi.new("int*")
    entry(ffi.new("void*[5]", [handle, a, nn, r, rc]))
    return rc[0]


def from_extern_c(c_symbol, *, keep_alive_object=None):
    """Function.__from_extern_c__ in ABI mode."""
    fn = ffi.cast("TVMFFISafeCallType", c_symbol)
    if keep_alive_object is None:  # nothing to keep: the runtime calls it directly
        out = ffi.new("void**")
        _check(lib.TVMFFIFunctionCreate(ffi.NULL, fn, ffi.NULL, out))
        return _new_wrapper(Function, _addr(out[0]))
    return _new_wrapper(Function, _create_function((fn, None, keep_alive_object), _extern_call))


def from_mlir(addr, *, keep_alive_object=None):
    """Function.__from_mlir_packed_safe_call__ in ABI mode."""
    entry = ffi.cast("void(*)(void**)", addr)
    return _new_wrapper(Function, _create_function((None, entry, keep_alive_object),
                                                   _extern_call))
