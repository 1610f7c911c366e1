"""Fixed names of the Rust target: the default type table and the Rust keywords."""

from __future__ import annotations

#: TypeSchema origin (or ``ffi.*`` type key) -> the Rust path the ``tvm_ffi`` crate binds it to.
#: A ``ty-map`` directive adds or overrides entries for one run.
RUST_TY_MAP_DEFAULTS = {
    "int": "i64",
    "float": "f64",
    "bool": "bool",
    "str": "tvm_ffi::String",
    "bytes": "tvm_ffi::Bytes",
    "dtype": "tvm_ffi::DLDataType",
    "DataType": "tvm_ffi::DLDataType",
    "Device": "tvm_ffi::DLDevice",
    "Tensor": "tvm_ffi::Tensor",
    "Shape": "tvm_ffi::Shape",
    "Any": "tvm_ffi::Any",
    "Callable": "tvm_ffi::Function",
    "Optional": "Option",
    "Array": "tvm_ffi::Array",
    "List": "tvm_ffi::List",
    "Map": "tvm_ffi::Map",
    "Object": "tvm_ffi::object::ObjectRef",
    "ffi.String": "tvm_ffi::String",
    "ffi.Bytes": "tvm_ffi::Bytes",
    "ffi.Tensor": "tvm_ffi::Tensor",
    "ffi.Shape": "tvm_ffi::Shape",
    "ffi.Module": "tvm_ffi::Module",
    "ffi.Error": "tvm_ffi::Error",
    "ffi.Function": "tvm_ffi::Function",
    "ffi.Array": "tvm_ffi::Array",
    "ffi.List": "tvm_ffi::List",
    "ffi.Map": "tvm_ffi::Map",
    "ffi.Object": "tvm_ffi::object::ObjectRef",
    "ffi.BigInt": "tvm_ffi::BigInt",
    "ffi.reflection.AccessPath": "tvm_ffi::reflection::AccessPath",
    "ffi.reflection.AccessStep": "tvm_ffi::reflection::AccessStep",
}

#: generic containers and how many type arguments they take (missing ones read as ``Any``)
GENERIC_ARITY = {"Array": 1, "List": 1, "Map": 2, "Optional": 1}

#: words Rust reserves; an identifier equal to one is written raw (``r#type``)
RUST_KEYWORDS = frozenset(
    "as async await break const continue dyn else enum extern false fn for if impl in let "
    "loop match mod move mut pub ref return static struct trait true type unsafe use where "
    "while abstract become box do final macro override priv try typeof unsized virtual "
    "yield".split()
)

#: keywords a raw identifier cannot spell; they get a trailing underscore instead.  ``base``
#: is the parent slot of every generated struct, so a field of that name is renamed too.
UNRAW_NAMES = frozenset({"self", "Self", "super", "crate", "base"})

#: integer types an ``enum`` directive may name as the representation
ENUM_REPRS = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})

#: by-value mirrors (complete types): the Rust scalar a reflected field of (origin, bytes)
#: is stored as; the widths a ``field``/``enum`` directive's scalar type is checked against
SCALAR_BY_SIZE = {("int", 1): "i8", ("int", 2): "i16", ("int", 4): "i32", ("int", 8): "i64",
                  ("float", 4): "f32", ("float", 8): "f64"}
SCALAR_WIDTHS = {"i8": 1, "u8": 1, "bool": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
                 "f32": 4, "i64": 8, "u64": 8, "f64": 8}
#: an object reference (``Option<T>`` of a ``nullable`` field) and the ``TVMFFIAny`` cell an
#: ``Optional`` of a non-object payload is stored in (``tvm_ffi::Optional<T>``)
POINTER_SIZE = 8
ANY_CELL_SIZE = 16
#: allocator parameters taken as they are; any other type is taken as ``impl Into<T>``
EXACT_PARAMS = frozenset(SCALAR_WIDTHS) | {"isize", "usize"}
#: the column rustfmt wraps at; generated code wraps the same way so it stays rustfmt-clean
MAX_WIDTH = 100
