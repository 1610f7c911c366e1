"""load_module and Module (docs/python.md §15), with the C test kernel tests/c/kernels/kadd.c."""

import os
import pathlib
import traceback

import pytest

import tvm_ffi

KERNEL_DIR = os.environ.get("TVMFFI_TEST_KERNEL_DIR", "")
KADD = os.path.join(KERNEL_DIR, "kadd.so")
needs_kernel = pytest.mark.skipif(
    not os.path.isfile(KADD), reason="kernel kadd.so not built (TVMFFI_TEST_KERNEL_DIR)"
)


@needs_kernel
def test_load_and_call(np):
    mod = tvm_ffi.load_module(KADD)
    assert isinstance(mod, tvm_ffi.Module) and mod.kind == "library"
    x = np.arange(5, dtype="float32")
    y = np.zeros(5, dtype="float32")
    mod.add_one(x, y)
    np.testing.assert_equal(y, x + 1)
    assert mod.add_int(10, 20) == 30
    assert mod["greet"]("bob") == "hello, bob"
    assert mod.add_int is mod.add_int  # cached after the first access
    assert mod() == 42  # mod(...) calls `main`
    assert mod.handle_is_null() is True


@needs_kernel
def test_module_errors():
    mod = tvm_ffi.load_module(pathlib.Path(KADD))
    with pytest.raises(AttributeError, match="Module has no function 'missing_name'"):
        mod.missing_name
    with pytest.raises(ValueError, match="Can only take string as function name"):
        mod[0]
    assert mod.implements_function("add_int") and not mod.implements_function("nope")
    with pytest.raises(ValueError, match="boom") as info:
        mod.fail("boom")
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename.endswith("kadd.c") for f in frames)  # native frame of the kernel
    with pytest.raises(TypeError):
        mod.fail()


@needs_kernel
def test_module_metadata_and_doc():
    mod = tvm_ffi.load_module(KADD)
    meta = mod.get_function_metadata("add_int")
    assert meta is None or isinstance(meta, dict)
    doc = mod.get_function_doc("add_int")
    assert doc is None or isinstance(doc, str)
    assert mod.get_function_doc("add_one") is None


def test_load_module_bad_paths(tmp_path):
    with pytest.raises(RuntimeError):
        tvm_ffi.load_module(str(tmp_path / "libnoext"))
    with pytest.raises(RuntimeError, match="unknownext"):
        tvm_ffi.load_module(str(tmp_path / "x.unknownext"))
    with pytest.raises(RuntimeError):
        tvm_ffi.load_module(str(tmp_path / "missing.so"))


_LOAD_SPECIAL = """
import sys, tvm_ffi
try:
    tvm_ffi.load_module(sys.argv[1])
except RuntimeError as e:
    print(e)
"""


@pytest.mark.parametrize("kind", ["fifo", "fifo_link", "fifo_other_format", "directory",
                                  "dev_zero", "dev_null"])
def test_load_module_refuses_what_is_not_a_regular_file(tmp_path, kind):
    # a FIFO blocked the loader's read forever; devices and directories fail at once with a
    # message naming what the path is (a child process: a regression hangs it, not the suite)
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    path = tmp_path / ("x.o" if kind == "fifo_other_format" else "x.so")
    if kind.startswith("fifo"):
        os.mkfifo(tmp_path / "p")
        if kind == "fifo_link":
            path.symlink_to(tmp_path / "p")
        else:
            os.rename(tmp_path / "p", path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/" + kind[4:])
    r = subprocess.run([sys.executable, "-c", _LOAD_SPECIAL, str(path)], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr[-2000:]
    what = {"directory": "a directory", "dev_zero": "a character device",
            "dev_null": "a character device"}.get(kind, "a FIFO")
    assert "it is %s" % what in r.stdout and str(path) in r.stdout, r.stdout


@needs_kernel
@pytest.mark.parametrize("keep", [700, 4096, 8192])
def test_load_module_refuses_a_truncated_library(tmp_path, keep):
    # dlopen of an ELF file cut short (an interrupted copy) died of SIGBUS in the dynamic
    # loader; the loader now compares the file's size with its segments first
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    data = open(KADD, "rb").read()
    path = tmp_path / "cut.so"
    path.write_bytes(data[:keep])
    r = subprocess.run([sys.executable, "-c", _LOAD_SPECIAL, str(path)], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "the file is truncated" in r.stdout and str(path) in r.stdout, r.stdout


def test_imports_reads_reflected_field():
    # Module.imports reads the runtime's reflected field `imports_` (docs/python.md §15.2)
    m = tvm_ffi.system_lib()
    other = tvm_ffi.system_lib("imports_test_")
    assert m.imports == []
    m.import_module(other)
    imps = m.imports
    assert len(imps) == 1 and isinstance(imps[0], tvm_ffi.Module) and imps[0].same_as(other)
    assert m.imports_[0].same_as(other)  # the field itself, as upstream exposes it
    m.clear_imports()
    assert m.imports == []
    with pytest.raises(RuntimeError, match="Cyclic dependency"):
        other.import_module(other)


@needs_kernel
def test_symbols_that_are_data_are_refused_not_called():
    # tests/c/kernels/kdatasym.c: a "function", its metadata and its doc are data; calling
    # them crashed the process (issue 22 item 7)
    mod = tvm_ffi.load_module(os.path.join(KERNEL_DIR, "kdatasym.so"))
    assert mod.ok() == 7
    with pytest.raises(TypeError, match="__tvm_ffi_data_fn of the library is data"):
        mod.data_fn  # noqa: B018
    assert not mod.implements_function("data_fn")
    with pytest.raises(TypeError, match="__tvm_ffi__metadata_ok of the library is data"):
        mod.get_function_metadata("ok")
    with pytest.raises(TypeError, match="__tvm_ffi__doc_ok"):
        mod.get_function_doc("ok")
    with pytest.raises(RuntimeError, match="__tvm_ffi__library_ctx, which the runtime writes"):
        tvm_ffi.load_module(os.path.join(KERNEL_DIR, "kroctx.so"))
