"""Where the runtime, headers, CMake package and sources of tvm_ffi are.

Nothing here loads the runtime: ``python -m tvm_ffi.config`` uses this module alone (the
package skips its initialisation in config mode, see ``config_mode``, defined in ``__init__``).

Two layouts are recognised:

- installed (wheel, ``pip install``): everything lives in the package directory ``<pkg>``:
  ``<pkg>/include`` (C, C++ and dlpack headers together), ``<pkg>/lib/libtvm_ffi.so``,
  ``<pkg>/share/cmake/tvm_ffi/tvm_ffi-config.cmake`` and ``<pkg>/source`` (the C sources with a
  CMakeLists.txt, for ``add_subdirectory``);
- source checkout (``<repo>/python/tvm_ffi``): C++ headers in ``<repo>/cpp/include``, C and
  dlpack headers in ``<repo>/c/include``, the CMake package in ``<repo>/cmake``, the sources
  at ``<repo>`` itself, and the runtime in the build tree (``$TVM_FFI_LIBRARY_PATH``,
  ``<repo>/c/.libs`` or ``<repo>/build/c/.libs``).

The runtime search order is the one ``tvm_ffi._loader`` uses to load it, so what the CLI
reports is what ``import tvm_ffi`` loads.
"""

import os
import sys

_PKG = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_PKG))


# Defined in the package's __init__, which asks it before anything else (importing this
# module there would cost every `import tvm_ffi` ~0.25 ms).
from . import _config_mode as config_mode  # noqa: E402, F401


def _lib_names(target):
    if sys.platform == "win32":
        return ("%s.dll" % target,)
    if sys.platform == "darwin":
        return ("lib%s.dylib" % target, "lib%s.so" % target)
    return ("lib%s.so" % target,)


def _first_dir(*cands):
    for c in cands:
        if c and os.path.isdir(c):
            return os.path.abspath(c)
    return None


def _not_found(what, searched):
    raise RuntimeError("Cannot find %s; searched: %s" % (what, ", ".join(searched)))


def _runtime_dirs():
    env = os.environ.get("TVM_FFI_LIBRARY_PATH")
    if env:
        yield os.path.dirname(env) if os.path.isfile(env) else env
    yield os.path.join(_PKG, "lib")
    yield os.path.join(_REPO, "c", ".libs")
    yield os.path.join(_REPO, "build", "c", ".libs")
    for var in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        for d in os.environ.get(var, "").split(os.pathsep):
            if d:
                yield d


def find_libtvm_ffi():
    """Absolute path of ``libtvm_ffi`` (the file ``import tvm_ffi`` loads)."""
    env = os.environ.get("TVM_FFI_LIBRARY_PATH")
    if env and os.path.isfile(env):
        return os.path.abspath(env)
    searched = []
    for d in _runtime_dirs():
        for name in _lib_names("tvm_ffi"):
            p = os.path.join(d, name)
            if os.path.isfile(p):
                return os.path.abspath(p)
        searched.append(d)
    _not_found("libtvm_ffi (set TVM_FFI_LIBRARY_PATH)", searched)


def find_windows_implib():
    """The import library ``tvm_ffi.lib`` (Windows only)."""
    path = os.path.join(os.path.dirname(find_libtvm_ffi()), "tvm_ffi.lib")
    if not os.path.isfile(path):
        _not_found("tvm_ffi.lib", [path])
    return path


def find_include_path():
    """Directory holding ``tvm/ffi/*.h`` (the C++ headers; installed: also the C headers)."""
    cands = [os.path.join(_PKG, "include"), os.path.join(_REPO, "cpp", "include")]
    for c in cands:
        if os.path.isfile(os.path.join(c, "tvm", "ffi", "function.h")):
            return os.path.abspath(c)
    _not_found("the tvm_ffi include directory", cands)


def find_dlpack_include_path():
    """Directory holding ``dlpack/dlpack.h`` (and the C API headers ``tvm/ffi/c_api.h``)."""
    cands = [os.path.join(_PKG, "include"), os.path.join(_REPO, "c", "include")]
    for c in cands:
        if os.path.isfile(os.path.join(c, "dlpack", "dlpack.h")):
            return os.path.abspath(c)
    _not_found("the dlpack include directory", cands)


def find_cmake_path():
    """Directory holding ``tvm_ffi-config.cmake`` (use as ``tvm_ffi_ROOT``)."""
    cands = [os.path.join(_PKG, "share", "cmake", "tvm_ffi"), os.path.join(_REPO, "cmake")]
    for c in cands:
        if os.path.isfile(os.path.join(c, "tvm_ffi-config.cmake")):
            return os.path.abspath(c)
    _not_found("the tvm_ffi CMake package (tvm_ffi-config.cmake)", cands)


def find_source_path():
    """Source tree with a CMakeLists.txt that builds ``tvm_ffi_shared`` (``add_subdirectory``)."""
    cands = [os.path.join(_PKG, "source"), _REPO]
    for c in cands:
        if os.path.isfile(os.path.join(c, "CMakeLists.txt")) and os.path.isdir(
            os.path.join(c, "c", "src")
        ):
            return os.path.abspath(c)
    _not_found("the tvm_ffi source tree", cands)


def find_cython_lib():
    """The compiled core module of this package (a cffi module here, not Cython)."""
    mod = sys.modules.get("tvm_ffi._ffi_cffi")
    if mod is not None and getattr(mod, "__file__", None):
        return os.path.abspath(mod.__file__)
    dirs = [_PKG]  # the package's import order (_loader puts TVM_FFI_MODULE_DIR first)
    extra = os.environ.get("TVM_FFI_MODULE_DIR")
    if extra:
        dirs.insert(0, extra)
    # the suffixes in the order the import system tries them: a build for this interpreter
    # (`.cpython-311-...so`) wins over an `.abi3.so` left in the same directory by another;
    # an interpreter that loads none of them (PyPy runs ABI mode) is told the first by name
    import importlib.machinery  # noqa: PLC0415 -- only when the module is not loaded yet

    for d in dirs:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(d, "_ffi_cffi" + suffix)
            if os.path.isfile(path):
                return os.path.abspath(path)
    for d in dirs:
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                if name.startswith("_ffi_cffi.") and name.endswith((".so", ".pyd", ".dylib")):
                    return os.path.abspath(os.path.join(d, name))
    _not_found("the compiled module tvm_ffi._ffi_cffi", dirs)


def find_python_helper_include_path():
    """Headers of the Python helper C code (the cffi module's C sources)."""
    path = os.path.join(_PKG, "_ffi_src")
    if not os.path.isfile(os.path.join(path, "helpers.h")):
        _not_found("the Python helper headers", [path])
    return path


def include_paths():
    """Sorted unique include directories a C++ extension needs."""
    paths = {find_include_path(), find_dlpack_include_path()}
    try:
        paths.add(find_python_helper_include_path())
    except RuntimeError:
        pass
    return sorted(paths)


def _record_files(package):
    """Absolute paths of the files an installed distribution lists in its RECORD."""
    try:
        from importlib import metadata  # noqa: PLC0415
    except ImportError:  # pragma: no cover - Python < 3.8
        return []
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return []
    return [os.path.abspath(str(dist.locate_file(f))) for f in (dist.files or [])]


def _find_library_by_basename(package, target_name, extra_lib_paths=None):
    """``pathlib.Path`` of ``lib<target_name>`` of pip distribution ``package``.

    Search order: the distribution's RECORD, ``extra_lib_paths`` (each a ``pathlib.Path``),
    ``<pkg>/build/lib``, ``<pkg>/lib``, ``<repo>/build/lib``, ``<repo>/lib``, then the
    loader path variable and ``PATH``.  Not found: ``RuntimeError`` listing the directories.
    """
    import pathlib  # noqa: PLC0415 - keep `import tvm_ffi` light

    return pathlib.Path(_find_lib(package, target_name, extra_lib_paths))


def _find_lib(package, target_name, extra_lib_paths):
    import pathlib  # noqa: PLC0415 - keep `import tvm_ffi` light

    names = _lib_names(target_name)
    for f in _record_files(package):
        if os.path.basename(f) in names and os.path.isfile(f):
            return f
    dirs = []
    for i, p in enumerate(extra_lib_paths or ()):
        if not isinstance(p, pathlib.Path):
            raise TypeError(
                "extra_lib_paths[%d] must be a pathlib.Path, got %s" % (i, type(p).__name__)
            )
        dirs.append(str(p))
    dirs += [
        os.path.join(_PKG, "build", "lib"), os.path.join(_PKG, "lib"),
        os.path.join(_REPO, "build", "lib"), os.path.join(_REPO, "lib"),
    ]
    var = "DYLD_LIBRARY_PATH" if sys.platform == "darwin" else "LD_LIBRARY_PATH"
    for v in (var, "PATH") if sys.platform != "win32" else ("PATH",):
        dirs += [d for d in os.environ.get(v, "").split(os.pathsep) if d]
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p):
                return os.path.abspath(p)
    raise RuntimeError(
        "Cannot find library %s; searched directories: %s" % ("/".join(names), ", ".join(dirs))
    )


def load_lib_ctypes(package, target_name, mode, extra_lib_paths=None):
    """Find ``lib<target_name>`` of pip distribution ``package`` and load it with ctypes.

    ``mode`` names a ctypes constant, e.g. ``"RTLD_GLOBAL"``.
    """
    import ctypes  # noqa: PLC0415

    path = _find_lib(package, target_name, extra_lib_paths)
    if sys.platform == "win32":  # pragma: no cover
        os.add_dll_directory(os.path.dirname(path))
    return ctypes.CDLL(path, getattr(ctypes, mode))


def load_lib_module(package, target_name, keep_module_alive=True, extra_lib_paths=None):
    """Find ``lib<target_name>`` of pip distribution ``package`` and load it as a Module."""
    from .module import load_module  # noqa: PLC0415 - needs the initialised package

    path = _find_lib(package, target_name, extra_lib_paths)
    return load_module(path, keep_module_alive=keep_module_alive)
