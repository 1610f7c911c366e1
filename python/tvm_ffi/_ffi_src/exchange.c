/* exchange.c -- framework tensors as arguments through the DLPack exchange API. */


/* A managed tensor made from the producer's non-owning DLTensor view: shape and strides are
 * copied (the callee may keep the tensor), the Python object is the manager.  Cheaper than
 * the producer's own managed export.  The Python object outlives the call anyway, so its
 * strong reference (dropped with the GIL) is taken only when the tensor outlives the call
 * (owns_ref); a tensor that dies with the call never touches Python in its deleter. */
typedef struct view_block {
  DLManagedTensorVersioned mt;
  int owns_ref;
  int64_t dims[];
} view_block;

static void view_keep_alive(view_block* b) {
  Py_INCREF((PyObject*)b->mt.manager_ctx);
  b->owns_ref = 1;
}

static void view_block_deleter(DLManagedTensorVersioned* self) {
  PyObject* o = (PyObject*)self->manager_ctx;
  if (((view_block*)self)->owns_ref && !g.finalizing && Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(o);
    PyGILState_Release(gil);
  }
  free(self);
}

static view_block* managed_from_view(const DLPackExchangeAPI* api, PyObject* v) {
  DLTensor dl;
  if (api->dltensor_from_py_object_no_sync((void*)v, &dl) != 0) {
    PyErr_Clear(); /* the owning export below reports real problems */
    return NULL;
  }
  int32_t nd = dl.ndim > 0 ? dl.ndim : 0;
  view_block* b = (view_block*)malloc(sizeof(view_block) + sizeof(int64_t) * 2 * (size_t)nd);
  if (b == NULL) return NULL;
  b->mt.version.major = DLPACK_MAJOR_VERSION;
  b->mt.version.minor = DLPACK_MINOR_VERSION;
  b->mt.manager_ctx = v;
  b->mt.deleter = view_block_deleter;
  b->mt.flags = 0;
  b->owns_ref = 0;
  b->mt.dl_tensor = dl;
  if (nd > 0 && dl.shape != NULL) {
    memcpy(b->dims, dl.shape, sizeof(int64_t) * (size_t)nd);
    b->mt.dl_tensor.shape = b->dims;
  }
  if (nd > 0 && dl.strides != NULL) {
    memcpy(b->dims + nd, dl.strides, sizeof(int64_t) * (size_t)nd);
    b->mt.dl_tensor.strides = b->dims + nd;
  }
  return b;
}

static int pack_exchange(CallCtx* c, PyObject* v, PyObject* api_obj, const DLPackExchangeAPI* api,
                         TVMFFIAny* out) {
  view_block* view = api->dltensor_from_py_object_no_sync != NULL ? managed_from_view(api, v) : NULL;
  /* the pairs array is full: hold the Python object right away */
  if (view != NULL && c->n_views == CTX_MAX_VIEWS) view_keep_alive(view);
  DLManagedTensorVersioned* dlmt = view != NULL ? &view->mt : NULL;
  TVMFFIObjectHandle h = NULL;
  if (dlmt == NULL && api->managed_tensor_from_py_object_no_sync((void*)v, &dlmt) != 0) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_BufferError, "Failed to convert DLManagedTensorVersioned to ffi.Tensor");
    return CONV_PY_ERROR;
  }
  if (TVMFFITensorFromDLPackVersioned(dlmt, 0, 0, &h) != 0) {
    discard_ffi_error();
    if (dlmt->deleter) dlmt->deleter(dlmt);
    PyErr_SetString(PyExc_BufferError, "Failed to convert DLManagedTensorVersioned to ffi.Tensor");
    return CONV_PY_ERROR;
  }
  if (ctx_own(c, h) != 0) return CONV_PY_ERROR; /* h (and the view) already released */
  if (view != NULL && !view->owns_ref) {
    c->view_h[c->n_views] = h;
    c->view_b[c->n_views++] = view;
  }
  out->type_index = kTVMFFITensor;
  out->zero_padding = 0;
  out->v_obj = (TVMFFIObject*)h;
  c->api = api;
  c->api_obj = api_obj;
  const DLDevice dev = TVMFFITensorGetDLTensorPtr(h)->device;
  if (!c->has_device && dev.device_type != kDLCPU && api->current_work_stream != NULL) {
    void* stream = NULL;
    if (api->current_work_stream(dev.device_type, dev.device_id, &stream) != 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "current_work_stream failed");
      return CONV_PY_ERROR;
    }
    c->has_device = 1;
    c->dev_type = dev.device_type;
    c->dev_id = dev.device_id;
    c->stream = stream;
  }
  return CONV_OK;
}

int ffipy_exchange_api_fields(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* obj = box_get(box);
  const DLPackExchangeAPI* api = NULL;
  if (PyCapsule_IsValid(obj, "dlpack_exchange_api"))
    api = (const DLPackExchangeAPI*)PyCapsule_GetPointer(obj, "dlpack_exchange_api");
  PyObject* r =
      api == NULL
          ? Py_BuildValue("(iiii)", 0, 0, 0, 0)
          : Py_BuildValue("(KIIi)", (unsigned long long)(uintptr_t)api,
                          (unsigned)api->header.version.major, (unsigned)api->header.version.minor,
                          (api->managed_tensor_from_py_object_no_sync != NULL ? 1 : 0) |
                              (api->managed_tensor_to_py_object_no_sync != NULL ? 2 : 0));
  if (r == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, r);
  return FFIPY_OK;
}
