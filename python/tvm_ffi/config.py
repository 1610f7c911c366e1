"""``python -m tvm_ffi.config``: print build flags for code that uses tvm_ffi.

Each flag prints one line, in a fixed order whatever the command-line order; no argument
prints the help.  Used by build systems, e.g. CMake::

    execute_process(COMMAND "${Python_EXECUTABLE}" -m tvm_ffi.config --cmakedir
                    OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE tvm_ffi_ROOT)
    find_package(tvm_ffi CONFIG REQUIRED)

or a Makefile: ``c++ $(python -m tvm_ffi.config --cxxflags) -shared -fPIC x.cc
$(python -m tvm_ffi.config --ldflags --libs)``.
"""

import argparse
import os
import sys

from . import libinfo

# (flag, help, producer) in output order.
_FLAGS = (
    ("includedir", "directory with tvm/ffi/*.h", libinfo.find_include_path),
    ("dlpack-includedir", "directory with dlpack/dlpack.h", libinfo.find_dlpack_include_path),
    ("cmakedir", "directory with tvm_ffi-config.cmake (CMake tvm_ffi_ROOT)",
     libinfo.find_cmake_path),
    ("libdir", "directory of libtvm_ffi", lambda: os.path.dirname(libinfo.find_libtvm_ffi())),
    ("libfiles", "full path of libtvm_ffi",
     lambda: libinfo.find_windows_implib() if sys.platform == "win32"
     else libinfo.find_libtvm_ffi()),
    ("sourcedir", "source tree usable with CMake add_subdirectory", libinfo.find_source_path),
    ("cython-lib-path", "path of the compiled core module (cffi)", libinfo.find_cython_lib),
    ("cxxflags", "C++ compile flags",
     lambda: "%s -std=c++17" % _include_flags()),
    ("cflags", "C compile flags", lambda: _include_flags()),
    ("libs", "libraries to link",
     lambda: libinfo.find_windows_implib() if sys.platform == "win32" else "-ltvm_ffi"),
    ("ldflags", "linker search flags",
     lambda: "" if sys.platform == "win32"
     else "-L%s" % os.path.dirname(libinfo.find_libtvm_ffi())),
)


def _include_flags():
    dirs = []
    for d in (libinfo.find_include_path(), libinfo.find_dlpack_include_path()):
        if d not in dirs:
            dirs.append(d)
    return " ".join("-I%s" % d for d in dirs)


def _parser():
    ap = argparse.ArgumentParser(
        prog="python -m tvm_ffi.config",
        description="Print build configuration of tvm_ffi (headers, library, CMake package).",
    )
    for name, helptext, _ in _FLAGS:
        ap.add_argument("--" + name, action="store_true", help=helptext)
    return ap


def main(argv=None):
    ap = _parser()
    args = ap.parse_args(argv)
    chosen = [(n, f) for n, _, f in _FLAGS if getattr(args, n.replace("-", "_"))]
    if not chosen:
        ap.print_help(sys.stdout)
        return 0
    for _, produce in chosen:
        print(produce())
    return 0


def __main__():  # console script entry point `tvm-ffi-config`
    sys.exit(main())


if __name__ == "__main__":
    __main__()
