/*
 * capi.c -- tvm_ffi._capi_ext: the few Python C-API calls that ABI mode needs and cffi cannot make
 * (PyCapsule access, the addresses of the signal and GIL functions), as a classic extension
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
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "tvm_ffi._capi_ext",
                                    "Python C-API access for ABI mode (see capi.c).", -1, methods};

PyMODINIT_FUNC PyInit__capi_ext(void) { return PyModule_Create(&module); }
