"""The binding's layers (core._LAYERS) and the tvm_ffi.core facade over them.

Each layer module imports only earlier layers at module level; an import inside a function
either reaches a later layer or another module and says why; every name downstream code
(the package, these tests, upstream's tests) reads from tvm_ffi.core resolves there, to the
very object its layer defines, including the names rebound at run time."""

import ast
import os
import re
import subprocess
import sys

import pytest

import tvm_ffi
from tvm_ffi import core

PKG = os.path.dirname(tvm_ffi.__file__)
HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM_TESTS = os.path.expanduser(
    "~/.cache/tvm-ffi-c/sdist/apache_tvm_ffi-0.1.15.post2/tests/python")


def _layers():
    """core._LAYERS read from the source (the list is kept in one place: core.py)."""
    tree = ast.parse(open(os.path.join(PKG, "core.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["_LAYERS"]:
            return ast.literal_eval(node.value)
    raise AssertionError("core.py has no _LAYERS")


LAYERS = _layers()


def _package_modules():
    return {f[:-3] for f in os.listdir(PKG) if f.endswith(".py")} | {
        d for d in os.listdir(PKG) if os.path.isfile(os.path.join(PKG, d, "__init__.py"))}


def _imports(path):
    """(module-level?, line, target package module) for each relative import of the file."""
    tree = ast.parse(open(path).read())
    out = []

    def visit(node, top):
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.ClassDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and child.level == 1:
                if child.module:
                    out.append((top, child.lineno, child.module.split(".")[0]))
                else:
                    out.extend((top, child.lineno, a.name) for a in child.names)
            visit(child, inner)

    visit(tree, True)
    return out


def test_layer_list_names_existing_modules_once():
    assert len(set(LAYERS)) == len(LAYERS)
    assert LAYERS[-1] == "core"
    missing = [m for m in LAYERS if not os.path.isfile(os.path.join(PKG, m + ".py"))]
    assert not missing


@pytest.mark.parametrize("name", LAYERS)
def test_layer_imports_only_earlier_layers_at_module_level(name):
    pos = LAYERS.index(name)
    modules = _package_modules()
    for top, line, target in _imports(os.path.join(PKG, name + ".py")):
        if not top or target not in modules:
            continue  # (compiled modules: _ffi_cffi, _capi_ext)
        assert target in LAYERS[:pos], (
            "%s.py:%d imports %s at module level: only layers before it may be "
            "(core._LAYERS)" % (name, line, target))


@pytest.mark.parametrize("name", LAYERS)
def test_function_level_imports_say_why(name):
    """An import inside a function reaches a later layer (or a module above core) and says
    why; one of an earlier layer only hides the layer order, unless it keeps a module that
    loads slow dependencies (ctypes) out of `import tvm_ffi`."""
    path = os.path.join(PKG, name + ".py")
    lines = open(path).read().splitlines()
    pos = LAYERS.index(name)
    modules = _package_modules()
    for top, line, target in _imports(path):
        if top or target not in modules:
            continue
        text, above = lines[line - 1], lines[line - 2].strip()
        assert re.search(r"#.*\S+ - \S", text) or above.startswith("#"), (
            "%s.py:%d: a function-level import needs a comment saying why" % (name, line))
        # an earlier layer is imported at module level, unless it would slow `import tvm_ffi`
        assert target not in LAYERS[:pos] or "import tvm_ffi" in text + above, (
            "%s.py:%d imports the earlier layer %s inside a function: import it at module "
            "level" % (name, line, target))


def test_layers_import_in_order_in_a_fresh_interpreter():
    """Imported one by one in layer order, without the package's __init__ (which imports the
    facade), no layer pulls in a later one."""
    code = """
import importlib, sys, types
pkg = types.ModuleType("tvm_ffi")
pkg.__path__ = [%r]
sys.modules["tvm_ffi"] = pkg
layers = %r
for i, name in enumerate(layers):
    importlib.import_module("tvm_ffi." + name)
    early = [n for n in layers[i + 1:] if "tvm_ffi." + n in sys.modules]
    if early:
        print("importing %%s loaded the later layers %%s" %% (name, early))
        sys.exit(1)
print("ok")
""" % (PKG, LAYERS)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "ok"


def _core_names_used(roots):
    """Names read from tvm_ffi.core: `core.X`, `tvm_ffi.core.X`, `from ...core import X`."""
    names = set()
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for f in files:
                if not f.endswith(".py"):
                    continue
                try:
                    tree = ast.parse(open(os.path.join(dirpath, f), encoding="utf-8").read())
                except (SyntaxError, UnicodeDecodeError):
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom) and (
                            node.module == "tvm_ffi.core" or node.level and node.module == "core"):
                        names.update(a.name for a in node.names)
                    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and (
                            isinstance(node.value, ast.Name) and node.value.id == "core" or
                            isinstance(node.value, ast.Attribute) and node.value.attr == "core"
                            and isinstance(node.value.value, ast.Name)
                            and node.value.value.id == "tvm_ffi"):
                        names.add(node.attr)
    return names


# Names upstream's tests read from its (Cython) core that this binding does not have: each is
# an expected failure of tests/conformance/expected-failures.txt
UPSTREAM_ONLY = {"_OPAQUE_PTR_HANDLERS"}


def test_every_core_name_in_use_resolves():
    roots = [PKG, HERE]
    if os.path.isdir(UPSTREAM_TESTS):
        roots.append(UPSTREAM_TESTS)
    names = _core_names_used(roots)
    assert {"Object", "Function", "_CLASS_TENSOR", "TypeInfo"} <= names
    missing = sorted(n for n in names - UPSTREAM_ONLY if not hasattr(core, n))
    assert not missing


def _defining_layer():
    """name -> layer module defining it (a def, class or assignment at module level)."""
    where = {}
    for name in LAYERS[:-1]:
        tree = ast.parse(open(os.path.join(PKG, name + ".py")).read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.col_offset == 0:
                where.setdefault(node.name, name)
            elif isinstance(node, ast.Assign) and node.col_offset == 0:
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            where.setdefault(n.id, name)
    return where


def test_facade_names_are_the_layers_objects():
    import importlib

    where = _defining_layer()
    checked = 0
    for name, layer in sorted(where.items()):
        if not hasattr(core, name) or name.startswith("__") and name != "__dlpack_version__":
            continue
        mod = importlib.import_module("tvm_ffi." + layer)
        if not hasattr(mod, name):  # defined in the other mode's branch only
            continue
        assert getattr(core, name) is getattr(mod, name), "core.%s is not %s.%s" % (
            name, layer, name)
        checked += 1
        if hasattr(tvm_ffi, name) and not isinstance(getattr(tvm_ffi, name), type(tvm_ffi)):
            assert getattr(tvm_ffi, name) is getattr(core, name), name
    assert checked > 100


def test_facade_forwards_the_classes_rebound_at_run_time():
    from tvm_ffi import _tensor, _values

    class MyTensor(core.Tensor):
        __slots__ = ()

    class MyDevice(core.Device):
        __slots__ = ()

    old_t, old_d = core._CLASS_TENSOR, core._CLASS_DEVICE
    assert old_t is _tensor._CLASS_TENSOR and old_d is _values._CLASS_DEVICE
    core._set_class_tensor(MyTensor)
    core._set_class_device(MyDevice)
    try:
        assert core._CLASS_TENSOR is MyTensor and _tensor._CLASS_TENSOR is MyTensor
        assert core._CLASS_DEVICE is MyDevice
        assert type(tvm_ffi.device("cpu", 0)) is MyDevice
    finally:
        core._set_class_tensor(old_t)
        core._set_class_device(old_d)
    assert core._CLASS_TENSOR is old_t and core._CLASS_DEVICE is old_d


def test_classes_keep_their_core_module_name():
    import pickle

    for cls in (core.Object, core.Function, core.Tensor, core.Device, core.DataType, core.Error):
        assert cls.__module__ == "tvm_ffi.core", cls
    d = pickle.loads(pickle.dumps(tvm_ffi.Device("cuda", 1)))
    assert (d.type, d.index) == ("cuda", 1)
