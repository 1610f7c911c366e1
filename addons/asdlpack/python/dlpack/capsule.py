"""Capsule: a thin ctypes wrapper over a PyCapsule (names, pointers, contexts, destructors)."""
import ctypes

_api = ctypes.pythonapi

PyCapsule_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _fn(name, restype, *argtypes):
    f = _api[name]  # a fresh function object: getattr would share (and clobber) argtypes
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_New = _fn("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
           PyCapsule_Destructor)
_IsValid = _fn("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_GetPointer = _fn("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
_SetPointer = _fn("PyCapsule_SetPointer", ctypes.c_int, ctypes.py_object, ctypes.c_void_p)
_GetName = _fn("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
_SetName = _fn("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_GetContext = _fn("PyCapsule_GetContext", ctypes.c_void_p, ctypes.py_object)
_SetContext = _fn("PyCapsule_SetContext", ctypes.c_int, ctypes.py_object, ctypes.c_void_p)
_GetDestructor = _fn("PyCapsule_GetDestructor", PyCapsule_Destructor, ctypes.py_object)
_SetDestructor = _fn("PyCapsule_SetDestructor", ctypes.c_int, ctypes.py_object,
                     PyCapsule_Destructor)
# Raw-pointer variants, usable from inside a capsule destructor (no new references).
raw_IsValid = _fn("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
raw_GetPointer = _fn("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

_CapsuleType = type(_New(ctypes.c_void_p(1), None, PyCapsule_Destructor(0)))


def _as_bytes(name):
    if name is None or isinstance(name, bytes):
        return name
    return name.encode()


def check_capsule(obj):
    if not isinstance(obj, _CapsuleType):
        raise TypeError("expected capsule object but got %s.%s"
                        % (type(obj).__module__, type(obj).__name__))


class Capsule:
    """Wraps an existing PyCapsule; ``Capsule.new`` creates one.

    Names and destructor callbacks must outlive the capsule (PyCapsule keeps raw pointers),
    so they are kept in class-level registries keyed by the capsule's id."""

    _keep = {}  # id(capsule) -> [name bytes, destructor callback]

    def __init__(self, capsule):
        check_capsule(capsule)
        self.capsule = capsule

    @classmethod
    def new(cls, pointer, name=None, destructor=None):
        name = _as_bytes(name)
        holder = [name]

        def _destroy(ptr):
            # runs while the capsule dies: the name is still needed up to here
            try:
                if destructor is not None:
                    destructor(_DyingCapsule(ptr))
            finally:
                cls._keep.pop(ptr, None)

        cb = PyCapsule_Destructor(_destroy)
        holder.append(cb)
        cap = _New(ctypes.c_void_p(pointer), name, cb)
        cls._keep[id(cap)] = holder  # id() is the capsule's address in CPython
        return cls(cap)

    def is_valid(self, name):
        return bool(_IsValid(self.capsule, _as_bytes(name)))

    def get_pointer(self, name=None):
        if name is None:
            name = self.get_name()
        return _GetPointer(self.capsule, _as_bytes(name))

    def set_pointer(self, ptr):
        if _SetPointer(self.capsule, ptr) != 0:
            raise ValueError("PyCapsule_SetPointer failed")

    def get_name(self):
        n = _GetName(self.capsule)
        return None if n is None else n.decode()

    def set_name(self, name):
        name = _as_bytes(name)
        self._keep.setdefault(id(self.capsule), [None]).append(name)
        if _SetName(self.capsule, name) != 0:
            raise ValueError("PyCapsule_SetName failed")

    def get_context(self):
        return _GetContext(self.capsule)

    def set_context(self, ptr):
        _SetContext(self.capsule, ptr)

    def get_destructor(self):
        return _GetDestructor(self.capsule)

    def set_destructor(self, destructor):
        cls = type(self)

        def _destroy(ptr):
            try:
                if destructor is not None:
                    destructor(_DyingCapsule(ptr))
            finally:
                cls._keep.pop(ptr, None)

        cb = PyCapsule_Destructor(_destroy)
        self._keep.setdefault(id(self.capsule), [None]).append(cb)
        _SetDestructor(self.capsule, cb)


class _DyingCapsule:
    """What a Python destructor receives: the raw address of the capsule being destroyed."""

    def __init__(self, ptr):
        self.address = ptr

    def is_valid(self, name):
        return bool(raw_IsValid(self.address, _as_bytes(name)))

    def get_pointer(self, name):
        return raw_GetPointer(self.address, _as_bytes(name))
