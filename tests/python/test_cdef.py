"""The cffi declarations come from the public headers: layouts and enum values (docs/abi.md, docs/dlpack-and-addons.md Part A)."""

import os

import pytest

from tvm_ffi import core

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
