"""The optional torch C DLPack add-on: loader decisions (fake torch), the builder's two CLIs,
the prebuilt torch-c-dlpack-ext package, and the lazy attach in fresh interpreters.

Real builds happen once per (python, torch) and machine (a shared directory under the temp
dir); the end-to-end checks run in subprocesses with their own cache directory.  On a torch
with a native table (pip's 2.13) they delete it first, which is what an older torch looks like.
"""

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import types

import pytest

import tvm_ffi
from tvm_ffi import _conversion
from tvm_ffi import _optional_torch_c_dlpack as addon

from conftest import needs_torch_addon

# the add-on exists for torch, which has no PyPy build (and it makes capsules through
# ctypes.pythonapi, which PyPy lacks)
pytestmark = needs_torch_addon

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD_PY = os.path.join(os.path.dirname(os.path.abspath(tvm_ffi.__file__)), "torch_c_dlpack_addon",
                        "build.py")
AOT_SRC = os.path.join(TOP, "addons", "torch_c_dlpack_ext")
# the first torch tensor attaches the add-on only where its table can be called: the compiled
# module (ABI mode takes torch tensors through __dlpack__ and never builds one)
attaches_on_first_tensor = pytest.mark.skipif(
    not tvm_ffi._loader.API_MODE, reason="ABI mode never attaches the add-on (no exchange calls)")


def fake_torch(version="2.5.1+cpu", cuda=False, vcuda=None, vhip=None, abi=False, attrs=None):
    tensor = type("Tensor", (), dict(attrs or {}))
    return types.SimpleNamespace(
        __version__=version, Tensor=tensor,
        cuda=types.SimpleNamespace(is_available=lambda: cuda),
        version=types.SimpleNamespace(cuda=vcuda, hip=vhip),
        compiled_with_cxx11_abi=lambda: abi)


def test_device_truth_table():
    assert addon._torch_extension_device(fake_torch()) == "cpu"
    assert addon._torch_extension_device(fake_torch(cuda=True, vcuda="12.8")) == "cuda"
    assert addon._torch_extension_device(fake_torch(cuda=True, vhip="6.2")) == "rocm"
    assert addon._torch_extension_device(fake_torch(cuda=True)) == "cuda"
    assert addon._torch_extension_device(fake_torch(vcuda="12.8")) == "cpu"  # no GPU visible


def test_cache_name_carries_the_abi_and_python_tags():
    tag = sys.implementation.cache_tag
    assert addon.cache_libname(fake_torch(), "cpu") == \
        "libtorch_c_dlpack_addon_torch25-cpu-31b644dc-%s.so" % tag
    assert addon.cache_libname(fake_torch("2.9.0+cu128", abi=True), "cuda") == \
        "libtorch_c_dlpack_addon_torch29-cuda-25ae710d-%s.so" % tag


def test_native_or_legacy_attribute_needs_no_build(monkeypatch):
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)
    native = fake_torch(attrs={"__dlpack_c_exchange_api__": object()})
    monkeypatch.setitem(sys.modules, "torch", native)
    monkeypatch.setattr(addon, "_jit_load", lambda t: pytest.fail("must not build"))
    assert addon.load_torch_c_dlpack_extension() is None
    buf = ctypes.create_string_buffer(56)
    legacy = fake_torch(attrs={"__c_dlpack_exchange_api__": ctypes.addressof(buf)})
    monkeypatch.setitem(sys.modules, "torch", legacy)
    assert addon.load_torch_c_dlpack_extension() is None
    cap = legacy.Tensor.__dlpack_c_exchange_api__
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    assert get(cap, b"dlpack_exchange_api") == ctypes.addressof(buf)


def test_disabled_by_environment(monkeypatch):
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    monkeypatch.setattr(addon, "_jit_load", lambda t: pytest.fail("must not build"))
    assert addon.load_torch_c_dlpack_extension() is None
    assert not hasattr(t.Tensor, "__dlpack_c_exchange_api__")


@pytest.fixture
def failing_builder(monkeypatch, tmp_path):
    """A fake torch without the table and a builder that fails, counting its runs."""
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setitem(sys.modules, "torch_c_dlpack_ext", None)  # import fails
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    runs = tmp_path / "runs"
    failing = tmp_path / "fail.py"
    failing.write_text(
        "import sys\nopen(%r, 'a').write('x')\n"
        "print('addon.cc:5:10: fatal error: ATen/ATen.h: No such file or directory',"
        " file=sys.stderr)\nsys.exit(3)\n" % str(runs))
    monkeypatch.setattr(addon, "_BUILD_PY", str(failing))
    return t, runs


def test_failed_build_is_reported_once_with_the_fix(failing_builder, monkeypatch):
    t, runs = failing_builder
    with pytest.warns(UserWarning) as rec:
        assert addon.load_torch_c_dlpack_extension() is None
    text = str(rec[0].message)
    assert text.startswith(
        "Failed to JIT torch c dlpack extension, EnvTensorAllocator will not be enabled.\n"
        "We recommend installing via `pip install torch-c-dlpack-ext`\n")
    assert "apt-get install libtorch-dev" in text  # what is missing, and how to get it
    cache = os.environ["TVM_FFI_CACHE_DIR"]
    name = addon.cache_libname(t, "cpu")
    assert "--output-dir %s --libname %s" % (cache, name) in text  # the command that builds it
    assert "TVM_FFI_DISABLE_TORCH_C_DLPACK=1" in text
    assert runs.read_text() == "x"
    with open(os.path.join(cache, name + ".failed")) as f:
        assert "ATen/ATen.h" in json.load(f)["output"]
    assert not hasattr(t.Tensor, "__dlpack_c_exchange_api__")
    # a later attempt (another import, another process) neither rebuilds nor warns
    import warnings  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert addon.load_torch_c_dlpack_extension() is None
    assert runs.read_text() == "x"
    # another compiler is another attempt
    monkeypatch.setenv("CXX", "c++ -O1")
    with pytest.warns(UserWarning):
        assert addon.load_torch_c_dlpack_extension() is None
    assert runs.read_text() == "xx"


def test_jit_builds_into_the_cache_once(monkeypatch, tmp_path):
    """The builder runs in a fresh interpreter with the cache name; a second load finds the
    library (the fake builder writes a library exporting a valid-looking table pointer)."""
    if not shutil.which("cc"):
        pytest.skip("no C compiler (cc)")
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setitem(sys.modules, "torch_c_dlpack_ext", None)
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "table.c"
    src.write_text("static char table[56];\n"
                   "long long TorchDLPackExchangeAPIPtr(void) { return (long long)table; }\n")
    fake = tmp_path / "builder.py"
    fake.write_text(
        "import os, subprocess, sys\n"
        "open(%r, 'a').write(repr(sys.argv[1:]) + '\\n')\n"
        "a = sys.argv\n"
        "out = os.path.join(a[a.index('--output-dir') + 1], a[a.index('--libname') + 1])\n"
        "os.makedirs(os.path.dirname(out), exist_ok=True)\n"
        "subprocess.run(['cc', '-shared', '-fPIC', %r, '-o', out], check=True)\n"
        % (str(tmp_path / "runs"), str(src)))
    monkeypatch.setattr(addon, "_BUILD_PY", str(fake))
    monkeypatch.setattr(addon, "_LIB", None)
    assert addon.load_torch_c_dlpack_extension() is not None
    assert hasattr(t.Tensor, "__dlpack_c_exchange_api__")
    del t.Tensor.__dlpack_c_exchange_api__
    assert addon.load_torch_c_dlpack_extension() is not None  # from the cache
    runs = (tmp_path / "runs").read_text().splitlines()
    assert len(runs) == 1
    assert "'--libname', '%s'" % addon.cache_libname(t, "cpu") in runs[0]


class _API(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev", ctypes.c_void_p)] + [("f%d" % i, ctypes.c_void_p) for i in range(5)]


@attaches_on_first_tensor
def test_classify_attaches_on_the_first_torch_type(monkeypatch):
    """_conversion._classify asks for the add-on when it first meets a torch tensor type without the
    table, once per process, and classifies that type with the table it got."""

    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setattr(addon, "_TRIED", False)
    buf = _API(major=1, minor=3, f1=1, f2=1)  # a table that passes validation (never called)
    calls = []

    def load():
        calls.append(1)
        t.Tensor.__dlpack_c_exchange_api__ = addon._capsule(ctypes.addressof(buf))

    monkeypatch.setattr(addon, "load_torch_c_dlpack_extension", load)
    sub = type("Sub", (t.Tensor,), {})
    assert _conversion._classify(sub) == (_conversion.RULE_EXCHANGE, ctypes.addressof(buf))
    assert _conversion._classify(t.Tensor) == (_conversion.RULE_EXCHANGE, ctypes.addressof(buf))
    del t.Tensor.__dlpack_c_exchange_api__
    assert _conversion._classify(t.Tensor) == _conversion.RULE_SLOW  # tried once: the fallback stays
    assert calls == [1]


def _aot_key():
    import torch  # noqa: PLC0415

    sys.path.insert(0, os.path.join(AOT_SRC, "torch_c_dlpack_ext"))
    try:
        import _key  # noqa: PLC0415
    finally:
        sys.path.pop(0)
        sys.modules.pop("_key", None)
    return _key.key(torch)


@pytest.fixture(scope="module")
def built_addon():
    """The seed CLI, twice in parallel, into the library directory of a copy of the
    torch-c-dlpack-ext package: both exit 0 and leave one library (the file lock)."""
    torch = pytest.importorskip("torch")
    if not shutil.which((os.environ.get("CXX") or "c++").split()[0]):
        pytest.skip("no C++ compiler")
    # shared across the suite's runs: one build per (python, torch) and machine
    shared = os.path.join(tempfile.gettempdir(), "tvm-ffi-torch-addon-tests-%d" % os.getuid())
    pkg = os.path.join(shared, "pkg-" + _aot_key())
    libdir = os.path.join(pkg, "torch_c_dlpack_ext", "lib", _aot_key())
    for f in ("__init__.py", "_key.py"):  # the package's code is always the checkout's
        os.makedirs(os.path.join(pkg, "torch_c_dlpack_ext"), exist_ok=True)
        shutil.copyfile(os.path.join(AOT_SRC, "torch_c_dlpack_ext", f),
                        os.path.join(pkg, "torch_c_dlpack_ext", f))
    shutil.copyfile(os.path.join(AOT_SRC, "build_aot.py"), os.path.join(pkg, "build_aot.py"))
    cmd = [sys.executable, BUILD_PY, "--build_dir", libdir]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0 and "No such file" in err and "ATen/ATen.h" in err:
            pytest.skip("torch %s's C++ headers are not installed (Debian: libtorch-dev)"
                        % torch.__version__)
        assert p.returncode == 0, out + err
        assert out.strip().splitlines()[-1] == os.path.join(libdir, "libtorch_c_dlpack_addon.so")
    assert [f for f in os.listdir(libdir) if f.endswith(".so")] == ["libtorch_c_dlpack_addon.so"]
    return pkg, os.path.join(libdir, "libtorch_c_dlpack_addon.so")


def test_seed_cli_output_and_table(built_addon):
    path = built_addon[1]
    lib = ctypes.CDLL(path)
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_int64
    addr = lib.TorchDLPackExchangeAPIPtr()
    assert addr != 0
    api = _API.from_address(addr)
    assert (api.major, api.minor) == (1, 3) and api.prev is None
    assert all(getattr(api, "f%d" % i) for i in range(5))
    # the library depends on torch (and the C/C++ runtimes) only, never on tvm_ffi
    needed = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    assert "libtvm_ffi" not in needed and "libtorch" in needed


def test_upstream_cli_finds_the_library(built_addon):
    path = built_addon[1]
    mtime = os.stat(path).st_mtime_ns
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tvm_ffi.utils._build_optional_torch_c_dlpack",
                        "--output-dir", os.path.dirname(path), "--libname",
                        os.path.basename(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == path
    assert os.stat(path).st_mtime_ns == mtime and time.perf_counter() - t < 30


def test_addon_table_drives_tvm_ffi_calls(built_addon):
    import torch

    lib = ctypes.CDLL(built_addon[1])
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_uint64

    class AddonTensor(torch.Tensor):  # carries the add-on's table whatever torch has natively
        pass

    AddonTensor.__dlpack_c_exchange_api__ = addon._capsule(lib.TorchDLPackExchangeAPIPtr())
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1:].as_subclass(AddonTensor)
    echo = tvm_ffi.get_global_func("testing.echo")
    y = echo(x)
    assert isinstance(y, torch.Tensor)
    assert y.shape == (3, 3) and y.stride() == x.stride()
    assert y.data_ptr() == x.data_ptr()  # zero-copy through from/to_py_object
    y[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    b = torch.zeros(2, dtype=torch.bool).as_subclass(AddonTensor)
    assert echo(b).dtype == torch.bool


# A fresh interpreter importing tvm_ffi BEFORE torch, as an older torch (no native table).
# Prints JSON: whether the table was there before/after the first call, what came back, and
# whether the prebuilt package was imported.
PROBE = r"""
import json, sys
import tvm_ffi
import torch
for name in ("__dlpack_c_exchange_api__", "__c_dlpack_exchange_api__"):
    if name in torch.Tensor.__dict__:
        delattr(torch.Tensor, name)
before = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
x = torch.arange(6, dtype=torch.float32)
y = tvm_ffi.get_global_func("testing.echo")(x)
print(json.dumps({"before": before, "after": hasattr(torch.Tensor, "__dlpack_c_exchange_api__"),
                  "torch_result": isinstance(y, torch.Tensor) and y.data_ptr() == x.data_ptr(),
                  "aot": "torch_c_dlpack_ext" in sys.modules}))
"""


def _probe(tmp_path, **env):
    full = dict(os.environ, TVM_FFI_CACHE_DIR=str(tmp_path / "cache"))
    full.pop("TVM_FFI_DISABLE_TORCH_C_DLPACK", None)
    full.update(env)
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=full)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def _seed_cache(tmp_path, lib):
    import torch  # noqa: PLC0415

    cache = tmp_path / "cache"
    cache.mkdir()
    name = addon.cache_libname(torch, addon._torch_extension_device(torch))
    shutil.copyfile(lib, cache / name)
    return cache


@attaches_on_first_tensor
def test_import_order_does_not_matter(built_addon, tmp_path):
    """tvm_ffi imported before torch: the first torch argument attaches the cached add-on
    (no build: the cache gets no lock file) and the call takes the exchange path."""
    cache = _seed_cache(tmp_path, built_addon[1])
    got, err = _probe(tmp_path)
    assert got == {"before": False, "after": True, "torch_result": True, "aot": False}, err
    assert not [f for f in os.listdir(cache) if f.endswith(".lock")]


def test_environment_switch_turns_the_addon_off(built_addon, tmp_path):
    _seed_cache(tmp_path, built_addon[1])
    got, err = _probe(tmp_path, TVM_FFI_DISABLE_TORCH_C_DLPACK="1")
    assert got == {"before": False, "after": False, "torch_result": True, "aot": False}, err


@attaches_on_first_tensor
def test_prebuilt_package_is_used_before_any_jit_build(built_addon, tmp_path):
    """build_aot.py lays the package out (the library exists: no second build); with the
    package on the path, the add-on comes from it and the (empty) cache stays untouched."""
    pkg = built_addon[0]
    r = subprocess.run([sys.executable, os.path.join(pkg, "build_aot.py"), "--python",
                        sys.executable, "--package-dir", pkg, "--tvm-ffi",
                        os.path.dirname(os.path.abspath(tvm_ffi.__file__))],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith(built_addon[1])
    got, err = _probe(tmp_path, PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))
    assert got == {"before": False, "after": True, "torch_result": True, "aot": True}, err
    assert not (tmp_path / "cache").exists()
