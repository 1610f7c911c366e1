/* pack.c -- Python value -> TVMFFIAny: call arguments and callback results. */

static void ctx_init(CallCtx* c) {
  c->owned = c->owned_stack;
  c->n_owned = 0;
  c->n_views = 0;
  c->cap_owned = 8;
  c->temps = NULL;
  c->has_device = 0;
  c->dev_type = c->dev_id = 0;
  c->stream = NULL;
  c->api = NULL;
  c->api_obj = NULL;
  c->n_containers = 0;
  c->converted = NULL;
}

/* The call's view tensors: recycled, or handed over to whoever still holds one. */
static inline void ctx_release_views(CallCtx* c) {
  for (int i = 0; i < c->n_views; ++i) view_release(c->view_b[i]);
  c->n_views = 0;
}

static void ctx_release(CallCtx* c) {
  /* temporaries first: an Array built from the arguments lets go of its view tensors */
  for (int i = 0; i < c->n_owned; ++i) TVMFFIObjectDecRef(c->owned[i]);
  ctx_release_views(c);
  if (c->owned != c->owned_stack) free(c->owned);
  c->owned = c->owned_stack;
  c->n_owned = 0;
  Py_XDECREF(c->temps);
  c->temps = NULL;
  Py_XDECREF(c->converted);
  c->converted = NULL;
  c->n_containers = 0;
}

static int ctx_own(CallCtx* c, TVMFFIObjectHandle h) {
  if (c->n_owned == c->cap_owned) {
    int cap = c->cap_owned * 2;
    TVMFFIObjectHandle* p = (TVMFFIObjectHandle*)malloc(sizeof(*p) * (size_t)cap);
    if (p == NULL) {
      TVMFFIObjectDecRef(h);
      PyErr_NoMemory();
      return CONV_PY_ERROR;
    }
    memcpy(p, c->owned, sizeof(*p) * (size_t)c->n_owned);
    if (c->owned != c->owned_stack) free(c->owned);
    c->owned = p;
    c->cap_owned = cap;
  }
  c->owned[c->n_owned++] = h;
  return CONV_OK;
}

static int ctx_keep(CallCtx* c, PyObject* o) { /* steals o */
  if (c->temps == NULL && (c->temps = PyList_New(0)) == NULL) {
    Py_DECREF(o);
    return CONV_PY_ERROR;
  }
  int rc = PyList_Append(c->temps, o);
  Py_DECREF(o);
  return rc;
}

/* The handle of a CObject (or anything with `_h`); NULL for an empty wrapper. CONV_*. */
static int get_handle(PyObject* obj, TVMFFIObjectHandle* out) {
  if (is_cobject(obj)) {
    *out = cobject_handle(obj);
    return CONV_OK;
  }
  PyObject* h = PyObject_GetAttr(obj, g.str_h);
  if (h == NULL) return CONV_PY_ERROR;
  *out = PyLong_AsVoidPtr(h);
  Py_DECREF(h);
  if (*out == NULL && PyErr_Occurred()) return CONV_PY_ERROR;
  return CONV_OK;
}

static void set_pod(TVMFFIAny* out, int32_t tidx, int64_t payload) {
  out->type_index = tidx;
  out->zero_padding = 0;
  out->v_int64 = payload;
}

/* Direct-mapped front of the table's exact types and g.type_rules. */
#define RULE_CACHE_SIZE 64
static RuleEntry rule_cache[RULE_CACHE_SIZE];

static inline RuleEntry* rule_slot(PyTypeObject* tp) {
  return &rule_cache[((uintptr_t)tp >> 4) & (RULE_CACHE_SIZE - 1)];
}

/* The rule of an exact type of the table, or -1. */
static inline long exact_rule(PyTypeObject* tp) {
  for (int i = 0; i < RULES_EXACT_MAX; ++i)
    if (i < g.n_exact && g.exact_tp[i] == tp) return g.exact_code[i];
  return -1;
}

/* Weak-reference callback of a classified type: the type is being freed, so its entry leaves
 * g.type_rules and the cache (another type may be made at the same address).  self is the key. */
static PyObject* type_rule_forget(PyObject* key, PyObject* ref) {
  (void)ref;
  PyTypeObject* tp = (PyTypeObject*)PyLong_AsVoidPtr(key);
  RuleEntry* e = rule_slot(tp);
  if (e->tp == tp) e->tp = NULL;
  if (g.type_rules != NULL && PyDict_DelItem(g.type_rules, key) != 0) PyErr_Clear();
  Py_RETURN_NONE;
}
static PyMethodDef type_rule_forget_def = {"type_rule_forget", type_rule_forget, METH_O, NULL};

/* g.type_rules' entry of tp: (rule, weak reference to tp), keyed by the type's address so that
 * the table does not keep classes alive.  Classifies the type on first sight.  Borrowed; NULL
 * with a Python error. */
static PyObject* type_rule_entry(PyTypeObject* tp) {
  PyObject* key = PyLong_FromVoidPtr(tp);
  if (key == NULL) return NULL;
  PyObject* entry = PyDict_GetItemWithError(g.type_rules, key);
  if (entry == NULL && !PyErr_Occurred()) {
    PyObject* rule = classify_type(tp);
    PyObject* forget = rule ? PyCFunction_New(&type_rule_forget_def, key) : NULL;
    PyObject* ref = forget ? PyWeakref_NewRef((PyObject*)tp, forget) : NULL;
    PyObject* fresh = ref ? PyTuple_Pack(2, rule, ref) : NULL;
    /* classify_type may run Python code that classified tp already: the first entry stays */
    if (fresh != NULL) entry = PyDict_GetItemWithError(g.type_rules, key);
    if (fresh != NULL && entry == NULL && !PyErr_Occurred() &&
        PyDict_SetItem(g.type_rules, key, fresh) == 0)
      entry = fresh; /* the dict's reference from here on */
    Py_XDECREF(fresh);
    Py_XDECREF(ref);
    Py_XDECREF(forget);
    Py_XDECREF(rule);
  }
  Py_DECREF(key);
  return entry;
}

/* Copies the cached rule of a type into *out, classifying the type on first sight.
 * Copied, not pointed to: a nested conversion may evict the slot. Returns CONV_OK/CONV_PY_ERROR. */
static int type_rule(PyTypeObject* tp, RuleEntry* out) {
  RuleEntry* e = rule_slot(tp);
  if (e->tp == tp) {
    *out = *e;
    return CONV_OK;
  }
  RuleEntry n;
  n.tp = tp;
  n.extra = NULL;
  n.api = NULL;
  n.rule = NULL;
  n.code = exact_rule(tp);
  if (n.code < 0) {
    PyObject* entry = type_rule_entry(tp);
    if (entry == NULL) return CONV_PY_ERROR;
    PyObject* rule = PyTuple_GetItem(entry, 0);
    n.rule = rule;
    if (PyTuple_CheckExact(rule) && PyTuple_Size(rule) == 2) {
      n.code = PyLong_AsLong(PyTuple_GetItem(rule, 0));
      n.extra = PyTuple_GetItem(rule, 1);
    } else {
      n.code = PyLong_AsLong(rule);
    }
    if (n.code == -1 && PyErr_Occurred()) return CONV_PY_ERROR;
    if (n.code == RULE_EXCHANGE) {
      n.api = (const DLPackExchangeAPI*)PyLong_AsVoidPtr(n.extra);
      if (n.api == NULL) {
        if (!PyErr_Occurred())
          PyErr_SetString(PyExc_ValueError, "Expect a dlpack_exchange_api field");
        return CONV_PY_ERROR;
      }
    }
  }
  n.has_dlpack = PyObject_HasAttr((PyObject*)tp, g.str_dlpack);
  *e = n;
  *out = n;
  return CONV_OK;
}

static int pack_bytes_like(CallCtx* c, int is_str, int32_t small, const char* s, Py_ssize_t n,
                           TVMFFIAny* out) {
  if (n <= 7) {
    out->type_index = small;
    out->small_str_len = (uint32_t)n;
    out->v_int64 = 0;
    memcpy(out->v_bytes, s, (size_t)n);
    return CONV_OK;
  }
  TVMFFIByteArray ba;
  ba.data = s;
  ba.size = (size_t)n;
  int rc = is_str ? TVMFFIStringFromByteArray(&ba, out) : TVMFFIBytesFromByteArray(&ba, out);
  if (rc != 0) return CONV_FFI_ERROR;
  return ctx_own(c, out->v_obj);
}

#define PACK_MEMO_AFTER 256

static int pack_container_items(CallCtx* c, PyObject* v, int is_map, TVMFFIAny* out, int depth);

/* The container v converted before in this call (1, *out set), 0, or -1 (Python error).
 * Keys are ids: a container remembered stays alive in c->temps until the call is over. */
static int pack_again(CallCtx* c, PyObject* v, int is_map, TVMFFIAny* out, PyObject** key) {
  *key = NULL;
  if (c->converted == NULL) {
    if (++c->n_containers <= PACK_MEMO_AFTER) return 0;
    if ((c->converted = PyDict_New()) == NULL) return -1;
  }
  if ((*key = PyLong_FromVoidPtr(v)) == NULL) return -1;
  PyObject* h = PyDict_GetItemWithError(c->converted, *key); /* borrowed */
  if (h == NULL) return PyErr_Occurred() ? -1 : 0;
  out->type_index = is_map ? kTVMFFIMap : kTVMFFIArray;
  out->zero_padding = 0;
  out->v_obj = (TVMFFIObject*)PyLong_AsVoidPtr(h);
  return 1;
}

/* list/tuple -> ffi.Array, dict -> ffi.Map, built by calling the global constructors. */
static int pack_container(CallCtx* c, PyObject* v, int is_map, TVMFFIAny* out, int depth) {
  if ((is_map ? g.fn_map : g.fn_array) == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: the runtime has no ffi.Array/ffi.Map");
    return CONV_PY_ERROR;
  }
  PyObject* key;
  int again = pack_again(c, v, is_map, out, &key);
  if (again != 0) {
    Py_XDECREF(key);
    return again > 0 ? CONV_OK : CONV_PY_ERROR;
  }
  int rc = pack_container_items(c, v, is_map, out, depth);
  if (rc == CONV_OK && key != NULL) {
    PyObject* h = PyLong_FromVoidPtr(out->v_obj);
    if (h == NULL || PyDict_SetItem(c->converted, key, h) != 0) rc = CONV_PY_ERROR;
    Py_XDECREF(h);
    if (rc == CONV_OK) { /* its id is a key: it must outlive the call */
      Py_INCREF(v);
      rc = ctx_keep(c, v);
    }
  }
  Py_XDECREF(key);
  return rc;
}

static int pack_container_items(CallCtx* c, PyObject* v, int is_map, TVMFFIAny* out, int depth) {
  PyObject* seq = NULL;
  Py_ssize_t n;
  if (is_map) {
    seq = PyObject_CallMethod(v, "items", NULL);
    if (seq == NULL) return CONV_PY_ERROR;
    PyObject* lst = PySequence_List(seq);
    Py_DECREF(seq);
    if (lst == NULL) return CONV_PY_ERROR;
    seq = lst;
    n = PyList_Size(seq) * 2;
  } else {
    Py_INCREF(v);
    seq = v;
    n = PySequence_Size(v);
    if (n < 0) {
      Py_DECREF(seq);
      return CONV_PY_ERROR;
    }
  }
  TVMFFIAny stack[16];
  TVMFFIAny* items = n <= 16 ? stack : (TVMFFIAny*)malloc(sizeof(TVMFFIAny) * (size_t)n);
  int rc = 0;
  if (items == NULL) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return CONV_PY_ERROR;
  }
  /* a tuple's items come from its storage: a NamedTuple's item slot would run Python */
  int from_storage = PyTuple_Check(seq);
  for (Py_ssize_t i = 0; i < (is_map ? n / 2 : n) && rc == CONV_OK; ++i) {
    PyObject* item = from_storage ? PyTuple_GetItem(seq, i) : PySequence_GetItem(seq, i);
    if (item != NULL && from_storage) Py_INCREF(item);
    if (item == NULL) {
      rc = CONV_PY_ERROR;
      break;
    }
    if (is_map) {
      PyObject* k = PySequence_GetItem(item, 0);
      PyObject* val = PySequence_GetItem(item, 1);
      if (k == NULL || val == NULL) {
        rc = CONV_PY_ERROR;
      } else {
        rc = pack(c, k, &items[2 * i], depth + 1);
        if (rc == CONV_OK) rc = pack(c, val, &items[2 * i + 1], depth + 1);
      }
      Py_XDECREF(k);
      Py_XDECREF(val);
    } else {
      rc = pack(c, item, &items[i], depth + 1);
    }
    /* elements stay alive: the container keeps them, temporaries live in c */
    if (rc == CONV_OK && (PyTuple_CheckExact(item) || PyList_CheckExact(item))) {
      Py_INCREF(item);
      rc = ctx_keep(c, item);
    }
    Py_DECREF(item);
  }
  if (rc == CONV_OK) {
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    if (TVMFFIFunctionCall(is_map ? g.fn_map : g.fn_array, items, (int32_t)n, &result) != 0) {
      rc = CONV_FFI_ERROR;
    } else {
      *out = result;
      rc = ctx_own(c, result.v_obj);
    }
  }
  if (items != stack) free(items);
  Py_DECREF(seq);
  return rc;
}

/* Applies a slow-path result: a value, (type_index, payload) or
 * (value, (dev_type, dev_id) | None, stream, api_obj | None). */
static int pack_slow_result(CallCtx* c, PyObject* r, TVMFFIAny* out, int depth) {
  if (PyTuple_CheckExact(r) && PyTuple_Size(r) == 2) {
    long long tidx = PyLong_AsLongLong(PyTuple_GetItem(r, 0));
    unsigned long long payload = PyLong_AsUnsignedLongLongMask(PyTuple_GetItem(r, 1));
    if (PyErr_Occurred()) return CONV_PY_ERROR;
    set_pod(out, (int32_t)tidx, (int64_t)payload);
    return CONV_OK;
  }
  if (PyTuple_CheckExact(r) && PyTuple_Size(r) == 4) {
    PyObject* dev = PyTuple_GetItem(r, 1);
    PyObject* api_obj = PyTuple_GetItem(r, 3);
    if (dev != Py_None && !c->has_device) {
      c->has_device = 1;
      c->dev_type = (int32_t)PyLong_AsLong(PyTuple_GetItem(dev, 0));
      c->dev_id = (int32_t)PyLong_AsLong(PyTuple_GetItem(dev, 1));
      c->stream = PyLong_AsVoidPtr(PyTuple_GetItem(r, 2));
      if (PyErr_Occurred()) return CONV_PY_ERROR;
    }
    if (api_obj != Py_None) {
      c->api_obj = api_obj;
      c->api = PyLong_Check(api_obj) ? (const DLPackExchangeAPI*)PyLong_AsVoidPtr(api_obj) : NULL;
    }
    return pack(c, PyTuple_GetItem(r, 0), out, depth + 1);
  }
  return pack(c, r, out, depth + 1);
}

/* Converts v through the Python hook _conversion._convert_slow. */
static int pack_slow(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth) {
  PyObject* r = PyObject_CallFunctionObjArgs(g.convert_slow, v, NULL);
  if (r == NULL) return CONV_PY_ERROR;
  if (ctx_keep(c, r) != 0) return CONV_PY_ERROR; /* r stays alive in temps until the call ends */
  return pack_slow_result(c, r, out, depth);
}

/* The handlers of the scalar rules that need no call (pack inlines them). */
static inline int pack_scalar(long code, PyObject* v, TVMFFIAny* out) {
  if (code == RULE_NONE) {
    set_pod(out, kTVMFFINone, 0);
  } else if (code == RULE_FLOAT) {
    out->type_index = kTVMFFIFloat;
    out->zero_padding = 0;
    out->v_float64 = PyFloat_AsDouble(v);
    if (out->v_float64 == -1.0 && PyErr_Occurred()) return CONV_PY_ERROR;
  } else if (code == RULE_BOOL) {
    set_pod(out, kTVMFFIBool, v == Py_True);
  } else {
    return 1; /* not one of them */
  }
  return CONV_OK;
}

/* The handlers of the table's argument rules; the type's rule comes from the cache in front of
 * the table (a hit costs a load and a compare). */
static __attribute__((noinline)) int pack_rule(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth,
                                               const RuleEntry* e) {
  RuleEntry rule;
  if (e == NULL) { /* not cached */
    if (type_rule(Py_TYPE(v), &rule) != 0) return CONV_PY_ERROR;
    e = &rule;
  }
  long code = e->code;
  int rc = pack_scalar(code, v, out);
  if (rc != 1) return rc;
  switch (code) { /* values: no nesting */
    case RULE_INT: {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (!overflow) {
        if (x == -1 && PyErr_Occurred()) return CONV_PY_ERROR;
        set_pod(out, kTVMFFIInt, x);
        return CONV_OK;
      }
      return pack_slow(c, v, out, depth); /* beyond int64: the slow path makes an ffi.BigInt */
    }
    case RULE_STR: {
      Py_ssize_t n;
      const char* s = PyUnicode_AsUTF8AndSize(v, &n);
      if (s == NULL) return CONV_PY_ERROR;
      return pack_bytes_like(c, 1, kTVMFFISmallStr, s, n, out);
    }
    case RULE_BYTES: {
      char* s;
      Py_ssize_t n;
      if (PyBytes_AsStringAndSize(v, &s, &n) != 0) return CONV_PY_ERROR;
      return pack_bytes_like(c, 0, kTVMFFISmallBytes, s, n, out);
    }
    default:
      break;
  }
  if (depth > 64) {
    PyErr_SetString(PyExc_RecursionError, "tvm_ffi: argument nesting is too deep");
    return CONV_PY_ERROR;
  }
  switch (code) {
    case RULE_SEQUENCE:
      return pack_container(c, v, 0, out, depth);
    case RULE_MAP:
      return pack_container(c, v, 1, out, depth);
    case RULE_OBJECT:
    case RULE_CONTAINER: {
      TVMFFIObjectHandle h;
      if (is_cobject(v)) { /* a CObject subclass */
        h = cobject_handle(v);
      } else if (get_handle(v, &h) != 0) {
        return CONV_PY_ERROR;
      }
      if (h == NULL) break; /* empty wrapper or tensor view: slow path decides */
      out->type_index = ((TVMFFIObject*)h)->type_index;
      out->zero_padding = 0;
      out->v_obj = (TVMFFIObject*)h;
      if (code == RULE_CONTAINER && c->api_obj == NULL) {
        PyObject* tag = PyObject_GetAttr(v, g.str_api);
        if (tag == NULL) return CONV_PY_ERROR;
        if (tag != Py_None) {
          c->api_obj = tag;
          c->api = PyLong_Check(tag) ? (const DLPackExchangeAPI*)PyLong_AsVoidPtr(tag) : NULL;
        }
        return ctx_keep(c, tag);
      }
      return CONV_OK;
    }
    case RULE_EXCHANGE:
      return pack_exchange(c, v, e->extra, e->api, out);
    case RULE_DLPACK:
      return pack_dlpack(c, v, out);
    case RULE_POD: {
      PyObject* pod = PyObject_GetAttr(v, g.str_pod);
      if (pod == NULL) return CONV_PY_ERROR;
      int rc = pack_slow_result(c, pod, out, depth);
      Py_DECREF(pod);
      return rc;
    }
    default:
      break;
  }
  return pack_slow(c, v, out, depth);
}

/* Cached scalar rules without a call, everything else through pack_rule. */
static inline int pack(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth) {
  PyTypeObject* tp = Py_TYPE(v);
  RuleEntry* e = rule_slot(tp);
  if (e->tp != tp) return pack_rule(c, v, out, depth, NULL);
  int rc = pack_scalar(e->code, v, out);
  return rc != 1 ? rc : pack_rule(c, v, out, depth, e);
}

static __attribute__((noinline)) int pack_top(CallCtx* c, PyObject* v, TVMFFIAny* out) {
  return pack(c, v, out, 0);
}

/* pack() with the commonest arguments inlined into the call loop: a type check and a handle or
 * int read.  Exact tvm_ffi.Tensor wrappers (RULE_OBJECT's handler) and ints within int64
 * (RULE_INT's, where the table gives int that rule: g.int_tp). */
static inline int pack_arg(CallCtx* c, PyObject* v, TVMFFIAny* out) {
  PyTypeObject* tp = Py_TYPE(v);
  if (tp == g.tensor_cls) { /* a CObject subclass (state.c checks) */
    TVMFFIObject* h = (TVMFFIObject*)cobject_handle(v);
    if (h != NULL) {
      out->type_index = h->type_index;
      out->zero_padding = 0;
      out->v_obj = h;
      return CONV_OK;
    }
  } else if (tp == g.int_tp) {
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow); /* no error: v is an int */
    if (!overflow) {
      set_pod(out, kTVMFFIInt, (int64_t)x);
      return CONV_OK;
    }
  } else { /* framework tensors: straight to their handler once the type's rule is cached */
    const RuleEntry* e = rule_slot(tp);
    if (e->tp == tp && e->code == RULE_EXCHANGE) return pack_exchange(c, v, e->extra, e->api, out);
  }
  return pack_top(c, v, out);
}

/* v as an owned Any (a callback's result, a value stored from Python): CONV_*. */
static int pack_to_owned(PyObject* v, TVMFFIAny* out) {
  CallCtx c;
  ctx_init(&c);
  TVMFFIAny view;
  int rc = pack(&c, v, &view, 0);
  if (rc == CONV_OK && TVMFFIAnyViewToOwnedAny(&view, out) != 0) rc = CONV_FFI_ERROR;
  ctx_release(&c);
  return rc;
}

int ffipy_to_any(intptr_t box_id, TVMFFIAny* out) {
  PyObject* box = (PyObject*)box_id;
  return entry_status(box, pack_to_owned(box_get(box), out));
}
