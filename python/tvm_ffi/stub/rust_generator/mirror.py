"""The by-value mirror of a complete object type: ``pub`` fields in the registered byte layout,
compile-time size and alignment asserts, the allocators, and for a type Rust may derive from
(not final, every ancestor generated) ``ShallowCopy`` and ``UnsafeInit``.

A type is complete when the registry's byte facts explain all of its bytes (``layout.py``);
only then may Rust own the struct, so every width here comes from those facts: an ``int`` of 4
bytes is an ``i32``, an ``Optional`` of a non-object payload is the 16-byte ``TVMFFIAny`` cell
(``tvm_ffi::Optional<T>``), of an object a nullable reference (``Option<T>``).  A directive
that would change a field's width is an error rather than a struct that does not compile.

Generated code wraps as rustfmt does at 100 columns, so a formatted crate stays unchanged.
"""

from __future__ import annotations

from typing import Any

from .consts import (ANY_CELL_SIZE, EXACT_PARAMS, MAX_WIDTH, POINTER_SIZE, SCALAR_BY_SIZE,
                     SCALAR_WIDTHS)
from .utils import render_rust_type, rust_ident


def _by_offset(info: Any) -> list:
    return sorted(info.fields, key=lambda f: f.offset or 0)


def _check_width(key: str, ty: str, field: Any) -> None:
    width = SCALAR_WIDTHS.get(ty)
    if width is not None and field.size is not None and width != field.size:
        raise ValueError("directive on `%s` maps a %d-byte field to `%s` (%d bytes); the "
                         "mirror would not match the registered layout"
                         % (key, field.size, ty, width))


def _schema_type(namer: Any, field: Any) -> str:
    """The mirror of a field without a directive, sized by its byte facts."""
    if field.origin == "Optional":
        inner = render_rust_type(field.args[0], namer.ty_render)
        if field.size == ANY_CELL_SIZE:
            return "%s<%s>" % (namer.spell("tvm_ffi::Optional"), inner)
        return "Option<%s>" % inner
    ty = render_rust_type(field, namer.ty_render)
    narrow = SCALAR_BY_SIZE.get((field.origin, field.size))
    if narrow is not None and ty == SCALAR_BY_SIZE[(field.origin, 8)]:
        return narrow
    return ty


def _narrowed(namer: Any, key: str, field: Any) -> Any:
    """The type a ``field``/``enum`` directive gives ``key``, width-checked; None without."""
    directives = namer.imports.directives
    if key in directives.enums:
        spec = directives.enums[key]
        _check_width(key, spec.repr, field)
        return spec.name
    if key in directives.field_types:
        ty = namer.spell(directives.field_types[key])
        _check_width(key, ty, field)
        return ty
    return None


def field_mirror(namer: Any, type_key: str, field: Any) -> str:
    """The stored type of ``field`` as ``type_key`` declares it."""
    key = "%s.%s" % (type_key, field.name)
    ty = _narrowed(namer, key, field) or _schema_type(namer, field)
    if key in namer.imports.directives.nullable:
        if field.size != POINTER_SIZE:
            raise ValueError("`nullable` directive on `%s`: the field is %d bytes, not a "
                             "pointer-sized object reference" % (key, field.size))
        if not ty.startswith("Option<"):
            ty = "Option<%s>" % ty
    return ty


def _drop(namer: Any, type_key: str, field: Any) -> Any:
    """How ``UnsafeInit`` drops a field: a ``TVMFFIAny`` cell is valid when all-zero
    (``drop_in_place``), a reference or handle may be undefined (``drop_if_defined``), an
    enum owns nothing (None)."""
    key = "%s.%s" % (type_key, field.name)
    directives = namer.imports.directives
    if key in directives.enums:
        return None
    if key not in directives.field_types and (
            field.origin == "Any" or (field.origin == "Optional" and field.size == ANY_CELL_SIZE)):
        return namer.spell("std::ptr::drop_in_place")
    return namer.spell("tvm_ffi::reflection::drop_if_defined")


def _snake(ident: str) -> bool:
    return ident == ident.lower()


def _call(indent: str, head: str, items: list, tail: str) -> list:
    """``head(items)tail`` on one line when it fits, else one item per line."""
    one = "%s%s(%s)%s" % (indent, head, ", ".join(items), tail)
    if len(one) <= MAX_WIDTH:
        return [one]
    return (["%s%s(" % (indent, head)] + ["%s    %s," % (indent, i) for i in items]
            + ["%s)%s" % (indent, tail)])


def _let(indent: str, name: str, callee: str, args: list) -> list:
    """``let name = callee(args);``: the call moves to the next line first, then splits."""
    call = "%s(%s);" % (callee, ", ".join(args))
    if len("%slet %s = %s" % (indent, name, call)) <= MAX_WIDTH:
        return ["%slet %s = %s" % (indent, name, call)]
    if len(indent) + 4 + len(call) <= MAX_WIDTH:
        return ["%slet %s =" % (indent, name), "%s    %s" % (indent, call)]
    return _call(indent, "let %s = %s" % (name, callee), args, ";")


def _self_literal(indent: str, items: list) -> list:
    one = "%sSelf { %s }" % (indent, ", ".join(items))
    if len(one) <= MAX_WIDTH:
        return [one]
    return [indent + "Self {"] + ["%s    %s," % (indent, i) for i in items] + [indent + "}"]


class Mirror:
    """The complete binding of ``chain[-1]``; ``chain``: its ancestors below ``ffi.Object``
    and itself, each with byte facts."""

    def __init__(self, namer: Any, chain: list, verdict: Any) -> None:
        self.namer, self.chain, self.verdict = namer, chain, verdict
        self.info = chain[-1]
        directives = namer.imports.directives
        #: per chain field: its Rust member name and its type at each level from the type
        #: declaring it down to this one (a ``field``/``enum`` directive narrows it)
        self.params: list = []
        for depth, level in enumerate(chain):
            for field in _by_offset(level):
                types = [field_mirror(namer, level.type_key, field)]
                for below in chain[depth + 1:]:
                    key = "%s.%s" % (below.type_key, field.name)
                    types.append(_narrowed(namer, key, field) or types[-1])
                self.params.append((rust_ident(field.name), types))
        self.own = [(rust_ident(f.name), field_mirror(namer, self.info.type_key, f), f)
                    for f in _by_offset(self.info)]
        self.custom_new = self.info.type_key in directives.custom_new

    def doc(self) -> str:
        v = self.verdict
        padding = (" (alignment padding %s)" % ", ".join(str(r) for r in v.padding)
                   if v.padding else "")
        return "/// Complete: reflected fields fill %s exactly%s." % (v.own_bytes, padding)

    def lint_allow(self) -> list:
        """``non_snake_case`` is allowed on the struct when a member's name is not."""
        return ([] if all(_snake(ident) for ident, _, _ in self.own)
                else ["#[allow(non_snake_case)]"])

    def fields(self) -> list:
        return ["    pub %s: %s," % (ident, ty) for ident, ty, _ in self.own]

    def asserts(self, obj: str) -> list:
        return ["const _: () = {",
                "    assert!(::core::mem::size_of::<%s>() == %d);" % (obj, self.info.total_size),
                "    assert!(::core::mem::align_of::<%s>() == %d);" % (obj, self.verdict.alignment),
                "};"]

    def allocators(self, leaf: str, obj: str, parent_obj: Any) -> list:
        """``<Leaf>Obj::new`` takes each chain field as this type stores it and hands the
        inherited ones to the parent's ``new`` (upcast where a directive narrowed them);
        ``<Leaf>::new`` (``from_fields`` under ``custom-new``) allocates the object."""
        allow = ([] if all(_snake(ident) for ident, _ in self.params)
                 else ["    #[allow(non_snake_case)]"])
        params = ["%s: %s" % (ident, types[-1]) for ident, types in self.params]
        inherited = [(ident, types) for ident, types in self.params if len(types) > 1]
        if parent_obj is None:
            parent_new = _let("        ", "base", self.namer.spell("tvm_ffi::Object") + "::new",
                              [])
        else:
            args = [ident + (".into()" if types[-1] != types[-2] else "")
                    for ident, types in inherited]
            parent_new = _let("        ", "base", parent_obj + "::new", args)
        vis = "pub(crate)" if self.info.is_final else "pub"
        out = ["impl %s {" % obj] + allow
        out += _call("    ", "%s fn new" % vis, params, " -> Self {")
        out += parent_new + _self_literal("        ", ["base"] + [i for i, _, _ in self.own])
        out += ["    }", "}", ""]
        wrapped = [(ident, types[-1] not in EXACT_PARAMS, types[-1])
                   for ident, types in self.params]
        outer = ["%s: %s" % (ident, "impl Into<%s>" % ty if into else ty)
                 for ident, into, ty in wrapped]
        args = [ident + (".into()" if into else "") for ident, into, _ in wrapped]
        arc = self.namer.spell("tvm_ffi::ObjectArc")
        out += ["impl %s {" % leaf, "    /// Lossless complete-field allocation."] + allow
        out += _call("    ", "pub fn %s" % ("from_fields" if self.custom_new else "new"), outer,
                     " -> Self {")
        out += _let("        ", "obj", obj + "::new", args)
        out += ["        Self { base: %s::new(obj) }" % arc, "    }", "}"]
        return out

    def subtyping(self, obj: str) -> list:
        """``ShallowCopy`` and ``UnsafeInit``, which a Rust type deriving from this one needs."""
        spell = self.namer.spell
        shallow, unsafe_init = spell("tvm_ffi::ShallowCopy"), spell("tvm_ffi::UnsafeInit")
        addr = spell("std::ptr::addr_of_mut")
        copies = ["base: %s::shallow_copy(&self.base)" % shallow]
        copies += ["%s: Clone::clone(&self.%s)" % (i, i) for i, _, _ in self.own]
        out = ["impl %s for %s {" % (shallow, obj), "    fn shallow_copy(&self) -> Self {"]
        out += _self_literal("        ", copies) + ["    }", "}", ""]
        out += ["unsafe impl %s for %s {" % (unsafe_init, obj),
                "    unsafe fn drop_defined_fields(this: *mut Self) {", "        unsafe {",
                "            %s::drop_defined_fields(%s!((*this).base));" % (unsafe_init, addr)]
        for ident, _, field in self.own:
            drop = _drop(self.namer, self.info.type_key, field)
            if drop is not None:
                out.append("            %s(%s!((*this).%s));" % (drop, addr, ident))
        return out + ["        }", "    }", "}"]
