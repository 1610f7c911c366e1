"""Build the cffi module ``tvm_ffi._ffi_cffi`` (out-of-line API mode).

Usage (the build runs this; nothing here runs at ``import tvm_ffi``)::

    python python/tvm_ffi/_build_ffi.py --include c/include --out-dir python/tvm_ffi [--no-abi3]
    pypy3 python/tvm_ffi/_build_ffi.py --capi --include c/include --out-dir DIR

``--capi`` builds ``tvm_ffi._capi_ext`` instead (``_ffi_src/capi.c``), for interpreters without
``ctypes.pythonapi`` (PyPy), where the package runs in ABI mode: the compiled fast path is
written against CPython's object layout and is never built there.

It also writes, next to the module, what the ABI-mode fallback (``_loader.py``) uses when no
compiled module can be: ``_ffi_abi.py``, cffi's out-of-line ABI module (``set_source(name,
None)``: the declarations pre-parsed into tables, pure Python, the same file for every
interpreter and cffi >= 1.8), and ``_cdef.h``, the declarations as text.  Parsing them at
import (pycparser) took ~0.3 s on PyPy, which imports the pre-parsed module instead.

Which ABI (docs/guide-packaging.md §1): on CPython 3.12+ the module is built on the 3.12 limited
API, ``_ffi_cffi.abi3.so`` for the cp312-abi3 wheel; older interpreters lack parts of the limited
API the fast path needs (vectorcall for a type of ours, ``PyObject_Vectorcall``), so there the
module is built for that one version (``_ffi_cffi.cpython-3X-...so``, a cp3X wheel), as it is
with ``--no-abi3``.  pyproject.toml's ``wheel.py-api = "cp312"`` tags the wheels to match.

Design notes:
- Declarations come from the public headers through ``_cdef.generate`` (one source of truth);
  the helper entry points come from ``_ffi_src/helpers.h``, which the C source includes too.
  The C sources (``_ffi_src/*.c``, one concern each, see ``binding.h``) are one translation
  unit, ``module.c``, so that the hot path inlines across files.
- The conversion rules come from ``_rules.py`` (the table every path reads): this script writes
  them as ``rules.h`` into the scratch directory, which the C sources include.
- The module is not linked against ``libtvm_ffi``: the package loads the runtime with
  ``RTLD_GLOBAL`` first, so the module binds to whichever runtime was found (build tree,
  bundled copy, or the environment) without rpath games.
- cffi releases the GIL around every API-mode call.  Our calls are short or manage the GIL
  themselves (call.c releases it around the foreign call), so the release is compiled out:
  it would cost two GIL hand-overs per call and the helpers need the GIL anyway.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Run as a script, this directory heads sys.path, where the package's own `dataclasses`
# (and future siblings) would shadow the stdlib modules cffi/pycparser import: drop it, and
# load the sibling _cdef by path (the package itself must not be imported here).
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def _load(name):
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_cdef = _load("_cdef")

MODULE = "tvm_ffi._ffi_cffi"
LIMITED_API = (3, 12)  # the oldest limited API the fast path can be built on (binding.h)
ABI_MODULE = "tvm_ffi._ffi_abi"

# Applied before cffi's generated wrappers: keep the GIL during calls (see module doc).
_PRELUDE = """
#undef Py_BEGIN_ALLOW_THREADS
#undef Py_END_ALLOW_THREADS
#define Py_BEGIN_ALLOW_THREADS {
#define Py_END_ALLOW_THREADS }
#include <stdlib.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
"""


def make_ffi(include_dir, abi3, gen_dir):
    """The cffi builder; writes gen_dir/rules.h (the conversion table as C) first."""
    import cffi  # noqa: PLC0415 - after sys.path drops HERE (above); --capi builds need no cffi

    os.makedirs(gen_dir, exist_ok=True)
    with open(os.path.join(gen_dir, "rules.h"), "w", encoding="utf-8") as f:
        f.write(_load("_rules").c_header())

    helpers_h = os.path.join(HERE, "_ffi_src", "helpers.h")
    cdef = _cdef.generate(include_dir, [helpers_h])
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    with open(helpers_h, encoding="utf-8") as f:
        helpers_decl = f.read()
    source = _PRELUDE + helpers_decl + '#include "module.c"\n'
    kwargs = {}
    if abi3:
        kwargs["py_limited_api"] = True
        kwargs["define_macros"] = [("Py_LIMITED_API", "0x%02X%02X0000" % LIMITED_API)]
    else:  # cffi picks the 3.2 limited API unless told otherwise
        kwargs["py_limited_api"] = False
        kwargs["define_macros"] = [("_CFFI_NO_LIMITED_API", "1")]
    ffi.set_source(
        MODULE,
        source,
        include_dirs=[include_dir, os.path.join(HERE, "_ffi_src"), gen_dir],
        # an API the limited API lacks must fail the build: a module that links but cannot
        # be imported would leave the package silently in ABI mode
        extra_compile_args=["-O2", "-fvisibility=hidden", "-std=gnu11",
                            "-Werror=implicit-function-declaration", "-Werror=int-conversion"],
        **kwargs,
    )
    return ffi, cdef


def write_abi_module(cdef, out_dir):
    """Writes out_dir/_ffi_abi.py: cdef pre-parsed for ABI mode (``ffi.dlopen`` of the runtime)."""
    import contextlib  # noqa: PLC0415
    import io  # noqa: PLC0415

    import cffi  # noqa: PLC0415 - after sys.path drops HERE (above)

    ffi = cffi.FFI()
    ffi.cdef(cdef)
    ffi.set_source(ABI_MODULE, None)
    target = os.path.join(out_dir, ABI_MODULE.rpartition(".")[2] + ".py")
    with contextlib.redirect_stdout(io.StringIO()):  # cffi prints "generating FILE"
        ffi.emit_python_code(target + ".tmp")
    os.replace(target + ".tmp", target)
    return target


def build_capi(include_dir, out_dir, tmp_dir):
    """Compiles _ffi_src/capi.c into out_dir/_capi_ext<EXT_SUFFIX> with this interpreter."""
    import sysconfig  # noqa: PLC0415
    from distutils.ccompiler import new_compiler  # noqa: PLC0415
    from distutils.sysconfig import customize_compiler  # noqa: PLC0415

    cc = new_compiler()
    customize_compiler(cc)
    objs = cc.compile([os.path.join(HERE, "_ffi_src", "capi.c")], output_dir=tmp_dir,
                      include_dirs=[include_dir, sysconfig.get_paths()["include"]],
                      extra_preargs=["-fPIC", "-O2", "-fvisibility=hidden"])
    target = os.path.join(out_dir, "_capi_ext" + sysconfig.get_config_var("EXT_SUFFIX"))
    cc.link_shared_object(objs, target)
    return target


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", required=True, help="directory holding tvm/ffi/c_api.h and dlpack/")
    ap.add_argument("--out-dir", default=HERE, help="where _ffi_cffi*.so and _cdef.h go")
    ap.add_argument("--tmp-dir", default=None, help="scratch dir for the generated C file")
    ap.add_argument("--abi3", action="store_true", default=None,
                    help="build on the 3.12 stable ABI (the default on CPython 3.12+)")
    ap.add_argument("--no-abi3", dest="abi3", action="store_false",
                    help="build for this interpreter's version only (the default before 3.12)")
    ap.add_argument("--cdef-only", action="store_true", help="only write _cdef.h and _ffi_abi.py")
    ap.add_argument("--capi", action="store_true", help="build tvm_ffi._capi_ext (PyPy) instead")
    args = ap.parse_args(argv)
    include = os.path.abspath(args.include)
    out_dir = os.path.abspath(args.out_dir)
    if args.capi:
        tmp = os.path.abspath(args.tmp_dir or os.path.join(out_dir, "_build"))
        os.makedirs(tmp, exist_ok=True)
        print(build_capi(include, out_dir, tmp))
        return 0
    tmp = os.path.abspath(args.tmp_dir or os.path.join(out_dir, "_build"))
    abi3 = sys.version_info[:2] >= LIMITED_API if args.abi3 is None else args.abi3
    if abi3 and sys.version_info[:2] < LIMITED_API:
        ap.error("--abi3 needs Python %d.%d or newer (the limited API the module is built on)"
                 % LIMITED_API)
    ffi, cdef = make_ffi(include, abi3, os.path.join(tmp, "gen"))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "_cdef.h"), "w", encoding="utf-8") as f:
        f.write("/* Generated by _build_ffi.py from the public headers. Do not edit. */\n")
        f.write(cdef)
    write_abi_module(cdef, out_dir)
    if args.cdef_only:
        return 0
    so = ffi.compile(tmpdir=tmp, verbose=False)
    target = os.path.join(out_dir, os.path.basename(so))
    if os.path.abspath(so) != target:
        os.replace(so, target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
