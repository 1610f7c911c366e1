/* pyint.c -- handles stored in Python ints.
 *
 * Handles live in the wrappers' `_h` slot as Python ints.  PyLong_AsVoidPtr costs three
 * calls (sign check, unsigned conversion) per handle, a third of a nop call's conversion
 * work, so the hot paths read the int's 30-bit digits directly when ffipy_init verified
 * this interpreter's int layout (g.long_layout; anything unusual falls back to the API):
 * 1 = PyVarObject header, ob_size is the signed digit count (CPython <= 3.11);
 * 2 = lv_tag = digit count << 3 | sign bits (CPython >= 3.12).
 * tests/python/test_pyint_pythons.sh proves it against int.to_bytes on every CPython 3.9 to
 * 3.13 present (tests/python/test_pyint.py, through ffipy_int_fast). */

/* Decodes a non-negative int below 2**60 with layout L into *out; 0 when it can't. */
static inline int long_fast(PyObject* o, int layout, uintptr_t* out) {
  const char* base = (const char*)o + 2 * sizeof(void*); /* after ob_refcnt, ob_type */
  uintptr_t tag = *(const uintptr_t*)base;
  const uint32_t* d = (const uint32_t*)(base + sizeof(uintptr_t));
  uintptr_t nd;
  if (layout == 1) {
    if ((intptr_t)tag < 0) return 0;
    nd = tag;
  } else {
    if ((tag & 3) == 2) return 0; /* negative */
    nd = tag >> 3;
  }
  if (nd == 0)
    *out = 0;
  else if (nd == 1)
    *out = d[0];
  else if (nd == 2)
    *out = (uintptr_t)d[0] | ((uintptr_t)d[1] << 30);
  else
    return 0;
  return 1;
}

static inline void* slot_handle(PyObject* o) { /* NULL with an exception on a bad value */
  uintptr_t v;
  if (g.long_layout != 0 && Py_TYPE(o) == &PyLong_Type && long_fast(o, g.long_layout, &v))
    return (void*)v;
  return PyLong_AsVoidPtr(o);
}

/* The layout whose fast decoding agrees with PyLong_AsVoidPtr on probe values (0: none). */
static int probe_long_layout(void) {
  static const unsigned long long probes[] = {
      0, 1, 0x3FFFFFFFull, 0x40000000ull, 0x7FFF12345678ull, 0x0FFFFFFFFFFFFFFFull};
  PyObject* info = PyLong_GetInfo();
  PyObject* bits = info ? PyObject_GetAttrString(info, "bits_per_digit") : NULL;
  PyObject* size = info ? PyObject_GetAttrString(info, "sizeof_digit") : NULL;
  int ok =
      bits && size && PyLong_AsLong(bits) == 30 && PyLong_AsLong(size) == 4 && sizeof(void*) == 8;
  Py_XDECREF(info);
  Py_XDECREF(bits);
  Py_XDECREF(size);
  PyErr_Clear();
  for (int layout = 1; ok && layout <= 2; ++layout) {
    int good = 1;
    for (size_t i = 0; good && i < sizeof(probes) / sizeof(probes[0]); ++i) {
      PyObject* o = PyLong_FromUnsignedLongLong(probes[i]);
      uintptr_t v;
      good = o != NULL && long_fast(o, layout, &v) && v == (uintptr_t)PyLong_AsVoidPtr(o);
      Py_XDECREF(o);
    }
    PyErr_Clear();
    if (good) return layout;
  }
  return 0;
}

/* The fast path on one Python int, for the test that proves it on every supported CPython
 * (tests/python/test_pyint.py): -1 while this interpreter's layout is unknown (the fast path
 * is off), 0 when it declines the value, 1 with the decoded value in *out. */
int ffipy_int_fast(intptr_t obj, uint64_t* out) {
  uintptr_t v = 0;
  if (g.long_layout == 0) return -1;
  if (!long_fast((PyObject*)obj, g.long_layout, &v)) return 0;
  *out = (uint64_t)v;
  return 1;
}
