/* basetypes.c -- the C bases of the wrapper classes: CObject's handle, Function's call.
 *
 * The fast path reads a wrapper's object handle on every argument and calls a Function on
 * every call.  Both live in C types made with PyType_FromSpec (limited API), which the
 * package's Python classes derive from (_base.CObject, _function.Function):
 *   _CObjectBase    the handle as a C pointer, for C, and the same address as a Python int,
 *                   the read-only member `_h`, for Python (a member of object type: reads cost
 *                   what a __slots__ read costs).  set_h() is the one writer of both.
 *   _FunctionBase   adds release_gil and the call: a tp_call slot and, where the interpreter
 *                   dispatches it to a type of ours (the limited API from 3.12, every
 *                   version-specific build), vectorcall through a per-instance entry at
 *                   __vectorcalloffset__, which set_h() fills in.
 *   _TensorBase     adds `_view` (a DLTensor address as an int, for views without a handle),
 *   _ContainerBase  adds `_tvm_api` (the exchange API that tags a call's results): one field,
 *                   `extra`, read-only from Python, written by set_extra().
 * A Python class deriving from them keeps what it adds (__dict__, methods); a plain class
 * statement cannot reach a slot of its own type through the limited API, hence C bases. */

#ifndef Py_T_OBJECT_EX /* the structmember.h names before 3.12 */
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_READONLY READONLY
#endif

typedef PyObject* (*call_entry_fn)(PyObject*, PyObject* const*, size_t, PyObject*);

typedef struct {
  PyObject_HEAD TVMFFIObjectHandle handle; /* NULL: empty wrapper */
  PyObject* h;                             /* `_h`: handle as an int (owned), NULL until set */
} CObjectBase;

typedef struct {
  CObjectBase base;
  PyObject* release_gil;  /* owned, NULL until set (then: release) */
  call_entry_fn entry;    /* vectorcall entry, NULL until set_h (CPython then uses tp_call) */
} FunctionBase;

/* Whether o carries a handle field (a wrapper of the compiled module's classes). */
static inline int is_cobject(PyObject* o) { return PyObject_TypeCheck(o, cobject_base_tp); }

static inline TVMFFIObjectHandle cobject_handle(PyObject* o) { return ((CObjectBase*)o)->handle; }

typedef struct {
  CObjectBase base;
  PyObject* extra; /* owned, NULL until set: _TensorBase's `_view`, _ContainerBase's `_tvm_api` */
} CObjectExtra;

/* Whether o is a _TensorBase or _ContainerBase instance (has `extra`). */
static inline int has_extra(PyObject* o) {
  return PyObject_TypeCheck(o, tensor_base_tp) || PyObject_TypeCheck(o, container_base_tp);
}

/* Stores v (a new reference moved in) as o's extra field. */
static void extra_store(PyObject* o, PyObject* v) {
  PyObject* old = ((CObjectExtra*)o)->extra;
  ((CObjectExtra*)o)->extra = v;
  Py_XDECREF(old);
}

static PyObject* function_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                                     PyObject* kwnames);

/* Stores h (as hv, a new reference moved in, and as a pointer) in the wrapper o. */
static void cobject_store(PyObject* o, TVMFFIObjectHandle h, PyObject* hv) {
  CObjectBase* b = (CObjectBase*)o;
  PyObject* old = b->h;
  b->handle = h;
  b->h = hv;
  Py_XDECREF(old);
}

/* A new Function wrapper calls by vectorcall from its first call (a NULL entry: tp_call). */
static inline void function_enable_entry(PyObject* o) {
  ((FunctionBase*)o)->entry = function_vectorcall;
}

/* set_h(obj, h): the writer of `_h` (_base._set_h). */
static PyObject* set_h(PyObject* unused, PyObject* const* args, Py_ssize_t nargs) {
  (void)unused;
  if (nargs != 2 || !is_cobject(args[0]) || !PyLong_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "set_h(obj, h) takes a tvm_ffi object and an int");
    return NULL;
  }
  void* h = PyLong_AsVoidPtr(args[1]);
  if (h == NULL && PyErr_Occurred()) return NULL;
  Py_INCREF(args[1]);
  cobject_store(args[0], h, args[1]);
  if (PyObject_TypeCheck(args[0], function_base_tp)) function_enable_entry(args[0]);
  Py_RETURN_NONE;
}

static PyMethodDef set_h_def = {"set_h", (PyCFunction)(void (*)(void))set_h, METH_FASTCALL,
                                "set_h(obj, h): store the handle h (an int) in obj."};

/* set_extra(obj, v): the writer of Tensor._view and a container's _tvm_api. */
static PyObject* set_extra(PyObject* unused, PyObject* const* args, Py_ssize_t nargs) {
  (void)unused;
  if (nargs != 2 || !has_extra(args[0])) {
    PyErr_SetString(PyExc_TypeError, "set_extra(obj, v) takes a tvm_ffi Tensor or container");
    return NULL;
  }
  Py_INCREF(args[1]);
  extra_store(args[0], args[1]);
  Py_RETURN_NONE;
}

static PyMethodDef set_extra_def = {"set_extra", (PyCFunction)(void (*)(void))set_extra,
                                    METH_FASTCALL,
                                    "set_extra(obj, v): store obj's _view or _tvm_api."};

/* tp_dealloc: references cleared, memory freed as the (heap) type says.  The object's
 * reference to its handle is dropped before this, by CObject.__del__. */
static void cobject_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  Py_CLEAR(((CObjectBase*)self)->h);
#if defined(Py_LIMITED_API)
  freefunc free_fn = (freefunc)PyType_GetSlot(tp, Py_tp_free);
#else
  freefunc free_fn = tp->tp_free;
#endif
  free_fn(self);
  Py_DECREF(tp);
}

static void function_dealloc(PyObject* self) {
  Py_CLEAR(((FunctionBase*)self)->release_gil);
  cobject_dealloc(self);
}

static void extra_dealloc(PyObject* self) {
  Py_CLEAR(((CObjectExtra*)self)->extra);
  cobject_dealloc(self);
}

static PyMemberDef cobject_members[] = {
    {"_h", Py_T_OBJECT_EX, offsetof(CObjectBase, h), Py_READONLY,
     "the object handle as an int (0: empty)"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot cobject_slots[] = {
    {Py_tp_dealloc, (void*)cobject_dealloc},
    {Py_tp_members, (void*)cobject_members},
    {Py_tp_doc, (void*)"Base of tvm_ffi's object wrappers: the handle, for the compiled module."},
    {0, NULL},
};

static PyType_Spec cobject_spec = {"tvm_ffi._ffi_cffi._CObjectBase", sizeof(CObjectBase), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, cobject_slots};

static PyMemberDef tensor_members[] = {
    {"_view", Py_T_OBJECT_EX, offsetof(CObjectExtra, extra), Py_READONLY,
     "the DLTensor address of a view without a handle (0: none)"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot tensor_slots[] = {
    {Py_tp_dealloc, (void*)extra_dealloc},
    {Py_tp_members, (void*)tensor_members},
    {Py_tp_doc, (void*)"Base of tvm_ffi.Tensor: the view field."},
    {0, NULL},
};

static PyType_Spec tensor_spec = {"tvm_ffi._ffi_cffi._TensorBase", sizeof(CObjectExtra), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, tensor_slots};

static PyMemberDef container_members[] = {
    {"_tvm_api", Py_T_OBJECT_EX, offsetof(CObjectExtra, extra), Py_READONLY,
     "the exchange API a call's framework tensors converted through, or None"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot container_slots[] = {
    {Py_tp_dealloc, (void*)extra_dealloc},
    {Py_tp_members, (void*)container_members},
    {Py_tp_doc, (void*)"Base of tvm_ffi's containers: the exchange API tag."},
    {0, NULL},
};

static PyType_Spec container_spec = {"tvm_ffi._ffi_cffi._ContainerBase", sizeof(CObjectExtra), 0,
                                     Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, container_slots};

/* ---- the call ------------------------------------------------------------------------ */

static PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs);

static __attribute__((noinline)) PyObject* no_keywords(void) {
  PyErr_SetString(PyExc_TypeError, "Function.__call__() takes no keyword arguments");
  return NULL;
}

/* The one compiled call: the arguments as a C array; errors become exceptions through the
 * Python hook g.call_error (kind mapping, traceback). */
static __attribute__((noinline)) PyObject* function_call_failed(int rc) {
  if (rc == CONV_FFI_ERROR) {
    PyObject* pending = PyErr_Occurred() ? fetch_exception() : NULL;
    raise_hook_exception(g.call_error, pending ? pending : Py_None);
    Py_XDECREF(pending);
  }
  return NULL;
}

static inline PyObject* function_call(PyObject* self, PyObject* const* args, Py_ssize_t n) {
  PyObject* out = NULL;
  int rc = call_items(self, args, n, &out);
  return rc == CONV_OK ? out : function_call_failed(rc);
}

#if !defined(Py_LIMITED_API) && PY_VERSION_HEX < 0x030C0000
/* A class whose __call__ was reassigned, reached by vectorcall all the same (before 3.12 the
 * flag outlives that): its tp_call with a tuple and a dict, as CPython would have called it. */
static __attribute__((noinline)) PyObject* call_own_slot(PyObject* self, PyObject* const* args,
                                                         Py_ssize_t n, PyObject* kwnames) {
  PyObject* tuple = PyTuple_New(n);
  PyObject* kw = NULL;
  if (tuple == NULL) return NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SetItem(tuple, i, args[i]);
  }
  Py_ssize_t nk = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
  if (nk > 0 && (kw = PyDict_New()) != NULL) {
    for (Py_ssize_t i = 0; i < nk && kw != NULL; ++i)
      if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, i), args[n + i]) != 0) Py_CLEAR(kw);
  }
  ternaryfunc call = Py_TYPE(self)->tp_call;
  PyObject* r = NULL;
  if (call == NULL)
    PyErr_SetString(PyExc_TypeError, "tvm_ffi: Function is not callable");
  else if (nk == 0 || kw != NULL)
    r = call(self, tuple, kw);
  Py_DECREF(tuple);
  Py_XDECREF(kw);
  return r;
}
#endif

/* Vectorcall: CPython hands over its own argument array, no tuple (~270 instructions of a
 * 3-argument call less than tp_call). */
static PyObject* function_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                                     PyObject* kwnames) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX < 0x030C0000
  /* (from 3.12 CPython drops the flag itself when __call__ is reassigned) */
  if (Py_TYPE(self)->tp_call != function_tp_call) return call_own_slot(self, args, n, kwnames);
#endif
  if (kwnames != NULL && PyTuple_Size(kwnames) != 0) return no_keywords();
  return function_call(self, args, n);
}

static PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  function_enable_entry(self); /* (a wrapper set_h did not make: later calls by vectorcall) */
  if (kwargs != NULL && PyDict_Size(kwargs) != 0) return no_keywords();
  Py_ssize_t n = PyTuple_Size(args);
  if (n < 0) return NULL;
  PyObject* stack[8] = {NULL}; /* initialised: gcc warns about a const view of it otherwise */
  PyObject** items = n <= 8 ? stack : (PyObject**)malloc(sizeof(PyObject*) * (size_t)n);
  if (items == NULL) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; ++i) items[i] = PyTuple_GetItem(args, i); /* borrowed */
  PyObject* r = function_call(self, items, n);
  if (items != stack) free(items);
  return r;
}

static PyMemberDef function_members[] = {
    {"release_gil", Py_T_OBJECT_EX, offsetof(FunctionBase, release_gil), 0,
     "whether calls release the GIL around the foreign call"},
    {"__vectorcalloffset__", Py_T_PYSSIZET, offsetof(FunctionBase, entry), Py_READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot function_slots[] = {
    {Py_tp_dealloc, (void*)function_dealloc},
    {Py_tp_call, (void*)function_tp_call},
    {Py_tp_members, (void*)function_members},
    {Py_tp_doc, (void*)"Base of tvm_ffi.Function: the compiled call."},
    {0, NULL},
};

static PyType_Spec function_spec = {
    "tvm_ffi._ffi_cffi._FunctionBase", sizeof(FunctionBase), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_VECTORCALL, function_slots};

/* ---- entry points -------------------------------------------------------------------- */

/* PyType_FromSpecWithBases(spec, (base,)) as a new reference, or NULL. */
static PyTypeObject* derived_type(PyType_Spec* spec, PyTypeObject* base) {
  PyObject* bases = PyTuple_Pack(1, (PyObject*)base);
  PyObject* t = bases != NULL ? PyType_FromSpecWithBases(spec, bases) : NULL;
  Py_XDECREF(bases);
  return (PyTypeObject*)t;
}

int ffipy_base_types(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  if (cobject_base_tp == NULL) {
    PyTypeObject* c = (PyTypeObject*)PyType_FromSpec(&cobject_spec);
    PyTypeObject* f = c != NULL ? derived_type(&function_spec, c) : NULL;
    PyTypeObject* t = f != NULL ? derived_type(&tensor_spec, c) : NULL;
    PyTypeObject* k = t != NULL ? derived_type(&container_spec, c) : NULL;
    if (k == NULL) {
      Py_XDECREF(c);
      Py_XDECREF(f);
      Py_XDECREF(t);
      return box_exception(box, FFIPY_PY_ERROR);
    }
    cobject_base_tp = c;
    function_base_tp = f;
    tensor_base_tp = t;
    container_base_tp = k;
  }
  PyObject* w1 = PyCFunction_NewEx(&set_h_def, NULL, NULL);
  PyObject* w2 = w1 != NULL ? PyCFunction_NewEx(&set_extra_def, NULL, NULL) : NULL;
  PyObject* r = w2 != NULL ? PyTuple_Pack(6, cobject_base_tp, function_base_tp, tensor_base_tp,
                                          container_base_tp, w1, w2)
                           : NULL;
  Py_XDECREF(w1);
  Py_XDECREF(w2);
  if (r == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, r);
  return FFIPY_OK;
}

int ffipy_function_class_ready(intptr_t cls_id) {
  PyTypeObject* tp = (PyTypeObject*)cls_id;
  if (function_base_tp == NULL || !PyType_IsSubtype(tp, function_base_tp)) return -1;
  if (PyType_GetFlags(tp) & Py_TPFLAGS_HAVE_VECTORCALL) return 0; /* 3.12+: inherited */
#if !defined(Py_LIMITED_API)
  /* before 3.12 a class statement does not inherit the flag: a version-specific build sets it,
   * for the class whose call is ours (function_vectorcall checks it on each call) */
  if (tp->tp_call == function_tp_call &&
      tp->tp_vectorcall_offset == (Py_ssize_t)offsetof(FunctionBase, entry)) {
    tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    PyType_Modified(tp);
    return 0;
  }
#endif
  return 1;
}
