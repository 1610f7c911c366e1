"""Python names of schema origins, and module renames for type-key imports."""

#: schema origin -> the dotted Python name an annotation uses (no dot: a builtin)
TY_MAP_DEFAULTS = {
    "Any": "typing.Any",
    "Callable": "typing.Callable",
    "None": "None",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "bytes": "bytes",
    "list": "list",
    "dict": "dict",
    "tuple": "tuple",
    "ffi.Tuple": "tuple",
    "Array": "collections.abc.Sequence",
    "List": "collections.abc.MutableSequence",
    "Map": "collections.abc.Mapping",
    "Dict": "collections.abc.MutableMapping",
    "Object": "tvm_ffi.Object",
    "Tensor": "tvm_ffi.Tensor",
    "Shape": "tvm_ffi.Shape",
    "Device": "tvm_ffi.Device",
    "dtype": "tvm_ffi.dtype",
    "ctypes.c_void_p": "ctypes.c_void_p",
    "ffi.Module": "tvm_ffi.Module",
    "ffi.Error": "tvm_ffi.core.Error",
    "ffi.Enum": "tvm_ffi.dataclasses.Enum",
    "ffi.IntEnum": "tvm_ffi.dataclasses.IntEnum",
    "ffi.StrEnum": "tvm_ffi.dataclasses.StrEnum",
}

#: origins whose accepted values are wider than what they produce: a parameter taking a
#: ``List`` accepts any sequence, a returned ``List`` is mutable
TY_MAP_INPUT_DEFAULTS = {
    "List": "collections.abc.Sequence",
    "Dict": "collections.abc.Mapping",
}

#: leading module of a type key -> the Python module that holds its classes
MOD_MAP = {
    "ffi": "tvm_ffi",
    "testing": "tvm_ffi.testing",
}

#: the names generated blocks bind (the registry function, the library loader, ...)
INIT_FUNC_ALIAS = "_FFI_INIT_FUNC"
LOAD_LIB_TARGET = "tvm_ffi.libinfo.load_lib_module"
LOAD_LIB_ALIAS = "_FFI_LOAD_LIB"
REG_OBJ_TARGET = "tvm_ffi.register_object"
REG_OBJ_ALIAS = "_FFI_REG_OBJ"
DEFAULT_REGISTRY = "tvm_ffi"
FFI_API_MODULE = "_ffi_api"
