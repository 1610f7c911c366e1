"""Builds the test objects once per run (C with $CC, C++ with $CXX) into a temp directory."""
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "sources")
TOP = os.environ.get("top_srcdir") or os.path.normpath(os.path.join(HERE, "..", "..", ".."))
INCLUDES = ["-I" + os.path.join(TOP, "c", "include"), "-I" + os.path.join(TOP, "cpp", "include")]

# (object name, source, extra flags)
OBJECTS = [
    ("test_funcs", "test_funcs.c", []),
    ("test_funcs2", "test_funcs.c", ["-DFIRST=test_subtract", "-DSECOND=test_divide",
                                     "-DOP1=a - b", "-DOP2=a / b"]),
    ("test_funcs_conflict", "test_funcs.c", ["-DFIRST=test_add", "-DSECOND=test_multiply",
                                             "-DOP1=a + b", "-DOP2=a * b", "-DOFFSET=1000",
                                             "-DSCALE=2"]),
    ("test_context", "test_context.c", []),
    ("test_error", "test_error.c", []),
    ("test_unresolved", "test_unresolved.c", []),
    ("test_call_global", "test_call_global.c", []),
    ("test_ctor_dtor", "test_ctor_dtor.c", []),
    ("test_link_base", "test_link.c", ["-DBASE"]),
    ("test_link_caller", "test_link.c", []),
    ("test_library_bin", "test_library_bin.c", []),
    ("test_library_bin_corrupt", "test_library_bin.c", ["-DCORRUPT"]),
    ("test_cpp", "test_cpp.cc", []),
]


def _compilers():
    cc = os.environ.get("CC", "cc").split()
    cxx = os.environ.get("CXX", "c++").split()
    out = [("default", cc, cxx)]
    if shutil.which("clang") and shutil.which("clang++") and "clang" not in cc[0]:
        out.append(("clang", ["clang"], ["clang++"]))
    return out


COMPILERS = _compilers()


@pytest.fixture(scope="session", params=[c[0] for c in COMPILERS])
def objs(request, tmp_path_factory):
    """Mapping name -> path of the objects built by one compiler."""
    _, cc, cxx = next(c for c in COMPILERS if c[0] == request.param)
    out = tmp_path_factory.mktemp("objs_" + request.param)
    paths = {}
    for name, src, flags in OBJECTS:
        is_cpp = src.endswith(".cc")
        cmd = (cxx + ["-std=c++17"] if is_cpp else cc + ["-std=c11"]) + [
            "-c", "-O2", "-fPIC"] + INCLUDES + flags + [os.path.join(SRC, src), "-o",
                                                        str(out / (name + ".o"))]
        subprocess.run(cmd, check=True)
        paths[name] = str(out / (name + ".o"))
    return paths
