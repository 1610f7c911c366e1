"""tvm_ffi.cpp: JIT-compile C++ (and CUDA) sources into libraries tvm_ffi loads.

``load_inline("m", cpp_sources=src, functions=["add"]).add(1, 2)``; see ``extension`` for the
cache and concurrency rules.  Needs ``ninja`` (pip install ninja) and a C++ compiler; CUDA
sources need ``nvcc`` (or ``hipcc``).

``import tvm_ffi`` imports this package, so its own imports are deferred to first use.
"""

__all__ = ["build", "build_inline", "load", "load_inline", "to_cpp_dtype"]


def __getattr__(name):
    if name in ("build", "build_inline", "load", "load_inline"):
        from . import extension  # noqa: PLC0415 - loaded on first use (compilers, hashlib)

        return getattr(extension, name)
    if name == "to_cpp_dtype":
        from .dtype import to_cpp_dtype  # noqa: PLC0415 - loaded on first use

        return to_cpp_dtype
    if name in ("extension", "dtype", "_toolchain", "nvrtc"):
        import importlib  # noqa: PLC0415

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'tvm_ffi.cpp' has no attribute %r" % name)


def __dir__():
    return sorted(list(globals()) + __all__)
