"""Global functions registered by the library under the my_ffi_extension. prefix."""

import tvm_ffi

from .base import _LIB  # noqa: F401 - loading the library registers the globals

tvm_ffi.init_ffi_api("my_ffi_extension", __name__)
