"""Buffer: a Py_buffer view of an object through the buffer protocol (PyObject_GetBuffer)."""
import ctypes

PyBUF_SIMPLE = 0
PyBUF_WRITABLE = 0x0001
PyBUF_FORMAT = 0x0004
PyBUF_ND = 0x0008
PyBUF_STRIDES = 0x0010 | PyBUF_ND
PyBUF_C_CONTIGUOUS = 0x0020 | PyBUF_STRIDES
PyBUF_F_CONTIGUOUS = 0x0040 | PyBUF_STRIDES
PyBUF_ANY_CONTIGUOUS = 0x0080 | PyBUF_STRIDES
PyBUF_INDIRECT = 0x0100 | PyBUF_STRIDES
PyBUF_CONTIG = PyBUF_ND | PyBUF_WRITABLE
PyBUF_CONTIG_RO = PyBUF_ND
PyBUF_STRIDED = PyBUF_STRIDES | PyBUF_WRITABLE
PyBUF_STRIDED_RO = PyBUF_STRIDES
PyBUF_RECORDS = PyBUF_STRIDES | PyBUF_WRITABLE | PyBUF_FORMAT
PyBUF_RECORDS_RO = PyBUF_STRIDES | PyBUF_FORMAT
PyBUF_FULL = PyBUF_INDIRECT | PyBUF_WRITABLE | PyBUF_FORMAT
PyBUF_FULL_RO = PyBUF_INDIRECT | PyBUF_FORMAT


class Py_buffer(ctypes.Structure):
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


Py_Buffer = Py_buffer  # the name pydlpack used

_GetBuffer = ctypes.pythonapi["PyObject_GetBuffer"]
_GetBuffer.restype = ctypes.c_int
_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(Py_buffer), ctypes.c_int]
_Release = ctypes.pythonapi["PyBuffer_Release"]
_Release.restype = None
_Release.argtypes = [ctypes.POINTER(Py_buffer)]


class Buffer:
    """Holds a buffer view of ``obj`` until ``release()`` or garbage collection."""

    def __init__(self, obj, flags=PyBUF_SIMPLE):
        self._view = Py_buffer()
        self._held = False
        # ctypes raises the exporter's own error (e.g. TypeError for a list) here
        if _GetBuffer(obj, ctypes.byref(self._view), flags) != 0:
            raise BufferError("requesting a buffer view with flags=%d" % flags)
        self._held = True

    def release(self):
        if getattr(self, "_held", False):
            self._held = False
            _Release(ctypes.byref(self._view))

    def __del__(self):
        self.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def _tuple(self, p):
        return None if not p else tuple(p[i] for i in range(self._view.ndim))

    @property
    def ndim(self):
        return self._view.ndim

    @property
    def shape(self):
        return self._tuple(self._view.shape)

    @property
    def strides(self):
        return self._tuple(self._view.strides)

    @property
    def suboffsets(self):
        return self._tuple(self._view.suboffsets)

    @property
    def itemsize(self):
        return self._view.itemsize

    @property
    def readonly(self):
        return bool(self._view.readonly)

    @property
    def pointer(self):
        return self._view.buf or 0

    @property
    def format(self):
        f = self._view.format
        return None if f is None else f.decode()
