"""JIT-compile C++/CUDA sources into a library tvm_ffi loads: build_inline, load_inline, build, load.

Caching: without ``build_directory`` a build lives in
``<TVM_FFI_CACHE_DIR or ~/.cache/tvm-ffi>/<name>_<hash>``.  For inline sources the hash covers
everything that changes the binary: the decorated sources, the exported functions and their
docs, every resolved compile and link flag (include paths, GPU architectures, the tvm_ffi
library directory), the compilers' identities (``--version``) and a digest of the tvm_ffi
headers; a finished library in that directory is reused without running anything.  For
file sources (``build``) the hash covers the sorted absolute paths and flags, and ninja's
dependency tracking rebuilds what changed.

Concurrency: every build of a directory holds an exclusive file lock ``<dir>/lock`` while it
writes sources and ``build.ninja`` and runs ninja, and the final artifact is produced as
``<out>.tmp`` then renamed into place, so no process ever loads a half-written library.
"""

import collections.abc
import hashlib
import os
import re
import shlex
import struct
import sys

from .. import libinfo
from . import _toolchain as tc

_INCLUDES = (
    "#include <tvm/ffi/container/tensor.h>\n"
    "#include <tvm/ffi/dtype.h>\n"
    "#include <tvm/ffi/error.h>\n"
    "#include <tvm/ffi/extra/c_env_api.h>\n"
    "#include <tvm/ffi/function.h>\n"
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SOEXT = ".dll" if sys.platform == "win32" else ".so"


def cache_root():
    return os.path.expanduser(os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi")


# ---- argument normalisation ---------------------------------------------------------------

def _text(value, what):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Sequence) and all(isinstance(s, str) for s in value):
        return "\n".join(value)
    raise TypeError("%s must be a str or a sequence of str, got %s" % (what, type(value).__name__))


def _strs(value, what):
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        value = [value]
    out = []
    for v in value:
        if not isinstance(v, (str, os.PathLike)):
            raise TypeError("%s must hold str, got %s" % (what, type(v).__name__))
        out.append(os.fspath(v))
    return out


def _functions(functions):
    if functions is None:
        items = []
    elif isinstance(functions, str):
        items = [(functions, "")]
    elif isinstance(functions, collections.abc.Mapping):
        items = list(functions.items())
    elif isinstance(functions, collections.abc.Sequence):
        items = [(f, "") for f in functions]
    else:
        raise TypeError(
            "functions must be a name, a sequence of names or a mapping name -> doc, got %s"
            % type(functions).__name__
        )
    out = {}
    for name, doc in items:
        if not isinstance(name, str) or not _IDENT.match(name):
            raise ValueError("function name %r is not a C identifier" % (name,))
        if doc is None:
            doc = ""
        if not isinstance(doc, str):
            raise TypeError("doc of function %r must be a str, got %s" % (name, type(doc).__name__))
        out[name] = doc
    return out


def _cubins(embed_cubin):
    """embed_cubin: a mapping name -> CUBIN bytes (``TVM_FFI_EMBED_CUBIN(name)`` in C++)."""
    if not embed_cubin:
        return {}
    if sys.platform == "win32":
        raise NotImplementedError("embed_cubin is not supported on Windows")
    if not isinstance(embed_cubin, collections.abc.Mapping):
        raise TypeError("embed_cubin must be a mapping name -> bytes, got %s"
                        % type(embed_cubin).__name__)
    out = {}
    for cname, blob in embed_cubin.items():
        if not isinstance(cname, str) or not _IDENT.match(cname):
            raise ValueError("embed_cubin name %r is not a C identifier" % (cname,))
        if not isinstance(blob, (bytes, bytearray, memoryview)):
            raise TypeError("embed_cubin[%r] must be bytes, got %s" % (cname, type(blob).__name__))
        out[cname] = bytes(blob)
    return out


def _check_name(name):
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError("name must be a non-empty file name without path separators, got %r" % (name,))


def _escape_doc(doc):
    return (doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            .replace("\r", "\\r").replace("\t", "\\t"))


def _export_code(functions):
    lines = []
    for name, doc in functions.items():
        lines.append("TVM_FFI_DLL_EXPORT_TYPED_FUNC(%s, %s);" % (name, name))
        if doc:
            lines.append('TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(%s, "%s");' % (name, _escape_doc(doc)))
    return "\n".join(lines) + ("\n" if lines else "")


# ---- hashing --------------------------------------------------------------------------------

def _ser(obj, out):
    """Type-tagged, length-prefixed serialisation: distinct inputs never collide textually."""
    if obj is None:
        out.append(b"N")
    elif isinstance(obj, bool):
        out.append(b"T" if obj else b"F")
    elif isinstance(obj, str):
        data = obj.encode("utf-8", "surrogatepass")
        out.append(b"S" + struct.pack("<Q", len(data)) + data)
    elif isinstance(obj, bytes):
        out.append(b"B" + struct.pack("<Q", len(obj)) + obj)
    elif isinstance(obj, dict):
        out.append(b"D" + struct.pack("<Q", len(obj)))
        for k in sorted(obj):
            _ser(k, out)
            _ser(obj[k], out)
    elif isinstance(obj, (list, tuple)):
        out.append(b"L" + struct.pack("<Q", len(obj)))
        for v in obj:
            _ser(v, out)
    else:
        raise TypeError("cannot hash %s" % type(obj).__name__)


def _hash(*parts):
    out = []
    _ser(list(parts), out)
    return hashlib.sha256(b"".join(out)).hexdigest()[:16]


# ---- flags ----------------------------------------------------------------------------------

class _Plan:
    """Resolved compilers and flags of one build."""

    def __init__(self, extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths,
                 need_cuda, backend):
        incs = ["-I" + p for p in tc.include_paths(extra_include_paths)]
        self.cxx, self.cc = tc.cxx(), tc.cc()
        self.cxxflags = ["-std=c++17", "-fPIC", "-O2"] + incs + extra_cflags
        if tc.is_gcc(self.cxx):
            # g++ makes the function-local statics of inline functions STB_GNU_UNIQUE, and
            # glibc never unloads a library holding one: a module rebuilt at the same path
            # would load as the old image (keep_module_alive=False).  Each module keeps its
            # own copy instead, as clang's output does.
            self.cxxflags.insert(3, "-fno-gnu-unique")
        self.cflags = ["-fPIC", "-O2"] + incs + extra_cflags
        libdir = os.path.dirname(libinfo.find_libtvm_ffi())
        self.ldflags = ["-shared", "-L" + libdir, "-ltvm_ffi"]
        self.gpu = None
        self.cudaflags = []
        if need_cuda:
            self.gpu = tc.pick_backend(backend)
            if self.gpu == "cuda":
                home = tc.cuda_home()
                self.nvcc = os.path.join(home, "bin", "nvcc")
                self.cudaflags = (["-Xcompiler", "-fPIC", "-std=c++17", "-O2"]
                                  + tc.cuda_arch_flags() + incs + extra_cuda_cflags)
                self.ldflags += ["-L" + os.path.join(home, "lib64"), "-lcudart"]
            else:
                home = tc.rocm_home()
                self.nvcc = os.path.join(home, "bin", "hipcc")
                self.cudaflags = (["-fPIC", "-D__HIP_PLATFORM_AMD__=1", "-fno-gpu-rdc"]
                                  + tc.rocm_arch_flags() + incs
                                  + ["-I" + os.path.join(home, "include")] + extra_cuda_cflags)
                self.ldflags += ["-L" + os.path.join(home, "lib"), "-lamdhip64"]
        self.ldflags += extra_ldflags

    def identity(self):
        """Everything about the toolchain that changes the produced binary."""
        ids = [tc.compiler_identity(self.cxx), tc.compiler_identity(self.cc), tc.headers_digest(),
               self.cxxflags, self.cflags, self.ldflags, self.cudaflags]
        if self.gpu:
            ids += [self.gpu, tc.compiler_identity(self.nvcc)]
        return ids


def _var(flags):
    return " ".join(shlex.quote(f) for f in flags).replace("$", "$$")


def _embed_command():
    """Runs ``python -m tvm_ffi.utils.embed_cubin`` with this package importable."""
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.pathsep.join([pkg_parent] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    # That interpreter loads the runtime as this one did: in a sanitizer build the sanitizer
    # runtimes are preloaded here but stripped from the compilers' environment (_build_env).
    preload = os.environ.get("LD_PRELOAD")
    prefix = "LD_PRELOAD=%s " % shlex.quote(preload) if preload else ""
    return "%sPYTHONPATH=%s %s -m tvm_ffi.utils.embed_cubin" % (
        prefix, shlex.quote(path), shlex.quote(sys.executable))


def _ninja_text(plan, sources, target, object_only, cubins=()):
    """build.ninja for ``sources`` (absolute paths or names in the build dir) -> ``target``.

    ``cubins`` (names; the blobs are ``<name>.cubin`` in the build dir): the objects are merged
    with ``ld -r``, each cubin is embedded into that object in turn, then it is linked.
    """
    lines = [
        "ninja_required_version = 1.3",
        "cxx = " + plan.cxx.replace("$", "$$"),
        "cc = " + plan.cc.replace("$", "$$"),
        "cxxflags = " + _var(plan.cxxflags),
        "cflags = " + _var(plan.cflags),
        "ldflags = " + _var(plan.ldflags),
        "",
        "rule cxx",
        "  command = $cxx -MMD -MF $out.d $cxxflags -c $in -o $out",
        "  depfile = $out.d", "  deps = gcc", "",
        "rule cc",
        "  command = $cc -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d", "  deps = gcc", "",
        # the final artifact appears by rename only once complete (concurrent loaders)
        "rule link",
        "  command = $cxx $in $ldflags -o $out.tmp && mv -f $out.tmp $out", "",
        "rule copy",
        "  command = cp -f $in $out.tmp && mv -f $out.tmp $out", "",
        "rule merge",
        "  command = ld -r $in -o $out.tmp && mv -f $out.tmp $out", "",
    ]
    if plan.gpu:
        lines += [
            "nvcc = " + plan.nvcc.replace("$", "$$"),
            "cudaflags = " + _var(plan.cudaflags),
            "rule cuda",
            "  command = $nvcc -MD -MF $out.d $cudaflags -c $in -o $out",
            "  depfile = $out.d", "  deps = gcc", "",
        ]
    objs = []
    for i, src in enumerate(sources):
        base = os.path.basename(src)
        if src.endswith((".o", ".obj")):
            objs.append(src)
            continue
        obj = "obj/%d_%s.o" % (i, base)
        rule = "cuda" if src.endswith(".cu") else "cc" if src.endswith(".c") else "cxx"
        lines.append("build %s: %s %s" % (tc.ninja_escape(obj), rule, tc.ninja_escape(src)))
        objs.append(obj)
    if cubins:
        lines += ["rule embed",
                  "  command = %s --output-obj $out --input-obj $in --cubin $cubin --name $cname"
                  % _embed_command().replace("$", "$$"), ""]
        cur = "obj/merged.o"
        lines.append("build %s: merge %s" % (cur, " ".join(tc.ninja_escape(o) for o in objs)))
        for i, cname in enumerate(cubins):
            nxt = "obj/embed_%d.o" % i
            lines += ["build %s: embed %s | %s.cubin" % (nxt, cur, cname),
                      "  cubin = %s.cubin" % cname, "  cname = %s" % cname]
            cur = nxt
        objs = [cur]
    ins = " ".join(tc.ninja_escape(o) for o in objs)
    if object_only:
        rule = "copy" if len(objs) == 1 else "merge"
    else:
        rule = "link"
    lines += ["build %s: %s %s" % (tc.ninja_escape(target), rule, ins),
              "default %s" % tc.ninja_escape(target), ""]
    return "\n".join(lines)


# ---- building ---------------------------------------------------------------------------------

def _write_if_changed(path, text):
    """Write str (UTF-8) or bytes; an unchanged file keeps its mtime (ninja rebuilds nothing)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except OSError:
        pass
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class _Lock:
    """Exclusive advisory lock on ``<dir>/lock`` (serialises builds of one directory)."""

    def __init__(self, build_dir):
        self.path = os.path.join(build_dir, "lock")
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl  # noqa: PLC0415

            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - Windows: msvcrt locks a byte range
            import msvcrt  # noqa: PLC0415

            msvcrt.locking(self.fd, msvcrt.LK_LOCK, 1)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)  # closing drops the lock


def _target_name(name, output):
    if output is None:
        return name + _SOEXT, False
    base = os.path.basename(os.fspath(output))
    if not base:
        raise ValueError("output must name a file, got %r" % (output,))
    return base, base.endswith((".o", ".obj"))


def _run_build(build_dir, files, sources, plan, target, object_only, cubins=None):
    os.makedirs(os.path.join(build_dir, "obj"), exist_ok=True)
    cubins = cubins or {}
    with _Lock(build_dir):
        for fname, text in files.items():
            _write_if_changed(os.path.join(build_dir, fname), text)
        for cname, blob in cubins.items():
            _write_if_changed(os.path.join(build_dir, cname + ".cubin"), blob)
        _write_if_changed(os.path.join(build_dir, "build.ninja"),
                          _ninja_text(plan, sources, target, object_only, sorted(cubins)))
        tc.run_ninja(build_dir)
    return os.path.join(build_dir, target)


def build_inline(name, *, cpp_sources=None, cuda_sources=None, functions=None,
                 extra_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
                 extra_include_paths=None, build_directory=None, embed_cubin=None,
                 backend=None, output=None):
    """Compile inline C++ (and CUDA) source into a shared library; return its path.

    ``functions`` (a name, names, or a mapping name -> docstring) are exported with
    ``TVM_FFI_DLL_EXPORT_TYPED_FUNC`` so ``load_module(path).<name>`` finds them.
    """
    _check_name(name)
    cpp = _text(cpp_sources, "cpp_sources")
    cuda = _text(cuda_sources, "cuda_sources")
    assert cpp is not None or cuda is not None, "cpp_sources or cuda_sources must be provided."
    cubins = _cubins(embed_cubin)
    funcs = _functions(functions)
    export = _export_code(funcs)
    files = {}
    if cpp is not None:
        files["main.cpp"] = _INCLUDES + cpp + "\n" + export
    if cuda is not None:
        files["cuda.cu"] = _INCLUDES + cuda + "\n" + ("" if cpp is not None else export)
    cflags = _strs(extra_cflags, "extra_cflags")
    cuflags = _strs(extra_cuda_cflags, "extra_cuda_cflags")
    ldflags = _strs(extra_ldflags, "extra_ldflags")
    incs = _strs(extra_include_paths, "extra_include_paths")
    plan = _Plan(cflags, cuflags, ldflags, incs, cuda is not None, backend)
    target, object_only = _target_name(name, output)
    if build_directory is not None:
        build_dir = os.path.abspath(os.fspath(build_directory))
    else:
        key = _hash("inline", files.get("main.cpp"), files.get("cuda.cu"), funcs, cflags,
                    cuflags, ldflags, [os.path.abspath(p) for p in incs], target,
                    plan.identity(), cubins)
        build_dir = os.path.join(cache_root(), "%s_%s" % (name, key))
        done = os.path.join(build_dir, target)
        if os.path.isfile(done):  # complete by construction (renamed into place)
            return done
    return _run_build(build_dir, files, sorted(files), plan, target, object_only, cubins)


def build(name, *, sources=None, cpp_files=None, cuda_files=None, extra_cflags=None,
          extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
          build_directory=None, backend=None, output=None):
    """Compile source files (.cc/.cpp/.cu/.c, .o passed to the linker) into a library; return its path.

    The sources export their functions themselves (TVM_FFI_DLL_EXPORT_TYPED_FUNC, or C
    functions with the safe-call signature named ``__tvm_ffi_<name>``).
    """
    _check_name(name)
    paths = (_strs(sources, "sources") + _strs(cpp_files, "cpp_files")
             + _strs(cuda_files, "cuda_files"))
    assert paths, "sources must be provided."
    paths = [os.path.abspath(p) for p in paths]
    for p in paths:
        if not os.path.isfile(p):
            raise FileNotFoundError("source file not found: %s" % p)
    cflags = _strs(extra_cflags, "extra_cflags")
    cuflags = _strs(extra_cuda_cflags, "extra_cuda_cflags")
    ldflags = _strs(extra_ldflags, "extra_ldflags")
    incs = _strs(extra_include_paths, "extra_include_paths")
    plan = _Plan(cflags, cuflags, ldflags, incs, any(p.endswith(".cu") for p in paths), backend)
    target, object_only = _target_name(name, output)
    if build_directory is not None:
        build_dir = os.path.abspath(os.fspath(build_directory))
    else:
        key = _hash("files", sorted(paths), cflags, cuflags, ldflags,
                    [os.path.abspath(p) for p in incs], target, plan.identity())
        build_dir = os.path.join(cache_root(), "%s_%s" % (name, key))
    return _run_build(build_dir, {}, paths, plan, target, object_only)


def load_inline(name, *, cpp_sources=None, cuda_sources=None, functions=None, extra_cflags=None,
                extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                build_directory=None, embed_cubin=None, keep_module_alive=True, backend=None):
    """build_inline(...) then load_module: returns the Module (``mod.<function>(...)``)."""
    from ..module import load_module  # noqa: PLC0415 - registry, _typeinfo: not for building

    path = build_inline(
        name, cpp_sources=cpp_sources, cuda_sources=cuda_sources, functions=functions,
        extra_cflags=extra_cflags, extra_cuda_cflags=extra_cuda_cflags,
        extra_ldflags=extra_ldflags, extra_include_paths=extra_include_paths,
        build_directory=build_directory, embed_cubin=embed_cubin, backend=backend,
    )
    return load_module(path, keep_module_alive=keep_module_alive)


def load(name, *, sources=None, cpp_files=None, cuda_files=None, extra_cflags=None,
         extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
         build_directory=None, keep_module_alive=True, backend=None):
    """build(...) then load_module."""
    from ..module import load_module  # noqa: PLC0415 - registry, _typeinfo: not for building

    path = build(
        name, sources=sources, cpp_files=cpp_files, cuda_files=cuda_files,
        extra_cflags=extra_cflags, extra_cuda_cflags=extra_cuda_cflags,
        extra_ldflags=extra_ldflags, extra_include_paths=extra_include_paths,
        build_directory=build_directory, backend=backend,
    )
    return load_module(path, keep_module_alive=keep_module_alive)
