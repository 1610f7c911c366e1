/* results.c -- TVMFFIAny -> Python: call results, callback arguments, field values. */

/* A new instance of class tp whose `_h` slot holds h (reference moved in when owned), or
 * NULL with an exception (h's owned reference dropped).  The caller fills the other slots. */
static PyObject* alloc_wrapper(PyTypeObject* tp, TVMFFIObject* h, int owned) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  PyObject* o = alloc ? alloc(tp, 0) : NULL;
  PyObject* hv = o ? PyLong_FromVoidPtr(h) : NULL;
  if (hv == NULL) {
    Py_XDECREF(o);
    if (owned) TVMFFIObjectDecRef(h);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return NULL;
  }
  if (!owned) TVMFFIObjectIncRef(h);
  cobject_store(o, h, hv);
  return o;
}

/* Wrappers of the two hottest result classes (Tensor, Function) are built here instead of in
 * the hook ret_obj: `_h` and the class's second slot at off2, set to v2. */
static PyObject* new_wrapper(PyTypeObject* tp, TVMFFIObject* h, int owned, Py_ssize_t off2,
                             PyObject* v2) {
  PyObject* o = alloc_wrapper(tp, h, owned);
  if (o == NULL) return NULL;
  Py_INCREF(v2);
  *(PyObject**)((char*)o + off2) = v2;
  return o;
}

/* Results of registered object types are wrapped here instead of by the hook ret_obj when
 * their class allows it: _boot._wrapper_kind(cls) says (once per class) whether a wrapper is
 * only its handle (1), a container with its `_tvm_api` tag (2), or a Tensor subclass with its
 * `_view` (3), the fields of the C bases (basetypes.c); anything else (custom __new__,
 * unregistered types) still goes through Python. */
static PyObject* kind_cache; /* class -> kind */

/* What _wrapper_kind says about cls (0 when it needs Python). */
static long class_kind(PyObject* cls) {
  if (g.wrapper_kind == NULL || cls == NULL || !PyType_Check(cls) ||
      !PyType_IsSubtype((PyTypeObject*)cls, cobject_base_tp))
    return 0;
  if (kind_cache == NULL && (kind_cache = PyDict_New()) == NULL) {
    PyErr_Clear();
    return 0;
  }
  PyObject* kind = PyDict_GetItemWithError(kind_cache, cls); /* borrowed */
  if (kind == NULL) {
    if (PyErr_Occurred() ||
        (kind = PyObject_CallFunctionObjArgs(g.wrapper_kind, cls, NULL)) == NULL) {
      PyErr_Clear();
      return 0;
    }
    int rc = PyDict_SetItem(kind_cache, cls, kind);
    Py_DECREF(kind); /* the cache keeps it */
    if (rc != 0) {
      PyErr_Clear();
      return 0;
    }
  }
  long k = PyLong_AsLong(kind);
  PyTypeObject* tp = (PyTypeObject*)cls;
  if (PyErr_Occurred() || !(k == 1 || (k == 2 && PyType_IsSubtype(tp, container_base_tp)) ||
                            (k == 3 && PyType_IsSubtype(tp, tensor_base_tp)))) {
    PyErr_Clear();
    return 0;
  }
  return k;
}

/* A new wrapper of h (reference moved in when owned), NULL without an exception when the
 * type's class needs Python, or NULL with an exception (h's owned reference dropped). */
static PyObject* fast_wrapper(int32_t tidx, TVMFFIObject* h, int owned, PyObject* api_obj) {
  if (g.type_cls == NULL) return NULL;
  PyObject* key = PyLong_FromLong(tidx);
  PyObject* cls = key ? PyDict_GetItemWithError(g.type_cls, key) : NULL; /* borrowed */
  Py_XDECREF(key);
  long k = class_kind(cls);
  if (k != 1 && k != 2) {
    PyErr_Clear();
    return NULL;
  }
  PyObject* o = alloc_wrapper((PyTypeObject*)cls, h, owned);
  if (o != NULL &&
      k == 2) { /* CContainerBase: the exchange API of the call's framework tensors, or None */
    int carries = RES_IS(CARRIES_API, result_kind(tidx));
    PyObject* api = api_obj != NULL && carries ? api_obj : Py_None;
    Py_INCREF(api);
    extra_store(o, api);
  }
  return o;
}

/* A tensor wrapper of the current tensor class (_tensor._set_class_tensor, or the class
 * registered for ffi.Tensor), NULL without an exception when that class needs Python. */
static PyObject* tensor_wrapper(TVMFFIObject* h, int owned) {
  PyObject* cls = PyList_GetItem(g.tensor_cls_box, 0); /* borrowed */
  if (cls == (PyObject*)g.tensor_cls)
    return new_wrapper(g.tensor_cls, h, owned, offsetof(CObjectExtra, extra), g.zero);
  if (class_kind(cls) != 3) {
    PyErr_Clear();
    return NULL;
  }
  return new_wrapper((PyTypeObject*)cls, h, owned, offsetof(CObjectExtra, extra), g.zero);
}

/* Forgets what _wrapper_kind said about cls (a class whose __new__ changed). */
void ffipy_forget_wrapper_kind(intptr_t cls) {
  if (kind_cache != NULL && PyDict_DelItem(kind_cache, (PyObject*)cls) != 0) PyErr_Clear();
}

/* What a C caller or kernel hands over is checked where it would be dereferenced: a NULL
 * string, byte array or by-value object, or a small string longer than its 7 bytes, is a
 * ValueError (set, returning 1), not a crash.  Wrapped objects (identity kinds) may be NULL. */
static int malformed_any(const TVMFFIAny* v, int kind, int owned) {
  const char* what = NULL;
  if (kind == RES_SMALL_STR || kind == RES_SMALL_BYTES) {
    if (v->small_str_len > 7) what = "a small string longer than 7 bytes";
  } else if ((kind == RES_RAW_STR || kind == RES_BYTE_ARRAY) && !owned) { /* owned: refused below */
    const TVMFFIByteArray* ba = (const TVMFFIByteArray*)v->v_ptr;
    if (ba == NULL || (kind == RES_BYTE_ARRAY && ba->data == NULL && ba->size != 0))
      what = "a NULL string";
  } else if (v->type_index >= kTVMFFIStaticObjectBegin && v->v_obj == NULL &&
             !RES_IS(IDENTITY, kind)) {
    what = "a NULL object";
  }
  if (what == NULL) return 0;
  PyErr_Format(PyExc_ValueError, "tvm_ffi: value of type index %d is %s", (int)v->type_index, what);
  return 1;
}

/* The handlers of the table's result kinds (result_kind(type index), rules.h); the kinds not
 * handled here, and objects whose class needs Python, go to the hook ret_obj. */
static PyObject* from_any(TVMFFIAny* v, int owned, PyObject* api_obj,
                          const DLPackExchangeAPI* api) {
  int32_t tidx = v->type_index;
  int kind = result_kind(tidx);
  if (malformed_any(v, kind, owned)) return NULL;
  switch (kind) {
    case RES_NONE:
      Py_RETURN_NONE;
    case RES_INT:
      return PyLong_FromLongLong(v->v_int64);
    case RES_BOOL:
      return PyBool_FromLong(v->v_int64 != 0);
    case RES_FLOAT:
      return PyFloat_FromDouble(v->v_float64);
    case RES_SMALL_STR:
      return PyUnicode_DecodeUTF8(v->v_bytes, v->small_str_len, "surrogateescape");
    case RES_SMALL_BYTES:
      return PyBytes_FromStringAndSize(v->v_bytes, v->small_str_len);
    case RES_RAW_STR:
      if (owned) break;
      return PyUnicode_DecodeUTF8(v->v_c_str, (Py_ssize_t)strlen(v->v_c_str), "surrogateescape");
    case RES_BYTE_ARRAY: {
      if (owned) break;
      const TVMFFIByteArray* ba = (const TVMFFIByteArray*)v->v_ptr;
      return PyBytes_FromStringAndSize(ba->data, (Py_ssize_t)ba->size);
    }
    case RES_RVALUE_REF: {
      if (owned) break;
      TVMFFIObjectHandle* slot = (TVMFFIObjectHandle*)v->v_ptr;
      if (slot == NULL || *slot == NULL) {
        PyErr_SetString(PyExc_ValueError, "RValueRef already moved");
        return NULL;
      }
      TVMFFIAny moved;
      moved.type_index = ((TVMFFIObject*)*slot)->type_index;
      moved.zero_padding = 0;
      moved.v_obj = (TVMFFIObject*)*slot;
      *slot = NULL; /* the callee takes the reference */
      return from_any(&moved, 1, api_obj, api);
    }
    case RES_OPAQUE_PY: {
      PyObject* o = (PyObject*)TVMFFIOpaqueObjectGetCellPtr(v->v_obj)->handle;
      Py_INCREF(o);
      if (owned) TVMFFIObjectDecRef(v->v_obj);
      return o;
    }
    case RES_TENSOR:
      if (api != NULL && api->managed_tensor_to_py_object_no_sync != NULL) {
        DLManagedTensorVersioned* dlmt = NULL;
        if (TVMFFITensorToDLPackVersioned(v->v_obj, &dlmt) == 0) {
          void* py = NULL;
          if (api->managed_tensor_to_py_object_no_sync(dlmt, &py) == 0 && py != NULL) {
            if (owned) TVMFFIObjectDecRef(v->v_obj);
            return (PyObject*)py;
          }
          PyErr_Clear(); /* fall back to tvm_ffi.Tensor */
          if (dlmt->deleter) dlmt->deleter(dlmt);
        } else {
          discard_ffi_error();
        }
      }
      if (g.tensor_cls != NULL && api_obj == NULL) {
        PyObject* w = tensor_wrapper(v->v_obj, owned);
        if (w != NULL || PyErr_Occurred()) return w;
      }
      break;
    case RES_FUNCTION:
      if (g.function_cls != NULL) {
        PyObject* w = owned ? tie_take(v->v_obj, owned) : NULL;
        if (w == NULL) {
          w = new_wrapper(g.function_cls, v->v_obj, owned, offsetof(FunctionBase, release_gil),
                          g.release_default);
          if (w != NULL) function_enable_entry(w);
          if (w != NULL && owned) tie_put(v->v_obj, w);
        }
        return w;
      }
      break;
    default:
      break;
  }
  if (RES_IS(VIEW_ONLY, kind)) {
    PyErr_Format(PyExc_ValueError, "Return value cannot be %s", view_only_names[kind]);
    return NULL;
  }
  int identity = RES_IS(IDENTITY, kind);
  int tie = owned && identity;
  if (tie) {
    PyObject* w = tie_take(v->v_obj, owned);
    if (w != NULL) return tie_retag(w, tidx, api_obj);
  }
  if (identity) {
    PyObject* w = fast_wrapper(tidx, v->v_obj, owned, api_obj);
    if (w != NULL) {
      if (tie) tie_put(v->v_obj, w);
      return w;
    }
    if (PyErr_Occurred()) return NULL;
  }
  if (tidx >= kTVMFFIStaticObjectBegin && !owned) TVMFFIObjectIncRef(v->v_obj);
  PyObject* ti = PyLong_FromLong(tidx);
  PyObject* payload = PyLong_FromUnsignedLongLong(v->v_uint64);
  PyObject* r = NULL;
  if (ti != NULL && payload != NULL)
    r = PyObject_CallFunctionObjArgs(g.ret_obj, ti, payload, api_obj ? api_obj : Py_None, NULL);
  else if (tidx >= kTVMFFIStaticObjectBegin)
    TVMFFIObjectDecRef(v->v_obj);
  Py_XDECREF(ti);
  Py_XDECREF(payload);
  if (tie && r != NULL) tie_result(v->v_obj, r);
  return r;
}

/* A new tensor handle (reference moved in) as a Python tensor wrapper. */
static PyObject* tensor_result(TVMFFIObjectHandle h) {
  TVMFFIAny v;
  v.type_index = kTVMFFITensor;
  v.zero_padding = 0;
  v.v_obj = (TVMFFIObject*)h;
  return from_any(&v, 1, NULL, NULL);
}

int ffipy_from_any(TVMFFIAny* value, int32_t owned, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* r = from_any(value, owned, NULL, NULL);
  if (r == NULL) return box_exception(box, FFIPY_PY_ERROR);
  box_set(box, r);
  return FFIPY_OK;
}
