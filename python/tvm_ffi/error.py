"""Errors, every crossing in one module: an FFI error raised in C becomes a Python exception
(``_raise_ffi_error``, ``Error.py_error``: the kind picks the class, the stored backtrace
becomes traceback frames), a Python exception becomes an FFI error (``_exc_to_error``, for
callbacks and conversions), and ``register_error`` maps a kind to an exception class."""

import sys
import types

from ._base import (
    _cell_handle,
    _OBJ_HEADER,
    _OK,
    CObject,
    _addr,
    _bytearray,
    _incref,
    _ptr,
    _set_h,
    _type_index_of,
    _unpack_bytes,
)
from ._loader import ffi, lib
from ._type_index import kTVMFFIError

# ---------------------------------------------------------------------------------------------
# kinds: an error kind names an exception class, both ways

ERROR_NAME_TO_TYPE = {}
ERROR_TYPE_TO_NAME = {}
# The BaseExceptions that are not Exceptions: Ctrl-C, sys.exit() or a generator's close() in a
# callback must reach the caller as themselves (subclasses as their base), never as a
# RuntimeError that `except Exception` would swallow.
_NOT_EXCEPTIONS = (KeyboardInterrupt, SystemExit, GeneratorExit)
# OverflowError: a callback result too large for its slot; RecursionError: the C stack guard
# of nested callbacks (_ffi_src/stack.c, _stack.py)
for _cls in (RuntimeError, ValueError, TypeError, AttributeError, KeyError, IndexError,
             AssertionError, MemoryError, OverflowError, RecursionError) + _NOT_EXCEPTIONS:
    ERROR_NAME_TO_TYPE[_cls.__name__] = _cls
    ERROR_TYPE_TO_NAME[_cls] = _cls.__name__


def register_error(name_or_cls=None, cls=None):
    """Map an error kind to an exception class (both directions). Usable as a decorator."""

    def register(kind, klass):
        ERROR_NAME_TO_TYPE[kind] = klass
        ERROR_TYPE_TO_NAME[klass] = kind
        return klass

    if isinstance(name_or_cls, type):
        return register(name_or_cls.__name__, name_or_cls)
    if name_or_cls is None:
        return lambda klass: register(klass.__name__, klass)
    if cls is not None:
        return register(name_or_cls, cls)
    return lambda klass: register(name_or_cls, klass)


def _exit_code(message):
    """SystemExit's code back from its message (str(code)): an int, None or the text."""
    if not message:
        return None
    try:
        return int(message)
    except ValueError:
        return message


# ---------------------------------------------------------------------------------------------
# the ffi.Error object


class Error(CObject):
    """An ffi.Error object (kind, message, backtrace)."""

    # _tb_mark: (traceback, backtrace size) of the exception py_error last made, where
    # _exc_to_error's new frames end.  A slot, not an attribute of the exception: pickle and
    # deepcopy take an exception's __dict__, and a traceback cannot be pickled.
    __slots__ = ("_tb_mark",)

    def __init__(self, kind, message, backtrace=""):
        if self._h:
            return
        for what, v in (("kind", kind), ("message", message), ("backtrace", backtrace)):
            if not isinstance(v, str):
                raise TypeError("Error %s must be a str, got %s" % (what, type(v).__name__))
        out = ffi.new("void**")
        k, kb = _bytearray(kind.encode())
        m, mb = _bytearray(_utf8(message))
        b, bb = _bytearray(_utf8(backtrace))
        if lib.TVMFFIErrorCreate(k, m, b, out) != 0:
            raise MemoryError("TVMFFIErrorCreate failed")
        _set_h(self, _addr(out[0]))

    def _cell(self):
        h = _cell_handle(self, kTVMFFIError, "an ffi.Error accessor")
        return ffi.cast("TVMFFIErrorCell*", h + _OBJ_HEADER)

    def __reduce__(self):
        # by value (an ffi.Error has no JSON-graph form), so an exception that crossed an FFI
        # call pickles and deep-copies with the Error in its __dict__; extra_context is native
        # and dropped
        if not self._h:
            return (_restore_error, ())
        return (_restore_error, (self.kind, self.message, self.backtrace))

    @property
    def kind(self):
        return _unpack_bytes(self._cell().kind).decode("utf-8", "replace")

    @property
    def message(self):
        return _unpack_bytes(self._cell().message).decode("utf-8", "replace")

    @property
    def backtrace(self):
        return _unpack_bytes(self._cell().backtrace).decode("utf-8", "replace")

    @property
    def extra_context(self):
        h = _addr(self._cell().extra_context)
        if not h:
            return None
        _incref(h)
        from ._conversion import _ret_obj  # noqa: PLC0415 - the conversion layer builds on this one

        return _ret_obj(_type_index_of(h), h, None)

    def update_backtrace(self, text, append=False):
        """Replace the stored backtrace with text (append=True: add text after it)."""
        ba, buf = _bytearray(_utf8(text))
        self._cell().update_backtrace(_ptr(self._h), ba, 1 if append else 0)

    def py_error(self):
        cls = ERROR_NAME_TO_TYPE.get(self.kind, RuntimeError)
        message = self.message
        if cls is SystemExit:
            exc = cls(_exit_code(message))
        elif cls is KeyboardInterrupt and not message:
            exc = cls()  # as Ctrl-C raises it
        else:
            exc = cls(message)
        exc.__tvm_ffi_error__ = self
        tb, size = self._traceback()
        self._tb_mark = (tb, size)
        return exc.with_traceback(tb)

    def _traceback(self):
        """(traceback of the stored backtrace, its size): when this error is the one a callback
        last handed back, only what was appended since is parsed (see _LAST_CROSSING)."""
        global _LAST_CROSSING
        bt = self._cell().backtrace
        size = bt.size
        last = _LAST_CROSSING
        if last is not None and last[0]._h == self._h and last[1] <= size:
            _LAST_CROSSING = None
            added = ffi.unpack(bt.data + last[1], size - last[1]) if size > last[1] else b""
            return _traceback_from_backtrace(added.decode("utf-8", "replace"), last[2]), size
        return _traceback_from_backtrace(self.backtrace), size


def _restore_error(*state):
    """Unpickles an Error: a new one from (kind, message, backtrace), or an empty handle."""
    return Error(*state) if state else Error.__new__(Error)


# ---------------------------------------------------------------------------------------------
# C -> Python: the raised FFI error as an exception whose traceback shows the native frames


def _take_exception():
    box = [None]
    if lib.ffipy_take_exception(id(box)) != _OK:
        return RuntimeError("tvm_ffi: lost a Python exception")
    return box[0]


def _move_raised_error():
    """Move the raised FFI error out of this thread's slot as an Error wrapper (or None)."""
    out = ffi.new("void**")
    lib.TVMFFIErrorMoveFromRaised(out)
    h = _addr(out[0])
    if not h:
        return None
    err = Error.__new__(Error)
    _set_h(err, h)
    return err


# a callback's exception that met the interpreter's own limit on its way out
_INTERPRETER_LIMIT = ("maximum recursion depth exceeded in a Python callback of an FFI call (the "
                      "interpreter's limit counts the Python frames of every nested call)")


def _raise_ffi_error():
    err = _move_raised_error()
    if err is None:
        if _near_recursion_limit():  # a callback below could not even report its failure
            raise RecursionError(_INTERPRETER_LIMIT)
        raise RuntimeError("tvm_ffi: call failed without an error object")
    raise err.py_error()


def _near_recursion_limit(margin=64):
    """Whether this thread's Python frames come within margin of sys.getrecursionlimit(): a
    callback failing that deep may have had no room left to set an error (ABI mode: cffi then
    returns the failure value alone)."""
    limit = sys.getrecursionlimit() - margin
    f, n = sys._getframe(), 0
    while f is not None and n < limit:
        f, n = f.f_back, n + 1
    return n >= limit


def _check(rc):
    if rc != 0:
        _raise_ffi_error()


_LINE_RE = None  # compiled on first use: `re` is not imported by `import tvm_ffi`


def _parse_backtrace(text):
    """[(filename, lineno, func)] for every 'File "f", line N, in fn' line, in text order."""
    global _LINE_RE
    if _LINE_RE is None:
        import re  # noqa: PLC0415 - import time (see _LINE_RE)

        _LINE_RE = re.compile(r'File "(.*)", line (\d+), in (.*)$')
    out = []
    for line in text.splitlines():
        m = _LINE_RE.search(line.strip())
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(3)))
    return out


_FRAME_CACHE = {}
_FRAME_GLOBALS = {"__name__": "tvm_ffi.native"}


def _without_columns(code):
    """``code`` with one location entry that has a line but no columns (3.11+ table format).

    The columns of the compiled "pass" would make the traceback module underline the native
    source line with carets that point at nothing; without columns it prints the line alone.
    """
    if sys.version_info < (3, 11):
        return code
    try:
        units = len(code.co_code) // 2
        if not 1 <= units <= 64:
            return code
        # one entry per 8 code units (the most one covers): header 1 | code 13 ("no columns") |
        # length-1, then the line delta (0)
        table = b"".join(bytes([0x80 | (13 << 3) | (min(8, units - i) - 1), 0])
                         for i in range(0, units, 8))
        stripped = code.replace(co_linetable=table)
        if all(col is None for _, _, col, _ in stripped.co_positions()):
            return stripped
    except (AttributeError, ValueError, TypeError):
        pass
    return code


def _synthetic_frame(filename, lineno, func):
    """A frame (no f_back, so nothing is kept alive) whose code names filename and func."""
    key = (filename, lineno, func)
    frame = _FRAME_CACHE.get(key)
    if frame is None:
        _guard_linecache(filename)
        if sys.implementation.name == "cpython":
            frame = _suspended_frame(filename, lineno, func)
        else:  # (PyPy: a frame from a real, finished execution of the raiser code)
            frame = _frame_from_clean_stack(filename, lineno, func)
        if len(_FRAME_CACHE) > 4096:
            _FRAME_CACHE.clear()
        _FRAME_CACHE[key] = frame
    return frame


_GENERATORS = []  # the generators whose suspended frames _FRAME_CACHE holds (kept suspended)


def _suspended_frame(filename, lineno, func):
    """The frame of a generator suspended at line lineno of a function named func in filename:
    a suspended generator's frame has no f_back (so it keeps no caller alive), and making it
    needs no interpreter internals (PyFrame_New is outside the limited API)."""
    ns = dict(_FRAME_GLOBALS)
    exec(compile("\n" * (max(lineno, 1) - 1) + "def _f(): yield", filename, "exec"), ns)  # noqa: S102
    f = ns["_f"]
    try:
        code = f.__code__.replace(co_name=func)
        if sys.version_info >= (3, 11):
            code = _without_columns(code.replace(co_qualname=func))
        f.__code__ = code
    except (AttributeError, ValueError):
        pass
    gen = f()
    next(gen)
    if len(_GENERATORS) > 4096:
        del _GENERATORS[:]
    _GENERATORS.append(gen)
    return gen.gi_frame


def _guard_linecache(filename):
    """Python 3.9's linecache raises UnicodeDecodeError on a file that is not text (a native
    frame names the shared library when the backtrace has no source file), which breaks every
    traceback formatter; cache it as having no lines, as 3.10+ does by itself."""
    if sys.version_info >= (3, 10):
        return
    import linecache  # noqa: PLC0415 - Python 3.9 only, on a native frame

    try:
        linecache.getlines(filename)
    except (UnicodeDecodeError, SyntaxError):
        linecache.cache[filename] = (0, None, [], filename)


def _frame_from_clean_stack(filename, lineno, func):
    """Run a one-line raiser in a helper thread: its frame's f_back chain then holds only the
    thread's bootstrap frames, never the caller's locals (frames are cached)."""
    import threading  # noqa: PLC0415 - ABI mode, once per frame: not at import

    raiser = compile("\n" * (max(lineno, 1) - 1) + "raise KeyError", filename, "exec")
    try:
        raiser = _without_columns(raiser.replace(co_name=func, co_firstlineno=max(lineno, 1)))
    except (AttributeError, ValueError):
        pass
    found = []

    def run():
        try:
            exec(raiser, {})  # noqa: S102
        except KeyError:
            found.append(sys.exc_info()[2].tb_next.tb_frame)

    t = threading.Thread(target=run, name="tvm_ffi-frame")
    t.start()
    t.join()
    return found[0]


def _traceback_from_backtrace(text, tb=None):
    """Traceback chain outermost -> innermost for a stored (innermost-first) backtrace; with tb,
    text holds the frames outside that chain, which it extends."""
    for filename, lineno, func in _parse_backtrace(text):
        frame = _synthetic_frame(filename, lineno, func)
        # lasti 2 = the code's second instruction, which carries `lineno` (the first, RESUME,
        # sits one line above): the traceback module reads positions from lasti
        tb = types.TracebackType(tb, frame, 2, lineno)
    return tb


# ---------------------------------------------------------------------------------------------
# Python -> C: an exception (a callback's, a conversion's) as an FFI error


def _exc_message(exc):
    """str(exc), best effort: an exception whose __str__ raises, or whose text the runtime's
    UTF-8 cannot hold (a lone surrogate), still crosses with its kind and a readable message."""
    if isinstance(exc, SystemExit) and exc.code is None:
        return ""  # as _exit_code reads it back (str() would give "None")
    try:
        msg = str(exc)
    except BaseException as e:  # noqa: BLE001 - any failure of user code in __str__
        return "<%s: str() failed with %s>" % (type(exc).__name__, type(e).__name__)
    return msg


def _utf8(text):
    """text as the runtime's UTF-8: bytes smuggled in by surrogateescape go back out as they
    came; other lone surrogates, which UTF-8 cannot hold, are written as \\udXXX escapes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _format_traceback(tb, stop=None):
    """Stored backtrace text of a Python traceback, innermost frame first; with stop, of the
    entries before it only (None when stop is not in the chain)."""
    lines = []
    while tb is not stop:
        if tb is None:
            return None
        code = tb.tb_frame.f_code
        lines.append('  File "%s", line %d, in %s\n' % (code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    lines.reverse()
    return "".join(lines)


# The error a callback last handed back to C as (Error, backtrace size, traceback of that
# backtrace).  An error raised through N nested Python -> FFI -> Python calls crosses both ways
# at every level: the caller's py_error, usually the next to see it, extends this traceback by
# what was appended since instead of parsing the whole backtrace again, and _exc_to_error
# appends only the frames the exception gained since py_error (its Error's _tb_mark), so
# the crossings cost O(N) together, not O(N^2).  Synthetic frames only: no locals kept alive.
_LAST_CROSSING = None


def _native_text(append_native):
    if isinstance(append_native, str):  # captured by the C callback at the conversion point
        return append_native
    if append_native:
        bt = lib.TVMFFIBacktrace(ffi.NULL, 0, ffi.NULL, 0)
        if bt != ffi.NULL and bt.size:
            return _unpack_bytes(bt).decode("utf-8", "replace")
    return ""


def _exc_to_error(exc, append_native=True):
    """Python exception -> Error (callbacks, arguments, convert)."""
    global _LAST_CROSSING
    existing = getattr(exc, "__tvm_ffi_error__", None)
    if isinstance(existing, Error) and existing._h:
        # an exception of an older py_error of this Error lacks the mark in its chain (None)
        mark = getattr(existing, "_tb_mark", None)
        if mark is not None and mark[1] == existing._cell().backtrace.size:
            added = _format_traceback(exc.__traceback__, mark[0])
            if added is not None:  # the exception still ends with the frames py_error made
                added += _native_text(append_native)
                existing.update_backtrace(added, append=True)
                size = existing._cell().backtrace.size
                tb = _traceback_from_backtrace(added, mark[0])
                _LAST_CROSSING = (existing, size, tb)  # holds it: its address stays its own
                return existing
        existing.update_backtrace(_format_traceback(exc.__traceback__) + _native_text(append_native))
        return existing
    text = _format_traceback(exc.__traceback__) + _native_text(append_native)
    kind = ERROR_TYPE_TO_NAME.get(type(exc))
    if kind is None:  # a subclass of _NOT_EXCEPTIONS must not become a catchable RuntimeError
        kind = next((c.__name__ for c in _NOT_EXCEPTIONS if isinstance(exc, c)), "RuntimeError")
    return Error(kind, _exc_message(exc), text)
