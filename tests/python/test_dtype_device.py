"""dtype, Device and Shape (docs/python.md §10-§12)."""

import pickle

import pytest

import tvm_ffi
from tvm_ffi import core


def test_device_parsing():
    d = tvm_ffi.Device("cuda", 0)
    assert d.dlpack_device_type() == tvm_ffi.DLDeviceType.kDLCUDA and d.index == 0
    assert str(d) == "cuda:0" and repr(d) == "device(type='cuda', index=0)"
    assert str(tvm_ffi.device("ext_dev:0")) == "ext_dev:0"
    for text, code, index in (("cpu", 1, 0), ("cuda", 2, 0), ("cuda:3", 2, 3), ("metal:2", 8, 2),
                              ("mps", 8, 0), ("cuda:1 extra", 2, 1)):
        d = tvm_ffi.device(text)
        assert (d.dlpack_device_type(), d.index) == (code, index)
    assert tvm_ffi.device("cuda:1", 5).index == 1
    assert tvm_ffi.device(tvm_ffi.DLDeviceType.kDLMetal, 2).type == "metal"
    assert hash(tvm_ffi.device("cuda:1")) == hash(tvm_ffi.device("cuda", 1))


@pytest.mark.parametrize("alias", ["llvm", "c", "test", "nvptx", "cl"])
def test_unknown_device(alias):
    with pytest.raises(ValueError) as info:
        tvm_ffi.device(alias)
    assert str(info.value) == "Unknown device: %s" % alias


def test_bad_device_text():
    for bad in ("cpu:0:0", "cpu:?", "cpu:"):
        with pytest.raises(ValueError):
            tvm_ffi.device(bad)
    with pytest.raises(TypeError):
        tvm_ffi.device("cpu", "?")


def test_device_numpy_index_and_pickle():
    np = pytest.importorskip("numpy")
    assert tvm_ffi.device("cpu", np.int32(1)).index == 1
    d = pickle.loads(pickle.dumps(tvm_ffi.device("cuda:2")))
    assert d == tvm_ffi.device("cuda:2")


def test_set_class_device(echo):
    class MyDevice(tvm_ffi.Device):
        __slots__ = ()

    old = core._CLASS_DEVICE
    core._set_class_device(MyDevice)
    try:
        assert type(tvm_ffi.device("cpu")) is MyDevice
        assert type(echo(tvm_ffi.device("cpu"))) is MyDevice
    finally:
        core._set_class_device(old)


def test_dtype_basics(echo):
    d = tvm_ffi.dtype("float32")
    assert repr(d) == "dtype('float32')" and type(d) is tvm_ffi.dtype
    assert (d.type_code, d.bits, d.lanes) == (2, 32, 1)
    assert d == "float32"
    f = tvm_ffi.dtype("f32")
    assert str(f) == "f32" and f == "f32" and f != tvm_ffi.dtype("float32")
    assert (f.type_code, f.bits, f.lanes) == (2, 32, 1)
    assert echo(f) == "float32"
    with pytest.raises(ValueError):
        tvm_ffi.dtype("not_a_dtype")
    assert tvm_ffi.dtype.is_dtype("float32") and not tvm_ffi.dtype.is_dtype("not_a_dtype")


def test_dtype_properties():
    sizes = {"float32": 4, "float32x4": 16, "uint8": 1, "bool": 1}
    for name, size in sizes.items():
        assert tvm_ffi.dtype(name).itemsize == size
    assert tvm_ffi.dtype("bool").with_lanes(4) == "boolx4"
    assert tvm_ffi.dtype("float32").with_lanes(4) == "float32x4"
    b = tvm_ffi.dtype("bool")
    assert (b.type_code, b.bits, b.lanes) == (6, 8, 1) and b.is_bool
    assert tvm_ffi.dtype("int32").is_integer and tvm_ffi.dtype("uint8").is_integer
    assert tvm_ffi.dtype("bfloat16").is_float and not tvm_ffi.dtype("int8").is_float
    x = tvm_ffi.dtype.from_dlpack_data_type((0, 8, 1))
    assert (x.type_code, x.bits, x.lanes) == (0, 8, 1)
    assert pickle.loads(pickle.dumps(tvm_ffi.dtype("float32x4"))) == "float32x4"
    assert tvm_ffi.float4_e2m1fnx2.lanes == 2


def test_dtype_numpy():
    np = pytest.importorskip("numpy")
    assert np.array([1, 2, 3], dtype=tvm_ffi.dtype("float32")).dtype == "float32"
    echo = tvm_ffi.get_global_func("testing.echo")
    assert echo(np.dtype("int16")) == "int16"
    assert tvm_ffi.convert(np.dtype("uint8")) == "uint8"
    with pytest.raises(ValueError):
        echo(np.dtype("bool"))
    with pytest.raises(KeyError):
        tvm_ffi.convert(np.dtype("bool"))


def test_shape(echo):
    s = tvm_ffi.Shape((10, 8, 4, 2))
    assert isinstance(s, tvm_ffi.Shape) and isinstance(s, tuple) and s == (10, 8, 4, 2)
    r = echo(s)
    assert isinstance(r, tvm_ffi.Shape) and r == s
    assert r._tvm_ffi_cached_object.same_as(s._tvm_ffi_cached_object)
    with pytest.raises(ValueError):
        tvm_ffi.Shape((1, 2.5))


def test_string_bytes_pickle():
    s = core.String("hello world, long")
    assert type(pickle.loads(pickle.dumps(s))) is str
    assert type(pickle.loads(pickle.dumps(core.Bytes(b"x")))) is bytes
    assert s.find("", 20) == -1 and s[1:3] == "el"
    assert isinstance(tvm_ffi.convert("hello"), str)
    assert isinstance(tvm_ffi.convert(b"hello"), core.Bytes)
    assert isinstance(tvm_ffi.convert(bytearray(b"hello")), bytes)


# complex (DLPack code 5): beyond the apache package, which cannot print code 5


@pytest.mark.parametrize("name,bits", [("complex64", 64), ("complex128", 128)])
def test_complex_dtype_parses_and_prints(name, bits):
    d = tvm_ffi.dtype(name)
    assert (d.type_code, d.bits, d.lanes) == (5, bits, 1)
    assert str(d) == name and repr(d) == "dtype('%s')" % name
    assert str(tvm_ffi.get_global_func("testing.echo")(d)) == name
    assert tvm_ffi.dtype("complex").bits == 64


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_complex_tensor_round_trips_with_numpy(np, name):
    a = (np.arange(4) + 2j).astype(name)
    assert str(tvm_ffi.convert(a.dtype)) == name
    t = tvm_ffi.from_dlpack(a)
    assert t.dtype == name and name in repr(t)
    back = np.from_dlpack(t)
    assert back.dtype == a.dtype and (back == a).all()
    assert tvm_ffi.get_global_func("testing.echo")(a).dtype == name


def test_complex_tensor_round_trips_with_torch(torch):
    a = torch.arange(4.0) + 1j
    assert str(tvm_ffi.convert(torch.complex64)) == "complex64"
    assert str(tvm_ffi.convert(torch.complex128)) == "complex128"
    t = tvm_ffi.from_dlpack(a)
    assert t.dtype == "complex64"
    assert torch.equal(torch.from_dlpack(t), a)
