#!/usr/bin/env python3
"""Atheris target: from_dlpack (and tensor arguments) fed by hostile DLPack producers.

A producer's __dlpack__ returns garbage (non-capsules, misnamed or used capsules), raises, or
returns a well-named capsule over a tensor whose every field is fuzzed: version, flags, ndim,
shape, strides, dtype, device, byte offset, data pointer, deleter.  Types also carry fuzzed
__dlpack_c_exchange_api__ attributes (ints, zeroed or half-filled tables).  The runtime must
import a tensor faithfully or raise a documented kind; a crash, another exception, a wrong
shape or dtype, or a deleter run twice is a finding.  Run by `make fuzz`.
"""

import ctypes
import sys

import atheris

with atheris.instrument_imports():
    import tvm_ffi
    from tvm_ffi import _loader

ffi = _loader.ffi
echo = tvm_ffi.get_global_func("testing.echo")
EXPECTED = (ValueError, TypeError, BufferError, RuntimeError, OverflowError)

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

DELETED = []  # ids of tensors whose deleter ran


@ffi.callback("void(DLManagedTensorVersioned*)")
def _delete_versioned(p):
    DELETED.append(int(ffi.cast("uintptr_t", p)))


@ffi.callback("void(DLManagedTensor*)")
def _delete_legacy(p):
    DELETED.append(int(ffi.cast("uintptr_t", p)))


class Tensor:
    """One fuzzed managed tensor and the memory it points to (kept alive here)."""

    def __init__(self, fdp):
        self.versioned = fdp.ConsumeBool()
        kind = "DLManagedTensorVersioned*" if self.versioned else "DLManagedTensor*"
        self.mt = ffi.new(kind)
        dl = self.mt.dl_tensor
        if self.versioned:
            self.mt.version.major = fdp.PickValueInList([1, 1, 1, 0, 2, fdp.ConsumeUInt(4)])
            self.mt.version.minor = fdp.ConsumeUInt(4)
            self.mt.flags = fdp.ConsumeUInt(8)
        self.has_deleter = fdp.ConsumeIntInRange(0, 3) != 0
        if self.has_deleter:
            self.mt.deleter = _delete_versioned if self.versioned else _delete_legacy
        self.buffer = ffi.new("char[]", 256)
        data = fdp.ConsumeIntInRange(0, 3)
        dl.data = (self.buffer if data else ffi.NULL) if data < 3 else ffi.cast(
            "void*", fdp.ConsumeIntInRange(1, 4096))
        dl.device.device_type = fdp.PickValueInList([1, 1, 2, 3, 0, fdp.ConsumeUInt(4)]) % 2**31
        dl.device.device_id = fdp.ConsumeIntInRange(-(2**31), 2**31 - 1)
        self.ndim = fdp.ConsumeIntInRange(-2, 12)
        dl.ndim = self.ndim
        n = max(self.ndim, 0)
        self.shape_values = [fdp.PickValueInList([0, 1, 2, 3, 7, -1, 2**62,
                                                  fdp.ConsumeInt(8)]) for _ in range(n)]
        self.shape = ffi.new("int64_t[]", self.shape_values or [0])
        dl.shape = self.shape if fdp.ConsumeIntInRange(0, 15) else ffi.NULL
        self.strides = ffi.new("int64_t[]", [fdp.ConsumeInt(8) for _ in range(n)] or [0])
        dl.strides = self.strides if fdp.ConsumeBool() else ffi.NULL
        dl.dtype.code = fdp.PickValueInList([0, 1, 2, 4, 5, 6, 10, fdp.ConsumeUInt(1)])
        dl.dtype.bits = fdp.PickValueInList([8, 16, 32, 64, 1, 4, 0, fdp.ConsumeUInt(1)])
        dl.dtype.lanes = fdp.PickValueInList([1, 1, 2, 4, 0, fdp.ConsumeUInt(2)])
        dl.byte_offset = fdp.PickValueInList([0, 0, 4, 3, fdp.ConsumeUInt(8)])
        self.name = b"dltensor_versioned" if self.versioned else b"dltensor"
        self.address = int(ffi.cast("uintptr_t", self.mt))

    def capsule(self, name=None):
        return _capsule_new(self.address, name or self.name, None)


def exchange_attr(fdp):
    """A fuzzed __dlpack_c_exchange_api__ value and the memory behind it."""
    kind = fdp.ConsumeIntInRange(0, 4)
    if kind == 0:
        return fdp.ConsumeInt(8), None
    if kind == 1:
        return "not a capsule", None
    table = ffi.new("DLPackExchangeAPI*")
    table.header.version.major = fdp.PickValueInList([0, 1, 2])
    table.header.version.minor = fdp.ConsumeUInt(4)
    name = b"dlpack_exchange_api" if kind < 4 else b"dltensor"
    return _capsule_new(int(ffi.cast("uintptr_t", table)), name, None), table


class Producer:
    """__dlpack__ does what the fuzzer chose (classes are fixed: the FFI caches one conversion
    rule per type, and fresh classes would pile up in that cache)."""

    def __init__(self, behave, device):
        self.behave = behave
        self.device = device

    def __dlpack__(self, **kwargs):
        return self.behave()

    def __dlpack_device__(self):
        return self.device


class KeywordlessProducer(Producer):
    def __dlpack__(self):  # an old producer: no max_version/stream keywords
        return self.behave()


class ExchangeProducer(Producer):
    """__dlpack_c_exchange_api__ is set per input; a malformed one is refused before any rule
    is cached, so the class is checked afresh each time."""


def _raiser(exc):
    def behave():
        raise exc("producer says no")

    return behave


def make_producer(fdp, tensor):
    """(producer, whether it hands out the tensor, memory to keep alive)."""
    style = fdp.ConsumeIntInRange(0, 4)
    if style == 0:
        value = fdp.PickValueInList([42, None, "capsule", b"x", 1.5, [tensor.address]])
        behave = lambda: value  # noqa: E731
    elif style == 1:
        behave = _raiser(fdp.PickValueInList([BufferError, TypeError, ValueError, RuntimeError]))
    elif style == 2:
        bad = fdp.PickValueInList([b"used_dltensor", b"used_dltensor_versioned", b"x"])
        behave = lambda: tensor.capsule(bad)  # noqa: E731
    else:
        behave = tensor.capsule
    device = fdp.PickValueInList([(1, 0), (2, 0), (1, -1), (1, 2**40), "cpu"])
    keep = None
    cls = KeywordlessProducer if fdp.ConsumeIntInRange(0, 3) == 0 else Producer
    if fdp.ConsumeIntInRange(0, 31) == 0:
        attr, keep = exchange_attr(fdp)
        ExchangeProducer.__dlpack_c_exchange_api__ = attr
        cls = ExchangeProducer
    return cls(behave, device), style >= 3 and cls is not ExchangeProducer, keep


def check_import(t, tensor):
    assert isinstance(t, tvm_ffi.Tensor), t
    assert t.ndim == tensor.ndim and tuple(t.shape) == tuple(tensor.shape_values), (
        t.shape, tensor.shape_values)


def TestOneInput(data):  # noqa: N802 - atheris' name
    fdp = atheris.FuzzedDataProvider(data)
    tensor = Tensor(fdp)
    producer, gives_tensor, keep = make_producer(fdp, tensor)
    how = fdp.ConsumeIntInRange(0, 2)
    align = fdp.PickValueInList([0, 0, 1, 3, 64, 256])
    contig = fdp.ConsumeBool()
    del DELETED[:]
    try:
        if how == 0:
            t = tvm_ffi.from_dlpack(producer, require_alignment=align, require_contiguous=contig)
        elif how == 1:
            t = tvm_ffi.from_dlpack(tensor.capsule(), require_alignment=align)
        else:
            t = echo(producer)
        imported = True
    except EXPECTED:
        imported = False
    if imported:
        assert gives_tensor or how == 1, "imported from a producer that gave no tensor"
        check_import(t, tensor)
        del t
    assert DELETED.count(tensor.address) <= 1, "deleter ran %d times" % len(DELETED)
    if imported and tensor.has_deleter:
        assert DELETED == [tensor.address], "deleter ran %d times" % len(DELETED)
    del keep


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
