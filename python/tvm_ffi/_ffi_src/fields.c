/* fields.c -- reflected field getters as builtins (properties of registered classes). */

typedef struct {
  TVMFFIFieldGetter getter;
  int64_t offset;
  int32_t owner;       /* the type the field belongs to: the getter reads its objects only */
  int32_t owner_depth; /* its depth in the type tree (its number of ancestors) */
  PyObject* refuse;    /* refuse(obj) raises why obj is not an object of the owner (owned) */
} field_ref;

static void field_ref_free(PyObject* cap) {
  field_ref* f = (field_ref*)PyCapsule_GetPointer(cap, "tvm_ffi.field");
  if (f != NULL) Py_XDECREF(f->refuse);
  free(f);
}

/* Whether an object of type index t is one of the field owner's (the type or a subtype): an
 * offset into another type's object would read, or let a setter write, someone else's memory. */
static int field_applies(const field_ref* f, int32_t t) {
  if (t == f->owner) return 1;
  const TVMFFITypeInfo* ti = TVMFFIGetTypeInfo(t);
  if (ti == NULL) {
    discard_ffi_error();
    return 0;
  }
  return ti->type_depth > f->owner_depth && ti->type_ancestors[f->owner_depth] != NULL &&
         ti->type_ancestors[f->owner_depth]->type_index == f->owner;
}

/* fget(obj): the field at handle + offset through the C getter, converted as an owned result
 * (so object fields come back as their live wrapper).  One C call instead of four Python-level
 * steps. */
static PyObject* field_get(PyObject* self, PyObject* obj) {
  const field_ref* f = (const field_ref*)PyCapsule_GetPointer(self, "tvm_ffi.field");
  if (f == NULL) return NULL;
  TVMFFIObjectHandle h = NULL;
  if (PyObject_TypeCheck(obj, (PyTypeObject*)g.cobject_cls) && get_handle(obj, &h) != 0)
    return NULL;
  if (h == NULL || !field_applies(f, ((TVMFFIObject*)h)->type_index)) {
    /* the refusal, with its message, is Python's (the owner's type key, the object's) */
    PyObject* r = PyObject_CallFunctionObjArgs(f->refuse, obj, NULL);
    Py_XDECREF(r);
    if (r != NULL) PyErr_SetString(PyExc_TypeError, "a field getter got a foreign object");
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

int ffipy_make_field_getter(intptr_t getter, int64_t offset, int32_t owner, int32_t owner_depth,
                            intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* hook = PyList_GetItem(box, 1);
  PyObject* refuse = hook != NULL ? PyList_GetItem(box, 2) : NULL;
  if (refuse == NULL || getter == 0 || owner_depth < 0) {
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
  f->owner = owner;
  f->owner_depth = owner_depth;
  Py_INCREF(refuse);
  f->refuse = refuse;
  PyObject* cap = PyCapsule_New(f, "tvm_ffi.field", field_ref_free);
  if (cap == NULL) {
    Py_DECREF(refuse);
    free(f);
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyObject* fn = PyCFunction_NewEx(&field_get_def, cap, NULL);
  Py_DECREF(cap);
  if (fn == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, fn);
  return FFIPY_OK;
}
