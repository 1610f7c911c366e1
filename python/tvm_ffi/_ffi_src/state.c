/* state.c -- ffipy_init: the configuration _boot.py hands over once, kept in `g`. */

/* Replaces *slot by a new reference to the object whose id() is addr. */
static void keep_object(PyObject** slot, intptr_t addr) {
  PyObject* o = (PyObject*)addr;
  PyObject* old = *slot;
  Py_XINCREF(o);
  *slot = o;
  Py_XDECREF(old);
}

static void keep_handle(TVMFFIObjectHandle* slot, void* h) {
  if (h != NULL) TVMFFIObjectIncRef(h);
  if (*slot != NULL) TVMFFIObjectDecRef(*slot);
  *slot = h;
}

/* Takes the table's exact types ((type, rule), ...; borrowed) into g.exact_*; -1 if malformed.
 * Exact types carry no extra (RULE_EXCHANGE needs one): such a row is refused. */
static int keep_exact_rules(PyObject* rows) {
  Py_ssize_t n = PyTuple_Check(rows) ? PyTuple_Size(rows) : -1;
  if (n < 0 || n > RULES_EXACT_MAX) return -1;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* row = PyTuple_GetItem(rows, i);
    if (!PyTuple_Check(row) || PyTuple_Size(row) != 2 || !PyType_Check(PyTuple_GetItem(row, 0)))
      return -1;
    long code = PyLong_AsLong(PyTuple_GetItem(row, 1));
    if (code < 0 || code == RULE_EXCHANGE) return -1;
    PyObject* tp = PyTuple_GetItem(row, 0);
    Py_INCREF(tp);
    Py_XDECREF((PyObject*)g.exact_tp[i]);
    g.exact_tp[i] = (PyTypeObject*)tp;
    g.exact_code[i] = code;
    if (tp == (PyObject*)&PyLong_Type) g.int_tp = code == RULE_INT ? &PyLong_Type : NULL;
  }
  g.n_exact = (int)n;
  return 0;
}

int ffipy_init(const ffipy_config* cfg) {
  if (cfg->rules_fingerprint != RULES_FINGERPRINT) return -2;
  if (cfg->cobject_cls == 0 || cfg->exact_rules == 0 || cfg->function_cls == 0 ||
      cfg->tensor_cls == 0 || cfg->tensor_cls_box == 0 || cfg->classify == 0 ||
      cfg->convert_slow == 0 || cfg->exchange_address == 0 ||
      !classify_rows_valid((PyObject*)cfg->classify_rows) || cfg->ret_obj == 0 ||
      cfg->exc_to_error == 0 || cfg->call_error == 0)
    return -1;
  keep_object(&g.cobject_cls, cfg->cobject_cls);
  keep_object((PyObject**)&g.function_cls, cfg->function_cls);
  keep_object((PyObject**)&g.tensor_cls, cfg->tensor_cls);
  keep_object(&g.tensor_cls_box, cfg->tensor_cls_box);
  keep_object(&g.type_cls, cfg->type_cls);
  keep_object(&g.test_wrapper, cfg->test_wrapper);
  keep_object(&g.classify, cfg->classify);
  keep_object(&g.classify_rows, cfg->classify_rows);
  keep_object(&g.exchange_address, cfg->exchange_address);
  if (keep_exact_rules((PyObject*)cfg->exact_rules) != 0) return -1;
  keep_object(&g.convert_slow, cfg->convert_slow);
  keep_object(&g.ret_obj, cfg->ret_obj);
  keep_object(&g.exc_to_error, cfg->exc_to_error);
  keep_object(&g.wrapper_kind, cfg->wrapper_kind);
  keep_object(&g.call_error, cfg->call_error);
  keep_handle(&g.fn_array, cfg->fn_array);
  keep_handle(&g.fn_map, cfg->fn_map);
  g.release_default = cfg->release_gil_default ? Py_True : Py_False;
  /* the wrapper classes derive from the C bases (basetypes.c), whose fields C reads */
  if (cobject_base_tp == NULL || !PyType_IsSubtype((PyTypeObject*)g.cobject_cls, cobject_base_tp) ||
      !PyType_IsSubtype(g.tensor_cls, tensor_base_tp) ||
      !PyType_IsSubtype(g.function_cls, function_base_tp))
    return -1;
  if (g.type_cls != NULL && !PyDict_Check(g.type_cls)) return -1;
  if (g.zero == NULL) g.zero = PyLong_FromLong(0);
  if (g.type_rules == NULL) g.type_rules = PyDict_New();
  if (g.str_h == NULL) {
    g.str_h = PyUnicode_InternFromString("_h");
    g.str_release_gil = PyUnicode_InternFromString("release_gil");
    g.str_pod = PyUnicode_InternFromString("__tvm_ffi_pod__");
    g.str_api = PyUnicode_InternFromString("_tvm_api");
    g.str_tensor = PyUnicode_InternFromString("_tensor");
    g.str_dlpack = PyUnicode_InternFromString("__dlpack__");
    g.str_max_version = PyUnicode_InternFromString("max_version");
  }
  /* DLTensorTestWrapper's class attribute, made here so that _boot.py needs no ctypes */
  PyObject* cap = PyCapsule_New((void*)&test_exchange_api, "dlpack_exchange_api", NULL);
  if (cap != NULL && g.test_wrapper != NULL) {
    PyObject_SetAttrString(g.test_wrapper, "__dlpack_c_exchange_api__", cap);
  }
  Py_XDECREF(cap);
  TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", (void*)PyErr_CheckSignals);
  TVMFFIEnvRegisterCAPI("PyGILState_Ensure", (void*)PyGILState_Ensure);
  TVMFFIEnvRegisterCAPI("PyGILState_Release", (void*)PyGILState_Release);
  if (PyErr_Occurred() || g.zero == NULL || g.type_rules == NULL || g.str_max_version == NULL) {
    PyErr_Clear();
    return -1;
  }
  return 0;
}

void ffipy_set_finalizing(void) { g.finalizing = 1; }

void ffipy_dec_ref(intptr_t handle) { TVMFFIObjectDecRef((TVMFFIObjectHandle)handle); }
