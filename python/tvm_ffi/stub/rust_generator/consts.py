"""Fixed names of the Rust target: the default type table and the Rust keywords."""

from __future__ import annotations

#: TypeSchema origin (or ``ffi.*`` type key) -> the Rust path the ``tvm_ffi`` crate binds it to.
#: A ``ty-map`` directive adds or overrides entries for one run.
RUST_TY_MAP_DEFAULTS = {
    "int": "i64",
    "float": "f64",
    "bool": "bool",
    "str": "tvm_ffi::String",
    "Any": "tvm_ffi::Any",
    "Callable": "tvm_ffi::Function",
    "Optional": "Option",
    "Array": "tvm_ffi::Array",
    "List": "tvm_ffi::List",
    "Map": "tvm_ffi::Map",
    "Object": "tvm_ffi::object::ObjectRef",
    "ffi.String": "tvm_ffi::String",
    "ffi.Function": "tvm_ffi::Function",
    "ffi.Array": "tvm_ffi::Array",
    "ffi.List": "tvm_ffi::List",
    "ffi.Map": "tvm_ffi::Map",
    "ffi.Object": "tvm_ffi::object::ObjectRef",
    "ffi.BigInt": "tvm_ffi::BigInt",
    "ffi.reflection.AccessPath": "tvm_ffi::reflection::AccessPath",
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
