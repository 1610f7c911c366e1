"""``TypeSchema``: the type of a value as the runtime's ``type_schema`` metadata writes it.

A schema is an ``origin`` (the Python-facing name: ``int``, ``Array``, ``Optional``, a type
key...) with positional ``args``; ``Callable`` keeps its return and parameter types in
``named_args`` (``{"return": (R,), "params": (P1, ...)}``), and a named type the reader may
not know can carry a ``fallback`` schema for printing. ``from_json_obj`` / ``to_json`` read
and write the metadata form, ``from_annotation`` reads a Python annotation, and
``check_value`` / ``convert`` apply the conversion rules of an FFI call to one value (see
``_type_convert``). Documented in docs/python.md §4.7 and docs/guide-dataclasses.md §1.
"""

import dataclasses
import functools
import json
from typing import Optional

from . import _type_index as T
from ._function import _type_key, _type_key_to_index

ANY_INDEX = -1
STRUCTURAL_INDEX = -2  # Optional / Union: no single type index
UNKNOWN_INDEX = -3  # not resolved (yet): an unknown origin or a type not registered

# origin -> type index of the origins that stand for a fixed FFI type
ORIGIN_INDEX = {
    "None": T.kTVMFFINone, "int": T.kTVMFFIInt, "bool": T.kTVMFFIBool, "float": T.kTVMFFIFloat,
    "ctypes.c_void_p": T.kTVMFFIOpaquePtr, "dtype": T.kTVMFFIDataType, "Device": T.kTVMFFIDevice,
    "Object": T.kTVMFFIObject, "str": T.kTVMFFIStr, "bytes": T.kTVMFFIBytes,
    "Callable": T.kTVMFFIFunction, "Tensor": T.kTVMFFITensor, "Array": T.kTVMFFIArray,
    "Map": T.kTVMFFIMap, "Shape": T.kTVMFFIShape, "List": T.kTVMFFIList, "Dict": T.kTVMFFIDict,
    "Any": ANY_INDEX,
}
# type index -> origin (the inverse, plus indices that read back as one of those origins)
INDEX_ORIGIN = {v: k for k, v in ORIGIN_INDEX.items()}
INDEX_ORIGIN.update({7: "Tensor", 8: "str", 9: "bytes", 10: "Object", 11: "str", 12: "bytes",
                     13: "int"})
# a fold that loses the key it came from: the schema keeps it (``type_key``)
_KEPT_KEYS = {13: "ffi.BigInt"}

# Type keys in metadata -> origins (containers keep their FFI class names: Array[int]).
ORIGIN_NAMES = {
    "Variant": "Union", "Tuple": "tuple", "ffi.Function": "Callable", "ffi.Array": "Array",
    "ffi.List": "List", "ffi.Map": "Map", "ffi.Dict": "Dict", "ffi.Object": "Object",
    "ffi.Tensor": "Tensor", "DLTensor*": "Tensor", "ffi.Shape": "Shape",
    "ffi.OpaquePyObject": "Any", "ffi.String": "str", "ffi.SmallStr": "str",
    "const char*": "str", "std::string": "str", "ffi.Bytes": "bytes", "ffi.BigInt": "int",
    "ffi.SmallBytes": "bytes", "TVMFFIByteArray*": "bytes", "void*": "ctypes.c_void_p",
    "DataType": "dtype", "ObjectRValueRef": "Object", "std::vector": "Array",
    "std::optional": "Optional", "std::variant": "Union", "std::tuple": "tuple",
    "std::map": "Map", "std::unordered_map": "Map", "std::function": "Callable",
}


@dataclasses.dataclass(repr=False)
class TypeSchema:
    """A type as ``type_schema`` metadata describes it (see the module doc)."""

    origin: str
    args: Optional[tuple] = None
    origin_type_index: int = dataclasses.field(default=UNKNOWN_INDEX, repr=False)
    fallback: Optional["TypeSchema"] = None
    named_args: Optional[dict] = None
    #: the metadata key a lossy fold came from ("ffi.BigInt" for an int origin), else None
    type_key: Optional[str] = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.origin, str) or not self.origin:
            raise ValueError("TypeSchema.origin must be a non-empty str, got %r" % (self.origin,))
        origin = self.origin
        if self.args is not None and not isinstance(self.args, tuple):
            self.args = tuple(self.args)
        if self.args is None and origin != "tuple":
            self.args = ()  # (a bare `tuple` keeps None: any length)
        if self.args and any(not isinstance(a, TypeSchema) for a in self.args):
            raise TypeError("TypeSchema args must be TypeSchema instances, got %r" % (self.args,))
        if self.named_args is not None:
            self.named_args = _checked_named_args(self.named_args)
        if origin == "Callable":
            self._normalize_callable()
        self._check_arity()
        if self.origin_type_index == UNKNOWN_INDEX:
            self.origin_type_index = _origin_index(origin)

    def _normalize_callable(self):
        if self.args and self.named_args is None:  # the flat form: return type first
            self.named_args = {"return": (self.args[0],)}
            if len(self.args) > 1:
                self.named_args["params"] = self.args[1:]
            self.args = ()
        if self.named_args is not None:
            if self.args or set(self.named_args) - {"return", "params"}:
                raise ValueError("a Callable schema has only the named groups `return` and "
                                 "`params`, got %r" % (self.named_args,))
            if len(self.named_args.get("return", ())) != 1:
                raise ValueError("a Callable schema's `return` group holds exactly one type")

    def _check_arity(self):
        origin, n = self.origin, len(self.args or ())
        if origin == "Union" and n < 2:
            raise ValueError("Union takes at least two arguments, got %d" % n)
        if origin == "Optional" and n != 1:
            raise ValueError("Optional takes exactly one argument, got %d" % n)
        if origin in ("list", "Array", "List"):
            if n not in (0, 1):
                raise ValueError("%s takes 0 or 1 argument, got %d" % (origin, n))
            if n == 0:
                self.args = (TypeSchema("Any"),)
        if origin in ("dict", "Map", "Dict"):
            if n not in (0, 2):
                raise ValueError("%s takes 0 or 2 arguments, got %d" % (origin, n))
            if n == 0:
                self.args = (TypeSchema("Any"), TypeSchema("Any"))

    def __hash__(self):  # (usable as a dict key, as the frozen record it replaced was)
        named = None if self.named_args is None else tuple(sorted(self.named_args.items()))
        return hash((self.origin, self.args, named))

    # ---- reading

    @staticmethod
    def from_json_obj(obj):
        """The schema of a decoded ``type_schema`` object ``{"type": key, "args": [...]}``;
        argument entries that are not objects (C++ array lengths) are skipped."""
        if not isinstance(obj, dict) or "type" not in obj:
            raise TypeError("expected schema dict with a 'type' key, got %s"
                            % type(obj).__name__)
        raw = obj["type"]
        if not isinstance(raw, str):
            raise TypeError("the 'type' of a schema must be a str, got %s" % type(raw).__name__)
        origin = ORIGIN_NAMES.get(raw, raw)
        kept = raw if raw in _KEPT_KEYS.values() else None
        fallback = TypeSchema.from_json_obj(obj["fallback"]) if "fallback" in obj else None
        named = None
        if "named_args" in obj:
            named = obj["named_args"]
            if not isinstance(named, dict) or any(
                    not isinstance(k, str) or not k or not isinstance(v, list)
                    or any(not isinstance(x, dict) for x in v) for k, v in named.items()):
                raise TypeError("named_args must map names to lists of schemas, got %r"
                                % (named,))
            named = {k: tuple(TypeSchema.from_json_obj(x) for x in v) for k, v in named.items()}
        if "args" not in obj:
            return TypeSchema(origin, fallback=fallback, named_args=named, type_key=kept)
        raw_args = obj["args"]
        if (raw == "std::function" and isinstance(raw_args, (list, tuple)) and len(raw_args) == 2
                and isinstance(raw_args[1], (list, tuple))):  # [return, [params...]]
            named = {"return": (TypeSchema.from_json_obj(raw_args[0]),),
                     "params": tuple(TypeSchema.from_json_obj(p) for p in raw_args[1])}
            return TypeSchema(origin, fallback=fallback, named_args=named, type_key=kept)
        if not isinstance(raw_args, (list, tuple)):
            raw_args = ()
        args = tuple(TypeSchema.from_json_obj(a) for a in raw_args if isinstance(a, dict))
        if origin == "Callable" and args and named is None:
            # the flat form this runtime writes: return type, then every parameter (none
            # is "no parameters", not "unknown parameters")
            named = {"return": args[:1], "params": args[1:]}
            args = ()
        return TypeSchema(origin, args, fallback=fallback, named_args=named, type_key=kept)

    @staticmethod
    def from_json_str(text):
        """The schema of a ``type_schema`` JSON string."""
        return TypeSchema.from_json_obj(json.loads(text))

    @staticmethod
    def _from_maybe_json(raw):
        if isinstance(raw, TypeSchema):
            return raw
        if isinstance(raw, str):
            return TypeSchema.from_json_str(raw)
        if isinstance(raw, dict):
            return TypeSchema.from_json_obj(raw)
        raise TypeError("expected a TypeSchema, JSON string or JSON object, got %s"
                        % type(raw).__name__)

    @staticmethod
    def from_type_index(type_index, args=()):
        """The schema of a registered type index (``args``: its type arguments)."""
        origin = INDEX_ORIGIN.get(type_index)
        key = _KEPT_KEYS.get(type_index)
        if origin is None:
            origin = _type_key(type_index)
            if origin in _KEPT_KEYS.values():  # a registered object type folded to a POD origin
                origin, key = ORIGIN_NAMES[origin], origin
        return TypeSchema(origin, tuple(args), origin_type_index=type_index, type_key=key)

    @staticmethod
    def from_annotation(annotation):
        """The schema of a Python annotation (``int``, ``list[int]``, ``Optional[str]``,
        ``tuple[int, ...]`` (an Array), ``Callable[[int], str]``, a registered class...);
        TypeError for one that has no FFI counterpart."""
        from ._type_annotation import schema_of_annotation  # noqa: PLC0415 - imports this module

        return schema_of_annotation(annotation)

    # ---- relations and conversion

    def is_subtype_of(self, target_cls):
        """Whether values of this schema are instances of the FFI class ``target_cls``."""
        from . import _typeinfo  # noqa: PLC0415 - it imports this module

        info = _typeinfo._type_cls_to_type_info(target_cls) if isinstance(target_cls, type) \
            else None
        if info is None:
            return False
        if info.type_index == T.kTVMFFIObject:
            return self.origin_type_index >= T.kTVMFFIStaticObjectBegin
        if self.origin_type_index == info.type_index:
            return True
        if self.origin_type_index < T.kTVMFFIStaticObjectBegin:
            return False
        source = _typeinfo._type_info_of_index(self.origin_type_index)
        return source is not None and info.type_index in source.type_ancestors

    @functools.cached_property
    def _converter(self):
        from ._type_convert import build  # noqa: PLC0415 - it imports _typeinfo: see above

        return build(self)

    def check_value(self, value):
        """TypeError when ``value`` cannot be converted to this schema's type."""
        from ._type_convert import run  # noqa: PLC0415 - it imports _typeinfo: see above

        run(self, value, "type check failed for")

    def convert(self, value):
        """``value`` converted as an FFI call would convert it for this type, as a ``CAny``
        (``_type_convert.to_py_class_value`` reads it back); TypeError when it cannot be."""
        from ._type_convert import run  # noqa: PLC0415 - it imports _typeinfo: see above

        return run(self, value, "type conversion failed for")

    # ---- writing

    def repr(self, ty_map=None):
        """Python-annotation-like text; ``ty_map(origin)`` may rename origins."""
        return self.output_repr(ty_map)

    def output_repr(self, ty_map=None):
        """The annotation of values this schema produces."""
        return self._repr_impl(ty_map, False, frozenset())

    def input_repr(self, ty_map=None):
        """The annotation of values this schema accepts (a type's ``__ffi_convert_type_schema__``
        attribute widens it)."""
        return self._repr_impl(ty_map, True, frozenset())

    def _repr_impl(self, ty_map, input_mode, expanded):
        if (self.fallback is not None and self.origin_type_index == UNKNOWN_INDEX
                and self.origin not in ("tuple", "list", "dict")):
            return self.fallback._repr_impl(ty_map, input_mode, expanded)
        tidx = self.origin_type_index
        if input_mode and tidx >= T.kTVMFFIStaticObjectBegin and tidx not in expanded:
            from ._typeinfo import _lookup_type_attr  # noqa: PLC0415 - it imports this module

            wider = _lookup_type_attr(tidx, "__ffi_convert_type_schema__")
            if wider is not None:
                return TypeSchema._from_maybe_json(wider)._repr_impl(
                    ty_map, True, expanded | {tidx})
        origin = self.origin if ty_map is None else ty_map(self.origin)

        def text(s):
            return s._repr_impl(ty_map, input_mode, expanded)

        if self.origin == "Callable":
            if not self.named_args:
                return "Callable[..., Any]"
            ret = text(self.named_args["return"][0])
            if "params" not in self.named_args:
                return "Callable[..., %s]" % ret
            return "Callable[[%s], %s]" % (", ".join(text(p) for p in self.named_args["params"]),
                                          ret)
        args = [text(a) for a in self.args or ()]
        if self.origin == "Union":
            return " | ".join(args)
        if self.origin == "Optional":
            return "%s | None" % args[0]
        if self.origin == "tuple" and self.args == ():
            return "tuple[()]"
        return "%s[%s]" % (origin, ", ".join(args)) if args else origin

    def __repr__(self):
        return self.repr()

    __str__ = __repr__

    def to_json(self):
        """The ``type_schema`` object of this schema (``from_json_obj`` reads it back)."""
        out = {"type": self.type_key or self.origin}
        if self.args is not None and (self.args or self.origin == "tuple"):
            out["args"] = [a.to_json() for a in self.args]
        if self.named_args is not None:
            out["named_args"] = {k: [v.to_json() for v in vs] for k, vs in self.named_args.items()}
        if self.fallback is not None:
            out["fallback"] = self.fallback.to_json()
        return out


def _checked_named_args(named):
    if not isinstance(named, dict):
        raise TypeError("named_args must map names to lists of schemas, got %r" % (named,))
    out = {}
    for name, values in named.items():
        if not isinstance(name, str) or not name:
            raise ValueError("named_args names must be non-empty strings, got %r" % (name,))
        if not isinstance(values, (list, tuple)) or any(
                not isinstance(v, TypeSchema) for v in values):
            raise TypeError("named_args[%r] must be a list of TypeSchema, got %r"
                            % (name, values))
        out[name] = tuple(values)
    return out


def _origin_index(origin):
    if origin in ("Optional", "Union"):
        return STRUCTURAL_INDEX
    if origin in ORIGIN_INDEX:
        return ORIGIN_INDEX[origin]
    tidx = _type_key_to_index(origin)
    return tidx if tidx is not None else UNKNOWN_INDEX

