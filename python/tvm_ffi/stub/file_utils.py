"""Reading and rewriting files that carry ``tvm-ffi-stubgen`` markers.

A file is cut into ``CodeBlock``s in order: runs of plain lines (``kind`` None), generated
blocks (``begin`` ... ``end``, both marker lines included) and one-line directives
(``kind == "directive"``).  Generators replace a block's ``lines``; ``FileInfo.update``
writes the joined result back when it changed.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from pathlib import Path
from typing import Any, Iterable, Optional

from . import consts as C

_NAME = re.compile(r"([\w-]+)\):(.*)$")


def syntax_for(path: Any) -> C.Syntax:
    """The marker syntax of a file, by its extension."""
    return C.SYNTAX_BY_EXT.get(os.path.splitext(str(path))[1].lower(), C.PYTHON_SYNTAX)


def _split_kind(spec: str, lineno: int) -> tuple[str, Any]:
    kind, slash, param = spec.partition("/")
    if kind not in C.BLOCK_KINDS or (slash and kind not in ("global", "object", "export")):
        raise ValueError("Unknown stub block kind `%s` at line %d (expected import-section, "
                         "global/<prefix>, object/<type key>, export/<module> or __all__)"
                         % (spec, lineno))
    if kind in ("global", "object", "export") and not param:
        raise ValueError("Stub block `%s` at line %d needs a `/<name>` parameter" % (spec, lineno))
    if kind == "global":
        prefix, _, registry = param.partition("@")
        return kind, (prefix, registry)
    return kind, param


@dataclasses.dataclass
class CodeBlock:
    """One piece of a file: plain lines, a generated block or a directive (see module doc).

    ``param`` is ``(prefix, registry module)`` for ``global``, the type key for ``object``,
    the module for ``export``, ``(name, payload)`` for a directive, ``""`` otherwise.
    """

    kind: Optional[str]
    param: Any
    lineno_start: int
    lineno_end: Optional[int]
    lines: list = dataclasses.field(default_factory=list)

    @property
    def indent(self) -> int:
        """Indentation (columns) of the block's first line, which its body follows."""
        if not self.lines:
            return 0
        first = self.lines[0]
        return len(first) - len(first.lstrip(" "))

    @staticmethod
    def from_begin_line(lineno: int, line: str, syntax: C.Syntax) -> CodeBlock:
        """The block a marker line opens (a directive is complete in that line).

        ValueError for a marker this syntax does not know.
        """
        text = line.strip()
        if text.startswith(syntax.begin):
            kind, param = _split_kind(text[len(syntax.begin):].strip(), lineno)
            return CodeBlock(kind, param, lineno, None, [])
        m = _NAME.match(text[len(syntax.prefix):]) if text.startswith(syntax.prefix) else None
        if m is None or m.group(1) in ("begin", "end"):
            raise ValueError("Unknown stub type at line %d: %r" % (lineno, text))
        return CodeBlock("directive", (m.group(1), m.group(2).strip()), lineno, lineno, [])


@dataclasses.dataclass
class FileInfo:
    """A parsed file: its original ``lines`` (no newlines) and the blocks cutting them."""

    path: Path
    lines: tuple
    code_blocks: list
    syntax: C.Syntax = C.PYTHON_SYNTAX

    @staticmethod
    def from_file(path: Any) -> Optional[FileInfo]:
        """The parsed file; None when it carries no marker or opts out (``skip-file``).

        ValueError (message with the line) for nested, unmatched or unclosed blocks and
        unknown markers.
        """
        path = Path(path).resolve()
        syntax = syntax_for(path)
        lines = tuple(path.read_text(encoding="utf-8").splitlines())
        if any(line.strip() == syntax.skip_file for line in lines):
            return None
        blocks, current = [], None
        for lineno, line in enumerate(lines, 1):
            marker = line.strip().startswith(syntax.prefix)
            if current is not None:
                if marker and line.strip() == syntax.end:
                    current.lines.append(line)
                    current.lineno_end = lineno
                    current = None
                elif marker and line.strip().startswith(syntax.begin):
                    raise ValueError("Nested stub not permitted: line %d opens a block inside "
                                     "the one opened at line %d" % (lineno, current.lineno_start))
                else:
                    current.lines.append(line)
                continue
            if not marker:
                if blocks and blocks[-1].kind is None:
                    blocks[-1].lines.append(line)
                    blocks[-1].lineno_end = lineno
                else:
                    blocks.append(CodeBlock(None, "", lineno, lineno, [line]))
                continue
            if line.strip() == syntax.end:
                raise ValueError("Unmatched `end` marker at line %d" % lineno)
            block = CodeBlock.from_begin_line(lineno, line, syntax)
            block.lines.append(line)
            blocks.append(block)
            if block.lineno_end is None:
                current = block
        if current is not None:
            raise ValueError("Unclosed stub block opened at line %d (missing `%s`)"
                             % (current.lineno_start, syntax.end))
        if all(b.kind is None for b in blocks):
            return None
        return FileInfo(path, lines, blocks, syntax)

    def new_lines(self) -> list:
        return [line for block in self.code_blocks for line in block.lines]

    def diff(self) -> list:
        """Unified diff lines from the file as read to the blocks as they are now."""
        return list(difflib.unified_diff(
            [line + "\n" for line in self.lines], [line + "\n" for line in self.new_lines()],
            fromfile=str(self.path), tofile=str(self.path)))

    def update(self, verbose: bool, dry_run: bool) -> bool:
        """Write the blocks back when they changed (not with ``dry_run``); whether they did.
        ``verbose`` prints the diff."""
        new = self.new_lines()
        if new == list(self.lines):
            return False
        if verbose:
            print("".join(self.diff()), end="")
        if not dry_run:
            self.path.write_text("\n".join(new) + "\n", encoding="utf-8")
        return True


def collect_files(paths: Iterable[Any], source_exts: Iterable[str]) -> list:
    """``FileInfo``s of the given files (any extension) and of the files under the given
    directories whose extension is in ``source_exts`` (case-insensitive), each once, in
    order; files without markers are left out.  ValueError for a missing path."""
    exts = {e.lower() for e in source_exts}
    found = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                found += [Path(root, f) for f in sorted(files)
                          if os.path.splitext(f)[1].lower() in exts]
        elif p.is_file():
            found.append(p)
        else:
            raise ValueError("%s: no such file or directory" % p)
    seen, out = set(), []
    for p in found:
        real = p.resolve()
        if real in seen:
            continue
        seen.add(real)
        try:
            info = FileInfo.from_file(real)
        except ValueError as e:
            raise ValueError("%s: %s" % (p, e)) from None
        if info is not None:
            out.append(info)
    return out


def module_name(path: Any) -> str:
    """Dotted module name of a source file, from the packages (``__init__.py``) around it."""
    path = os.path.abspath(str(path))
    parts = [os.path.splitext(os.path.basename(path))[0]]
    d = os.path.dirname(path)
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.append(os.path.basename(d))
        d = os.path.dirname(d)
    if parts[0] == "__init__":
        parts = parts[1:]
    return ".".join(reversed(parts))
