"""Text of the generated Python blocks and of the files ``--init-*`` creates.

The ``render_*`` functions take ``ty_map``: a callable from a schema origin to the name an
annotation writes (the ``generate_*`` functions build one from a ty-map dict that also
records the imports the names need).
"""

from __future__ import annotations

import keyword
from typing import Any, Callable, Optional

from .. import consts as C
from ..file_utils import CodeBlock
from ..utils import FuncInfo, InitConfig, ObjectInfo, Options
from . import consts as PC
from .utils import ImportItem, add_import

TyMap = Callable[[str], str]
FMT_OFF, FMT_ON = "# fmt: off", "# fmt: on"


def is_python_name(text: str) -> bool:
    """Names a stub can declare (others stay reachable through ``getattr`` only)."""
    return text.isidentifier() and not keyword.iskeyword(text)


def short_name(dotted: str) -> str:
    return dotted.rpartition(".")[2]


# ---- annotations


class TypeNamer:
    """Maps origins through a ty-map dict, recording a type-checking import per dotted name.

    ``output`` names produced values, ``input`` accepted ones (``TY_MAP_INPUT_DEFAULTS``
    first).  A name that would shadow one of ``reserved`` (the file's functions) is imported
    under ``_<name>``.  Origins outside the dict that are type keys resolve through
    ``resolve`` (registered Python class), else stay as written.
    """

    def __init__(self, ty_map: dict, imports: list, reserved: frozenset = frozenset(),
                 resolve: Optional[Callable[[str], Optional[str]]] = None) -> None:
        self.ty_map, self.imports, self.reserved = ty_map, imports, reserved
        self.resolve = resolve

    def _name(self, dotted: str) -> str:
        if "." not in dotted:
            return dotted
        short = short_name(dotted)
        alias = "_" + short if short in self.reserved else None
        add_import(self.imports, ImportItem(dotted, type_checking_only=True, alias=alias))
        return alias or short

    def _lookup(self, origin: str, table: dict) -> str:
        if origin == "Callable":  # `Callable[..., Any]` writes Any without asking for it
            self._name(self.ty_map.get("Any", "typing.Any"))
        if origin in table:
            return self._name(table[origin])
        if origin in self.ty_map:
            return self._name(self.ty_map[origin])
        if origin in ("Union", "Optional"):
            return origin  # written as `A | B`, never by name
        resolved = self.resolve(origin) if self.resolve and "." in origin else None
        return self._name(resolved or origin)

    def output(self, origin: str) -> str:
        return self._lookup(origin, {})

    def input(self, origin: str) -> str:
        return self._lookup(origin, PC.TY_MAP_INPUT_DEFAULTS)


def _params(func: FuncInfo, ty_map: TyMap, input_ty_map: Optional[TyMap],
            as_constructor: bool = False) -> tuple:
    """(parameter texts, return text) of a function; the packed form is ``*args: Any``."""
    schema = func.schema
    if schema.origin != "Callable":
        raise ValueError("`%s` is not a function: its schema is %s" % (schema.name, schema.repr()))
    named = schema.named_args or {}
    if "return" not in named:
        any_ = ty_map("Any")
        return ["*args: " + any_], any_
    ret = named["return"][0].repr(ty_map)
    if "params" not in named:
        return ["*args: " + ty_map("Any")], ret
    params = list(named["params"])
    first = 0
    if func.is_member and not as_constructor:  # reflection lists the object itself first
        params, first = params[1:], 1
    in_map = input_ty_map or ty_map
    out = ["_%d: %s" % (first + i, p.input_repr(in_map)) for i, p in enumerate(params)]
    return (out + ["/"] if out else out), ret


def render_func_signature(func: FuncInfo, ty_map: TyMap, indent: int,
                          input_ty_map: Optional[TyMap] = None) -> str:
    """``def <name>(<params>) -> <ret>: ...`` of a function or method (``self`` first for a
    member); ValueError when the schema is not a function's."""
    params, ret = _params(func, ty_map, input_ty_map)
    if func.is_member:
        params = ["self"] + (params or ["/"])
    return "%sdef %s(%s) -> %s: ..." % (" " * indent, short_name(func.schema.name),
                                        ", ".join(params), ret)


def render_object_fields(info: ObjectInfo, ty_map: TyMap, indent: int) -> list:
    """``<name>: <annotation>`` of the type's own fields."""
    return ["%s%s: %s" % (" " * indent, f.name, f.repr(ty_map))
            for f in info.fields if is_python_name(f.name)]


def render_object_methods(info: ObjectInfo, ty_map: TyMap, indent: int,
                          input_ty_map: Optional[TyMap] = None) -> list:
    """Method stubs grouped by name (first appearance order); a name defined more than once
    gets ``@overload`` on each; ``__ffi_*`` hooks are left to the init renderers."""
    groups: dict = {}
    for m in info.methods:
        name = short_name(m.schema.name)
        if name.startswith("__ffi_") or not is_python_name(name):
            continue
        groups.setdefault(name, []).append(m)
    pad, out = " " * indent, []
    for methods in groups.values():
        for m in methods:
            if len(methods) > 1:
                out.append(pad + "@overload")
            if not m.is_member:
                out.append(pad + "@staticmethod")
            out.append(render_func_signature(m, ty_map, indent, input_ty_map))
    return out


def _init_params(info: ObjectInfo, ty_map: TyMap, input_ty_map: Optional[TyMap]) -> Optional[list]:
    """Constructor parameters: from an ``__ffi_init__`` method (field names when it takes
    exactly the init fields), else from the reflection-built constructor; None if neither."""
    in_map = input_ty_map or ty_map
    fields = [f for f in info.init_fields if is_python_name(f.name)]
    init = next((m for m in info.methods if short_name(m.schema.name) == "__ffi_init__"), None)
    if init is not None:
        params, _ = _params(init, ty_map, input_ty_map, as_constructor=True)
        anns = [p.input_repr(in_map) for p in (init.schema.named_args or {}).get("params", ())]
        if anns and len(anns) == len(fields) and \
                anns == [f.schema.input_repr(in_map) for f in fields]:
            return ["%s: %s" % (f.name, a) for f, a in zip(fields, anns)]
        return params
    if not info.has_init:
        return None
    required, optional, kw_only = [], [], []
    for f in fields:
        text = "%s: %s" % (f.name, f.schema.input_repr(in_map))
        if f.kw_only:
            kw_only.append(text + (" = ..." if f.has_default else ""))
        else:
            (optional if f.has_default else required).append(text + (" = ..." if f.has_default else ""))
    return required + optional + (["*"] + kw_only if kw_only else [])


def _render_init(name: str, info: ObjectInfo, ty_map: TyMap, indent: int,
                 input_ty_map: Optional[TyMap]) -> list:
    params = _init_params(info, ty_map, input_ty_map)
    if params is None:
        return []
    return ["%sdef %s(%s) -> None: ..." % (" " * indent, name, ", ".join(["self"] + params))]


def render_object_init(info: ObjectInfo, ty_map: TyMap, indent: int,
                       input_ty_map: Optional[TyMap] = None) -> list:
    """``def __init__`` of a constructible type ([] otherwise)."""
    return _render_init("__init__", info, ty_map, indent, input_ty_map)


def render_object_ffi_init(info: ObjectInfo, ty_map: TyMap, indent: int,
                           input_ty_map: Optional[TyMap] = None) -> list:
    """``def __ffi_init__`` (the raw initializer) of a constructible type ([] otherwise)."""
    return _render_init("__ffi_init__", info, ty_map, indent, input_ty_map)


# ---- blocks


def _wrap(code: CodeBlock, body: list, nested: list, opt: Options) -> None:
    """Replace the block's body: ``body`` at the block's indentation, ``nested`` under
    ``if TYPE_CHECKING:``, all between formatter fences."""
    pad, step = " " * code.indent, " " * opt.indent
    lines = [pad + FMT_OFF] + [pad + line for line in body]
    if nested:
        lines.append(pad + "if TYPE_CHECKING:")
        lines += [pad + step + line for line in nested]
    lines.append(pad + FMT_ON)
    code.lines = [code.lines[0], *lines, code.lines[-1]]


def generate_python_global_funcs(code: CodeBlock, funcs: list, ty_map: dict, imports: list,
                                 opt: Options, resolve: Any = None) -> None:
    """Fill a ``global/<prefix>[@<registry>]`` block: the registration call and a stub per
    function; nothing to do without functions."""
    if not funcs:
        return
    prefix, registry = code.param
    add_import(imports, ImportItem((registry or PC.DEFAULT_REGISTRY) + ".init_ffi_api",
                                   alias=PC.INIT_FUNC_ALIAS))
    add_import(imports, ImportItem("typing.TYPE_CHECKING"))
    names = frozenset(short_name(f.schema.name) for f in funcs)
    namer = TypeNamer(ty_map, imports, reserved=names, resolve=resolve)
    defs = [render_func_signature(f, namer.output, 0, input_ty_map=namer.input)
            for f in funcs if is_python_name(short_name(f.schema.name))]
    _wrap(code, ['%s("%s", __name__)' % (PC.INIT_FUNC_ALIAS, prefix)], defs, opt)


def generate_python_object(code: CodeBlock, ty_map: dict, imports: list, opt: Options,
                           info: ObjectInfo, resolve: Any = None) -> None:
    """Fill an ``object/<type key>`` block: field annotations, then the constructor and
    method stubs under ``if TYPE_CHECKING:``."""
    namer = TypeNamer(ty_map, imports, resolve=resolve)
    body = render_object_fields(info, namer.output, 0)
    defs = render_object_init(info, namer.output, 0, namer.input)
    defs += render_object_ffi_init(info, namer.output, 0, namer.input)
    defs += render_object_methods(info, namer.output, 0, namer.input)
    if info.has_overloaded_methods():
        add_import(imports, ImportItem("typing.overload", type_checking_only=True))
    if defs:
        add_import(imports, ImportItem("typing.TYPE_CHECKING"))
    _wrap(code, body, defs, opt)


def _from_lines(groups: dict) -> list:
    return ["from %s import %s" % (mod, ", ".join(sorted(set(names))))
            for mod, names in sorted(groups.items())]


def generate_python_import_section(code: CodeBlock, imports: list, opt: Options) -> None:
    """Fill an ``import-section`` block with the file's imports (run-time ones, then the
    type-checking-only ones under ``if TYPE_CHECKING:``); nothing to do without imports."""
    if not imports:
        return
    runtime = {i.bound for i in imports if not i.type_checking_only}
    now, later = {}, {}
    for item in imports:
        if item == ImportItem("typing.TYPE_CHECKING"):
            continue
        if item.type_checking_only and item.bound in runtime:
            continue  # already bound at run time
        group = later if item.type_checking_only else now
        group.setdefault(item.mod, []).append(item.clause())
    body = ["# isort: off", "from __future__ import annotations", *_from_lines(now)]
    if later or ImportItem("typing.TYPE_CHECKING") in imports:
        body.append("from typing import TYPE_CHECKING")
    _wrap(code, body, _from_lines(later), opt)
    code.lines.insert(-2, " " * code.indent + "# isort: on")


def _isort_key(name: str) -> tuple:
    """isort's order within ``__all__``: CONSTANTS, then Classes, then functions."""
    if name.isupper():
        return (0, name)
    return (1 if name[:1].isupper() else 2, name)


def generate_python_all(code: CodeBlock, names: set, opt: Options) -> None:
    """Fill an ``__all__`` block with the short names, deduplicated, isort-ordered."""
    short = {short_name(n) for n in names}
    if not short:
        return
    pad = " " * code.indent
    code.lines = [code.lines[0], *('%s"%s",' % (pad, n) for n in sorted(short, key=_isort_key)),
                  code.lines[-1]]


def generate_python_export(code: CodeBlock, opt: Optional[Options] = None) -> None:
    """Fill an ``export/<module>`` block: re-export the sibling module and its ``__all__``."""
    mod = code.param
    if not is_python_name(mod):
        raise ValueError("export/ needs a sibling module name, got `%s`" % mod)
    alias = "_%s__all__" % mod.lstrip("_")
    step = " " * (opt or Options()).indent
    _wrap(code, ["# isort: off", "from .%s import *  # noqa: F403" % mod,
                 "from .%s import __all__ as %s" % (mod, alias),
                 'if "__all__" not in globals():', step + "__all__ = []",
                 "__all__.extend(%s)" % alias, "# isort: on"], [], opt or Options())


def _empty_block(syntax: C.Syntax, spec: str, indent: str = "") -> str:
    return "%s%s %s\n%s%s\n" % (indent, syntax.begin, spec, indent, syntax.end)


def generate_python_init(code_blocks: list, package: str, module: str, syntax: C.Syntax) -> str:
    """Text of a package ``__init__.py`` re-exporting ``module``; "" when ``code_blocks``
    (the existing file's) already export it."""
    if any(b.kind == "export" and b.param == module for b in code_blocks):
        return ""
    return '"""Package %s."""\n\n%s' % (package, _empty_block(syntax, "export/" + module))


def _base_import(parent: str) -> tuple:
    """(directive target, class alias) for a parent type defined outside the file: its
    default Python name, else its registered class, else the type key itself."""
    from . import resolve_registered_class  # noqa: PLC0415 - the package imports this module

    target = PC.TY_MAP_DEFAULTS.get(parent) or resolve_registered_class(parent) or parent
    return target, "_" + parent.replace(".", "_")


def generate_python_ffi_api(code_blocks: list, ty_map: dict, module: str, objects: list,
                            init_cfg: InitConfig, is_root: bool, syntax: C.Syntax) -> str:
    """Text of a namespace's ``_ffi_api.py``: imports, the library load (root package only),
    the global functions, a class per object type, ``__all__``.  With ``code_blocks`` (the
    existing file's) only the classes it lacks are returned, to be appended."""
    have = {b.param for b in code_blocks if b.kind == "object"}
    local = {o.type_key for o in objects}
    directives, classes = set(), []
    for info in objects:
        if info.type_key in have:
            continue
        parent = info.parent_type_key or "ffi.Object"
        if parent in local:
            base = short_name(parent)
        else:
            target, base = _base_import(parent)
            directives.add("%s %s;False;%s\n" % (syntax.import_object, target, base))
        classes.append('\n\n@%s("%s")\nclass %s(%s):\n    """FFI binding for `%s`."""\n\n%s'
                       % (PC.REG_OBJ_ALIAS, info.type_key, short_name(info.type_key), base,
                          info.type_key, _empty_block(syntax, "object/" + info.type_key, "    ")))
    if classes:
        directives.add("%s %s;False;%s\n" % (syntax.import_object, PC.REG_OBJ_TARGET,
                                            PC.REG_OBJ_ALIAS))
    if code_blocks:
        return "".join(sorted(directives) + classes)
    out = ['"""FFI API bindings for `%s`."""\n\n' % module, _empty_block(syntax, "import-section")]
    if is_root:
        out.append("%s %s;False;%s\n" % (syntax.import_object, PC.LOAD_LIB_TARGET, PC.LOAD_LIB_ALIAS))
    out += sorted(directives)
    if is_root:
        out.append('LIB = %s("%s", "%s")\n' % (PC.LOAD_LIB_ALIAS, init_cfg.pkg, init_cfg.shared_target))
    out.append("\n" + _empty_block(syntax, "global/" + module))
    out += classes
    out.append("\n\n__all__ = [\n%s]\n" % _empty_block(syntax, "__all__", "    "))
    return "".join(out)
