/*
 * capi.c -- tvm_ffi._capi_ext: the few Python C-API calls that ABI mode needs and cffi cannot make
 * (PyCapsule access, the DLPack import of a producer, the addresses of the signal and GIL
 * functions), as a classic extension
 * module.  Built only for interpreters without ctypes.pythonapi (PyPy, through cpyext) by
 * `_build_ffi.py --capi`; on CPython ABI mode reaches the same functions through ctypes
 * (_capi.py, which picks one).  Plain C API, no cffi: a capsule is a Python object, which cffi cannot
 * pass to C.  DLPack capsules made here free their tensor from a C destructor, so no Python
 * callback runs while a capsule dies.
 */
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include <dlpack/dlpack.h>

static void dtor_legacy(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor* t = (DLManagedTensor*)PyCapsule_GetPointer(cap, "dltensor");
    if (t != NULL && t->deleter != NULL) t->deleter(t);
  }
}

static void dtor_versioned(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned* t =
        (DLManagedTensorVersioned*)PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (t != NULL && t->deleter != NULL) t->deleter(t);
  }
}

/* export_tensor(address, versioned) -> a "dltensor"/"dltensor_versioned" capsule owning it */
static PyObject* export_tensor(PyObject* self, PyObject* args) {
  (void)self;
  unsigned long long addr;
  int versioned;
  if (!PyArg_ParseTuple(args, "Ki", &addr, &versioned)) return NULL;
  return PyCapsule_New((void*)(uintptr_t)addr, versioned ? "dltensor_versioned" : "dltensor",
                       versioned ? dtor_versioned : dtor_legacy);
}

/* name(obj) -> the capsule's name as bytes, None for a nameless capsule or a non-capsule */
static PyObject* name(PyObject* self, PyObject* obj) {
  (void)self;
  if (!PyCapsule_CheckExact(obj)) Py_RETURN_NONE;
  const char* n = PyCapsule_GetName(obj);
  if (n == NULL) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  return PyBytes_FromString(n);
}

/* pointer(capsule, name) -> the address it holds under that name (ValueError otherwise) */
static PyObject* pointer(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* cap;
  const char* n;
  if (!PyArg_ParseTuple(args, "Oy", &cap, &n)) return NULL;
  void* p = PyCapsule_GetPointer(cap, n);
  if (p == NULL) return NULL;
  return PyLong_FromVoidPtr(p);
}

/* mark_used(capsule) -> None: renamed "used_<name>" and without destructor (consumed) */
static PyObject* mark_used(PyObject* self, PyObject* cap) {
  (void)self;
  int versioned = PyCapsule_IsValid(cap, "dltensor_versioned");
  if (!versioned && !PyCapsule_IsValid(cap, "dltensor")) {
    PyErr_SetString(PyExc_ValueError, "not a dltensor capsule");
    return NULL;
  }
  if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor") != 0 ||
      PyCapsule_SetDestructor(cap, NULL) != 0)
    return NULL;
  Py_RETURN_NONE;
}

/* The runtime's DLPack importers (docs/abi.md), set by set_importers: this module is not linked
 * against the runtime. */
typedef int (*from_versioned_fn)(DLManagedTensorVersioned*, int32_t, int32_t, void**);
typedef int (*from_legacy_fn)(DLManagedTensor*, int32_t, int32_t, void**);
static from_versioned_fn from_versioned;
static from_legacy_fn from_legacy;
static PyObject* str_dlpack; /* "__dlpack__", interned */

/* set_importers(TVMFFITensorFromDLPackVersioned, TVMFFITensorFromDLPack) (addresses) -> None */
static PyObject* set_importers(PyObject* self, PyObject* args) {
  (void)self;
  unsigned long long versioned, legacy;
  if (!PyArg_ParseTuple(args, "KK", &versioned, &legacy)) return NULL;
  if (str_dlpack == NULL && (str_dlpack = PyUnicode_InternFromString("__dlpack__")) == NULL)
    return NULL;
  from_versioned = (from_versioned_fn)(uintptr_t)versioned;
  from_legacy = (from_legacy_fn)(uintptr_t)legacy;
  Py_RETURN_NONE;
}

/* obj.__dlpack__(): where obj's exact type defines it in C (its tp_methods: NumPy's ndarray)
 * and is immutable (no attribute of it can be replaced), its C function is called directly, per
 * its calling convention; cpyext's method call (lookup, argument tuple, transitions) cost ~400 ns
 * of the ~500 ns an array's export took on PyPy.  Subclasses (heap types) take the method call.
 * The type looked up last is kept with its method. */
static PyTypeObject* dl_type; /* (a reference) */
static PyMethodDef* dl_method; /* NULL: dl_type has none of its own, or may have it replaced */

#ifdef Py_TPFLAGS_IMMUTABLETYPE
#define FIXED_TYPE(tp) \
  (!((tp)->tp_flags & Py_TPFLAGS_HEAPTYPE) || ((tp)->tp_flags & Py_TPFLAGS_IMMUTABLETYPE))
#else
#define FIXED_TYPE(tp) (!((tp)->tp_flags & Py_TPFLAGS_HEAPTYPE))
#endif

static PyObject* call_dlpack(PyObject* obj) {
  PyTypeObject* tp = Py_TYPE(obj);
  if (tp != dl_type) {
    PyMethodDef* found = NULL;
    PyMethodDef* m = FIXED_TYPE(tp) ? tp->tp_methods : NULL;
    for (; m != NULL && m->ml_name != NULL; m++) {
      if (strcmp(m->ml_name, "__dlpack__") == 0) {
        if (!(m->ml_flags & (METH_CLASS | METH_STATIC))) found = m;
        break;
      }
    }
    Py_INCREF(tp);
    Py_XDECREF(dl_type);
    dl_type = tp;
    dl_method = found;
  }
  PyMethodDef* m = dl_method;
  if (m != NULL) {
    int conv = m->ml_flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O | METH_KEYWORDS);
    if (conv == METH_NOARGS) return m->ml_meth(obj, NULL);
    if (conv == (METH_FASTCALL | METH_KEYWORDS))
      return ((_PyCFunctionFastWithKeywords)(void (*)(void))m->ml_meth)(obj, NULL, 0, NULL);
    if (conv == METH_FASTCALL) return ((_PyCFunctionFast)(void (*)(void))m->ml_meth)(obj, NULL, 0);
  }
  return PyObject_CallMethodObjArgs(obj, str_dlpack, NULL);
}

/* The DLPack import of ABI mode's from_dlpack and argument packing in one crossing: on PyPy the
 * capsule, once it reached Python, was a PyPy-side object, and each C-API call on it (its name,
 * pointer, renaming) a cpyext transition of ~250 ns.  Takes a capsule or
 * a producer (whose __dlpack__() is called).  Returns None with the new Tensor's handle in
 * `imported` (no int object made and handed to PyPy per call: ~130 ns), False when the runtime refused
 * it (its error is set; the capsule keeps its tensor, freed with it), or what is left for the
 * caller to look at and report, in a 1-tuple: the capsule, unconsumed, when its name or DLPack
 * major version is not the one imported here, or whatever __dlpack__() returned that is not a
 * capsule. */
/* the handle import_tensor made last on this thread: per thread, as another thread may import
 * between this thread's return to Python and its read (take_imported, called through cffi) */
static _Thread_local void* imported;

static intptr_t take_imported(void) { return (intptr_t)imported; }

static PyObject* leftover(PyObject* cap) {
  PyObject* t = PyTuple_Pack(1, cap);
  Py_DECREF(cap);
  return t;
}

static PyObject* import_tensor(PyObject* obj, int align, int contig) {
  if (from_legacy == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi._capi_ext: set_importers was not called");
    return NULL;
  }
  PyObject* cap;
  if (PyCapsule_CheckExact(obj)) {
    Py_INCREF(obj);
    cap = obj;
  } else if ((cap = call_dlpack(obj)) == NULL) {
    return NULL;
  }
  if (!PyCapsule_CheckExact(cap)) return leftover(cap);
  const char* n = PyCapsule_GetName(cap);
  void* out = NULL;
  int rc, versioned = n != NULL && strcmp(n, "dltensor_versioned") == 0;
  if (versioned) {
    DLManagedTensorVersioned* t = (DLManagedTensorVersioned*)PyCapsule_GetPointer(cap, n);
    if (t == NULL || t->version.major != DLPACK_MAJOR_VERSION) {
      PyErr_Clear();
      return leftover(cap);
    }
    rc = from_versioned(t, align, contig, &out);
  } else if (n != NULL && strcmp(n, "dltensor") == 0) {
    DLManagedTensor* t = (DLManagedTensor*)PyCapsule_GetPointer(cap, n);
    if (t == NULL) {
      PyErr_Clear();
      return leftover(cap);
    }
    rc = from_legacy(t, align, contig, &out);
  } else {
    PyErr_Clear(); /* (a nameless capsule) */
    return leftover(cap);
  }
  if (rc != 0) {
    Py_DECREF(cap);
    Py_RETURN_FALSE;
  }
  /* consumed: the Tensor owns the DLPack tensor now */
  if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor") != 0 ||
      PyCapsule_SetDestructor(cap, NULL) != 0) {
    Py_DECREF(cap);
    return NULL; /* (cannot fail for a valid capsule) */
  }
  Py_DECREF(cap);
  imported = out;
  Py_RETURN_NONE;
}

/* import_tensor(obj) -> see above, with no alignment or contiguity required (arguments) */
static PyObject* import_tensor_o(PyObject* self, PyObject* obj) {
  (void)self;
  return import_tensor(obj, 0, 0);
}

/* import_tensor_ex(obj, align, contig) -> see above (from_dlpack's requirements) */
static PyObject* import_tensor_ex(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* obj;
  int align, contig;
  if (!PyArg_ParseTuple(args, "Oii", &obj, &align, &contig)) return NULL;
  return import_tensor(obj, align, contig);
}

/* taker() -> the address of take_imported (intptr_t (*)(void)), for the caller to call */
static PyObject* taker(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyLong_FromVoidPtr((void*)(uintptr_t)&take_imported);
}

/* api_addresses() -> {name: address} of the functions the runtime's C++ side calls back */
static PyObject* api_addresses(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("{sKsKsK}", "PyErr_CheckSignals",
                       (unsigned long long)(uintptr_t)&PyErr_CheckSignals, "PyGILState_Ensure",
                       (unsigned long long)(uintptr_t)&PyGILState_Ensure, "PyGILState_Release",
                       (unsigned long long)(uintptr_t)&PyGILState_Release);
}

static PyMethodDef methods[] = {
    {"export_tensor", export_tensor, METH_VARARGS, "Capsule owning a DLPack tensor."},
    {"name", name, METH_O, "A capsule's name, or None."},
    {"pointer", pointer, METH_VARARGS, "The address a capsule holds under a name."},
    {"mark_used", mark_used, METH_O, "Mark a dltensor capsule consumed."},
    {"api_addresses", api_addresses, METH_NOARGS, "Addresses of C-API functions."},
    {"set_importers", set_importers, METH_VARARGS, "The runtime's DLPack importers."},
    {"import_tensor", import_tensor_o, METH_O, "A producer or capsule as a Tensor handle."},
    {"import_tensor_ex", import_tensor_ex, METH_VARARGS, "import_tensor with requirements."},
    {"taker", taker, METH_NOARGS, "The function that returns import_tensor's handle."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "tvm_ffi._capi_ext",
                                    "Python C-API access for ABI mode (see capi.c).", -1, methods};

PyMODINIT_FUNC PyInit__capi_ext(void) { return PyModule_Create(&module); }
