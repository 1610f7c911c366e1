"""The cffi declarations come from the public headers: layouts and enum values (docs/abi.md,
docs/dlpack-and-addons.md Part A)."""

import os
import shutil
import subprocess
import sys

import pytest

from tvm_ffi import _loader, core

ffi, lib = _loader.ffi, _loader.lib


@pytest.mark.parametrize(
    "name, size",
    [("TVMFFIObject", 24), ("TVMFFIAny", 16), ("TVMFFIErrorCell", 72), ("TVMFFIFieldInfo", 120),
     ("TVMFFIMethodInfo", 72), ("TVMFFITypeInfo", 72), ("TVMFFITypeMetadata", 32),
     ("TVMFFITypeAttrColumn", 16), ("TVMFFISeqCell", 32), ("DLPackVersion", 8), ("DLDevice", 8),
     ("DLDataType", 4), ("DLTensor", 48), ("DLManagedTensor", 64),
     ("DLManagedTensorVersioned", 80), ("DLPackExchangeAPIHeader", 16), ("DLPackExchangeAPI", 56)],
)
def test_struct_sizes(name, size):
    assert ffi.sizeof(name) == size


def test_offsets():
    assert ffi.offsetof("DLManagedTensorVersioned", "dl_tensor") == 32
    assert ffi.offsetof("DLManagedTensorVersioned", "flags") == 24
    assert ffi.offsetof("DLManagedTensor", "deleter") == 56
    assert ffi.offsetof("DLTensor", "byte_offset") == 40
    assert ffi.offsetof("DLPackExchangeAPI", "current_work_stream") == 48
    assert ffi.offsetof("TVMFFIAny", "v_int64") == 8


def test_enum_values():
    assert (lib.kDLCUDAManaged, lib.kDLOneAPI, lib.kDLMAIA, lib.kDLTrn) == (13, 14, 17, 18)
    assert (lib.kDLBool, lib.kDLFloat8_e8m0fnu, lib.kDLFloat4_e2m1fn) == (6, 14, 17)
    assert (lib.kTVMFFISmallBytes, lib.kTVMFFIDict, lib.kTVMFFIStaticObjectEnd) == (12, 76, 79)
    assert lib.DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED == 4


def test_generator_matches_headers():
    from tvm_ffi import _cdef

    inc = os.path.join(os.path.dirname(__file__), "..", "..", "c", "include")
    if not os.path.isdir(inc):
        pytest.skip("no source checkout")
    text = _cdef.generate(inc)
    for needle in ("TVMFFIFunctionCall", "TVMFFIEnvTensorAlloc", "DLPackExchangeAPI"):
        assert needle in text
    for banned in ("static inline", "_Static_assert", "__attribute__", "#include", "extern \"C\""):
        assert banned not in text
    import cffi

    cffi.FFI().cdef(text)  # parses in ABI mode as shipped


def test_source_checkout_imports_in_abi_mode(tmp_path):
    # A checkout that was never built for this interpreter (no compiled module, no generated
    # _cdef.h: distcheck's source tree, a PyPy without a compiler) declares the ABI from the
    # bare headers and runs in ABI mode; nothing at import may need the compiled module's names.
    here = os.path.dirname(os.path.abspath(core.__file__))
    src = os.path.dirname(os.path.dirname(here))
    pkg = tmp_path / "python" / "tvm_ffi"
    shutil.copytree(here, pkg, ignore=shutil.ignore_patterns("_ffi_cffi*", "_capi_ext*",
                                                             "_cdef.h", "__pycache__"))
    shutil.copytree(os.path.join(src, "c", "include"), tmp_path / "c" / "include")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "python"),
               TVM_FFI_LIBRARY_PATH=os.path.dirname(_loader.LIB_PATH))
    env.pop("TVM_FFI_MODULE_DIR", None)
    code = ("import tvm_ffi; assert not tvm_ffi._loader.API_MODE; "
            "assert list(tvm_ffi.get_global_func('testing.echo')([1, 2])) == [1, 2]")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr


def _module_dir():
    return os.environ.get("TVM_FFI_MODULE_DIR") or os.path.dirname(os.path.abspath(core.__file__))


def test_preparsed_abi_module_declares_cdef():
    # the build's out-of-line ABI module (_build_ffi.py: _ffi_abi.py) declares what _cdef.h
    # does, so that ABI mode can import it instead of parsing the declarations
    path = os.path.join(_module_dir(), "_ffi_abi.py")
    if not os.path.isfile(path):
        pytest.skip("no %s (not built)" % path)
    import importlib.util

    import cffi

    spec = importlib.util.spec_from_file_location("_ffi_abi_probe", path)
    pre = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pre)
    parsed = cffi.FFI()
    with open(os.path.join(_module_dir(), "_cdef.h"), encoding="utf-8") as f:
        parsed.cdef(f.read())
    assert [sorted(n) for n in pre.ffi.list_types()] == [sorted(n) for n in parsed.list_types()]
    assert set(dir(pre.ffi.dlopen(_loader.LIB_PATH))) == set(dir(parsed.dlopen(_loader.LIB_PATH)))


def test_abi_mode_import_parses_no_declarations():
    # with the pre-parsed module, ABI mode never imports cffi's parser (~0.3 s of PyPy's import)
    if not os.path.isfile(os.path.join(_module_dir(), "_ffi_abi.py")):
        pytest.skip("no _ffi_abi.py in %s (not built)" % _module_dir())
    env = dict(os.environ, TVM_FFI_USE_ABI_MODE="1")
    code = ("import sys, tvm_ffi; assert not tvm_ffi._loader.API_MODE;"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cffi', 'pycparser')))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
