"""tvm_ffi.cpp: JIT builds, the content-hashed cache, concurrent builds, errors, CUDA."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid

import pytest

import tvm_ffi
from conftest import needs_prompt_free
import tvm_ffi.cpp

_CXX = (os.environ.get("CXX") or "c++").split()[0]
pytestmark = pytest.mark.skipif(not shutil.which(_CXX), reason="no C++ compiler (%s)" % _CXX)

try:
    tvm_ffi.cpp.extension.tc.find_ninja()
    _NINJA = True
except RuntimeError:
    _NINJA = False
needs_ninja = pytest.mark.skipif(not _NINJA, reason="ninja not installed (pip install ninja)")

# Shared by the suite's runs (API mode, ABI mode, other interpreters): the key covers
# everything that changes the binary, so later runs reuse these builds.
SHARED_CACHE = os.path.join(tempfile.gettempdir(), "tvm-ffi-jit-tests-%d" % os.getuid())

SRC = textwrap.dedent("""
    namespace ffi = tvm::ffi;
    int add(int a, int b) { return a + b; }
    void add_one(ffi::TensorView x, ffi::TensorView y) {
      TVM_FFI_ICHECK_EQ(x.ndim(), 1) << "x must be a 1D tensor";
      const float* xp = static_cast<const float*>(x.data_ptr());
      float* yp = static_cast<float*>(y.data_ptr());
      for (int64_t i = 0; i < x.size(0); ++i) yp[i] = xp[i] + 1;
    }
    void fail(ffi::String msg) { TVM_FFI_THROW(ValueError) << "fail: " << msg; }
""")


@pytest.fixture
def cache(monkeypatch):
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", SHARED_CACHE)
    return SHARED_CACHE


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    return str(tmp_path / "cache")


@needs_ninja
def test_load_inline_calls_ints_tensors_errors(cache):
    np = pytest.importorskip("numpy")
    mod = tvm_ffi.cpp.load_inline(
        "jit_basic", cpp_sources=SRC,
        functions={"add": 'adds "two"\n\tints\\', "add_one": "", "fail": None},
        extra_cflags=["-DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1"])
    assert mod.add(2, 40) == 42
    x = np.arange(5, dtype="float32")
    y = np.zeros_like(x)
    mod.add_one(x, y)
    assert y.tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="fail: boom"):
        mod.fail("boom")
    with pytest.raises(TypeError):
        mod.add("a", 1)
    # the doc string survives escaping of quotes, newline, tab and backslash
    assert mod.get_function_doc("add") == 'adds "two"\n\tints\\'
    assert mod.get_function_doc("add_one") is None


@needs_ninja
def test_cache_dir_and_reuse(cache):
    kw = dict(cpp_sources=SRC, functions=["add"])
    p1 = tvm_ffi.cpp.build_inline("jit_reuse", **kw)
    d = os.path.dirname(p1)
    assert os.path.basename(p1) == "jit_reuse.so"
    assert os.path.dirname(d) == cache
    name, _, key = os.path.basename(d).rpartition("_")
    assert name == "jit_reuse" and len(key) == 16 and int(key, 16) >= 0
    with open(os.path.join(d, "main.cpp")) as f:
        text = f.read()
    assert text.startswith("#include <tvm/ffi/container/tensor.h>\n")
    assert "TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, add);" in text
    mtime = os.stat(p1).st_mtime_ns
    t = time.perf_counter()
    assert tvm_ffi.cpp.build_inline("jit_reuse", **kw) == p1
    assert time.perf_counter() - t < 1.0  # a cache hit runs no compiler
    assert os.stat(p1).st_mtime_ns == mtime
    # sequences of sources are joined; same text -> same key
    assert tvm_ffi.cpp.build_inline(
        "jit_reuse", cpp_sources=SRC.split("\n"), functions="add") == p1


@needs_ninja
def test_key_covers_flags_sources_and_functions(cache):
    base = tvm_ffi.cpp.build_inline("jit_key", cpp_sources=SRC, functions=["add"])
    other_flags = tvm_ffi.cpp.build_inline("jit_key", cpp_sources=SRC, functions=["add"],
                                           extra_cflags=["-DJIT_KEY_FLAG=1"])
    assert os.path.dirname(other_flags) != os.path.dirname(base)
    mod = tvm_ffi.load_module(other_flags)
    assert mod.add(1, 1) == 2


@needs_ninja
def test_concurrent_builds_of_one_source(fresh_cache):
    token = uuid.uuid4().hex
    script = textwrap.dedent("""
        import sys, tvm_ffi, tvm_ffi.cpp
        src = "int token_%s(int x) { return x + 1; }"
        p = tvm_ffi.cpp.build_inline("jit_conc", cpp_sources=src, functions=["token_%s"])
        assert tvm_ffi.load_module(p).token_%s(1) == 2
        print(p)
    """) % (token, token, token)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    paths = {out.strip() for out, _ in outs}
    assert len(paths) == 1
    d = os.path.dirname(paths.pop())
    assert sorted(n for n in os.listdir(os.path.dirname(d))) == [os.path.basename(d)]
    assert not [n for n in os.listdir(d) if n.endswith(".tmp")]


@needs_ninja
def test_compile_error_is_runtime_error_with_output(fresh_cache):
    with pytest.raises(RuntimeError, match=r"(?s)ninja exited with status 1.*stdout:.*no_such_t"):
        tvm_ffi.cpp.build_inline("jit_bad", cpp_sources="no_such_t x;")
    # nothing half-built is left for a later call to pick up
    d = [os.path.join(fresh_cache, n) for n in os.listdir(fresh_cache)][0]
    assert not os.path.exists(os.path.join(d, "jit_bad.so"))


def test_argument_errors(fresh_cache):
    with pytest.raises(AssertionError):
        tvm_ffi.cpp.build_inline("x")
    with pytest.raises(AssertionError, match="sources must be provided."):
        tvm_ffi.cpp.build("x")
    with pytest.raises(TypeError, match="cpp_sources must be a str"):
        tvm_ffi.cpp.build_inline("x", cpp_sources=3)
    with pytest.raises(TypeError, match="functions must be"):
        tvm_ffi.cpp.build_inline("x", cpp_sources="", functions=3)
    with pytest.raises(ValueError, match="not a C identifier"):
        tvm_ffi.cpp.build_inline("x", cpp_sources="", functions=["a-b"])
    with pytest.raises(ValueError, match="without path separators"):
        tvm_ffi.cpp.build_inline("a/b", cpp_sources="")
    with pytest.raises(TypeError, match="embed_cubin"):  # supported: test_contract_modules
        tvm_ffi.cpp.build_inline("x", cpp_sources="", embed_cubin={"k": "not bytes"})
    with pytest.raises(ValueError, match="Unsupported backend"):
        tvm_ffi.cpp.build_inline("x", cuda_sources="", backend="metal")
    with pytest.raises(FileNotFoundError, match="nope.cc"):
        tvm_ffi.cpp.build("x", sources=["nope.cc"])


def test_cuda_arch_list_parsing(monkeypatch):
    tc = tvm_ffi.cpp.extension.tc
    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", "8.9 9.0a")
    assert tc.cuda_arch_flags() == ["-gencode=arch=compute_89,code=sm_89",
                                    "-gencode=arch=compute_90a,code=sm_90a"]
    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", "sm89")
    with pytest.raises(ValueError, match="Invalid CUDA architecture"):
        tc.cuda_arch_flags()


@needs_ninja
@needs_prompt_free
def test_build_files_c_and_cpp_rebuilds_on_change(fresh_cache, tmp_path):
    c = tmp_path / "k.c"
    c.write_text(textwrap.dedent("""
        #include <tvm/ffi/c_api.h>
        TVM_FFI_DLL int __tvm_ffi_seven(void* self, const TVMFFIAny* args, int32_t n,
                                        TVMFFIAny* ret) {
          (void)self; (void)args; (void)n;
          ret->type_index = kTVMFFIInt; ret->zero_padding = 0; ret->v_int64 = VALUE;
          return 0;
        }
    """))
    cc = tmp_path / "k2.cc"
    cc.write_text("#include <tvm/ffi/function.h>\n"
                  "TVM_FFI_DLL_EXPORT_TYPED_FUNC(neg, [](int x) { return -x; });\n")
    kw = dict(sources=[str(c)], cpp_files=str(cc), extra_cflags=["-DVALUE=7"],
              keep_module_alive=False)
    mod = tvm_ffi.cpp.load("jit_files", **kw)
    assert mod.seven() == 7 and mod.neg(3) == -3
    p1 = mod.seven
    del mod, p1
    time.sleep(0.01)
    c.write_text(c.read_text().replace("VALUE", "(VALUE * 6)"))
    path = tvm_ffi.cpp.build("jit_files", sources=[str(c)], cpp_files=str(cc),
                             extra_cflags=["-DVALUE=7"])
    # same directory (keyed on paths and flags), rebuilt by ninja's dependency tracking
    assert len(os.listdir(fresh_cache)) == 1
    mod = tvm_ffi.load_module(path)
    assert mod.seven() == 42


@needs_ninja
def test_object_output_and_explicit_build_directory(tmp_path):
    d = tmp_path / "bd"
    out = tvm_ffi.cpp.build_inline("jit_obj", cpp_sources="int f(int x) { return x; }",
                                   functions="f", build_directory=str(d), output="f.o")
    assert out == str(d / "f.o") and os.path.isfile(out)
    # link the object ourselves: it carries the export
    so = tmp_path / "f.so"
    subprocess.run([_CXX, "-shared", out, "-o", str(so)], check=True)
    assert tvm_ffi.load_module(str(so)).f(5) == 5


@needs_ninja
@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not found")
def test_cuda_source_builds_and_loads(cache, monkeypatch):
    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "8.0"))
    mod = tvm_ffi.cpp.load_inline(
        "jit_cuda", cpp_sources="int scale(int n);",
        cuda_sources="__global__ void k(int* x) { x[threadIdx.x] *= 2; }\n"
                     "int scale(int n) { return n * 3; }\n",
        functions=["scale"])
    assert mod.scale(5) == 15  # a host function of the CUDA translation unit


def test_to_cpp_dtype():
    f = tvm_ffi.cpp.to_cpp_dtype
    assert f("int32") == "int32_t" and f("float32") == "float" and f("bool") == "bool"
    assert f("uint8") == "uint8_t" and f("float64") == "double" and f("int64") == "int64_t"
    torch = sys.modules.get("torch")
    if torch is not None:
        assert f(torch.int32) == "int32_t"
    with pytest.raises(ValueError, match="Unsupported dtype string: complex7"):
        f("complex7")
