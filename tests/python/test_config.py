"""python -m tvm_ffi.config, tvm_ffi.libinfo and the CMake package (find_package(tvm_ffi))."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import tvm_ffi
from tvm_ffi import libinfo

ORDER = ["--includedir", "--dlpack-includedir", "--cmakedir", "--libdir", "--libfiles",
         "--sourcedir", "--cython-lib-path", "--cxxflags", "--cflags", "--libs", "--ldflags"]


def run_config(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tvm_ffi.config", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_no_arguments_prints_help_on_stdout():
    r = run_config()
    assert r.returncode == 0
    assert r.stderr == ""
    assert "--cmakedir" in r.stdout and "--includedir" in r.stdout


def test_each_flag_one_line_in_fixed_order():
    r = run_config(*reversed(ORDER))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert len(lines) == len(ORDER)
    single = [run_config(flag).stdout.strip() for flag in ORDER]
    assert lines == single  # reversed command line, same order as the table


def test_directories_hold_what_they_promise():
    out = dict(zip(ORDER, run_config(*ORDER).stdout.splitlines()))
    assert os.path.isfile(os.path.join(out["--includedir"], "tvm", "ffi", "function.h"))
    assert os.path.isfile(os.path.join(out["--dlpack-includedir"], "dlpack", "dlpack.h"))
    assert os.path.isfile(os.path.join(out["--dlpack-includedir"], "tvm", "ffi", "c_api.h"))
    assert os.path.isfile(os.path.join(out["--cmakedir"], "tvm_ffi-config.cmake"))
    assert os.path.isfile(os.path.join(out["--sourcedir"], "CMakeLists.txt"))
    # what the CLI reports is the runtime `import tvm_ffi` loaded
    assert os.path.samefile(out["--libfiles"], tvm_ffi.LIB._name)
    assert out["--libdir"] == os.path.dirname(out["--libfiles"])
    if tvm_ffi._loader.API_MODE:
        assert os.path.samefile(out["--cython-lib-path"], sys.modules["tvm_ffi._ffi_cffi"].__file__)
    assert out["--libs"] == "-ltvm_ffi"
    assert out["--ldflags"] == "-L" + out["--libdir"]
    inc = "-I" + out["--includedir"]
    assert out["--cxxflags"].split()[0] == inc and out["--cxxflags"].endswith(" -std=c++17")
    assert "-I" + out["--dlpack-includedir"] in out["--cflags"].split()
    assert "-std" not in out["--cflags"]


def test_compiled_module_found_in_import_order(monkeypatch, tmp_path):
    # an `.abi3.so` left beside this interpreter's own build (a tree built by several
    # Pythons): the path reported is the one `import` would load, not the first by name
    import importlib.machinery  # noqa: PLC0415 -- this test only

    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for suffix in reversed(suffixes):
        (tmp_path / ("_ffi_cffi" + suffix)).write_bytes(b"")
    monkeypatch.setenv("TVM_FFI_MODULE_DIR", str(tmp_path))
    monkeypatch.delitem(sys.modules, "tvm_ffi._ffi_cffi", raising=False)
    assert libinfo.find_cython_lib() == str(tmp_path / ("_ffi_cffi" + suffixes[0]))


@pytest.mark.skipif(sys.implementation.name != "cpython",
                    reason="-X importtime (which lists the imported modules) is CPython's")
def test_config_mode_does_not_load_the_runtime():
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "tvm_ffi.config", "--includedir",
                        "--cmakedir"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2
    imported = [line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()]
    assert "tvm_ffi.libinfo" in imported
    for mod in ("tvm_ffi._loader", "tvm_ffi.core", "tvm_ffi._ffi_cffi", "cffi", "torch"):
        assert mod not in imported, mod


def test_missing_runtime_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(libinfo, "_PKG", str(tmp_path / "pkg"))
    monkeypatch.setattr(libinfo, "_REPO", str(tmp_path / "repo"))
    monkeypatch.setenv("TVM_FFI_LIBRARY_PATH", str(tmp_path / "missing"))
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    monkeypatch.setenv("DYLD_LIBRARY_PATH", "")
    with pytest.raises(RuntimeError, match="Cannot find libtvm_ffi .*searched: .*missing"):
        libinfo.find_libtvm_ffi()
    with pytest.raises(RuntimeError, match="Cannot find the tvm_ffi CMake package"):
        libinfo.find_cmake_path()


def test_unknown_flag_is_a_usage_error():
    r = run_config("--no-such-flag")
    assert r.returncode == 2 and "unrecognized arguments" in r.stderr


def test_libinfo_functions():
    paths = libinfo.include_paths()
    assert paths == sorted(set(paths))
    assert libinfo.find_include_path() in paths and libinfo.find_dlpack_include_path() in paths
    assert libinfo.config_mode() is False
    with pytest.raises(TypeError, match=r"extra_lib_paths\[0\] must be a pathlib.Path"):
        libinfo.load_lib_ctypes("no-such-dist", "tvm_ffi", "RTLD_LOCAL", extra_lib_paths=["/x"])
    with pytest.raises(RuntimeError, match="Cannot find library libno_such_lib_x.so; searched"):
        libinfo.load_lib_ctypes("no-such-dist", "no_such_lib_x", "RTLD_LOCAL")
    lib = pathlib.Path(tvm_ffi.LIB._name).parent
    testing = libinfo.load_lib_ctypes("no-such-dist", "tvm_ffi_testing", "RTLD_GLOBAL",
                                      extra_lib_paths=[lib])
    assert os.path.samefile(testing._name, lib / "libtvm_ffi_testing.so")


def test_flags_build_a_loadable_extension(tmp_path):
    cxx = os.environ.get("CXX") or "c++"
    if not shutil.which(cxx.split()[0]):
        pytest.skip("no C++ compiler")
    out = run_config("--cxxflags", "--ldflags", "--libs").stdout.split()
    src = tmp_path / "k.cc"
    src.write_text('#include <tvm/ffi/function.h>\n'
                   'int Twice(int x) { return 2 * x; }\n'
                   'TVM_FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);\n')
    so = tmp_path / "k.so"
    subprocess.run(cxx.split() + ["-shared", "-fPIC", str(src), "-o", str(so)] + out, check=True)
    assert tvm_ffi.load_module(str(so)).twice(21) == 42


def _configure_ac_version():
    ac = os.path.join(os.path.dirname(libinfo.__file__), "..", "..", "configure.ac")
    if not os.path.isfile(ac):
        return None
    m = re.search(r"AC_INIT\(\[[^]]*\], \[([0-9.]+)\]", open(ac, encoding="utf-8").read())
    return m.group(1) if m else None


CMAKE_PROJECT = """
cmake_minimum_required(VERSION 3.18)
project(cfgtest LANGUAGES CXX)
set(tvm_ffi_ROOT "{root}")
find_package(tvm_ffi 0.1 CONFIG REQUIRED)
if(NOT TARGET tvm_ffi_header OR NOT TARGET tvm_ffi_shared)
  message(FATAL_ERROR "targets missing")
endif()
file(WRITE "${{CMAKE_BINARY_DIR}}/version.txt" "${{tvm_ffi_VERSION}}")
add_library(cfgtest SHARED k.cc)
target_link_libraries(cfgtest tvm_ffi_shared)
set_target_properties(cfgtest PROPERTIES PREFIX "")
"""


def test_cmake_package_builds_an_extension(tmp_path):
    if not shutil.which("cmake"):
        pytest.skip("no cmake")
    (tmp_path / "k.cc").write_text(
        '#include <tvm/ffi/function.h>\n#include <tvm/ffi/string.h>\n'
        'tvm::ffi::String Hello(tvm::ffi::String s) { return std::string("hi ") + s.c_str(); }\n'
        'TVM_FFI_DLL_EXPORT_TYPED_FUNC(hello, Hello);\n')
    root = run_config("--cmakedir").stdout.strip()
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT.format(root=root))
    b = tmp_path / "b"
    r = subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(b)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    want = _configure_ac_version()
    if want:
        assert (b / "version.txt").read_text() == want
    mod = tvm_ffi.load_module(str(b / "cfgtest.so"))
    assert mod.hello("there") == "hi there"
