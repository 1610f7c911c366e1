"""Reading and rewriting files that carry ``tvm-ffi-stubgen`` marker blocks."""

import os
import re

_BEGIN = re.compile(r"^([ \t]*)#\s*tvm-ffi-stubgen\(begin\):\s*(\S+)\s*$")
_END = re.compile(r"^[ \t]*#\s*tvm-ffi-stubgen\(end\)\s*$")
_DIRECTIVE = re.compile(r"^[ \t]*#\s*tvm-ffi-stubgen\(([\w-]+)\)(?::\s*(.*?))?\s*$")
_CLASS = re.compile(r"^([ \t]*)class\s+(\w+)")


class StubError(Exception):
    """A malformed file or an unknown name; the message starts with ``path:line:``."""


class Block:
    """One ``begin``/``end`` region: ``kind`` (text after ``begin:``), indentation, body."""

    def __init__(self, kind, indent, lineno, body, owner_class):
        self.kind, self.indent, self.lineno = kind, indent, lineno
        self.body = body  # list of lines (with newlines) between the markers
        self.new_body = None
        self.owner_class = owner_class  # name of the enclosing class (object blocks)


def module_name(path):
    """Dotted module name of a .py/.pyi file, from the packages (``__init__.py``) around it."""
    path = os.path.abspath(path)
    parts = [os.path.splitext(os.path.basename(path))[0]]
    d = os.path.dirname(path)
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parts.append(os.path.basename(d))
        d = os.path.dirname(d)
    if parts[0] == "__init__":
        parts = parts[1:]
    return ".".join(reversed(parts))


class SourceFile:
    """A parsed file: plain lines and Blocks in order, plus its directives."""

    def __init__(self, path, text=None):
        self.path = path
        self.module = module_name(path)
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.text = text
        self.items = []
        self.ty_map = {}
        self.import_objects = []  # (dotted name, type_checking_only, alias)
        self.skip = False
        self._parse(text)

    @property
    def blocks(self):
        return [b for b in self.items if isinstance(b, Block)]

    def _where(self, lineno):
        return "%s:%d" % (self.path, lineno)

    def _parse(self, text):  # noqa: C901 - a small state machine
        lines = text.splitlines(keepends=True)
        current, classes = None, []
        for no, line in enumerate(lines, 1):
            if current is not None:
                if _END.match(line):
                    self.items.append(current)
                    self.items.append(line)
                    current = None
                elif _BEGIN.match(line):
                    raise StubError("%s: `begin` inside the block opened on line %d"
                                    % (self._where(no), current.lineno))
                else:
                    current.body.append(line)
                continue
            m = _BEGIN.match(line)
            if m:
                indent = m.group(1)
                owner = None
                for cindent, cname in reversed(classes):
                    if len(cindent) < len(indent):
                        owner = cname
                        break
                self.items.append(line)
                current = Block(m.group(2), indent, no, [], owner)
                continue
            if _END.match(line):
                raise StubError("%s: `end` without a matching `begin`" % self._where(no))
            c = _CLASS.match(line)
            if c:
                classes = [x for x in classes if len(x[0]) < len(c.group(1))] + [(c.group(1), c.group(2))]
            d = _DIRECTIVE.match(line)
            if d and d.group(1) not in ("begin", "end"):
                self._directive(d.group(1), d.group(2) or "", no)
            self.items.append(line)
        if current is not None:
            raise StubError("%s: block `%s` is never closed (missing `# tvm-ffi-stubgen(end)`)"
                            % (self._where(current.lineno), current.kind))

    def _directive(self, name, payload, no):
        if name == "ty-map":
            src, arrow, dst = payload.partition("->")
            if not arrow or not src.strip() or not dst.strip():
                raise StubError("%s: ty-map needs `<type key> -> <python name>`, got %r"
                                % (self._where(no), payload))
            self.ty_map[src.strip()] = dst.strip()
        elif name == "import-object":
            parts = [p.strip() for p in payload.split(";")]
            if len(parts) != 3 or "." not in parts[0] or parts[1] not in ("True", "False"):
                raise StubError("%s: import-object needs `<module.name>;<True|False>;<alias>`, got %r"
                                % (self._where(no), payload))
            self.import_objects.append((parts[0], parts[1] == "True", parts[2] or parts[0].rpartition(".")[2]))
        elif name == "skip-file":
            self.skip = True
        else:
            raise StubError("%s: unknown directive tvm-ffi-stubgen(%s)" % (self._where(no), name))

    def render(self):
        out = []
        for item in self.items:
            if isinstance(item, Block):
                out.extend(item.body if item.new_body is None else item.new_body)
            else:
                out.append(item)
        return "".join(out)


def collect(paths, exts=(".py", ".pyi")):
    """Files to process: given files as they are, directories walked recursively (sorted)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith(exts)]
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise StubError("%s: no such file or directory" % p)
    seen, unique = set(), []
    for p in out:
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique
