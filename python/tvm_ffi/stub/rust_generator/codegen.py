"""Renders the blocks of a ``.rs`` file: one object type per ``object/<type_key>`` block, the
``use`` lines in ``import-section``, and the scaffold and module tree of ``--init``.

An object type is bound as a pair: ``<Name>Obj``, the ``#[repr(C)]`` object that embeds its
parent's object as ``base``, and ``<Name>``, the reference-counted handle that dereferences
to it.  A type whose registered bytes are fully explained is mirrored by value (``mirror.py``:
``pub`` fields, size asserts, allocators); any other reads each field through the C ABI field
getter (``FieldGetter``), which needs no knowledge of the object's byte layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from .. import consts as C
from .. import layout
from ..lib_state import object_info_from_type_key
from ..utils import ObjectInfo
from .mirror import Mirror
from .utils import RustImports, render_rust_type, rust_ident, _to_path

_GETTERS = "Fields are read through the C ABI getters."
#: scalar field types: an optional one is mirrored only as the 16-byte `Optional<T>` cell
_SCALARS = frozenset({"int", "float", "bool"})


def builtin_mirror_name(type_key: str) -> str:
    """``ffi.IntEnum`` -> ``FfiIntEnumObj``: the stand-in a file defines for a builtin."""
    return "".join(p[:1].upper() + p[1:] for p in type_key.split(".")) + "Obj"


def _is_builtin(type_key: str, ty_map: dict) -> bool:
    """A type of the ``tvm_ffi`` crate's own registry that no file binds (``ffi.Object`` is
    the crate's header itself)."""
    return type_key.startswith("ffi.") and type_key != "ffi.Object" and type_key not in ty_map


def _module_of_key(type_key: str) -> tuple:
    return ("crate", *type_key.split(".")[:-1])


class _Namer:
    """Spells the Rust names one object block refers to, collecting imports and the type
    keys it needs but the run does not provide."""

    def __init__(self, info: Any, ty_map: dict, imports: RustImports,
                 declared: Mapping) -> None:
        self.ty_map = ty_map
        self.imports = imports
        self.declared = declared
        self.leaf = info.type_key.rpartition(".")[2]
        self.module = tuple(declared[info.type_key]) if info.type_key in declared \
            else _module_of_key(info.type_key)
        self.taken = frozenset({self.leaf, self.leaf + "Obj"})
        self.missing: list = []

    def spell(self, path: str) -> str:
        """A path as this block writes it: a bare name in the block's own module, else
        imported (or spelled in full where the leaf is taken)."""
        path = _to_path(path)
        module, _, leaf = path.rpartition("::")
        if module and tuple(module.split("::")) == self.module and leaf not in self.taken:
            return leaf
        return self.imports.record(path, self.taken)

    def key_path(self, type_key: str) -> Optional[str]:
        """The Rust path of the handle of ``type_key``; None (and noted) when unprovided."""
        if type_key in self.ty_map:
            return _to_path(self.ty_map[type_key])
        if type_key in self.declared:
            return "::".join((*self.declared[type_key], type_key.rpartition(".")[2]))
        if type_key not in self.missing:
            self.missing.append(type_key)
        return None

    def ty_render(self, origin: str, type_key: Optional[str]) -> Optional[str]:
        key = type_key if type_key in self.ty_map else origin
        if key in self.ty_map:
            return self.spell(self.ty_map[key])
        key = type_key or origin
        if "." not in key or key.startswith(("ffi.", "ctypes.")):
            return None  # no mirror in the crate: read as `Any`
        path = self.key_path(key)
        return self.spell(path) if path is not None else key


def _has_native_mirror(namer: "_Namer", field: Any) -> bool:
    """Whether the crate has a by-value Rust type for ``field``'s bytes."""
    if field.origin == "Optional":
        inner = (field.args or (None,))[0]
        if inner is None or inner.origin in ("Any", "Optional"):
            return False
        if inner.origin in _SCALARS and field.size is not None and field.size != 16:
            return False
    return render_rust_type(field, namer.ty_render) is not None


def _chain_infos(info: Any) -> dict:
    """``info`` and its ancestors by type key; an ancestor the registry does not know reads
    as a type without metadata of its own."""
    infos = {info.type_key: info}
    for key in info.ancestors:
        try:
            infos[key] = object_info_from_type_key(key)
        except KeyError:
            infos[key] = ObjectInfo(fields=[], methods=[], type_key=key)
    return infos


def _classify(namer: "_Namer", info: Any) -> tuple:
    """(verdict, infos by type key) of ``info`` and its chain: complete when the byte facts
    explain every byte, each field has a mirror, and no ``opaque`` directive vetoes it or an
    ancestor."""
    scratch = _Namer(info, namer.ty_map, RustImports(), namer.declared)  # records nothing
    infos = _chain_infos(info)
    builtin = {k for k in info.ancestors if k.startswith("ffi.") and k != "ffi.Object"}
    verdicts = layout.classify(infos, unmirrored=builtin,
                               forced_opaque=namer.imports.directives.opaque,
                               field_renderable=lambda f: _has_native_mirror(scratch, f))
    return verdicts[info.type_key], infos


def _opaque_doc(namer: "_Namer", info: Any, verdict: Any) -> str:
    """The doc line saying why the binding reads its fields through the getters."""
    if info.total_size is None:  # the type's own gap is named before its parent's
        why = "no metadata of its own: total_size is unknown"
    elif verdict.reason == "uncovered-bytes":
        why = "bytes %s of %s are not accounted for by reflected fields" % (
            ", ".join(str(r) for r in verdict.uncovered), verdict.own_bytes)
    elif verdict.reason == "unrenderable-field":
        bad = next(f for f in info.fields if not _has_native_mirror(namer, f))
        why = "field '%s' (%s) has no native mirror" % (bad.name, bad)
    elif verdict.reason == "by-directive":
        why = "vetoed by directive although the layout is reproducible"
    else:
        why = verdict.detail
    return "/// Opaque: %s. %s" % (why, _GETTERS)


def _field_type(namer: _Namer, info: Any, field: Any) -> str:
    """The Rust type a field reads as: a ``field``/``enum`` directive's, else its schema's
    (``Any`` without a mirror); ``nullable`` wraps it in ``Option`` once."""
    directives = namer.imports.directives
    key = "%s.%s" % (info.type_key, field.name)
    if key in directives.enums:
        ty = directives.enums[key].name
    elif key in directives.field_types:
        ty = namer.spell(directives.field_types[key])
    else:
        ty = render_rust_type(field, namer.ty_render) or namer.spell("tvm_ffi::Any")
    if key in directives.nullable and not ty.startswith("Option<"):
        ty = "Option<%s>" % ty
    return ty


def _getter(namer: _Namer, info: Any, field: Any) -> list:
    ty = _field_type(namer, info, field)
    getter = '%s::new(Self::type_index(), "%s")?' % (namer.spell("tvm_ffi::FieldGetter"),
                                                     field.name)
    ident = rust_ident(field.name)
    lines = ["    #[allow(non_snake_case)]"] if ident != ident.lower() else []
    lines.append("    pub fn %s(&self) -> %s<%s> {" % (ident, namer.spell("tvm_ffi::Result"), ty))
    if "%s.%s" % (info.type_key, field.name) in namer.imports.directives.enums:
        # the getter reads the registered integer and narrows it to the enum's repr
        lines += ["        let raw: i64 = %s.get(self)?;" % getter,
                  "        %s::try_from(raw)" % ty]
    else:
        read = "get_any" if ty == namer.spell("tvm_ffi::Any") else "get"
        lines.append("        %s.%s(self)" % (getter, read))
    return lines + ["    }"]


def _enum_definition(namer: _Namer, spec: Any) -> list:
    """A newtype over the enum's integer with one constant per variant; converting from the
    registered ``i64`` fails with a ValueError when the value does not fit."""
    name, repr_ = spec.name, spec.repr
    error, value_error = namer.spell("tvm_ffi::Error"), namer.spell("tvm_ffi::VALUE_ERROR")
    result = namer.spell("tvm_ffi::Result")
    lines = ["#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]", "#[repr(transparent)]",
             "pub struct %s(%s);" % (name, repr_), "",
             "#[allow(non_upper_case_globals)]", "impl %s {" % name]
    lines += ["    pub const %s: Self = Self(%d);" % v for v in spec.variants]
    lines += [
        "    pub const fn from_raw(value: %s) -> Self {" % repr_, "        Self(value)", "    }",
        "    pub const fn as_raw(self) -> %s {" % repr_, "        self.0", "    }", "}", "",
        "impl TryFrom<i64> for %s {" % name,
        "    type Error = %s;" % error,
        "    fn try_from(value: i64) -> %s<Self> {" % result,
        "        %s::try_from(value).map(Self).map_err(|_| {" % repr_,
        '            %s::new(%s, &format!("%s value {value} does not fit %s"), "")'
        % (error, value_error, name, repr_),
        "        })", "    }", "}", "",
    ]
    return lines


def _deref(owner: str, target: str, deref: str) -> list:
    return [
        "impl %s for %s {" % (deref, owner),
        "    type Target = %s;" % target,
        "    fn deref(&self) -> &%s {" % target,
        "        &self.base",
        "    }",
        "}",
    ]


def generate_rust_object(block: Any, ty_map: dict, imports: RustImports, opts: Any,
                         info: Any, declared: Mapping) -> None:
    """Fill ``block`` with the binding of ``info``; ValueError when a type it refers to is
    neither mapped (``ty-map``) nor given a block in this run."""
    namer = _Namer(info, ty_map, imports, declared)
    leaf, obj = namer.leaf, namer.leaf + "Obj"
    parent = info.parent_type_key
    if parent in (None, "ffi.Object"):
        base, parent_obj = namer.spell("tvm_ffi::Object"), None
    elif _is_builtin(parent, ty_map):
        # embedded through header-only stand-ins, one per builtin ancestor, so the derived
        # ancestor depth matches the registry's; they have nothing to dereference to
        below = namer.spell("tvm_ffi::Object")
        for key in info.ancestors:
            if _is_builtin(key, ty_map):
                imports.builtin_mirrors.setdefault(key, below)
                below = builtin_mirror_name(key)
        base, parent_obj = builtin_mirror_name(parent), None
    else:
        path = namer.key_path(parent)
        parent_obj = namer.spell(path + "Obj") if path is not None else parent
        base = parent_obj
    upcasts = []
    for key in info.ancestors:
        if key == "ffi.Object" or _is_builtin(key, ty_map):
            continue
        path = namer.key_path(key)
        upcasts.append("%s => %s" % (leaf, namer.spell(path) if path else key))
    for target in imports.directives.upcasts.get(info.type_key, ()):
        upcasts.append("%s => %s" % (leaf, namer.spell(target)))
    verdict, infos = _classify(namer, info)
    mirror = getters = None
    if verdict.is_complete:
        chain = [infos[k] for k in info.ancestors if k != "ffi.Object"] + [info]
        mirror = Mirror(namer, chain, verdict)
    else:
        getters = [_getter(namer, info, f) for f in info.fields]
    enums = [_enum_definition(namer, spec) for key, spec in imports.directives.enums.items()
             if key.rpartition(".")[0] == info.type_key]
    if namer.missing:
        raise ValueError("`%s` (line %d) depends on %s, which this run does not ask for: "
                         "give each a block or name its binding with `ty-map`"
                         % (info.type_key, block.lineno_start,
                            ", ".join("`%s`" % k for k in sorted(namer.missing))))
    deref = namer.spell("std::ops::Deref")
    body = [line for lines in enums for line in lines]
    if mirror is not None:
        body += [mirror.doc()] + mirror.lint_allow()
    else:
        body.append(_opaque_doc(namer, info, verdict))
    body += ["#[repr(C)]", "#[derive(tvm_ffi::derive::Object)]",
            '#[type_key = "%s"]' % info.type_key]
    if info.is_final:
        body.append("#[type_final]")
    body += ["pub struct %s {" % obj, "    base: %s," % base]
    body += (mirror.fields() if mirror is not None else []) + ["}", ""]
    if mirror is not None:
        body += mirror.asserts(obj) + [""]
    body += ["#[repr(C)]", "#[derive(tvm_ffi::derive::ObjectRef, Clone)]",
             "pub struct %s {" % leaf,
             "    base: %s<%s>," % (namer.spell("tvm_ffi::ObjectArc"), obj), "}", ""]
    body += _deref(leaf, obj, deref)
    if parent_obj is not None:
        body += [""] + _deref(obj, parent_obj, deref)
    if getters:  # None for a mirror, whose fields are public
        namer.spell("tvm_ffi::ObjectCore")  # provides `Self::type_index()`
        body += ["", "impl %s {" % obj]
        for i, lines in enumerate(getters):
            body += ([""] if i else []) + lines
        body.append("}")
    if mirror is not None:
        body += [""] + mirror.allocators(leaf, obj, parent_obj)
        # a hand-written (`ty-map`) ancestor may lack what a Rust subtype's copy and
        # partial drop build on
        if not info.is_final and not any(k in ty_map for k in info.ancestors
                                         if k != "ffi.Object"):
            body += [""] + mirror.subtyping(obj)
    if upcasts:
        body += ["", "tvm_ffi::impl_object_upcast!(%s);" % ", ".join(upcasts)]
    block.lines[1:-1] = body


def generate_rust_import_section(block: Any, imports: RustImports, opts: Any,
                                 defined_types: frozenset = frozenset()) -> None:
    """Fill ``block`` with the file's ``use`` lines, sorted, less the types it defines."""
    lines = sorted({item.as_use_line() for item in imports.items
                    if item.path not in defined_types and item.as_use_line()})
    for key, base in imports.builtin_mirrors.items():
        lines += ["", "/// Header-only stand-in for the builtin `%s`; it only carries the "
                  "ancestor depth." % key, "#[allow(dead_code)]", "#[repr(C)]",
                  "#[derive(tvm_ffi::derive::Object)]", '#[type_key = "%s"]' % key,
                  "struct %s {" % builtin_mirror_name(key), "    base: %s," % base, "}"]
    block.lines[1:-1] = lines


def generate_rust_api_file(code_blocks: list, global_funcs: dict, namespace: str,
                           objects: list, init_cfg: Any, is_root: bool,
                           syntax: C.Syntax) -> str:
    """The ``mod.rs`` of one namespace for ``--init``; with ``code_blocks`` (the file as it
    is), only the blocks it lacks."""
    have = {(b.kind, b.param) for b in code_blocks}
    have |= {("object", b.param[1].strip()) for b in code_blocks
             if b.kind == "directive" and b.param[0] == "skip"}
    out = []
    if not code_blocks:
        out += ["#![allow(dead_code, unused_imports)]", "",
                "//! FFI bindings for `%s` (generated by tvm-ffi-stubgen)." % namespace, ""]
    if ("import-section", "") not in have:
        out += ["%s import-section" % syntax.begin, syntax.end, ""]
    for info in objects:
        if ("object", info.type_key) not in have:
            out += ["%s object/%s" % (syntax.begin, info.type_key), syntax.end, ""]
    return "\n".join(out) + "\n" if out else ""


def finalize_rust_module_tree(root: Path, namespaces: Any) -> None:
    """Declare each namespace (``a.b`` -> ``a/b``) in its parent's ``mod.rs`` (creating the
    files that do not exist), so the generated tree is reachable from ``root/mod.rs``."""
    children: dict = {}
    for ns in namespaces:
        parts = ns.split(".")
        for i in range(len(parts)):
            children.setdefault(tuple(parts[:i]), set()).add(parts[i])
    for parent, names in sorted(children.items()):
        directory = Path(root, *parent)
        directory.mkdir(parents=True, exist_ok=True)
        mod_rs = directory / "mod.rs"
        text = mod_rs.read_text(encoding="utf-8") if mod_rs.exists() else ""
        have = set(text.splitlines())
        new = ["pub mod %s;" % rust_ident(n) for n in sorted(names)]
        new = [line for line in new if line not in have]
        if new:
            if text and not text.endswith("\n"):
                text += "\n"
            mod_rs.write_text(text + "\n".join(new) + "\n", encoding="utf-8")
