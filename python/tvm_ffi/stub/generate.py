"""Block bodies for one file: globals, objects, ``__all__``, exports, and the import section."""

import keyword
import sys

from . import lib_state
from .blocks import StubError
from .schema import Namer, function_parts

_FMT_OFF, _FMT_ON = "# fmt: off", "# fmt: on"


def _is_name(text):
    """Names that can appear in a stub (others stay reachable with getattr only)."""
    return text.isidentifier() and not keyword.iskeyword(text)


def declared_objects(files):
    """{type key: (module, class name)} of every ``object/<key>`` block in the processed files."""
    out = {}
    for f in files:
        for b in f.blocks:
            if b.kind.startswith("object/") and b.owner_class:
                out.setdefault(b.kind[len("object/"):], (f.module, b.owner_class))
    return out


class FileGenerator:
    def __init__(self, src, declared, indent):
        self.src, self.declared, self.step = src, declared, " " * indent
        self.local_classes = {cls for key, (mod, cls) in declared.items() if mod == src.module}
        self.namer = Namer(self._resolve)
        self.exported = set()
        self.registry_modules = set()

    def _resolve(self, key):
        """(module or None, name) for an object type key used in an annotation."""
        mapped = self.src.ty_map.get(key)
        if mapped is not None:
            module, _, name = mapped.rpartition(".")
            if not module or name in self.local_classes or module == self.src.module:
                return None, name
            return module, name
        if key in self.declared:
            module, name = self.declared[key]
            return (None if module == self.src.module else module), name
        cls = lib_state.python_class(key)
        if cls is not None:
            module = cls.__module__
            # prefer the public top-level name (tvm_ffi.Shape over tvm_ffi._tensor.Shape)
            if module.startswith("tvm_ffi.") and getattr(sys.modules["tvm_ffi"], cls.__name__, None) is cls:
                module = "tvm_ffi"
            return (None if module == self.src.module else module), cls.__name__
        if lib_state.core._type_key_to_index(key) is None:
            return "typing", "Any"  # not an object type this process knows
        return "tvm_ffi", "Object"

    def _lines(self, block, body, nested=()):
        ind = block.indent
        out = [ind + _FMT_OFF + "\n"]
        out += [ind + line + "\n" for line in body]
        if nested:
            out.append(ind + "if TYPE_CHECKING:\n")
            out += [ind + self.step + line + "\n" for line in nested]
        out.append(ind + _FMT_ON + "\n")
        return out

    def run(self):
        # import-section and __all__ last: they depend on what the other blocks used/defined
        late = []
        for b in self.src.blocks:
            kind = b.kind
            if kind.startswith("global/"):
                b.new_body = self._global(b)
            elif kind.startswith("object/"):
                b.new_body = self._object(b)
            elif kind.startswith("export/"):
                b.new_body = self._export(b)
            elif kind in ("import-section", "__all__"):
                late.append(b)
            else:
                raise StubError("%s:%d: unknown block kind `%s` (expected import-section, "
                                "global/<prefix>, object/<type key>, export/<module> or __all__)"
                                % (self.src.path, b.lineno, kind))
        for b in late:
            b.new_body = self._imports(b) if b.kind == "import-section" else self._all(b)

    def _global(self, b):
        spec = b.kind[len("global/"):]
        prefix, _, registry = spec.partition("@")
        if not prefix:
            raise StubError("%s:%d: `global/` needs a prefix" % (self.src.path, b.lineno))
        self.registry_modules.add(registry or "tvm_ffi")
        funcs = lib_state.global_functions(prefix)
        if not funcs:
            raise StubError("%s:%d: no global function is registered under `%s.` (load its library "
                            "with --dlls or --imports)" % (self.src.path, b.lineno, prefix))
        self.namer.use("typing", "TYPE_CHECKING")
        defs = []
        for name, node in funcs.items():
            if not _is_name(name):
                continue
            defs.append("def %s%s: ..." % (name, self.namer.signature(node)))
            self.exported.add(name)
        return self._lines(b, ['_FFI_INIT_FUNC("%s", __name__)' % prefix], defs)

    def _object(self, b):
        key = b.kind[len("object/"):]
        try:
            rec = lib_state.TypeRecord(key)
        except KeyError:
            raise StubError("%s:%d: object type `%s` is not registered (load its library with "
                            "--dlls or --imports)" % (self.src.path, b.lineno, key)) from None
        if b.owner_class:
            self.exported.add(b.owner_class)
        own_keys = set(rec.ancestors) | {key}
        body = ["%s: %s" % (f.name, self.namer.ann(f.schema)) for f in rec.fields if _is_name(f.name)]
        defs = []
        init = next((m for m in rec.methods if m.name == "__ffi_init__"), None)
        if init is not None:
            sig = self.namer.signature(init.schema, self_param=True)
            sig = sig.rsplit(" -> ", 1)[0] + " -> None"
            defs += ["def __init__%s: ..." % self._named_init(rec, init, sig),
                     "def __ffi_init__%s: ..." % sig]
        elif rec.auto_init:
            sig = self._auto_init_signature(rec)
            defs += ["def __init__%s: ..." % sig, "def __ffi_init__%s: ..." % sig]
        for m in rec.methods:
            if m.name.startswith("__ffi_") or not _is_name(m.name):
                continue
            if m.is_static:
                defs += ["@staticmethod", "def %s%s: ..." % (m.name, self.namer.signature(m.schema))]
                continue
            params = (function_parts(m.schema) or (None, []))[1]
            # C++ reflection lists the object itself as the first argument; C registrations may not
            first = params[0].get("type") if params and isinstance(params[0], dict) else None
            skip = first in own_keys or first == "ffi.Object"
            defs.append("def %s%s: ..." % (m.name, self.namer.signature(
                m.schema, first_index=1, self_param=True, skip_first=skip)))
        if defs:
            self.namer.use("typing", "TYPE_CHECKING")
        return self._lines(b, body, defs)

    def _named_init(self, rec, init, sig):
        """``__init__`` with field names when the constructor takes exactly the fields."""
        params = (function_parts(init.schema) or (None, []))[1]
        fields = [f for f in rec.init_fields() if _is_name(f.name)]
        if not params or len(params) != len(fields):
            return sig
        anns = [self.namer.ann(p) for p in params]
        if anns != [self.namer.ann(f.schema) for f in fields]:
            return sig
        return "(self, %s) -> None" % ", ".join("%s: %s" % (f.name, a) for f, a in zip(fields, anns))

    def _auto_init_signature(self, rec):
        required, optional, kwonly = [], [], []
        for f in rec.init_fields():
            if not _is_name(f.name):
                continue
            text = "%s: %s" % (f.name, self.namer.ann(f.schema))
            if f.kw_only:
                kwonly.append(text + (" = ..." if f.has_default else ""))
            elif f.has_default:
                optional.append(text + " = ...")
            else:
                required.append(text)
        params = ["self"] + required + optional + (["*"] + kwonly if kwonly else [])
        return "(%s) -> None" % ", ".join(params)

    def _export(self, b):
        mod = b.kind[len("export/"):]
        if not mod.isidentifier():
            raise StubError("%s:%d: export/ needs a sibling module name, got `%s`"
                            % (self.src.path, b.lineno, mod))
        alias = "_%s__all__" % mod.lstrip("_")
        return self._lines(b, [
            "# isort: off",
            "from .%s import *  # noqa: F403" % mod,
            "from .%s import __all__ as %s" % (mod, alias),
            'if "__all__" not in globals():',
            self.step + "__all__ = []",
            "__all__.extend(%s)" % alias,
            "# isort: on",
        ])

    def _all(self, b):
        return [b.indent + '"%s",\n' % n for n in sorted(self.exported)]

    def _imports(self, b):
        runtime = {}
        if self.registry_modules:
            for reg in sorted(self.registry_modules):
                runtime.setdefault(reg, set()).add("init_ffi_api as _FFI_INIT_FUNC")
        checking = {m: set(n) for m, n in self.namer.imports.items()}
        needs_tc = bool(checking.pop("typing", set()) & {"TYPE_CHECKING"}) or bool(checking)
        typing_names = self.namer.imports.get("typing", set()) - {"TYPE_CHECKING"}
        if typing_names:
            checking["typing"] = set(typing_names)
        for dotted, tc_only, alias in self.src.import_objects:
            module, _, name = dotted.rpartition(".")
            text = name if alias == name else "%s as %s" % (name, alias)
            (checking if tc_only else runtime).setdefault(module, set()).add(text)
            needs_tc = needs_tc or tc_only
        lines = ["# isort: off", "from __future__ import annotations"]
        lines += ["from %s import %s" % (m, ", ".join(sorted(n))) for m, n in sorted(runtime.items())]
        if needs_tc:
            lines.append("from typing import TYPE_CHECKING")
        nested = ["from %s import %s" % (m, ", ".join(sorted(n))) for m, n in sorted(checking.items())]
        out = self._lines(b, lines, nested)
        out.insert(-1, b.indent + "# isort: on\n")
        return out
