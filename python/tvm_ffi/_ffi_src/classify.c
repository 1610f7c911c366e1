/* classify.c -- the argument rule of a type that is not one of the table's exact types: the
 * first of the conversion table's CLASSIFY rows (_rules.py) that holds, asked once per type
 * (pack.c's type_rule caches the answer).  _conversion.py hands the rows over resolved
 * (_CLASSIFY_C); _conversion._classify walks the same rows in Python for ABI mode, and here
 * decides the one case this walk leaves to it: a tensor type that may get its exchange table
 * from an add-on.  In C because the first call with a torch tensor of a process pays for the
 * walk (a Python walk cost ~20k instructions of a ~30k first call). */

/* rows: ((test, arg, rule code), ...) with test a TEST_*, arg a class or (module, name) for
 * TEST_DERIVES/TEST_SUBCLASS, an attribute name for TEST_HAS, (attribute name, (module,
 * name)) for TEST_EXCHANGE. */
static int classify_rows_valid(PyObject* rows) {
  if (rows == NULL || !PyTuple_Check(rows)) return 0;
  for (Py_ssize_t i = 0; i < PyTuple_Size(rows); ++i) {
    PyObject* row = PyTuple_GetItem(rows, i);
    if (!PyTuple_Check(row) || PyTuple_Size(row) != 3) return 0;
    long test = PyLong_AsLong(PyTuple_GetItem(row, 0));
    long code = PyLong_AsLong(PyTuple_GetItem(row, 2));
    PyObject* arg = PyTuple_GetItem(row, 1);
    if (PyErr_Occurred() || code < 0 || code >= RULES_ARG_COUNT) return 0;
    int ok = 0;
    if (test == TEST_DERIVES || test == TEST_SUBCLASS)
      ok = PyType_Check(arg) || (PyTuple_Check(arg) && PyTuple_Size(arg) == 2);
    else if (test == TEST_HAS)
      ok = PyUnicode_Check(arg);
    else if (test == TEST_EXCHANGE)
      ok = PyTuple_Check(arg) && PyTuple_Size(arg) == 2 &&
           PyUnicode_Check(PyTuple_GetItem(arg, 0)) && PyTuple_Check(PyTuple_GetItem(arg, 1));
    if (!ok) return 0;
  }
  return 1;
}

/* The class a row names: arg itself, or module.name while the module is imported (NULL, no
 * error, when it is not or has no such attribute).  Borrowed, or a new reference in *owned. */
static PyObject* row_class(PyObject* arg, PyObject** owned) {
  *owned = NULL;
  if (!PyTuple_Check(arg)) return arg;
  PyObject* mod = PyDict_GetItemWithError(PyImport_GetModuleDict(), PyTuple_GetItem(arg, 0));
  if (mod == NULL) return NULL;
  *owned = PyObject_GetAttr(mod, PyTuple_GetItem(arg, 1));
  if (*owned == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
  return *owned;
}

/* getattr(tp, name) with AttributeError as "absent": 1 with a new reference in *out (when out
 * is not NULL), 0 absent, -1 error. */
static int type_attr(PyTypeObject* tp, PyObject* name, PyObject** out) {
  PyObject* v = PyObject_GetAttr((PyObject*)tp, name);
  if (v == NULL) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  if (out != NULL)
    *out = v;
  else
    Py_DECREF(v);
  return 1;
}

/* Whether an exchange row holds: 1 with *rule = (code, table address), 0, -1 error. */
static int exchange_row(PyTypeObject* tp, PyObject* arg, long code, PyObject** rule) {
  PyObject* api = NULL;
  int has = type_attr(tp, PyTuple_GetItem(arg, 0), &api);
  if (has <= 0) {
    if (has < 0) return -1;
    PyObject* owned;
    PyObject* later = row_class(PyTuple_GetItem(arg, 1), &owned);
    int left = later != NULL && PyType_Check(later) && PyType_IsSubtype(tp, (PyTypeObject*)later);
    Py_XDECREF(owned);
    if (PyErr_Occurred()) return -1;
    if (!left) return 0;
    *rule = PyObject_CallFunctionObjArgs(g.classify, (PyObject*)tp, NULL);
    return *rule == NULL ? -1 : 1;
  }
  /* the accepting case of _tensor._exchange_api_address, without a Python call; anything else
   * goes to it, for the error saying what is wrong */
  const DLPackExchangeAPI* t = exchange_capsule_table(api);
  PyObject* addr;
  if (t != NULL && t->header.version.major == DLPACK_MAJOR_VERSION &&
      t->managed_tensor_from_py_object_no_sync != NULL &&
      t->managed_tensor_to_py_object_no_sync != NULL)
    addr = PyLong_FromVoidPtr((void*)t);
  else
    addr = PyObject_CallFunctionObjArgs(g.exchange_address, api, NULL);
  Py_DECREF(api);
  if (addr == NULL) return -1;
  *rule = Py_BuildValue("(lN)", code, addr);
  return *rule == NULL ? -1 : 1;
}

static PyObject* classify_type(PyTypeObject* tp) {
  PyObject* rows = g.classify_rows;
  for (Py_ssize_t i = 0; i < PyTuple_Size(rows); ++i) {
    PyObject* row = PyTuple_GetItem(rows, i);
    long test = PyLong_AsLong(PyTuple_GetItem(row, 0));
    PyObject* arg = PyTuple_GetItem(row, 1);
    long code = PyLong_AsLong(PyTuple_GetItem(row, 2));
    int holds = 0;
    if (test == TEST_DERIVES || test == TEST_SUBCLASS) {
      PyObject* owned;
      PyObject* cls = row_class(arg, &owned);
      if (cls != NULL) {
        if (test == TEST_SUBCLASS)
          holds = PyObject_IsSubclass((PyObject*)tp, cls);
        else /* in the MRO: no ABC hooks */
          holds = PyType_Check(cls) && PyType_IsSubtype(tp, (PyTypeObject*)cls);
      }
      Py_XDECREF(owned);
      if (PyErr_Occurred()) return NULL;
    } else if (test == TEST_HAS) {
      holds = type_attr(tp, arg, NULL);
    } else if (test == TEST_EXCHANGE) {
      PyObject* rule = NULL;
      holds = exchange_row(tp, arg, code, &rule);
      if (holds > 0) return rule;
    }
    if (holds < 0) return NULL;
    if (holds) return PyLong_FromLong(code);
  }
  return PyLong_FromLong(RULE_SLOW);
}
