/* exchange.c -- framework tensors as arguments through the DLPack exchange API.
 *
 * The producer's non-owning DLTensor view (dltensor_from_py_object_no_sync) becomes an
 * ffi.Tensor of our own: one block holding the object header and the DLTensor at the ABI's
 * offsets (docs/abi.md §7.5: consumers read only those), the copied shape and strides, and
 * the Python tensor as owner.  No managed tensor, no runtime import, and for a callee that
 * only borrows, no allocation either: blocks for up to VIEW_NDIM dimensions are recycled
 * through a free list that is touched with the GIL held only.  The Python object outlives
 * the call anyway, so its strong reference is taken only when the tensor outlives the call
 * (owns_ref, set by ctx_release when someone else still holds the tensor); a tensor that
 * dies with the call never touches Python. */

#define VIEW_NDIM 6   /* dimensions a recycled block has room for */
#define VIEW_CACHE 16 /* recycled blocks kept */

typedef struct view_block {
  TVMFFIObject header;
  DLTensor dl;
  PyObject* owner; /* borrowed during the call; a strong reference once owns_ref */
  int32_t owns_ref;
  int32_t cap;     /* room in dims: shape[cap] then strides[cap] */
  int64_t dims[];
} view_block;

_Static_assert(offsetof(view_block, dl) == sizeof(TVMFFIObject), "DLTensor must follow the header");

static view_block* view_cache[VIEW_CACHE];
static int view_cached;

static void view_keep_alive(view_block* b) {
  Py_INCREF(b->owner);
  b->owns_ref = 1;
}

/* Runs only for a tensor that outlived its call, on whichever thread drops it last. */
static void view_deleter(void* self, int flags) {
  view_block* b = (view_block*)self;
  if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && b->owns_ref) {
    b->owns_ref = 0;
    if (!g.finalizing && Py_IsInitialized()) {
      PyGILState_STATE gil = PyGILState_Ensure();
      Py_DECREF(b->owner);
      PyGILState_Release(gil);
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(b);
}

/* A block nobody else references back to the free list (GIL held). */
static inline void view_recycle(view_block* b) {
  if (b->cap == VIEW_NDIM && view_cached < VIEW_CACHE)
    view_cache[view_cached++] = b;
  else
    free(b);
}

/* After the call (GIL held): recycled when we hold the only reference, else handed over. */
static inline void view_release(view_block* b) {
  if (__atomic_load_n(&b->header.combined_ref_count, __ATOMIC_ACQUIRE) ==
      UINT64_C(0x0000000100000001)) {
    view_recycle(b);
    return;
  }
  view_keep_alive(b);
  TVMFFIObjectDecRef(&b->header);
}

/* Device types whose memory the runtime's import takes as addressed directly (bit per type):
 * kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged. */
#define VIEW_DEVICES                                                          \
  ((1u << kDLCPU) | (1u << kDLCUDA) | (1u << kDLCUDAHost) | (1u << kDLROCM) | \
   (1u << kDLROCMHost) | (1u << kDLCUDAManaged))

/* The ffi.Tensor over v's view, or NULL (nothing set) where the owning export must do.  The view
 * is taken only where the runtime's import would take it without a word (device types that
 * address memory directly, sane extents); the extents are checked while they are copied. */
static view_block* view_from_py(const DLPackExchangeAPI* api, PyObject* v) {
  DLTensor dl;
  if (api->dltensor_from_py_object_no_sync((void*)v, &dl) != 0) {
    PyErr_Clear(); /* the owning export reports real problems */
    return NULL;
  }
  const int32_t nd = dl.ndim;
  const uint32_t dt = (uint32_t)dl.device.device_type;
  if ((uint32_t)nd > 64 || (nd > 0 && dl.shape == NULL) || dl.device.device_id < 0 || dt >= 32 ||
      !((1u << dt) & VIEW_DEVICES))
    return NULL;
  view_block* b;
  if (nd <= VIEW_NDIM && view_cached > 0) {
    b = view_cache[--view_cached];
  } else {
    const int32_t cap = nd <= VIEW_NDIM ? VIEW_NDIM : nd;
    b = (view_block*)malloc(sizeof(view_block) + sizeof(int64_t) * 2 * (size_t)cap);
    if (b == NULL) return NULL;
    b->cap = cap;
  }
  int64_t* shape = b->dims;
  int64_t* strides = b->dims + b->cap;
  uint64_t numel = 1;
  int bad = 0;
  const int64_t* src_strides = dl.strides;
  for (int32_t i = 0; i < nd; ++i) {
    const int64_t e = dl.shape[i];
    shape[i] = e;
    if (src_strides != NULL) strides[i] = src_strides[i];
    bad |= e < 0;
    bad |= __builtin_mul_overflow(numel, (uint64_t)e, &numel);
  }
  if (bad || numel > (uint64_t)INT64_MAX || (dl.data == NULL && numel != 0)) {
    view_recycle(b);
    return NULL;
  }
  if (src_strides == NULL) { /* compact row-major, as the runtime's import fills them in */
    uint64_t stride = 1;
    for (int32_t i = nd - 1; i >= 0; --i) {
      strides[i] = (int64_t)stride;
      stride *= (uint64_t)shape[i];
    }
  }
  b->header.combined_ref_count = UINT64_C(0x0000000100000001);
  b->header.type_index = kTVMFFITensor;
  b->header.__padding = 0;
  b->header.deleter = view_deleter;
  b->owner = v;
  b->owns_ref = 0;
  b->dl = dl;
  b->dl.shape = shape;
  b->dl.strides = strides;
  return b;
}

/* The producer's owning export of v: 0 with a tensor in *out, else -1 with a Python error set
 * (BufferError(why) where the producer set none).  A producer reporting success without a
 * tensor is a failure, not a NULL to dereference. */
static int exchange_export(const DLPackExchangeAPI* api, PyObject* v,
                           DLManagedTensorVersioned** out, const char* why) {
  *out = NULL;
  if (api->managed_tensor_from_py_object_no_sync((void*)v, out) == 0 && *out != NULL) return 0;
  if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, why);
  return -1;
}

/* The owning export's tensor for pack_exchange, owned by c: CONV_*. */
static __attribute__((noinline)) int pack_exported(CallCtx* c, PyObject* v,
                                                   const DLPackExchangeAPI* api,
                                                   TVMFFIObjectHandle* h) {
  DLManagedTensorVersioned* dlmt = NULL;
  if (exchange_export(api, v, &dlmt, "Failed to convert DLManagedTensorVersioned to ffi.Tensor") !=
      0)
    return CONV_PY_ERROR;
  if (TVMFFITensorFromDLPackVersioned(dlmt, 0, 0, h) != 0) {
    discard_ffi_error();
    if (dlmt->deleter) dlmt->deleter(dlmt);
    PyErr_SetString(PyExc_BufferError, "Failed to convert DLManagedTensorVersioned to ffi.Tensor");
    return CONV_PY_ERROR;
  }
  return ctx_own(c, *h); /* on failure h is already released */
}

/* The call's stream: the producer's current stream on the first non-CPU tensor's device. */
static __attribute__((noinline)) int pack_stream(CallCtx* c, const DLPackExchangeAPI* api,
                                                 DLDevice dev) {
  void* stream = NULL;
  if (api->current_work_stream(dev.device_type, dev.device_id, &stream) != 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "current_work_stream failed");
    return CONV_PY_ERROR;
  }
  c->has_device = 1;
  c->dev_type = dev.device_type;
  c->dev_id = dev.device_id;
  c->stream = stream;
  return CONV_OK;
}

/* The hot path (a view recycled after the call) inline; the owning export, a call with more
 * tensors than c has room for and the stream lookup out of line. */
static int pack_exchange(CallCtx* c, PyObject* v, PyObject* api_obj, const DLPackExchangeAPI* api,
                         TVMFFIAny* out) {
  view_block* view = api->dltensor_from_py_object_no_sync != NULL ? view_from_py(api, v) : NULL;
  TVMFFIObjectHandle h;
  if (view != NULL && c->n_views < CTX_MAX_VIEWS) {
    h = &view->header;
    c->view_b[c->n_views++] = view;
  } else if (view != NULL) { /* no room to decide after the call: hold the Python object now */
    h = &view->header;
    view_keep_alive(view);
    if (ctx_own(c, h) != 0) return CONV_PY_ERROR;
  } else if (pack_exported(c, v, api, &h) != CONV_OK) {
    return CONV_PY_ERROR;
  }
  out->type_index = kTVMFFITensor;
  out->zero_padding = 0;
  out->v_obj = (TVMFFIObject*)h;
  c->api = api;
  c->api_obj = api_obj;
  const DLDevice dev = TVMFFITensorGetDLTensorPtr(h)->device;
  if (dev.device_type != kDLCPU && !c->has_device && api->current_work_stream != NULL)
    return pack_stream(c, api, dev);
  return CONV_OK;
}

static const DLPackExchangeAPI* exchange_capsule_table(PyObject* obj) {
  if (!PyCapsule_IsValid(obj, "dlpack_exchange_api")) return NULL;
  return (const DLPackExchangeAPI*)PyCapsule_GetPointer(obj, "dlpack_exchange_api");
}

int ffipy_exchange_api_fields(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  const DLPackExchangeAPI* api = exchange_capsule_table(box_get(box));
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
