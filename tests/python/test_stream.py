"""Env streams (docs/python.md §9)."""

import ctypes

import pytest

import tvm_ffi


def test_nested_raw_streams():
    dev = tvm_ffi.device("cuda:0")
    assert tvm_ffi.get_raw_stream(dev) == 0
    with tvm_ffi.use_raw_stream(dev, 123456789):
        assert tvm_ffi.get_raw_stream(dev) == 123456789
        with tvm_ffi.use_raw_stream(dev, ctypes.c_void_p(987654321)):
            assert tvm_ffi.get_raw_stream(dev) == 987654321
        assert tvm_ffi.get_raw_stream(dev) == 123456789
    assert tvm_ffi.get_raw_stream(dev) == 0


def test_bad_stream():
    with pytest.raises(ValueError, match="use_torch_stream"):
        tvm_ffi.use_raw_stream(tvm_ffi.device("cuda:0"), "x")


def test_cuda_stream_protocol(echo):
    class S:
        def __cuda_stream__(self):
            return ("cuda", 1)

    assert echo(S()).value == 1
