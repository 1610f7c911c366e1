"""Records the stub generator works from: named schemas, functions and object types.

``ObjectInfo.from_type_info`` turns a reflected ``TypeInfo`` into the facts the generators and
the layout report (``tvm_ffi.stub.layout``) need: own fields with their byte facts, methods,
ancestors, the registered ``total_size`` and finality.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .._function import _type_key
from .._loader import ffi, lib
from .._type_schema import TypeSchema
from .._typeinfo import _lookup_or_register_type_info_from_type_key, _lookup_type_attr
from .._sentinels import MISSING


class NamedTypeSchema(TypeSchema):
    """A ``TypeSchema`` with a name (a field, parameter or function) and, for reflected
    fields, the field's byte facts (``size``, ``alignment``, ``offset``) and defaults.

    Synthetic schemas (function parameters, tests) carry no byte facts: those are ``None``.
    """

    def __init__(self, name: str, schema: TypeSchema, *, size: Optional[int] = None,
                 alignment: Optional[int] = None, offset: Optional[int] = None,
                 default: Any = MISSING, default_is_factory: bool = False,
                 structural_eq: Optional[str] = None, frozen: bool = False) -> None:
        TypeSchema.__init__(self, schema.origin, schema.args, fallback=schema.fallback,
                            named_args=schema.named_args, type_key=schema.type_key)
        for key, value in (("name", name), ("size", size), ("alignment", alignment),
                           ("offset", offset), ("default", default),
                           ("default_is_factory", default_is_factory),
                           ("structural_eq", structural_eq), ("frozen", frozen)):
            object.__setattr__(self, key, value)

    @property
    def schema(self) -> TypeSchema:
        """The plain schema, without the name and byte facts."""
        return TypeSchema(self.origin, self.args, fallback=self.fallback,
                          named_args=self.named_args, type_key=self.type_key)


@dataclasses.dataclass
class FuncInfo:
    """A function or method: its named schema and whether it takes the object first."""

    schema: NamedTypeSchema
    is_member: bool

    @staticmethod
    def from_schema(name: str, schema: TypeSchema, is_member: bool = False) -> FuncInfo:
        return FuncInfo(NamedTypeSchema(name, schema), is_member)


def _field_schema(field: Any) -> NamedTypeSchema:
    """The NamedTypeSchema of a reflected ``TypeField``, byte facts and defaults included."""
    default = field.c_default if field.c_has_default else MISSING
    return NamedTypeSchema(
        field.name, field.ty if field.ty is not None else TypeSchema("Any"),
        size=field.size, alignment=field.alignment or None, offset=field.offset,
        default=default, default_is_factory=bool(field.c_default_from_factory),
        structural_eq=field.metadata.get("structural_eq"), frozen=bool(field.frozen))


@dataclasses.dataclass
class InitFieldInfo:
    """One parameter of a reflection-built constructor (``__ffi_init__`` type attribute)."""

    name: str
    schema: NamedTypeSchema
    kw_only: bool = False
    has_default: bool = False


@dataclasses.dataclass
class ObjectInfo:
    """An object type as the stub generator sees it.

    ``fields`` and ``methods`` are the type's own (inherited ones belong to the ancestors,
    listed root first in ``ancestors``).  ``total_size`` is the registered instance size,
    ``None`` when the type registered no metadata of its own; ``is_final`` is its published
    ``__ffi_type_final__``, ``None`` when it published none.
    """

    fields: list
    methods: list
    type_key: Optional[str] = None
    parent_type_key: Optional[str] = None
    ancestors: list = dataclasses.field(default_factory=list)
    total_size: Optional[int] = None
    is_final: Optional[bool] = None
    #: the parameters of the reflection-built constructor, ancestors' fields first
    init_fields: list = dataclasses.field(default_factory=list)
    #: whether the type has a reflection-built constructor (``__ffi_init__`` type attribute)
    has_init: bool = False

    def has_overloaded_methods(self) -> bool:
        """Whether two methods share a name (the stub then needs ``@overload``)."""
        names = [m.schema.name.rpartition(".")[2] for m in self.methods]
        return len(names) != len(set(names))

    @staticmethod
    def from_type_info(type_info: Any) -> ObjectInfo:
        ancestors = [_type_key(i) for i in type_info.type_ancestors]
        md = lib.TVMFFIGetTypeInfo(type_info.type_index).metadata
        methods = [FuncInfo(NamedTypeSchema(m.name, m.ty if m.ty is not None
                                            else TypeSchema("Callable")), not m.is_static)
                   for m in type_info.methods or ()]
        final = _lookup_type_attr(type_info.type_index, "__ffi_type_final__")
        return ObjectInfo(
            fields=[_field_schema(f) for f in type_info.fields or ()],
            methods=methods,
            type_key=type_info.type_key,
            parent_type_key=ancestors[-1] if ancestors else None,
            ancestors=ancestors,
            total_size=int(md.total_size) if md != ffi.NULL else None,
            is_final=None if final is None else bool(final),
            init_fields=_init_fields(type_info),
            has_init=_lookup_type_attr(type_info.type_index, "__ffi_init__") is not None,
        )


def _init_fields(type_info: Any) -> list:
    """Constructor parameters: every ancestor's fields (root first), then the type's own,
    less those excluded from ``__init__``."""
    chain = [_lookup_or_register_type_info_from_type_key(_type_key(i))
             for i in type_info.type_ancestors] + [type_info]
    return [InitFieldInfo(f.name, _field_schema(f), bool(f.c_kw_only), bool(f.c_has_default))
            for info in chain for f in info.fields or () if f.c_init]


@dataclasses.dataclass
class Options:
    """Run options of the generator (the CLI's flags)."""

    indent: int = 4
    verbose: bool = False
    dry_run: bool = False
    check: bool = False


@dataclasses.dataclass
class InitConfig:
    """``--init-*``: the pip distribution and library the generated package loads, and the
    global-function / type-key prefix it covers."""

    pkg: str
    shared_target: str
    prefix: str
