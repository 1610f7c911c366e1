/* fields.c -- reflected field getters and setters as builtins (properties of registered
 * classes). */

typedef struct {
  TVMFFIFieldGetter getter;
  int64_t offset;
  int32_t owner;       /* the type the field belongs to: the accessor takes its objects only */
  int32_t owner_depth; /* its depth in the type tree (its number of ancestors) */
  PyObject* refuse;    /* refuse(obj) raises why obj is not an object of the owner (owned) */
  /* setters: a TVMFFIFieldSetter, or the handle of a setter Function kept by `keep` */
  TVMFFIFieldSetter setter;
  TVMFFIObjectHandle setter_fn;
  PyObject* keep; /* the setter Function's wrapper (owned), or NULL */
  PyObject* name; /* the field's name (owned), for errors */
} field_ref;

static void field_ref_free(PyObject* cap) {
  field_ref* f = (field_ref*)PyCapsule_GetPointer(cap, "tvm_ffi.field");
  if (f != NULL) {
    Py_XDECREF(f->refuse);
    Py_XDECREF(f->keep);
    Py_XDECREF(f->name);
  }
  free(f);
}

/* The handle of obj when it is an object of the field's owner (or a subtype); else NULL with
 * the refusal raised (Python words it: the owner's type key, the object's). */
static TVMFFIObjectHandle owned_handle(const field_ref* f, PyObject* obj);

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
static TVMFFIObjectHandle owned_handle(const field_ref* f, PyObject* obj) {
  TVMFFIObjectHandle h = NULL;
  if (PyObject_TypeCheck(obj, (PyTypeObject*)g.cobject_cls) && get_handle(obj, &h) != 0)
    return NULL;
  if (h == NULL || !field_applies(f, ((TVMFFIObject*)h)->type_index)) {
    PyObject* r = PyObject_CallFunctionObjArgs(f->refuse, obj, NULL);
    Py_XDECREF(r);
    if (r != NULL) PyErr_SetString(PyExc_TypeError, "a field accessor got a foreign object");
    return NULL;
  }
  return h;
}

static PyObject* field_get(PyObject* self, PyObject* obj) {
  const field_ref* f = (const field_ref*)PyCapsule_GetPointer(self, "tvm_ffi.field");
  if (f == NULL) return NULL;
  TVMFFIObjectHandle h = owned_handle(f, obj);
  if (h == NULL) return NULL;
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

static int field_builtin(PyObject* box, field_ref* f, PyMethodDef* def);

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
  memset(f, 0, sizeof(*f));
  f->getter = (TVMFFIFieldGetter)getter;
  f->offset = offset;
  f->owner = owner;
  f->owner_depth = owner_depth;
  Py_INCREF(refuse);
  f->refuse = refuse;
  return field_builtin(box, f, &field_get_def);
}

/* The builtin `def` over f (freed with it), in box[0]. */
static int field_builtin(PyObject* box, field_ref* f, PyMethodDef* def) {
  PyObject* cap = PyCapsule_New(f, "tvm_ffi.field", field_ref_free);
  if (cap == NULL) {
    Py_XDECREF(f->refuse);
    Py_XDECREF(f->keep);
    Py_XDECREF(f->name);
    free(f);
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyObject* fn = PyCFunction_NewEx(def, cap, NULL);
  Py_DECREF(cap);
  if (fn == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, fn);
  return FFIPY_OK;
}

/* A TypeError the setter raised, prefixed with the field and the object's type key (a
 * py_class field's conversion says what it expected, not where). */
static void name_setter_type_error(const field_ref* f, TVMFFIObjectHandle h) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
  PyObject* e = fetch_exception();
  const TVMFFITypeInfo* ti = TVMFFIGetTypeInfo(((TVMFFIObject*)h)->type_index);
  if (ti == NULL) discard_ffi_error();
  PyObject* key =
      ti != NULL ? PyUnicode_DecodeUTF8(ti->type_key.data, (Py_ssize_t)ti->type_key.size, "replace")
                 : PyUnicode_FromString("?");
  PyObject* msg = e != NULL && key != NULL
                      ? PyUnicode_FromFormat("field '%U' of `%U`: %S", f->name, key, e)
                      : NULL;
  Py_XDECREF(key);
  if (msg != NULL) {
    PyErr_SetObject(PyExc_TypeError, msg);
    Py_DECREF(msg);
    PyObject* wrapped = fetch_exception();
    if (wrapped != NULL) {
      PyException_SetContext(wrapped, NULL); /* as `raise ... from None` */
      PyErr_SetObject(PyExc_TypeError, wrapped);
      Py_DECREF(wrapped);
    }
  }
  Py_XDECREF(e);
}

/* fset(obj, value): value packed as a call argument, then the C setter or the setter Function
 * at handle + offset; a failure raises as a call's would. */
static PyObject* field_set(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  const field_ref* f = (const field_ref*)PyCapsule_GetPointer(self, "tvm_ffi.field");
  if (f == NULL) return NULL;
  if (n != 2) {
    PyErr_Format(PyExc_TypeError, "field setter takes 2 arguments (%zd given)", n);
    return NULL;
  }
  TVMFFIObjectHandle h = owned_handle(f, args[0]);
  if (h == NULL) return NULL;
  CallCtx c;
  ctx_init(&c);
  TVMFFIAny a[2], r;
  a[0].type_index = kTVMFFIOpaquePtr;
  a[0].zero_padding = 0;
  a[0].v_ptr = (char*)h + f->offset;
  r.type_index = kTVMFFINone;
  r.zero_padding = 0;
  r.v_int64 = 0;
  int rc = pack(&c, args[1], &a[1], 0);
  if (rc == CONV_OK && f->setter_fn != NULL) {
    rc = TVMFFIFunctionCall(f->setter_fn, a, 2, &r) == 0 ? CONV_OK : CONV_FFI_ERROR;
    if (rc == CONV_OK && r.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(r.v_obj);
  } else if (rc == CONV_OK) {
    rc = f->setter(a[0].v_ptr, &a[1]) == 0 ? CONV_OK : CONV_FFI_ERROR;
  }
  ctx_release(&c);
  if (rc == CONV_OK) Py_RETURN_NONE;
  if (rc == CONV_FFI_ERROR) {
    PyObject* pending = PyErr_Occurred() ? fetch_exception() : NULL;
    raise_hook_exception(g.call_error, pending ? pending : Py_None);
    Py_XDECREF(pending);
  }
  if (f->setter_fn != NULL) name_setter_type_error(f, h);
  return NULL;
}

static PyMethodDef field_set_def = {"field_setter", (PyCFunction)(void (*)(void))field_set,
                                    METH_FASTCALL, NULL};

/* box = [None, refuse, name, setter Function or None]: box[0] = fset(obj, value). */
int ffipy_make_field_setter(intptr_t setter, int64_t offset, int32_t owner, int32_t owner_depth,
                            intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* refuse = PyList_GetItem(box, 1);
  PyObject* name = refuse != NULL ? PyList_GetItem(box, 2) : NULL;
  PyObject* fn = name != NULL ? PyList_GetItem(box, 3) : NULL;
  TVMFFIObjectHandle fh = NULL;
  if (fn == NULL || !PyUnicode_Check(name) || owner_depth < 0 ||
      (fn == Py_None ? setter == 0 : !is_cobject(fn) || (fh = cobject_handle(fn)) == NULL)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tvm_ffi: bad field setter request");
    return box_exception(box, FFIPY_PY_ERROR);
  }
  field_ref* f = (field_ref*)malloc(sizeof(field_ref));
  if (f == NULL) {
    PyErr_NoMemory();
    return box_exception(box, FFIPY_PY_ERROR);
  }
  memset(f, 0, sizeof(*f));
  f->offset = offset;
  f->owner = owner;
  f->owner_depth = owner_depth;
  f->setter = (TVMFFIFieldSetter)setter;
  f->setter_fn = fh;
  Py_INCREF(refuse);
  f->refuse = refuse;
  Py_INCREF(name);
  f->name = name;
  if (fh != NULL) {
    Py_INCREF(fn);
    f->keep = fn;
  }
  return field_builtin(box, f, &field_set_def);
}
