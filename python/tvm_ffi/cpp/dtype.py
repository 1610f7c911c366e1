"""to_cpp_dtype: the C++ spelling of a tvm_ffi / torch dtype, for generated kernels."""

_PLAIN = {
    "bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
    "int64": "int64_t", "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
    "uint64": "uint64_t", "float32": "float", "float64": "double", "float": "float",
    "double": "double", "long": "int64_t", "int": "int32_t",
}
# Reduced-precision types exist in C++ only as the GPU toolkit's types.
_CUDA = {
    "float16": "__half", "half": "__half", "bfloat16": "__nv_bfloat16",
    "float8_e4m3fn": "__nv_fp8_e4m3", "float8_e4m3": "__nv_fp8_e4m3",
    "float8_e5m2": "__nv_fp8_e5m2", "float8_e8m0fnu": "__nv_fp8_e8m0",
    "float4_e2m1fn": "__nv_fp4_e2m1", "float4_e2m1fnx2": "__nv_fp4x2_e2m1",
    "float4_e2m1fn_x2": "__nv_fp4x2_e2m1",
}
_HIP = {
    "float16": "__half", "half": "__half", "bfloat16": "__hip_bfloat16",
    "float8_e4m3fnuz": "__hip_fp8_e4m3_fnuz", "float8_e5m2fnuz": "__hip_fp8_e5m2_fnuz",
    "float8_e4m3fn": "__hip_fp8_e4m3", "float8_e5m2": "__hip_fp8_e5m2",
}


def _gpu_kind():
    import sys  # noqa: PLC0415

    torch = sys.modules.get("torch")
    try:
        if torch is None or not torch.cuda.is_available():
            return None
    except Exception:  # noqa: BLE001 - a broken torch just means no GPU types
        return None
    return "hip" if getattr(torch.version, "hip", None) else "cuda"


def to_cpp_dtype(dtype):
    """``"int32"`` -> ``"int32_t"``, ``"float32"`` -> ``"float"``; torch dtypes accepted.

    Half, bfloat and float8/float4 names map to the CUDA (or HIP) types only when torch sees a
    GPU; otherwise, and for unknown names, ``ValueError``.
    """
    text = str(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
    if text in _PLAIN:
        return _PLAIN[text]
    gpu = _gpu_kind()
    table = _HIP if gpu == "hip" else _CUDA if gpu == "cuda" else {}
    if text in table:
        return table[text]
    raise ValueError("Unsupported dtype string: %s" % text)
