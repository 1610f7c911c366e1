"""Modules: load_module, system_lib and the Module class."""

import enum
import os

from ._base import Object, _register_class
from ._function import _global, _testing_first, _type_key_to_index
from ._type_index import kTVMFFIModule
from .registry import _attach_fields, get_global_func


class ModulePropertyMask(enum.IntEnum):
    BINARY_SERIALIZABLE = 1
    RUNNABLE = 2
    COMPILATION_EXPORTABLE = 4


class Module(Object):
    """A loaded library or runtime module (ffi.Module)."""

    __slots__ = ("__dict__",)
    entry_name = "main"

    def __getattr__(self, name):
        if name.startswith("__") or name == "_h":
            raise AttributeError(name)
        f = self.get_function(name)
        setattr(self, name, f)
        return f

    def __getitem__(self, name):
        if not isinstance(name, str):
            raise ValueError("Can only take string as function name")
        return self.get_function(name)

    def __call__(self, *args):
        return self.main(*args)

    def get_function(self, name, query_imports=False):
        f = _global("ffi.ModuleGetFunction")(self, name, query_imports)
        if f is None:
            raise AttributeError("Module has no function '%s'" % name)
        return f

    def implements_function(self, name, query_imports=False):
        return bool(_global("ffi.ModuleImplementsFunction")(self, name, query_imports))

    def get_function_metadata(self, name, query_imports=False):
        text = _global("ffi.ModuleGetFunctionMetadata")(self, name, query_imports)
        return __import__("json").loads(text) if text else None

    def get_function_doc(self, name, query_imports=False):
        text = _global("ffi.ModuleGetFunctionDoc")(self, name, query_imports)
        return text if text else None

    @property
    def kind(self):
        return _global("ffi.ModuleGetKind")(self)

    @property
    def imports(self):
        return list(self.imports_)

    def import_module(self, other):
        _global("ffi.ModuleImportModule")(self, other)

    def clear_imports(self):
        _global("ffi.ModuleClearImports")(self)

    def get_property_mask(self):
        return _global("ffi.ModuleGetPropertyMask")(self)

    def is_binary_serializable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.BINARY_SERIALIZABLE)

    def is_runnable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.RUNNABLE)

    def is_compilation_exportable(self):
        return bool(self.get_property_mask() & ModulePropertyMask.COMPILATION_EXPORTABLE)

    def inspect_source(self, fmt=""):
        return _global("ffi.ModuleInspectSource")(self, fmt)

    def get_write_formats(self):
        return list(_global("ffi.ModuleGetWriteFormats")(self))

    def write_to_file(self, file_name, fmt=""):
        _global("ffi.ModuleWriteToFile")(self, file_name, fmt)


LOADER_ENTRY_POINTS = "tvm_ffi.module_loaders"


def load_module(path, keep_module_alive=True):
    """Load a library (or any format with a registered loader) as a Module.

    The loader is the global ``ffi.Module.load_from_file.<kind>``, ``<kind>`` being the text
    after the path's last dot (``so`` for ``.so/.dll/.dylib/.dso``).  When none is registered,
    an installed package may provide it: entry points of the group ``tvm_ffi.module_loaders``
    named ``<kind>`` name a module whose import registers the loader (the ORC JIT add-on
    declares ``o = "tvm_ffi_orcjit"``), so ``load_module("x.o")`` works without importing it.
    """
    path = os.fspath(path)
    _plug_in_loader(path)
    mod = _global("ffi.ModuleLoadFromFile")(path)
    if keep_module_alive:
        _global("ffi.ModuleGlobalsAdd")(mod)
    return mod


def _plug_in_loader(path):
    """Imports the packages advertising a loader for this file kind, when none is registered."""
    base = os.path.basename(path)
    if "." not in base:
        return  # ffi.ModuleLoadFromFile reports the missing extension
    kind = base.rpartition(".")[2]
    if kind in ("so", "dll", "dylib", "dso"):
        return
    if get_global_func("ffi.Module.load_from_file." + kind, allow_missing=True) is not None:
        return
    from importlib import metadata  # noqa: PLC0415 - only for unknown kinds

    try:
        eps = metadata.entry_points(group=LOADER_ENTRY_POINTS)
    except TypeError:  # Python 3.9: a dict of groups
        eps = metadata.entry_points().get(LOADER_ENTRY_POINTS, [])
    for ep in eps:
        if ep.name == kind:
            ep.load()  # importing the module registers the loader


def system_lib(symbol_prefix=""):
    _testing_first()  # (its system-library symbols)
    return _global("ffi.SystemLib")(symbol_prefix)


def _register():
    tidx = _type_key_to_index("ffi.Module")
    _register_class(tidx if tidx is not None else kTVMFFIModule, Module)
    # the reflected field `imports_` backs Module.imports; reflected methods are not
    # attached: they would shadow library functions reached through __getattr__
    _attach_fields(Module, tidx if tidx is not None else kTVMFFIModule)


_register()
