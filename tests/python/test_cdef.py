"""The cffi declarations come from the public headers: layouts and enum values (docs/abi.md,
docs/dlpack-and-addons.md Part A)."""

import os
import shutil
import subprocess
import sys

import pytest

from tvm_ffi import _loader, core

ffi, lib = core.ffi, core.lib


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
    code = ("import tvm_ffi; assert not tvm_ffi.core.API_MODE; "
            "assert list(tvm_ffi.get_global_func('testing.echo')([1, 2])) == [1, 2]")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
