"""Error kinds <-> Python exception classes, and C++ backtraces as Python traceback frames."""

import re
import sys
import types

from . import core

_LINE_RE = re.compile(r'File "(.*)", line (\d+), in (.*)$')


def register_error(name_or_cls=None, cls=None):
    """Map an error kind to an exception class (both directions). Usable as a decorator."""

    def register(kind, klass):
        core.ERROR_NAME_TO_TYPE[kind] = klass
        core.ERROR_TYPE_TO_NAME[klass] = kind
        return klass

    if isinstance(name_or_cls, type):
        return register(name_or_cls.__name__, name_or_cls)
    if name_or_cls is None:
        return lambda klass: register(klass.__name__, klass)
    if cls is not None:
        return register(name_or_cls, cls)
    return lambda klass: register(name_or_cls, klass)


def _parse_backtrace(text):
    """[(filename, lineno, func)] for every 'File "f", line N, in fn' line, in text order."""
    out = []
    for line in text.splitlines():
        m = _LINE_RE.search(line.strip())
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(3)))
    return out


def _format_traceback(tb):
    """Stored backtrace text of a Python traceback: innermost frame first."""
    lines = []
    while tb is not None:
        code = tb.tb_frame.f_code
        lines.append('  File "%s", line %d, in %s\n' % (code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    lines.reverse()
    return "".join(lines)


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
        if not 1 <= units <= 32:  # one entry covers at most 32 code units
            return code
        # entry header: 1 | code 13 ("no columns") | length-1; then the line delta (0)
        stripped = code.replace(co_linetable=bytes([0x80 | (13 << 3) | (units - 1), 0]))
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
        code = compile("pass", filename, "exec")
        try:
            code = code.replace(co_name=func, co_firstlineno=max(lineno, 1))
        except (AttributeError, ValueError):
            pass
        code = _without_columns(code)
        _guard_linecache(filename)
        # Before 3.11 PyFrame_New links f_back to the running frame, and a cached frame would
        # keep the caller's locals alive; the helper thread's frames hold nothing of them.
        if core.API_MODE and sys.version_info >= (3, 11):
            box = [code, _FRAME_GLOBALS]
            if core.lib.ffipy_frame_new(id(box)) != core._OK:
                raise core._take_exception()
            frame = box[0]
        else:  # ABI mode: a frame from a real (finished) execution of the raiser code
            frame = _frame_from_clean_stack(filename, lineno, func)
        if len(_FRAME_CACHE) > 4096:
            _FRAME_CACHE.clear()
        _FRAME_CACHE[key] = frame
    return frame


def _guard_linecache(filename):
    """Python 3.9's linecache raises UnicodeDecodeError on a file that is not text (a native
    frame names the shared library when the backtrace has no source file), which breaks every
    traceback formatter; cache it as having no lines, as 3.10+ does by itself."""
    if sys.version_info >= (3, 10):
        return
    import linecache  # noqa: PLC0415

    try:
        linecache.getlines(filename)
    except (UnicodeDecodeError, SyntaxError):
        linecache.cache[filename] = (0, None, [], filename)


def _frame_from_clean_stack(filename, lineno, func):
    """Run a one-line raiser in a helper thread: its frame's f_back chain then holds only the
    thread's bootstrap frames, never the caller's locals (frames are cached)."""
    import threading  # noqa: PLC0415

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


def _traceback_from_backtrace(text):
    """Traceback chain outermost -> innermost for a stored (innermost-first) backtrace."""
    tb = None
    for filename, lineno, func in _parse_backtrace(text):
        frame = _synthetic_frame(filename, lineno, func)
        # lasti 2 = the code's second instruction, which carries `lineno` (the first, RESUME,
        # sits one line above): the traceback module reads positions from lasti
        tb = types.TracebackType(tb, frame, 2, lineno)
    return tb
