/* identity.c -- API mode's wrapper identity table ("tying", docs/python.md §4.3).
 *
 * The protocol (which results are tied, lookup, untie in __del__, stale entries) is described
 * once, in HACKING.md "Wrapper identity"; ABI mode keeps the same protocol in a Python dict
 * (_identity.py).  Here: an open-addressing table mapping a handle to its wrapper (a borrowed
 * reference), only touched with the GIL held. */
typedef struct {
  void* h;
  PyObject* w;
} tie_slot;
static tie_slot* ties;
static size_t ties_mask; /* capacity - 1 (capacity a power of two, 0 before first use) */
static size_t ties_n;

static size_t tie_home(const void* h) {
  return (size_t)(((uint64_t)(uintptr_t)h * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & ties_mask;
}

static PyObject* tie_get(const void* h) {
  if (ties_n == 0) return NULL;
  for (size_t i = tie_home(h);; i = (i + 1) & ties_mask) {
    if (ties[i].h == h) return ties[i].w;
    if (ties[i].h == NULL) return NULL;
  }
}

static int tie_grow(void) {
  size_t old_cap = ties != NULL ? ties_mask + 1 : 0;
  size_t cap = old_cap ? old_cap * 2 : 256;
  tie_slot* t = (tie_slot*)calloc(cap, sizeof(tie_slot));
  if (t == NULL) return -1;
  tie_slot* old = ties;
  ties = t;
  ties_mask = cap - 1;
  for (size_t i = 0; i < old_cap; ++i) {
    if (old[i].h == NULL) continue;
    size_t j = tie_home(old[i].h);
    while (t[j].h != NULL) j = (j + 1) & ties_mask;
    t[j] = old[i];
  }
  free(old);
  return 0;
}

/* Ties w to h unless h has a wrapper already (out of memory only loses identity). */
static void tie_put(void* h, PyObject* w) {
  size_t cap = ties != NULL ? ties_mask + 1 : 0;
  if ((ties_n + 1) * 2 > cap && tie_grow() != 0) return;
  size_t i = tie_home(h);
  for (; ties[i].h != NULL; i = (i + 1) & ties_mask)
    if (ties[i].h == h) return;
  ties[i].h = h;
  ties[i].w = w;
  ++ties_n;
}

/* Unties h if its wrapper is w; backward-shift deletion keeps probe chains whole. */
static void tie_drop(const void* h, PyObject* w) {
  if (ties_n == 0) return;
  size_t i = tie_home(h);
  for (;; i = (i + 1) & ties_mask) {
    if (ties[i].h == NULL) return;
    if (ties[i].h == h) break;
  }
  if (ties[i].w != w) return;
  --ties_n;
  for (size_t j = (i + 1) & ties_mask; ties[j].h != NULL; j = (j + 1) & ties_mask) {
    size_t k = tie_home(ties[j].h);
    int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j); /* home in (i, j] */
    if (!stays) {
      ties[i] = ties[j];
      i = j;
    }
  }
  ties[i].h = NULL;
  ties[i].w = NULL;
}

/* The wrapper tied to h (borrowed), or NULL; a stale entry (the wrapper moved on) is dropped. */
static PyObject* tie_live(const void* h) {
  PyObject* w = tie_get(h);
  if (w == NULL) return NULL;
  if (!is_cobject(w) || cobject_handle(w) != h) {
    tie_drop(h, w);
    return NULL;
  }
  return w;
}

/* The live wrapper of h as a new reference (dropping the owned reference of h), or NULL. */
static PyObject* tie_take(TVMFFIObject* h, int owned) {
  PyObject* w = tie_live(h);
  if (w == NULL) return NULL;
  Py_INCREF(w);
  if (owned) TVMFFIObjectDecRef(h);
  return w;
}

/* Ties a freshly converted result r to h when r is a wrapper holding h. */
static void tie_result(TVMFFIObject* h, PyObject* r) {
  if (is_cobject(r) && cobject_handle(r) == (void*)h) tie_put(h, r);
}

/* A container met again in a call with framework tensors keeps converting them lazily. */
static PyObject* tie_retag(PyObject* w, int32_t tidx, PyObject* api_obj) {
  if (api_obj == NULL || !RES_IS(CARRIES_API, result_kind(tidx))) return w;
  PyObject* cur = PyObject_GetAttr(w, g.str_api);
  if (cur == Py_None && PyObject_TypeCheck(w, container_base_tp)) {
    Py_INCREF(api_obj);
    extra_store(w, api_obj);
  }
  Py_XDECREF(cur);
  PyErr_Clear();
  return w;
}

/* CObject.__del__ in C: drop the wrapper's reference without a Python frame (self is a
 * CObject: the method descriptor checked). */
static PyObject* cobject_del(PyObject* self, PyObject* unused) {
  (void)unused;
  void* h = cobject_handle(self);
  if (h == NULL) Py_RETURN_NONE;
  Py_INCREF(g.zero);
  cobject_store(self, NULL, g.zero);
  tie_drop(h, self);
  TVMFFIObjectDecRef(h);
  Py_RETURN_NONE;
}

/* made a method of CObject by ffipy_make_builtins (call.c) */
static PyMethodDef del_method_def = {"__del__", cobject_del, METH_NOARGS,
                                     "Drop the reference this wrapper owns."};

/* ---- entry points (_base.py) ---- */

void ffipy_tie(intptr_t wrapper, intptr_t handle) {
  if (handle != 0 && cobject_base_tp != NULL) tie_put((void*)handle, (PyObject*)wrapper);
}

void ffipy_untie(intptr_t wrapper, intptr_t handle) { tie_drop((void*)handle, (PyObject*)wrapper); }

void ffipy_drop_handle(intptr_t wrapper, intptr_t handle) {
  tie_drop((void*)handle, (PyObject*)wrapper);
  TVMFFIObjectDecRef((TVMFFIObjectHandle)handle);
}

int ffipy_tied_wrapper(intptr_t handle, intptr_t box_id) {
  PyObject* w = cobject_base_tp != NULL ? tie_live((void*)handle) : NULL;
  if (w == NULL) w = Py_None;
  Py_INCREF(w);
  box_set((PyObject*)box_id, w);
  return FFIPY_OK;
}

int64_t ffipy_tied_count(void) { return (int64_t)ties_n; }
