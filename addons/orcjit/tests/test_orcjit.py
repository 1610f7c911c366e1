"""The ORC JIT loader from Python (docs/dlpack-and-addons.md Part C): sessions, modules, errors,
constructors/destructors, lifetimes, the seed ObjectLoader and tvm_ffi.load_module("x.o")."""
import gc
import pathlib
import threading

import pytest

import tvm_ffi
import tvm_ffi_orcjit
from tvm_ffi_orcjit import ExecutionSession, ObjectLoader, default_session

LOG = []


@tvm_ffi.register_global_func("testing.orcjit_append_log", override=True)
def _append_log(s):
    LOG.append(str(s))


@tvm_ffi.register_global_func("testing.orcjit_host_add", override=True)
def _host_add(a, b):
    return a + b + 100


def test_session_and_basic_calls(objs):
    s = ExecutionSession()
    mod = s.load_module(objs["test_funcs"])
    assert mod.kind == "orcjit"
    assert mod.test_add(10, 20) == 30
    assert mod.test_multiply(5, 6) == 30
    # the prefix is the loader's business: the raw symbol name is not a function name
    with pytest.raises(AttributeError, match="Module has no function"):
        mod.get_function("__tvm_ffi_test_add")


def test_multiple_objects_one_module(objs):
    mod = ExecutionSession().load_module([objs["test_funcs"], pathlib.Path(objs["test_funcs2"])])
    assert (mod.test_add(1, 2), mod.test_subtract(10, 3), mod.test_divide(12, 4)) == (3, 7, 3)


def test_bytes_items_and_empty_list(objs):
    s = ExecutionSession()
    data = open(objs["test_funcs"], "rb").read()
    assert s.load_module(data).test_add(2, 3) == 5
    assert s.load_module([bytearray(data)], name="from_bytes").test_multiply(2, 3) == 6
    empty = s.load_module([])
    with pytest.raises(AttributeError, match="Module has no function 'test_add'"):
        empty.test_add


def test_isolation_and_duplicates(objs):
    s = ExecutionSession()
    a = s.load_module(objs["test_funcs"])
    b = s.load_module(objs["test_funcs_conflict"])
    assert (a.test_add(10, 20), b.test_add(10, 20)) == (30, 1030)
    assert (a.test_multiply(5, 6), b.test_multiply(5, 6)) == (30, 60)
    c = s.load_module(objs["test_funcs2"])
    with pytest.raises(AttributeError):
        c.test_add  # modules never see each other's symbols
    with pytest.raises(RuntimeError, match="Duplicate definition of symbol"):
        s.load_module([objs["test_funcs"], objs["test_funcs_conflict"]])
    # the session stays usable after a failed load
    assert s.load_module(objs["test_funcs"]).test_add(1, 1) == 2


def test_sessions_are_independent(objs):
    a = ExecutionSession().load_module(objs["test_funcs"])
    b = ExecutionSession().load_module(objs["test_funcs_conflict"])
    assert (a.test_add(1, 2), b.test_add(1, 2)) == (3, 1003)


def test_host_callbacks_and_context(objs):
    mod = ExecutionSession().load_module([objs["test_call_global"], objs["test_context"]])
    assert mod.test_call_global_add(1, 2) == 103
    assert mod.context_is_set() == 1


def test_context_seen_by_concurrent_lookups(objs):
    mod = ExecutionSession().load_module(objs["test_context"])
    out = []

    def work():
        out.append(mod.get_function("context_is_set")())

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [1] * 8


def test_error_propagation(objs):
    mod = ExecutionSession().load_module([objs["test_error"], objs["test_cpp"]])
    with pytest.raises(ValueError, match="test error"):
        mod.test_error()
    with pytest.raises(RuntimeError, match="test error"):
        mod.cpp_throw(1)


def test_bad_inputs(objs, tmp_path):
    s = ExecutionSession()
    with pytest.raises(OSError, match="Failed to read object file: .*nonexistent.o"):
        s.load_module(str(tmp_path / "nonexistent.o"))
    with pytest.raises(RuntimeError, match="failed: .*not recognized as a valid object file"):
        s.load_module(b"definitely not an object file")
    with pytest.raises(TypeError, match="load_module objects must be a path .* but got int"):
        s.load_module([objs["test_funcs"], 3])
    with pytest.raises(TypeError, match="orc_rt must be 'auto', .* but got int"):
        ExecutionSession(orc_rt=5)
    assert ExecutionSession(orc_rt=None).load_module(objs["test_funcs"]).test_add(1, 2) == 3
    raw_load = tvm_ffi.get_global_func("tvm_ffi_orcjit.SessionLoadModule")
    with pytest.raises(TypeError, match="expected a tvm_ffi_orcjit.ExecutionSession, got None"):
        raw_load(None, [], "")
    add = tvm_ffi.get_global_func("tvm_ffi_orcjit.DynamicLibraryAdd")
    with pytest.raises(TypeError, match="expected a tvm_ffi_orcjit.DynamicLibrary, got "
                                        "tvm_ffi_orcjit.ExecutionSession"):
        add(s, objs["test_funcs"])


def test_unresolved_external(objs):
    mod = ExecutionSession().load_module(objs["test_unresolved"])
    with pytest.raises(RuntimeError, match="Failed to materialize symbols"):
        mod.broken()


def test_types_cpp(objs):
    mod = ExecutionSession().load_module(objs["test_cpp"], keep_module_alive=True)
    assert mod.cpp_scale_add(3, 4) == 34  # the static constructor ran exactly once
    assert mod.cpp_float_multiply(2.0, 3.14) == pytest.approx(6.28)
    assert mod.cpp_replace("hello world") == "heLLo worLd"
    assert list(mod.cpp_concat([1, 2, 3], [4, 5, 6])) == [1, 2, 3, 4, 5, 6]


def test_ctor_dtor_order(objs):
    del LOG[:]
    mod = ExecutionSession().load_module(objs["test_ctor_dtor"])
    mod.main()
    del mod
    gc.collect()
    assert LOG == ["<init_array.101>", "<init_array.102>", "<init_array.103>", "<init_array>",
                   "<ctors.103>", "<ctors.102>", "<ctors.101>", "<ctors>", "<main>",
                   "<dtors>", "<fini_array>"]


def test_cpp_static_destructor_runs_at_drop(objs):
    mod = ExecutionSession().load_module(objs["test_cpp"])
    assert mod.cpp_scale_add(0, 0) == 0
    del LOG[:]
    del mod
    gc.collect()
    assert LOG == ["<cpp dtor>"]


def test_function_keeps_module_alive(objs):
    s = ExecutionSession()
    f = s.load_module(objs["test_funcs"]).get_function("test_add")
    gc.collect()
    assert f(11, 31) == 42
    del s
    gc.collect()
    assert f(1, 1) == 2  # the module holds its session


def test_reload_cycles_and_siblings(objs):
    s = ExecutionSession()
    keep = s.load_module(objs["test_funcs2"])
    for i in range(32):
        mod = s.load_module(objs["test_funcs"])
        assert mod.test_add(i, 1) == i + 1
        del mod
    assert keep.test_subtract(5, 2) == 3


def test_link_within_one_module_only(objs):
    s = ExecutionSession()
    mod = s.load_module([objs["test_link_base"], objs["test_link_caller"]])
    assert mod.cross_lib_add(2, 3) == 6
    alone = s.load_module(objs["test_link_caller"])
    with pytest.raises(RuntimeError, match="Failed to materialize"):
        alone.cross_lib_add(2, 3)


def test_library_bin_import_tree(objs):
    s = ExecutionSession()
    seen = []

    def load_testkind(payload):
        seen.append(bytes(payload))
        return s.load_module(objs["test_funcs2"])  # re-enters the session

    tvm_ffi.register_global_func("ffi.Module.load_from_bytes.testkind", load_testkind,
                                 override=True)
    root = s.load_module(objs["test_library_bin"])
    assert seen == [b"payload"]
    assert root.bin_root() == 7
    assert not root.implements_function("test_subtract")  # only through the import
    assert root.get_function("test_subtract", query_imports=True)(9, 4) == 5
    with pytest.raises(RuntimeError, match="import tree indptr must start at 0"):
        s.load_module(objs["test_library_bin_corrupt"])


def test_default_session_is_a_singleton(objs):
    out = []
    threads = [threading.Thread(target=lambda: out.append(default_session())) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o is out[0] for o in out) and isinstance(out[0], ExecutionSession)
    assert default_session() is out[0]
    assert out[0].clear_free_slabs() == 0


def test_concurrent_load_call_drop(objs):
    s = default_session()
    errors = []

    def work(k):
        try:
            for i in range(4):
                mod = s.load_module([objs["test_funcs"], objs["test_funcs2"]])
                assert mod.test_add(k, i) == k + i and mod.test_subtract(k, i) == k - i
                del mod
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_object_loader_incremental(objs):
    loader = ObjectLoader()
    loader.load(objs["test_link_base"])
    loader.load(objs["test_funcs"])
    assert loader.get_function("test_add")(1, 2) == 3
    loader.load(objs["test_link_caller"])  # uses helper_add of the first object
    assert loader.get_function("cross_lib_add")(1, 2) == 4
    with pytest.raises(RuntimeError, match="Duplicate definition"):
        loader.load(objs["test_funcs_conflict"])
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        loader.get_function("nope")


def test_load_module_dot_o(objs):
    mod = tvm_ffi.load_module(objs["test_funcs"])
    assert mod.kind == "orcjit" and mod.test_add(20, 22) == 42


def test_version():
    assert isinstance(tvm_ffi_orcjit.__version__, str)


def test_missing_library_is_reported(tmp_path):
    import os
    import subprocess
    import sys

    import shutil

    # a copy of the package without its lib/ (an installed package has one)
    shutil.copytree(os.path.dirname(tvm_ffi_orcjit.__file__), str(tmp_path / "tvm_ffi_orcjit"),
                    ignore=shutil.ignore_patterns("lib", "__pycache__"))
    path = os.pathsep.join([str(tmp_path)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env = dict(os.environ, TVM_FFI_ORCJIT_LIBRARY=str(tmp_path / "nowhere.so"), PYTHONPATH=path)
    r = subprocess.run([sys.executable, "-c", "import tvm_ffi_orcjit"], env=env,
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode != 0
    assert "RuntimeError: Could not find libtvm_ffi_orcjit.so. Searched in [" in r.stderr
    assert "nowhere.so" in r.stderr and "Please ensure the package is installed" in r.stderr
