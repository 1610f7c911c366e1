"""docs/python.md §25.4-§25.6 contracts: strings, bytes, shapes, devices, dtypes.

Each test is named after the contract item it checks (test_cNN_...).
"""

import ctypes
import pickle

import pytest

import tvm_ffi
from tvm_ffi import core
from tvm_ffi import DLDeviceType


# ---- §25.4 strings, bytes, shapes ------------------------------------------------------------

def test_c65_string_echo_and_convert(echo):
    s = core.String("hello")
    assert isinstance(s, str)
    assert s._tvm_ffi_cached_object is None  # built from Python
    out = echo(s)
    assert out == "hello" and isinstance(out, str)
    assert isinstance(tvm_ffi.convert("hello"), str)
    assert tvm_ffi.convert("hello") == "hello"


def test_c66_pickle_string_and_bytes(echo):
    small = core.String("hi")
    long = echo("x" * 100)
    assert isinstance(long, core.String) and long._tvm_ffi_cached_object is not None
    for s in (small, long):
        back = pickle.loads(pickle.dumps(s))
        assert type(back) is str and back == s
    for b in (core.Bytes(b"abc"), echo(b"y" * 100)):
        back = pickle.loads(pickle.dumps(b))
        assert type(back) is bytes and back == b


def test_c67_convert_bytes_and_bytearray():
    a = tvm_ffi.convert(b"hello")
    b = tvm_ffi.convert(bytearray(b"hello"))
    for x in (a, b):
        assert isinstance(x, core.Bytes) and isinstance(x, bytes)
        assert x == b"hello"


def test_c68_string_find_and_slicing():
    s = core.String("hello world")
    ref = "hello world"
    for args in (("o",), ("o", 5), ("",), ("", 20), ("", 11), ("", 3), ("world", 1, 5), ("zz",)):
        assert s.find(*args) == ref.find(*args), args
    assert s.find("", 20) == -1
    assert s[1:5] == ref[1:5] and s[::-1] == ref[::-1] and s[-3:] == "rld"
    assert s.upper() == "HELLO WORLD" and s.split() == ["hello", "world"]


def test_c69_shape_is_tuple_and_roundtrips_object(echo):
    shape = tvm_ffi.Shape((10, 8, 4, 2))
    assert isinstance(shape, tvm_ffi.Shape) and isinstance(shape, tuple)
    assert shape == (10, 8, 4, 2) and hash(shape) == hash((10, 8, 4, 2))
    for out in (echo(shape), tvm_ffi.convert(shape)):
        assert isinstance(out, tvm_ffi.Shape)
        assert out == (10, 8, 4, 2)
        assert out._tvm_ffi_cached_object.same_as(shape._tvm_ffi_cached_object)
    assert pickle.loads(pickle.dumps(shape)) == (10, 8, 4, 2)


def test_c70_shape_rejects_non_integers():
    with pytest.raises(ValueError, match="Shape must be a tuple of integers"):
        tvm_ffi.Shape((1, 2.5))
    with pytest.raises(ValueError):
        tvm_ffi.Shape(("a",))


# ---- §25.5 devices ---------------------------------------------------------------------------

def test_c71_device_cuda0():
    d = tvm_ffi.Device("cuda", 0)
    assert d.dlpack_device_type() == DLDeviceType.kDLCUDA
    assert d.index == 0 and d.type == "cuda"
    assert str(d) == "cuda:0"
    assert repr(d) == "device(type='cuda', index=0)"


def test_c72_ext_dev():
    d = tvm_ffi.device("ext_dev:0")
    assert d.dlpack_device_type() == DLDeviceType.kDLExtDev
    assert str(d) == "ext_dev:0"


@pytest.mark.parametrize("text,code,index", [
    ("cpu", DLDeviceType.kDLCPU, 0), ("cuda", DLDeviceType.kDLCUDA, 0),
    ("cuda:3", DLDeviceType.kDLCUDA, 3), ("metal:2", DLDeviceType.kDLMetal, 2),
])
def test_c73_device_strings(text, code, index):
    d = tvm_ffi.device(text)
    assert (d.dlpack_device_type(), d.index) == (code, index)


def test_c74_device_type_and_index_forms():
    np = pytest.importorskip("numpy")
    cases = [
        (tvm_ffi.device("cpu", 0), 1, 0),
        (tvm_ffi.device(DLDeviceType.kDLCUDA, 0), 2, 0),
        (tvm_ffi.device("cuda", 3), 2, 3),
        (tvm_ffi.device(DLDeviceType.kDLMetal, 2), 8, 2),
        (tvm_ffi.device("cpu", np.int32(1)), 1, 1),
        (tvm_ffi.device(2, 5), 2, 5),
    ]
    for d, code, index in cases:
        assert d.dlpack_device_type() == code and d.index == index
        assert type(d.index) is int


@pytest.mark.parametrize("alias", ["llvm", "c", "test", "nvptx", "cl"])
def test_c75_unknown_device_aliases(alias):
    with pytest.raises(ValueError) as ei:
        tvm_ffi.device(alias)
    assert str(ei.value) == "Unknown device: %s" % alias


def test_c75_known_names():
    assert tvm_ffi.device("cpu").dlpack_device_type() == 1
    assert tvm_ffi.device("cuda").dlpack_device_type() == 2
    assert tvm_ffi.device("opencl").dlpack_device_type() == 4
    names = {"vulkan": 7, "vpi": 9, "rocm": 10, "hexagon": 16, "wgpu": 15, "webgpu": 15,
             "maia": 17, "trn": 18}
    for name, code in names.items():
        assert tvm_ffi.device(name).dlpack_device_type() == code, name


def test_c76_malformed_device_strings():
    for text in ("cpu:0:0", "cpu:?", "cpu:"):
        with pytest.raises(ValueError):
            tvm_ffi.device(text)
    with pytest.raises(ValueError, match="Invalid device"):
        tvm_ffi.device("cpu:0:0")
    with pytest.raises(ValueError, match="Invalid device index"):
        tvm_ffi.device("cpu:")
    with pytest.raises(TypeError, match="Invalid device index"):
        tvm_ffi.device("cpu", "?")


def test_c77_device_pickle():
    for d in (tvm_ffi.device("cuda:3"), tvm_ffi.device("cpu"), tvm_ffi.device("ext_dev", 7)):
        back = pickle.loads(pickle.dumps(d))
        assert back.dlpack_device_type() == d.dlpack_device_type() and back.index == d.index
        assert back == d


def test_c78_set_class_device(echo):
    class MyDevice(tvm_ffi.Device):
        pass

    old = core._CLASS_DEVICE
    core._set_class_device(MyDevice)
    try:
        d = tvm_ffi.device("cuda:1")
        assert type(d) is MyDevice and d.index == 1 and str(d) == "cuda:1"
        assert type(echo(d)) is MyDevice
    finally:
        core._set_class_device(old)
    assert type(tvm_ffi.device("cpu")) is old


def test_c79_cuda_stream_protocol(echo):
    class S:
        def __cuda_stream__(self):
            return ("cuda", 1)

    out = echo(S())
    assert isinstance(out, ctypes.c_void_p) and out.value == 1


def test_c79_cuda_bindings_stream(echo):
    driver = pytest.importorskip("cuda.bindings.driver", reason="cuda-python not installed")
    out = echo(driver.CUstream(1))
    assert isinstance(out, ctypes.c_void_p) and out.value == 1


def test_c80_device_misc():
    assert tvm_ffi.device("mps").dlpack_device_type() == DLDeviceType.kDLMetal
    d = tvm_ffi.device("cuda:1 extra")
    assert (d.dlpack_device_type(), d.index) == (2, 1)
    assert tvm_ffi.device("cuda:1", 5).index == 1
    a, b = tvm_ffi.device("cuda", 1), tvm_ffi.device("cuda:1")
    assert a == b and hash(a) == hash(b)
    assert a != tvm_ffi.device("cuda:2") and a != tvm_ffi.device("rocm:1")
    assert a != (2, 1)  # only equal to Device instances


# ---- §25.6 dtypes ----------------------------------------------------------------------------

def test_c81_dtype_repr_and_numpy():
    np = pytest.importorskip("numpy")
    d = tvm_ffi.dtype("float32")
    assert repr(d) == "dtype('float32')"
    assert type(d) is tvm_ffi.dtype
    assert np.array([1, 2, 3], dtype=d).dtype == "float32"
    assert np.array([1, 2], dtype=tvm_ffi.float32).dtype == "float32"


ALIASES = [
    ("i8", "int8"), ("i16", "int16"), ("i32", "int32"), ("i64", "int64"),
    ("u8", "uint8"), ("u16", "uint16"), ("u32", "uint32"), ("u64", "uint64"),
    ("f16", "float16"), ("f32", "float32"), ("f64", "float64"), ("bf16", "bfloat16"),
    ("f8_e4m3fn", "float8_e4m3fn"), ("fp8_e4m3fn", "float8_e4m3fn"),
    ("f8_e5m2", "float8_e5m2"), ("fp8_e5m2", "float8_e5m2"),
    ("f8_e3m4", "float8_e3m4"), ("fp8_e8m0fnu", "float8_e8m0fnu"),
    ("f8_e4m3b11fnuz", "float8_e4m3b11fnuz"), ("fp8_e5m2fnuz", "float8_e5m2fnuz"),
    ("f6_e2m3fn", "float6_e2m3fn"), ("fp6_e3m2fn", "float6_e3m2fn"),
    ("f4_e2m1fn", "float4_e2m1fn"), ("fp4_e2m1fn", "float4_e2m1fn"),
    ("f32x4", "float32x4"), ("f8_e4m3x4", "float8_e4m3x4"),
    ("f4_e2m1fn_x2", "float4_e2m1fnx2"), ("float4_e2m1fn_x2", "float4_e2m1fnx2"),
]


@pytest.mark.parametrize("alias,canonical", ALIASES)
def test_c82_aliases_keep_text_same_dltype(alias, canonical, echo):
    a, c = tvm_ffi.dtype(alias), tvm_ffi.dtype(canonical)
    assert str(a) == alias
    assert (a.type_code, a.bits, a.lanes) == (c.type_code, c.bits, c.lanes)
    assert echo(a) == canonical  # FFI returns the canonical spelling


ITEMSIZES = [("float32", 4), ("float32x4", 16), ("float8_e5m2x4", 4), ("float6_e2m3fnx4", 3),
             ("float4_e2m1fnx4", 2), ("uint8", 1), ("bool", 1)]


@pytest.mark.parametrize("text,size", ITEMSIZES)
def test_c83_itemsize(text, size):
    assert tvm_ffi.dtype(text).itemsize == size


def test_c83_scalable_itemsize_raises():
    d = tvm_ffi.dtype("int32xvscalex4")
    with pytest.raises(ValueError):
        d.itemsize


@pytest.mark.parametrize("text", [t for t, _ in ITEMSIZES] + ["int32xvscalex4", "bf16", "handle"])
def test_c84_pickle(text):
    d = tvm_ffi.dtype(text)
    back = pickle.loads(pickle.dumps(d))
    assert type(back) is tvm_ffi.dtype and back == d
    assert (back.type_code, back.bits, back.lanes) == (d.type_code, d.bits, d.lanes)


def test_c85_with_lanes():
    d = tvm_ffi.dtype("float32").with_lanes(4)
    assert (d.type_code, d.bits, d.lanes) == (2, 32, 4) and d == "float32x4"
    assert type(d) is tvm_ffi.dtype
    b = tvm_ffi.dtype("bool")
    assert (b.type_code, b.bits, b.lanes) == (6, 8, 1)
    assert b.with_lanes(4) == "boolx4"
    assert tvm_ffi.dtype("f8_e4m3fn").with_lanes(2) == "float8_e4m3fnx2"


TORCH_DTYPES = [
    ("int8", (0, 8, 1)), ("int16", (0, 16, 1)), ("short", (0, 16, 1)), ("int32", (0, 32, 1)),
    ("int", (0, 32, 1)), ("int64", (0, 64, 1)), ("long", (0, 64, 1)), ("uint8", (1, 8, 1)),
    ("uint16", (1, 16, 1)), ("uint32", (1, 32, 1)), ("uint64", (1, 64, 1)),
    ("float16", (2, 16, 1)), ("half", (2, 16, 1)), ("float32", (2, 32, 1)),
    ("float", (2, 32, 1)), ("float64", (2, 64, 1)), ("double", (2, 64, 1)),
    ("bfloat16", (4, 16, 1)), ("bool", (6, 8, 1)), ("float8_e4m3fn", (10, 8, 1)),
    ("float8_e4m3fnuz", (11, 8, 1)), ("float8_e5m2", (12, 8, 1)),
    ("float8_e5m2fnuz", (13, 8, 1)), ("float8_e8m0fnu", (14, 8, 1)),
    ("float4_e2m1fn_x2", (17, 4, 2)),
]


@pytest.mark.parametrize("name,dl", TORCH_DTYPES)
def test_c86_torch_dtypes(name, dl, echo, torch):
    t = getattr(torch, name, None)
    if t is None:
        pytest.skip("torch %s has no %s" % (torch.__version__, name))
    for out in (echo(t), tvm_ffi.convert(t)):
        assert type(out) is tvm_ffi.dtype
        assert (out.type_code, out.bits, out.lanes) == dl


NUMPY_DTYPES = [
    ("int8", (0, 8, 1)), ("int16", (0, 16, 1)), ("int32", (0, 32, 1)), ("int64", (0, 64, 1)),
    ("uint8", (1, 8, 1)), ("uint16", (1, 16, 1)), ("uint32", (1, 32, 1)), ("uint64", (1, 64, 1)),
    ("float16", (2, 16, 1)), ("float32", (2, 32, 1)), ("float64", (2, 64, 1)),
]
ML_DTYPES = [
    ("int2", (0, 2, 1)), ("uint2", (1, 2, 1)), ("int4", (0, 4, 1)), ("uint4", (1, 4, 1)),
    ("bfloat16", (4, 16, 1)), ("float8_e3m4", (7, 8, 1)), ("float8_e4m3", (8, 8, 1)),
    ("float8_e4m3b11fnuz", (9, 8, 1)), ("float8_e4m3fn", (10, 8, 1)),
    ("float8_e4m3fnuz", (11, 8, 1)), ("float8_e5m2", (12, 8, 1)),
    ("float8_e5m2fnuz", (13, 8, 1)), ("float8_e8m0fnu", (14, 8, 1)),
    ("float6_e2m3fn", (15, 6, 1)), ("float6_e3m2fn", (16, 6, 1)), ("float4_e2m1fn", (17, 4, 1)),
]


@pytest.mark.parametrize("name,dl", NUMPY_DTYPES)
def test_c87_numpy_dtypes(name, dl, echo, np):
    t = np.dtype(name)
    for out in (echo(t), tvm_ffi.convert(t)):
        assert type(out) is tvm_ffi.dtype
        assert (out.type_code, out.bits, out.lanes) == dl


@pytest.mark.parametrize("name,dl", ML_DTYPES)
def test_c87_ml_dtypes(name, dl, echo, np):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    t = getattr(ml_dtypes, name, None)
    if t is None:
        pytest.skip("ml_dtypes %s has no %s" % (ml_dtypes.__version__, name))
    t = np.dtype(t)
    for out in (echo(t), tvm_ffi.convert(t)):
        assert type(out) is tvm_ffi.dtype
        assert (out.type_code, out.bits, out.lanes) == dl
    assert tvm_ffi.dtype(t) == name  # str() of the numpy dtype is the ml_dtypes name


def test_c87_numpy_bool_is_not_in_table(echo, np):
    with pytest.raises(ValueError):
        echo(np.dtype("bool"))
    with pytest.raises(KeyError):
        tvm_ffi.convert(np.dtype("bool"))


LITERALS = {
    "bool": (6, 8, 1), "int8": (0, 8, 1), "int16": (0, 16, 1), "int32": (0, 32, 1),
    "int64": (0, 64, 1), "uint8": (1, 8, 1), "uint16": (1, 16, 1), "uint32": (1, 32, 1),
    "uint64": (1, 64, 1), "float16": (2, 16, 1), "float32": (2, 32, 1), "float64": (2, 64, 1),
    "bfloat16": (4, 16, 1), "float8_e3m4": (7, 8, 1), "float8_e4m3": (8, 8, 1),
    "float8_e4m3b11fnuz": (9, 8, 1), "float8_e4m3fn": (10, 8, 1), "float8_e4m3fnuz": (11, 8, 1),
    "float8_e5m2": (12, 8, 1), "float8_e5m2fnuz": (13, 8, 1), "float8_e8m0fnu": (14, 8, 1),
    "float6_e2m3fn": (15, 6, 1), "float6_e3m2fn": (16, 6, 1), "float4_e2m1fn": (17, 4, 1),
    "float4_e2m1fnx2": (17, 4, 2),
}


@pytest.mark.parametrize("name", sorted(LITERALS))
def test_c88_literals_echo(name, echo):
    lit = getattr(tvm_ffi, name)
    assert type(lit) is tvm_ffi.dtype and lit == name
    out = echo(lit)
    assert type(out) is tvm_ffi.dtype and out == name
    assert (out.type_code, out.bits, out.lanes) == LITERALS[name]


def test_c89_from_dlpack_data_type():
    d = tvm_ffi.dtype.from_dlpack_data_type((0, 8, 1))
    assert type(d) is tvm_ffi.dtype
    assert (d.type_code, d.bits, d.lanes) == (0, 8, 1) and d == "int8"
    assert tvm_ffi.dtype.from_dlpack_data_type((2, 32, 4)) == "float32x4"


PREDICATES = {
    # name: (is_bool, is_integer, is_float, is_handle)
    "bool": (True, False, False, False), "int32": (False, True, False, False),
    "uint8": (False, True, False, False), "float32": (False, False, True, False),
    "bfloat16": (False, False, True, False), "float8_e4m3fn": (False, False, True, False),
    "float6_e2m3fn": (False, False, True, False), "float4_e2m1fn": (False, False, True, False),
    "handle": (False, False, False, True),
}


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_c90_predicates(name):
    d = tvm_ffi.dtype(name)
    assert (d.is_bool, d.is_integer, d.is_float, d.is_handle) == PREDICATES[name]


def test_c91_invalid_dtype_and_is_dtype():
    with pytest.raises(ValueError):
        tvm_ffi.dtype("not_a_dtype")
    assert tvm_ffi.dtype.is_dtype("float32") is True
    assert tvm_ffi.dtype.is_dtype(tvm_ffi.float16) is True
    assert tvm_ffi.dtype.is_dtype("not_a_dtype") is False
    assert tvm_ffi.dtype.is_dtype(3) is False


def test_c91_torch_dtype_needs_convert(torch):
    with pytest.raises(ValueError):
        tvm_ffi.dtype(torch.float32)


def test_c92_text_equality(echo):
    f32 = tvm_ffi.dtype("f32")
    assert f32 == "f32" and str(f32) == "f32"
    assert f32 != tvm_ffi.dtype("float32")
    assert echo(f32) == "float32"
    assert hash(tvm_ffi.dtype("float32")) == hash("float32")


def test_c04_datatype_box_echo(echo):
    dt = core.DataType("float32")
    out = echo(dt)
    assert type(out) is tvm_ffi.dtype and out == tvm_ffi.dtype("float32")
    assert pickle.loads(pickle.dumps(dt)) == dt


def test_c85_with_lanes_out_of_range():
    for bad in (70000, -40000):
        with pytest.raises(OverflowError):
            tvm_ffi.dtype("float32").with_lanes(bad)
    with pytest.raises(OverflowError):
        tvm_ffi.dtype.from_dlpack_data_type((2, 300, 1))
    with pytest.raises(TypeError):
        tvm_ffi.dtype("float32").with_lanes(2.0)
    assert tvm_ffi.dtype("int32").with_lanes(-4) == "int32xvscalex4"  # scalable vector
    with pytest.raises(ValueError):  # unknown code: no canonical text
        tvm_ffi.dtype.from_dlpack_data_type((99, 8, 1))
