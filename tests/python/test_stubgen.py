"""tvm-ffi-stubgen (docs/python.md §19): stubs generated from the testing library's reflection."""

import ast
import os
import subprocess
import sys
import textwrap

import pytest

import tvm_ffi  # noqa: F401 - loads the runtime and the testing library
from tvm_ffi.core import TypeSchema
from tvm_ffi.stub import cli
from tvm_ffi.stub.file_utils import FileInfo
from tvm_ffi.stub.generator import get_generator
from tvm_ffi.stub.python_generator import owner_classes
from tvm_ffi.stub.python_generator.codegen import TypeNamer, render_func_signature
from tvm_ffi.stub.python_generator.consts import TY_MAP_DEFAULTS
from tvm_ffi.stub.utils import FuncInfo

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tvm_ffi.stub.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def _block(text, kind):
    """Body lines of the block `kind` in text (markers excluded)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "# tvm-ffi-stubgen(begin): " + kind)
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "# tvm-ffi-stubgen(end)")
    return lines[start + 1:end]


_HANDWRITTEN = '''\
"""A hand-written module whose blocks the generator fills."""

# tvm-ffi-stubgen(begin): import-section
# tvm-ffi-stubgen(end)

from tvm_ffi import Object, register_object

# tvm-ffi-stubgen(begin): global/testing
stale content that must go
# tvm-ffi-stubgen(end)


@register_object("testing.TestIntPair")
class Pair(Object):
    """Kept as written."""

    # tvm-ffi-stubgen(begin): object/testing.TestIntPair
    # tvm-ffi-stubgen(end)

    def extra(self):
        return "kept"


# tvm-ffi-stubgen(ty-map): testing.TestObjectBase -> mypkg.base.Base
__all__ = [
    # tvm-ffi-stubgen(begin): __all__
    # tvm-ffi-stubgen(end)
]
'''


def test_normal_mode_fills_blocks_from_reflection(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(_HANDWRITTEN)
    r = _run(path)
    assert r.returncode == 0, r.stderr
    assert "updated" in r.stdout
    text = path.read_text()
    ast.parse(text)  # valid Python
    assert "stale content" not in text and 'return "kept"' in text and '"""Kept as written."""' in text
    glob = _block(text, "global/testing")
    assert glob[1] == '_FFI_INIT_FUNC("testing", __name__)' and glob[2] == "if TYPE_CHECKING:"
    defs = set(glob)
    for line in [
        "    def add_one(_0: int, /) -> int: ...",
        "    def schema_id_opt_int(_0: int | None, /) -> int | None: ...",
        "    def schema_id_arr_int(_0: Sequence[int], /) -> Sequence[int]: ...",
        # a parameter accepts any sequence / mapping where the result is the mutable container
            "    def schema_id_list_str(_0: Sequence[str], /) -> MutableSequence[str]: ...",
        "    def schema_id_map_str_int(_0: Mapping[str, int], /) -> Mapping[str, int]: ...",
        "    def schema_id_dict_str_str(_0: Mapping[str, str], /) -> MutableMapping[str, str]: ...",
        "    def schema_id_variant_int_str(_0: int | str, /) -> int | str: ...",
        "    def schema_id_device(_0: Device, /) -> Device: ...",
        "    def schema_id_dtype(_0: dtype, /) -> dtype: ...",
        "    def schema_id_tensor(_0: Tensor, /) -> Tensor: ...",
        "    def schema_id_func(_0: Callable[..., Any], /) -> Callable[..., Any]: ...",
        "    def schema_no_args_no_return() -> None: ...",
        "    def test_raise_error(_0: str, _1: str, /) -> None: ...",
        # packed functions (any arguments) have a schema without "args"
        "    def echo(*args: Any) -> Any: ...",
        "    def schema_packed(*args: Any) -> Any: ...",
        # a type defined in this file is referred to by its Python class name
        "    def TestIntPairSum(_0: Pair, /) -> int: ...",
    ]:
        assert line in defs, line
    obj = _block(text, "object/testing.TestIntPair")
    assert obj[0].strip() == "# fmt: off" and obj[-1].strip() == "# fmt: on"
    assert "    a: int" in obj and "    b: int" in obj
    assert "        def sum(self, /) -> int: ..." in obj
    # the constructor takes exactly the fields: __init__ names them, __ffi_init__ is positional
    assert "        def __init__(self, a: int, b: int) -> None: ..." in obj
    # the constructor takes exactly the fields: its parameters carry their names
    assert "        def __ffi_init__(self, a: int, b: int) -> None: ..." in obj
    imports = "\n".join(_block(text, "import-section"))
    assert "from __future__ import annotations" in imports
    assert "from tvm_ffi import init_ffi_api as _FFI_INIT_FUNC" in imports
    assert "from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence" in imports
    assert "from typing import Any, Callable" in imports
    all_names = [ln.strip().strip('",') for ln in _block(text, "__all__")]
    assert all_names == sorted(all_names) and "Pair" in all_names and "add_one" in all_names
    # idempotent: a second run changes nothing, and --check agrees
    before = path.read_text()
    assert _run(path).returncode == 0 and path.read_text() == before
    assert _run("--check", path).returncode == 0


def test_generated_module_runs(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(_HANDWRITTEN)
    assert _run(path).returncode == 0
    code = "import mod; print(mod.add_one(41), mod.Pair(3, 4).sum(), mod.Pair(3, 4).extra())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["42", "7", "kept"]


def test_init_mode_creates_a_package(tmp_path):
    r = _run("--init-pypkg", "my-ext", "--init-lib", "tvm_ffi_testing", "--init-prefix", "testing.",
             tmp_path / "out")
    assert r.returncode == 0, r.stderr
    pkg = tmp_path / "out" / "testing"
    assert "created " + str(pkg / "_ffi_api.py") in r.stdout, r.stdout
    api, init = (pkg / "_ffi_api.py").read_text(), (pkg / "__init__.py").read_text()
    assert 'LIB = _FFI_LOAD_LIB("my-ext", "tvm_ffi_testing")' in api
    assert "from tvm_ffi.libinfo import load_lib_module as _FFI_LOAD_LIB" in api
    assert '@_FFI_REG_OBJ("testing.TestObjectDerived")\nclass TestObjectDerived(TestObjectBase):' in api
    assert api.index("class TestObjectBase(") < api.index("class TestObjectDerived(")  # base first
    assert "    v_map: Mapping[Any, Any]" in api
    # reflection-built constructors: required fields (ancestors' too) first, defaults, keyword-only
    if "class TestCxxAutoInitChild(" in api:
        assert ("def __init__(self, parent_required: int, child_required: int, parent_default: int"
                " = ..., *, child_kw_only: int) -> None: ...") in api
    assert ("def __init__(self, v_map: Mapping[Any, Any], v_array: Sequence[Any], v_i64: int = ..., "
            "v_f64: float = ..., v_str: str = ...) -> None: ...") in api
    assert "from ._ffi_api import *  # noqa: F403" in init
    ast.parse(api)
    # the package imports (its library found through LD_LIBRARY_PATH) and binds functions/types
    env = dict(os.environ)
    libdir = os.path.dirname(tvm_ffi._loader.LIB_PATH)
    env["LD_LIBRARY_PATH"] = libdir + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    code = ("import testing; print(testing.add_one(1), testing.TestIntPair(1, 2).sum(), "
            "'echo' in testing.__all__, type(testing.TestIntPair(1, 2)).__module__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path / "out", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "3", "True", "testing._ffi_api"]
    # existing files are left alone by a second init, and stay up to date
    (pkg / "__init__.py").write_text(init + "# user edit\n")
    r = _run("--init-pypkg", "my-ext", "--init-lib", "tvm_ffi_testing", "--init-prefix", "testing",
             tmp_path / "out")
    assert r.returncode == 0 and "created" not in r.stdout, r.stdout
    assert (pkg / "__init__.py").read_text().endswith("# user edit\n")
    # a hand-written file without markers is not touched either
    (pkg / "__init__.py").write_text("x = 1\n")
    r = _run("--init-pypkg", "my-ext", "--init-lib", "tvm_ffi_testing", "--init-prefix", "testing",
             tmp_path / "out")
    assert r.returncode == 0 and (pkg / "__init__.py").read_text() == "x = 1\n", r.stderr


def test_check_dry_run_and_verbose(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(_HANDWRITTEN)
    r = _run("--check", path)
    assert r.returncode == 1 and "[Stale] " + str(path) in r.stdout and path.read_text() == _HANDWRITTEN
    r = _run("--dry-run", "--verbose", path)
    assert r.returncode == 0 and path.read_text() == _HANDWRITTEN
    assert "+    def add_one(_0: int, /) -> int: ..." in r.stdout and "-stale content" in r.stdout
    # directories are walked; files without blocks are ignored
    (tmp_path / "plain.py").write_text("x = 1\n")
    assert _run(tmp_path).returncode == 0
    assert (tmp_path / "plain.py").read_text() == "x = 1\n" and "def add_one" in path.read_text()


def test_indent_option(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(_HANDWRITTEN)
    assert _run("--indent", "2", path).returncode == 0
    assert "  def add_one(_0: int, /) -> int: ..." in _block(path.read_text(), "global/testing")


def test_registry_module_and_ty_map(tmp_path):
    src = textwrap.dedent('''\
        # tvm-ffi-stubgen(begin): import-section
        # tvm-ffi-stubgen(end)
        # tvm-ffi-stubgen(ty-map): testing.TestIntPair -> mypkg.pairs.IntPair
        # tvm-ffi-stubgen(import-object): tvm_ffi.Object;True;_Obj
        # tvm-ffi-stubgen(begin): global/testing@..registry
        # tvm-ffi-stubgen(end)
        ''')
    path = tmp_path / "m.py"
    path.write_text(src)
    r = _run(path)
    assert r.returncode == 0, r.stderr
    text = path.read_text()
    assert "from ..registry import init_ffi_api as _FFI_INIT_FUNC" in text
    assert "    from mypkg.pairs import IntPair" in text  # type-checking import of the mapped name
    assert "    from tvm_ffi import Object as _Obj" in text or "Object as _Obj" in text
    assert "def TestIntPairSum(_0: IntPair, /) -> int: ..." in text


@pytest.mark.parametrize("src, message", [
    ("# tvm-ffi-stubgen(begin): __all__\n", "Unclosed stub block opened at line 1"),
    ("# tvm-ffi-stubgen(end)\n", "Unmatched `end` marker at line 1"),
    ("# tvm-ffi-stubgen(begin): __all__\n# tvm-ffi-stubgen(begin): __all__\n# tvm-ffi-stubgen(end)\n",
     "Nested stub not permitted: line 2"),
    ("# tvm-ffi-stubgen(begin): weird\n# tvm-ffi-stubgen(end)\n", "Unknown stub block kind `weird`"),
    ("class A:\n    # tvm-ffi-stubgen(begin): object/no.such.Type\n    # tvm-ffi-stubgen(end)\n",
     "`no.such.Type` is not registered"),
    ("# tvm-ffi-stubgen(begin): global/no_such_ns\n# tvm-ffi-stubgen(end)\n", "no_such_ns."),
    ("# tvm-ffi-stubgen(ty-map): oops\n# tvm-ffi-stubgen(begin): __all__\n# tvm-ffi-stubgen(end)\n", "ty-map"),
    ("# tvm-ffi-stubgen(frobnicate)\n", "Unknown stub type at line 1"),
    ("# tvm-ffi-stubgen(frobnicate): x\n", "Unknown directive `frobnicate` at line 1"),
])
def test_malformed_files_are_reported_with_their_line(tmp_path, src, message):
    path = tmp_path / "bad.py"
    path.write_text(src)
    r = _run(path)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert str(path) + ":" in r.stderr
    assert path.read_text() == src  # nothing written on error


def test_option_errors(tmp_path):
    r = _run("--init-pypkg", "x", tmp_path)
    assert r.returncode == 2 and "must be given together" in r.stderr
    r = _run()
    assert r.returncode == 2 and "nothing to do" in r.stderr
    r = _run(tmp_path / "missing.py")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = _run("--imports", "no_such_module_xyz", tmp_path)
    assert r.returncode == 1 and "no_such_module_xyz" in r.stderr
    r = _run("--dlls", str(tmp_path / "libnothere.so"), tmp_path)
    assert r.returncode == 1 and "libnothere" in r.stderr
    r = _run("--init-pypkg", "p", "--init-lib", "l", "--init-prefix", "no_such_prefix", tmp_path)
    assert r.returncode == 2 and "no_such_prefix" in r.stderr


_EXT_C = r"""
#include <tvm/ffi/c_api.h>
#include <string.h>
static int twice(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  (void)self; (void)n;
  out->type_index = kTVMFFIInt; out->v_int64 = 2 * args[0].v_int64; return 0;
}
/* registers stubext.twice(int) -> int, with its type_schema, when the library is loaded */
__attribute__((constructor)) static void reg(void) {
  TVMFFIObjectHandle f;
  TVMFFIFunctionCreate(NULL, twice, NULL, &f);
  TVMFFIMethodInfo info; memset(&info, 0, sizeof(info));
  static const char name[] = "stubext.twice";
  static const char meta[] = "{\"type_schema\":\"{\\\"type\\\":\\\"ffi.Function\\\",\\\"args\\\":[{\\\"type\\\":\\\"int\\\"},{\\\"type\\\":\\\"int\\\"}]}\"}";
  info.name.data = name; info.name.size = sizeof(name) - 1;
  info.metadata.data = meta; info.metadata.size = sizeof(meta) - 1;
  info.method.type_index = kTVMFFIFunction; info.method.v_obj = (TVMFFIObject*)f;
  TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0);
  TVMFFIObjectDecRef(f);
}
"""


def test_dlls_option_loads_a_library(tmp_path):
    """A library registering globals from a constructor becomes visible to the generator."""
    import shutil

    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    inc = os.path.join(REPO, "c", "include")
    (tmp_path / "ext.c").write_text(_EXT_C)
    libdir = os.path.dirname(tvm_ffi._loader.LIB_PATH)
    r = subprocess.run(["cc", "-shared", "-fPIC", "-I" + inc, str(tmp_path / "ext.c"), "-o",
                        str(tmp_path / "libstubext.so"), "-L" + libdir, "-ltvm_ffi"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (tmp_path / "m.py").write_text("# tvm-ffi-stubgen(begin): global/stubext\n# tvm-ffi-stubgen(end)\n")
    assert _run(tmp_path / "m.py").returncode == 2  # not loaded: nothing under stubext.
    r = _run("--dlls", tmp_path / "libstubext", tmp_path / "m.py")  # suffix added
    assert r.returncode == 0, r.stderr
    assert "    def twice(_0: int, /) -> int: ..." in (tmp_path / "m.py").read_text()


def test_cmake_configure_target_generates_stubs(tmp_path):
    """tvm_ffi_configure_target(... STUB_DIR ... STUB_INIT ON ...) runs the generator on build."""
    import shutil

    for tool in ("cmake", "cc", "c++"):
        if shutil.which(tool) is None:
            pytest.skip("needs %s" % tool)
    src = tmp_path / "src"
    src.mkdir()
    (src / "ext.c").write_text(_EXT_C)
    (src / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.18)
        project(stubext LANGUAGES C CXX)
        find_package(tvm_ffi CONFIG REQUIRED)
        add_library(stubext SHARED ext.c)
        tvm_ffi_configure_target(stubext STUB_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pkg
                                 STUB_INIT ON STUB_PKG stubext-dist STUB_PREFIX stubext)
        """))
    env = dict(os.environ, TVM_FFI_LIBRARY_PATH=tvm_ffi._loader.LIB_PATH)
    r = subprocess.run(["cmake", "-S", str(src), "-B", str(tmp_path / "build"),
                        "-Dtvm_ffi_ROOT=" + os.path.join(REPO, "cmake"),
                        "-DPython_EXECUTABLE=" + sys.executable],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["cmake", "--build", str(tmp_path / "build")], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    api = (src / "pkg" / "stubext" / "_ffi_api.py").read_text()
    assert "    def twice(_0: int, /) -> int: ..." in api
    assert 'LIB = _FFI_LOAD_LIB("stubext-dist", "stubext")' in api
    assert (src / "pkg" / "stubext" / "__init__.py").exists()
    # the generated loader finds the built library: lib<target>.so, as load_lib_module expects
    code = ("import pathlib, sys; from tvm_ffi.libinfo import load_lib_module; "
            "m = load_lib_module('stubext-dist', 'stubext', extra_lib_paths=[pathlib.Path(sys.argv[1])]); "
            "import tvm_ffi; print(tvm_ffi.get_global_func('stubext.twice')(21))")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "build")], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "42", r.stdout + r.stderr


def test_imports_option_and_names_that_cannot_be_python(tmp_path):
    """--imports runs registration code first; globals named like keywords get no stub."""
    (tmp_path / "regmod.py").write_text(textwrap.dedent("""\
        import tvm_ffi
        tvm_ffi.register_global_func("stubkw.class", lambda: 1)
        tvm_ffi.register_global_func("stubkw.ok", lambda x: x)
        tvm_ffi.register_global_func("stubkw.deeper.skip", lambda: 0)
        """))
    (tmp_path / "m.py").write_text(
        "# tvm-ffi-stubgen(begin): global/stubkw\n# tvm-ffi-stubgen(end)\n"
        "__all__ = [\n    # tvm-ffi-stubgen(begin): __all__\n    # tvm-ffi-stubgen(end)\n]\n")
    r = _run("--imports", "regmod", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "m.py").read_text()
    # Python callbacks carry no type_schema: a packed signature
    assert "    def ok(*args: Any) -> Any: ..." in text
    assert "class" not in text.replace("# tvm-ffi-stubgen", "") and "deeper" not in text
    assert _block(text, "__all__") == ['    "ok",']


def test_schema_rendering():
    imports = []
    ty_map = dict(TY_MAP_DEFAULTS, **{"my.Node": "pkg.types.Node"})
    n = TypeNamer(ty_map, imports)

    def ann(obj):
        return TypeSchema.from_json_obj(obj).repr(n.output)

    assert ann({"type": "Optional", "args": [{"type": "Variant", "args": [
        {"type": "int"}, {"type": "ffi.Array", "args": [{"type": "Optional", "args": [{"type": "int"}]}]}]}]}
    ) == "int | Sequence[int | None] | None"
    assert ann({"type": "ffi.Function", "args": [{"type": "None"}, {"type": "int"}, {"type": "ffi.String"}]}) == "Callable[[int, str], None]"
    assert ann({"type": "Tuple", "args": [{"type": "int"}, {"type": "my.Node"}]}) == "tuple[int, Node]"
    assert ann({"type": "ffi.Map"}) == "Mapping[Any, Any]"
    assert ann({"type": "void*"}) == "c_void_p"
    names = {(i.mod, i.short) for i in imports}
    assert ("pkg.types", "Node") in names and ("ctypes", "c_void_p") in names
    assert all(i.type_checking_only for i in imports)

    def sig(obj, member=False):
        func = FuncInfo.from_schema("ns.f", TypeSchema.from_json_obj(obj), is_member=member)
        return render_func_signature(func, n.output, 0, input_ty_map=n.input)

    assert sig({"type": "ffi.Function"}) == "def f(*args: Any) -> Any: ..."
    # both spellings of a function schema give the same stub; parameters take the wider input
    # annotation (any sequence for a List), results the exact one
    named = {"type": "ffi.Function", "named_args": {
        "return": [{"type": "ffi.List", "args": [{"type": "int"}]}],
        "params": [{"type": "ffi.List", "args": [{"type": "int"}]}, {"type": "ffi.Function", "named_args": {
            "return": [{"type": "None"}], "params": [{"type": "int"}]}}]}}
    assert sig(named) == "def f(_0: Sequence[int], _1: Callable[[int], None], /) -> MutableSequence[int]: ..."
    assert sig({"type": "ffi.Function", "named_args": {"return": [{"type": "int"}], "params": []}}) == "def f() -> int: ..."
    # a member's first parameter is the object itself
    assert sig({"type": "ffi.Function", "args": [{"type": "int"}, {"type": "ns.T"}]}, member=True) == "def f(self, /) -> int: ..."
    with pytest.raises(ValueError, match="not a function"):
        render_func_signature(FuncInfo.from_schema("ns.g", TypeSchema("int")), n.output, 0)


def test_source_file_parsing(tmp_path):
    path = tmp_path / "x.py"
    text = ("class Outer:\n    class Inner:\n        # tvm-ffi-stubgen(begin): object/a.B\n"
            "        # tvm-ffi-stubgen(end)\n    # tvm-ffi-stubgen(begin): object/a.C\n"
            "    # tvm-ffi-stubgen(end)\n")
    path.write_text(text)
    f = FileInfo.from_file(path)
    owners = owner_classes(f)
    assert [(b.param, owners[id(b)]) for b in f.code_blocks if b.kind == "object"] == [
        ("a.B", "Inner"), ("a.C", "Outer")]
    assert f.update(verbose=False, dry_run=False) is False and path.read_text() == text
    with pytest.raises(ValueError, match="import-object"):
        get_generator("python").add_directive([], "import-object", "nodot;False;x", 1)


def test_console_script_and_main_entry():
    text = open(os.path.join(REPO, "pyproject.toml")).read()
    assert 'tvm-ffi-stubgen = "tvm_ffi.stub.cli:__main__"' in text
    assert callable(cli.__main__)
    r = _run("--help")
    assert r.returncode == 0 and "--init-prefix" in r.stdout and "--dry-run" in r.stdout


# ---- the layout report (--coverage-out, tvm_ffi.stub.layout) ---------------------------------


def _obj(key, parent, total, *fields, final=None):
    from tvm_ffi.core import TypeSchema  # noqa: PLC0415
    from tvm_ffi.stub.utils import NamedTypeSchema, ObjectInfo  # noqa: PLC0415

    chain = {"ffi.Object": [], "a.A": ["ffi.Object"], "a.B": ["ffi.Object", "a.A"]}
    return ObjectInfo(
        fields=[NamedTypeSchema(n, TypeSchema("int"), offset=o, size=s, alignment=al)
                for n, o, s, al in fields],
        methods=[], type_key=key, parent_type_key=parent, ancestors=chain.get(key, []),
        total_size=total, is_final=final)


def test_layout_padding_versus_hidden_bytes():
    from tvm_ffi.stub.layout import ByteRange, classify  # noqa: PLC0415

    root = _obj("ffi.Object", None, 24)
    # int32 then a double: [28, 32) is alignment padding; the int8 tail pads to 8
    padded = _obj("a.A", "ffi.Object", 48, ("x", 24, 4, 4), ("d", 32, 8, 8), ("c", 40, 1, 1))
    v = classify({"a.A": padded, "ffi.Object": root})["a.A"]
    assert v.is_complete and v.verdict == "complete"
    assert v.padding == [ByteRange(28, 32), ByteRange(41, 48)] and v.uncovered == []
    # a 16-byte hole that no alignment explains, and a child that inherits the verdict
    holed = _obj("a.A", "ffi.Object", 48, ("x", 24, 8, 8), ("y", 40, 8, 8))
    child = _obj("a.B", "a.A", 56, ("z", 48, 8, 8))
    vs = classify({"ffi.Object": root, "a.A": holed, "a.B": child})
    assert vs["a.A"].reason == "uncovered-bytes" and vs["a.A"].uncovered == [ByteRange(32, 40)]
    assert vs["a.B"].reason == "parent-opaque" and "'a.A'" in vs["a.B"].detail
    assert vs["a.B"].own_bytes is None


def test_layout_overlap_and_unknown():
    from tvm_ffi.stub.layout import classify  # noqa: PLC0415

    root = _obj("ffi.Object", None, 24)
    overlap = _obj("a.A", "ffi.Object", 40, ("x", 24, 8, 8), ("y", 28, 8, 8))
    assert classify({"ffi.Object": root, "a.A": overlap})["a.A"].reason == "field-overlap"
    unknown = _obj("a.A", "ffi.Object", None, ("x", 24, 8, 8))
    v = classify({"ffi.Object": root, "a.A": unknown})["a.A"]
    assert v.reason == "layout-unknown" and v.verdict == "opaque"


def test_coverage_out_report(tmp_path):
    import json  # noqa: PLC0415

    out = tmp_path / "cov.json"
    r = _run("--coverage-out", out)
    assert r.returncode == 0, r.stderr
    report = json.loads(out.read_text())
    assert list(report) == sorted(report)
    pair = report["testing.TestIntPair"]
    assert pair["verdict"] == "complete" and pair["is_final"] is True
    assert [f["name"] for f in pair["fields"]] == ["a", "b"]
    hidden = report["testing.TestCxxClassHiddenField"]
    assert hidden["reason"] == "uncovered-bytes" and hidden["uncovered"] == [[32, 40]]
    assert report["ffi.Function"]["reason"] == "layout-unknown"
