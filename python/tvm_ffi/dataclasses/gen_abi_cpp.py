"""``gen_abi_cpp``: a C++ header with the struct of each selected object type, as the runtime
lays it out, so C++ code can read objects made elsewhere (a ``py_class`` object above all)
through a pointer to it (docs/cpp.md §5.1).

Everything comes from the type table: the fields' offsets, sizes and alignments, each type's
``total_size`` and depth; a field's C++ member type (its carrier) from its static type index
and ``type_schema``.  The header asserts every one of those facts (``static_assert``), so a
compiler that lays the struct out otherwise refuses it.
"""

import fnmatch
import json
import re

from .. import _base, _typeinfo
from .. import _type_index as T
from .._function import _global, _type_key_to_index
from .._type_schema import TypeSchema
from ._stepwise import PY_CLASS_ATTR

__all__ = ["gen_abi_cpp"]

_FFI = "::tvm::ffi::"
_DYN_OBJECT_BEGIN = 128
# static object types the C++ headers define: never emitted; what a field holding one is
_BUILTIN_CARRIER = {
    "ffi.Object": _FFI + "Arc<::tvm::ffi::Object>", "ffi.String": _FFI + "String",
    "ffi.Bytes": _FFI + "Bytes", "ffi.Error": _FFI + "Error", "ffi.Function": _FFI + "Function",
    "ffi.Shape": _FFI + "Shape", "ffi.Tensor": _FFI + "Tensor",
    "ffi.Module": _FFI + "Arc<::tvm::ffi::ModuleObj>", "ffi.List": None, "ffi.Dict": None,
    "ffi.Array": None, "ffi.Map": None,
    "ffi.VisitInterrupt": _FFI + "Arc<::tvm::ffi::VisitInterruptObj>",
}
# schema origins of those types -> (their object class, for ObjectPtr<...>)
_BUILTIN_OBJ = {
    "Object": "Object", "str": "StringObj", "bytes": "BytesObj", "Callable": "FunctionObj",
    "Tensor": "TensorObj", "Shape": "ShapeObj", "Array": "ArrayObj", "List": "ListObj",
    "Map": "MapObj", "Dict": "DictObj", "ffi.Error": "ErrorObj", "ffi.Module": "ModuleObj",
    "ffi.VisitInterrupt": "VisitInterruptObj",
}
_POD = {  # static type index -> (C++ type, size, alignment)
    T.kTVMFFIBool: ("bool", 1, 1), T.kTVMFFIInt: ("int64_t", 8, 8),
    T.kTVMFFIFloat: ("double", 8, 8), T.kTVMFFIOpaquePtr: ("void*", 8, 8),
    T.kTVMFFIDataType: ("DLDataType", 4, 2), T.kTVMFFIDevice: ("DLDevice", 8, 4),
}
_POD_ORIGIN = {"bool": T.kTVMFFIBool, "int": T.kTVMFFIInt, "float": T.kTVMFFIFloat,
               "ctypes.c_void_p": T.kTVMFFIOpaquePtr, "dtype": T.kTVMFFIDataType,
               "Device": T.kTVMFFIDevice}
_CELLS = {"Any": "Any", "str": "String", "bytes": "Bytes"}  # the 16-byte values
_CONTAINERS = ("Array", "List", "Map", "Dict")
# type_schema names of values a struct cannot own: a field holding one has no safe carrier
_NOT_OWNING = {"DLTensor*": "Tensor", "ffi.OpaquePyObject": "Any", "const char*": "str",
               "TVMFFIByteArray*": "bytes"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Carrier:
    """The C++ member type of a field, with the size and alignment a compiler gives it."""

    __slots__ = ("cpp_type", "size", "alignment")

    def __init__(self, cpp_type, size=8, alignment=8):
        self.cpp_type, self.size, self.alignment = cpp_type, size, alignment

    def __repr__(self):
        return "Carrier(%r, %d, %d)" % (self.cpp_type, self.size, self.alignment)


def _escape(name):
    """A C++ identifier for one dot-separated part of a type key."""
    if _IDENT.match(name):
        return name
    return "__ffi_escape_" + name.encode("utf-8").hex()


def _cpp_name(type_key):
    """(namespaces, struct name) of the struct of a type key."""
    parts = type_key.split(".")
    return tuple(_escape(p) for p in parts[:-1]), _escape(parts[-1]) + "Obj"


def _qualified(type_key):
    ns, name = _cpp_name(type_key)
    return "".join("::" + n for n in ns) + "::" + name


def _c_string(text):
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        out.append(c if 0x20 <= b < 0x7F and c not in '"\\?' else "\\%03o" % b)
    return '"%s"' % "".join(out)


def _raw_schema(field):
    meta = getattr(field, "metadata", None) or {}
    raw = meta.get("type_schema") if isinstance(meta, dict) else None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    return raw if isinstance(raw, dict) else None


def _raw_names(raw):
    """Every ``type`` name of a raw schema, nested ones too."""
    if not isinstance(raw, dict):
        return
    if isinstance(raw.get("type"), str):
        yield raw["type"]
    for arg in raw.get("args") or ():
        yield from _raw_names(arg)


def _is_py_defined(type_key):
    tidx = _type_key_to_index(type_key) if isinstance(type_key, str) else None
    if tidx is None:
        return False
    info = _base._TYPE_INFO.get(tidx)
    if info is not None and getattr(info, "_py_defined", False):
        return True
    cls = _base._TYPE_CLS.get(tidx)
    return cls is not None and PY_CLASS_ATTR in cls.__dict__


class _Generator:
    """Writes the header of a set of type infos (their ancestors are added)."""

    def __init__(self, infos):
        self.full = {}  # type key -> TypeInfo of the structs written out
        for info in infos:
            while info is not None and info.type_index >= _DYN_OBJECT_BEGIN:
                self.full.setdefault(info.type_key, info)
                info = info.parent_type_info
        self.deps = {}  # type key -> depth of the types only named (declared, not laid out)

    # -- carriers ---------------------------------------------------------------------------

    def _object_class(self, schema):
        """The object class a pointer to a value of this schema points to."""
        origin = schema.origin
        if origin in _BUILTIN_OBJ:
            return _FFI + _BUILTIN_OBJ[origin]
        if origin == "tuple":
            return _FFI + "ArrayObj"
        key = self._user_key(schema)
        return _qualified(key) if key is not None else None

    def _user_key(self, schema):
        tidx = schema.origin_type_index
        if tidx < _DYN_OBJECT_BEGIN:
            return None
        return schema.origin if schema.origin != "Object" else None

    def _value(self, schema):
        """Carrier of a non-null value of this schema (a field's, a container element's)."""
        origin = schema.origin
        if origin in _POD_ORIGIN:
            return Carrier(*_POD[_POD_ORIGIN[origin]])
        if origin in _CELLS:
            return Carrier(_FFI + _CELLS[origin], 16, 8)
        args = schema.args or ()
        if origin in _CONTAINERS:
            n = 2 if origin in ("Map", "Dict") else 1
            elems = [self._element(a) for a in args] or ["%sAny" % _FFI] * n
            return Carrier("%s%s<%s>" % (_FFI, origin, ", ".join(elems)))
        if origin == "tuple":
            return Carrier("%sTuple<%s>" % (_FFI, ", ".join(self._element(a) for a in args)))
        if origin == "Callable":
            return Carrier(_FFI + "Function")
        if origin in ("Tensor", "Shape"):
            return Carrier(_FFI + origin)
        if origin == "Object":
            return Carrier(_FFI + "Arc<::tvm::ffi::Object>")
        if origin == "Optional":
            inner = self._object_class(args[0]) if args else None
            if inner is None:
                return Carrier(_FFI + "Any", 16, 8)
            return Carrier("%sObjectPtr<%s>" % (_FFI, inner))
        if origin == "Union":
            if all(self._object_class(a) is not None for a in args):
                return Carrier(_FFI + "Arc<::tvm::ffi::Object>")
            return Carrier(_FFI + "Any", 16, 8)
        if origin in _BUILTIN_CARRIER and _BUILTIN_CARRIER[origin] is not None:
            return Carrier(_BUILTIN_CARRIER[origin])
        key = self._user_key(schema)
        if key is None:
            raise ValueError("unsupported field type schema %s" % (schema.to_json(),))
        return Carrier("%sArc<%s>" % (_FFI, _qualified(key)))

    def _element(self, schema):
        return self._value(schema).cpp_type

    def _lower_field(self, field, owner):
        """The carrier of one field of ``owner`` (a TypeInfo or anything with a type_key)."""
        sti, size, align = field.field_static_type_index, field.size, field.alignment
        where = "%s.%s" % (owner.type_key, field.name)
        raw = _raw_schema(field)
        for name in _raw_names(raw):
            if name in _NOT_OWNING:
                raise ValueError("native schema origin %r of %s normalizes to %r but does not "
                                 "have the canonical owning representation"
                                 % (name, where, _NOT_OWNING[name]))
        schema = field.ty
        if schema is None and raw is not None:
            schema = TypeSchema.from_json_obj(raw)
        if schema is None:
            carrier = _POD.get(sti)
            if carrier is not None:
                carrier = Carrier(*carrier)
            elif sti == -1:
                carrier = Carrier(_FFI + "Any", 16, 8)
            else:
                carrier = Carrier(_FFI + "ObjectPtr<::tvm::ffi::Object>")
        elif sti == -1 and schema.origin not in _CELLS:
            carrier = self._any_kind(schema, owner, where, size, align)
        elif sti >= T.kTVMFFIStaticObjectBegin and schema.origin == "Optional" and size == 16:
            carrier = Carrier("%sOptional<%sArc<%s>>"
                              % (_FFI, _FFI, self._object_class(schema.args[0])), 16, 8)
        else:
            carrier = self._value(schema)
        if (carrier.size, carrier.alignment) != (size, align):
            raise ValueError("Carrier %s for %s has layout (%d, %d), but reflection reports "
                             "(%d, %d) at offset %d" % (carrier.cpp_type, where, carrier.size,
                                                        carrier.alignment, size, align,
                                                        field.offset))
        return carrier

    def _any_kind(self, schema, owner, where, size, align):
        """Carrier of a field of static type Any: a py_class one is a 16-byte Any; a C++ one
        is told apart by its schema and size where that is unambiguous."""
        if schema.origin not in ("Optional", "Union"):
            return self._value(schema)
        if _is_py_defined(owner.type_key):
            return Carrier(_FFI + "Any", 16, 8)
        if schema.origin == "Optional" and schema.args:
            inner = schema.args[0]
            if inner.origin in ("str", "bytes"):
                return Carrier(_FFI + _CELLS[inner.origin], 16, 8)
            cls = self._object_class(inner)
            if cls is not None and size == 8:  # a nullable pointer (C++ Optional<Arc<T>>)
                return Carrier("%sObjectPtr<%s>" % (_FFI, cls))
            if cls is not None:
                return Carrier("%sOptional<%sArc<%s>>" % (_FFI, _FFI, cls), 16, 8)
        raise ValueError("Ambiguous native %s carrier for %s with layout (%d, %d)"
                         % (schema.origin, where, size, align))

    def _note_deps(self, raw):
        for name in _raw_names(raw):
            tidx = _type_key_to_index(name)
            if tidx is not None and tidx >= _DYN_OBJECT_BEGIN and name not in self.full:
                self.deps[name] = len(_typeinfo._type_info_of_index(tidx).type_ancestors)

    # -- text -------------------------------------------------------------------------------

    def _struct(self, info):
        ns, name = _cpp_name(info.type_key)
        if info.total_size <= 0:
            raise ValueError("type `%s` does not expose fixed total-size metadata, so its "
                             "layout cannot be written" % info.type_key)
        parent = info.parent_type_info
        base = (_FFI + "Object" if parent is None or parent.type_key not in self.full
                else _qualified(parent.type_key))
        members, asserts, align = [], [], 8
        for f in info.fields:
            carrier = self._lower_field(f, info)
            self._note_deps(_raw_schema(f))
            member = _escape(f.name)
            align = max(align, f.alignment)
            members.append("  %s %s;  // offset=%d, size=%d, align=%d"
                           % (carrier.cpp_type, member, f.offset, f.size, f.alignment))
            asserts += ["static_assert(sizeof(decltype(%s::%s)) == %d);" % (name, member, f.size),
                        "static_assert(alignof(decltype(%s::%s)) == %d);"
                        % (name, member, f.alignment),
                        "static_assert(offsetof(%s, %s) == %d);" % (name, member, f.offset)]
        head = ["struct alignas(%d) %s : public %s {" % (align, name, base),
                "  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP(%s, %d);"
                % (_c_string(info.type_key), len(info.type_ancestors))]
        body = head + ([""] + members if members else []) + ["};", ""]
        body += ["static_assert(sizeof(%s) == %d);" % (name, info.total_size),
                 "static_assert(alignof(%s) == %d);" % (name, align)] + asserts
        return ns, "\n".join(body)

    def program(self):
        defs = sorted(self.full.values(), key=lambda i: (len(i.type_ancestors), i.type_key))
        structs = [self._struct(info) for info in defs]  # (notes the dependencies first)
        named = sorted(set(self.full) | set(self.deps), key=lambda k: _cpp_name(k))
        out = ["#pragma once\n\n#include <tvm/ffi/tvm_ffi.h>\n\n"]
        out += _blocks([(_cpp_name(k)[0], "struct %s;" % _cpp_name(k)[1]) for k in named])
        out += ["template <>\ninline constexpr bool tvm::ffi::is_object_subclass_v<%s> = true;\n"
                % _qualified(k) for k in named]
        out.append("\n")
        out += _blocks([(_cpp_name(k)[0],
                         "struct %s : public ::tvm::ffi::Object {\n"
                         "  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP(%s, %d);\n};"
                         % (_cpp_name(k)[1], _c_string(k), self.deps[k]))
                        for k in sorted(self.deps, key=_cpp_name)])
        out.append("static_assert(sizeof(::tvm::ffi::Object) == 24);\n"
                   "static_assert(alignof(::tvm::ffi::Object) == 8);\n\n" + _PUSH)
        out += _blocks(structs)
        out.append(_POP)
        return "".join(out)


_PUSH = """#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#elif defined(_MSC_VER)
#pragma warning(push)
#pragma warning(disable : 4749)
#endif

"""
_POP = """#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic pop
#elif defined(_MSC_VER)
#pragma warning(pop)
#endif
"""


def _blocks(items):
    """Text of (namespaces, text) items, consecutive ones of a namespace in one block."""
    out, i = [], 0
    while i < len(items):
        ns = items[i][0]
        j = i
        while j < len(items) and items[j][0] == ns:
            j += 1
        text = "".join("namespace %s {\n" % n for n in ns) + ("\n" if ns else "")
        text += "".join(t + "\n\n" for _, t in items[i:j])
        text += "".join("}  // namespace %s\n" % n for n in reversed(ns)) + ("\n" if ns else "")
        out.append(text)
        i = j
    return out


def _select(selectors):
    if isinstance(selectors, str):
        selectors = [selectors]
    keys = [str(k) for k in _global("ffi.GetRegisteredTypeKeys")()]
    chosen = {}
    for sel in selectors:
        matched = [k for k in keys if fnmatch.fnmatchcase(k, sel)]
        objects = [k for k in matched if _type_key_to_index(k) >= T.kTVMFFIStaticObjectBegin]
        if not objects:
            raise ValueError("Type-key selector %r did not match any registered %stype"
                             % (sel, "object " if matched else ""))
        for k in objects:
            tidx = _type_key_to_index(k)
            if tidx < _DYN_OBJECT_BEGIN:
                if k not in _BUILTIN_CARRIER:
                    raise ValueError("Static TVM-FFI type %r is not supported" % k)
                continue  # the C++ headers define it
            chosen[k] = _typeinfo._type_info_of_index(tidx)
    return list(chosen.values())


def gen_abi_cpp(selectors):
    """C++ header text declaring the struct of each object type a selector names (a type
    key, or a ``fnmatch`` pattern such as ``"my.pkg.*"``; one string or an iterable), with
    their ancestors laid out too and the types their fields name declared.

    ValueError for a selector that matches no object type, a type without a fixed size, and a
    field no C++ member type describes safely (a raw ``DLTensor*``, an ambiguous C++
    ``Optional``).
    """
    return _Generator(_select(selectors)).program()
