"""Per-device current streams (TVMFFIEnvSetStream / TVMFFIEnvGetStream)."""

import ctypes

from ._base import _addr, _ptr
from ._loader import ffi, lib
from ._tensor import device
from .error import _check



def _stream_int(stream):
    if isinstance(stream, ctypes.c_void_p):
        return stream.value or 0
    value = int(stream)
    if not 0 <= value < 1 << (8 * ctypes.sizeof(ctypes.c_void_p)):
        # a stream is a pointer: refuse what would silently wrap around
        raise OverflowError("stream handle %d does not fit in a pointer" % value)
    return value


class StreamContext:
    """Sets the env stream of a device on enter and restores the previous one on exit."""

    def __init__(self, device, stream):
        self.device_type = device.dlpack_device_type()
        self.device_id = device.index
        self.stream = stream
        self._value = _stream_int(stream)  # bad values fail here, not half-way into a with
        self._prev = []

    def __enter__(self):
        prev = ffi.new("void**")
        _check(
            lib.TVMFFIEnvSetStream(
                self.device_type, self.device_id, _ptr(self._value), prev
            )
        )
        self._prev.append(prev[0])
        return self

    def __exit__(self, *exc):
        prev = self._prev.pop()
        _check(lib.TVMFFIEnvSetStream(self.device_type, self.device_id, prev, ffi.NULL))
        return False


def use_raw_stream(device, stream):
    if not isinstance(stream, (int, ctypes.c_void_p)) or isinstance(stream, bool):
        raise ValueError(
            "use_raw_stream expects an int or ctypes.c_void_p stream, got %r; "
            "for torch streams or graphs use use_torch_stream" % (stream,)
        )
    return StreamContext(device, stream)


def get_raw_stream(device):
    return _addr(lib.TVMFFIEnvGetStream(device.dlpack_device_type(), device.index))


class _TorchStreamContext:
    def __init__(self, context):
        self.context = context
        self._inner = None

    def __enter__(self):
        import torch  # noqa: PLC0415

        if self.context is not None:
            self.context.__enter__()
        try:
            s = torch.cuda.current_stream()
            self._inner = StreamContext(device(str(s.device)), s.cuda_stream)
            self._inner.__enter__()
        except BaseException:
            if self.context is not None:  # leave torch's context as we found it
                self.context.__exit__(*__import__("sys").exc_info())
            raise
        return self

    def __exit__(self, *exc):
        try:
            if self.context is not None:
                self.context.__exit__(*exc)
        finally:  # the env stream is restored even when torch's exit fails
            self._inner.__exit__(*exc)
        return False


def use_torch_stream(context=None):
    try:
        import torch  # noqa: F401, PLC0415
    except ImportError:
        raise ImportError("Cannot import torch") from None
    return _TorchStreamContext(context)
