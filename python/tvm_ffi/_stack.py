"""The C stack guard of ABI mode's callbacks (the compiled module's is ``_ffi_src/stack.c``).

Python -> FFI function -> Python callback -> ... nests C frames (cffi's, libffi's, the
interpreter's and the callee's) at every level, which the interpreter's recursion limit does not
count: a program that raised it would run the thread's C stack out and crash.  ABI mode cannot
read its own stack pointer, so it counts callbacks per thread and refuses, with RecursionError,
at the depth the thread's stack holds at ``_LEVEL_BYTES`` a level (measured: ~3 KiB on CPython
3.11, ~4 KiB on PyPy 7.3; doubled for the interpreters and frames not measured), keeping a
reserve for the error's way back out."""

import sys
import threading

_LEVEL_BYTES = 8 * 1024
_RESERVE_MAX = 256 * 1024
_DEFAULT_STACK = 8 * 1024 * 1024  # where the thread's size cannot be read (glibc's default)
_MESSAGE = ("maximum recursion depth exceeded: %d nested Python callbacks through FFI calls "
            "have used up this thread's C stack; recurse less, or give the thread a larger "
            "stack (ulimit -s, threading.stack_size)")

def _load_pthread():
    """(ffi, libc functions, types) for pthread_getattr_np, or None.  Declared through cffi's
    backend, whose own C parser reads these type strings: cffi's declaration parser (pycparser)
    cost ~20 ms at import on PyPy, and more stack than a small thread has."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import _cffi_backend  # noqa: PLC0415 - ABI mode only

        ffi = _cffi_backend.FFI()
        libc = _cffi_backend.load_library(None)
        fns = tuple(libc.load_function(ffi.typeof(sig), name) for name, sig in (
            ("pthread_self", "unsigned long(*)(void)"),
            # an older libc has it in libpthread only: AttributeError, no stack size
            ("pthread_getattr_np", "int(*)(unsigned long, void*)"),
            ("pthread_attr_getstack", "int(*)(void*, void**, size_t*)"),
            ("pthread_attr_destroy", "int(*)(void*)")))
        # pthread_attr_t is 36 to 64 bytes on Linux targets
        types = tuple(ffi.typeof(t) for t in ("char[512]", "void**", "size_t*"))
    except (ImportError, OSError, AttributeError):
        return None
    return ffi, fns, types


_pthread = _load_pthread()


def _thread_stack_size():
    """Bytes of the calling thread's stack (pthread_getattr_np), else a default."""
    if _pthread is not None:
        ffi, (self_, getattr_np, getstack, destroy), (attr_t, addr_t, size_t) = _pthread
        attr, addr, size = ffi.new(attr_t), ffi.new(addr_t), ffi.new(size_t)
        if getattr_np(self_(), attr) == 0:
            ok = getstack(attr, addr, size) == 0
            destroy(attr)
            if ok and size[0]:
                return int(size[0])
    return _DEFAULT_STACK


class _Guard(threading.local):
    """Per thread: callbacks running now, and how many the stack holds."""

    def __init__(self):
        size = _thread_stack_size()
        self.depth = 0
        self.limit = max(1, (size - min(size // 4, _RESERVE_MAX)) // _LEVEL_BYTES)


guard = _Guard()


def refuse():
    """The RecursionError of a callback that would nest deeper than guard.limit."""
    return RecursionError(_MESSAGE % guard.depth)
