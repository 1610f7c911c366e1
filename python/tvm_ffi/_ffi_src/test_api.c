/* test_api.c -- the static DLPack exchange table of _tensor.DLTensorTestWrapper. */

static int test_from_py(void* py_object, DLManagedTensorVersioned** out) {
  PyObject* tensor = PyObject_GetAttr((PyObject*)py_object, g.str_tensor);
  TVMFFIObjectHandle h = NULL;
  if (tensor == NULL) return -1;
  int rc = get_handle(tensor, &h);
  Py_DECREF(tensor);
  if (rc != 0) return -1;
  if (TVMFFITensorToDLPackVersioned(h, out) != 0) {
    discard_ffi_error();
    PyErr_SetString(PyExc_BufferError, "DLTensorTestWrapper: export failed");
    return -1;
  }
  return 0;
}

/* The non-owning view (what exchange arguments take: no managed tensor). */
static int test_view_from_py(void* py_object, DLTensor* out) {
  PyObject* tensor = PyObject_GetAttr((PyObject*)py_object, g.str_tensor);
  TVMFFIObjectHandle h = NULL;
  if (tensor == NULL) return -1;
  int rc = get_handle(tensor, &h);
  Py_DECREF(tensor); /* (the wrapper keeps it, and the caller the wrapper) */
  if (rc != 0) return -1;
  if (h == NULL || ((TVMFFIObject*)h)->type_index != kTVMFFITensor) {
    PyErr_SetString(PyExc_BufferError, "DLTensorTestWrapper: no tensor to export");
    return -1;
  }
  *out = *TVMFFITensorGetDLTensorPtr(h);
  return 0;
}

static int test_to_py(DLManagedTensorVersioned* t, void** out) {
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPackVersioned(t, 0, 0, &h) != 0) {
    discard_ffi_error();
    PyErr_SetString(PyExc_BufferError, "DLTensorTestWrapper: import failed");
    return -1;
  }
  PyObject* tensor = tensor_result(h);
  if (tensor == NULL) return -1;
  PyObject* w = PyObject_CallFunctionObjArgs(g.test_wrapper, tensor, NULL);
  Py_DECREF(tensor);
  if (w == NULL) return -1;
  *out = w;
  return 0;
}

static int test_stream(DLDeviceType device_type, int32_t device_id, void** out) {
  *out = TVMFFIEnvGetStream(device_type, device_id);
  return 0;
}

static DLPackExchangeAPI test_exchange_api = {{{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL},
                                              NULL,
                                              test_from_py,
                                              test_to_py,
                                              test_view_from_py,
                                              test_stream};

void* ffipy_test_exchange_api(void) { return &test_exchange_api; }
