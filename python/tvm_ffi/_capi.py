"""The Python C-API calls ABI mode needs and cffi cannot make (a capsule is a Python object).

CPython reaches them through ``ctypes.pythonapi``; interpreters without it (PyPy) through
``_capi_ext``, a small extension module built from ``_ffi_src/capi.c`` (``_build_ffi.py
--capi``).  The compiled fast path (API mode) does all of this in its own C and never imports
this module.
"""

import sys

from . import _loader

_api = None
if sys.implementation.name != "pypy":  # (PyPy has no ctypes.pythonapi; importing ctypes there
    try:  # to find that out cost ~7 ms of its import)
        from ctypes import pythonapi as _api
    except ImportError:
        pass

if _api is None:
    try:
        from . import _capi_ext as _ext
    except ImportError:
        _ext = None
    MISSING = None if _ext is not None else (
        "tvm_ffi._capi_ext (build it with this interpreter: "
        "python python/tvm_ffi/_build_ffi.py --capi --include c/include --out-dir DIR)")

    def _ext_or_raise():
        if _ext is None:
            raise RuntimeError("tvm_ffi: DLPack capsules on this interpreter need " + MISSING)
        return _ext

    def capsule_name(obj):
        """The capsule's name as bytes, or None (not a capsule, or nameless)."""
        return _ext_or_raise().name(obj) if type(obj).__name__ == "PyCapsule" else None

    def capsule_pointer(cap, name):
        return _ext_or_raise().pointer(cap, name)

    def capsule_mark_used(cap):
        _ext_or_raise().mark_used(cap)

    def export_tensor(address, versioned):
        return _ext_or_raise().export_tensor(address, 1 if versioned else 0)

    def api_addresses():
        return _ext.api_addresses() if _ext is not None else {}

    def _import_missing(obj, *args):
        _ext_or_raise()

    # set by install(): the extension's importers (module globals, which PyPy's JIT reads as
    # constants), and the C function (through cffi) that returns the handle they left
    import_arg, _import_ex, take_imported = _import_missing, _import_missing, None

    def import_tensor(obj, align=0, contig=0):
        """A DLPack producer or capsule (that has __dlpack__, or is one) as a new Tensor handle,
        in C (one cpyext crossing): None with the handle left for ``take_imported()`` (this
        thread's; an int object per call cost ~130 ns on PyPy), False when the
        runtime refused it (its error set), else a 1-tuple of the capsule (or whatever
        ``__dlpack__()`` returned) for the caller to consume or report.  ``import_arg(obj)``
        is the same with no alignment or contiguity required."""
        return _import_ex(obj, align, contig) if align or contig else import_arg(obj)

    def readonly_member(cls, raw, name):
        return None  # no member descriptors to make: the caller seals with a property

else:
    import ctypes

    MISSING = None
    _get_name = _api.PyCapsule_GetName
    _get_name.restype = ctypes.c_char_p
    _get_name.argtypes = [ctypes.py_object]
    _get = _api.PyCapsule_GetPointer
    _get.restype = ctypes.c_void_p
    _get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    _is_valid = _api.PyCapsule_IsValid
    _is_valid.restype = ctypes.c_int
    _is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    _set_name = _api.PyCapsule_SetName
    _set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    _set_dtor = _api.PyCapsule_SetDestructor
    _set_dtor.argtypes = [ctypes.py_object, ctypes.c_void_p]
    _new = _api.PyCapsule_New
    _new.restype = ctypes.py_object
    _new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    # a dying capsule (refcount 0) is taken as a raw pointer, never as an object
    _raw_get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", _api))
    _raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_IsValid", _api))

    # capsule names must outlive the capsules: module-level constants
    _N_LEGACY, _N_VERSIONED = ctypes.c_char_p(b"dltensor"), ctypes.c_char_p(b"dltensor_versioned")
    _N_USED_LEGACY = ctypes.c_char_p(b"used_dltensor")
    _N_USED_VERSIONED = ctypes.c_char_p(b"used_dltensor_versioned")
    # the DLPack deleter is the first field after the tensor (legacy) / after version and
    # manager_ctx (versioned): read it with the package's cffi declarations, set by install()
    _deleter_of = None

    def _dtor(name):
        @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        def dtor(cap):
            if _raw_is_valid(cap, name) and _deleter_of is not None:
                _deleter_of(_raw_get(cap, name), name is _N_VERSIONED)

        return dtor

    _DTOR_LEGACY, _DTOR_VERSIONED = _dtor(_N_LEGACY), _dtor(_N_VERSIONED)

    def capsule_name(obj):
        if type(obj).__name__ != "PyCapsule":
            return None
        return _get_name(obj)

    def capsule_pointer(cap, name):
        return _get(cap, name)

    def capsule_mark_used(cap):
        if _is_valid(cap, _N_VERSIONED):
            _set_name(cap, _N_USED_VERSIONED)
        elif _is_valid(cap, _N_LEGACY):
            _set_name(cap, _N_USED_LEGACY)
        else:
            raise ValueError("not a dltensor capsule")
        _set_dtor(cap, None)

    def export_tensor(address, versioned):
        if versioned:
            return _new(address, _N_VERSIONED, ctypes.cast(_DTOR_VERSIONED, ctypes.c_void_p))
        return _new(address, _N_LEGACY, ctypes.cast(_DTOR_LEGACY, ctypes.c_void_p))

    class _MemberDef(ctypes.Structure):  # PyMemberDef (stable ABI)
        _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                    ("offset", ctypes.c_ssize_t), ("flags", ctypes.c_int),
                    ("doc", ctypes.c_char_p)]

    _new_member = _api.PyDescr_NewMember
    _new_member.restype = ctypes.py_object
    _new_member.argtypes = [ctypes.py_object, ctypes.c_void_p]
    _MEMBER_DEFS = []  # a descriptor points into its definition: kept forever

    def readonly_member(cls, raw, name):
        """A READONLY member descriptor (_base._seal_slot) for the slot the writable member
        descriptor raw of cls serves; None when the slot's offset cannot be told for sure."""
        probe, marker = cls.__new__(cls), object()
        old = raw.__get__(probe)
        raw.__set__(probe, marker)  # the slot is the one word of the instance holding marker
        words = (ctypes.c_void_p * (cls.__basicsize__ // ctypes.sizeof(ctypes.c_void_p)))
        found = [i for i, w in enumerate(words.from_address(id(probe))) if w == id(marker)]
        d = None
        if len(found) == 1:
            md = _MemberDef(name.encode(), 16, found[0] * ctypes.sizeof(ctypes.c_void_p), 1, None)
            _MEMBER_DEFS.append(md)  # (16: T_OBJECT_EX, 1: READONLY)
            d = _new_member(cls, ctypes.addressof(md))
            if d.__get__(probe) is not marker:
                d = None
        raw.__set__(probe, old)
        return d

    def api_addresses():
        return {name: ctypes.cast(getattr(_api, name), ctypes.c_void_p).value
                for name in ("PyErr_CheckSignals", "PyGILState_Ensure", "PyGILState_Release")}

    take_imported = None  # (import_tensor never leaves a handle: no extension)

    def import_tensor(obj, align=0, contig=0):
        """What the extension's import_tensor leaves to its caller, always: (the capsule,)."""
        return (obj if type(obj).__name__ == "PyCapsule" else obj.__dlpack__(),)

    import_arg = import_tensor


def install(ffi):
    """Gives the ctypes capsule destructors the cffi declarations to free a tensor with; gives
    the extension the runtime's DLPack importers."""
    global _deleter_of, import_arg, _import_ex, take_imported
    if _api is None:
        if _ext is not None:
            _ext.set_importers(*(int(ffi.cast("uintptr_t", f)) for f in (
                _loader.lib.TVMFFITensorFromDLPackVersioned, _loader.lib.TVMFFITensorFromDLPack)))
            import_arg, _import_ex = _ext.import_tensor, _ext.import_tensor_ex
            take_imported = ffi.cast("intptr_t(*)(void)", _ext.taker())
        return

    def deleter_of(address, versioned):
        t = ffi.cast("DLManagedTensorVersioned*" if versioned else "DLManagedTensor*", address)
        if t.deleter != ffi.NULL:
            t.deleter(t)

    _deleter_of = deleter_of
