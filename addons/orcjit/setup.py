"""Compiles libtvm_ffi_orcjit.so into the package (tvm_ffi_orcjit/lib/) while building it.

LLVM: ``$LLVM_CONFIG`` or ``llvm-config`` (LLVM >= 14 with the ORC headers), linked as LLVM's
shared library.  tvm_ffi headers: ``$TVM_FFI_INCLUDE_DIRS`` (os.pathsep-separated), else the
checkout this directory sits in (c/include, cpp/include), else ``tvm_ffi.libinfo`` of an
installed tvm_ffi (``pip install --no-build-isolation``).  libtvm_ffi.so is not linked: the
package imports tvm_ffi first, which loads it with RTLD_GLOBAL.  The library uses no Python C
API, so the wheel is ``py3-none-<platform>``.
"""
import os
import shlex
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


def _llvm(*args):
    cfg = os.environ.get("LLVM_CONFIG", "llvm-config")
    try:
        return subprocess.run([cfg, *args], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit("tvm_ffi_orcjit needs LLVM >= 14: cannot run %s %s (%s); install it "
                         "(Debian: apt-get install llvm-14-dev) or set LLVM_CONFIG"
                         % (cfg, " ".join(args), err)) from None


def _tvm_ffi_includes():
    env = os.environ.get("TVM_FFI_INCLUDE_DIRS")
    if env:
        return env.split(os.pathsep)
    top = os.path.normpath(os.path.join(HERE, "..", ".."))
    if os.path.isfile(os.path.join(top, "cpp", "include", "tvm", "ffi", "tvm_ffi.h")):
        return [os.path.join(top, "c", "include"), os.path.join(top, "cpp", "include")]
    try:
        from tvm_ffi import libinfo  # noqa: PLC0415 - only when not built from a checkout
    except ImportError:
        raise SystemExit("tvm_ffi_orcjit: tvm_ffi headers not found; set TVM_FFI_INCLUDE_DIRS, "
                         "build from a tvm-ffi-c checkout, or install tvm_ffi and use "
                         "--no-build-isolation") from None
    return [libinfo.find_include_path(), libinfo.find_dlpack_include_path()]


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        out = os.path.join(self.build_lib, "tvm_ffi_orcjit", "lib", "libtvm_ffi_orcjit.so")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        major = int(_llvm("--version").split(".")[0])
        if major < 14:
            raise SystemExit("tvm_ffi_orcjit needs LLVM >= 14, llvm-config reports %d" % major)
        # LLVM's -I become -isystem; the C++ layer needs exceptions and C++17
        cxxflags = [f.replace("-I", "-isystem", 1) if f.startswith("-I") else f
                    for f in shlex.split(_llvm("--cxxflags"))
                    if not f.startswith("-std=") and f != "-fno-exceptions"]
        libdir = _llvm("--libdir").strip()
        cmd = (shlex.split(os.environ.get("CXX") or "c++")
               + ["-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden"] + cxxflags
               + ["-I" + d for d in _tvm_ffi_includes()]
               + [os.path.join(HERE, "src", "orcjit.cc"), "-o", out]
               + shlex.split(_llvm("--ldflags")) + shlex.split(_llvm("--libs", "orcjit", "native"))
               + ["-Wl,-rpath," + libdir, "-Wl,-z,nodelete"])
        print(" ".join(cmd))
        subprocess.run(cmd, check=True)


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
