"""``tvm-ffi-stubgen`` / ``python -m tvm_ffi.stub.cli``: refresh stub blocks from reflection.

Normal mode rewrites the marker blocks (see ``tvm_ffi.stub``) of the given files and
directories in place.  ``--init-pypkg/--init-lib/--init-prefix`` first create, under the first
PATH (default ``.``), a package directory per namespace below the prefix with an
``_ffi_api.py`` (loads the library, binds the globals and object types) and an ``__init__.py``
(re-exports it) when they are missing, then fill their blocks.

Exit status: 0 done (or up to date), 1 error or (``--check``) stale files, 2 bad options.
"""

import argparse
import ctypes
import difflib
import importlib
import os
import sys

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
    p.add_argument("--init-pypkg", default="", help="pip distribution name the generated package loads its library from")
    p.add_argument("--init-lib", default="", help="library (CMake target) name, e.g. my_ext for libmy_ext.so")
    p.add_argument("--init-prefix", default="", help="global function / type key prefix, e.g. my_ext.")
    p.add_argument("--indent", type=int, default=4, help="indentation step inside generated blocks (default 4)")
    p.add_argument("--target", default="python", choices=["python"], help="stub language (python)")
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


def _init_package(root, pypkg, lib, prefix):
    """Create missing _ffi_api.py / __init__.py for each namespace under prefix; return paths."""
    from . import lib_state  # noqa: PLC0415

    prefix = prefix.rstrip(".")
    under = (lambda ns: ns == prefix or ns.startswith(prefix + "."))
    namespaces = {ns for ns in lib_state.global_namespaces() if under(ns)}
    keys = [k for k in lib_state.type_keys() if under(k.rpartition(".")[0])]
    namespaces |= {k.rpartition(".")[0] for k in keys}
    if not namespaces:
        raise RuntimeError("nothing is registered under the prefix `%s.` (load the library with "
                           "--dlls or --imports)" % prefix)
    created = []
    for ns in sorted(namespaces):
        d = os.path.join(root, *ns.split("."))
        os.makedirs(d, exist_ok=True)
        api = os.path.join(d, "_ffi_api.py")
        if not os.path.exists(api):
            with open(api, "w", encoding="utf-8") as f:
                f.write(_api_template(ns, pypkg, lib, [k for k in keys if k.rpartition(".")[0] == ns],
                                      any(n.rpartition(".")[0] == ns for n in _all_globals())))
            created.append(api)
        init = os.path.join(d, "__init__.py")
        if not os.path.exists(init):
            with open(init, "w", encoding="utf-8") as f:
                f.write('"""Package %s."""\n\n# tvm-ffi-stubgen(begin): export/_ffi_api\n'
                        "# tvm-ffi-stubgen(end)\n" % ns)
            created.append(init)
    return [os.path.join(root, *ns.split(".")) for ns in sorted(namespaces)], created


def _all_globals():
    from ..registry import list_global_func_names  # noqa: PLC0415

    return list_global_func_names()


def _api_template(ns, pypkg, lib, keys, has_globals):
    from . import lib_state  # noqa: PLC0415

    out = ['"""FFI API bindings for `%s`."""\n\n' % ns,
           "# tvm-ffi-stubgen(begin): import-section\n# tvm-ffi-stubgen(end)\n",
           "# tvm-ffi-stubgen(import-object): tvm_ffi.libinfo.load_lib_module;False;_FFI_LOAD_LIB\n",
           "LIB = _FFI_LOAD_LIB(%r, %r)\n" % (pypkg, lib)]
    if has_globals:
        out.append("\n# tvm-ffi-stubgen(begin): global/%s\n# tvm-ffi-stubgen(end)\n" % ns)
    records = {k: lib_state.TypeRecord(k) for k in keys}
    directives, classes = [], []
    # parents before children, so a base defined in this file exists when the child is declared
    for key in sorted(keys, key=lambda k: (len(records[k].ancestors), k)):
        rec, name = records[key], key.rpartition(".")[2]
        parent = rec.parent
        if parent in records:
            base = parent.rpartition(".")[2]
        else:
            cls = lib_state.python_class(parent) if parent else None
            if cls is None or cls.__name__ == "Object":
                base, target = "_ffi_Object", "tvm_ffi.Object"
            else:
                base, target = "_base_" + cls.__name__, "%s.%s" % (cls.__module__, cls.__name__)
            directives.append("# tvm-ffi-stubgen(import-object): %s;False;%s\n" % (target, base))
        classes.append('\n\n@_FFI_REG_OBJ("%s")\nclass %s(%s):\n    """FFI binding for `%s`."""\n\n'
                       "    # tvm-ffi-stubgen(begin): object/%s\n    # tvm-ffi-stubgen(end)\n"
                       % (key, name, base, key, key))
    if classes:
        directives.append("# tvm-ffi-stubgen(import-object): tvm_ffi.register_object;False;_FFI_REG_OBJ\n")
    out += sorted(set(directives)) + classes
    out.append("\n\n__all__ = [\n    # tvm-ffi-stubgen(begin): __all__\n    # tvm-ffi-stubgen(end)\n]\n")
    return "".join(out)


def _write_coverage(path):
    """The layout report of every registered object type."""
    from . import layout, lib_state  # noqa: PLC0415

    infos = {key: lib_state.object_info_from_type_key(key)
             for keys in lib_state.collect_type_keys().values() for key in keys}
    layout.write_coverage_report(path, layout.classify(infos))


def run(opts, out=sys.stdout, err=sys.stderr):
    """Process according to parsed options; returns the exit status."""
    from . import generate  # noqa: PLC0415 - needs the runtime, loaded by the caller
    from .blocks import SourceFile, StubError, collect  # noqa: PLC0415

    paths = list(opts.paths)
    if opts.init_pypkg or opts.init_lib or opts.init_prefix:
        root = paths[0] if paths else "."
        pkg_dirs, created = _init_package(root, opts.init_pypkg, opts.init_lib, opts.init_prefix)
        for c in created:
            print("created %s" % c, file=out)
        paths = pkg_dirs + paths[1:]
    if opts.coverage_out:
        _write_coverage(opts.coverage_out)
        print("wrote %s" % opts.coverage_out, file=out)
        if not paths:
            return 0
    try:
        files = [SourceFile(p) for p in collect(paths)]
        files = [f for f in files if not f.skip and f.blocks]
        declared = generate.declared_objects(files)
        for f in files:
            generate.FileGenerator(f, declared, opts.indent).run()
    except StubError as e:
        print("tvm-ffi-stubgen: error: %s" % e, file=err)
        return 1
    stale = 0
    for f in files:
        new = f.render()
        if new == f.text:
            continue
        stale += 1
        if opts.verbose or opts.check:
            out.writelines(difflib.unified_diff(
                f.text.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=f.path, tofile=f.path))
        if opts.check:
            print("stale: %s" % f.path, file=out)
        elif not opts.dry_run:
            with open(f.path, "w", encoding="utf-8") as fh:
                fh.write(new)
            print("updated %s" % f.path, file=out)
        else:
            print("would update %s" % f.path, file=out)
    return 1 if (opts.check and stale) else 0


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
