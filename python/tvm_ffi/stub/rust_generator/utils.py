"""Rust names: ``use`` paths, the imports a file collects, identifiers, module paths, types."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Callable, Optional

from .consts import GENERIC_ARITY, RUST_KEYWORDS, UNRAW_NAMES
from .directives import Directives


def _to_path(name: str) -> str:
    """``a::b`` as is; a dotted FFI name becomes a path (``ffi`` is the ``tvm_ffi`` crate)."""
    if "::" in name or "." not in name:
        return name
    parts = name.split(".")
    if parts[0] == "ffi":
        parts[0] = "tvm_ffi"
    return "::".join(parts)


class RustUse:
    """One item a file may ``use``: a Rust path (``tvm_ffi::Array``) or a bare name (``i64``)."""

    __slots__ = ("path",)

    def __init__(self, name: str) -> None:
        self.path = _to_path(name)

    @property
    def leaf(self) -> str:
        return self.path.rpartition("::")[2]

    def as_use_line(self) -> str:
        """``use <path>;``, or "" for a bare name, which needs none."""
        return "use %s;" % self.path if "::" in self.path else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RustUse) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __repr__(self) -> str:
        return "RustUse(%r)" % self.path


class RustImports:
    """The ``use`` items one file needs, and the Rust directives it carries.

    A leaf names one path per file: the first path recorded for a leaf is imported, a later
    one with the same leaf is spelled in full instead.
    """

    def __init__(self) -> None:
        self.items: list = []
        self.directives = Directives()
        #: builtin ``ffi.*`` ancestor -> the ``base`` of its header-only stand-in, in the
        #: order the import section defines them
        self.builtin_mirrors: dict = {}

    def record(self, name: str, taken: frozenset = frozenset()) -> str:
        """How the file spells ``name``; records a ``use`` where one is needed.

        ``taken``: leaves the caller's block defines itself, which no import may shadow."""
        item = RustUse(name)
        if "::" not in item.path:
            return item.path
        if item.leaf in taken:
            return item.path
        for known in self.items:
            if known.leaf == item.leaf:
                return item.leaf if known == item else item.path
        self.items.append(item)
        return item.leaf


def rust_ident(name: str) -> str:
    """A field or module name as a Rust identifier.

    C++ conventions are undone (one trailing underscore, or a dunder pair), keywords are
    written raw, and names a raw identifier cannot spell get a trailing underscore."""
    core = name
    if len(name) > 4 and name.startswith("__") and name.endswith("__"):
        core = name[2:-2]
    elif len(name) > 1 and name.endswith("_") and not name.endswith("__"):
        core = name[:-1]
    if core in UNRAW_NAMES:
        return core + "_"
    if core in RUST_KEYWORDS:
        return "r#" + core
    return core


def render_rust_type(schema, ty_render: Callable) -> Optional[str]:
    """The Rust type of ``schema``; None when the crate has no mirror for it.

    ``ty_render(origin, type_key)`` spells one name (recording its import) or returns None."""
    origin = schema.origin
    type_key = getattr(schema, "type_key", None)
    head = ty_render(origin, type_key)
    if head is None:
        return None
    arity = GENERIC_ARITY.get(origin)
    if arity is None:
        return head if not schema.args else None
    args = list(schema.args or ())
    if len(args) > arity:
        return None
    rendered = []
    for arg in args:
        text = render_rust_type(arg, ty_render)
        if text is None:
            return None
        rendered.append(text)
    while len(rendered) < arity:
        rendered.append(ty_render("Any", None))
    return "%s<%s>" % (head, ", ".join(rendered))


_TOKEN = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*|\d+|::|\S")


def check_tokens(lines: list) -> tuple:
    """The tokens of generated Rust with the spelling taken out: ``use`` lines, comments and
    line breaks are dropped and every path is reduced to its last segment.  Two bindings
    with equal tokens declare the same things."""
    out = []
    for line in lines:
        text = line.strip()
        if not text or text.startswith("//") or text.startswith("use "):
            continue
        for token in _TOKEN.findall(text):
            if token in "}])" and out and out[-1] == ",":
                out.pop()  # a trailing comma is spelling too
            out.append(token.rpartition("::")[2] if "::" in token and token != "::" else token)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def rust_module_path(path: Path) -> tuple:
    """The module a ``.rs`` file defines: (``crate``, segments...) from its place under the
    ``src`` directory of the nearest Cargo crate."""
    path = Path(path).resolve()
    root = next((d for d in path.parents if (d / "Cargo.toml").is_file()), None)
    if root is None:
        raise ValueError("`%s` is in no Cargo crate (no Cargo.toml above it)" % path)
    src = root / "src"
    try:
        rel = path.relative_to(src)
    except ValueError:
        raise ValueError("`%s` is not under the crate's `%s`" % (path, src)) from None
    parts = list(rel.parts)
    if len(parts) == 1 and parts[0] in ("lib.rs", "main.rs"):
        return ("crate",)
    if parts[-1] == "mod.rs":
        parts.pop()
    else:
        parts[-1] = parts[-1][: -len(".rs")] if parts[-1].endswith(".rs") else parts[-1]
    return ("crate", *(rust_ident(p) for p in parts))
