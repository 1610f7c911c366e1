"""A C++ extension built against the apache-tvm-ffi wheel's headers, loaded into our runtime:
a ModuleObj subclass used as a module from Python, and the wheel headers' out-of-line C++ API
(docs/cxx-abi.md).  Usage: upstream_cxx_check.py EXTENSION.so (test_upstream_cxx.sh builds it)."""

import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(here)), "python"))
import tvm_ffi  # noqa: E402
import tvm_ffi.access_path  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def raises(kind, needle, fn, *args):
    try:
        fn(*args)
    except kind as err:
        check(needle in str(err), "%s message %r lacks %r" % (kind.__name__, str(err), needle))
        return
    except Exception as err:  # noqa: BLE001 - report the wrong kind
        check(False, "expected %s, got %s: %s" % (kind.__name__, type(err).__name__, err))
        return
    check(False, "expected %s, nothing raised" % kind.__name__)


ext = sys.argv[1]
# Optionally a C library loaded first: with TVM_FFI_NO_CXX_ABI=1 its module is made before the
# C++ ABI library is loaded (by the loader, for the extension), and must get the vtable then.
early = tvm_ffi.load_module(sys.argv[2]) if len(sys.argv) > 2 else None
lib = tvm_ffi.load_module(ext)  # its static initialiser registers upstream_ext.*
g = tvm_ffi.get_global_func
if early is not None:
    check(g("upstream_ext.kind_of")(early) == "library", "C++ kind() of a module made earlier")
    check(g("upstream_ext.has_own")(early, "add_one"), "C++ GetFunction of a module made earlier")

# a C++ module (ModuleObj subclass built with upstream's headers) as an ffi.Module
m = g("upstream_ext.make_module")(3)
check(m.kind == "demo", "kind %r" % m.kind)
check(m.get_property_mask() == 6, "property mask %r" % m.get_property_mask())
check(m["scale"](14) == 42, "scale")
check(m.implements_function("scale") and not m.implements_function("nope"), "implements")
raises(AttributeError, "nope", m.get_function, "nope")
raises(ValueError, "demo failure", m["fail"])
raises(TypeError, "GetFunction(broken) throws", m.get_function, "broken")
check(list(m.get_write_formats()) == ["txt"], "write formats")
check(m.inspect_source("asm") == "source:asm", "inspect_source")
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "m.txt")
    m.write_to_file(path, "txt")
    with open(path) as f:
        check(f.read() == "demo txt 3", "write_to_file")

# imports across the two kinds, both ways
m.import_module(lib)
check(len(m.imports) == 1 and m.imports[0].same_as(lib), "imports of the C++ module")
check(g("upstream_ext.num_imports")(m) == 1, "imports_ seen from C++")
other = g("upstream_ext.make_module")(5)
lib.import_module(other)
check(m.get_function("scale", query_imports=True)(2) == 6, "own function first")
check(lib.get_function("scale", query_imports=True)(2) == 10, "through the library's import")
check(g("upstream_ext.call_imported")(lib, "scale", 4) == 20, "C++ GetFunction(name, true)")
g("upstream_ext.import")(other, g("upstream_ext.make_module")(7))
check(g("upstream_ext.num_imports")(other) == 1, "C++ ImportModule")
raises(RuntimeError, "Cyclic", m.import_module, m)

# C++ virtual calls on modules the runtime made
check(g("upstream_ext.kind_of")(lib) == "library", "C++ kind() of a library module")
check(g("upstream_ext.has_own")(lib, "no_such") is False, "C++ GetFunction(name) of a library")
loaded = g("upstream_ext.load")(ext)
check(loaded.kind == "library", "C++ Module::LoadFromFile")

# the other out-of-line functions
check(g("upstream_ext.structural_equal")([1, 2], [1, 2]), "StructuralEqual::Equal")
check(not g("upstream_ext.structural_equal")([1, 2], [1, 3]), "StructuralEqual::Equal (differs)")
check(g("upstream_ext.structural_hash")([1, 2]) == g("upstream_ext.structural_hash")([1, 2]),
      "StructuralHash::Hash")
check(g("upstream_ext.json_roundtrip")('{"a": [1, 2]}') == '{"a":[1,2]}', "json Parse/Stringify")

# VisitErrorContext::FindAccessPaths over a graph of AccessPath objects (their
# reflected fields, an Array and a Map); results as (kind, key) step lists.
find = g("upstream_ext.find_access_paths")
R = tvm_ffi.access_path.AccessPath.root
x, y = R().attr("x"), R().attr("y")
q = R().map_item([x, {"k": y}])


def found(pattern, prefix=False):
    return [[(int(s.kind), s.key) for s in p.to_steps()] for p in find(q, pattern, prefix)]


to_y = [(0, "step"), (0, "key"), (1, 1), (2, "k")]
check(found([x]) == [[(0, "step"), (0, "key"), (1, 0)]], "FindAccessPaths: through an Array")
check(found([y.parent, y]) == [to_y + [(0, "parent")]], "FindAccessPaths: through a Map")
check(found([y.parent, y.parent, y, y]) == [to_y + [(0, "parent")]],
      "FindAccessPaths: repeated entries collapse")
check(found([x, y]) == [], "FindAccessPaths: no match")
check(found([x, y], True) == [to_y + [(0, "parent")], to_y + [(0, "step")]],
      "FindAccessPaths: prefix matches")
check(found([q]) == [[]], "FindAccessPaths: the root itself")

with open("/proc/self/maps") as maps:
    runtimes = {line.split()[-1] for line in maps if line.rstrip().endswith("/libtvm_ffi.so")}
check(len(runtimes) == 1 and os.path.realpath(runtimes.pop()) ==
      os.path.realpath(tvm_ffi._loader.find_library()), "only our libtvm_ffi.so is mapped")
if failures:
    sys.exit(1)
print("ok: C++ module and C++ API of a wheel-built extension on our runtime")
