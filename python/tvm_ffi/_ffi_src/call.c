/* call.c -- the call: converts the arguments, calls, converts the result back. */

/* The call itself: self is the Function wrapper, items[0..n) the Python arguments.
 * Returns CONV_OK with *out set, CONV_PY_ERROR, or CONV_FFI_ERROR (and possibly a Python
 * exception pending as well: EnvErrorAlreadySet). */
static int call_items(PyObject* self, PyObject* const* items, Py_ssize_t n_items, PyObject** out) {
  TVMFFIObjectHandle fh;
  int release = 1;
  if (Py_TYPE(self) == g.function_cls || PyObject_TypeCheck(self, function_base_tp)) {
    PyObject* rg = ((FunctionBase*)self)->release_gil; /* borrowed; NULL when unset */
    fh = cobject_handle(self);
    release = rg == NULL || rg == Py_True;
  } else if (get_handle(self, &fh) != 0) {
    return CONV_PY_ERROR;
  } else {
    PyObject* rg = PyObject_GetAttr(self, g.str_release_gil);
    if (rg == NULL) {
      PyErr_Clear();
    } else {
      release = rg == Py_True;
      Py_DECREF(rg);
    }
  }
  if (fh == NULL) {
    PyErr_SetString(PyExc_ValueError, "tvm_ffi: calling a Function with a NULL handle");
    return CONV_PY_ERROR;
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

int ffipy_make_builtins(intptr_t box_id) {
  /* [CObject class] -> [from_dlpack, CObject.__del__, Tensor.__dlpack__ and
   * Tensor.__dlpack_device__ (None without the Tensor slot offsets)] */
  PyObject* box = (PyObject*)box_id;
  PyObject* cls = PyList_GetItem(box, 0);
  if (cobject_base_tp == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: base types not made");
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
