"""The Python <-> FFI conversion table: the one place the binding's conversion rules are written.

Every conversion path reads it: the compiled fast path (``_ffi_src/``, through ``rules.h``,
which ``_build_ffi.py`` generates from this module with ``c_header()``; ``ffipy_init`` refuses a
module built from another table), ABI mode and PyPy (``_abi_*.py``), the Python hooks of the
compiled path (``_conversion.py``) and ``tvm_ffi.convert``.  The *handlers* (how an Int is
packed, how a String result is built) are code in each path; this table says which handler a
Python type or a type index gets, so a rule changes here, once.

* ``ARG_RULES``: the argument handlers, in code order (the codes are their positions).
* ``EXACT_TYPES``: builtin types converted by exact type (subclasses are classified).
* ``CLASSIFY``: the ordered tests that pick the handler of any other type (first match wins);
  ``CLASSIFY_TESTS`` names the kinds of test (their codes are positions, as for ARG_RULES).
* ``RESULT_KINDS`` / ``RESULTS``: per type index (by its ``c_api.h`` name), the result handler;
  indices not listed take ``DEFAULT_OBJECT`` (objects) or ``DEFAULT_POD``.
* ``IDENTITY``: result kinds whose wrappers have identity (docs/python.md §4.3).
* ``CARRIES_API``: result kinds that remember the exchange API of the call's framework tensors.
* ``VIEW_ONLY``: result kinds valid only as borrowed views (callback arguments), with the name
  an owned value of that kind is refused with.
* ``CONVERT``: what ``tvm_ffi.convert`` does per argument handler.
* ``SLOW_ROWS``: the ordered rows of the "slow" handler: which step a call takes for a type no
  other handler covers, and what ``tvm_ffi.convert`` makes of it.

Nothing here imports the package: the build loads this file by path.
"""

# Argument handlers.  The codes (positions) are what core's classifier answers and what the C
# switch in pack.c reads; append new ones at the end.
ARG_RULES = (
    "SLOW",       # the Python hook _conversion.convert_slow makes a simpler value
    "OBJECT",     # a CObject wrapper: its handle
    "EXCHANGE",   # a framework tensor with a DLPack exchange API (extra: the table's address)
    "POD",        # __tvm_ffi_pod__ gives a value or (type_index, payload)
    "CONTAINER",  # a container wrapper: its handle, and its tensors' exchange API
    "DLPACK",     # any other __dlpack__ producer
    "SEQUENCE",   # list, tuple and their subclasses (NamedTuple, ...): an ffi.Array of the items
    "NONE",       # None
    "BOOL",       # kTVMFFIBool
    "INT",        # kTVMFFIInt; beyond int64 an ffi.BigInt (through the SLOW hook)
    "FLOAT",      # kTVMFFIFloat
    "STR",        # UTF-8: kTVMFFISmallStr up to 7 bytes, else an ffi.String
    "BYTES",      # kTVMFFISmallBytes up to 7 bytes, else an ffi.Bytes
    "MAP",        # dict: an ffi.Map of the items
)

# Builtin types matched by exact type, before anything else (bool before int: exact types).
EXACT_TYPES = (
    ("NoneType", "NONE"),
    ("int", "INT"),
    ("float", "FLOAT"),
    ("bool", "BOOL"),
    ("str", "STR"),
    ("bytes", "BYTES"),
    ("tuple", "SEQUENCE"),
    ("list", "SEQUENCE"),
    ("dict", "MAP"),
)

# Any other type: the first row whose test holds.  Tests: ("derives", class) -- the class is in
# the type's MRO (no ABC machinery: the first torch tensor of a process pays for every lookup);
# ("subclass", class) -- issubclass, virtual subclasses included (numbers.Number); a bare name is
# a class of tvm_ffi.core or a builtin, "module.name" one of a module (the row is skipped while
# the module is not imported: no type can derive from its classes then); ("has", attribute) of
# the type;
# ("exchange", attribute) a type's DLPack exchange table, checked (skipped when
# TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1).
CLASSIFY_TESTS = ("derives", "subclass", "has", "exchange")
CLASSIFY = (
    (("derives", "tvm_ffi.container.CContainerBase"), "CONTAINER"),
    (("derives", "CObject"), "OBJECT"),
    (("has", "__tvm_ffi_object__"), "SLOW"),
    (("exchange", "__dlpack_c_exchange_api__"), "EXCHANGE"),
    (("derives", "DataType"), "POD"),
    (("derives", "Device"), "POD"),
    (("derives", "tvm_ffi._dtype.dtype"), "POD"),
    (("has", "__cuda_stream__"), "SLOW"),
    (("derives", "torch.Tensor"), "SLOW"),  # no exchange API: the legacy capsule fallback
    (("has", "__dlpack__"), "DLPACK"),
    # convert_slow's rows for numbers and native objects (Shape) come before its sequences
    (("subclass", "numbers.Number"), "SLOW"),
    (("derives", "PyNativeObject"), "SLOW"),
    (("derives", "tuple"), "SEQUENCE"),
    (("derives", "list"), "SEQUENCE"),
    (("derives", "object"), "SLOW"),
)

# Result handlers (codes are positions, as for ARG_RULES).
RESULT_KINDS = (
    "HOOK_ERROR",    # no conversion: "Unhandled type index N"
    "NONE",
    "INT",
    "BOOL",
    "FLOAT",
    "OPAQUE_PTR",    # ctypes.c_void_p
    "DTYPE",         # tvm_ffi.dtype
    "DEVICE",        # tvm_ffi.Device
    "DLTENSOR_PTR",  # a Tensor viewing the DLTensor (no handle)
    "RAW_STR",       # str
    "BYTE_ARRAY",    # bytes
    "RVALUE_REF",    # the moved object
    "SMALL_STR",     # str
    "SMALL_BYTES",   # bytes
    "STRING",        # tvm_ffi.String carrying the ffi.String
    "BYTES_OBJ",     # tvm_ffi.Bytes carrying the ffi.Bytes
    "FUNCTION",      # tvm_ffi.Function
    "SHAPE",         # tvm_ffi.Shape
    "TENSOR",        # the current tensor class (or the framework's, through an exchange API)
    "CONTAINER",     # the class registered for the index, remembering the exchange API
    "OPAQUE_PY",     # the Python object held
    "BIG_INT",       # a Python int
    "OBJECT",        # the class registered for the index (or a fallback class)
)

RESULTS = {
    "kTVMFFINone": "NONE",
    "kTVMFFIInt": "INT",
    "kTVMFFIBool": "BOOL",
    "kTVMFFIFloat": "FLOAT",
    "kTVMFFIOpaquePtr": "OPAQUE_PTR",
    "kTVMFFIDataType": "DTYPE",
    "kTVMFFIDevice": "DEVICE",
    "kTVMFFIDLTensorPtr": "DLTENSOR_PTR",
    "kTVMFFIRawStr": "RAW_STR",
    "kTVMFFIByteArrayPtr": "BYTE_ARRAY",
    "kTVMFFIObjectRValueRef": "RVALUE_REF",
    "kTVMFFISmallStr": "SMALL_STR",
    "kTVMFFISmallBytes": "SMALL_BYTES",
    "kTVMFFIStr": "STRING",
    "kTVMFFIBytes": "BYTES_OBJ",
    "kTVMFFIFunction": "FUNCTION",
    "kTVMFFIShape": "SHAPE",
    "kTVMFFITensor": "TENSOR",
    "kTVMFFIArray": "CONTAINER",
    "kTVMFFIMap": "CONTAINER",
    "kTVMFFIList": "CONTAINER",
    "kTVMFFIDict": "CONTAINER",
    "kTVMFFIOpaquePyObject": "OPAQUE_PY",
    "kTVMFFIBigInt": "BIG_INT",
}
DEFAULT_OBJECT = "OBJECT"  # any other index from kTVMFFIStaticObjectBegin on
DEFAULT_POD = "HOOK_ERROR"  # any other index below it
# the static indices the C table covers (c_api.h); later ones take the defaults
STATIC_END = "kTVMFFIStaticObjectEnd"
OBJECT_BEGIN = "kTVMFFIStaticObjectBegin"

IDENTITY = ("FUNCTION", "CONTAINER", "OBJECT")
CARRIES_API = ("CONTAINER",)
VIEW_ONLY = {"RAW_STR": "RawStr", "BYTE_ARRAY": "ByteArrayPtr", "RVALUE_REF": "ObjectRValueRef"}

# tvm_ffi.convert(value) per argument handler: "same" (returned as it is), "array", "map",
# "string", "bytes", "dlpack" (from_dlpack), "slow" (SLOW_ROWS' convert column), "object" (the
# value when it is an Object; the other wrappers -- Function, Tensor, Error, OpaquePyObject are
# CObjects, not Objects, as in the apache package -- take SLOW_ROWS: a Function is wrapped
# again as a callable, a Tensor imported through __dlpack__)
CONVERT = {
    "NONE": "same", "BOOL": "same", "INT": "same", "FLOAT": "same", "OBJECT": "object",
    "CONTAINER": "same", "POD": "same", "STR": "string", "BYTES": "bytes",
    "SEQUENCE": "array", "MAP": "map", "EXCHANGE": "dlpack", "DLPACK": "dlpack", "SLOW": "slow",
}

# The "slow" handler's rows, first match wins: (test, step, convert).  Tests as CLASSIFY's, on
# the value's type ("subclass" rows name standard-library ABCs, imported when first needed),
# plus ("exact", class) and ("callable", None): instances are callable.  step: what a call
# passes (a handler of _conversion._STEPS: a simpler value, a (type index, payload) pair or an
# object).  convert: what tvm_ffi.convert returns: one of CONVERT's actions, "step" (the step's
# value), "view" (the step's pair read back as a value: a dtype) or "next" (the rows below
# decide).
SLOW_ROWS = (
    (("derives", "Tensor"), "tensor_view", "next"),
    (("derives", "CObject"), "empty_wrapper", "next"),  # Function, Error, OpaquePyObject
    (("exact", "int"), "big_int", "same"),
    (("derives", "ObjectRValueRef"), "move", "next"),
    (("derives", "CAny"), "cany", "next"),
    (("has", "__tvm_ffi_object__"), "ffi_object", "step"),
    (("has", "__cuda_stream__"), "cuda_stream", "same"),
    (("derives", "torch.Tensor"), "torch_fallback", "dlpack"),
    (("has", "__dlpack__"), "dlpack", "step"),
    (("derives", "bool"), "bool", "same"),
    (("subclass", "numbers.Integral"), "int", "same"),
    (("subclass", "numbers.Real"), "float", "same"),
    (("derives", "String"), "cached_str", "same"),
    (("derives", "Bytes"), "cached_str", "same"),
    (("derives", "PyNativeObject"), "cached", "same"),
    (("derives", "str"), "str", "string"),
    (("derives", "bytes"), "bytes", "bytes"),
    (("derives", "bytearray"), "bytes", "bytes"),
    (("derives", "tuple"), "list", "array"),
    (("derives", "list"), "list", "array"),
    (("derives", "dict"), "dict", "map"),
    (("derives", "ctypes.c_void_p"), "void_p", "same"),
    (("has", "__tvm_ffi_opaque_ptr__"), "opaque_ptr", "same"),
    (("callable", None), "function", "step"),
    (("derives", "torch.dtype"), "torch_dtype", "view"),
    (("derives", "numpy.dtype"), "numpy_dtype", "view"),
    (("has", "__dlpack_data_type__"), "dlpack_data_type", "view"),
    (("has", "__dlpack_device__"), "dlpack_device", "same"),
    (("has", "__tvm_ffi_int__"), "ffi_int", "same"),
    (("has", "__tvm_ffi_float__"), "ffi_float", "same"),
    (("has", "__tvm_ffi_value__"), "ffi_value", "next"),
    (("derives", "BaseException"), "error", "step"),
    (("derives", "tvm_ffi._convert.ObjectConvertible"), "asobject", "step"),
    (("derives", "object"), "opaque", "step"),
)


def fingerprint():
    """A 31-bit checksum of what rules.h compiles in (not CLASSIFY's rows or CONVERT: Python
    reads those itself and hands the rows to C resolved), compared by ffipy_init."""
    import zlib  # noqa: PLC0415 - already loaded by the interpreter's startup

    words = ARG_RULES + RESULT_KINDS + CLASSIFY_TESTS + IDENTITY + CARRIES_API + (
        DEFAULT_OBJECT, DEFAULT_POD, str(len(EXACT_TYPES)))
    words += tuple(k + "=" + v for k, v in sorted(RESULTS.items()))
    words += tuple(k + "=" + v for k, v in sorted(VIEW_ONLY.items()))
    return zlib.crc32(" ".join(words).encode()) & 0x7FFFFFFF


def c_header():
    """rules.h: the table as C (enums, the per-index result kinds, the fingerprint)."""
    out = ["/* rules.h -- generated by _build_ffi.py from tvm_ffi/_rules.py. Do not edit. */",
           "#ifndef TVM_FFI_PY_RULES_H_", "#define TVM_FFI_PY_RULES_H_", ""]
    out.append("enum { /* argument handlers */")
    out += ["  RULE_%s = %d," % (n, i) for i, n in enumerate(ARG_RULES)]
    out += ["};", "", "enum { /* the kinds of test of the CLASSIFY rows */"]
    out += ["  TEST_%s = %d," % (n.upper(), i) for i, n in enumerate(CLASSIFY_TESTS)]
    out += ["};", "", "enum { /* result handlers */"]
    out += ["  RES_%s = %d," % (n, i) for i, n in enumerate(RESULT_KINDS)]
    out += ["};", ""]
    out.append("static const unsigned char result_kinds[%s] = {" % STATIC_END)
    out.append("  [0 ... %s - 1] = RES_%s," % (OBJECT_BEGIN, DEFAULT_POD))
    out.append("  [%s ... %s - 1] = RES_%s," % (OBJECT_BEGIN, STATIC_END, DEFAULT_OBJECT))
    out += ["  [%s] = RES_%s," % kv for kv in sorted(RESULTS.items())]
    out += ["};", ""]
    out.append("/* the result kind of type index t */")
    out.append("static inline int result_kind(int32_t t) {")
    out.append("  return (uint32_t)t < (uint32_t)%s ? result_kinds[t] : t < 0 ? RES_%s : RES_%s;"
               % (STATIC_END, DEFAULT_POD, DEFAULT_OBJECT))
    out.append("}")
    for name, kinds in (("IDENTITY", IDENTITY), ("CARRIES_API", CARRIES_API),
                        ("VIEW_ONLY", tuple(VIEW_ONLY))):
        mask = " | ".join("(1u << RES_%s)" % k for k in kinds)
        out.append("#define RES_%s_MASK (%s)" % (name, mask))
    out.append("#define RES_IS(mask, kind) ((RES_##mask##_MASK >> (kind)) & 1u)")
    out.append("/* the name an owned value of a view-only kind is refused with */")
    out.append("static const char* const view_only_names[] = {")
    out += ['  [RES_%s] = "%s",' % kv for kv in sorted(VIEW_ONLY.items())]
    out += ["};", "", "#define RULES_ARG_COUNT %d" % len(ARG_RULES),
            "#define RULES_EXACT_MAX %d" % len(EXACT_TYPES),
            "#define RULES_FINGERPRINT %d" % fingerprint(), "",
            "#endif /* TVM_FFI_PY_RULES_H_ */", ""]
    return "\n".join(out)


def exact_types():
    """EXACT_TYPES as ((type, rule code), ...)."""
    import builtins  # noqa: PLC0415

    return tuple((type(None) if name == "NoneType" else getattr(builtins, name),
                  ARG_RULES.index(rule)) for name, rule in EXACT_TYPES)


def resolve(lib):
    """The table by number, for the Python paths: (kind of each static index as a list,
    {kind name: code}); lib gives the c_api.h names their values."""
    codes = {n: i for i, n in enumerate(RESULT_KINDS)}
    end, begin = getattr(lib, STATIC_END), getattr(lib, OBJECT_BEGIN)
    kinds = [codes[DEFAULT_POD]] * begin + [codes[DEFAULT_OBJECT]] * (end - begin)
    for name, kind in RESULTS.items():
        kinds[getattr(lib, name)] = codes[kind]
    return kinds, codes
