/* errors.c -- boxes, and the Python exception an entry point hands back to Python. */

/* Moves the pending Python exception out as a normalized instance. */
static PyObject* fetch_exception(void) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  if (t == NULL) return NULL;
  PyErr_NormalizeException(&t, &v, &tb);
  if (tb != NULL && v != NULL) PyException_SetTraceback(v, tb);
  Py_XDECREF(t);
  Py_XDECREF(tb);
  if (v == NULL) {
    Py_INCREF(Py_None);
    v = Py_None;
  }
  return v;
}

/* Drops an FFI error waiting in the slot (used when we replace it by a Python error). */
static void discard_ffi_error(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) TVMFFIObjectDecRef(err);
}

/* Raises the exception hook(arg) returns (arg NULL: no argument). */
static void raise_hook_exception(PyObject* hook, PyObject* arg) {
  PyObject* exc = PyObject_CallFunctionObjArgs(hook, arg, NULL);
  if (exc != NULL) {
    PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  }
}

/* A box is a one-element list the Python side made (`box = [x]`, passed as id(box)): it
 * carries a value in and a result out of an entry point without a reference to manage. */
static PyObject* box_get(PyObject* box) { return PyList_GetItem(box, 0); }

static int box_set(PyObject* box, PyObject* value) { /* steals value */
  return PyList_SetItem(box, 0, value);
}

/* Python exceptions raised inside an entry point wait here (per thread) until
 * ffipy_take_exception; kept out of the box so that no frame holding the box
 * ends up in a reference cycle with the exception's traceback. */
static _Thread_local PyObject* t_pending_exc;

/* Moves the pending Python exception to the thread's slot; returns code. */
static int box_exception(PyObject* box, int code) {
  (void)box;
  PyObject* e = fetch_exception();
  if (e == NULL)
    e = PyObject_CallFunction(PyExc_RuntimeError, "s", "tvm_ffi: error without exception");
  if (e == NULL) e = fetch_exception();
  Py_XDECREF(t_pending_exc);
  t_pending_exc = e;
  return code;
}

/* The ffipy_status of an internal outcome (CONV_*). */
static int entry_status(PyObject* box, int conv) {
  if (conv == CONV_OK) return FFIPY_OK;
  if (conv == CONV_FFI_ERROR) return FFIPY_FFI_ERROR;
  return box_exception(box, FFIPY_PY_ERROR);
}

int ffipy_take_exception(intptr_t box_id) {
  PyObject* e = t_pending_exc;
  t_pending_exc = NULL;
  if (e == NULL) return 1;
  box_set((PyObject*)box_id, e);
  return FFIPY_OK;
}
