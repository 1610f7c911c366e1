"""Build the torch C DLPack add-on: a shared library giving torch.Tensor a DLPack C exchange
table (``__dlpack_c_exchange_api__``) on PyTorch releases without a native one.

    python -m tvm_ffi.utils._build_optional_torch_c_dlpack [--output-dir DIR] [--libname NAME]
        [--build-dir DIR] [--build-with-cuda | --build-with-rocm]

Exits at once when ``<output-dir>/<libname>`` exists.  Concurrent builders serialise on the
file lock ``<output-dir>/<libname>.lock``; the library is linked as ``<libname>.tmp`` in the
build directory and renamed into place.  Only torch (and a C++ compiler) is needed.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "_torch_c_dlpack_addon.cc")


def _dlpack_include():
    pkg = os.path.dirname(HERE)
    for d in (os.path.join(pkg, "include"), os.path.join(os.path.dirname(os.path.dirname(pkg)),
                                                         "c", "include")):
        if os.path.isfile(os.path.join(d, "dlpack", "dlpack.h")):
            return d
    raise RuntimeError("Cannot find the dlpack include directory of tvm_ffi")


def _split_env(var):
    text = os.environ.get(var, "")
    try:
        return shlex.split(text)
    except ValueError as err:
        print("Warning: Could not parse %s with shlex: %s. Falling back to simple split."
              % (var, err), file=sys.stderr)
        return text.split()


def _torch_mm(torch):
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def default_libname(torch, device):
    major, minor = _torch_mm(torch)
    ext = ".dll" if sys.platform == "win32" else ".so"
    return "libtorch_c_dlpack_addon_torch%d%d-%s%s" % (major, minor, device, ext)


try:
    from .lockfile import FileLock as _FileLock
except ImportError:  # run as a script (python .../utils/_build_optional_torch_c_dlpack.py)
    from lockfile import FileLock as _FileLock


def build(output_dir, libname, build_dir, with_cuda, with_rocm):
    import torch
    from torch.utils import cpp_extension

    if with_cuda and with_rocm:
        raise ValueError("Cannot enable both CUDA and ROCm at the same time.")
    device = "cuda" if with_cuda else "rocm" if with_rocm else "cpu"
    if libname == "auto":
        libname = default_libname(torch, device)
    os.makedirs(output_dir, exist_ok=True)
    target = os.path.join(output_dir, libname)
    with _FileLock(target + ".lock"):
        if os.path.exists(target):
            return target
        os.makedirs(build_dir, exist_ok=True)
        src = os.path.join(build_dir, "addon.cc")
        shutil.copyfile(SOURCE, src)
        gpu = with_cuda or with_rocm
        try:  # torch >= 2.6 takes device_type=, older cuda=
            incs = cpp_extension.include_paths(device_type="cuda" if gpu else "cpu")
        except TypeError:
            incs = cpp_extension.include_paths(cuda=gpu)
        incs = [sysconfig.get_paths()["include"], _dlpack_include()] + list(incs)
        std = "-std=c++20" if _torch_mm(torch) >= (2, 13) else "-std=c++17"
        abi = int(torch.compiled_with_cxx11_abi())
        cflags = [std, "-fPIC", "-O3", "-fvisibility=hidden", "-D_GLIBCXX_USE_CXX11_ABI=%d" % abi]
        if with_cuda:
            cflags.append("-DBUILD_WITH_CUDA")
        if with_rocm:
            cflags += ["-DBUILD_WITH_ROCM", "-D__HIP_PLATFORM_AMD__=1"]
        cflags += _split_env("TVM_FFI_JIT_EXTRA_CFLAGS")
        ldflags = ["-shared", "-Wl,-rpath,$ORIGIN"]
        try:
            libdirs = cpp_extension.library_paths(device_type="cuda" if gpu else "cpu")
        except TypeError:
            libdirs = cpp_extension.library_paths(cuda=gpu)
        ldflags += ["-L" + d for d in libdirs]
        ldflags += ["-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"]
        if with_cuda:
            ldflags += ["-ltorch_cuda", "-lc10_cuda"]
        ldflags += _split_env("TVM_FFI_JIT_EXTRA_LDFLAGS")
        tmp = os.path.join(build_dir, libname + ".tmp")
        cmd = (shlex.split(os.environ.get("CXX") or "c++") + cflags + ["-I" + i for i in incs]
               + [src, "-o", tmp] + ldflags)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            msg = "Build failed with status %d" % proc.returncode
            if proc.stdout:
                msg += "\nstdout:\n" + proc.stdout
            if proc.stderr:
                msg += "\nstderr:\n" + proc.stderr
            raise RuntimeError(msg)
        shutil.move(tmp, target)  # os.replace when on the same filesystem
    return target


def main(argv=None):
    os.environ["TVM_FFI_DISABLE_TORCH_C_DLPACK"] = "1"  # importing tvm_ffi here must not recurse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", "--build_dir", default=None)
    ap.add_argument("--output-dir", default=None)
    ap.add_argument("--build-with-cuda", "--build_with_cuda", action="store_true")
    ap.add_argument("--build-with-rocm", action="store_true")
    ap.add_argument("--libname", default="auto")
    args = ap.parse_args(argv)
    output = args.output_dir or os.path.expanduser(
        os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi")
    build_dir = args.build_dir or tempfile.mkdtemp(prefix="tvm-ffi-torch-c-dlpack-")
    print(build(output, args.libname, build_dir, args.build_with_cuda, args.build_with_rocm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
