/* dlpack.c -- DLPack capsules, __dlpack__ producers and from_dlpack. */

/* Imports a "dltensor"/"dltensor_versioned" capsule into a new tensor and marks it used.
 * Returns CONV_* (on CONV_FFI_ERROR the capsule is left unconsumed). */
static int consume_capsule(PyObject* cap, int32_t align, int32_t contig, TVMFFIObjectHandle* out) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned* t =
        (DLManagedTensorVersioned*)PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (t->version.major != DLPACK_MAJOR_VERSION) {
      /* only the deleter may be touched on a major mismatch */
      unsigned major = t->version.major;
      if (t->deleter) t->deleter(t);
      PyCapsule_SetName(cap, "used_dltensor_versioned");
      PyCapsule_SetDestructor(cap, NULL);
      PyErr_Format(PyExc_BufferError, "unsupported DLPack major version %u (expected %d)", major,
                   DLPACK_MAJOR_VERSION);
      return CONV_PY_ERROR;
    }
    if (TVMFFITensorFromDLPackVersioned(t, align, contig, out) != 0) return CONV_FFI_ERROR;
    PyCapsule_SetName(cap, "used_dltensor_versioned");
    PyCapsule_SetDestructor(cap, NULL);
    return CONV_OK;
  }
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor* t = (DLManagedTensor*)PyCapsule_GetPointer(cap, "dltensor");
    if (TVMFFITensorFromDLPack(t, align, contig, out) != 0) return CONV_FFI_ERROR;
    PyCapsule_SetName(cap, "used_dltensor");
    PyCapsule_SetDestructor(cap, NULL);
    return CONV_OK;
  }
  if (PyCapsule_CheckExact(cap)) {
    const char* name = PyCapsule_GetName(cap);
    if (name != NULL && strncmp(name, "used_dltensor", 13) == 0)
      PyErr_SetString(PyExc_ValueError,
                      "Expect a dltensor field, PyCapsule can only be consumed once");
    else /* a capsule of something else: say which, "consumed once" would mislead */
      PyErr_Format(PyExc_ValueError,
                   "Expect a dltensor field: the PyCapsule is named %s%s%s, not \"dltensor\" or "
                   "\"dltensor_versioned\"",
                   name ? "\"" : "", name ? name : "NULL", name ? "\"" : "");
    return CONV_PY_ERROR;
  }
  /* only a producer's __dlpack__() hands us anything else */
  PyObject* tname = PyObject_GetAttrString((PyObject*)Py_TYPE(cap), "__name__");
  if (tname != NULL)
    PyErr_Format(PyExc_ValueError,
                 "Expect a dltensor field: __dlpack__() returned %S, not a PyCapsule", tname);
  Py_XDECREF(tname);
  return CONV_PY_ERROR;
}

/* Rule 11: any other __dlpack__ producer (NumPy, CuPy, ...), called with no arguments. */
static int pack_dlpack(CallCtx* c, PyObject* v, TVMFFIAny* out) {
  PyObject* cap = PyObject_CallMethodObjArgs(v, g.str_dlpack, NULL);
  if (cap == NULL) return CONV_PY_ERROR;
  TVMFFIObjectHandle h = NULL;
  int rc = consume_capsule(cap, 0, 0, &h);
  Py_DECREF(cap);
  if (rc != 0) return rc;
  if (ctx_own(c, h) != 0) return CONV_PY_ERROR;
  out->type_index = kTVMFFITensor;
  out->zero_padding = 0;
  out->v_obj = (TVMFFIObject*)h;
  return CONV_OK;
}

/* tvm_ffi.from_dlpack(x, *, require_alignment=0, require_contiguous=False) in C. */
static PyObject* py_from_dlpack(PyObject* unused, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) {
  (void)unused;
  long align = 0;
  int contig = 0;
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "from_dlpack() takes 1 positional argument (%zd given)", nargs);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    const char* k = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(kwnames, i), NULL);
    PyObject* val = args[nargs + i];
    if (k != NULL && strcmp(k, "require_alignment") == 0) {
      align = PyLong_AsLong(val);
      if (align == -1 && PyErr_Occurred()) return NULL;
    } else if (k != NULL && strcmp(k, "require_contiguous") == 0) {
      contig = PyObject_IsTrue(val);
      if (contig < 0) return NULL;
    } else {
      PyErr_Format(PyExc_TypeError, "from_dlpack() got an unexpected keyword argument '%s'",
                   k ? k : "?");
      return NULL;
    }
  }
  PyObject* out = NULL;
  int rc = from_dlpack_impl(args[0], (int32_t)align, contig, &out);
  if (rc == CONV_OK) return out;
  if (rc == CONV_FFI_ERROR) raise_hook_exception(g.call_error, Py_None);
  return NULL;
}

static PyMethodDef from_dlpack_def = {
    "from_dlpack", (PyCFunction)(void (*)(void))py_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
    "from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False)\n--\n\n"
    "Import a DLPack producer (exchange API, __dlpack__ or a capsule) as a Tensor without "
    "copying."};

static void capsule_dtor_legacy(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor* t = (DLManagedTensor*)PyCapsule_GetPointer(cap, "dltensor");
    if (t != NULL && t->deleter != NULL) t->deleter(t);
  }
}

static void capsule_dtor_versioned(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned* t =
        (DLManagedTensorVersioned*)PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (t != NULL && t->deleter != NULL) t->deleter(t);
  }
}

/* A new capsule owning an export of tensor (versioned or legacy); NULL with CONV_* in *rc. */
static PyObject* tensor_capsule(TVMFFIObjectHandle tensor, int versioned, int* rc) {
  PyObject* cap;
  *rc = CONV_FFI_ERROR;
  if (versioned) {
    DLManagedTensorVersioned* t = NULL;
    if (TVMFFITensorToDLPackVersioned(tensor, &t) != 0) return NULL;
    cap = PyCapsule_New(t, "dltensor_versioned", capsule_dtor_versioned);
    if (cap == NULL && t->deleter) t->deleter(t);
  } else {
    DLManagedTensor* t = NULL;
    if (TVMFFITensorToDLPack(tensor, &t) != 0) return NULL;
    cap = PyCapsule_New(t, "dltensor", capsule_dtor_legacy);
    if (cap == NULL && t->deleter) t->deleter(t);
  }
  *rc = cap == NULL ? CONV_PY_ERROR : CONV_OK;
  return cap;
}

int ffipy_tensor_to_capsule(TVMFFIObjectHandle tensor, int32_t versioned, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  int rc;
  PyObject* cap = tensor_capsule(tensor, versioned, &rc);
  if (cap == NULL)
    return rc == CONV_FFI_ERROR ? FFIPY_FFI_ERROR : box_exception(box, FFIPY_PY_ERROR);
  box_set(box, cap);
  return FFIPY_OK;
}

/* The handle of a Tensor wrapper (self of __dlpack__, a Tensor: its method descriptor checked):
 * NULL with a BufferError for a view or an empty wrapper, which have nothing to export. */
static TVMFFIObjectHandle tensor_self_handle(PyObject* self) {
  TVMFFIObjectHandle h = cobject_handle(self);
  if (h == NULL) PyErr_SetString(PyExc_BufferError, "cannot export a tensor view without a handle");
  return h;
}

/* (device_type, device_id) of a DLTensor (built by hand: Py_BuildValue parses its format on
 * every call, ~4 times the cost, and torch.from_dlpack asks for it before every import). */
static PyObject* device_tuple(const DLTensor* dl) {
  PyObject* t = PyTuple_New(2);
  PyObject* a = t ? PyLong_FromLong((long)dl->device.device_type) : NULL;
  PyObject* b = a ? PyLong_FromLong((long)dl->device.device_id) : NULL;
  if (b == NULL) {
    Py_XDECREF(a);
    Py_XDECREF(t);
    return NULL;
  }
  PyTuple_SetItem(t, 0, a);
  PyTuple_SetItem(t, 1, b);
  return t;
}

/* Whether dl_device (any 2-sequence) names the tensor's own device; -1 with an exception. */
static int same_device(TVMFFIObjectHandle h, PyObject* dl_device) {
  const DLTensor* dl = TVMFFITensorGetDLTensorPtr(h);
  PyObject* mine = device_tuple(dl);
  PyObject* theirs = mine ? PySequence_Tuple(dl_device) : NULL;
  int eq = theirs ? PyObject_RichCompareBool(theirs, mine, Py_EQ) : -1;
  Py_XDECREF(mine);
  Py_XDECREF(theirs);
  return eq;
}

/* Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): the legacy
 * capsule unless the consumer asks for DLPack 1.x; this tensor's device only; never a copy. */
static PyObject* py_tensor_dlpack(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
  PyObject *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (nargs != 0) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__() takes keyword arguments only");
    return NULL;
  }
  Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GetItem(kwnames, i);
    PyObject* val = args[i];
    if (name == g.str_max_version) { /* the interned name, as torch.from_dlpack passes it */
      max_version = val;
      continue;
    }
    const char* k = PyUnicode_AsUTF8AndSize(name, NULL);
    if (k == NULL) return NULL;
    if (strcmp(k, "max_version") == 0) {
      max_version = val;
    } else if (strcmp(k, "dl_device") == 0) {
      dl_device = val;
    } else if (strcmp(k, "copy") == 0) {
      copy = val;
    } else if (strcmp(k, "stream") != 0) { /* a CPU/host export needs no stream order */
      PyErr_Format(PyExc_TypeError, "__dlpack__() got an unexpected keyword argument '%s'", k);
      return NULL;
    }
  }
  TVMFFIObjectHandle h = tensor_self_handle(self);
  if (h == NULL) return NULL;
  int versioned = 0;
  if (max_version != Py_None && PyTuple_CheckExact(max_version) && PyTuple_Size(max_version) > 0 &&
      PyLong_CheckExact(PyTuple_GetItem(max_version, 0))) { /* (major, minor), the usual form */
    long major = PyLong_AsLong(PyTuple_GetItem(max_version, 0));
    if (major == -1 && PyErr_Occurred()) { /* beyond a C long: positive or not */
      PyErr_Clear();
      versioned = PyObject_RichCompareBool(PyTuple_GetItem(max_version, 0), g.zero, Py_GT);
      if (versioned < 0) return NULL;
    } else {
      versioned = major > 0;
    }
  } else if (max_version != Py_None) {
    PyObject* first = PySequence_GetItem(max_version, 0);
    PyObject* major = first ? PyNumber_Long(first) : NULL;
    Py_XDECREF(first);
    if (major == NULL) return NULL;
    versioned = PyObject_RichCompareBool(major, g.zero, Py_GT);
    Py_DECREF(major);
    if (versioned < 0) return NULL;
  }
  if (versioned) {
    int same = dl_device == Py_None ? 1 : same_device(h, dl_device);
    if (same < 0) return NULL;
    if (!same) {
      PyErr_SetString(PyExc_BufferError, "dl_device of different type not supported");
      return NULL;
    }
    int want_copy = copy == Py_None ? 0 : PyObject_IsTrue(copy);
    if (want_copy < 0) return NULL;
    if (want_copy) {
      PyErr_SetString(PyExc_BufferError, "copy not yet supported");
      return NULL;
    }
  }
  int rc;
  PyObject* cap = tensor_capsule(h, versioned, &rc);
  if (cap == NULL && rc == CONV_FFI_ERROR) raise_hook_exception(g.call_error, Py_None);
  return cap;
}

/* Tensor.__dlpack_device__() -> (device_type, device_id): consumers such as torch.from_dlpack
 * ask it before every import. */
static PyObject* py_tensor_dlpack_device(PyObject* self, PyObject* unused) {
  (void)unused;
  /* the tensor's own DLTensor, else a view's (`_view`: a DLTensor address); self is a Tensor,
   * as the method descriptor checked */
  TVMFFIObjectHandle h = cobject_handle(self);
  const DLTensor* dl = h != NULL ? TVMFFITensorGetDLTensorPtr(h) : NULL;
  if (dl == NULL && !PyErr_Occurred()) {
    PyObject* view = ((CObjectExtra*)self)->extra;
    dl = view != NULL ? (const DLTensor*)PyLong_AsVoidPtr(view) : NULL;
  }
  if (dl == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Tensor has no handle");
    return NULL;
  }
  return device_tuple(dl);
}

static PyMethodDef tensor_dlpack_device_def = {
    "__dlpack_device__", py_tensor_dlpack_device, METH_NOARGS,
    "__dlpack_device__()\n--\n\nThe (device_type, device_id) of the tensor."};

static PyMethodDef tensor_dlpack_def = {
    "__dlpack__", (PyCFunction)(void (*)(void))py_tensor_dlpack, METH_FASTCALL | METH_KEYWORDS,
    "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
    "Export as a DLPack capsule: versioned when max_version's major is 1 or more."};

int ffipy_tensor_from_capsule(intptr_t box_id, int32_t require_alignment,
                              int32_t require_contiguous, TVMFFIObjectHandle* out) {
  PyObject* box = (PyObject*)box_id;
  int rc = consume_capsule(box_get(box), require_alignment, require_contiguous, out);
  return entry_status(box, rc);
}

/* from_dlpack core: CONV_OK with *out = the Tensor, or an error CONV_*. */
static int from_dlpack_impl(PyObject* v, int32_t align, int32_t contig, PyObject** out) {
  TVMFFIObjectHandle h = NULL;
  if (Py_TYPE(v) == g.tensor_cls) {
    /* what __dlpack__() and consuming its capsule do, without the capsule: a new tensor over
     * a legacy export, so alignment and contiguity are checked as for any producer */
    TVMFFIObjectHandle src = tensor_self_handle(v);
    DLManagedTensor* t = NULL;
    if (src == NULL) return CONV_PY_ERROR;
    if (TVMFFITensorToDLPack(src, &t) != 0) return CONV_FFI_ERROR;
    if (TVMFFITensorFromDLPack(t, align, contig, &h) != 0) {
      if (t->deleter) t->deleter(t);
      return CONV_FFI_ERROR;
    }
    *out = tensor_result(h);
    return *out == NULL ? CONV_PY_ERROR : CONV_OK;
  }
  RuleEntry rule;
  if (type_rule(Py_TYPE(v), &rule) != 0) return CONV_PY_ERROR;
  int has_dlpack = rule.has_dlpack;
  if (rule.code == RULE_EXCHANGE) {
    const DLPackExchangeAPI* api = rule.api;
    DLManagedTensorVersioned* t = NULL;
    if (exchange_export(api, v, &t, "DLPack exchange export failed") != 0) {
      if (!(has_dlpack && PyErr_ExceptionMatches(PyExc_BufferError))) return CONV_PY_ERROR;
      PyErr_Clear(); /* a BufferError falls through to __dlpack__ */
    } else if (TVMFFITensorFromDLPackVersioned(t, align, contig, &h) != 0) {
      if (t->deleter) t->deleter(t);
      return CONV_FFI_ERROR;
    }
  }
  if (h == NULL) {
    int rc;
    if (has_dlpack) {
      PyObject* cap = PyObject_CallMethodObjArgs(v, g.str_dlpack, NULL);
      if (cap == NULL) return CONV_PY_ERROR;
      rc = consume_capsule(cap, align, contig, &h);
      Py_DECREF(cap);
    } else if (PyCapsule_CheckExact(v)) {
      rc = consume_capsule(v, align, contig, &h);
    } else {
      PyErr_SetString(PyExc_TypeError,
                      "Expect from_dlpack to take either a compatible tensor or PyCapsule");
      rc = CONV_PY_ERROR;
    }
    if (rc != CONV_OK) return rc;
  }
  *out = tensor_result(h);
  return *out == NULL ? CONV_PY_ERROR : CONV_OK;
}

int ffipy_from_dlpack(intptr_t box_id, int32_t align, int32_t contig) {
  PyObject* box = (PyObject*)box_id;
  PyObject* out = NULL;
  int rc = from_dlpack_impl(box_get(box), align, contig, &out);
  if (rc == CONV_OK) box_set(box, out);
  return entry_status(box, rc);
}

int ffipy_tensor_from_exchange_api(intptr_t box_id, void* api_ptr, int32_t require_alignment,
                                   int32_t require_contiguous, TVMFFIObjectHandle* out) {
  PyObject* box = (PyObject*)box_id;
  const DLPackExchangeAPI* api = (const DLPackExchangeAPI*)api_ptr;
  DLManagedTensorVersioned* t = NULL;
  if (exchange_export(api, box_get(box), &t, "DLPack exchange export failed") != 0)
    return box_exception(box, FFIPY_PY_ERROR);
  if (TVMFFITensorFromDLPackVersioned(t, require_alignment, require_contiguous, out) != 0) {
    if (t->deleter) t->deleter(t);
    return FFIPY_FFI_ERROR;
  }
  return FFIPY_OK;
}
