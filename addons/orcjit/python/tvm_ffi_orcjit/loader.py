"""ObjectLoader: incremental loading of object files into one namespace (seed API)."""
import tvm_ffi

from .session import ExecutionSession, _normalize_object

_create = tvm_ffi.get_global_func("tvm_ffi_orcjit.SessionCreateDynamicLibrary")
_add = tvm_ffi.get_global_func("tvm_ffi_orcjit.DynamicLibraryAdd")
_get_module = tvm_ffi.get_global_func("tvm_ffi_orcjit.DynamicLibraryGetModule")


class ObjectLoader:
    """A session plus one dynamic library: every ``load`` adds to the same namespace, so later
    objects may use symbols of earlier ones; a duplicate strong definition fails at ``load``."""

    def __init__(self, session=None, name=""):
        self.session = session if session is not None else ExecutionSession()
        self._lib = _create(self.session, name)
        self._module = None

    def load(self, obj):
        """Adds one object file (path or bytes)."""
        _add(self._lib, _normalize_object(obj))

    @property
    def module(self):
        """The tvm_ffi.Module over everything loaded so far (and later)."""
        if self._module is None:
            self._module = _get_module(self._lib)
        return self._module

    def get_function(self, name):
        """Function ``name`` (symbol ``__tvm_ffi_<name>``); AttributeError when absent."""
        return self.module.get_function(name)
