"""ABI mode: the fallback of the call path when the compiled cffi module cannot be used (PyPy,
no compiler, ``TVM_FFI_USE_ABI_MODE=1``).

What the compiled module does in C (``_ffi_src/``), ABI mode does in Python, with the same
conversion table (``_rules.py``) and the same hooks, one file per job:

* ``_abi_call.py``: the call (``Function.__call__``): arguments packed by the table's
  handlers, ``TVMFFIFunctionCall``, the result converted;
* ``_abi_results.py``: ``TVMFFIAny`` to Python by the table's result kinds;
* ``_abi_callbacks.py``: Python callables and C symbols as Functions;
* ``_abi_objects.py``: Python objects as opaque objects;
* ``_abi_dlpack.py``: tensors through DLPack capsules.

``install`` (run by ``_boot._init``; _boot imports this module in ABI mode only) puts them in
place of the entry points the compiled module would provide.
"""

from . import _abi_call, _abi_callbacks, _abi_dlpack, _abi_objects, _abi_results, _capi
from . import _conversion, _tensor
from ._function import Function
from ._loader import ffi, lib


def install():
    """Replaces the compiled module's entry points with ABI mode's."""
    _capi.install(ffi)
    Function.__call__ = _abi_call.function_call
    Function.__from_extern_c__ = staticmethod(_abi_callbacks.from_extern_c)
    Function.__from_mlir_packed_safe_call__ = staticmethod(_abi_callbacks.from_mlir)
    _tensor.Tensor._capsule = _abi_dlpack.tensor_capsule
    _tensor.from_dlpack = _abi_dlpack.from_dlpack
    _conversion._make_callback = _abi_callbacks.make_callback
    _conversion._make_opaque = _abi_objects.make_opaque
    _conversion._from_owned_any = _abi_results.from_owned_any
    _conversion._from_any_view = _abi_results.from_any_view
    _conversion._from_any_ptr_view = _abi_results.from_any_ptr_view
    _conversion._to_owned_any = _abi_call.to_owned_any
    # spec 14.6: long C++ loops poll signals through these (_ffi_src/state.c does the same in C)
    for name, fn_addr in _capi.api_addresses().items():
        lib.TVMFFIEnvRegisterCAPI(name.encode(), ffi.cast("void*", fn_addr))
