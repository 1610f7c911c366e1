"""Compilers, default flags, CUDA/ROCm discovery, and running ninja for tvm_ffi.cpp.

Nothing here is imported at ``import tvm_ffi`` time beyond the module itself (subprocess
work happens only when a build is requested).
"""

import functools
import logging
import os
import shlex
import shutil
import subprocess
import sys

from .. import libinfo

_log = logging.getLogger("tvm_ffi.cpp")


def cxx():
    return os.environ.get("CXX") or "c++"


def cc():
    return os.environ.get("CC") or "cc"


@functools.lru_cache(maxsize=None)
def compiler_identity(command):
    """First line(s) of ``<command> --version``: part of the cache key (a new compiler makes a
    new binary).  Unknown compilers contribute their command only."""
    try:
        out = subprocess.run(
            shlex.split(command) + ["--version"], capture_output=True, text=True, timeout=60
        )
        return command + "\n" + (out.stdout or out.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return command


def is_gcc(command):
    """Whether ``command`` is GCC (its ``--version`` names the Free Software Foundation)."""
    return "Free Software Foundation" in compiler_identity(command)


def include_paths(extra_include_paths):
    paths = []
    for p in (libinfo.find_include_path(), libinfo.find_dlpack_include_path()):
        if p not in paths:
            paths.append(p)
    for p in extra_include_paths or ():
        paths.append(os.path.abspath(os.fspath(p)))
    return paths


@functools.lru_cache(maxsize=None)
def headers_digest():
    """SHA-256 over the tvm_ffi headers a build includes: a header change is a new binary."""
    import hashlib  # noqa: PLC0415

    h = hashlib.sha256()
    for root in sorted({libinfo.find_include_path(), libinfo.find_dlpack_include_path()}):
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".h", ".hpp", ".cuh")):
                    p = os.path.join(d, f)
                    h.update(os.path.relpath(p, root).encode() + b"\0")
                    with open(p, "rb") as fh:
                        h.update(fh.read())
    return h.hexdigest()


# ---- GPU backends -------------------------------------------------------------------------

def pick_backend(backend):
    if backend is not None:
        if backend not in ("cuda", "hip"):
            raise ValueError("Unsupported backend %r: expected 'cuda' or 'hip'" % (backend,))
        return backend
    env = os.environ.get("TVM_FFI_GPU_BACKEND")
    if env:
        return pick_backend(env)
    torch = sys.modules.get("torch")  # only when the user already imported it
    version = getattr(torch, "version", None) if torch is not None else None
    if version is not None:
        if getattr(version, "hip", None):
            return "hip"
        if getattr(version, "cuda", None):
            return "cuda"
    if shutil.which("hipcc") and not shutil.which("nvcc"):
        return "hip"
    return "cuda"


def cuda_home():
    """CUDA_HOME / CUDA_PATH, else the toolkit owning the nvcc on PATH, else /usr/local/cuda."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    cands = [home] if home else []
    nvcc = shutil.which("nvcc")
    if not home and nvcc:
        # nvcc may be a symlink or a wrapper script outside the toolkit: accept the parent
        # only when it holds the runtime headers
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    if not home:
        cands.append("/usr/local/cuda")
    for c in cands:
        if os.path.isfile(os.path.join(c, "include", "cuda_runtime.h")):
            return c
    raise RuntimeError(
        "Cannot find the CUDA toolkit (looked at %s); set CUDA_HOME" % ", ".join(cands)
    )


def rocm_home():
    home = os.environ.get("ROCM_HOME") or os.environ.get("ROCM_PATH")
    if not home:
        hipcc = shutil.which("hipcc")
        home = os.path.dirname(os.path.dirname(os.path.realpath(hipcc))) if hipcc else "/opt/rocm"
    if not os.path.isdir(home):
        raise RuntimeError("Cannot find ROCm: set ROCM_HOME (looked at %s)" % home)
    return home


def cuda_arch_flags():
    """``-gencode`` flags from TVM_FFI_CUDA_ARCH_LIST, else the first GPU (nvidia-smi)."""
    archs = os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "").split()
    if not archs:
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=30,
            ).stdout.strip().splitlines()
        except (OSError, subprocess.SubprocessError):
            out = []
        if out:
            cap, _, name = out[0].partition(",")
            cap = cap.strip()
            if not cap and "A100" in name:
                cap = "8.0"
            elif not cap and "A10" in name:
                cap = "8.6"
            if cap:
                archs = [cap]
    if not archs:
        raise RuntimeError(
            "Cannot determine the CUDA architecture (no GPU visible through nvidia-smi); "
            "set TVM_FFI_CUDA_ARCH_LIST, e.g. TVM_FFI_CUDA_ARCH_LIST=\"8.0 9.0a\""
        )
    flags = []
    for a in archs:
        major, dot, rest = a.partition(".")
        minor = rest.rstrip("af")
        suffix = rest[len(minor):]
        if not (dot and major.isdigit() and minor.isdigit() and suffix in ("", "a", "f")):
            raise ValueError("Invalid CUDA architecture: %r (expected e.g. 8.9 or 9.0a)" % a)
        num = major + minor + suffix
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (num, num))
    return flags


def rocm_arch_flags():
    archs = os.environ.get("TVM_FFI_ROCM_ARCH_LIST", "").split()
    if not archs:
        for tool in ("rocm_agent_enumerator", "rocminfo"):
            try:
                out = subprocess.run([tool], capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            archs = sorted({w for w in out.split() if w.startswith("gfx") and w != "gfx000"})
            if archs:
                break
    if not archs:
        raise RuntimeError("Cannot determine the ROCm architecture; set TVM_FFI_ROCM_ARCH_LIST")
    return ["--offload-arch=%s" % a for a in archs]


# ---- ninja ----------------------------------------------------------------------------------

def find_ninja():
    exe = shutil.which("ninja")
    if exe:
        return exe
    try:
        import ninja  # noqa: PLC0415 - the pip package ships the binary

        exe = os.path.join(ninja.BIN_DIR, "ninja")
        if os.path.isfile(exe):
            return exe
    except ImportError:
        pass
    raise RuntimeError("tvm_ffi.cpp needs the ninja build tool: pip install ninja")


def _build_env():
    """The environment for the compilers: without sanitizer runtimes a sanitizer build's
    python was started with (LD_PRELOAD), which some compilers (nvcc) crash under."""
    preload = os.environ.get("LD_PRELOAD")
    if not preload:
        return None
    kept = [p for p in preload.replace(":", " ").split()
            if not os.path.basename(p).startswith(("libasan", "libubsan", "libtsan"))]
    env = dict(os.environ)
    if kept:
        env["LD_PRELOAD"] = " ".join(kept)
    else:
        del env["LD_PRELOAD"]
    return env


def run_ninja(build_dir):
    cmd = [find_ninja(), "-v"]
    jobs = os.environ.get("MAX_JOBS")
    if jobs:
        cmd += ["-j", jobs]
    proc = subprocess.run(cmd, cwd=build_dir, capture_output=True, text=True, env=_build_env())
    where = os.environ.get("TVM_FFI_CPP_EXTENSION_LOG_BUILD", "")
    if where in ("1", "stdout", "stderr"):
        _log.info("ninja in %s:\n%s%s", build_dir, proc.stdout, proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(
            "ninja exited with status %d\nstdout:\n%s\nstderr:\n%s"
            % (proc.returncode, proc.stdout, proc.stderr)
        )


def ninja_escape(path):
    return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")
