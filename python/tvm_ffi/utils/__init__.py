"""tvm_ffi.utils: small helpers that need nothing from the runtime.

``FileLock`` (inter-process lock), ``make_kwargs_wrapper`` /
``make_kwargs_wrapper_from_signature`` (keyword front ends for positional-only callables such as
FFI functions), ``unpack_dataclass_to_tuple`` and ``embed_cubin`` (also a CLI:
``python -m tvm_ffi.utils.embed_cubin``).  ``_build_optional_torch_c_dlpack`` is the torch
add-on builder.  Everything here imports only the standard library, so ``import tvm_ffi``
stays cheap.
"""

from . import kwargs_wrapper
from .kwargs_wrapper import make_kwargs_wrapper, make_kwargs_wrapper_from_signature
from .lockfile import FileLock
from .unpack_dataclass import unpack_dataclass_to_tuple

__all__ = [
    "FileLock", "embed_cubin", "kwargs_wrapper", "make_kwargs_wrapper",
    "make_kwargs_wrapper_from_signature", "unpack_dataclass_to_tuple",
]


def __getattr__(name):
    # the submodule (and its subprocess import) only when asked for
    if name == "embed_cubin":
        import importlib  # noqa: PLC0415

        return importlib.import_module(".embed_cubin", __name__)
    raise AttributeError("module 'tvm_ffi.utils' has no attribute %r" % name)
