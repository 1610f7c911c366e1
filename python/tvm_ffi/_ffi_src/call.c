/* call.c -- the call: converts the arguments, calls, converts the result back. */

/* The call itself: self is the Function wrapper, items[0..n) the Python arguments.
 * Returns CONV_OK with *out set, CONV_PY_ERROR, or CONV_FFI_ERROR (and possibly a Python
 * exception pending as well: EnvErrorAlreadySet). */
static int call_items(PyObject* self, PyObject* const* items, Py_ssize_t n_items, PyObject** out) {
  TVMFFIObjectHandle fh;
  uintptr_t hv;
  PyObject* hslot;
  if (Py_TYPE(self) == g.function_cls && (hslot = *(PyObject**)((char*)self + g.off_h)) != NULL &&
      g.long_layout != 0 && Py_TYPE(hslot) == &PyLong_Type &&
      long_fast(hslot, g.long_layout, &hv)) {
    fh = (TVMFFIObjectHandle)hv; /* the common case, inlined */
  } else if (get_handle(self, &fh) != 0) {
    return CONV_PY_ERROR;
  }
  if (fh == NULL) {
    PyErr_SetString(PyExc_ValueError, "tvm_ffi: calling a Function with a NULL handle");
    return CONV_PY_ERROR;
  }
  int release = 1;
  if (g.function_cls != NULL &&
      (Py_TYPE(self) == g.function_cls || PyObject_TypeCheck(self, g.function_cls))) {
    PyObject* rg = *(PyObject**)((char*)self + g.off_release_gil); /* borrowed; NULL when unset */
    release = rg == NULL || rg == Py_True;
  } else {
    PyObject* rg = PyObject_GetAttr(self, g.str_release_gil);
    if (rg == NULL) {
      PyErr_Clear();
    } else {
      release = rg == Py_True;
      Py_DECREF(rg);
    }
  }
  int32_t n = (int32_t)n_items;
  TVMFFIAny stack[8];
  TVMFFIAny* args = n <= 8 ? stack : (TVMFFIAny*)malloc(sizeof(TVMFFIAny) * (size_t)n);
  if (args == NULL) {
    PyErr_NoMemory();
    return CONV_PY_ERROR;
  }
  CallCtx c;
  ctx_init(&c);
  int rc = CONV_OK;
  for (int32_t i = 0; i < n && rc == CONV_OK; ++i) rc = pack_arg(&c, items[i], &args[i]);
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  if (rc == CONV_OK) {
    TVMFFIStreamHandle prev_stream = NULL;
    DLPackManagedTensorAllocator prev_alloc = NULL;
    DLPackManagedTensorAllocator alloc = c.api ? c.api->managed_tensor_allocator : NULL;
    int stream_set = 0;
    if (c.has_device) {
      if (TVMFFIEnvSetStream(c.dev_type, c.dev_id, c.stream, &prev_stream) != 0)
        rc = CONV_FFI_ERROR;
      else
        stream_set = 1;
    }
    if (rc == CONV_OK && alloc != NULL)
      TVMFFIEnvSetDLPackManagedTensorAllocator(alloc, 0, &prev_alloc);
    if (rc == CONV_OK) {
      if (release) {
        PyThreadState* ts = PyEval_SaveThread();
        rc = TVMFFIFunctionCall(fh, args, n, &result) == 0 ? CONV_OK : CONV_FFI_ERROR;
        PyEval_RestoreThread(ts);
      } else {
        rc = TVMFFIFunctionCall(fh, args, n, &result) == 0 ? CONV_OK : CONV_FFI_ERROR;
      }
    }
    if (alloc != NULL && prev_alloc != alloc) {
      if (TVMFFIEnvSetDLPackManagedTensorAllocator(prev_alloc, 0, NULL) != 0 && rc == CONV_OK) {
        discard_ffi_error();
        PyErr_SetString(PyExc_RuntimeError, "Failed to recover DLPack managed tensor allocator");
        rc = CONV_PY_ERROR;
      }
    }
    if (stream_set && prev_stream != c.stream) {
      if (TVMFFIEnvSetStream(c.dev_type, c.dev_id, prev_stream, NULL) != 0 && rc == CONV_OK) {
        discard_ffi_error();
        PyErr_SetString(PyExc_RuntimeError, "Failed to recover stream");
        rc = CONV_PY_ERROR;
      }
    }
  }
  if (args != stack) free(args);
  if (rc == CONV_OK && result.type_index == kTVMFFINone) {
    Py_INCREF(Py_None);
    *out = Py_None;
  } else if (rc == CONV_OK) {
    *out = from_any(&result, 1, c.api_obj, c.api);
    if (*out == NULL) rc = CONV_PY_ERROR;
  }
  if (c.n_owned != 0 || c.temps != NULL) {
    ctx_release(&c);
  } else { /* only views (or nothing): the rest of ctx_release has no work */
    ctx_release_views(&c);
  }
  return rc;
}

int ffipy_call(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  if (box_shared(box)) return FFIPY_SHARED_BOX;
  int is_tuple = PyTuple_CheckExact(box);
  Py_ssize_t size = is_tuple ? PyTuple_Size(box) : PyList_Size(box);
  if (size < 1) {
    PyErr_SetString(PyExc_TypeError, "tvm_ffi: call box without a function");
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyObject* stack[9] = {NULL};
  PyObject** items = size <= 9 ? stack : (PyObject**)malloc(sizeof(PyObject*) * (size_t)size);
  if (items == NULL) {
    PyErr_NoMemory();
    return box_exception(box, FFIPY_PY_ERROR);
  }
  for (Py_ssize_t i = 0; i < size; ++i)
    items[i] = is_tuple ? PyTuple_GetItem(box, i) : PyList_GetItem(box, i); /* borrowed */
  PyObject* out = NULL;
  int rc = call_items(items[0], items + 1, size - 1, &out);
  if (items != stack) free(items);
  if (rc == CONV_FFI_ERROR)
    return PyErr_Occurred() ? box_exception(box, FFIPY_BOTH_ERRORS) : FFIPY_FFI_ERROR;
  if (rc == CONV_PY_ERROR) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, out);
  return FFIPY_OK;
}

/* Function.__call__ as a method descriptor (METH_FASTCALL): the arguments arrive as a C
 * array with no Python frame, no id() and no cffi conversion in between.  Errors are
 * turned into exceptions by the Python hook g.call_error (kind mapping, traceback). */
static __attribute__((noinline)) PyObject* function_call_failed(int rc) {
  if (rc == CONV_FFI_ERROR) {
    PyObject* pending = PyErr_Occurred() ? fetch_exception() : NULL;
    raise_hook_exception(g.call_error, pending ? pending : Py_None);
    Py_XDECREF(pending);
  }
  return NULL;
}

static inline PyObject* function_call_fastcall(PyObject* self, PyObject* const* args,
                                               Py_ssize_t nargs) {
  PyObject* out = NULL;
  int rc = call_items(self, args, nargs, &out);
  return rc == CONV_OK ? out : function_call_failed(rc);
}

static PyMethodDef call_method_def = {
    "__call__", (PyCFunction)(void (*)(void))function_call_fastcall, METH_FASTCALL,
    "Call the FFI function with positional arguments."};

int ffipy_make_builtins(intptr_t box_id) {
  /* [CObject class] -> [from_dlpack, CObject.__del__, Tensor.__dlpack__ and
   * Tensor.__dlpack_device__ (None without the Tensor slot offsets)] */
  PyObject* box = (PyObject*)box_id;
  PyObject* cls = PyList_GetItem(box, 0);
  if (g.off_h <= 0) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: slot offsets unknown");
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyObject* f = PyCFunction_NewEx(&from_dlpack_def, NULL, NULL);
  PyObject* d = f ? PyDescr_NewMethod((PyTypeObject*)cls, &del_method_def) : NULL;
  if (d == NULL) {
    Py_XDECREF(f);
    return box_exception(box, FFIPY_PY_ERROR);
  }
  PyList_SetItem(box, 0, f);
  int rc = PyList_Append(box, d);
  Py_DECREF(d);
  PyMethodDef* tensor_methods[] = {&tensor_dlpack_def, &tensor_dlpack_device_def};
  for (int i = 0; i < 2 && rc == 0; ++i) {
    PyObject* m = g.tensor_cls != NULL ? PyDescr_NewMethod(g.tensor_cls, tensor_methods[i]) : NULL;
    if (g.tensor_cls != NULL && m == NULL) rc = -1;
    if (rc == 0) rc = PyList_Append(box, m ? m : Py_None);
    Py_XDECREF(m);
  }
  return rc == 0 ? FFIPY_OK : box_exception(box, FFIPY_PY_ERROR);
}

static PyObject* call_descr; /* the descriptor made below (ffipy_install_call_slot checks it) */

int ffipy_make_call_descriptor(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* cls = PyList_GetItem(box, 0);
  PyObject* d = PyDescr_NewMethod((PyTypeObject*)cls, &call_method_def);
  if (d == NULL) return box_exception(box, FFIPY_PY_ERROR);
  Py_XDECREF(call_descr);
  Py_INCREF(d);
  call_descr = d;
  box_set(box, d);
  return FFIPY_OK;
}

/* Vectorcall for Function instances (CPython).  A call through tp_call costs the interpreter an
 * argument tuple, built and freed around every call (~270 instructions of a 3-argument call);
 * vectorcall hands over the interpreter's own argument array instead.  CPython finds the entry
 * in the instance, at the type's tp_vectorcall_offset: Function is a Python class, so
 * ffipy_reserve_call_pointer grows its instances by one pointer right after the class
 * statement, before any instance exists, and function_tp_call fills it in on an instance's
 * first call (a NULL entry sends CPython to tp_call, so instances without it stay correct). */
typedef PyObject* (*call_ptr_fn)(PyObject*, PyObject* const*, size_t,
                                 PyObject*); /* vectorcallfunc */
static PyTypeObject* call_ptr_cls; /* the class whose instances have room (owned), or NULL */
static Py_ssize_t call_ptr_offset;  /* byte offset of the entry in its instances */

#define PTR_ARGS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1)) /* PY_VECTORCALL_ARGUMENTS_OFFSET */
#define TPFLAGS_HAVE_VECTORCALL (1UL << 11) /* Py_TPFLAGS_HAVE_VECTORCALL */

static PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs);

/* Keywords, or Function.__call__ was reassigned (the flag outlives that before 3.12): the type's
 * current tp_call with a tuple and a dict, as CPython would have called it. */
static __attribute__((noinline)) PyObject* function_vectorcall_slow(PyObject* self,
                                                                    PyObject* const* args,
                                                                    Py_ssize_t n,
                                                                    PyObject* kwnames) {
  PyTypeObject* tp = Py_TYPE(self);
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
    if (kw == NULL) {
      Py_DECREF(tuple);
      return NULL;
    }
  }
  ternaryfunc call = (ternaryfunc)PyType_GetSlot(tp, Py_tp_call);
  PyObject* r = call != NULL ? call(self, tuple, kw) : NULL;
  if (call == NULL) PyErr_SetString(PyExc_TypeError, "tvm_ffi: Function is not callable");
  Py_DECREF(tuple);
  Py_XDECREF(kw);
  return r;
}

static PyObject* function_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                                     PyObject* kwnames) {
  const Py_ssize_t n = (Py_ssize_t)(nargsf & ~PTR_ARGS_OFFSET);
  if (kwnames == NULL && ((void**)Py_TYPE(self))[16] == (void*)function_tp_call)
    return function_call_fastcall(self, args, n);
  return function_vectorcall_slow(self, args, n, kwnames);
}

/* Function's tp_call.  With the descriptor as Function.__call__, CPython's generic
 * slot_tp_call looks the method up in the type, re-packs the argument tuple with self in
 * front and dispatches to the descriptor: ~200 instructions, an eighth of a nop() call.
 * This slot goes straight to the call; the tuple is the one the interpreter built anyway. */
static PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (Py_TYPE(self) == call_ptr_cls) /* later calls: vectorcall */
    *(call_ptr_fn*)((char*)self + call_ptr_offset) = function_vectorcall;
  if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "Function.__call__() takes no keyword arguments");
    return NULL;
  }
  Py_ssize_t n = PyTuple_Size(args);
  if (n < 0) return NULL;
  PyObject* stack[8] = {NULL}; /* initialised: gcc warns about a const view of it otherwise */
  PyObject** items = n <= 8 ? stack : (PyObject**)malloc(sizeof(PyObject*) * (size_t)n);
  if (items == NULL) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; ++i) items[i] = PyTuple_GetItem(args, i); /* borrowed */
  PyObject* r = function_call_fastcall(self, items, n);
  if (items != stack) free(items);
  return r;
}

#if defined(PYPY_VERSION)
int ffipy_install_call_slot(intptr_t cls_id) {
  (void)cls_id;
  return 1;
}

int ffipy_reserve_call_pointer(intptr_t cls_id) {
  (void)cls_id;
  return 1;
}
#else
/* The limited API has no setter for a slot of an existing type, so the words of the type object
 * are written in place, after checking that it has CPython's PyTypeObject layout: tp_basicsize
 * (word 4), tp_itemsize (5), tp_vectorcall_offset (7), tp_repr (11), tp_hash (15), tp_call (16),
 * tp_flags (21). */
int ffipy_install_call_slot(intptr_t cls_id) {
  /* tp_repr, tp_hash and tp_call where PyType_GetSlot says, and tp_call still dispatching to our
   * descriptor.  Reassigning Function.__call__ later restores CPython's own slot. */
  PyTypeObject* tp = (PyTypeObject*)cls_id;
  void** words = (void**)tp;
  void* call = PyType_GetSlot(tp, Py_tp_call);
  void* repr = PyType_GetSlot(tp, Py_tp_repr);
  void* hash = PyType_GetSlot(tp, Py_tp_hash);
  PyObject* cur = PyObject_GetAttrString((PyObject*)tp, "__call__");
  int ok = call != NULL && words[16] == call && words[11] == repr && words[15] == hash &&
           cur != NULL && cur == call_descr;
  Py_XDECREF(cur);
  PyErr_Clear();
  if (!ok) return 1;
  words[16] = (void*)function_tp_call;
  if (tp == call_ptr_cls && words[7] == NULL) {
    words[7] = (void*)call_ptr_offset;
    ((unsigned long*)words)[21] |= TPFLAGS_HAVE_VECTORCALL;
  }
  PyType_Modified(tp);
  return 0;
}

int ffipy_reserve_call_pointer(intptr_t cls_id) {
  /* tp_basicsize matching __basicsize__, no items, no vectorcall offset yet, and tp_flags what
   * PyType_GetFlags says */
  PyTypeObject* tp = (PyTypeObject*)cls_id;
  Py_ssize_t* sizes = (Py_ssize_t*)tp;
  PyObject* bs = PyObject_GetAttrString((PyObject*)tp, "__basicsize__");
  Py_ssize_t basicsize = bs != NULL ? PyLong_AsSsize_t(bs) : -1;
  Py_XDECREF(bs);
  PyErr_Clear();
  if (call_ptr_cls != NULL || basicsize <= 0 || sizes[4] != basicsize || sizes[5] != 0 ||
      sizes[7] != 0 || ((unsigned long*)tp)[21] != PyType_GetFlags(tp))
    return 1;
  sizes[4] = basicsize + (Py_ssize_t)sizeof(call_ptr_fn);
  call_ptr_offset = basicsize;
  Py_INCREF(tp);
  call_ptr_cls = tp;
  PyType_Modified(tp);
  return 0;
}
#endif
