/* fields.c -- reflected field getters as builtins (properties of registered classes). */

typedef struct {
  TVMFFIFieldGetter getter;
  int64_t offset;
} field_ref;

static void field_ref_free(PyObject* cap) { free(PyCapsule_GetPointer(cap, "tvm_ffi.field")); }

/* fget(obj): the field at handle + offset through the C getter, converted as an owned result
 * (so object fields come back as their live wrapper).  One C call instead of four Python-level
 * steps. */
static PyObject* field_get(PyObject* self, PyObject* obj) {
  const field_ref* f = (const field_ref*)PyCapsule_GetPointer(self, "tvm_ffi.field");
  if (f == NULL) return NULL;
  if (!PyObject_TypeCheck(obj, (PyTypeObject*)g.cobject_cls)) {
    PyErr_Format(PyExc_TypeError, "a field getter needs a tvm_ffi object, got %R",
                 (PyObject*)Py_TYPE(obj));
    return NULL;
  }
  TVMFFIObjectHandle h;
  if (get_handle(obj, &h) != 0) return NULL;
  if (h == NULL) {
    PyErr_SetString(PyExc_ValueError, "cannot read a field: the object's handle is empty");
    return NULL;
  }
  TVMFFIAny v;
  v.type_index = kTVMFFINone;
  v.zero_padding = 0;
  v.v_int64 = 0;
  if (f->getter((char*)h + f->offset, &v) != 0) {
    PyObject* exc = g.field_error ? PyObject_CallFunctionObjArgs(g.field_error, NULL) : NULL;
    if (exc != NULL) {
      PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
      Py_DECREF(exc);
    } else if (!PyErr_Occurred()) {
      discard_ffi_error();
      PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: a field getter failed");
    }
    return NULL;
  }
  return from_any(&v, 1, NULL, NULL);
}

/* no docstring: a property without one takes its getter's, and a field's doc is its own */
static PyMethodDef field_get_def = {"field_getter", field_get, METH_O, NULL};

int ffipy_make_field_getter(intptr_t getter, int64_t offset, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* hook = PyList_GetItem(box, 1);
  if (hook == NULL || getter == 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tvm_ffi: bad field getter request");
    return box_exception(box, FFIPY_PY_ERROR);
  }
  if (hook != g.field_error) {
    Py_INCREF(hook);
    Py_XDECREF(g.field_error);
    g.field_error = hook;
  }
  field_ref* f = (field_ref*)malloc(sizeof(field_ref));
  if (f == NULL) {
    PyErr_NoMemory();
    return box_exception(box, FFIPY_PY_ERROR);
  }
  f->getter = (TVMFFIFieldGetter)getter;
  f->offset = offset;
  PyObject* cap = PyCapsule_New(f, "tvm_ffi.field", field_ref_free);
  if (cap == NULL) {
    free(f);
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyObject* fn = PyCFunction_NewEx(&field_get_def, cap, NULL);
  Py_DECREF(cap);
  if (fn == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, fn);
  return FFIPY_OK;
}
