"""The top-level names of tvm_ffi (docs/python.md §2.1): every [seed]/[core] name is exported."""

import types

import tvm_ffi

# section 2.1 rows tagged [seed] or [core], with the kind each must be
CLASSES = ["Array", "Device", "Dict", "Function", "List", "Map", "Module", "Object", "Shape",
           "StreamContext", "Tensor", "dtype"]
FUNCTIONS = ["convert", "device", "from_dlpack", "get_global_func", "get_raw_stream",
             "init_ffi_api", "load_module", "register_error", "register_global_func",
             "register_object", "use_raw_stream", "use_torch_stream"]
MODULES = ["cpp"]


def test_core_names_in_all():
    missing = [n for n in CLASSES + FUNCTIONS + MODULES + ["DLDeviceType"]
               if n not in tvm_ffi.__all__]
    assert missing == []


def test_all_names_resolve_with_their_kind():
    for name in tvm_ffi.__all__:
        assert hasattr(tvm_ffi, name), name
    for name in CLASSES:
        assert isinstance(getattr(tvm_ffi, name), type), name
    for name in FUNCTIONS:
        assert callable(getattr(tvm_ffi, name)), name
    for name in MODULES:
        assert isinstance(getattr(tvm_ffi, name), types.ModuleType), name
    assert [m.name for m in tvm_ffi.DLDeviceType][:1] == ["kDLCPU"]


def test_star_import():
    ns = {}
    exec("from tvm_ffi import *", ns)  # noqa: S102 - checks __all__ is importable as a whole
    assert ns["Function"] is tvm_ffi.Function and ns["cpp"] is tvm_ffi.cpp
