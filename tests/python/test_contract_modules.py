"""docs/python.md §25.9-§25.11 contracts: streams, modules and JIT, config CLI, libinfo, the
optional torch add-on loader (docs/dlpack-and-addons.md Part B), plus the §18 details they cite
(build outputs, metadata and docs, to_cpp_dtype, GPU backend selection).

Each test is named after the contract item it checks (test_cNN_...).
"""

import ctypes
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types

import pytest

import tvm_ffi
from conftest import needs_torch_addon
import tvm_ffi.cpp
from tvm_ffi import _loader, core

_CXX = (os.environ.get("CXX") or "c++").split()[0]
try:
    tvm_ffi.cpp.extension.tc.find_ninja()
    _NINJA = True
except RuntimeError:
    _NINJA = False
needs_jit = pytest.mark.skipif(
    not (_NINJA and shutil.which(_CXX)), reason="tvm_ffi.cpp needs ninja and a C++ compiler"
)


def _torch_cuda():
    try:
        import torch  # noqa: PLC0415
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


needs_torch_cuda = pytest.mark.skipif(_torch_cuda() is None, reason="needs torch with a CUDA GPU")
needs_nvcc = pytest.mark.skipif(not shutil.which("nvcc"), reason="needs nvcc and a CUDA GPU")

# Shared across the suite's runs: the cache key covers everything that changes the binary.
SHARED_CACHE = os.path.join(tempfile.gettempdir(), "tvm-ffi-jit-tests-%d" % os.getuid())


@pytest.fixture
def cache(monkeypatch):
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", SHARED_CACHE)
    return SHARED_CACHE


# Written the way upstream's examples write kernels (TensorView, ndim/dtype/size/data_ptr).
ADD_ONE_CPU = r"""
void add_one_cpu(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_ICHECK(x.ndim() == 1) << "x must be a 1D tensor";
  DLDataType f32_dtype{kDLFloat, 32, 1};
  TVM_FFI_ICHECK(x.dtype() == f32_dtype) << "x must be a float tensor";
  TVM_FFI_ICHECK(y.ndim() == 1) << "y must be a 1D tensor";
  TVM_FFI_ICHECK(y.dtype() == f32_dtype) << "y must be a float tensor";
  TVM_FFI_ICHECK(x.size(0) == y.size(0)) << "x and y must have the same shape";
  for (int i = 0; i < x.size(0); ++i) {
    static_cast<float*>(y.data_ptr())[i] = static_cast<float*>(x.data_ptr())[i] + 1;
  }
}
"""

STREAM_SRC = r"""
int64_t get_stream(int32_t device_type, int32_t device_id) {
  return reinterpret_cast<int64_t>(TVMFFIEnvGetStream(device_type, device_id));
}
"""


@pytest.fixture(scope="module")
def stream_mod():
    if not (_NINJA and shutil.which(_CXX)):
        pytest.skip("tvm_ffi.cpp needs ninja and a C++ compiler")
    old = os.environ.get("TVM_FFI_CACHE_DIR")
    os.environ["TVM_FFI_CACHE_DIR"] = SHARED_CACHE
    try:
        return tvm_ffi.cpp.load_inline("contract_stream", cpp_sources=STREAM_SRC,
                                       functions=["get_stream"])
    finally:
        if old is None:
            del os.environ["TVM_FFI_CACHE_DIR"]
        else:
            os.environ["TVM_FFI_CACHE_DIR"] = old


# ---- §25.9 streams ---------------------------------------------------------------------------

def test_c127_nested_raw_streams_seen_by_cpp(stream_mod):
    dev = tvm_ffi.device("cuda:0")
    code, idx = dev.dlpack_device_type(), dev.index
    assert stream_mod.get_stream(code, idx) == 0 and tvm_ffi.get_raw_stream(dev) == 0
    with tvm_ffi.use_raw_stream(dev, 123456789) as ctx:
        assert isinstance(ctx, tvm_ffi.StreamContext)
        assert stream_mod.get_stream(code, idx) == 123456789
        assert tvm_ffi.get_raw_stream(dev) == 123456789
        with tvm_ffi.use_raw_stream(dev, 987654321):
            assert stream_mod.get_stream(code, idx) == 987654321
            assert tvm_ffi.get_raw_stream(dev) == 987654321
            # other devices are untouched
            assert stream_mod.get_stream(code, 1) == 0
        assert stream_mod.get_stream(code, idx) == 123456789
    assert stream_mod.get_stream(code, idx) == 0 and tvm_ffi.get_raw_stream(dev) == 0


def test_c127_stream_context_restores_after_exception():
    dev = tvm_ffi.device("cuda:2")
    with pytest.raises(KeyError):
        with tvm_ffi.use_raw_stream(dev, ctypes.c_void_p(4242)):
            assert tvm_ffi.get_raw_stream(dev) == 4242
            raise KeyError("x")
    assert tvm_ffi.get_raw_stream(dev) == 0
    with tvm_ffi.StreamContext(dev, 77):
        assert tvm_ffi.get_raw_stream(dev) == 77
    assert tvm_ffi.get_raw_stream(dev) == 0


@needs_torch_cuda
def test_c128_use_torch_stream_nesting(stream_mod):
    torch = _torch_cuda()
    dev = tvm_ffi.device("cuda:0")
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    with tvm_ffi.use_torch_stream(torch.cuda.stream(s1)):
        assert torch.cuda.current_stream() == s1
        assert stream_mod.get_stream(2, 0) == s1.cuda_stream
        with tvm_ffi.use_torch_stream(torch.cuda.stream(s2)):
            assert torch.cuda.current_stream() == s2
            assert stream_mod.get_stream(2, 0) == s2.cuda_stream
        assert torch.cuda.current_stream() == s1
        assert tvm_ffi.get_raw_stream(dev) == s1.cuda_stream


@needs_torch_cuda
def test_c129_use_torch_stream_mirrors_current(stream_mod):
    torch = _torch_cuda()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        with tvm_ffi.use_torch_stream():
            assert stream_mod.get_stream(2, 0) == s.cuda_stream


@needs_torch_cuda
def test_c130_use_torch_stream_graph(stream_mod):
    torch = _torch_cuda()
    s = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    with tvm_ffi.use_torch_stream(torch.cuda.graph(g, stream=s)):
        assert tvm_ffi.get_raw_stream(tvm_ffi.device("cuda:0")) == s.cuda_stream


@needs_torch_cuda
@needs_nvcc
def test_c131_torch_cuda_call_propagates_stream(cache):
    torch = _torch_cuda()
    mod = tvm_ffi.cpp.load_inline(
        "contract_stream_cuda",
        cpp_sources="int64_t stream_of(tvm::ffi::TensorView x);",
        cuda_sources=r"""
            int64_t stream_of(tvm::ffi::TensorView x) {
              return reinterpret_cast<int64_t>(
                  TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
            }
        """,
        functions=["stream_of"])
    x = torch.zeros(4, device="cuda")
    assert mod.stream_of(x) == 0  # default stream
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert mod.stream_of(x) == s.cuda_stream


def test_c132_use_raw_stream_rejects_non_int():
    dev = tvm_ffi.device("cuda:0")
    for bad in ("x", 1.5, None, object()):
        with pytest.raises(ValueError, match="use_torch_stream"):
            tvm_ffi.use_raw_stream(dev, bad)
    tvm_ffi.use_raw_stream(dev, ctypes.c_void_p(5))  # accepted


def test_c132_use_torch_stream_requires_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    with pytest.raises(ImportError, match="Cannot import torch"):
        tvm_ffi.use_torch_stream()


# ---- §25.10 modules and JIT ------------------------------------------------------------------

@needs_jit
def test_c133_load_inline_add_one(cache, np):
    mod = tvm_ffi.cpp.load_inline(name="hello", cpp_sources=ADD_ONE_CPU,
                                  functions=["add_one_cpu"])
    assert isinstance(mod, tvm_ffi.Module)
    x = np.array([1, 2, 3, 4, 5], dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)
    np.testing.assert_equal(x + 1, y)
    with pytest.raises(RuntimeError, match="x must be a float tensor"):
        mod.add_one_cpu(np.zeros(5, "int32"), y)


DOC = "add two arrays\n\nline \"two\"\tend\r\nC:\\path\\x ??= /* not a comment */"


@needs_jit
def test_c133_functions_as_doc_mapping(cache, np):
    mod = tvm_ffi.cpp.load_inline(
        name="hello_doc", cpp_sources=ADD_ONE_CPU,
        functions={"add_one_cpu": DOC},
        extra_cflags=["-DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1"])
    x = np.arange(4, dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)
    np.testing.assert_equal(x + 1, y)
    assert mod.get_function_doc("add_one_cpu") == DOC


@needs_jit
def test_c133_two_sources(cache, np):
    mod = tvm_ffi.cpp.load_inline(
        name="hello_two",
        cpp_sources=[ADD_ONE_CPU, "int64_t twice(int64_t v) { return 2 * v; }"],
        functions=["add_one_cpu", "twice"])
    x = np.arange(3, dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)
    np.testing.assert_equal(x + 1, y)
    assert mod.twice(21) == 42


@needs_jit
def test_c133_relative_build_directory(np, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    mod = tvm_ffi.cpp.load_inline(name="hello", cpp_sources=ADD_ONE_CPU,
                                  functions=["add_one_cpu"],
                                  build_directory="./build/build_add_one")
    assert os.path.isfile(tmp_path / "build" / "build_add_one" / "hello.so")
    x = np.arange(3, dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)
    np.testing.assert_equal(x + 1, y)


@needs_nvcc
@needs_jit
def test_c134_cpp_and_cuda_sources(cache, monkeypatch):
    # builds without a GPU (explicit architecture); with one, for that GPU (an sm_80-only
    # image has no code a newer GPU can run: cudaErrorNoKernelImageForDevice on an H100)
    if _torch_cuda() is None:
        monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST",
                           os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "8.0"))
    mod = tvm_ffi.cpp.load_inline(
        name="hello_cuda",
        cpp_sources=ADD_ONE_CPU + "\nvoid add_one_cuda(tvm::ffi::TensorView x, tvm::ffi::TensorView y);",
        cuda_sources=r"""
            __global__ void AddOneKernel(float* x, float* y, int n) {
              int i = blockIdx.x * blockDim.x + threadIdx.x;
              if (i < n) y[i] = x[i] + 1;
            }
            void add_one_cuda(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
              int64_t n = x.size(0);
              AddOneKernel<<<(n + 255) / 256, 256>>>(static_cast<float*>(x.data_ptr()),
                                                   static_cast<float*>(y.data_ptr()), n);
            }
        """,
        functions=["add_one_cpu", "add_one_cuda"])
    assert mod.implements_function("add_one_cpu") and mod.implements_function("add_one_cuda")
    np = pytest.importorskip("numpy")
    x = np.arange(3, dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)  # the C++ half runs anywhere
    np.testing.assert_equal(x + 1, y)
    torch = _torch_cuda()
    if torch is not None:
        xc = torch.arange(5, dtype=torch.float32, device="cuda")
        yc = torch.empty_like(xc)
        mod.add_one_cuda(xc, yc)
        torch.cuda.synchronize()
        assert torch.equal(yc, xc + 1)


BUILD_CC = r"""
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
""" + ADD_ONE_CPU + r"""
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one_cpu, add_one_cpu);
"""


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _schema_text(schema_json):
    """The Python spelling of a type_schema (core.TypeSchema when present, else a local reading
    with the same rules: ffi.Function -> Callable[[args], ret], ffi.String -> str, ...)."""
    ts = getattr(core, "TypeSchema", None)
    if ts is not None:
        return str(ts.from_json_str(schema_json))
    names = {"ffi.Tensor": "Tensor", "DLTensor*": "Tensor", "ffi.String": "str",
             "ffi.Bytes": "bytes", "ffi.Function": "Callable"}

    def show(o):
        t = names.get(o["type"], o["type"])
        args = [show(a) for a in o.get("args", ())]
        if t == "Callable":
            return "Callable[[%s], %s]" % (", ".join(args[1:]), args[0])
        return t if not args else "%s[%s]" % (t, ", ".join(args))

    return show(json.loads(schema_json))


@needs_jit
def test_c135_build_file_metadata(cache, tmp_path, np):
    src = _write(tmp_path, "test_build.cc", BUILD_CC)
    path = tvm_ffi.cpp.build(name="hello", sources=[src],
                             extra_cflags=["-DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1"])
    assert path.endswith(".so") and os.path.isfile(path)
    mod = tvm_ffi.load_module(path)
    meta = mod.get_function_metadata("add_one_cpu")
    assert isinstance(meta, dict) and "type_schema" in meta
    assert _schema_text(meta["type_schema"]) == "Callable[[Tensor, Tensor], None]"
    assert mod.get_function_doc("add_one_cpu") is None
    x = np.arange(3, dtype=np.float32)
    y = np.empty_like(x)
    mod.add_one_cpu(x, y)
    np.testing.assert_equal(x + 1, y)


@needs_jit
def test_c135_type_schema_class():
    ts = getattr(core, "TypeSchema", None)
    if ts is None:
        pytest.skip("core.TypeSchema (docs/python.md §4.7) not provided yet")
    s = ts.from_json_str('{"type":"ffi.Function","args":[{"type":"None"},'
                         '{"type":"ffi.Tensor"},{"type":"ffi.Tensor"}]}')
    assert str(s) == "Callable[[Tensor, Tensor], None]"


METADATA_CC = r"""
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>
#include <string>
int64_t add_one(int64_t x) { return x + 1; }
double square(double x) { return x * x; }
bool negate(bool x) { return !x; }
tvm::ffi::String echo_str(tvm::ffi::String s) { return s; }
double mix(int64_t a, double b) { return a + b; }
tvm::ffi::String repeat(tvm::ffi::String s, int64_t n) {
  std::string out;
  for (int64_t i = 0; i < n; ++i) out += std::string(s);
  return tvm::ffi::String(out);
}
tvm::ffi::String describe(bool a, int64_t b, double c, tvm::ffi::String d) {
  return tvm::ffi::String(std::string(a ? "T" : "F") + std::to_string(b) + ":" + std::string(d));
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(square, square);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(negate, negate);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo_str, echo_str);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(mix, mix);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(repeat, repeat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(describe, describe);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_one, "Add one.\n\nArgs:\n    x: an int\nReturns: x + 1");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(square, "");
"""

SCHEMAS = {
    "add_one": "Callable[[int], int]", "square": "Callable[[float], float]",
    "negate": "Callable[[bool], bool]", "echo_str": "Callable[[str], str]",
    "mix": "Callable[[int, float], float]", "repeat": "Callable[[str, int], str]",
    "describe": "Callable[[bool, int, float, str], str]",
}


@pytest.fixture(scope="module")
def metadata_mods(tmp_path_factory):
    if not (_NINJA and shutil.which(_CXX)):
        pytest.skip("tvm_ffi.cpp needs ninja and a C++ compiler")
    d = tmp_path_factory.mktemp("metadata")
    src = str(d / "metadata.cc")
    with open(src, "w") as f:
        f.write(METADATA_CC)
    with_meta = tvm_ffi.cpp.build("meta_on", sources=[src], build_directory=str(d / "on"),
                                  extra_cflags=["-DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1"])
    without = tvm_ffi.cpp.build("meta_off", sources=[src], build_directory=str(d / "off"))
    return tvm_ffi.load_module(with_meta), tvm_ffi.load_module(without)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_c136_schemas_with_metadata(metadata_mods, name):
    mod, _ = metadata_mods
    meta = mod.get_function_metadata(name)
    assert _schema_text(meta["type_schema"]) == SCHEMAS[name]


def test_c136_values(metadata_mods):
    mod, _ = metadata_mods
    assert mod.negate(True) is False and mod.negate(False) is True
    assert mod.add_one(41) == 42 and mod.square(1.5) == 2.25
    assert mod.echo_str("hello") == "hello" and mod.mix(1, 0.5) == 1.5
    assert mod.repeat("ab", 3) == "ababab" and mod.describe(True, 2, 0.0, "z") == "T2:z"


def test_c137_docs(metadata_mods):
    mod, plain = metadata_mods
    assert mod.get_function_doc("add_one") == "Add one.\n\nArgs:\n    x: an int\nReturns: x + 1"
    assert mod.get_function_doc("square") is None  # empty doc
    assert mod.get_function_doc("negate") is None  # no doc at all
    for name in SCHEMAS:
        assert plain.get_function_metadata(name) is None
        assert plain.get_function_doc(name) is None
    assert plain.add_one(1) == 2


C_ADD = r"""
#include <tvm/ffi/c_api.h>
TVM_FFI_DLL int __tvm_ffi_c_add(void* self, const TVMFFIAny* args, int32_t num_args,
                                TVMFFIAny* result) {
  (void)self;
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "c_add expects two ints");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}
"""


@needs_jit
def test_c138_object_outputs(cache, tmp_path):
    src = _write(tmp_path, "c_add.c", C_ADD)
    obj = tvm_ffi.cpp.build("c_add_obj", sources=[src], output="x.o")
    assert obj.endswith(".o") and os.path.basename(obj) == "x.o" and os.path.isfile(obj)
    lib = tvm_ffi.cpp.build("c_add_lib", sources=[obj])
    mod = tvm_ffi.load_module(lib)
    assert mod.c_add(10, 20) == 30
    with pytest.raises(TypeError, match="c_add expects two ints"):
        mod.c_add("a", 1)
    obj2 = tvm_ffi.cpp.build_inline("inline_obj", cpp_sources="int64_t triple(int64_t v) "
                                    "{ return 3 * v; }", functions=["triple"], output="y.o")
    assert obj2.endswith("y.o") and os.path.isfile(obj2)
    mod2 = tvm_ffi.load_module(tvm_ffi.cpp.build("inline_obj_lib", sources=[obj2]))
    assert mod2.triple(5) == 15


@needs_jit
def test_c138_output_library_name(tmp_path):
    out = tvm_ffi.cpp.build_inline("named", cpp_sources="int64_t one() { return 1; }",
                                   functions="one", build_directory=str(tmp_path / "b"),
                                   output="libcustom.so")
    assert out == str(tmp_path / "b" / "libcustom.so") and os.path.isfile(out)
    assert tvm_ffi.load_module(out).one() == 1


def test_c138_no_sources_is_assertion():
    with pytest.raises(AssertionError, match="sources must be provided"):
        tvm_ffi.cpp.build("nothing")
    with pytest.raises(AssertionError):
        tvm_ffi.cpp.build_inline("nothing")


@needs_jit
def test_c139_module_access(cache, np):
    mod = tvm_ffi.cpp.load_inline(name="hello", cpp_sources=ADD_ONE_CPU,
                                  functions=["add_one_cpu"])
    with pytest.raises(AttributeError) as ei:
        mod.missing_name
    assert str(ei.value) == "Module has no function 'missing_name'"
    f = mod["add_one_cpu"]
    assert isinstance(f, tvm_ffi.Function)
    with pytest.raises(ValueError, match="Can only take string as function name"):
        mod[0]
    first = mod.add_one_cpu
    assert mod.add_one_cpu is first
    assert mod.kind == "library"
    assert mod.is_runnable() and mod.is_binary_serializable()


def test_c140_load_module_bad_formats(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="Failed to get file format"):
        tvm_ffi.load_module("libnoext")
    with pytest.raises(RuntimeError, match="Loader for `.unknownext` files is not registered"):
        tvm_ffi.load_module("x.unknownext")
    with pytest.raises(RuntimeError, match="Failed to load dynamic shared library"):
        tvm_ffi.load_module(str(tmp_path / "missing.so"))


@needs_jit
def test_c141_load_module_pathlike(cache):
    path = tvm_ffi.cpp.build_inline("pathlike", cpp_sources="int64_t one() { return 1; }",
                                    functions="one")
    mod = tvm_ffi.load_module(pathlib.Path(path))
    assert mod.one() == 1
    assert tvm_ffi.load_module(pathlib.Path(path), keep_module_alive=False).one() == 1


# ---- §18 details -------------------------------------------------------------------------------

def test_s18_to_cpp_dtype():
    f = tvm_ffi.cpp.to_cpp_dtype
    plain = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
             "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
             "uint64": "uint64_t", "float32": "float", "float64": "double", "bool": "bool"}
    for k, v in plain.items():
        assert f(k) == v and f("torch." + k) == v
    assert f(tvm_ffi.dtype("int32")) == "int32_t"
    with pytest.raises(ValueError, match="Unsupported dtype string"):
        f("complex7")


def test_s18_to_cpp_dtype_gpu_types(monkeypatch):
    f = tvm_ffi.cpp.to_cpp_dtype

    def fake_torch(hip):
        return types.SimpleNamespace(
            cuda=types.SimpleNamespace(is_available=lambda: True),
            version=types.SimpleNamespace(cuda=None if hip else "12.4", hip="6.0" if hip else None))

    monkeypatch.setitem(sys.modules, "torch", fake_torch(False))
    assert f("float16") == "__half" and f("bfloat16") == "__nv_bfloat16"
    assert f("float8_e4m3fn") == "__nv_fp8_e4m3" and f("torch.float8_e5m2") == "__nv_fp8_e5m2"
    monkeypatch.setitem(sys.modules, "torch", fake_torch(True))
    assert f("bfloat16") == "__hip_bfloat16" and f("half") == "__half"
    cpu = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False),
                                version=types.SimpleNamespace(cuda=None, hip=None))
    monkeypatch.setitem(sys.modules, "torch", cpu)
    with pytest.raises(ValueError, match="Unsupported dtype string"):
        f("float16")


def test_s18_backend_selection(monkeypatch):
    pick = tvm_ffi.cpp._toolchain.pick_backend
    assert pick("cuda") == "cuda" and pick("hip") == "hip"
    with pytest.raises(ValueError):
        pick("metal")
    monkeypatch.setenv("TVM_FFI_GPU_BACKEND", "hip")
    assert pick(None) == "hip" and pick("cuda") == "cuda"  # explicit wins
    monkeypatch.delenv("TVM_FFI_GPU_BACKEND")
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        version=types.SimpleNamespace(hip="6.0", cuda=None)))
    assert pick(None) == "hip"
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        version=types.SimpleNamespace(hip=None, cuda="12.4")))
    assert pick(None) == "cuda"
    monkeypatch.delitem(sys.modules, "torch")
    which = {"hipcc": "/opt/rocm/bin/hipcc", "nvcc": None}
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: which.get(name))
    assert pick(None) == "hip"
    which["nvcc"] = "/usr/local/cuda/bin/nvcc"
    assert pick(None) == "cuda"
    which.update(hipcc=None, nvcc=None)
    assert pick(None) == "cuda"


def test_s18_bad_backend_with_cuda_sources():
    with pytest.raises(ValueError):
        tvm_ffi.cpp.build_inline("badbackend", cuda_sources="void f() {}", backend="metal")


def test_s18_cuda_arch_list(monkeypatch):
    tc = tvm_ffi.cpp._toolchain
    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", "8.9 9.0a")
    assert tc.cuda_arch_flags() == ["-gencode=arch=compute_89,code=sm_89",
                                    "-gencode=arch=compute_90a,code=sm_90a"]
    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", "sm_89")
    with pytest.raises(ValueError, match="Invalid CUDA architecture"):
        tc.cuda_arch_flags()


# ---- §25.11 config CLI and misc ----------------------------------------------------------------

def _config(*flags):
    proc = subprocess.run([sys.executable, "-m", "tvm_ffi.config", *flags],
                          capture_output=True, text=True, check=True)
    assert proc.stderr == ""
    return proc.stdout


@pytest.mark.parametrize("flag,finder", [
    ("--includedir", "find_include_path"), ("--dlpack-includedir", "find_dlpack_include_path"),
    ("--cmakedir", "find_cmake_path"), ("--sourcedir", "find_source_path"),
])
def test_c142_config_directories(flag, finder):
    out = _config(flag).strip()
    assert os.path.isdir(out)
    assert out == getattr(tvm_ffi.libinfo, finder)()


def test_c142_cython_lib_path():
    out = _config("--cython-lib-path").strip()
    assert os.path.isfile(out)
    if _loader.API_MODE:
        assert os.path.samefile(out, sys.modules["tvm_ffi._ffi_cffi"].__file__)


def test_c143_config_flags():
    lib = tvm_ffi.libinfo.find_libtvm_ffi()
    inc = tvm_ffi.libinfo.find_include_path()
    dl = tvm_ffi.libinfo.find_dlpack_include_path()
    assert _config("--libdir").strip() == os.path.dirname(lib)
    assert _config("--libfiles").strip() == lib
    assert _config("--libs").strip() == "-ltvm_ffi"
    assert _config("--cxxflags").strip() == "-I%s -I%s -std=c++17" % (inc, dl)
    assert _config("--cflags").strip() == "-I%s -I%s" % (inc, dl)
    assert _config("--ldflags").strip() == "-L%s" % os.path.dirname(lib)
    assert os.path.isfile(os.path.join(_config("--cmakedir").strip(), "tvm_ffi-config.cmake"))
    # several flags: one line each, in the fixed order whatever the command line order
    assert _config("--libs", "--includedir").splitlines() == [inc, "-ltvm_ffi"]


def test_c143_no_arguments_prints_help():
    out = _config()
    assert "usage" in out.lower() and "--includedir" in out


def test_c144_find_library_by_basename(tmp_path):
    lib = tmp_path / "libdummy.so"
    lib.write_bytes(b"")
    found = tvm_ffi.libinfo._find_library_by_basename(
        "nonexistent-dist", "dummy", extra_lib_paths=[tmp_path])
    assert os.path.samefile(found, lib)
    assert pathlib.Path(found) == lib
    with pytest.raises(TypeError, match=r"\[1\]"):
        tvm_ffi.libinfo._find_library_by_basename(
            "nonexistent-dist", "dummy", extra_lib_paths=[tmp_path, str(tmp_path)])
    with pytest.raises(RuntimeError, match="Cannot find library"):
        tvm_ffi.libinfo._find_library_by_basename("nonexistent-dist", "no_such_lib_xyz")


def test_c144_load_lib_module(tmp_path):
    if not shutil.which(os.environ.get("CC", "cc").split()[0]):
        pytest.skip("no C compiler")
    src = tmp_path / "c_add.c"
    src.write_text(C_ADD)
    lib = tmp_path / "libcadd.so"
    subprocess.run([os.environ.get("CC", "cc").split()[0], "-shared", "-fPIC",
                    "-I", tvm_ffi.libinfo.find_dlpack_include_path(), str(src), "-o", str(lib)],
                   check=True)
    mod = tvm_ffi.libinfo.load_lib_module("nonexistent-dist", "cadd", extra_lib_paths=[tmp_path])
    assert mod.c_add(1, 2) == 3
    handle = tvm_ffi.libinfo.load_lib_ctypes("nonexistent-dist", "cadd", "RTLD_LOCAL",
                                             extra_lib_paths=[tmp_path])
    assert hasattr(handle, "__tvm_ffi_c_add")


def _fake_torch(available, cuda=None, hip=None, with_version=True):
    t = types.ModuleType("torch")
    t.cuda = types.SimpleNamespace(is_available=lambda: available)
    if with_version:
        t.version = types.SimpleNamespace(cuda=cuda, hip=hip)
    else:
        t.version = types.SimpleNamespace()
    return t


@pytest.mark.parametrize("fake,expect", [
    (_fake_torch(False), "cpu"),
    (_fake_torch(True, cuda="12.4"), "cuda"),
    (_fake_torch(True, hip="6.0"), "rocm"),
    (_fake_torch(True, with_version=False), "cuda"),
])
def test_c145_torch_extension_device(fake, expect, monkeypatch):
    from tvm_ffi import _optional_torch_c_dlpack as m  # noqa: PLC0415

    assert m._torch_extension_device(fake) == expect
    monkeypatch.setitem(sys.modules, "torch", fake)  # the no-argument form imports torch
    assert m._torch_extension_device() == expect


def test_c145_existing_exchange_api_skips_ext(monkeypatch):
    from tvm_ffi import _optional_torch_c_dlpack as m  # noqa: PLC0415

    fake = _fake_torch(False)
    fake.Tensor = type("Tensor", (), {"__dlpack_c_exchange_api__": object()})
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)

    class Boom(types.ModuleType):
        def __getattr__(self, name):
            raise AssertionError("torch_c_dlpack_ext must not be used")

    monkeypatch.setitem(sys.modules, "torch_c_dlpack_ext", Boom("torch_c_dlpack_ext"))
    imported = []
    real_import = __builtins__["__import__"] if isinstance(__builtins__, dict) else __import__

    def spy(name, *args, **kwargs):
        imported.append(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", spy)
    assert m.load_torch_c_dlpack_extension() is None
    monkeypatch.undo()
    assert "torch_c_dlpack_ext" not in imported


@needs_torch_addon
def test_c145_legacy_attribute_is_copied(monkeypatch):
    from tvm_ffi import _optional_torch_c_dlpack as m  # noqa: PLC0415

    fake = _fake_torch(False)
    fake.Tensor = type("Tensor", (), {"__c_dlpack_exchange_api__": 0x1234})
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.delenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", raising=False)
    assert m.load_torch_c_dlpack_extension() is None
    cap = fake.Tensor.__dlpack_c_exchange_api__
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(cap) == b"dlpack_exchange_api"
    get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
    get_ptr.restype, get_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    assert get_ptr(cap, b"dlpack_exchange_api") == 0x1234


def test_c145_disabled_by_env(monkeypatch):
    from tvm_ffi import _optional_torch_c_dlpack as m  # noqa: PLC0415

    fake = _fake_torch(False)
    fake.Tensor = type("Tensor", (), {"__c_dlpack_exchange_api__": 0x1234})
    monkeypatch.setitem(sys.modules, "torch", fake)
    monkeypatch.setenv("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    assert m.load_torch_c_dlpack_extension() is None
    assert not hasattr(fake.Tensor, "__dlpack_c_exchange_api__")


def test_c132_out_of_range_stream_is_refused():
    dev = tvm_ffi.device("cuda:3")
    for bad in (-1, 1 << 64):
        with pytest.raises(OverflowError):
            tvm_ffi.use_raw_stream(dev, bad)
    assert tvm_ffi.get_raw_stream(dev) == 0
    with tvm_ffi.use_raw_stream(dev, (1 << 64) - 1):
        assert tvm_ffi.get_raw_stream(dev) == (1 << 64) - 1
    assert tvm_ffi.get_raw_stream(dev) == 0


def _has_embed_tool():
    import importlib.util  # noqa: PLC0415

    try:
        spec = importlib.util.find_spec("tvm_ffi.utils.embed_cubin")
    except ImportError:
        spec = None
    return spec is not None and shutil.which("ld") and shutil.which("objcopy")


CUBIN_USER = r"""
extern "C" const char __tvm_ffi__cubin_%(n)s[];
extern "C" const char __tvm_ffi__cubin_%(n)s_end[];
int64_t %(n)s_size() { return __tvm_ffi__cubin_%(n)s_end - __tvm_ffi__cubin_%(n)s; }
int64_t %(n)s_byte(int64_t i) { return static_cast<unsigned char>(__tvm_ffi__cubin_%(n)s[i]); }
"""


@needs_jit
@pytest.mark.skipif(not _has_embed_tool(), reason="needs tvm_ffi.utils.embed_cubin, ld, objcopy")
@pytest.mark.skipif(sys.platform == "win32", reason="embed_cubin is Unix only")
def test_s18_embed_cubin(tmp_path, monkeypatch):
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    # fake CUBIN images: the build only places the bytes, whatever they are
    blobs = {"kern_a": bytes(range(256)) * 3 + b"\x00tail", "kern_b": b"\x7fELF-not-really"}
    src = "\n".join(CUBIN_USER % {"n": n} for n in blobs)
    fns = [n + suffix for n in blobs for suffix in ("_size", "_byte")]
    mod = tvm_ffi.cpp.load_inline("cubin_user", cpp_sources=src, functions=fns,
                                  embed_cubin=blobs)
    for n, blob in blobs.items():
        assert getattr(mod, n + "_size")() == len(blob)
        got = bytes(getattr(mod, n + "_byte")(i) for i in range(len(blob)))
        assert got == blob
    # the blobs are part of the cache key: other bytes, another build
    path1 = tvm_ffi.cpp.build_inline("cubin_user", cpp_sources=src, functions=fns,
                                     embed_cubin=blobs)
    other = dict(blobs, kern_b=b"different")
    path2 = tvm_ffi.cpp.build_inline("cubin_user", cpp_sources=src, functions=fns,
                                     embed_cubin=other)
    assert os.path.dirname(path1) != os.path.dirname(path2)
    assert tvm_ffi.load_module(path2).kern_b_size() == len(b"different")
    # object output: the embedded object links later without the tool
    obj = tvm_ffi.cpp.build_inline("cubin_obj", cpp_sources=src, functions=fns,
                                   embed_cubin=blobs, output="cubin.o")
    lib = tvm_ffi.cpp.build("cubin_obj_lib", sources=[obj])
    assert tvm_ffi.load_module(lib).kern_a_size() == len(blobs["kern_a"])


def test_s18_embed_cubin_argument_errors():
    with pytest.raises(TypeError):
        tvm_ffi.cpp.build_inline("bad", cpp_sources="", embed_cubin=[b"x"])
    with pytest.raises(ValueError, match="not a C identifier"):
        tvm_ffi.cpp.build_inline("bad", cpp_sources="", embed_cubin={"a-b": b"x"})
    with pytest.raises(TypeError, match="must be bytes"):
        tvm_ffi.cpp.build_inline("bad", cpp_sources="", embed_cubin={"a": "text"})


SYSLIB_C = r"""
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
static int ret_int(TVMFFIAny* r, int64_t v) {
  r->type_index = kTVMFFIInt; r->zero_padding = 0; r->v_int64 = v; return 0;
}
static int prefixed(void* s, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)s; (void)a; (void)n; return ret_int(r, 1);
}
static int plain(void* s, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)s; (void)a; (void)n; return ret_int(r, 2);
}
static int shadow(void* s, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)s; (void)a; (void)n; return ret_int(r, 3);
}
__attribute__((constructor)) static void reg(void) {
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_ctsys_foo", (void*)prefixed);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_ctsys_bar_only", (void*)plain);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_ctsys_shared", (void*)shadow);
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_ctsys_unprefixed", (void*)plain);
}
"""

_KEEP_LOADED = []


def test_s15_system_lib_prefix_lookup(tmp_path):
    cc = os.environ.get("CC", "cc").split()[0]
    if not shutil.which(cc):
        pytest.skip("no C compiler")
    src = tmp_path / "syslib.c"
    src.write_text(SYSLIB_C)
    lib = tmp_path / "libsyslib.so"
    subprocess.run([cc, "-shared", "-fPIC", "-I", tvm_ffi.libinfo.find_dlpack_include_path(),
                    str(src), "-o", str(lib), "-L", os.path.dirname(tvm_ffi.libinfo.find_libtvm_ffi()),
                    "-ltvm_ffi"], check=True)
    # the constructor registers the symbols; the handle stays alive (PyPy unloads a library
    # whose CDLL object is collected)
    _KEEP_LOADED.append(ctypes.CDLL(str(lib), ctypes.RTLD_GLOBAL))
    m = tvm_ffi.system_lib("ctsys_")
    assert m.kind == "library" and m.same_as(tvm_ffi.system_lib("ctsys_"))
    assert m.foo() == 1  # __tvm_ffi_ctsys_foo
    assert m.shared() == 3
    plain = tvm_ffi.system_lib()
    assert plain.ctsys_unprefixed() == 2  # no prefix: the full name
    # with a prefix, an unprefixed lookup falls back to __tvm_ffi_<name>
    assert tvm_ffi.system_lib("other_").ctsys_foo() == 1
    with pytest.raises(AttributeError, match="Module has no function 'nothing_here'"):
        m.nothing_here


def test_c128_torch_stream_context_unwinds_with_fake_torch(monkeypatch):
    """use_torch_stream's ordering without a GPU: enter the torch context, then set the env
    stream from torch's current stream; on exit, torch's context first, then the env stream."""
    events = []
    dev = tvm_ffi.device("cuda:1")

    class Stream:
        device = "cuda:1"
        cuda_stream = 0xABC

    class Ctx:
        def __enter__(self):
            events.append(("enter", tvm_ffi.get_raw_stream(dev)))

        def __exit__(self, *exc):
            events.append(("exit", tvm_ffi.get_raw_stream(dev)))

    fake = types.ModuleType("torch")
    fake.cuda = types.SimpleNamespace(current_stream=lambda: Stream())
    monkeypatch.setitem(sys.modules, "torch", fake)
    with tvm_ffi.use_raw_stream(dev, 7):
        with tvm_ffi.use_torch_stream(Ctx()):
            assert tvm_ffi.get_raw_stream(dev) == 0xABC
        assert events == [("enter", 7), ("exit", 0xABC)]
        assert tvm_ffi.get_raw_stream(dev) == 7
        # a failure while reading torch's stream leaves torch's context exited
        fake.cuda = types.SimpleNamespace(current_stream=lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            with tvm_ffi.use_torch_stream(Ctx()):
                pass
        assert events[-1] == ("exit", 7) and tvm_ffi.get_raw_stream(dev) == 7
