"""asdlpack over every producer protocol, with numpy and torch as consumers (CPU only)."""
import array
import ctypes
import gc
import mmap
import sys
import warnings

import pytest

import dlpack
from dlpack import (DLManagedTensorVersioned, asdlpack, asdlpack_buffer,
                    asdlpack_cuda_array_interface, todict)

np = pytest.importorskip("numpy")

FAKE_PTR = 0x7F12_3456_7000  # >= 2**32 so the legacy/versioned heuristic is unambiguous


class ArrayInterface:
    def __init__(self, **kw):
        self.__array_interface__ = dict(version=3, shape=(2, 3), typestr="<f4",
                                        data=(FAKE_PTR, False), strides=None, **kw)


class CudaArrayInterface:
    def __init__(self, **kw):
        d = dict(version=3, shape=(4,), typestr="<i8", data=(FAKE_PTR, True), strides=None)
        d.update(kw)
        self.__cuda_array_interface__ = d


def meta(obj, impl_cls=None):
    return todict(asdlpack(obj, impl_cls=impl_cls).__dlpack__())


# ---- metadata of each dispatch branch -------------------------------------------------------


def test_array_interface_metadata():
    d = meta(ArrayInterface())["dl_tensor"]
    assert d["data"] == FAKE_PTR and d["shape"] == (2, 3) and d["strides"] == (3, 1)
    assert d["device"] == {"device_type": "DLCPU", "device_id": 0}
    assert d["dtype"] == {"code": "DLFloat", "bits": 32, "lanes": 1} and d["byte_offset"] == 0


def test_array_interface_strides_and_flags():
    obj = ArrayInterface()
    obj.__array_interface__.update(strides=(4, 8), data=(FAKE_PTR, True), typestr="|u1",
                                   shape=(2, 3))
    obj.__array_interface__["typestr"] = "<u4"
    v = meta(obj, impl_cls=DLManagedTensorVersioned)
    assert v["dl_tensor"]["strides"] == (1, 2)
    assert v["version"] == {"major": 1, "minor": 0} and v["flags"] == 1


def test_array_interface_errors():
    bad_version = ArrayInterface()
    bad_version.__array_interface__["version"] = 2
    with pytest.raises(AssertionError):
        asdlpack(bad_version)
    for kind, label in [("t", "Bit"), ("m", "Timedelta"), ("M", "Datetime"), ("O", "Object"),
                        ("S", "String"), ("U", "Unicode"), ("V", "VoidP")]:
        o = ArrayInterface()
        o.__array_interface__["typestr"] = "|%s8" % kind
        with pytest.raises(ValueError, match="DLPack does not support `%s` type" % label):
            asdlpack(o)
    o = ArrayInterface()
    o.__array_interface__["data"] = None
    with pytest.raises(NotImplementedError, match="buffer object None"):
        asdlpack(o)
    o = ArrayInterface(offset=8)
    with pytest.raises(AssertionError):
        asdlpack(o)
    o = ArrayInterface()
    o.__array_interface__["typestr"] = "=f4"
    with pytest.raises(AssertionError):
        asdlpack(o)


def test_array_interface_mask_warns():
    with pytest.warns(UserWarning, match="export_array_interface_v3 ignores mask"):
        asdlpack(ArrayInterface(mask=object()))


def test_big_endian_is_rejected():
    o = ArrayInterface()
    o.__array_interface__["typestr"] = (">f4" if sys.byteorder == "little" else "<f4")
    with pytest.raises(ValueError, match="non-native byte order"):
        asdlpack(o)


def test_array_interface_v2_not_implemented():
    class V2:
        __array_shape__ = (1,)
        __array_typestr__ = "<f4"

    with pytest.raises(NotImplementedError, match="V2"):
        asdlpack(V2())


def test_cuda_array_interface():
    with pytest.warns(UserWarning, match="asdlpack_cuda_array_interface ignores stream"):
        o = asdlpack(CudaArrayInterface(stream=1))
    assert o.__dlpack_device__()[0] == 2
    v = todict(o.__dlpack__(max_version=(1, 0)))
    assert v["dl_tensor"]["device"]["device_type"] == "DLCUDA" and v["flags"] == 1
    assert v["dl_tensor"]["dtype"] == {"code": "DLInt", "bits": 64, "lanes": 1}
    with pytest.warns(UserWarning, match="asdlpack_cuda_array_interface ignores mask"):
        asdlpack_cuda_array_interface(CudaArrayInterface(mask=1))
    with pytest.raises(AssertionError):
        asdlpack(CudaArrayInterface(version=1))


def test_buffer_formats():
    cases = [(b"Hello!", ("DLUInt", 8), (6,)), (array.array("d", [1, 2]), ("DLFloat", 64), (2,)),
             (array.array("l", [1, 2, 3]), ("DLInt", 8 * ctypes.sizeof(ctypes.c_long)), (3,)),
             (array.array("b", [1]), ("DLInt", 8), (1,)),
             (memoryview(bytes(range(4))).cast("B", shape=[2, 2]), ("DLUInt", 8), (2, 2)),
             (memoryview(b"\x01\x00").cast("?"), ("DLBool", 8), (2,))]
    for obj, (code, bits), shape in cases:
        v = meta(obj, impl_cls=DLManagedTensorVersioned)
        t = v["dl_tensor"]
        assert (t["dtype"]["code"], t["dtype"]["bits"], t["shape"]) == (code, bits, shape)
        assert v["flags"] == 1  # the buffer path is always exported read-only


def test_buffer_errors():
    with pytest.raises(TypeError):
        asdlpack([1, 2, 3])
    with pytest.raises(AssertionError):
        asdlpack(memoryview(b"12345678").cast("P"))


def test_zero_dim_and_empty():
    t = meta(np.float64(3.0) if hasattr(np.float64(3.0), "__dlpack__") else np.array(3.0))
    assert t["dl_tensor"]["shape"] == () and t["dl_tensor"]["strides"] == ()
    assert np.from_dlpack(asdlpack(b"")).shape == (0,)


def test_get_strides():
    assert dlpack._get_strides((4, 6, 5)) == (30, 5, 1)
    assert dlpack._get_strides((2, 3), (24, -8), 8) == (3, -1)
    assert dlpack._get_strides(()) == ()


def test_dlpack_producer_keeps_dtype_and_device():
    a = np.arange(60, dtype=np.int16).reshape(5, 6, 2)[1:3, ::2, ::-1]
    t = meta(a)["dl_tensor"]
    assert t["strides"] == (12, 4, -1) and t["shape"] == (2, 3, 2)
    assert t["dtype"] == {"code": "DLInt", "bits": 16, "lanes": 1}
    assert t["data"] == a.__array_interface__["data"][0]


def test_todict_errors():
    with pytest.raises(TypeError, match="expected capsule object but got builtins.str"):
        todict("x")
    cap = asdlpack(b"abc").__dlpack__()
    np.from_dlpack(type("C", (), {"__dlpack__": lambda self, **kw: cap,
                                  "__dlpack_device__": lambda self: (1, 0)})())
    with pytest.raises(ValueError, match="used_dltensor-capsule is not a valid dltensor-capsule"):
        todict(cap)


# ---- consumers ------------------------------------------------------------------------------


SAMPLES = [np.arange(1, 7, dtype=dt).reshape(2, 3)
           for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                      np.uint64, np.float16, np.float32, np.float64)]
SAMPLES += [np.arange(1, 5, dtype=np.complex64) - 1j * np.arange(1, 5),
            np.array([True, False, True]), np.array(5.0),
            np.arange(150, dtype=np.float32).reshape(5, 6, 5)[1:3, ::2, ::-1]]


@pytest.mark.parametrize("a", SAMPLES, ids=lambda a: "%s%s" % (a.dtype, a.shape))
@pytest.mark.parametrize("protocol", ["dlpack", "array_interface", "buffer"])
def test_numpy_round_trip(a, protocol):
    if a.dtype == np.bool_ and tuple(int(x) for x in np.__version__.split(".")[:2]) < (1, 26):
        pytest.skip("numpy < 1.26 does not import bool tensors through DLPack")
    if protocol == "dlpack":
        dl = asdlpack(a)
    elif protocol == "array_interface":
        dl = dlpack.asdlpack_array_interface_v3(a)
    else:
        if not a.flags.c_contiguous and not a.flags.f_contiguous:
            a = np.ascontiguousarray(a)  # the buffer protocol of numpy needs no strides here
        dl = asdlpack_buffer(a)
    b = np.from_dlpack(dl)
    assert b.dtype == a.dtype and b.shape == a.shape
    np.testing.assert_array_equal(b, a)
    assert b.__array_interface__["data"][0] == a.__array_interface__["data"][0]


def test_lifetimes():
    def make():
        src = np.arange(10.0)
        return asdlpack(src)  # the DLPackObject is all that keeps src alive

    dl = make()
    gc.collect()
    b = np.from_dlpack(dl)
    del dl
    gc.collect()
    np.testing.assert_array_equal(b, np.arange(10.0))
    # two consumers of one DLPackObject, and two unconsumed exports
    dl = asdlpack(np.arange(4))
    x, y = np.from_dlpack(dl), np.from_dlpack(dl)
    c1, c2 = dl.__dlpack__(), dl.__dlpack__()
    del c1, c2
    np.testing.assert_array_equal(x, y)
    # exports are independent: reusing a DLPackObject after every consumer released works
    del x, y
    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(dl), np.arange(4))


def test_rejected_capsule_is_released():
    gc.collect()
    before = len(dlpack._LIVE)
    dl = asdlpack(ArrayInterface())  # a fake pointer: never read, the consumer only checks
    o = type("T", (), {"__array_interface__": dict(version=3, shape=(2,), typestr="|V2",
                                                   data=(FAKE_PTR, False))})()
    with pytest.raises(ValueError):
        asdlpack(o)
    cap = dl.__dlpack__()
    assert len(dlpack._LIVE) == before + 1
    del cap
    gc.collect()
    assert len(dlpack._LIVE) == before


def test_no_leaked_exports():
    gc.collect()
    before = len(dlpack._LIVE)
    for _ in range(10):
        dl = asdlpack(bytearray(b"abcd"))
        np.from_dlpack(dl)
        dl.__dlpack__()
    gc.collect()
    assert len(dlpack._LIVE) == before


def test_protocol_keywords():
    dl = asdlpack(b"abc")
    assert dl.__dlpack_device__() == (1, 0)
    legacy = dl.__dlpack__()
    assert dlpack.Capsule(legacy).get_name() == "dltensor"
    versioned = dl.__dlpack__(max_version=(1, 2))
    assert dlpack.Capsule(versioned).get_name() == "dltensor_versioned"
    assert dlpack.Capsule(dl.__dlpack__(max_version=(0, 8))).get_name() == "dltensor"
    assert todict(versioned)["flags"] == 1
    dl.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="cannot move data"):
        dl.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="never copies"):
        dl.__dlpack__(copy=True)
    # impl_cls=versioned: plain __dlpack__() gives a correctly named versioned capsule
    v = asdlpack(b"abc", impl_cls=DLManagedTensorVersioned).__dlpack__()
    assert dlpack.Capsule(v).get_name() == "dltensor_versioned"
    assert todict(v)["version"] == {"major": 1, "minor": 0}


def test_readonly_reaches_numpy():
    ro = np.from_dlpack(asdlpack(b"abc"))  # numpy >= 2.1 asks for a versioned capsule
    if tuple(int(x) for x in np.__version__.split(".")[:2]) >= (2, 1):
        assert not ro.flags.writeable


def test_buffer_view_is_held_while_exported():
    ba = bytearray(b"abcd")
    dl = asdlpack(ba)
    with pytest.raises(BufferError):
        ba.extend(b"efgh")  # resizing would leave the exported pointer dangling
    del dl
    gc.collect()
    ba.extend(b"efgh")


def test_buffer_consumers_memmap_and_mmap(tmp_path):
    path = tmp_path / "m.bin"
    mm = np.memmap(path, dtype=np.int32, mode="w+", shape=(2, 3))
    mm[:] = np.arange(6).reshape(2, 3)
    mm.flush()
    np.testing.assert_array_equal(np.from_dlpack(asdlpack(mm)), mm)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        b = np.from_dlpack(asdlpack(m))
        np.testing.assert_array_equal(b, np.frombuffer(path.read_bytes(), dtype=np.uint8))
        del b
        gc.collect()
        m.close()


def test_torch_consumer():
    torch = pytest.importorskip("torch")
    assert torch.from_dlpack(asdlpack(b"Hello!")).tolist() == [72, 101, 108, 108, 111, 33]
    t = torch.from_dlpack(asdlpack(array.array("d", [1, 2])))
    assert t.dtype == torch.float64 and t.tolist() == [1.0, 2.0]
    a = np.arange(150, dtype=np.float32).reshape(5, 6, 5)[1:3, ::2, ::1]
    t = torch.from_dlpack(asdlpack(a))  # torch rejects negative strides: ::1 on the last axis
    assert t.stride() == tuple(s // 4 for s in a.strides)
    np.testing.assert_array_equal(t.numpy(), a)
    src = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    back = torch.from_dlpack(asdlpack(src))
    assert back.data_ptr() == src.data_ptr() and torch.equal(back, src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mv = memoryview(bytearray(range(4))).cast("B", shape=[2, 2])
        assert torch.from_dlpack(asdlpack(mv)).tolist() == [[0, 1], [2, 3]]


def test_cuda_paths_need_a_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: CUDA array interface and CUDA DLPack paths not exercised")
    x = torch.arange(4, device="cuda")
    dl = asdlpack_cuda_array_interface(x)
    assert dl.__dlpack_device__() == (2, x.device.index)
    assert torch.equal(torch.from_dlpack(dl), x)
