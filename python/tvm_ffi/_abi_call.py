"""ABI mode's call: ``Function.__call__`` without the compiled module (PyPy, no compiler,
``TVM_FFI_USE_ABI_MODE=1``), as ``_ffi_src/call.c`` and ``pack.c`` do in C.

Arguments are packed into a ``TVMFFIAny`` array by the handler the conversion table
(``_rules.py``) gives their type, the runtime is called (``TVMFFIFunctionCall``), and the
result is converted by ``_abi_results.from_any``.  Correct but slow: every field written from
Python is a cffi attribute store.

Hot functions call each other through module globals: PyPy's JIT reads a global (written
once) as a constant, a closure cell not.
"""

import sys

from . import _capi, _rules
from ._abi_dlpack import import_handle, settle
from ._abi_objects import BY_ADDRESS
from ._abi_results import from_any
from ._base import _addr, _bytearray, _decref, _type_index_of
from ._conversion import _big_int_arg, _classify, _convert_slow, _remember_type
from ._function import _global
from ._loader import ffi, lib
from ._type_index import kTVMFFITensor
from .error import _check, _move_raised_error, _raise_ffi_error

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _rule_lookup(classify):
    """rule_of(tp): the table's rule code (or (code, extra)) for arguments of type tp, as
    pack.c: the exact types, then the classifier (asked once per type).

    On PyPy the exact types are a generated chain of identity tests, which the JIT folds to a
    constant for a type it knows (a dict lookup stays a call per argument); elsewhere a dict."""
    exact = _rules.exact_types()
    memo = dict(exact)

    def classified(tp):
        rule = memo.get(tp)
        if rule is None:
            rule = _remember_type(memo, tp, classify(tp), exact)
        return rule

    if sys.implementation.name != "pypy":
        return classified
    # module globals, which the JIT reads as constants (a plain dict's entries it does not)
    ns = globals()
    ns["_classified"], ns["_memo"] = classified, memo
    lines = ["def _rule_of(tp):"]
    for i, (tp, code) in enumerate(exact):
        ns["_T%d" % i], ns["_C%d" % i] = tp, code
        lines.append("    if tp is _T%d: return _C%d" % (i, i))
    # the memo read here, not in a call of classified: a frame less in each argument's trace
    lines.append("    rule = _memo.get(tp)")
    lines.append("    return rule if rule is not None else _classified(tp)")
    exec("\n".join(lines), ns)  # noqa: S102 - code made from the table above, nothing else
    return ns["_rule_of"]


_rule_of = _rule_lookup(_classify)
R_NONE, R_BOOL, R_INT, R_FLOAT, R_STR, R_BYTES, R_SEQUENCE, R_MAP = (
    _rules.ARG_RULES.index(n)
    for n in ("NONE", "BOOL", "INT", "FLOAT", "STR", "BYTES", "SEQUENCE", "MAP"))
R_OBJECT, R_CONTAINER, R_POD, R_EXCHANGE, R_DLPACK, R_SLOW = (
    _rules.ARG_RULES.index(n)
    for n in ("OBJECT", "CONTAINER", "POD", "EXCHANGE", "DLPACK", "SLOW"))


class Ctx:
    """What a call's arguments hold until it returns (lists made on first use: most calls
    hold nothing, and the JIT then allocates nothing)."""

    __slots__ = ("keep", "owned", "api_obj", "n_containers", "seen")

    def __init__(self):
        self.keep = None  # Python values kept alive for the call
        self.owned = None  # handles of objects made for the call
        self.api_obj = None
        self.n_containers = 0
        self.seen = None  # id(container) -> its converted wrapper, past 256 containers

    def converted(self, v, w):
        if self.seen is None:
            self.n_containers += 1
            if self.n_containers <= 256:
                return
            self.seen = {}
        self.seen[id(v)] = w
        self.hold(v)  # (its id is a key: it must outlive the call)

    def hold(self, v):
        if self.keep is None:
            self.keep = []
        self.keep.append(v)

    def own(self, h):
        if self.owned is None:
            self.owned = [h]
        else:
            self.owned.append(h)

    def release(self):
        owned, self.owned, self.keep = self.owned, None, None
        for h in owned or ():
            _decref(h)


def pack(v, a, ctx, depth=0):  # noqa: C901 - the handlers of _ffi_src/pack.c
    """Writes argument v into the TVMFFIAny a; what it makes for the call goes to ctx."""
    tp = type(v)
    rule = _rule_of(tp)
    code = rule[0] if type(rule) is tuple else rule
    a.zero_padding = 0
    # wrappers first: the shorter a tensor argument's path, the more of a call PyPy's JIT
    # keeps in one trace (three tensors through the whole chain outgrew its trace limit)
    if (code == R_OBJECT or code == R_CONTAINER) and v._h:
        h = v._h
        a.type_index = _type_index_of(h)
        a.v_uint64 = h  # the handle's address: no pointer cdata made per argument
        if code == R_CONTAINER and ctx.api_obj is None and v._tvm_api is not None:
            ctx.api_obj = v._tvm_api
    elif code == R_DLPACK:
        # (its type has __dlpack__ and no exchange API: the classifier said so) a handle owned
        # by the call, no wrapper: a Tensor's finalizer cost ~1.5 us on PyPy, more than the
        # import; early in this chain, which PyPy's JIT traces per argument
        r = _capi.import_arg(v)  # (on PyPy all of it in C, when it can)
        h = _capi.take_imported() if r is None else settle(r)
        if ctx.owned is None:  # (ctx.own inlined: its frame was ~10% of such a trace)
            ctx.owned = [h]
        else:
            ctx.owned.append(h)
        a.type_index = kTVMFFITensor
        a.v_uint64 = h
    elif code == R_NONE:
        a.type_index, a.v_int64 = 0, 0
    elif code == R_BOOL:
        a.type_index, a.v_int64 = 2, int(v)
    elif code == R_INT:
        if v < _INT64_MIN or v > _INT64_MAX:
            big = _big_int_arg(v)  # an ffi.BigInt held for the call
            ctx.hold(big)
            a.type_index, a.v_uint64 = 78, big._h
        else:
            a.type_index, a.v_int64 = 1, v
    elif code == R_FLOAT:
        a.type_index, a.v_float64 = 3, v
    elif code == R_STR or code == R_BYTES:
        data = v.encode("utf-8") if code == R_STR else v
        if len(data) <= 7:
            a.type_index = 11 if code == R_STR else 12
            a.v_int64 = 0
            a.small_str_len = len(data)
            ffi.memmove(a.v_bytes, data, len(data))
        else:
            ba, buf = _bytearray(data)
            fn = lib.TVMFFIStringFromByteArray if code == R_STR else lib.TVMFFIBytesFromByteArray
            _check(fn(ba, a))
            ctx.own(_addr(a.v_obj))
    elif depth > 64:
        raise RecursionError("tvm_ffi: argument nesting is too deep")
    elif code == R_SEQUENCE or code == R_MAP:
        w = ctx.seen.get(id(v)) if ctx.seen is not None else None
        if w is None:  # (a container met again in this call converts once: _ffi_src/pack.c)
            if code == R_SEQUENCE:
                w = call_handle(_global("ffi.Array")._h, list(v), ctx, depth + 1)
            else:
                flat = []
                for k, val in v.items():
                    flat += (k, val)
                w = call_handle(_global("ffi.Map")._h, flat, ctx, depth + 1)
            ctx.hold(w)
            ctx.converted(v, w)
        pack(w, a, ctx, depth + 1)
    else:
        if code == R_POD:
            a.type_index, a.v_uint64 = v.__tvm_ffi_pod__
            return
        if code == R_EXCHANGE:
            torch = sys.modules.get("torch")
            if torch is not None and issubclass(tp, torch.Tensor):
                code = R_SLOW  # no exchange API here: torch takes the fallback (rule 10)
        if code == R_EXCHANGE:  # (as R_DLPACK above, the exchange field validated)
            h = import_handle(v, 0, 0)
            ctx.own(h)
            a.type_index = kTVMFFITensor
            a.v_uint64 = h
            return
        r = _convert_slow(v)  # (a torch tensor: the table's legacy capsule row)
        ctx.hold(r)
        if type(r) is tuple and len(r) == 2:
            a.type_index, a.v_uint64 = r
        elif type(r) is tuple and len(r) == 4:
            if r[3] is not None:
                ctx.api_obj = r[3]
            pack(r[0], a, ctx, depth + 1)
        else:
            pack(r, a, ctx, depth + 1)


# TVMFFIFunctionCall taking the handle as an integer: no pointer cdata made per call.  (Its
# address through ffi.addressof: an API-mode lib, which the layer tests import this module
# with, gives no function pointer for lib.TVMFFIFunctionCall under cffi < 2.)
_FUNCTION_CALL = ffi.addressof(lib, "TVMFFIFunctionCall")
_function_call_by_address = ffi.cast("int(*)(intptr_t, TVMFFIAny*, int32_t, TVMFFIAny*)",
                                     _FUNCTION_CALL)

# Function.release_gil = False: cffi's ABI mode releases the GIL around every call, a ctypes
# PYFUNCTYPE prototype of the same function keeps it (CPython; PyPy has no PYFUNCTYPE and
# releases it)
_call_keeping_gil = None
if BY_ADDRESS:
    import ctypes

    _call_keeping_gil = ctypes.PYFUNCTYPE(
        ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p
    )(int(ffi.cast("uintptr_t", _FUNCTION_CALL)))

# Argument and result buffers are reused: two ffi.new per call cost ~110 ns on PyPy, 20x the
# foreign call.  A call takes a pair from the pool and gives it back after the result is
# converted; nested calls (callbacks, containers) and other threads find the pool empty and
# allocate (list.pop/append are atomic under the GIL).
_POOL_ARGS = 8
_POOL = []


def call_handle(h, args, ctx, depth=0, keep_gil=False):
    """The result of calling the Function of handle h with the Python values args."""
    n = len(args)
    if n <= _POOL_ARGS and _POOL:
        bufs = _POOL.pop()
    else:
        bufs = (ffi.new("TVMFFIAny[]", max(n, _POOL_ARGS)), ffi.new("TVMFFIAny*"))
    try:
        return call_with(h, args, ctx, depth, keep_gil, bufs[0], bufs[1])
    finally:
        if len(_POOL) < 4:
            _POOL.append(bufs)


def call_with(h, args, ctx, depth, keep_gil, arr, result):
    """call_handle with the argument array arr and the result slot given."""
    n = len(args)
    # The first arguments packed without a loop: PyPy's JIT compiles a hot loop here as a
    # loop of its own, which the caller's trace then enters through a frame (~60 ns).
    if n > 0:
        pack(args[0], arr + 0, ctx, depth)
        if n > 1:
            pack(args[1], arr + 1, ctx, depth)
            if n > 2:
                pack(args[2], arr + 2, ctx, depth)
                if n > 3:
                    pack(args[3], arr + 3, ctx, depth)
                    for i in range(4, n):
                        pack(args[i], arr + i, ctx, depth)
    result.type_index = 0
    result.zero_padding = 0
    result.v_int64 = 0
    try:
        if keep_gil and _call_keeping_gil is not None:
            try:
                rc = _call_keeping_gil(h, _addr(arr), n, _addr(result))
            except BaseException:
                # a signal polled by C++ left its exception pending: ctypes raised it; drop
                # the EnvErrorAlreadySet error object from the slot
                _move_raised_error()
                raise
        else:
            rc = _function_call_by_address(h, arr, n, result)
    except SystemError as e:
        # C++ polled the registered PyErr_CheckSignals, which left e.g. KeyboardInterrupt
        # pending; cffi reports that as SystemError caused by it.  Raise the real one and
        # drop the EnvErrorAlreadySet error object from the slot.
        _move_raised_error()
        if e.__cause__ is None:
            raise
        raise e.__cause__ from None
    if rc != 0:
        _raise_ffi_error()
    return from_any(result[0], True, ctx.api_obj)


def function_call(*args):
    """Function.__call__ in ABI mode."""
    self = args[0]
    h = self._h
    if not h:  # TVMFFIFunctionCall trusts its handle, as upstream's
        raise ValueError("tvm_ffi: calling a Function with a NULL handle")
    ctx = Ctx()
    try:
        return call_handle(h, args[1:], ctx, 0, not self.release_gil)
    finally:
        if ctx.owned or ctx.keep:
            ctx.release()


def to_owned_any(value, out):
    """_conversion._to_owned_any: value packed, then made an owned Any in out."""
    ctx = Ctx()
    try:
        view = ffi.new("TVMFFIAny*")
        pack(value, view, ctx)
        _check(lib.TVMFFIAnyViewToOwnedAny(view, out))
    finally:
        ctx.release()
