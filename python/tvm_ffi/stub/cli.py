"""``tvm-ffi-stubgen`` / ``python -m tvm_ffi.stub.cli``: refresh stub blocks from reflection.

Normal mode rewrites the marker blocks (see ``tvm_ffi.stub``) of the given files and
directories in place.  ``--init-pypkg/--init-lib/--init-prefix`` first create, under the first
PATH (default ``.``), a package directory per namespace below the prefix with an
``_ffi_api.py`` (loads the library, binds the globals and object types) and an ``__init__.py``
(re-exports it) when they are missing, then fill their blocks.

Exit status: 0 done (or up to date), 1 error or (``--check``) stale files, 2 bad options or
a file (or ``prefix`` directive) that could not be processed.
"""

import argparse
import ctypes
import importlib
import os
import sys
from pathlib import Path

from . import consts as C
from . import layout, lib_state
from .file_utils import CodeBlock, collect_files, module_name
from .generator import generator_names, get_generator
from .lib_state import (
    collect_global_funcs,
    collect_type_keys,
    object_info_from_type_key,
    toposort_objects,
)
from .utils import InitConfig, Options

_DESCRIPTION = """Generate Python type stubs for TVM FFI global functions and object types from
runtime reflection.  Blocks between `# tvm-ffi-stubgen(begin): <kind>` and
`# tvm-ffi-stubgen(end)` are regenerated; everything else is left alone."""


def _split(arg):
    return [x.strip() for x in (arg or "").split(";") if x.strip()]


def _parser():
    p = argparse.ArgumentParser(prog="tvm-ffi-stubgen", description=_DESCRIPTION)
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or directories to process (directories recursively, .py/.pyi)")
    p.add_argument("--imports", default="", help="modules to import first, ';'-separated (e.g. 'pkg;pkg.sub')")
    p.add_argument("--dlls", default="", metavar="LIBS",
                   help="shared libraries to load first (RTLD_GLOBAL), ';'-separated")
    p.add_argument("--init-pypkg", default="",
                   help="pip distribution name the generated package loads its library from")
    p.add_argument("--init-lib", default="", help="library (CMake target) name, e.g. my_ext for libmy_ext.so")
    p.add_argument("--init-prefix", default="", help="global function / type key prefix, e.g. my_ext.")
    p.add_argument("--indent", type=int, default=4, help="indentation step inside generated blocks (default 4)")
    p.add_argument("--target", default="python", choices=generator_names(),
                   help="stub language (%s)" % ", ".join(generator_names()))
    p.add_argument("--verbose", action="store_true", help="print a unified diff of every change")
    p.add_argument("--dry-run", action="store_true", help="do not write files")
    p.add_argument("--check", action="store_true",
                   help="do not write; list stale files and exit 1 if there are any")
    p.add_argument("--coverage-out", default="", metavar="FILE",
                   help="write a JSON report of which object types' native layout reflection "
                        "explains completely (see tvm_ffi.stub.layout); PATHs become optional")
    return p


def _load_dlls(names):
    for name in names:
        candidates = [name]
        if not os.path.splitext(name)[1]:
            base = os.path.basename(name)
            stem = name if base.startswith("lib") else os.path.join(os.path.dirname(name), "lib" + base)
            candidates += [stem + ".so", stem + ".dylib", name + ".dll"]
        errors = []
        for c in candidates:
            try:
                ctypes.CDLL(c, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError as e:
                errors.append(str(e))
        else:
            raise RuntimeError("cannot load library %s: %s" % (name, "; ".join(errors)))


def _stage_1(file_info, ty_map):
    """Stage 1: gather the file's ``ty-map`` directives into ``ty_map`` (type key -> dotted
    Python name), and map the type of each ``object/`` block to the class around it."""
    from .python_generator import owner_classes  # noqa: PLC0415 - generators load on demand

    for block in file_info.code_blocks:
        if block.kind == "directive" and block.param[0] == "ty-map":
            src, arrow, dst = block.param[1].partition("->")
            if not arrow or not src.strip() or not dst.strip():
                raise ValueError("line %d: ty-map needs `<type key> -> <python name>`, got %r"
                                 % (block.lineno_start, block.param[1]))
            ty_map[src.strip()] = dst.strip()
    module = module_name(file_info.path)
    for block in file_info.code_blocks:
        owner = owner_classes(file_info).get(id(block)) if block.kind == "object" else None
        if owner:
            ty_map.setdefault(block.param, "%s.%s" % (module, owner))


def _stage_2(files, ty_map, init_cfg, init_path, global_funcs, generator, created=None):
    """Stage 2 (``--init-*``): create or complete a package directory per namespace under
    the prefix (the prefix's own namespace is the root that loads the library); returns the
    directories, whose files stage 3 then fills.  ``files``: the other files of the run;
    ``created`` (a list) receives the paths written."""
    prefix = init_cfg.prefix.rstrip(".")

    def under(ns):
        return ns == prefix or ns.startswith(prefix + ".")

    type_keys = collect_type_keys()
    namespaces = {ns for ns in global_funcs if under(ns)} | {ns for ns in type_keys if under(ns)}
    if not namespaces:
        raise ValueError("nothing is registered under the prefix `%s.` (load the library with "
                         "--dlls or --imports)" % prefix)
    namespaces.add(prefix)
    dirs = []
    for ns in sorted(namespaces):
        objects = toposort_objects([object_info_from_type_key(k) for k in type_keys.get(ns, ())])
        global_funcs.setdefault(ns, [])
        written = generator.init_namespace(init_path, ns, objects, ty_map, init_cfg, ns == prefix)
        if created is not None:
            created.extend(written)
        dirs.append(Path(init_path, *ns.split(".")))
    return dirs


def _stage_3(file_info, opts, ty_map, global_funcs, generator, declared=None):
    """Stage 3: fill the file's blocks with ``generator`` and write it back (not with
    ``--dry-run``/``--check``); whether it changed.  Directives the pipeline owns are
    skipped; others must be declared by the generator."""
    imports = generator.new_imports()
    for block in file_info.code_blocks:
        if block.kind != "directive":
            continue
        name, payload = block.param
        if name in C.PIPELINE_DIRECTIVE_KINDS:
            continue
        if name not in generator.directive_kinds:
            raise ValueError("Unknown directive `%s` at line %d" % (name, block.lineno_start))
        generator.add_directive(imports, name, payload, block.lineno_start)
    generator.generate(file_info, imports, opts, ty_map, global_funcs, declared)
    return file_info.update(verbose=opts.verbose or opts.check,
                            dry_run=opts.dry_run or opts.check)


def _directives(file_info, name):
    """(payload, line) of every ``name`` directive of the file."""
    return [(b.param[1].strip(), b.lineno_start) for b in file_info.code_blocks
            if b.kind == "directive" and b.param[0] == name]


def _roll_out_prefixes(files, generator, out=None, err=None):
    """Give each file with a ``prefix <ns>`` directive a block for every registered type of
    namespace ``<ns>`` (exactly that namespace, parents first, less its ``skip`` keys), an
    import section after the directive when it has none, and drop its blocks of types no
    longer registered.  ``ffi`` types belong to the runtime's crate and are never rolled out.
    Returns the number of errors (a namespace claimed by two files)."""
    out, err = out or sys.stdout, err or sys.stderr

    owners, errors = {}, 0
    type_keys = None
    for f in files:
        for ns, lineno in _directives(f, "prefix"):
            ns = ns.rstrip(".")
            if ns in owners:
                print("tvm-ffi-stubgen: error: %s: prefix `%s` (line %d) is already rolled out "
                      "by %s" % (f.path, ns, lineno, owners[ns]), file=err)
                errors += 1
                continue
            owners[ns] = f.path
            if ns == "ffi" or ns.startswith("ffi."):
                continue
            if type_keys is None:
                type_keys = collect_type_keys()
            registered = set(type_keys.get(ns, ()))
            skipped = {key for key, _ in _directives(f, "skip")}
            blocks = f.code_blocks
            for b in [b for b in blocks if b.kind == "object"
                      and b.param.rpartition(".")[0] == ns and b.param not in registered]:
                print("[Removed] %s: `object/%s` (line %d): the type is no longer registered"
                      % (f.path, b.param, b.lineno_start), file=out)
                blocks.remove(b)
            syntax = f.syntax
            if not any(b.kind == "import-section" for b in blocks):
                at = next(i for i, b in enumerate(blocks)
                          if b.kind == "directive" and b.param[0] == "prefix") + 1
                blocks.insert(at, CodeBlock("import-section", "", 0, 0,
                                            ["%s import-section" % syntax.begin, syntax.end]))
            have = {b.param for b in blocks if b.kind == "object"}
            wanted = [info.type_key for info in toposort_objects(
                sorted(registered - skipped - have))]
            at = max(i for i, b in enumerate(blocks)
                     if b.kind in ("object", "import-section")) + 1
            for key in wanted:
                blocks[at:at] = [CodeBlock(None, "", 0, 0, [""]),
                                 CodeBlock("object", key, 0, 0,
                                           ["%s object/%s" % (syntax.begin, key), syntax.end])]
                at += 2
    return errors


def _write_coverage(path):
    """The layout report of every registered object type."""
    infos = {key: lib_state.object_info_from_type_key(key)
             for keys in lib_state.collect_type_keys().values() for key in keys}
    layout.write_coverage_report(path, layout.classify(infos))


def _file_error(path, err):
    return "%s: %s" % (path, err) if not str(err).startswith(str(path)) else str(err)


def run(opts, out=None, err=None):
    """Process according to parsed options; returns the exit status."""
    out, err = out or sys.stdout, err or sys.stderr  # as they are now (tests capture them)
    generator = get_generator(opts.target)
    options = Options(indent=opts.indent, verbose=opts.verbose, dry_run=opts.dry_run,
                      check=opts.check)
    paths = list(opts.paths)
    ty_map = generator.default_ty_map()
    global_funcs = collect_global_funcs()
    try:
        if opts.init_pypkg or opts.init_lib or opts.init_prefix:
            root = paths[0] if paths else "."
            init_cfg = InitConfig(opts.init_pypkg, opts.init_lib, opts.init_prefix)
            created = []
            paths = _stage_2([], ty_map, init_cfg, root, global_funcs, generator,
                             created) + paths[1:]
            for path in created:
                print("created %s" % path, file=out)
        if opts.coverage_out:
            _write_coverage(opts.coverage_out)
            print("wrote %s" % opts.coverage_out, file=out)
            if not paths:
                return 0
        files = collect_files(paths, generator.source_exts)
        for f in files:
            try:
                _stage_1(f, ty_map)
            except ValueError as e:
                raise ValueError(_file_error(f.path, e)) from None
    except ValueError as e:  # a file that does not parse, a bad ty-map, an empty prefix
        print("tvm-ffi-stubgen: error: %s" % e, file=err)
        return 2
    if _roll_out_prefixes(files, generator, out, err):
        return 2
    stale = failed = 0
    declared = generator.declared_types(files)
    for f in files:
        try:
            changed = _stage_3(f, options, ty_map, global_funcs, generator, declared)
        except ValueError as e:
            print("tvm-ffi-stubgen: error: %s" % _file_error(f.path, e), file=err)
            failed += 1
            continue
        if not changed:
            continue
        stale += 1
        verb = "[Stale]" if opts.check else "would update" if opts.dry_run else "updated"
        print("%s %s" % (verb, f.path), file=out)
    return 2 if failed else 1 if opts.check and stale else 0


def main(argv=None):
    p = _parser()
    opts = p.parse_args(argv)
    init = [opts.init_pypkg, opts.init_lib, opts.init_prefix]
    if any(init) and not all(init):
        p.error("--init-pypkg, --init-lib and --init-prefix must be given together (none empty)")
    if any(init) and opts.check:
        p.error("--check cannot be combined with --init-*")
    if opts.indent < 0:
        p.error("--indent must be >= 0")
    if not (opts.paths or any(init) or opts.coverage_out):
        p.error("nothing to do: give files or directories (see --help)")
    try:
        import tvm_ffi  # noqa: F401, PLC0415 - loads the runtime (and the testing library)

        _load_dlls(_split(opts.dlls))
        for m in _split(opts.imports):
            importlib.import_module(m)
        return run(opts)
    except (ImportError, RuntimeError, OSError) as e:
        print("tvm-ffi-stubgen: error: %s" % e, file=sys.stderr)
        return 1


def __main__():  # console-script entry point (tvm-ffi-stubgen); the wrapper exits with it
    return main()


if __name__ == "__main__":
    sys.exit(main())
