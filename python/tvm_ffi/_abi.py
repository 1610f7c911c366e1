"""ABI-mode fallback of the call path (no compiled cffi module: PyPy, no compiler).

Implements in Python what the compiled fast path (``_ffi_src/``) does in C, with the same
conversion table (``_rules.py``: which handler a Python type or a type index gets) and the same
hooks of core.py: argument packing into ``TVMFFIAny`` arrays, result conversion, Python callbacks, opaque
Python objects and DLPack capsules (through ``_capi``: ``ctypes.pythonapi`` on CPython, a small
extension module on PyPy).  Correct but slow; the
DLPack C exchange API is not used here (its functions need the GIL, which cffi releases
around ABI-mode calls), so framework tensors go through ``__dlpack__``.
"""

import sys

from . import _capi, _conversion, _rules, _stack, _tensor
from ._type_index import kTVMFFIOpaquePyObject, kTVMFFITensor as K_TENSOR
from .error import _INTERPRETER_LIMIT

_INTERPRETER_LIMIT_C = _INTERPRETER_LIMIT.encode()  # set from C, when Python has no room left

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

# Python objects by address (ctypes.pythonapi): CPython.  Elsewhere (PyPy) opaque objects
# travel as cffi handles, and no wrapper can be found again from its address.
_BY_ADDRESS = _capi._api is not None
if _BY_ADDRESS:
    import ctypes

    _incref = _capi._api.Py_IncRef
    _incref.argtypes = [ctypes.py_object]
    _decref_ptr = _capi._api.Py_DecRef
    _decref_ptr.argtypes = [ctypes.c_void_p]

# where a native backtrace leaves FFI code (the runtime's own boundary rule, backtrace.c)
_BOUNDARY_PREFIXES = ("TVMFFIFunctionCall", "slot_tp_call", "object_is_not_callable", "_Py",
                      "PyObject", "cfunction_call", "cfunction_vectorcall")


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
            rule = _conversion._remember_type(memo, tp, classify(tp), exact)
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


def install(core):  # noqa: C901 - one closure per replaced hook
    ffi, lib = core.ffi, core.lib
    addr = core._addr

    _callbacks = {}  # handle address -> Python callable (kept alive until the deleter runs)
    _opaque = {}  # handle address -> cffi handle of an opaque object (no object addresses)
    _capi.install(ffi)

    def pyobj_from_ptr(p):
        if _BY_ADDRESS:
            return ctypes.cast(addr(p), ctypes.py_object).value
        return ffi.from_handle(p)

    is_finalizing = sys.is_finalizing

    # Deleters may run while the interpreter shuts down: then they leak instead of touching it.
    @ffi.callback("void(void*)")
    def decref_deleter(p):
        try:
            if not is_finalizing():
                if _BY_ADDRESS:
                    _decref_ptr(addr(p))
                else:
                    _opaque.pop(addr(p), None)
        except BaseException:  # noqa: BLE001
            pass

    @ffi.callback("void(void*)")
    def callback_deleter(p):
        try:
            if not is_finalizing():
                key = addr(p)
                _callbacks.pop(key, None)
                _callbacks.pop(("h", key), None)
        except BaseException:  # noqa: BLE001
            pass

    # error=-1: should even the handler below raise (the recursion limit reached in it), cffi
    # returns failure, which the caller reports as an error without an object; its default, 0,
    # reported success with a result never written
    guard = _stack.guard

    @ffi.callback("int(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)", error=-1)
    def safe_call(self, args, n, result):
        try:
            if guard.depth >= guard.limit:
                raise _stack.refuse()
            guard.depth += 1
            try:
                f = _callbacks[addr(self)]
                py_args = [from_any(args[i], False, None) for i in range(n)]
                to_owned_any(f(*py_args), result)
            finally:
                guard.depth -= 1
            return 0
        except BaseException as e:  # noqa: BLE001 - every exception becomes an FFI error
            tb = e.__traceback__
            if tb is not None and tb.tb_frame.f_code.co_filename == __file__:
                e.__traceback__ = tb.tb_next  # this trampoline is plumbing, not a user frame
            try:
                err = core._exc_to_error(e, native_caller_frames())
                lib.TVMFFIErrorSetRaised(ffi.cast("void*", err._h))
            except RecursionError:  # the interpreter's limit, reached in the conversion
                lib.TVMFFIErrorSetRaisedFromCStr(b"RecursionError", _INTERPRETER_LIMIT_C)
            return -1

    def native_caller_frames():
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

    def create_function(record, trampoline):
        """Handle of a new C Function whose calls run trampoline(self=a handle of record).  The
        record (and anything it holds: a callable, a keep-alive object) lives in _callbacks
        until the C object's deleter runs, not as long as some Python wrapper: the Function
        may outlive every wrapper inside an Array, a global, a field."""
        handle = ffi.new_handle(record)
        key = addr(handle)
        _callbacks[key] = record
        _callbacks[("h", key)] = handle
        out = ffi.new("void**")
        if lib.TVMFFIFunctionCreate(handle, trampoline, callback_deleter, out) != 0:
            _callbacks.pop(key, None)
            _callbacks.pop(("h", key), None)
            core._raise_ffi_error()
        return addr(out[0])

    def make_callback(pyfunc):
        return core._new_tied(core.Function, create_function(pyfunc, safe_call))

    def make_opaque(v):
        out = ffi.new("void**")
        if _BY_ADDRESS:
            _incref(v)
            if lib.TVMFFIObjectCreateOpaque(ffi.cast("void*", id(v)), kTVMFFIOpaquePyObject, decref_deleter, out) != 0:
                _decref_ptr(id(v))
                core._raise_ffi_error()
        else:
            handle = ffi.new_handle(v)
            _opaque[addr(handle)] = handle
            if lib.TVMFFIObjectCreateOpaque(handle, kTVMFFIOpaquePyObject, decref_deleter, out) != 0:
                _opaque.pop(addr(handle), None)
                core._raise_ffi_error()
        return core._new_wrapper(core.OpaquePyObject, addr(out[0]))

    def consume_capsule(cap, align, contig):
        out = ffi.new("void**")
        name = _capi.capsule_name(cap)
        if name == b"dltensor_versioned":
            p = ffi.cast("DLManagedTensorVersioned*", _capi.capsule_pointer(cap, name))
            if p.version.major != lib.DLPACK_MAJOR_VERSION:
                major = p.version.major
                if p.deleter != ffi.NULL:
                    p.deleter(p)
                _capi.capsule_mark_used(cap)
                raise BufferError("unsupported DLPack major version %d" % major)
            core._check(lib.TVMFFITensorFromDLPackVersioned(p, align, contig, out))
        elif name == b"dltensor":
            p = ffi.cast("DLManagedTensor*", _capi.capsule_pointer(cap, name))
            core._check(lib.TVMFFITensorFromDLPack(p, align, contig, out))
        elif type(cap).__name__ != "PyCapsule":  # what a producer's __dlpack__() returned
            raise ValueError("Expect a dltensor field: __dlpack__() returned %s, not a PyCapsule"
                             % type(cap).__name__)
        elif name is not None and name.startswith(b"used_dltensor"):
            raise ValueError("Expect a dltensor field, PyCapsule can only be consumed once")
        else:  # a capsule of something else (as in the compiled module's consume_capsule)
            raise ValueError('Expect a dltensor field: the PyCapsule is named %s, not "dltensor" '
                             'or "dltensor_versioned"'
                             % ('"%s"' % name.decode("utf-8", "replace") if name else "NULL"))
        _capi.capsule_mark_used(cap)
        return addr(out[0])

    def settle(r, align=0, contig=0):
        """The handle that an answer of _capi.import_tensor other than None stands for."""
        if r is False:  # the runtime refused the tensor
            core._raise_ffi_error()
        return consume_capsule(r[0], align, contig)  # (the capsule,): its checks and errors

    def import_handle(ext_tensor, align, contig):
        """A DLPack producer or capsule as a new Tensor handle (from_dlpack without the
        wrapper: an argument's tensor lives for the call only)."""
        tp = type(ext_tensor)
        if not core._SKIP_EXCHANGE and hasattr(tp, "__dlpack_c_exchange_api__"):
            # unused here, but validated as in API mode (ValueError for a malformed field)
            core._exchange_api_address(tp.__dlpack_c_exchange_api__)
        if not hasattr(tp, "__dlpack__") and core._capsule_name(ext_tensor) is None:
            raise TypeError("Expect from_dlpack to take either a compatible tensor or PyCapsule")
        r = _capi.import_tensor(ext_tensor, align, contig)
        return _capi.take_imported() if r is None else settle(r, align, contig)

    def from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False):
        h = import_handle(ext_tensor, require_alignment, 1 if require_contiguous else 0)
        return core._new_wrapper(core._CLASS_TENSOR, h)

    def tensor_capsule(self, versioned):
        if not self._h:
            raise BufferError("cannot export a tensor view without a handle")
        if versioned:
            out = ffi.new("DLManagedTensorVersioned**")
            core._check(lib.TVMFFITensorToDLPackVersioned(ffi.cast("void*", self._h), out))
        else:
            out = ffi.new("DLManagedTensor**")
            core._check(lib.TVMFFITensorToDLPack(ffi.cast("void*", self._h), out))
        return _capi.export_tensor(addr(out[0]), versioned)

    # the conversion table (_rules.py): result kind per type index, handler per Python type
    kinds, K = _rules.resolve(lib)
    n_static = len(kinds)
    object_begin = lib.kTVMFFIStaticObjectBegin  # from here on the payload is an object handle
    k_default, k_pod = K[_rules.DEFAULT_OBJECT], K[_rules.DEFAULT_POD]
    (K_NONE, K_INT, K_BOOL, K_FLOAT, K_SMALL_STR, K_SMALL_BYTES, K_RAW_STR, K_BYTE_ARRAY,
     K_RVALUE_REF, K_OPAQUE_PY) = (K[n] for n in (
        "NONE", "INT", "BOOL", "FLOAT", "SMALL_STR", "SMALL_BYTES", "RAW_STR", "BYTE_ARRAY",
        "RVALUE_REF", "OPAQUE_PY"))
    view_only = {K[k]: name for k, name in _rules.VIEW_ONLY.items()}

    identity = _conversion._IDENTITY

    def malformed(t, what):
        """What a C caller or kernel handed over that would be dereferenced (as results.c)."""
        return ValueError("tvm_ffi: value of type index %d is %s" % (t, what))

    def from_any(a, owned, api_obj):
        t = a.type_index
        k = kinds[t] if 0 <= t < n_static else k_pod if t < 0 else k_default
        if k == K_NONE:
            return None
        if k == K_INT:
            return a.v_int64
        if k == K_BOOL:
            return bool(a.v_int64)
        if k == K_FLOAT:
            return a.v_float64
        if k == K_SMALL_STR or k == K_SMALL_BYTES:
            if a.small_str_len > 7:
                raise malformed(t, "a small string longer than 7 bytes")
            data = bytes(ffi.buffer(a.v_bytes, a.small_str_len))
            return data.decode("utf-8", "surrogateescape") if k == K_SMALL_STR else data
        if k in view_only:
            if owned:
                raise ValueError("Return value cannot be %s" % view_only[k])
            if (k == K_RAW_STR or k == K_BYTE_ARRAY) and (
                    a.v_ptr == ffi.NULL or k == K_BYTE_ARRAY and
                    ffi.cast("TVMFFIByteArray*", a.v_ptr).data == ffi.NULL and
                    ffi.cast("TVMFFIByteArray*", a.v_ptr).size):
                raise malformed(t, "a NULL string")
            if k == K_RAW_STR:
                return ffi.string(a.v_c_str).decode("utf-8", "surrogateescape")
            if k == K_BYTE_ARRAY:
                return core._unpack_bytes(ffi.cast("TVMFFIByteArray*", a.v_ptr))
            slot = ffi.cast("void**", a.v_ptr)  # K_RVALUE_REF
            if slot == ffi.NULL or slot[0] == ffi.NULL:
                raise ValueError("RValueRef already moved")
            h = addr(slot[0])
            slot[0] = ffi.NULL
            return core._ret_object(core._type_index_of(h), h, True, api_obj)
        if t >= object_begin and k not in identity and a.v_obj == ffi.NULL:
            raise malformed(t, "a NULL object")
        if k == K_OPAQUE_PY:
            cell = ffi.cast("TVMFFIOpaqueObjectCell*", addr(a.v_obj) + core._OBJ_HEADER)
            obj = pyobj_from_ptr(cell.handle)
            if owned:
                core._decref(addr(a.v_obj))
            return obj
        if t >= object_begin:  # with identity tying, as _ffi_src/results.c
            return core._ret_object(t, addr(a.v_obj), owned, api_obj)
        return core._ret_obj(t, a.v_uint64, api_obj)

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
                core._decref(h)

    R_NONE, R_BOOL, R_INT, R_FLOAT, R_STR, R_BYTES, R_SEQUENCE, R_MAP = (
        _rules.ARG_RULES.index(n)
        for n in ("NONE", "BOOL", "INT", "FLOAT", "STR", "BYTES", "SEQUENCE", "MAP"))
    R_OBJECT, R_CONTAINER, R_POD, R_EXCHANGE, R_DLPACK, R_SLOW = (
        _rules.ARG_RULES.index(n)
        for n in ("OBJECT", "CONTAINER", "POD", "EXCHANGE", "DLPACK", "SLOW"))
    type_index_of = core._type_index_of
    # TVMFFIFunctionCall taking the handle as an integer: no pointer cdata made per call
    function_call_by_address = ffi.cast("int(*)(intptr_t, TVMFFIAny*, int32_t, TVMFFIAny*)",
                                         lib.TVMFFIFunctionCall)
    rule_of = _rule_lookup(core._classify)

    def pack(v, a, ctx, depth=0):  # noqa: C901 - the handlers of _ffi_src/pack.c
        tp = type(v)
        rule = rule_of(tp)
        code = rule[0] if type(rule) is tuple else rule
        a.zero_padding = 0
        # wrappers first: the shorter a tensor argument's path, the more of a call PyPy's JIT
        # keeps in one trace (three tensors through the whole chain outgrew its trace limit)
        if (code == R_OBJECT or code == R_CONTAINER) and v._h:
            h = v._h
            a.type_index = type_index_of(h)
            a.v_uint64 = h  # the handle's address: no pointer cdata made per argument
            if code == R_CONTAINER and ctx.api_obj is None and v._tvm_api is not None:
                ctx.api_obj = v._tvm_api
        elif code == R_DLPACK:
            # (its type has __dlpack__ and no exchange API: the classifier said so) a handle
            # owned by the call, no wrapper: a Tensor's finalizer cost ~1.5 us on PyPy, more
            # than the import; early in this chain, which PyPy's JIT traces per argument
            r = _capi.import_arg(v)  # (on PyPy all of it in C, when it can)
            h = _capi.take_imported() if r is None else _settle(r)
            if ctx.owned is None:  # (ctx.own inlined: its frame was ~10% of such a trace)
                ctx.owned = [h]
            else:
                ctx.owned.append(h)
            a.type_index = K_TENSOR
            a.v_uint64 = h
        elif code == R_NONE:
            a.type_index, a.v_int64 = 0, 0
        elif code == R_BOOL:
            a.type_index, a.v_int64 = 2, int(v)
        elif code == R_INT:
            if v < _INT64_MIN or v > _INT64_MAX:
                big = core._big_int_arg(v)  # an ffi.BigInt held for the call
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
                ba, buf = core._bytearray(data)
                fn = lib.TVMFFIStringFromByteArray if code == R_STR else lib.TVMFFIBytesFromByteArray
                core._check(fn(ba, a))
                ctx.own(addr(a.v_obj))
        elif depth > 64:
            raise RecursionError("tvm_ffi: argument nesting is too deep")
        elif code == R_SEQUENCE or code == R_MAP:
            w = ctx.seen.get(id(v)) if ctx.seen is not None else None
            if w is None:  # (a container met again in this call converts once: _ffi_src/pack.c)
                if code == R_SEQUENCE:
                    w = call_handle(core._global("ffi.Array")._h, list(v), ctx, depth + 1)
                else:
                    flat = []
                    for k, val in v.items():
                        flat += (k, val)
                    w = call_handle(core._global("ffi.Map")._h, flat, ctx, depth + 1)
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
                a.type_index = K_TENSOR
                a.v_uint64 = h
                return
            r = core._convert_slow(v)  # (a torch tensor: the table's legacy capsule row)
            ctx.hold(r)
            if type(r) is tuple and len(r) == 2:
                a.type_index, a.v_uint64 = r
            elif type(r) is tuple and len(r) == 4:
                if r[3] is not None:
                    ctx.api_obj = r[3]
                pack(r[0], a, ctx, depth + 1)
            else:
                pack(r, a, ctx, depth + 1)

    # Function.release_gil = False: cffi's ABI mode releases the GIL around every call, a
    # ctypes PYFUNCTYPE prototype of the same function keeps it (CPython; PyPy has no
    # PYFUNCTYPE and releases it)
    call_keeping_gil = None
    if _BY_ADDRESS:
        call_keeping_gil = ctypes.PYFUNCTYPE(
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p
        )(int(ffi.cast("uintptr_t", lib.TVMFFIFunctionCall)))

    # Argument and result buffers are reused: two ffi.new per call cost ~110 ns on PyPy, 20x
    # the foreign call.  A call takes a pair from the pool and gives it back after the result
    # is converted; nested calls (callbacks, containers) and other threads find the pool
    # empty and allocate (list.pop/append are atomic under the GIL).
    _POOL_ARGS = 8
    _pool = []

    def call_handle(h, args, ctx, depth=0, keep_gil=False):
        n = len(args)
        if n <= _POOL_ARGS and _pool:
            bufs = _pool.pop()
        else:
            bufs = (ffi.new("TVMFFIAny[]", max(n, _POOL_ARGS)), ffi.new("TVMFFIAny*"))
        try:
            return _call_with(h, args, ctx, depth, keep_gil, bufs[0], bufs[1])
        finally:
            if len(_pool) < 4:
                _pool.append(bufs)

    def call_with(h, args, ctx, depth, keep_gil, arr, result):
        n = len(args)
        # The first arguments packed without a loop: PyPy's JIT compiles a hot loop here as a
        # loop of its own, which the caller's trace then enters through a frame (~60 ns).
        if n > 0:
            _pack(args[0], arr + 0, ctx, depth)
            if n > 1:
                _pack(args[1], arr + 1, ctx, depth)
                if n > 2:
                    _pack(args[2], arr + 2, ctx, depth)
                    if n > 3:
                        _pack(args[3], arr + 3, ctx, depth)
                        for i in range(4, n):
                            _pack(args[i], arr + i, ctx, depth)
        result.type_index = 0
        result.zero_padding = 0
        result.v_int64 = 0
        try:
            if keep_gil and call_keeping_gil is not None:
                try:
                    rc = call_keeping_gil(h, addr(arr), n, addr(result))
                except BaseException:
                    # a signal polled by C++ left its exception pending: ctypes raised it;
                    # drop the EnvErrorAlreadySet error object from the slot
                    core._move_raised_error()
                    raise
            else:
                rc = function_call_by_address(h, arr, n, result)
        except SystemError as e:
            # C++ polled the registered PyErr_CheckSignals, which left e.g. KeyboardInterrupt
            # pending; cffi reports that as SystemError caused by it.  Raise the real one and
            # drop the EnvErrorAlreadySet error object from the slot.
            core._move_raised_error()
            if e.__cause__ is None:
                raise
            raise e.__cause__ from None
        if rc != 0:
            core._raise_ffi_error()
        return _from_any(result[0], True, ctx.api_obj)

    def function_call(*args):
        self = args[0]
        h = self._h
        if not h:  # TVMFFIFunctionCall trusts its handle, as upstream's
            raise ValueError("tvm_ffi: calling a Function with a NULL handle")
        ctx = Ctx()
        try:
            return _call_handle(h, args[1:], ctx, 0, not self.release_gil)
        finally:
            if ctx.owned or ctx.keep:
                ctx.release()

    def to_owned_any(value, out):
        ctx = Ctx()
        try:
            view = ffi.new("TVMFFIAny*")
            pack(value, view, ctx)
            core._check(lib.TVMFFIAnyViewToOwnedAny(view, out))
        finally:
            ctx.release()

    def from_owned_any(any_ptr):
        return from_any(any_ptr[0], True, None)

    def from_any_ptr_view(any_ptr):
        return from_any(any_ptr[0], False, None)

    def from_any_view(tidx, payload):
        a = ffi.new("TVMFFIAny*")
        a.type_index = tidx
        a.v_uint64 = payload
        return from_any(a[0], False, None)


    # C functions as Functions (as _ffi_src/callbacks.c make_extern): the callee gets self
    # NULL; a keep-alive object, and for an MLIR packed entry this trampoline's record, live
    # as long as the C object
    @ffi.callback("int(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)", error=-1)
    def extern_call(self, args, n, result):
        fn, entry, _ = _callbacks[addr(self)]
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
        fn = ffi.cast("TVMFFISafeCallType", c_symbol)
        if keep_alive_object is None:  # nothing to keep: the runtime calls it directly
            out = ffi.new("void**")
            core._check(lib.TVMFFIFunctionCreate(ffi.NULL, fn, ffi.NULL, out))
            return core._new_wrapper(core.Function, addr(out[0]))
        h = create_function((fn, None, keep_alive_object), extern_call)
        return core._new_wrapper(core.Function, h)

    def from_mlir(addr_, *, keep_alive_object=None):
        entry = ffi.cast("void(*)(void**)", addr_)
        h = create_function((None, entry, keep_alive_object), extern_call)
        return core._new_wrapper(core.Function, h)

    # The call path's functions call each other through module globals: a function the JIT
    # reads from a global is a constant, one read from a closure cell is not, and calling it
    # copies its closure cells into every new frame.
    global _pack, _from_any, _call_with, _call_handle, _settle
    _pack, _from_any, _call_with, _call_handle = pack, from_any, call_with, call_handle
    _settle = settle
    core.Function.__from_mlir_packed_safe_call__ = staticmethod(from_mlir)
    core.Function.__call__ = function_call
    core.Function.__from_extern_c__ = staticmethod(from_extern_c)
    core.Tensor._capsule = tensor_capsule
    _tensor.from_dlpack = from_dlpack
    _conversion._make_callback = make_callback
    _conversion._make_opaque = make_opaque
    _conversion._from_owned_any = from_owned_any
    _conversion._from_any_view = from_any_view
    _conversion._from_any_ptr_view = from_any_ptr_view
    _conversion._to_owned_any = to_owned_any
    core._install_test_api = lambda: None  # the test exchange table lives in the C helpers
    # spec 14.6: long C++ loops poll signals through these (_ffi_src/state.c does the same in C)
    for name, fn_addr in _capi.api_addresses().items():
        lib.TVMFFIEnvRegisterCAPI(name.encode(), ffi.cast("void*", fn_addr))
    core._abi_keepalive = (decref_deleter, callback_deleter, safe_call, extern_call, _callbacks,
                           _opaque)
