"""Which object types' native layout reflection explains completely (``--coverage-out``).

A generator that mirrors an object type as a by-value struct (the Rust target) may do so only
when the reflected fields account for every byte of the type.  ``classify`` decides that per
type from byte facts alone: the registered ``total_size`` of the type and of its parent, and
each own field's offset, size and alignment.

A type is **complete** when its own fields, visited by offset, fill
``[parent.total_size, total_size)`` with nothing but alignment padding between and after
them (a gap is padding only when aligning the cursor to the next field's, or at the end the
type's, alignment lands exactly on it).  Otherwise it is **opaque**, for one reason:

- ``no-mirror``: the caller has no mirror for it (decided first, no evidence weighed);
- ``parent-opaque``: an ancestor is opaque;
- ``layout-unknown``: no metadata of its own (``total_size`` unknown) or a field without
  byte facts;
- ``field-overlap``: a field starts inside bytes already claimed (e.g. the parent's tail
  padding, which the Itanium ABI may reuse) or ends past ``total_size``;
- ``uncovered-bytes``: bytes neither a field nor padding (an unreflected member, a vtable
  pointer);
- ``unrenderable-field``: the caller cannot render one of the fields;
- ``by-directive``: the caller asked for it to stay opaque.

The root (no parent) is the C ABI object header: complete, owning no bytes of its own.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable, Optional

from .utils import NamedTypeSchema, ObjectInfo

OBJECT_HEADER_SIZE = 24  # sizeof(TVMFFIObject)
OBJECT_HEADER_ALIGNMENT = 8


@dataclasses.dataclass(frozen=True)
class ByteRange:
    """Bytes ``[start, end)`` from the start of the object header."""

    start: int
    end: int

    def __str__(self) -> str:
        return f"[{self.start}, {self.end})"


@dataclasses.dataclass(frozen=True)
class FieldBytes:
    """Where one reflected field lives."""

    name: str
    offset: int
    size: int
    alignment: int


@dataclasses.dataclass
class Verdict:
    """The classification of one type, with the byte evidence behind it."""

    type_key: str
    reason: Optional[str] = None
    detail: str = ""
    parent: Optional[str] = None
    ancestors: list = dataclasses.field(default_factory=list)
    total_size: Optional[int] = None
    is_final: Optional[bool] = None
    own_bytes: Optional[ByteRange] = None
    alignment: Optional[int] = None
    fields: list = dataclasses.field(default_factory=list)
    uncovered: list = dataclasses.field(default_factory=list)
    padding: list = dataclasses.field(default_factory=list)

    @property
    def is_complete(self) -> bool:
        return self.reason is None

    @property
    def verdict(self) -> str:
        return "complete" if self.reason is None else "opaque"


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment if alignment > 0 else value


def _ranges_text(ranges: list) -> str:
    return ", ".join(str(r) for r in ranges)


def _fill(verdict: Verdict, parent: Verdict, info: ObjectInfo) -> None:
    """Checks the own bytes of a type whose parent is complete; sets reason and evidence."""
    start, end = parent.total_size, info.total_size
    assert start is not None and end is not None and parent.alignment is not None
    verdict.own_bytes = ByteRange(start, end)
    fields = verdict.fields  # by offset
    verdict.alignment = max([parent.alignment] + [f.alignment for f in fields])
    cursor = start
    for f in fields:
        if f.offset < cursor:
            verdict.reason = "field-overlap"
            verdict.detail = (f"field '{f.name}' at [{f.offset}, {f.offset + f.size}) starts "
                              f"before byte {cursor}")
            return
        if f.offset > cursor:
            gap = ByteRange(cursor, f.offset)
            (verdict.padding if _align_up(cursor, f.alignment) == f.offset
             else verdict.uncovered).append(gap)
        cursor = f.offset + f.size
    if cursor > end:
        verdict.reason = "field-overlap"
        verdict.detail = f"fields extend to byte {cursor}, past total_size {end}"
        return
    if cursor < end:
        tail = ByteRange(cursor, end)
        (verdict.padding if _align_up(cursor, verdict.alignment) == end
         else verdict.uncovered).append(tail)
    if verdict.uncovered:
        verdict.reason = "uncovered-bytes"
        verdict.detail = (f"own bytes {verdict.own_bytes}: {_ranges_text(verdict.uncovered)} "
                          "are neither a reflected field nor alignment padding")
        return
    padding = f", alignment padding {_ranges_text(verdict.padding)}" if verdict.padding else ""
    verdict.detail = (f"own bytes {verdict.own_bytes} filled by {len(fields)} field(s)"
                      f"{padding}")


def classify(
    infos: dict,
    *,
    forced_opaque: frozenset | set = frozenset(),
    unmirrored: frozenset | set = frozenset(),
    field_renderable: Optional[Callable[[NamedTypeSchema], bool]] = None,
) -> dict:
    """``{type key: Verdict}`` for every ``ObjectInfo`` in ``infos`` (keyed by type key).

    Every ancestor of every type must be in ``infos`` (KeyError names a missing one).
    ``forced_opaque`` demotes complete types to ``by-directive``; ``unmirrored`` types are
    ``no-mirror``; ``field_renderable(field)`` is asked about the fields of types whose bytes
    are complete.
    """
    verdicts: dict = {}

    def visit(key: str) -> Verdict:
        if key in verdicts:
            return verdicts[key]
        info = infos[key]
        parent_verdict = visit(info.parent_type_key) if info.parent_type_key else None
        verdict = Verdict(type_key=key, parent=info.parent_type_key,
                          ancestors=list(info.ancestors), total_size=info.total_size,
                          is_final=info.is_final)
        verdict.fields = sorted((FieldBytes(f.name, f.offset, f.size, f.alignment)
                                 for f in info.fields
                                 if f.offset is not None and f.size is not None),
                                key=lambda f: f.offset)
        _judge(verdict, info, parent_verdict)
        if verdict.reason is None and field_renderable is not None:
            bad = [f.name for f in info.fields if not field_renderable(f)]
            if bad:
                verdict.reason = "unrenderable-field"
                verdict.detail = "cannot render field(s) " + ", ".join(f"'{n}'" for n in bad)
        if verdict.reason is None and key in forced_opaque:
            verdict.reason = "by-directive"
            verdict.detail = "kept opaque by a directive; " + verdict.detail
        verdicts[key] = verdict
        return verdict

    def _judge(verdict: Verdict, info: ObjectInfo, parent: Optional[Verdict]) -> None:
        if info.type_key in unmirrored:
            verdict.fields = []
            verdict.reason, verdict.detail = "no-mirror", "no mirror of this type is generated"
            return
        if parent is None:
            verdict.own_bytes = ByteRange(OBJECT_HEADER_SIZE, OBJECT_HEADER_SIZE)
            verdict.alignment = OBJECT_HEADER_ALIGNMENT
            verdict.detail = f"object header [0, {OBJECT_HEADER_SIZE}): owned by the C ABI"
            return
        if not parent.is_complete:
            verdict.reason = "parent-opaque"
            verdict.detail = f"parent '{parent.type_key}' is opaque ({parent.reason})"
            return
        if info.total_size is None:
            verdict.reason = "layout-unknown"
            verdict.detail = "no metadata of its own: total_size is unknown"
            return
        missing = [f.name for f in info.fields
                   if f.offset is None or f.size is None or f.alignment is None]
        if missing:
            verdict.reason = "layout-unknown"
            verdict.detail = "no byte facts for field(s) " + ", ".join(f"'{n}'" for n in missing)
            return
        _fill(verdict, parent, info)

    for key in infos:
        visit(key)
    return verdicts


def coverage_report(verdicts: dict) -> dict:
    """The JSON-ready report: one entry per type key, sorted."""
    def ranges(rs: list) -> list:
        return [[r.start, r.end] for r in rs]

    return {
        key: {
            "verdict": v.verdict,
            "reason": v.reason,
            "detail": v.detail,
            "parent": v.parent,
            "ancestors": list(v.ancestors),
            "total_size": v.total_size,
            "is_final": v.is_final,
            "own_bytes": None if v.own_bytes is None else [v.own_bytes.start, v.own_bytes.end],
            "fields": [dataclasses.asdict(f) for f in v.fields],
            "uncovered": ranges(v.uncovered),
            "padding": ranges(v.padding),
        }
        for key, v in sorted(verdicts.items())
    }


def write_coverage_report(path: str | Path, verdicts: dict) -> None:
    """Writes ``coverage_report(verdicts)`` as JSON to ``path``."""
    text = json.dumps(coverage_report(verdicts), indent=2, sort_keys=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")
