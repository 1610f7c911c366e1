"""Build the torch C DLPack add-on: a shared library giving torch.Tensor a DLPack C exchange
table (``__dlpack_c_exchange_api__``) on PyTorch releases without a native one.

    python <tvm_ffi>/torch_c_dlpack_addon/build.py [--build_dir DIR] [--output-dir DIR]
        [--libname NAME] [--build_with_cuda | --build-with-rocm]

builds ``DIR/libtorch_c_dlpack_addon.so`` (default DIR ``~/.tvm_ffi/torch_c_dlpack_addon``)
for the running (python, torch) pair and prints its path.  The upstream spelling
``python -m tvm_ffi.utils._build_optional_torch_c_dlpack`` runs the same build with upstream's
defaults: intermediates in a temporary directory, the library in ``$TVM_FFI_CACHE_DIR``
(default ``~/.cache/tvm-ffi``) named ``libtorch_c_dlpack_addon_torch<MM>-<device>.so``.

Exits at once when the library exists.  Concurrent builders serialise on the file lock
``<library>.lock``; the library is linked as ``<libname>.tmp`` and renamed into place.  This
file imports only the standard library and torch, never tvm_ffi: it needs a C++ compiler
(``$CXX``, default ``c++``), torch's C++ headers and the ``dlpack/dlpack.h`` of the tvm_ffi
tree it sits in (``tvm_ffi/include`` in a wheel, ``c/include`` in a checkout).  Extra flags:
``$TVM_FFI_JIT_EXTRA_CFLAGS``, ``$TVM_FFI_JIT_EXTRA_LDFLAGS``.
"""

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)  # the tvm_ffi package directory
SOURCE = os.path.join(HERE, "addon.cc")
EXT = ".dll" if sys.platform == "win32" else ".so"
SEED_LIBNAME = "libtorch_c_dlpack_addon" + EXT


def _dlpack_include():
    for d in (os.path.join(PKG, "include"),
              os.path.join(os.path.dirname(os.path.dirname(PKG)), "c", "include")):
        if os.path.isfile(os.path.join(d, "dlpack", "dlpack.h")):
            return d
    raise RuntimeError("Cannot find dlpack/dlpack.h next to %s (tvm_ffi/include or c/include)"
                       % PKG)


def _file_lock(path):
    # tvm_ffi/utils/lockfile.py is standard-library only: load it by path, not through tvm_ffi
    spec = importlib.util.spec_from_file_location("_tvm_ffi_lockfile",
                                                  os.path.join(PKG, "utils", "lockfile.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FileLock(path)


def split_env(var):
    """The words of ``$var``, shell-style (plain split, with a warning, when that fails)."""
    text = os.environ.get(var, "")
    try:
        return shlex.split(text)
    except ValueError as err:
        print("Warning: Could not parse %s with shlex: %s. Falling back to simple split."
              % (var, err), file=sys.stderr)
        return text.split()


def compiler_command():
    """The C++ compiler command: ``$CXX`` (split shell-style) or ``c++``."""
    return shlex.split(os.environ.get("CXX") or "c++")


def _torch_mm(torch):
    major, minor = torch.__version__.split("+")[0].split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def default_libname(torch, device):
    """Upstream's ``--libname auto``: ``libtorch_c_dlpack_addon_torch<MM>-<device><ext>``."""
    major, minor = _torch_mm(torch)
    return "libtorch_c_dlpack_addon_torch%d%d-%s%s" % (major, minor, device, EXT)


def build(output_dir, libname, build_dir, with_cuda=False, with_rocm=False):
    """Builds ``<output_dir>/<libname>`` unless it exists; returns its path."""
    import torch  # noqa: PLC0415
    from torch.utils import cpp_extension  # noqa: PLC0415

    if with_cuda and with_rocm:
        raise ValueError("Cannot enable both CUDA and ROCm at the same time.")
    device = "cuda" if with_cuda else "rocm" if with_rocm else "cpu"
    if libname == "auto":
        libname = default_libname(torch, device)
    os.makedirs(output_dir, exist_ok=True)
    target = os.path.join(output_dir, libname)
    with _file_lock(target + ".lock"):
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
        cflags += split_env("TVM_FFI_JIT_EXTRA_CFLAGS")
        ldflags = ["-shared", "-Wl,-rpath,$ORIGIN"]
        try:
            libdirs = cpp_extension.library_paths(device_type="cuda" if gpu else "cpu")
        except TypeError:
            libdirs = cpp_extension.library_paths(cuda=gpu)
        ldflags += ["-L" + d for d in libdirs]
        ldflags += ["-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python"]
        if with_cuda:
            ldflags += ["-ltorch_cuda", "-lc10_cuda"]
        ldflags += split_env("TVM_FFI_JIT_EXTRA_LDFLAGS")
        tmp = os.path.join(build_dir, libname + ".tmp")
        cmd = compiler_command() + cflags + ["-I" + i for i in incs] + [src, "-o", tmp] + ldflags
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as err:  # no compiler at all
            raise RuntimeError("Build failed: cannot run %s: %s" % (cmd[0], err)) from None
        if proc.returncode != 0:
            msg = "Build failed with status %d" % proc.returncode
            if proc.stdout:
                msg += "\nstdout:\n" + proc.stdout
            if proc.stderr:
                msg += "\nstderr:\n" + proc.stderr
            raise RuntimeError(msg)
        shutil.move(tmp, target)  # os.replace when on the same filesystem
    return target


def main(argv=None, upstream_defaults=False):
    """The CLI; ``upstream_defaults`` selects the defaults of upstream's builder module."""
    os.environ["TVM_FFI_DISABLE_TORCH_C_DLPACK"] = "1"  # importing tvm_ffi here must not recurse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", "--build_dir", default=None,
                    help="source and intermediates (and, by default, the library)")
    ap.add_argument("--output-dir", "--output_dir", default=None, help="where the library goes")
    ap.add_argument("--build-with-cuda", "--build_with_cuda", action="store_true")
    ap.add_argument("--build-with-rocm", "--build_with_rocm", action="store_true")
    ap.add_argument("--libname", default="auto" if upstream_defaults else SEED_LIBNAME,
                    help="library file name ('auto': libtorch_c_dlpack_addon_torch<MM>-<device>)")
    args = ap.parse_args(argv)
    if upstream_defaults:
        build_dir = args.build_dir or tempfile.mkdtemp(prefix="tvm-ffi-torch-c-dlpack-")
        output = args.output_dir or os.path.expanduser(
            os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi")
    else:
        build_dir = os.path.expanduser(args.build_dir or "~/.tvm_ffi/torch_c_dlpack_addon")
        output = args.output_dir or build_dir
    try:
        print(build(output, args.libname, build_dir, args.build_with_cuda, args.build_with_rocm))
    except (RuntimeError, ValueError, ImportError) as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
