"""Find and load ``libtvm_ffi`` and the cffi module.

Search order for the runtime (first hit wins):

1. ``$TVM_FFI_LIBRARY_PATH`` (a file, or a directory holding ``libtvm_ffi.so``);
2. the bundled copy ``tvm_ffi/lib/`` (wheels, ``make install`` of the package);
3. the build tree: ``<repo>/c/.libs/`` (running from a checkout after ``make``);
4. ``LD_LIBRARY_PATH`` / ``DYLD_LIBRARY_PATH`` entries.

``$TVM_FFI_MODULE_DIR`` adds a directory holding the compiled ``_ffi_cffi`` module,
``_ffi_abi.py`` and ``_cdef.h`` (out-of-tree builds put them in the build tree).

The runtime is loaded with ``RTLD_GLOBAL`` so that extensions built without bundling it, and
the cffi module (which is not linked against it), bind to this one copy.  The C++ ABI library
``libtvm_ffi_cxx`` next to it is loaded the same way (``TVM_FFI_NO_CXX_ABI=1`` skips it): C++
extensions built against the apache package's headers take their C++ symbols from it.  The
testing library ``libtvm_ffi_testing`` next to it is loaded on first need (``load_testing``):
when a ``testing.*`` global function or type key is looked up through the package and not
found, and before the package lists globals or types or opens the system library.  Both are
opened through cffi's backend (already needed by the cffi module) rather than ctypes, whose
import alone costs ~1.5 ms; ``LIB`` and ``TESTING_LIB`` (the ``ctypes.CDLL`` objects of the
spec) are made on first access, by module ``__getattr__``.

Then ``tvm_ffi._ffi_cffi`` (API mode, compiled by the build) is imported; when it cannot be
used (not built, PyPy without a compiler, ``TVM_FFI_USE_ABI_MODE=1``) the same generated
declarations are used in ABI mode (``ffi.dlopen``; pre-parsed by the build into ``_ffi_abi.py``,
else parsed at import), and ``API_MODE`` is False;
``ABI_MODE_REASON`` then says why the compiled module could not be imported (None when it was
not tried).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))

if sys.platform == "darwin":
    _LIBNAMES = ("libtvm_ffi.dylib", "libtvm_ffi.so")
elif sys.platform == "win32":
    _LIBNAMES = ("tvm_ffi.dll",)
else:
    _LIBNAMES = ("libtvm_ffi.so",)


def _candidate_dirs():
    env = os.environ.get("TVM_FFI_LIBRARY_PATH")
    if env:
        yield env
    yield os.path.join(_HERE, "lib")
    yield os.path.join(_REPO, "c", ".libs")
    yield os.path.join(_REPO, "build", "c", ".libs")
    for var in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        for d in os.environ.get(var, "").split(os.pathsep):
            if d:
                yield d


def find_library():
    """Absolute path of the runtime library; RuntimeError when not found."""
    searched = []
    for d in _candidate_dirs():
        if os.path.isfile(d):
            return os.path.abspath(d)
        for name in _LIBNAMES:
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return os.path.abspath(p)
        searched.append(d)
    raise RuntimeError(
        "Cannot find libtvm_ffi (set TVM_FFI_LIBRARY_PATH); searched directories: %s"
        % ", ".join(searched)
    )


def _dlopen_global(path, now=True):
    """dlopen(path, RTLD_NOW (or RTLD_LAZY) | RTLD_GLOBAL) without importing ctypes; the handle
    never unloads (RTLD_NODELETE: wrappers may still call into the runtime while the
    interpreter exits)."""
    try:
        from _cffi_backend import load_library  # noqa: PLC0415
    except ImportError:  # pragma: no cover - no cffi backend: ctypes does it
        load_library = None
    flags = os.RTLD_NOW if now else os.RTLD_LAZY
    flags |= os.RTLD_GLOBAL | getattr(os, "RTLD_NODELETE", 0)
    if load_library is None or sys.platform == "win32":
        import ctypes  # noqa: PLC0415

        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    try:
        return load_library(path, flags)
    except OSError as err:
        raise OSError("tvm_ffi: cannot load %s: %s" % (path, err)) from None


def _testing_path(path):
    return _sibling(path, "tvm_ffi_testing")


def _sibling(path, stem):
    """The library named like the runtime with ``tvm_ffi`` replaced by ``stem``, if present."""
    d, base = os.path.split(path)
    spath = os.path.join(d, base.replace("tvm_ffi", stem, 1))
    return spath if os.path.isfile(spath) else None


_HANDLES = []  # keeps the dlopen handles (and so the libraries) alive
ABI_MODE_REASON = None  # the ImportError of the compiled module, when it could not be used


def _load():
    path = find_library()
    _HANDLES.append(_dlopen_global(path))
    # The C++ ABI library (docs/cxx-abi.md): C++ extensions built against upstream's headers
    # (TVM's libraries) resolve their C++ symbols from it, and the runtime's modules get a
    # C++ vtable.  Global, before any such extension loads.
    cpath = _sibling(path, "tvm_ffi_cxx")
    if cpath is not None and os.environ.get("TVM_FFI_NO_CXX_ABI", "0") in ("", "0"):
        _HANDLES.append(_dlopen_global(cpath, now=False))  # lazy: most of it is never called
    api_mode = os.environ.get("TVM_FFI_USE_ABI_MODE", "0") in ("", "0")
    ffi = lib = None
    extra = os.environ.get("TVM_FFI_MODULE_DIR")
    pkg = sys.modules[__name__.rpartition(".")[0]]
    if extra and extra not in pkg.__path__:
        # out-of-tree build: the compiled module lives there, and wins over a stale in-tree one
        pkg.__path__.insert(0, extra)
    if api_mode:
        try:
            from . import _ffi_cffi  # noqa: PLC0415

            ffi, lib = _ffi_cffi.ffi, _ffi_cffi.lib
        except ImportError as e:
            api_mode = False
            global ABI_MODE_REASON  # noqa: PLW0603 - set once, while the package loads
            ABI_MODE_REASON = "%s: %s" % (type(e).__name__, e)
    if not api_mode:
        ffi = _abi_ffi()
        lib = ffi.dlopen(path)
    return path, ffi, lib, api_mode


def _abi_ffi():
    """The FFI of ABI mode: the build's pre-parsed declarations (``_ffi_abi.py``, cffi's
    out-of-line ABI module) when present, else the declarations parsed now (pycparser: ~0.3 s
    on PyPy, ~40 ms on CPython)."""
    try:
        from ._ffi_abi import ffi  # noqa: PLC0415 - a build product, absent from a bare checkout

        return ffi
    except ImportError:
        pass
    import cffi  # noqa: PLC0415

    ffi = cffi.FFI()
    ffi.cdef(_abi_cdef())
    return ffi


def _abi_cdef():
    for d in (os.environ.get("TVM_FFI_MODULE_DIR") or _HERE, _HERE):
        shipped = os.path.join(d, "_cdef.h")
        if os.path.isfile(shipped):
            with open(shipped, encoding="utf-8") as f:
                return f.read()
    from . import _cdef  # noqa: PLC0415 - generate from the headers of a checkout

    inc = os.path.join(_REPO, "c", "include")
    if not os.path.isdir(inc):
        inc = os.path.join(_HERE, "include")
    return _cdef.generate(inc)


LIB_PATH, ffi, lib, API_MODE = _load()
_TESTING = []  # the testing library's handle, once load_testing opened it


def load_testing():
    """Opens the testing library (its ``testing.*`` globals, types and system-library symbols)
    if not yet done; True when this call opened it.  Left out of ``import tvm_ffi``: it costs
    ~0.2 ms there (its load and its registrations).  Two threads may both open it: the second
    dlopen only counts a reference."""
    if _TESTING:
        return False
    path = _testing_path(LIB_PATH)
    if path is None:
        return False
    _TESTING.append(_dlopen_global(path))
    return True


def __getattr__(name):
    # LIB / TESTING_LIB: ctypes.CDLL views of the already loaded libraries, made on first use
    if name == "LIB":
        path = LIB_PATH
    elif name == "TESTING_LIB":
        path = _testing_path(LIB_PATH)
    else:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = None
    if path is not None:
        import ctypes  # noqa: PLC0415

        value = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    globals()[name] = value
    return value
