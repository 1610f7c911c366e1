"""The Python target of ``tvm-ffi-stubgen``: fills marker blocks of ``.py``/``.pyi`` files.

``codegen`` renders the blocks, ``consts`` holds the default origin -> Python name table,
``utils.ImportItem`` the imports a file collects while its blocks are rendered.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Optional

from .. import consts as C
from .. import lib_state
from ..file_utils import FileInfo, module_name
from ..generator import Generator, register_generator
from . import codegen
from . import consts as PC
from .utils import ImportItem, add_import

_CLASS = re.compile(r"^([ \t]*)class\s+(\w+)")


def resolve_registered_class(type_key: str) -> Optional[str]:
    """Dotted Python path of the class registered for ``type_key`` (the public top-level
    ``tvm_ffi`` name where there is one); ``tvm_ffi.Object`` for a registered type without
    a class of its own; None for a key the runtime does not know."""
    cls = lib_state.python_class(type_key)
    if cls is None:
        return "tvm_ffi.Object" if lib_state.is_registered(type_key) else None
    module = cls.__module__
    if module.startswith("tvm_ffi.") and getattr(sys.modules["tvm_ffi"], cls.__name__, None) is cls:
        module = "tvm_ffi"
    return "%s.%s" % (module, cls.__name__)


def owner_classes(file_info: FileInfo) -> dict:
    """{id(object block): name of the class whose body holds it}."""
    out, classes = {}, []
    for block in file_info.code_blocks:
        if block.kind is None:
            for line in block.lines:
                m = _CLASS.match(line)
                if m:
                    classes = [c for c in classes if len(c[0]) < len(m.group(1))]
                    classes.append((m.group(1), m.group(2)))
        elif block.kind == "object":
            owner = [name for indent, name in classes if len(indent) < block.indent]
            if owner:
                out[id(block)] = owner[-1]
    return out


@register_generator
class PythonGenerator(Generator):
    """Python stubs: see ``tvm_ffi.stub`` for the block kinds."""

    name = "python"
    source_exts = frozenset({".py", ".pyi"})
    directive_kinds = frozenset({"import-object"})

    def default_ty_map(self) -> dict:
        return dict(PC.TY_MAP_DEFAULTS)

    def new_imports(self) -> list:
        return []

    def add_directive(self, imports: list, name: str, payload: str, lineno: int) -> None:
        if name != "import-object":
            raise ValueError("Unknown directive `%s` at line %d" % (name, lineno))
        parts = [p.strip() for p in payload.split(";")]
        if len(parts) != 3 or "." not in parts[0] or parts[1] not in ("True", "False"):
            raise ValueError("line %d: import-object needs `<module.name>;<True|False>;<alias>`, "
                             "got %r" % (lineno, payload))
        add_import(imports, ImportItem(parts[0], parts[1] == "True", parts[2] or None))

    def generate(self, file_info: FileInfo, imports: list, opts: Any, ty_map: dict,
                 global_funcs: dict, declared: Any = None) -> None:
        owners = owner_classes(file_info)
        names = set()
        late = []
        for block in file_info.code_blocks:
            if block.kind == "global":
                prefix = block.param[0]
                if prefix not in global_funcs:
                    raise ValueError("line %d: no global function is registered under `%s.` "
                                     "(load its library with --dlls or --imports)"
                                     % (block.lineno_start, prefix))
                funcs = global_funcs[prefix]
                codegen.generate_python_global_funcs(block, funcs, ty_map, imports, opts,
                                                     resolve_registered_class)
                names |= {codegen.short_name(f.schema.name) for f in funcs
                          if codegen.is_python_name(codegen.short_name(f.schema.name))}
            elif block.kind == "object":
                try:
                    info = lib_state.object_info_from_type_key(block.param)
                except KeyError:
                    raise ValueError("line %d: object type `%s` is not registered (load its "
                                     "library with --dlls or --imports)"
                                     % (block.lineno_start, block.param)) from None
                codegen.generate_python_object(block, ty_map, imports, opts, info,
                                               resolve_registered_class)
                if id(block) in owners:
                    names.add(owners[id(block)])
            elif block.kind == "export":
                codegen.generate_python_export(block, opts)
            elif block.kind in ("import-section", "__all__"):
                late.append(block)
        if any(i.name == PC.LOAD_LIB_TARGET for i in imports):
            names.add("LIB")
        module = module_name(file_info.path)
        local = set(owners.values())
        needed = [i for i in imports if not (i.type_checking_only and
                                             (i.mod == module or i.bound in local))]
        for block in late:
            if block.kind == "import-section":
                codegen.generate_python_import_section(block, needed, opts)
            else:
                codegen.generate_python_all(block, names, opts)

    def init_namespace(self, init_path: Any, namespace: str, objects: list, ty_map: dict,
                       init_cfg: Any, is_root: bool) -> list:
        directory = Path(init_path, *namespace.split("."))
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        api = directory / (PC.FFI_API_MODULE + ".py")
        init = directory / "__init__.py"
        for path, render in (
                (api, lambda blocks: codegen.generate_python_ffi_api(
                    blocks, ty_map, namespace, objects, init_cfg, is_root, C.PYTHON_SYNTAX)),
                (init, lambda blocks: codegen.generate_python_init(
                    blocks, namespace, PC.FFI_API_MODULE, C.PYTHON_SYNTAX))):
            if _write_or_append(path, render):
                written.append(path)
        return written


def _write_or_append(path: Path, render: Any) -> bool:
    """Create ``path`` from ``render([])``; a file with marker blocks gets what
    ``render(blocks)`` says it lacks appended; a hand-written file without markers is left
    alone.  Whether anything was written."""
    if not path.exists():
        path.write_text(render([]), encoding="utf-8")
        return True
    existing = FileInfo.from_file(path)
    text = render(existing.code_blocks) if existing is not None else ""
    if text:
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
    return bool(text)
