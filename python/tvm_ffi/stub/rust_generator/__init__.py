"""The Rust target of ``tvm-ffi-stubgen``: fills marker blocks of ``.rs`` files in a Cargo crate.

``codegen`` renders the blocks, ``directives`` parses the Rust-only directives, ``utils``
holds the ``use`` bookkeeping and naming rules, ``consts`` the default type table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from .. import consts as C
from .. import lib_state
from ..file_utils import FileInfo
from ..generator import Generator, register_generator
from . import codegen
from .consts import RUST_TY_MAP_DEFAULTS
from .utils import RustImports, RustUse, check_tokens, rust_module_path


@register_generator
class RustGenerator(Generator):
    """Rust bindings over the ``tvm_ffi`` crate: see ``codegen`` for what a block holds."""

    name = "rust"
    source_exts = frozenset({".rs"})
    directive_kinds = frozenset({"import-object", "field", "nullable", "enum", "opaque",
                                 "upcast", "custom-new"})

    def default_ty_map(self) -> dict:
        """A fresh copy of the default origin -> Rust path table."""
        return dict(RUST_TY_MAP_DEFAULTS)

    def declared_types(self, files: list) -> dict:
        """Type key -> module of every ``object`` block of the run (files outside a crate
        are left out here and fail on their own)."""
        declared = {}
        for f in files:
            try:
                module = rust_module_path(f.path)
            except ValueError:
                continue
            for block in f.code_blocks:
                if block.kind == "object":
                    declared[block.param] = module
        return declared

    def new_imports(self) -> RustImports:
        return RustImports()

    def add_directive(self, imports: RustImports, name: str, payload: str, lineno: int) -> None:
        if name != "import-object":
            imports.directives.add(name, payload, lineno)
            return
        parts = [p.strip() for p in payload.split(";")]
        if len(parts) != 3 or "." not in parts[0] or parts[1] not in ("True", "False"):
            raise ValueError("line %d: import-object needs `<module.name>;<True|False>;<alias>`, "
                             "got %r" % (lineno, payload))
        imports.record(parts[0])

    def generate(self, file_info: Any, imports: RustImports, opts: Any, ty_map: dict,
                 global_funcs: dict, declared: Optional[Mapping] = None) -> None:
        """Fill the blocks of ``file_info``.  ``declared``: type key -> module of every
        ``object`` block of the run (default: this file's own)."""
        module = rust_module_path(file_info.path)
        if declared is None:
            declared = {b.param: module for b in file_info.code_blocks if b.kind == "object"}
        else:  # a key may name the file of its block rather than its module
            declared = {k: rust_module_path(Path(v)) if isinstance(v, (str, Path)) else tuple(v)
                        for k, v in declared.items()}
        before = [list(b.lines) for b in file_info.code_blocks]
        defined, unregistered, sections = set(), [], []
        for block in file_info.code_blocks:
            if block.kind == "object":
                if not lib_state.is_registered(block.param):
                    unregistered.append(block)
                    continue
                info = lib_state.object_info_from_type_key(block.param)
                codegen.generate_rust_object(block, ty_map, imports, opts, info, declared)
                leaf = "::".join((*module, block.param.rpartition(".")[2]))
                defined |= {leaf, leaf + "Obj"}
            elif block.kind == "import-section":
                sections.append(block)
            elif block.kind is not None and block.kind != "directive":
                raise ValueError("line %d: the rust target has no `%s` blocks"
                                 % (block.lineno_start, block.kind))
        for block in sections:
            codegen.generate_rust_import_section(block, imports, opts, frozenset(defined))
        if opts.check:
            # a block is stale when its tokens differ, not its spelling (imports, paths,
            # comments, line breaks): a crate may format or re-path what a run wrote
            for block, lines in zip(file_info.code_blocks, before):
                if check_tokens(block.lines) == check_tokens(lines):
                    block.lines = lines
        if unregistered:
            # the other blocks are still brought up to date before the run reports the file
            file_info.update(verbose=opts.verbose, dry_run=opts.dry_run or opts.check)
            raise ValueError("%s: the type is no longer registered (drop the block, or load "
                             "its library with --dlls or --imports)"
                             % ", ".join("`object/%s` (line %d)" % (b.param, b.lineno_start)
                                         for b in unregistered))

    def api_filename(self) -> str:
        return "mod.rs"

    def init_filename(self) -> str:
        return "mod.rs"

    def generate_init_file(self, code_blocks: list, namespace: str, api_module: str) -> str:
        """A namespace's module file is its ``mod.rs`` itself: nothing else to create."""
        return ""

    def init_namespace(self, init_path: Any, namespace: str, objects: list, ty_map: dict,
                       init_cfg: Any, is_root: bool) -> list:
        directory = Path(init_path, *namespace.split("."))
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / self.api_filename()
        existing = FileInfo.from_file(path) if path.exists() else None
        if path.exists() and existing is None:
            return []  # hand-written, no markers: left alone
        blocks = existing.code_blocks if existing is not None else []
        text = codegen.generate_rust_api_file(blocks, {}, namespace, objects, init_cfg,
                                              is_root, C.RUST_SYNTAX)
        if text:
            with path.open("a", encoding="utf-8") as f:
                f.write(text)
        codegen.finalize_rust_module_tree(Path(init_path), [namespace])
        return [path] if text else []


__all__ = ["RustGenerator", "RustImports", "RustUse"]
