"""load_module plugs in loaders that installed packages advertise through the entry-point group
``tvm_ffi.module_loaders`` (the ORC JIT add-on's ``o = "tvm_ffi_orcjit"``), in fresh
interpreters with a fake distribution on the path."""

import os
import subprocess
import sys

import tvm_ffi

LOADER_MODULE = '''
import tvm_ffi

@tvm_ffi.register_global_func("ffi.Module.load_from_file.fakekind")
def _load(path, fmt):
    mod = tvm_ffi.system_lib()
    open(path + ".loaded", "w").write(fmt)
    return mod
'''


def _fake_distribution(root, entry_points):
    (root / "fake_loader_pkg.py").write_text(LOADER_MODULE)
    info = root / "fake_loader_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-loader-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def _run(root, code):
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(tvm_ffi.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([str(root), here] + [p for p in [env.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=str(root),
                          capture_output=True, text=True)


def test_entry_point_plugs_in_an_unknown_file_kind(tmp_path):
    _fake_distribution(tmp_path, "[tvm_ffi.module_loaders]\nfakekind = fake_loader_pkg\n")
    (tmp_path / "x.fakekind").write_text("")
    r = _run(tmp_path, "import sys, tvm_ffi\n"
                       "assert 'fake_loader_pkg' not in sys.modules\n"
                       "m = tvm_ffi.load_module('x.fakekind')\n"
                       "assert isinstance(m, tvm_ffi.Module)\n"
                       "assert 'fake_loader_pkg' in sys.modules\n")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.fakekind.loaded").read_text() == "fakekind"


def test_kind_without_a_loader_keeps_the_runtime_error(tmp_path):
    _fake_distribution(tmp_path, "[tvm_ffi.module_loaders]\nother = fake_loader_pkg\n")
    r = _run(tmp_path, "import sys, tvm_ffi\n"
                       "try:\n"
                       "    tvm_ffi.load_module('x.fakekind')\n"
                       "except RuntimeError as e:\n"
                       "    print(e)\n"
                       "assert 'fake_loader_pkg' not in sys.modules\n")
    assert r.returncode == 0, r.stderr
    assert "Loader for `.fakekind` files is not registered" in r.stdout


def test_shared_libraries_never_consult_entry_points(monkeypatch):
    from importlib import metadata  # noqa: PLC0415

    monkeypatch.setattr(metadata, "entry_points", lambda **kw: 1 / 0)
    kernel = os.path.join(os.environ.get("TVMFFI_TEST_KERNEL_DIR", ""), "nowhere.so")
    try:
        tvm_ffi.load_module(kernel)
    except RuntimeError:
        pass  # the missing file, reported by the .so loader
