/* callbacks.c -- Python callables and C functions as FFI functions. */

static void py_decref_deleter(void* obj) {
  if (g.finalizing || !Py_IsInitialized()) return; /* leak rather than touch a dying interpreter */
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)obj);
  PyGILState_Release(gil);
}

/* Raises the pending Python exception as an FFI error (kind from the registry). */
static void ffipy_raise_as_ffi_error(void) {
  /* The native frames between here and the FFI boundary (e.g. the C function that called the
   * callback), captured before any Python runs: a capture from Python would stop at the
   * interpreter's frames.  Both names are hidden by the backtrace's "ffipy_" rule. */
  const TVMFFIByteArray* bt = TVMFFIBacktrace(NULL, 0, NULL, 0);
  PyObject* e = fetch_exception();
  PyObject* native =
      PyUnicode_DecodeUTF8(bt ? bt->data : "", bt ? (Py_ssize_t)bt->size : 0, "replace");
  PyObject* err =
      e && native ? PyObject_CallFunctionObjArgs(g.exc_to_error, e, native, NULL) : NULL;
  Py_XDECREF(native);
  TVMFFIObjectHandle h = NULL;
  if (err != NULL && get_handle(err, &h) == 0 && h != NULL) {
    TVMFFIErrorSetRaised(h);
  } else if (PyErr_ExceptionMatches(PyExc_RecursionError)) { /* no room left to convert it */
    PyErr_Clear();
    TVMFFIErrorSetRaisedFromCStr("RecursionError",
                                 "maximum recursion depth exceeded in a Python callback of an "
                                 "FFI call (converting its exception)");
  } else {
    PyErr_Clear();
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "tvm_ffi: failed to convert a Python exception");
  }
  Py_XDECREF(err);
  Py_XDECREF(e);
}

#define CALLBACK_STACK 6 /* arguments passed from a C array; more go in a tuple */

/* Calls the Python callable fn with args converted to Python; tensors become framework
 * tensors through api when given (containers then carry api_obj, so their elements do too). */

static int call_python(PyObject* fn, PyObject* api_obj, const DLPackExchangeAPI* api,
                       const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (g.finalizing || !Py_IsInitialized()) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "tvm_ffi: Python interpreter is finalizing");
    return -1;
  }
  if (stack_enter() != 0) return -1;
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = 0;
  PyObject* r = NULL;
  PyObject* tuple = NULL;
  PyObject* a[CALLBACK_STACK] = {NULL};
  if (n < 0) n = 0; /* as ABI mode's range(n) reads it, and this path did before */
  if (n <= CALLBACK_STACK) { /* the common arities call without an argument tuple */
    for (int32_t i = 0; i < n; ++i)
      if ((a[i] = from_any((TVMFFIAny*)&args[i], 0, api_obj, api)) == NULL) goto pyerr;
    r = PyObject_Vectorcall(fn, a, (size_t)n, NULL);
  } else {
    if ((tuple = PyTuple_New(n)) == NULL) goto pyerr;
    for (int32_t i = 0; i < n; ++i) {
      PyObject* o = from_any((TVMFFIAny*)&args[i], 0, api_obj, api);
      if (o == NULL) goto pyerr;
      PyTuple_SetItem(tuple, i, o);
    }
    r = PyObject_Call(fn, tuple, NULL);
  }
  if (r == NULL) goto pyerr;
  if (r == Py_None) { /* nothing to convert or own */
    result->type_index = kTVMFFINone;
    result->zero_padding = 0;
    result->v_int64 = 0;
  } else {
    int prc = pack_to_owned(r, result);
    if (prc == CONV_PY_ERROR) goto pyerr;
    if (prc == CONV_FFI_ERROR) rc = -1;
  }
  goto done;
pyerr:
  ffipy_raise_as_ffi_error();
  rc = -1;
done:
  Py_XDECREF(r);
  Py_XDECREF(tuple);
  for (int32_t i = 0; i < n && i < CALLBACK_STACK; ++i) Py_XDECREF(a[i]);
  PyGILState_Release(gil);
  stack_leave();
  return rc;
}

static int ffipy_safe_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  return call_python((PyObject*)self, NULL, NULL, args, n, result);
}

int ffipy_callback_create(intptr_t box_id, TVMFFIObjectHandle* out) {
  PyObject* f = box_get((PyObject*)box_id);
  Py_INCREF(f);
  if (TVMFFIFunctionCreate(f, ffipy_safe_call, py_decref_deleter, out) != 0) {
    Py_DECREF(f);
    return FFIPY_FFI_ERROR;
  }
  return FFIPY_OK;
}

/* convert_func(f, tensor_cls=...): the callable and the exchange table of tensor_cls. */
typedef struct {
  PyObject* fn; /* owned */
  PyObject* api_obj; /* owned: the table's tag (its address as an int), as containers carry */
  const DLPackExchangeAPI* api;
} api_callback;

static int ffipy_safe_call_api(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  api_callback* cb = (api_callback*)self;
  return call_python(cb->fn, cb->api_obj, cb->api, args, n, result);
}

static void api_callback_deleter(void* self) {
  api_callback* cb = (api_callback*)self;
  py_decref_deleter(cb->fn); /* both leak (never touched) when the interpreter is gone */
  py_decref_deleter(cb->api_obj);
  free(cb);
}

int ffipy_callback_create_with_api(intptr_t box_id, void* api, TVMFFIObjectHandle* out) {
  PyObject* box = (PyObject*)box_id; /* [callable, tag] */
  api_callback* cb = (api_callback*)malloc(sizeof(api_callback));
  if (cb == NULL) {
    PyErr_NoMemory();
    return box_exception(box, FFIPY_PY_ERROR);
  }
  cb->fn = PyList_GetItem(box, 0);
  cb->api_obj = PyList_GetItem(box, 1);
  cb->api = (const DLPackExchangeAPI*)api;
  Py_INCREF(cb->fn);
  Py_INCREF(cb->api_obj);
  if (TVMFFIFunctionCreate(cb, ffipy_safe_call_api, api_callback_deleter, out) != 0) {
    Py_DECREF(cb->fn);
    Py_DECREF(cb->api_obj);
    free(cb);
    return FFIPY_FFI_ERROR;
  }
  return FFIPY_OK;
}

int ffipy_opaque_create(intptr_t box_id, TVMFFIObjectHandle* out) {
  PyObject* o = box_get((PyObject*)box_id);
  Py_INCREF(o);
  if (TVMFFIObjectCreateOpaque(o, kTVMFFIOpaquePyObject, py_decref_deleter, out) != 0) {
    Py_DECREF(o);
    return FFIPY_FFI_ERROR;
  }
  return FFIPY_OK;
}

/* ---- C functions as FFI functions ---------------------------------- */

typedef struct {
  TVMFFISafeCallType fn; /* extern C safe call, or NULL */
  void (*entry)(void** packed); /* MLIR packed entry, or NULL */
  PyObject* keep; /* keep-alive object or NULL */
} extern_ctx;

static int extern_safe_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  extern_ctx* x = (extern_ctx*)self;
  if (x->fn != NULL) return x->fn(NULL, args, n, result);
  void* handle = NULL;
  int rc = 0;
  const TVMFFIAny* a = args;
  void* packed[5] = {&handle, (void*)&a, &n, &result, &rc};
  x->entry(packed);
  return rc;
}

static void extern_deleter(void* self) {
  extern_ctx* x = (extern_ctx*)self;
  if (x->keep != NULL) py_decref_deleter(x->keep);
  free(x);
}

static int make_extern(TVMFFISafeCallType fn, void (*entry)(void**), intptr_t box_id,
                       TVMFFIObjectHandle* out) {
  PyObject* keep = box_get((PyObject*)box_id);
  extern_ctx* x = (extern_ctx*)malloc(sizeof(extern_ctx));
  if (x == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "out of memory");
    return FFIPY_FFI_ERROR;
  }
  x->fn = fn;
  x->entry = entry;
  x->keep = keep == Py_None ? NULL : keep;
  Py_XINCREF(x->keep);
  if (TVMFFIFunctionCreate(x, extern_safe_call, extern_deleter, out) != 0) {
    Py_XDECREF(x->keep);
    free(x);
    return FFIPY_FFI_ERROR;
  }
  return FFIPY_OK;
}

int ffipy_function_from_extern_c(void* fn, intptr_t box, TVMFFIObjectHandle* out) {
  return make_extern((TVMFFISafeCallType)fn, NULL, box, out);
}

int ffipy_function_from_mlir_packed(void* entry, intptr_t box, TVMFFIObjectHandle* out) {
  return make_extern(NULL, (void (*)(void**))entry, box, out);
}
