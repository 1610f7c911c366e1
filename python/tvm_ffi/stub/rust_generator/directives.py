"""The Rust-only directives a file may carry (``// tvm-ffi-stubgen(<name>): <payload>``).

``field`` gives a field a Rust type of its own, ``nullable`` makes a field an ``Option``,
``enum`` declares a field as a Rust enum over an integer, ``opaque`` keeps a type behind the
C ABI getters, ``upcast`` adds conversions to hand-written types, ``custom-new`` renames the
generated wrapper allocator so a hand-written ``new`` can take its place.
"""

from __future__ import annotations

import dataclasses
import re

from .consts import ENUM_REPRS

_KEY = r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+"
_DOTTED = re.compile(r"^%s$" % _KEY)
_TYPE = re.compile(r"^[^\s]+$")
_ENUM = re.compile(r"^(%s)\s*->\s*([A-Za-z_]\w*)\((\w+)\)\s*(?:\{(.*)\})?$" % _KEY)
_VARIANT = re.compile(r"^([A-Za-z_]\w*)\s*=\s*(-?\d+)$")

_USAGE = {
    "field": "<type_key>.<field> -> <RustType>",
    "nullable": "<type_key>.<field>",
    "enum": "<type_key>.<field> -> Name(i32) { Variant = 0, ... }",
    "opaque": "<type_key>",
    "upcast": "<type_key> -> <RustType>",
    "custom-new": "<type_key>",
}


@dataclasses.dataclass(frozen=True)
class EnumSpec:
    """A field bound as ``enum <name>`` with ``#[repr(<repr>)]``; ``variants``: (name, value)."""

    name: str
    repr: str
    variants: tuple = ()


def _arrow(payload: str) -> tuple:
    """(left, right) of ``left -> right``; None when either side is missing."""
    left, arrow, right = payload.partition("->")
    left, right = left.strip(), right.strip()
    if not arrow or not left or not right:
        return None
    return left, right


class Directives:
    """The Rust directives of one file, parsed and checked as they are added."""

    def __init__(self) -> None:
        self.field_types: dict = {}
        self.nullable: set = set()
        self.enums: dict = {}
        self.opaque: set = set()
        self.upcasts: dict = {}
        self.custom_new: set = set()

    def add(self, name: str, payload: str, lineno: int) -> None:
        """Parse one directive; ValueError naming the line and the expected form otherwise."""
        if name not in _USAGE:
            raise ValueError("Unknown directive `%s` at line %d" % (name, lineno))
        # `nullable`, `opaque` and `custom-new` each name one key and collect it in a set
        keyed = {"nullable": self.nullable, "opaque": self.opaque, "custom-new": self.custom_new}
        if name in keyed:
            ok = bool(_DOTTED.match(payload.strip()))
            if ok:
                keyed[name].add(payload.strip())
        else:
            ok = getattr(self, "_add_" + name)(payload.strip())
        if not ok:
            raise ValueError("Malformed `%s` directive at line %d: expected `%s`, got %r"
                             % (name, lineno, _USAGE[name], payload))

    def _add_field(self, payload: str) -> bool:
        parts = _arrow(payload)
        if parts is None or not _DOTTED.match(parts[0]) or not _TYPE.match(parts[1]):
            return False
        self.field_types[parts[0]] = parts[1]
        return True

    def _add_enum(self, payload: str) -> bool:
        m = _ENUM.match(payload)
        if m is None or m.group(3) not in ENUM_REPRS:
            return False
        variants = []
        for item in (m.group(4) or "").split(","):
            if not item.strip():
                continue
            v = _VARIANT.match(item.strip())
            if v is None:
                return False
            variants.append((v.group(1), int(v.group(2))))
        self.enums[m.group(1)] = EnumSpec(m.group(2), m.group(3), tuple(variants))
        return True

    def _add_upcast(self, payload: str) -> bool:
        parts = _arrow(payload)
        if parts is None or not _DOTTED.match(parts[0]) or not _TYPE.match(parts[1]):
            return False
        self.upcasts.setdefault(parts[0], []).append(parts[1])
        return True

