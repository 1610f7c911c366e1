"""ExecutionSession: one LLVM ORC JIT (LLJIT) in which object files are linked into modules."""
import os
import threading

import tvm_ffi

_new_session = tvm_ffi.get_global_func("tvm_ffi_orcjit.ExecutionSession")
_load_module = tvm_ffi.get_global_func("tvm_ffi_orcjit.SessionLoadModule")
_clear_free_slabs = tvm_ffi.get_global_func("tvm_ffi_orcjit.SessionClearFreeSlabs")
_global_default = tvm_ffi.get_global_func("tvm_ffi_orcjit.GlobalDefaultSession")
_globals_add = tvm_ffi.get_global_func("ffi.ModuleGlobalsAdd")


def _normalize_orc_rt(orc_rt):
    if orc_rt is None:
        return None
    if isinstance(orc_rt, str) and orc_rt == "auto":
        return ""
    if isinstance(orc_rt, (bytes, bytearray)):
        return bytes(orc_rt)
    if isinstance(orc_rt, (str, os.PathLike)):
        return os.fspath(orc_rt)
    raise TypeError("orc_rt must be 'auto', a path (str or Path), liborc_rt bytes, or None, "
                    "but got %s" % type(orc_rt).__name__)


def _normalize_object(item):
    if isinstance(item, (bytes, bytearray)):
        return bytes(item)
    if isinstance(item, (str, os.PathLike)):
        path = os.fspath(item)
        if isinstance(path, str):
            return path
    raise TypeError("load_module objects must be a path (str or Path) or object-file bytes, "
                    "but got %s" % type(item).__name__)


@tvm_ffi.register_object("tvm_ffi_orcjit.ExecutionSession", init=False)
class ExecutionSession(tvm_ffi.Object):
    """A JIT session.  Modules loaded into it stay independent namespaces.

    ``orc_rt`` and ``slab_size`` are accepted for API compatibility: this build links with
    JITLink's default in-process memory manager and runs constructors/destructors itself, so
    no ORC runtime archive is used and there is no slab pool (``clear_free_slabs`` returns 0).
    """

    def __init__(self, orc_rt="auto", slab_size=0):
        rt = _normalize_orc_rt(orc_rt)
        if not isinstance(slab_size, int) or isinstance(slab_size, bool):
            raise TypeError("slab_size must be an int, but got %s" % type(slab_size).__name__)
        self.__init_handle_by_constructor__(_new_session, rt, slab_size)

    def load_module(self, objects, name="", keep_module_alive=False):
        """Links ``objects`` (paths or object-file bytes) into one new module."""
        if isinstance(objects, (str, bytes, bytearray, os.PathLike)):
            objects = [objects]
        items = [_normalize_object(o) for o in objects]
        if not isinstance(name, str):
            raise TypeError("name must be a str, but got %s" % type(name).__name__)
        mod = _load_module(self, items, name)
        if keep_module_alive:
            _globals_add(mod)
        return mod

    def clear_free_slabs(self):
        """Unmaps unused JIT memory slabs; returns how many (always 0: no slab pool here)."""
        return _clear_free_slabs(self)


_default = None
_default_lock = threading.Lock()


def default_session():
    """The process-wide session (created on first use, never destroyed)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = _global_default()
    return _default
