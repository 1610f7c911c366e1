/*
 * helpers.c -- the C fast path of the tvm_ffi cffi module.
 *
 * Compiled into tvm_ffi._ffi_cffi through cffi's set_source (see _build_ffi.py).
 * Why C: packing arguments field by field from Python costs ~200 ns per
 * argument; here one cffi call converts a whole argument tuple with per-type
 * dispatch, calls the function, and converts the result, so a call costs one
 * Python frame plus one cffi call.  Python objects reach C as id() of a "box"
 * (see helpers.h); the GIL is held throughout (the module is built with
 * cffi's GIL release disabled, _build_ffi.py) and released only around the
 * foreign call itself, as Function.release_gil asks.
 *
 * Everything Python-specific that is not hot (class selection for returned
 * objects, protocol objects, errors with tracebacks) is delegated to hooks
 * installed from core.py by TVMFFIPyInit.
 */
#include <string.h>

/* The module is built against the 3.9 limited API (the oldest Python the package supports),
 * whose headers lack two things the fast path needs: METH_FASTCALL and
 * PyUnicode_AsUTF8AndSize joined the limited API in 3.10, but CPython 3.7+ already honours
 * the flag and 3.3+ exports the function, with the meaning and signature they have since. */
#if defined(Py_LIMITED_API) && Py_LIMITED_API < 0x030A0000
#ifndef METH_FASTCALL
#define METH_FASTCALL 0x0080
#endif
PyAPI_FUNC(const char*) PyUnicode_AsUTF8AndSize(PyObject*, Py_ssize_t*);
#endif

/* ---- hooks installed by TVMFFIPyInit ------------------------------------ */
static PyObject* g_cobject_cls;   /* tvm_ffi.core.CObject */
static PyObject* g_classify;      /* classify(type) -> rule (int or (rule, extra)) */
static PyObject* g_convert_slow;  /* convert_slow(value) -> simpler value */
static PyObject* g_ret_obj;       /* ret_obj(type_index, payload, api_obj) -> object */
static PyObject* g_exc_to_error;  /* exc_to_error(exc) -> core.Error */
static PyObject* g_test_wrapper;  /* core.DLTensorTestWrapper */
static TVMFFIObjectHandle g_fn_array; /* ffi.Array (owned) */
static TVMFFIObjectHandle g_fn_map;   /* ffi.Map (owned) */
static PyObject* g_type_cache;    /* dict: type -> rule */
static PyObject* g_str_h;
static PyObject* g_str_release_gil;
static PyObject* g_str_pod;
static PyObject* g_str_api;
static PyObject* g_str_tensor;
static PyObject* g_str_dlpack;
static volatile int g_finalizing;

static DLPackExchangeAPI g_test_api; /* DLTensorTestWrapper's table, defined at the end */

enum { RULE_SLOW = 0, RULE_OBJECT = 1, RULE_EXCHANGE = 2, RULE_POD = 3, RULE_CONTAINER = 4, RULE_DLPACK = 5 };

struct view_block;
#define CTX_MAX_VIEWS 8

/* Per-call conversion state: temporaries and the stream/allocator context. */
typedef struct {
  /* exchange-API argument tensors whose Python reference is taken only if the callee kept
   * them (see view_block); handle and block pairs */
  TVMFFIObjectHandle view_h[CTX_MAX_VIEWS];
  struct view_block* view_b[CTX_MAX_VIEWS];
  int n_views;
  TVMFFIObjectHandle owned_stack[8];
  TVMFFIObjectHandle* owned; /* FFI temporaries, DecRef'd after the call */
  int n_owned, cap_owned;
  PyObject* temps; /* Python temporaries (list), NULL until needed */
  int has_device;
  int32_t dev_type, dev_id;
  void* stream;
  const DLPackExchangeAPI* api; /* exchange table of the last framework tensor */
  PyObject* api_obj;            /* its Python identity (borrowed from temps/cache) */
} CallCtx;

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
}

static void view_keep_alive(struct view_block* b);

static void ctx_release(CallCtx* c) {
  /* A view tensor the callee (or the result) still references needs its Python object
   * alive from now on; one only we reference dies below without touching Python. */
  for (int i = 0; i < c->n_views; ++i)
    if (__atomic_load_n(&((TVMFFIObject*)c->view_h[i])->combined_ref_count, __ATOMIC_ACQUIRE) !=
        UINT64_C(0x0000000100000001))
      view_keep_alive(c->view_b[i]);
  c->n_views = 0;
  for (int i = 0; i < c->n_owned; ++i) TVMFFIObjectDecRef(c->owned[i]);
  if (c->owned != c->owned_stack) free(c->owned);
  c->owned = c->owned_stack;
  c->n_owned = 0;
  Py_XDECREF(c->temps);
  c->temps = NULL;
}

static int ctx_own(CallCtx* c, TVMFFIObjectHandle h) {
  if (c->n_owned == c->cap_owned) {
    int cap = c->cap_owned * 2;
    TVMFFIObjectHandle* p = (TVMFFIObjectHandle*)malloc(sizeof(*p) * (size_t)cap);
    if (p == NULL) {
      TVMFFIObjectDecRef(h);
      PyErr_NoMemory();
      return -1;
    }
    memcpy(p, c->owned, sizeof(*p) * (size_t)c->n_owned);
    if (c->owned != c->owned_stack) free(c->owned);
    c->owned = p;
    c->cap_owned = cap;
  }
  c->owned[c->n_owned++] = h;
  return 0;
}

static int ctx_keep(CallCtx* c, PyObject* o) { /* steals o */
  if (c->temps == NULL && (c->temps = PyList_New(0)) == NULL) {
    Py_DECREF(o);
    return -1;
  }
  int rc = PyList_Append(c->temps, o);
  Py_DECREF(o);
  return rc;
}

/* Moves the pending Python exception out as a normalized instance. */
static PyObject* fetch_exception(void) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  if (t == NULL) return NULL;
  PyErr_NormalizeException(&t, &v, &tb);
  if (tb != NULL && v != NULL) PyException_SetTraceback(v, tb);
  Py_XDECREF(t);
  Py_XDECREF(tb);
  if (v == NULL) {
    Py_INCREF(Py_None);
    v = Py_None;
  }
  return v;
}

/* Drops an FFI error waiting in the slot (used when we replace it by a Python error). */
static void discard_ffi_error(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (err != NULL) TVMFFIObjectDecRef(err);
}

/* Offsets of the `_h` slot of CObject and the `release_gil` slot of Function,
 * measured by core.py (-1: unknown, use attribute lookup). Reading the slot
 * directly skips two generic attribute lookups per call. */
static Py_ssize_t g_off_h = -1, g_off_rg = -1;
static PyTypeObject* g_tensor_cls; /* core.Tensor; NULL unless g_off_h and g_off_view are known */
static PyTypeObject* g_function_cls;

/* ---- wrapper identity ("tying", docs/python.md §4.3) -------------------------
 * At most one live wrapper per object handle: an open-addressing table maps a
 * handle to its wrapper (a borrowed reference), consulted only when an object
 * is converted to Python.  A wrapper leaves the table in its __del__, before
 * dropping its reference, so an entry never outlives its wrapper (code that
 * rewrites a wrapper's `_h` must untie first: core._untie).  Only touched with
 * the GIL held.  Value-like kinds (Str, Bytes, Shape), tensors and opaque
 * Python objects are never tied.  Only owned results (call results, field
 * values, elements) are tied: a callback's argument view gets a wrapper of its
 * own, so a callback moving its argument (`x._move()`) cannot empty the
 * caller's wrapper. */
typedef struct {
  void* h;
  PyObject* w;
} tie_slot;
static tie_slot* g_ties;
static size_t g_ties_mask; /* capacity - 1 (capacity a power of two, 0 before first use) */
static size_t g_ties_n;

static int tieable(int32_t t) {
  return t >= kTVMFFIStaticObjectBegin && t != kTVMFFIStr && t != kTVMFFIBytes &&
         t != kTVMFFIShape && t != kTVMFFITensor && t != kTVMFFIOpaquePyObject &&
         t != kTVMFFIBigInt && g_off_h > 0;
}

static size_t tie_home(const void* h) {
  return (size_t)(((uint64_t)(uintptr_t)h * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & g_ties_mask;
}

static PyObject* tie_get(const void* h) {
  if (g_ties_n == 0) return NULL;
  for (size_t i = tie_home(h);; i = (i + 1) & g_ties_mask) {
    if (g_ties[i].h == h) return g_ties[i].w;
    if (g_ties[i].h == NULL) return NULL;
  }
}

static int tie_grow(void) {
  size_t old_cap = g_ties != NULL ? g_ties_mask + 1 : 0;
  size_t cap = old_cap ? old_cap * 2 : 256;
  tie_slot* t = (tie_slot*)calloc(cap, sizeof(tie_slot));
  if (t == NULL) return -1;
  tie_slot* old = g_ties;
  g_ties = t;
  g_ties_mask = cap - 1;
  for (size_t i = 0; i < old_cap; ++i) {
    if (old[i].h == NULL) continue;
    size_t j = tie_home(old[i].h);
    while (t[j].h != NULL) j = (j + 1) & g_ties_mask;
    t[j] = old[i];
  }
  free(old);
  return 0;
}

/* Ties w to h unless h has a wrapper already (out of memory only loses identity). */
static void tie_put(void* h, PyObject* w) {
  size_t cap = g_ties != NULL ? g_ties_mask + 1 : 0;
  if ((g_ties_n + 1) * 2 > cap && tie_grow() != 0) return;
  size_t i = tie_home(h);
  for (; g_ties[i].h != NULL; i = (i + 1) & g_ties_mask)
    if (g_ties[i].h == h) return;
  g_ties[i].h = h;
  g_ties[i].w = w;
  ++g_ties_n;
}

/* Unties h if its wrapper is w; backward-shift deletion keeps probe chains whole. */
static void tie_drop(const void* h, PyObject* w) {
  if (g_ties_n == 0) return;
  size_t i = tie_home(h);
  for (;; i = (i + 1) & g_ties_mask) {
    if (g_ties[i].h == NULL) return;
    if (g_ties[i].h == h) break;
  }
  if (g_ties[i].w != w) return;
  --g_ties_n;
  for (size_t j = (i + 1) & g_ties_mask; g_ties[j].h != NULL; j = (j + 1) & g_ties_mask) {
    size_t k = tie_home(g_ties[j].h);
    int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j); /* home in (i, j] */
    if (!stays) {
      g_ties[i] = g_ties[j];
      i = j;
    }
  }
  g_ties[i].h = NULL;
  g_ties[i].w = NULL;
}

/* The live wrapper of h as a new reference (dropping the owned reference of h), or NULL. */
static PyObject* tie_take(TVMFFIObject* h, int owned) {
  PyObject* w = tie_get(h);
  if (w == NULL) return NULL;
  PyObject* slot = *(PyObject**)((char*)w + g_off_h);
  if (slot == NULL || PyLong_AsVoidPtr(slot) != (void*)h) { /* stale: the wrapper moved on */
    PyErr_Clear();
    tie_drop(h, w);
    return NULL;
  }
  Py_INCREF(w);
  if (owned) TVMFFIObjectDecRef(h);
  return w;
}

/* Ties a freshly converted result r to h when r is a wrapper holding h. */
static void tie_result(TVMFFIObject* h, PyObject* r) {
  if (!PyObject_TypeCheck(r, (PyTypeObject*)g_cobject_cls)) return;
  PyObject* slot = *(PyObject**)((char*)r + g_off_h);
  if (slot != NULL && PyLong_AsVoidPtr(slot) == (void*)h) tie_put(h, r);
  PyErr_Clear();
}

/* A container met again in a call with framework tensors keeps converting them lazily. */
static PyObject* tie_retag(PyObject* w, int32_t tidx, PyObject* api_obj) {
  if (api_obj == NULL || !(tidx == kTVMFFIArray || tidx == kTVMFFIMap || tidx == kTVMFFIList ||
                           tidx == kTVMFFIDict))
    return w;
  PyObject* cur = PyObject_GetAttr(w, g_str_api);
  if (cur == Py_None) PyObject_SetAttr(w, g_str_api, api_obj);
  Py_XDECREF(cur);
  PyErr_Clear();
  return w;
}

/* Handles live in the wrappers' `_h` slot as Python ints.  PyLong_AsVoidPtr costs three
 * calls (sign check, unsigned conversion) per handle, a third of a nop call's conversion
 * work, so the hot paths read the int's 30-bit digits directly when TVMFFIPyInit verified
 * this interpreter's int layout (g_long_layout; anything unusual falls back to the API):
 * 1 = PyVarObject header, ob_size is the signed digit count (CPython <= 3.11);
 * 2 = lv_tag = digit count << 3 | sign bits (CPython >= 3.12). */
static int g_long_layout;

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
  if (nd == 0) *out = 0;
  else if (nd == 1) *out = d[0];
  else if (nd == 2) *out = (uintptr_t)d[0] | ((uintptr_t)d[1] << 30);
  else return 0;
  return 1;
}

static inline void* slot_handle(PyObject* o) { /* NULL with an exception on a bad value */
  uintptr_t v;
  if (g_long_layout != 0 && Py_TYPE(o) == &PyLong_Type && long_fast(o, g_long_layout, &v))
    return (void*)v;
  return PyLong_AsVoidPtr(o);
}

/* The layout whose fast decoding agrees with PyLong_AsVoidPtr on probe values (0: none). */
static int probe_long_layout(void) {
  static const unsigned long long probes[] = {0, 1, 0x3FFFFFFFull, 0x40000000ull,
                                              0x7FFF12345678ull, 0x0FFFFFFFFFFFFFFFull};
  PyObject* info = PyLong_GetInfo();
  PyObject* bits = info ? PyObject_GetAttrString(info, "bits_per_digit") : NULL;
  PyObject* size = info ? PyObject_GetAttrString(info, "sizeof_digit") : NULL;
  int ok = bits && size && PyLong_AsLong(bits) == 30 && PyLong_AsLong(size) == 4 &&
           sizeof(void*) == 8;
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

static int get_handle(PyObject* obj, TVMFFIObjectHandle* out) {
  if (g_off_h > 0 && (Py_TYPE(obj) == g_function_cls ||
                      PyObject_TypeCheck(obj, (PyTypeObject*)g_cobject_cls))) {
    PyObject* slot = *(PyObject**)((char*)obj + g_off_h);
    if (slot == NULL) {
      *out = NULL;
      return 0;
    }
    *out = slot_handle(slot);
    return (*out == NULL && PyErr_Occurred()) ? -1 : 0;
  }
  PyObject* h = PyObject_GetAttr(obj, g_str_h);
  if (h == NULL) return -1;
  *out = PyLong_AsVoidPtr(h);
  Py_DECREF(h);
  if (*out == NULL && PyErr_Occurred()) return -1;
  return 0;
}

static void set_pod(TVMFFIAny* out, int32_t tidx, int64_t payload) {
  out->type_index = tidx;
  out->zero_padding = 0;
  out->v_int64 = payload;
}

/* Returns 0, -1 (Python exception set) or -2 (FFI error in the slot). */
static int pack(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth);
static int from_dlpack_impl(PyObject* v, int32_t align, int32_t contig, PyObject** out);

/* Imports a "dltensor"/"dltensor_versioned" capsule into a new tensor and marks it used.
 * Returns 0, -1 (Python exception) or -2 (FFI error; the capsule is left unconsumed). */
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
      return -1;
    }
    if (TVMFFITensorFromDLPackVersioned(t, align, contig, out) != 0) return -2;
    PyCapsule_SetName(cap, "used_dltensor_versioned");
    PyCapsule_SetDestructor(cap, NULL);
    return 0;
  }
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor* t = (DLManagedTensor*)PyCapsule_GetPointer(cap, "dltensor");
    if (TVMFFITensorFromDLPack(t, align, contig, out) != 0) return -2;
    PyCapsule_SetName(cap, "used_dltensor");
    PyCapsule_SetDestructor(cap, NULL);
    return 0;
  }
  if (PyCapsule_CheckExact(cap)) {
    PyErr_SetString(PyExc_ValueError, "Expect a dltensor field, PyCapsule can only be consumed once");
    return -1;
  }
  /* only a producer's __dlpack__() hands us anything else */
  PyObject* tname = PyObject_GetAttrString((PyObject*)Py_TYPE(cap), "__name__");
  if (tname != NULL)
    PyErr_Format(PyExc_ValueError, "Expect a dltensor field: __dlpack__() returned %S, not a PyCapsule",
                 tname);
  Py_XDECREF(tname);
  return -1;
}

/* Rule 11: any other __dlpack__ producer (NumPy, CuPy, ...), called with no arguments. */
static int pack_dlpack(CallCtx* c, PyObject* v, TVMFFIAny* out) {
  PyObject* cap = PyObject_CallMethodObjArgs(v, g_str_dlpack, NULL);
  if (cap == NULL) return -1;
  TVMFFIObjectHandle h = NULL;
  int rc = consume_capsule(cap, 0, 0, &h);
  Py_DECREF(cap);
  if (rc != 0) return rc;
  if (ctx_own(c, h) != 0) return -1;
  out->type_index = kTVMFFITensor;
  out->zero_padding = 0;
  out->v_obj = (TVMFFIObject*)h;
  return 0;
}

/* A type's conversion rule, decoded once: the hot path reads C fields, not Python ints. */
typedef struct {
  PyTypeObject* tp;
  PyObject* rule;     /* borrowed from g_type_cache (the dict never drops entries) */
  long code;          /* RULE_* */
  PyObject* extra;    /* item 1 of a (rule, extra) tuple, else NULL (borrowed) */
  const DLPackExchangeAPI* api; /* RULE_EXCHANGE: the decoded extra */
  int has_dlpack;     /* the type has __dlpack__ (from_dlpack's fallback) */
} RuleEntry;

/* Direct-mapped front of g_type_cache. */
#define RULE_CACHE_SIZE 64
static RuleEntry g_rule_cache[RULE_CACHE_SIZE];

/* Copies the cached rule of a type into *out, classifying the type on first sight.
 * Copied, not pointed to: a nested conversion may evict the slot. Returns 0/-1. */
static int type_rule(PyTypeObject* tp, RuleEntry* out) {
  RuleEntry* e = &g_rule_cache[((uintptr_t)tp >> 4) & (RULE_CACHE_SIZE - 1)];
  if (e->tp == tp) {
    *out = *e;
    return 0;
  }
  PyObject* rule = PyDict_GetItemWithError(g_type_cache, (PyObject*)tp); /* borrowed */
  if (rule == NULL && PyErr_Occurred()) return -1;
  if (rule == NULL) {
    rule = PyObject_CallFunctionObjArgs(g_classify, (PyObject*)tp, NULL);
    if (rule == NULL) return -1;
    int rc = PyDict_SetItem(g_type_cache, (PyObject*)tp, rule);
    Py_DECREF(rule); /* the cache keeps both the type and the rule alive */
    if (rc != 0) return -1;
  }
  RuleEntry n;
  n.tp = tp;
  n.rule = rule;
  n.extra = NULL;
  n.api = NULL;
  if (PyTuple_CheckExact(rule) && PyTuple_Size(rule) == 2) {
    n.code = PyLong_AsLong(PyTuple_GetItem(rule, 0));
    n.extra = PyTuple_GetItem(rule, 1);
  } else {
    n.code = PyLong_AsLong(rule);
  }
  if (n.code == -1 && PyErr_Occurred()) return -1;
  if (n.code == RULE_EXCHANGE) {
    n.api = (const DLPackExchangeAPI*)PyLong_AsVoidPtr(n.extra);
    if (n.api == NULL) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Expect a dlpack_exchange_api field");
      return -1;
    }
  }
  n.has_dlpack = PyObject_HasAttr((PyObject*)tp, g_str_dlpack);
  *e = n;
  *out = n;
  return 0;
}

static int pack_bytes_like(CallCtx* c, int32_t big, int32_t small, const char* s, Py_ssize_t n,
                           TVMFFIAny* out) {
  if (n <= 7) {
    out->type_index = small;
    out->small_str_len = (uint32_t)n;
    out->v_int64 = 0;
    memcpy(out->v_bytes, s, (size_t)n);
    return 0;
  }
  TVMFFIByteArray ba;
  ba.data = s;
  ba.size = (size_t)n;
  int rc = big == kTVMFFIStr ? TVMFFIStringFromByteArray(&ba, out) : TVMFFIBytesFromByteArray(&ba, out);
  if (rc != 0) return -2;
  return ctx_own(c, out->v_obj);
}

/* list/tuple -> ffi.Array, dict -> ffi.Map, built by calling the global constructors. */
static int pack_container(CallCtx* c, PyObject* v, int is_map, TVMFFIAny* out, int depth) {
  PyObject* seq = NULL;
  Py_ssize_t n;
  if ((is_map ? g_fn_map : g_fn_array) == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: the runtime has no ffi.Array/ffi.Map");
    return -1;
  }
  if (is_map) {
    seq = PyObject_CallMethod(v, "items", NULL);
    if (seq == NULL) return -1;
    PyObject* lst = PySequence_List(seq);
    Py_DECREF(seq);
    if (lst == NULL) return -1;
    seq = lst;
    n = PyList_Size(seq) * 2;
  } else {
    Py_INCREF(v);
    seq = v;
    n = PySequence_Size(v);
    if (n < 0) {
      Py_DECREF(seq);
      return -1;
    }
  }
  TVMFFIAny stack[16];
  TVMFFIAny* items = n <= 16 ? stack : (TVMFFIAny*)malloc(sizeof(TVMFFIAny) * (size_t)n);
  int rc = 0;
  if (items == NULL) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < (is_map ? n / 2 : n) && rc == 0; ++i) {
    PyObject* item = PySequence_GetItem(seq, i);
    if (item == NULL) {
      rc = -1;
      break;
    }
    if (is_map) {
      PyObject* k = PySequence_GetItem(item, 0);
      PyObject* val = PySequence_GetItem(item, 1);
      if (k == NULL || val == NULL) {
        rc = -1;
      } else {
        rc = pack(c, k, &items[2 * i], depth + 1);
        if (rc == 0) rc = pack(c, val, &items[2 * i + 1], depth + 1);
      }
      Py_XDECREF(k);
      Py_XDECREF(val);
    } else {
      rc = pack(c, item, &items[i], depth + 1);
    }
    /* elements stay alive: the container keeps them, temporaries live in c */
    if (rc == 0 && (PyTuple_CheckExact(item) || PyList_CheckExact(item))) {
      Py_INCREF(item);
      rc = ctx_keep(c, item);
    }
    Py_DECREF(item);
  }
  if (rc == 0) {
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    if (TVMFFIFunctionCall(is_map ? g_fn_map : g_fn_array, items, (int32_t)n, &result) != 0) {
      rc = -2;
    } else {
      *out = result;
      rc = ctx_own(c, result.v_obj);
    }
  }
  if (items != stack) free(items);
  Py_DECREF(seq);
  return rc;
}

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
  if (((view_block*)self)->owns_ref && !g_finalizing && Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(o);
    PyGILState_Release(g);
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
    return -1;
  }
  if (TVMFFITensorFromDLPackVersioned(dlmt, 0, 0, &h) != 0) {
    discard_ffi_error();
    if (dlmt->deleter) dlmt->deleter(dlmt);
    PyErr_SetString(PyExc_BufferError, "Failed to convert DLManagedTensorVersioned to ffi.Tensor");
    return -1;
  }
  if (ctx_own(c, h) != 0) return -1; /* h (and the view) already released */
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
      return -1;
    }
    c->has_device = 1;
    c->dev_type = dev.device_type;
    c->dev_id = dev.device_id;
    c->stream = stream;
  }
  return 0;
}

/* Applies a slow-path result: a value, (type_index, payload) or
 * (value, (dev_type, dev_id) | None, stream, api_obj | None). */
static int pack_slow_result(CallCtx* c, PyObject* r, TVMFFIAny* out, int depth) {
  if (PyTuple_CheckExact(r) && PyTuple_Size(r) == 2) {
    long long tidx = PyLong_AsLongLong(PyTuple_GetItem(r, 0));
    unsigned long long payload = PyLong_AsUnsignedLongLongMask(PyTuple_GetItem(r, 1));
    if (PyErr_Occurred()) return -1;
    set_pod(out, (int32_t)tidx, (int64_t)payload);
    return 0;
  }
  if (PyTuple_CheckExact(r) && PyTuple_Size(r) == 4) {
    PyObject* dev = PyTuple_GetItem(r, 1);
    PyObject* api_obj = PyTuple_GetItem(r, 3);
    if (dev != Py_None && !c->has_device) {
      c->has_device = 1;
      c->dev_type = (int32_t)PyLong_AsLong(PyTuple_GetItem(dev, 0));
      c->dev_id = (int32_t)PyLong_AsLong(PyTuple_GetItem(dev, 1));
      c->stream = PyLong_AsVoidPtr(PyTuple_GetItem(r, 2));
      if (PyErr_Occurred()) return -1;
    }
    if (api_obj != Py_None) {
      c->api_obj = api_obj;
      c->api = PyLong_Check(api_obj) ? (const DLPackExchangeAPI*)PyLong_AsVoidPtr(api_obj) : NULL;
    }
    return pack(c, PyTuple_GetItem(r, 0), out, depth + 1);
  }
  return pack(c, r, out, depth + 1);
}

/* Converts v through the Python hook core._convert_slow. */
static int pack_slow(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth) {
  PyObject* r = PyObject_CallFunctionObjArgs(g_convert_slow, v, NULL);
  if (r == NULL) return -1;
  if (ctx_keep(c, r) != 0) return -1; /* r stays alive in temps until the call ends */
  return pack_slow_result(c, r, out, depth);
}

static int pack(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth) {
  PyTypeObject* tp = Py_TYPE(v);
  if (v == Py_None) {
    set_pod(out, kTVMFFINone, 0);
    return 0;
  }
  if (tp == &PyLong_Type) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (!overflow) {
      if (x == -1 && PyErr_Occurred()) return -1;
      set_pod(out, kTVMFFIInt, x);
      return 0;
    }
    return pack_slow(c, v, out, depth); /* beyond int64: the slow path makes an ffi.BigInt */
  }
  if (tp == &PyFloat_Type) {
    out->type_index = kTVMFFIFloat;
    out->zero_padding = 0;
    out->v_float64 = PyFloat_AsDouble(v);
    return 0;
  }
  if (tp == &PyBool_Type) {
    set_pod(out, kTVMFFIBool, v == Py_True);
    return 0;
  }
  if (tp == &PyUnicode_Type) {
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(v, &n);
    if (s == NULL) return -1;
    return pack_bytes_like(c, kTVMFFIStr, kTVMFFISmallStr, s, n, out);
  }
  if (tp == &PyBytes_Type) {
    char* s;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(v, &s, &n) != 0) return -1;
    return pack_bytes_like(c, kTVMFFIBytes, kTVMFFISmallBytes, s, n, out);
  }
  if (depth > 64) {
    PyErr_SetString(PyExc_RecursionError, "tvm_ffi: argument nesting is too deep");
    return -1;
  }
  if (tp == g_tensor_cls) { /* the hottest object argument: no rule lookup */
    PyObject* slot = *(PyObject**)((char*)v + g_off_h);
    TVMFFIObject* h = slot != NULL ? (TVMFFIObject*)slot_handle(slot) : NULL;
    if (h != NULL) {
      out->type_index = h->type_index;
      out->zero_padding = 0;
      out->v_obj = h;
      return 0;
    }
    if (PyErr_Occurred()) return -1; /* else a view or empty wrapper: the rule decides */
  }
  if (tp == &PyTuple_Type || tp == &PyList_Type) return pack_container(c, v, 0, out, depth);
  if (tp == &PyDict_Type) return pack_container(c, v, 1, out, depth);

  RuleEntry rule;
  if (type_rule(tp, &rule) != 0) return -1;
  long code = rule.code;
  switch (code) {
    case RULE_OBJECT:
    case RULE_CONTAINER: {
      TVMFFIObjectHandle h;
      if (g_off_h > 0) { /* a CObject subclass: `_h` sits at the base class's offset */
        PyObject* slot = *(PyObject**)((char*)v + g_off_h);
        h = slot == NULL ? NULL : slot_handle(slot);
        if (h == NULL && PyErr_Occurred()) return -1;
      } else if (get_handle(v, &h) != 0) {
        return -1;
      }
      if (h == NULL) break; /* empty wrapper or tensor view: slow path decides */
      out->type_index = ((TVMFFIObject*)h)->type_index;
      out->zero_padding = 0;
      out->v_obj = (TVMFFIObject*)h;
      if (code == RULE_CONTAINER && c->api_obj == NULL) {
        PyObject* tag = PyObject_GetAttr(v, g_str_api);
        if (tag == NULL) return -1;
        if (tag != Py_None) {
          c->api_obj = tag;
          c->api = PyLong_Check(tag) ? (const DLPackExchangeAPI*)PyLong_AsVoidPtr(tag) : NULL;
        }
        return ctx_keep(c, tag);
      }
      return 0;
    }
    case RULE_EXCHANGE:
      return pack_exchange(c, v, rule.extra, rule.api, out);
    case RULE_DLPACK:
      return pack_dlpack(c, v, out);
    case RULE_POD: {
      PyObject* pod = PyObject_GetAttr(v, g_str_pod);
      if (pod == NULL) return -1;
      int rc = pack_slow_result(c, pod, out, depth);
      Py_DECREF(pod);
      return rc;
    }
    default:
      break;
  }
  return pack_slow(c, v, out, depth);
}

/* pack() with the commonest arguments (exact tvm_ffi.Tensor wrappers, non-negative ints)
 * inlined into the call loop: a type check and a handle or digit read. */
static inline int pack_arg(CallCtx* c, PyObject* v, TVMFFIAny* out) {
  PyTypeObject* tp = Py_TYPE(v);
  uintptr_t x;
  if (tp == g_tensor_cls) {
    PyObject* slot = *(PyObject**)((char*)v + g_off_h);
    if (slot != NULL && g_long_layout != 0 && Py_TYPE(slot) == &PyLong_Type &&
        long_fast(slot, g_long_layout, &x) && x != 0) {
      out->type_index = ((TVMFFIObject*)x)->type_index;
      out->zero_padding = 0;
      out->v_obj = (TVMFFIObject*)x;
      return 0;
    }
  } else if (tp == &PyLong_Type && g_long_layout != 0 && long_fast(v, g_long_layout, &x)) {
    set_pod(out, kTVMFFIInt, (int64_t)x);
    return 0;
  }
  return pack(c, v, out, 0);
}

/* ---- object wrappers built in C ----------------------------------------
 * Results of registered object types are wrapped here instead of by the
 * Python hook _ret_obj when their class allows it: core._wrapper_kind(cls)
 * says (once per class) whether a wrapper is only its `_h` slot (1) or a
 * container with a `_tvm_api` slot at the given offset (2); anything else
 * (custom __new__, unregistered types) still goes through Python. */
static PyObject* g_type_cls_dict; /* core._TYPE_CLS: type index -> class (read live) */
static PyObject* g_wrapper_kind;  /* core._wrapper_kind(cls) -> (kind, slot offset) */
static PyObject* g_kind_cache;    /* class -> (kind, slot offset) */

/* A new wrapper of h (reference moved in when owned), NULL without an exception when the
 * type's class needs Python, or NULL with an exception (h's owned reference dropped). */
static PyObject* fast_wrapper(int32_t tidx, TVMFFIObject* h, int owned, PyObject* api_obj) {
  if (g_type_cls_dict == NULL || g_off_h <= 0) return NULL;
  PyObject* key = PyLong_FromLong(tidx);
  PyObject* cls = key ? PyDict_GetItemWithError(g_type_cls_dict, key) : NULL; /* borrowed */
  Py_XDECREF(key);
  if (cls == NULL || !PyType_Check(cls)) {
    PyErr_Clear();
    return NULL;
  }
  PyObject* kind = PyDict_GetItemWithError(g_kind_cache, cls); /* borrowed */
  if (kind == NULL) {
    if (PyErr_Occurred() || (kind = PyObject_CallFunctionObjArgs(g_wrapper_kind, cls, NULL)) == NULL) {
      PyErr_Clear();
      return NULL;
    }
    int rc = PyDict_SetItem(g_kind_cache, cls, kind);
    Py_DECREF(kind); /* the cache keeps it */
    if (rc != 0 || !PyTuple_Check(kind) || PyTuple_Size(kind) != 2) {
      PyErr_Clear();
      return NULL;
    }
  }
  long k = PyLong_AsLong(PyTuple_GetItem(kind, 0));
  Py_ssize_t off = PyLong_AsSsize_t(PyTuple_GetItem(kind, 1));
  if (PyErr_Occurred() || !(k == 1 || (k == 2 && off > 0))) {
    PyErr_Clear();
    return NULL;
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject*)cls, Py_tp_alloc);
  PyObject* o = alloc ? alloc((PyTypeObject*)cls, 0) : NULL;
  PyObject* hv = o ? PyLong_FromVoidPtr(h) : NULL;
  if (hv == NULL) {
    Py_XDECREF(o);
    if (owned) TVMFFIObjectDecRef(h);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return NULL;
  }
  if (!owned) TVMFFIObjectIncRef(h);
  *(PyObject**)((char*)o + g_off_h) = hv;
  if (k == 2) { /* CContainerBase: the exchange API of the call's framework tensors, or None */
    int is_container = tidx == kTVMFFIArray || tidx == kTVMFFIMap || tidx == kTVMFFIList ||
                       tidx == kTVMFFIDict;
    PyObject* api = api_obj != NULL && is_container ? api_obj : Py_None;
    Py_INCREF(api);
    *(PyObject**)((char*)o + off) = api;
  }
  return o;
}

int TVMFFIPyInitObjects(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* dict = PyTuple_GetItem(box, 0);
  PyObject* hook = PyTuple_GetItem(box, 1);
  if (dict == NULL || hook == NULL || !PyDict_Check(dict)) {
    PyErr_Clear();
    return -1;
  }
  if (g_kind_cache == NULL && (g_kind_cache = PyDict_New()) == NULL) {
    PyErr_Clear();
    return -1;
  }
  Py_INCREF(dict);
  Py_INCREF(hook);
  Py_XDECREF(g_type_cls_dict);
  Py_XDECREF(g_wrapper_kind);
  g_type_cls_dict = dict;
  g_wrapper_kind = hook;
  PyDict_Clear(g_kind_cache);
  return 0;
}

/* Forgets what _wrapper_kind said about cls (a class whose __new__ changed). */
void TVMFFIPyForgetWrapperKind(intptr_t cls) {
  if (g_kind_cache != NULL && PyDict_DelItem(g_kind_cache, (PyObject*)cls) != 0) PyErr_Clear();
}

/* ---- FFI value -> Python ------------------------------------------------ */

/* Wrappers of the two hottest result classes are built here instead of in _ret_obj:
 * allocate, then fill both slots (`_h` and the class's second slot). */
/* g_tensor_cls (core.Tensor, NULL when its slot offsets are unknown) is declared above */
static PyObject* g_tensor_cls_box;   /* core._CLASS_TENSOR_BOX: [current tensor class] */
static Py_ssize_t g_off_view = -1;   /* Tensor._view */
static PyObject* g_zero;
static PyObject* g_release_default = Py_True; /* Function.release_gil of new wrappers */

static PyObject* new_wrapper(PyTypeObject* tp, TVMFFIObject* h, int owned, Py_ssize_t off2,
                             PyObject* v2) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  PyObject* o = alloc ? alloc(tp, 0) : NULL;
  PyObject* hv = o ? PyLong_FromVoidPtr(h) : NULL;
  if (hv == NULL) {
    Py_XDECREF(o);
    if (owned) TVMFFIObjectDecRef(h);
    return NULL;
  }
  if (!owned) TVMFFIObjectIncRef(h);
  *(PyObject**)((char*)o + g_off_h) = hv;
  Py_INCREF(v2);
  *(PyObject**)((char*)o + off2) = v2;
  return o;
}

static PyObject* from_any(TVMFFIAny* v, int owned, PyObject* api_obj, const DLPackExchangeAPI* api) {
  int32_t tidx = v->type_index;
  switch (tidx) {
    case kTVMFFINone:
      Py_RETURN_NONE;
    case kTVMFFIInt:
      return PyLong_FromLongLong(v->v_int64);
    case kTVMFFIBool:
      return PyBool_FromLong(v->v_int64 != 0);
    case kTVMFFIFloat:
      return PyFloat_FromDouble(v->v_float64);
    case kTVMFFISmallStr:
      return PyUnicode_DecodeUTF8(v->v_bytes, v->small_str_len, "surrogateescape");
    case kTVMFFISmallBytes:
      return PyBytes_FromStringAndSize(v->v_bytes, v->small_str_len);
    case kTVMFFIRawStr:
      if (owned) break;
      return PyUnicode_DecodeUTF8(v->v_c_str, (Py_ssize_t)strlen(v->v_c_str), "surrogateescape");
    case kTVMFFIByteArrayPtr: {
      if (owned) break;
      const TVMFFIByteArray* ba = (const TVMFFIByteArray*)v->v_ptr;
      return PyBytes_FromStringAndSize(ba->data, (Py_ssize_t)ba->size);
    }
    case kTVMFFIObjectRValueRef: {
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
    case kTVMFFIOpaquePyObject: {
      PyObject* o = (PyObject*)TVMFFIOpaqueObjectGetCellPtr(v->v_obj)->handle;
      Py_INCREF(o);
      if (owned) TVMFFIObjectDecRef(v->v_obj);
      return o;
    }
    case kTVMFFITensor:
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
      if (g_tensor_cls != NULL && api_obj == NULL &&
          PyList_GetItem(g_tensor_cls_box, 0) == (PyObject*)g_tensor_cls)
        return new_wrapper(g_tensor_cls, v->v_obj, owned, g_off_view, g_zero);
      break;
    case kTVMFFIFunction:
      if (g_function_cls != NULL) {
        PyObject* w = owned ? tie_take(v->v_obj, owned) : NULL;
        if (w == NULL) {
          w = new_wrapper(g_function_cls, v->v_obj, owned, g_off_rg, g_release_default);
          if (w != NULL && owned) tie_put(v->v_obj, w);
        }
        return w;
      }
      break;
    default:
      break;
  }
  if (tidx == kTVMFFIRawStr || tidx == kTVMFFIByteArrayPtr || tidx == kTVMFFIObjectRValueRef) {
    PyErr_Format(PyExc_ValueError, "Return value cannot be %s",
                 tidx == kTVMFFIRawStr ? "RawStr" : tidx == kTVMFFIByteArrayPtr ? "ByteArrayPtr"
                                                                                : "ObjectRValueRef");
    return NULL;
  }
  int tie = owned && tieable(tidx);
  if (tie) {
    PyObject* w = tie_take(v->v_obj, owned);
    if (w != NULL) return tie_retag(w, tidx, api_obj);
  }
  if (tidx >= kTVMFFIStaticObjectBegin && tidx != kTVMFFIStr && tidx != kTVMFFIBytes &&
      tidx != kTVMFFIShape && tidx != kTVMFFITensor && tidx != kTVMFFIOpaquePyObject &&
      tidx != kTVMFFIBigInt) {
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
    r = PyObject_CallFunctionObjArgs(g_ret_obj, ti, payload, api_obj ? api_obj : Py_None, NULL);
  else if (tidx >= kTVMFFIStaticObjectBegin)
    TVMFFIObjectDecRef(v->v_obj);
  Py_XDECREF(ti);
  Py_XDECREF(payload);
  if (tie && r != NULL) tie_result(v->v_obj, r);
  return r;
}

/* ---- boxes ------------------------------------------------------------- */

static PyObject* box_get(PyObject* box) {
  return PyTuple_CheckExact(box) ? PyTuple_GetItem(box, 0) : PyList_GetItem(box, 0);
}

static int box_set(PyObject* box, PyObject* value) { /* steals value */
  return PyTuple_CheckExact(box) ? PyTuple_SetItem(box, 0, value) : PyList_SetItem(box, 0, value);
}

static int box_shared(PyObject* box) { return PyTuple_CheckExact(box) && Py_REFCNT(box) != 1; }

/* Python exceptions raised inside an entry point wait here (per thread) until
 * TVMFFIPyTakeException; kept out of the box so that no frame holding the box
 * ends up in a reference cycle with the exception's traceback. */
static _Thread_local PyObject* t_pending_exc;

/* Moves the pending Python exception to the thread's slot; returns code. */
static int box_exception(PyObject* box, int code) {
  (void)box;
  PyObject* e = fetch_exception();
  if (e == NULL) e = PyObject_CallFunction(PyExc_RuntimeError, "s", "tvm_ffi: error without exception");
  if (e == NULL) e = fetch_exception();
  Py_XDECREF(t_pending_exc);
  t_pending_exc = e;
  return code;
}

int TVMFFIPyTakeException(intptr_t box_id) {
  PyObject* e = t_pending_exc;
  t_pending_exc = NULL;
  if (e == NULL) return 1;
  box_set((PyObject*)box_id, e);
  return 0;
}

typedef struct _frame PyFrameObject_;
/* Not in the limited API but exported by every CPython 3: a frame with no f_back. */
PyAPI_FUNC(PyFrameObject_*) PyFrame_New(PyThreadState*, PyCodeObject*, PyObject*, PyObject*);

int TVMFFIPyFrameNew(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* code = PyList_GetItem(box, 0);
  PyObject* globals = PyList_GetItem(box, 1);
  PyObject* f = (PyObject*)PyFrame_New(PyThreadState_Get(), (PyCodeObject*)code, globals, NULL);
  if (f == NULL) return box_exception(box, 2);
  box_set(box, f);
  return 0;
}

/* ---- entry points ---------------------------------------------------- */

int TVMFFIPyInit(intptr_t config) {
  PyObject* cfg = (PyObject*)config;
  if (!PyTuple_CheckExact(cfg) || PyTuple_Size(cfg) != 15) return -1;
  g_release_default = PyObject_IsTrue(PyTuple_GetItem(cfg, 14)) ? Py_True : Py_False;
  g_off_h = PyLong_AsSsize_t(PyTuple_GetItem(cfg, 8));
  g_off_rg = PyLong_AsSsize_t(PyTuple_GetItem(cfg, 9));
  g_tensor_cls = (PyTypeObject*)PyTuple_GetItem(cfg, 11);
  Py_INCREF(g_tensor_cls);
  g_tensor_cls_box = PyTuple_GetItem(cfg, 12);
  Py_INCREF(g_tensor_cls_box);
  g_off_view = PyLong_AsSsize_t(PyTuple_GetItem(cfg, 13));
  if (g_zero == NULL) g_zero = PyLong_FromLong(0);
  if (g_off_view <= 0 || g_off_h <= 0) g_tensor_cls = NULL;
  g_off_h = PyLong_AsSsize_t(PyTuple_GetItem(cfg, 8));
  g_off_rg = PyLong_AsSsize_t(PyTuple_GetItem(cfg, 9));
  g_function_cls = (PyTypeObject*)PyTuple_GetItem(cfg, 10);
  Py_INCREF(g_function_cls);
  if (g_off_rg <= 0 || g_off_h <= 0) g_function_cls = NULL;
  PyObject** slots[] = {&g_cobject_cls, &g_classify, &g_convert_slow, &g_ret_obj,
                        &g_exc_to_error, &g_test_wrapper};
  for (int i = 0; i < 6; ++i) {
    PyObject* o = PyTuple_GetItem(cfg, i);
    PyObject* old = *slots[i];
    Py_INCREF(o);
    *slots[i] = o;
    Py_XDECREF(old);
  }
  g_fn_array = PyLong_AsVoidPtr(PyTuple_GetItem(cfg, 6));
  g_fn_map = PyLong_AsVoidPtr(PyTuple_GetItem(cfg, 7));
  if (g_fn_array != NULL) TVMFFIObjectIncRef(g_fn_array);
  if (g_fn_map != NULL) TVMFFIObjectIncRef(g_fn_map);
  if (g_type_cache == NULL) g_type_cache = PyDict_New();
  g_long_layout = probe_long_layout();
  if (g_str_h == NULL) {
    g_str_h = PyUnicode_InternFromString("_h");
    g_str_release_gil = PyUnicode_InternFromString("release_gil");
    g_str_pod = PyUnicode_InternFromString("__tvm_ffi_pod__");
    g_str_api = PyUnicode_InternFromString("_tvm_api");
    g_str_tensor = PyUnicode_InternFromString("_tensor");
    g_str_dlpack = PyUnicode_InternFromString("__dlpack__");
  }
  /* DLTensorTestWrapper's class attribute, made here so that core.py needs no ctypes */
  PyObject* cap = PyCapsule_New((void*)&g_test_api, "dlpack_exchange_api", NULL);
  if (cap != NULL) {
    PyObject_SetAttrString(g_test_wrapper, "__dlpack_c_exchange_api__", cap);
    Py_DECREF(cap);
  }
  TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", (void*)PyErr_CheckSignals);
  TVMFFIEnvRegisterCAPI("PyGILState_Ensure", (void*)PyGILState_Ensure);
  TVMFFIEnvRegisterCAPI("PyGILState_Release", (void*)PyGILState_Release);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return -1;
  }
  return 0;
}

void TVMFFIPySetFinalizing(void) { g_finalizing = 1; }

void TVMFFIPyDecRef(intptr_t handle) { TVMFFIObjectDecRef((TVMFFIObjectHandle)handle); }

/* The call itself: self is the Function wrapper, items[0..n) the Python arguments.
 * Returns 0 with *out set, -1 with a Python exception set, or -2 with an FFI error in
 * the raised-error slot (and possibly a Python exception pending: EnvErrorAlreadySet). */
static int call_items(PyObject* self, PyObject* const* items, Py_ssize_t n_items, PyObject** out) {
  TVMFFIObjectHandle fh;
  uintptr_t hv;
  PyObject* hslot;
  if (Py_TYPE(self) == g_function_cls && (hslot = *(PyObject**)((char*)self + g_off_h)) != NULL &&
      g_long_layout != 0 && Py_TYPE(hslot) == &PyLong_Type && long_fast(hslot, g_long_layout, &hv)) {
    fh = (TVMFFIObjectHandle)hv; /* the common case, inlined */
  } else if (get_handle(self, &fh) != 0) {
    return -1;
  }
  if (fh == NULL) {
    PyErr_SetString(PyExc_ValueError, "tvm_ffi: calling a Function with a NULL handle");
    return -1;
  }
  int release = 1;
  if (g_function_cls != NULL &&
      (Py_TYPE(self) == g_function_cls || PyObject_TypeCheck(self, g_function_cls))) {

    PyObject* rg = *(PyObject**)((char*)self + g_off_rg); /* borrowed; NULL when unset */
    release = rg == NULL || rg == Py_True;
  } else {
    PyObject* rg = PyObject_GetAttr(self, g_str_release_gil);
    if (rg == NULL) {
      PyErr_Clear();
    } else {
      release = rg == Py_True;
      Py_DECREF(rg);
    }
  }
  int32_t n = (int32_t)n_items;
  TVMFFIAny stack[8];
  TVMFFIAny* args = n <= 8 ? stack : (TVMFFIAny*)malloc(sizeof(TVMFFIAny) * (size_t)n);
  if (args == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  CallCtx c;
  ctx_init(&c);
  int rc = 0;
  for (int32_t i = 0; i < n && rc == 0; ++i) rc = pack_arg(&c, items[i], &args[i]);
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  if (rc == 0) {
    TVMFFIStreamHandle prev_stream = NULL;
    DLPackManagedTensorAllocator prev_alloc = NULL;
    DLPackManagedTensorAllocator alloc = c.api ? c.api->managed_tensor_allocator : NULL;
    int stream_set = 0;
    if (c.has_device) {
      if (TVMFFIEnvSetStream(c.dev_type, c.dev_id, c.stream, &prev_stream) != 0) rc = -2;
      else stream_set = 1;
    }
    if (rc == 0 && alloc != NULL) TVMFFIEnvSetDLPackManagedTensorAllocator(alloc, 0, &prev_alloc);
    if (rc == 0) {
      if (release) {
        PyThreadState* ts = PyEval_SaveThread();
        rc = TVMFFIFunctionCall(fh, args, n, &result) == 0 ? 0 : -2;
        PyEval_RestoreThread(ts);
      } else {
        rc = TVMFFIFunctionCall(fh, args, n, &result) == 0 ? 0 : -2;
      }
    }
    if (alloc != NULL && prev_alloc != alloc) {
      if (TVMFFIEnvSetDLPackManagedTensorAllocator(prev_alloc, 0, NULL) != 0 && rc == 0) {
        discard_ffi_error();
        PyErr_SetString(PyExc_RuntimeError, "Failed to recover DLPack managed tensor allocator");
        rc = -1;
      }
    }
    if (stream_set && prev_stream != c.stream) {
      if (TVMFFIEnvSetStream(c.dev_type, c.dev_id, prev_stream, NULL) != 0 && rc == 0) {
        discard_ffi_error();
        PyErr_SetString(PyExc_RuntimeError, "Failed to recover stream");
        rc = -1;
      }
    }
  }
  if (args != stack) free(args);
  if (rc == 0 && result.type_index == kTVMFFINone) {
    Py_INCREF(Py_None);
    *out = Py_None;
  } else if (rc == 0) {
    *out = from_any(&result, 1, c.api_obj, c.api);
    if (*out == NULL) rc = -1;
  }
  if (c.n_views != 0 || c.n_owned != 0 || c.temps != NULL) ctx_release(&c);
  return rc;
}

int TVMFFIPyCall(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  if (box_shared(box)) return -1;
  int is_tuple = PyTuple_CheckExact(box);
  Py_ssize_t size = is_tuple ? PyTuple_Size(box) : PyList_Size(box);
  if (size < 1) {
    PyErr_SetString(PyExc_TypeError, "tvm_ffi: call box without a function");
    return box_exception(box, 2);
  }
  PyObject* stack[9] = {NULL};
  PyObject** items = size <= 9 ? stack : (PyObject**)malloc(sizeof(PyObject*) * (size_t)size);
  if (items == NULL) {
    PyErr_NoMemory();
    return box_exception(box, 2);
  }
  for (Py_ssize_t i = 0; i < size; ++i)
    items[i] = is_tuple ? PyTuple_GetItem(box, i) : PyList_GetItem(box, i); /* borrowed */
  PyObject* out = NULL;
  int rc = call_items(items[0], items + 1, size - 1, &out);
  if (items != stack) free(items);
  if (rc == -2) return PyErr_Occurred() ? box_exception(box, 3) : 1;
  if (rc == -1) return box_exception(box, 2);
  box_set(box, out);
  return 0;
}

/* Function.__call__ as a method descriptor (METH_FASTCALL): the arguments arrive as a C
 * array with no Python frame, no id() and no cffi conversion in between.  Errors are
 * turned into exceptions by the Python hook g_call_error (kind mapping, traceback). */
static PyObject* g_call_error;

static PyObject* function_call_fastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* out = NULL;
  int rc = call_items(self, args, nargs, &out);
  if (rc == 0) return out;
  if (rc == -2) {
    PyObject* pending = PyErr_Occurred() ? fetch_exception() : NULL;
    PyObject* exc = PyObject_CallFunctionObjArgs(g_call_error, pending ? pending : Py_None, NULL);
    Py_XDECREF(pending);
    if (exc != NULL) {
      PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
      Py_DECREF(exc);
    }
  }
  return NULL;
}

static PyMethodDef g_call_def = {"__call__", (PyCFunction)(void (*)(void))function_call_fastcall,
                                 METH_FASTCALL, "Call the FFI function with positional arguments."};

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
      PyErr_Format(PyExc_TypeError, "from_dlpack() got an unexpected keyword argument '%s'", k ? k : "?");
      return NULL;
    }
  }
  PyObject* out = NULL;
  int rc = from_dlpack_impl(args[0], (int32_t)align, contig, &out);
  if (rc == 0) return out;
  if (rc == -2) {
    PyObject* exc = PyObject_CallFunctionObjArgs(g_call_error, Py_None, NULL);
    if (exc != NULL) {
      PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
      Py_DECREF(exc);
    }
  }
  return NULL;
}

static PyMethodDef g_from_dlpack_def = {
    "from_dlpack", (PyCFunction)(void (*)(void))py_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
    "from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False)\n--\n\n"
    "Import a DLPack producer (exchange API, __dlpack__ or a capsule) as a Tensor without copying."};

/* CObject.__del__ in C: drop the wrapper's reference without a Python frame. */
static PyObject* cobject_del(PyObject* self, PyObject* unused) {
  (void)unused;
  PyObject** slot = (PyObject**)((char*)self + g_off_h);
  PyObject* hv = *slot;
  if (hv == NULL) Py_RETURN_NONE;
  void* h = PyLong_AsVoidPtr(hv);
  if (h == NULL) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  Py_INCREF(g_zero);
  *slot = g_zero;
  Py_DECREF(hv);
  tie_drop(h, self);
  TVMFFIObjectDecRef(h);
  Py_RETURN_NONE;
}

static PyMethodDef g_del_def = {"__del__", cobject_del, METH_NOARGS,
                                "Drop the reference this wrapper owns."};

int TVMFFIPyMakeBuiltins(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id; /* [CObject class] -> [from_dlpack, __del__ descriptor] */
  PyObject* cls = PyList_GetItem(box, 0);
  if (g_off_h <= 0) {
    PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: slot offsets unknown");
    return box_exception(box, 2);
  }
  PyObject* f = PyCFunction_NewEx(&g_from_dlpack_def, NULL, NULL);
  PyObject* d = f ? PyDescr_NewMethod((PyTypeObject*)cls, &g_del_def) : NULL;
  if (d == NULL) {
    Py_XDECREF(f);
    return box_exception(box, 2);
  }
  PyList_SetItem(box, 0, f);
  if (PyList_Append(box, d) != 0) {
    Py_DECREF(d);
    return box_exception(box, 2);
  }
  Py_DECREF(d);
  return 0;
}

static PyObject* g_call_descr; /* the descriptor made below (identity check) */

int TVMFFIPyMakeCallDescriptor(intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* cls = PyList_GetItem(box, 0);
  Py_XDECREF(g_call_error);
  g_call_error = PyList_GetItem(box, 1);
  Py_INCREF(g_call_error);
  PyObject* d = PyDescr_NewMethod((PyTypeObject*)cls, &g_call_def);
  if (d == NULL) return box_exception(box, 2);
  Py_XDECREF(g_call_descr);
  Py_INCREF(d);
  g_call_descr = d;
  box_set(box, d);
  return 0;
}

/* Function's tp_call.  With the descriptor as Function.__call__, CPython's generic
 * slot_tp_call looks the method up in the type, re-packs the argument tuple with self in
 * front and dispatches to the descriptor: ~200 instructions, an eighth of a nop() call.
 * This slot goes straight to the call; the tuple is the one the interpreter built anyway. */
static PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs != NULL && PyDict_Size(kwargs) != 0) {
    PyErr_SetString(PyExc_TypeError, "Function.__call__() takes no keyword arguments");
    return NULL;
  }
  Py_ssize_t n = PyTuple_Size(args);
  if (n < 0) return NULL;
  PyObject* stack[8] = {NULL}; /* initialised: gcc warns about a const view of it otherwise */
  PyObject** items = n <= 8 ? stack : (PyObject**)malloc(sizeof(PyObject*) * (size_t)n);
  if (items == NULL) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; ++i) items[i] = PyTuple_GetItem(args, i); /* borrowed */
  PyObject* r = function_call_fastcall(self, items, n);
  if (items != stack) free(items);
  return r;
}

int TVMFFIPyInstallCallSlot(intptr_t cls_id) {
#if defined(PYPY_VERSION)
  (void)cls_id;
  return 1;
#else
  /* The limited API has no setter for a slot of an existing type, so the slot is written in
   * place, after checking that the type object has CPython's PyTypeObject layout (tp_repr,
   * tp_hash, tp_call where PyType_GetSlot says) and that tp_call still dispatches to our
   * descriptor.  Reassigning Function.__call__ later restores CPython's own slot. */
  PyTypeObject* tp = (PyTypeObject*)cls_id;
  void** words = (void**)tp;
  void* call = PyType_GetSlot(tp, Py_tp_call);
  void* repr = PyType_GetSlot(tp, Py_tp_repr);
  void* hash = PyType_GetSlot(tp, Py_tp_hash);
  PyObject* cur = PyObject_GetAttrString((PyObject*)tp, "__call__");
  int ok = call != NULL && words[16] == call && words[11] == repr && words[15] == hash &&
           cur != NULL && cur == g_call_descr;
  Py_XDECREF(cur);
  PyErr_Clear();
  if (!ok) return 1;
  words[16] = (void*)function_tp_call;
  PyType_Modified(tp);
  return 0;
#endif
}

int TVMFFIPyToAny(intptr_t box_id, TVMFFIAny* out) {
  PyObject* box = (PyObject*)box_id;
  CallCtx c;
  ctx_init(&c);
  TVMFFIAny view;
  int rc = pack(&c, box_get(box), &view, 0);
  if (rc == 0 && TVMFFIAnyViewToOwnedAny(&view, out) != 0) rc = -2;
  ctx_release(&c);
  if (rc == -2) return 1;
  if (rc == -1) return box_exception(box, 2);
  return 0;
}

int TVMFFIPyFromAny(TVMFFIAny* value, int32_t owned, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* r = from_any(value, owned, NULL, NULL);
  if (r == NULL) return box_exception(box, 2);
  box_set(box, r);
  return 0;
}

/* ---- identity table entry points (core.py) ------------------------------ */

void TVMFFIPyTie(intptr_t wrapper, intptr_t handle) {
  if (handle != 0 && g_off_h > 0) tie_put((void*)handle, (PyObject*)wrapper);
}

void TVMFFIPyUntie(intptr_t wrapper, intptr_t handle) {
  tie_drop((void*)handle, (PyObject*)wrapper);
}

void TVMFFIPyDropHandle(intptr_t wrapper, intptr_t handle) {
  tie_drop((void*)handle, (PyObject*)wrapper);
  TVMFFIObjectDecRef((TVMFFIObjectHandle)handle);
}

int TVMFFIPyTiedWrapper(intptr_t handle, intptr_t box_id) {
  PyObject* w = tie_get((void*)handle);
  if (w == NULL) w = Py_None;
  Py_INCREF(w);
  box_set((PyObject*)box_id, w);
  return 0;
}

int64_t TVMFFIPyTiedCount(void) { return (int64_t)g_ties_n; }

/* ---- reflected field getters (properties of registered classes) -------- */

typedef struct {
  TVMFFIFieldGetter getter;
  int64_t offset;
} field_ref;

static PyObject* g_field_error; /* core._raised_exception(): the raised FFI error as an exception */

static void field_ref_free(PyObject* cap) { free(PyCapsule_GetPointer(cap, "tvm_ffi.field")); }

/* fget(obj): the field at handle + offset through the C getter, converted as an owned result
 * (so object fields come back as their live wrapper).  One C call instead of four Python-level
 * steps. */
static PyObject* field_get(PyObject* self, PyObject* obj) {
  const field_ref* f = (const field_ref*)PyCapsule_GetPointer(self, "tvm_ffi.field");
  if (f == NULL) return NULL;
  if (!PyObject_TypeCheck(obj, (PyTypeObject*)g_cobject_cls)) {
    PyErr_Format(PyExc_TypeError, "a field getter needs a tvm_ffi object, got %R",
                 (PyObject*)Py_TYPE(obj));
    return NULL;
  }
  TVMFFIObjectHandle h;
  if (get_handle(obj, &h) != 0) return NULL;
  if (h == NULL) {
    PyErr_SetString(PyExc_ValueError, "cannot read a field: the object's handle is empty");
    return NULL;
  }
  TVMFFIAny v;
  v.type_index = kTVMFFINone;
  v.zero_padding = 0;
  v.v_int64 = 0;
  if (f->getter((char*)h + f->offset, &v) != 0) {
    PyObject* exc = g_field_error ? PyObject_CallFunctionObjArgs(g_field_error, NULL) : NULL;
    if (exc != NULL) {
      PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
      Py_DECREF(exc);
    } else if (!PyErr_Occurred()) {
      discard_ffi_error();
      PyErr_SetString(PyExc_RuntimeError, "tvm_ffi: a field getter failed");
    }
    return NULL;
  }
  return from_any(&v, 1, NULL, NULL);
}

/* no docstring: a property without one takes its getter's, and a field's doc is its own */
static PyMethodDef g_field_get_def = {"field_getter", field_get, METH_O, NULL};

int TVMFFIPyMakeFieldGetter(intptr_t getter, int64_t offset, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* hook = PyList_GetItem(box, 1);
  if (hook == NULL || getter == 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tvm_ffi: bad field getter request");
    return box_exception(box, 2);
  }
  if (hook != g_field_error) {
    Py_INCREF(hook);
    Py_XDECREF(g_field_error);
    g_field_error = hook;
  }
  field_ref* f = (field_ref*)malloc(sizeof(field_ref));
  if (f == NULL) {
    PyErr_NoMemory();
    return box_exception(box, 2);
  }
  f->getter = (TVMFFIFieldGetter)getter;
  f->offset = offset;
  PyObject* cap = PyCapsule_New(f, "tvm_ffi.field", field_ref_free);
  if (cap == NULL) {
    free(f);
    return box_exception(box, 2);
  }
  PyObject* fn = PyCFunction_NewEx(&g_field_get_def, cap, NULL);
  Py_DECREF(cap);
  if (fn == NULL) return box_exception(box, 2);
  box_set(box, fn);
  return 0;
}

/* ---- Python callables as FFI functions -------------------------------- */

static void py_decref_deleter(void* obj) {
  if (g_finalizing || !Py_IsInitialized()) return; /* leak rather than touch a dying interpreter */
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject*)obj);
  PyGILState_Release(g);
}

/* Raises the pending Python exception as an FFI error (kind from the registry). */
static void TVMFFIPyRaiseAsFFIError(void) {
  /* The native frames between here and the FFI boundary (e.g. the C function that called the
   * callback), captured before any Python runs: a capture from Python would stop at the
   * interpreter's frames.  Both names are hidden by the backtrace's "TVMFFIPy" rule. */
  const TVMFFIByteArray* bt = TVMFFIBacktrace(NULL, 0, NULL, 0);
  PyObject* e = fetch_exception();
  PyObject* native = PyUnicode_DecodeUTF8(bt ? bt->data : "", bt ? (Py_ssize_t)bt->size : 0,
                                          "replace");
  PyObject* err = e && native ? PyObject_CallFunctionObjArgs(g_exc_to_error, e, native, NULL) : NULL;
  Py_XDECREF(native);
  TVMFFIObjectHandle h = NULL;
  if (err != NULL && get_handle(err, &h) == 0 && h != NULL) {
    TVMFFIErrorSetRaised(h);
  } else {
    PyErr_Clear();
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "tvm_ffi: failed to convert a Python exception");
  }
  Py_XDECREF(err);
  Py_XDECREF(e);
}

static int TVMFFIPySafeCall(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (g_finalizing || !Py_IsInitialized()) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "tvm_ffi: Python interpreter is finalizing");
    return -1;
  }
  PyGILState_STATE g = PyGILState_Ensure();
  int rc = 0;
  PyObject* r = NULL;
  PyObject* tuple = PyTuple_New(n);
  if (tuple == NULL) goto pyerr;
  for (int32_t i = 0; i < n; ++i) {
    PyObject* o = from_any((TVMFFIAny*)&args[i], 0, NULL, NULL);
    if (o == NULL) goto pyerr;
    PyTuple_SetItem(tuple, i, o);
  }
  r = PyObject_Call((PyObject*)self, tuple, NULL);
  if (r == NULL) goto pyerr;
  {
    CallCtx c;
    ctx_init(&c);
    TVMFFIAny view;
    int prc = pack(&c, r, &view, 0);
    if (prc == 0 && TVMFFIAnyViewToOwnedAny(&view, result) != 0) prc = -2;
    ctx_release(&c);
    if (prc == -1) goto pyerr;
    if (prc == -2) rc = -1;
  }
  goto done;
pyerr:
  TVMFFIPyRaiseAsFFIError();
  rc = -1;
done:
  Py_XDECREF(r);
  Py_XDECREF(tuple);
  PyGILState_Release(g);
  return rc;
}

int TVMFFIPyCallbackCreate(intptr_t box_id, TVMFFIObjectHandle* out) {
  PyObject* f = box_get((PyObject*)box_id);
  Py_INCREF(f);
  if (TVMFFIFunctionCreate(f, TVMFFIPySafeCall, py_decref_deleter, out) != 0) {
    Py_DECREF(f);
    return 1;
  }
  return 0;
}

int TVMFFIPyOpaqueCreate(intptr_t box_id, TVMFFIObjectHandle* out) {
  PyObject* o = box_get((PyObject*)box_id);
  Py_INCREF(o);
  if (TVMFFIObjectCreateOpaque(o, kTVMFFIOpaquePyObject, py_decref_deleter, out) != 0) {
    Py_DECREF(o);
    return 1;
  }
  return 0;
}

/* ---- C functions as FFI functions ---------------------------------- */

typedef struct {
  TVMFFISafeCallType fn;         /* extern C safe call, or NULL */
  void (*entry)(void** packed);  /* MLIR packed entry, or NULL */
  PyObject* keep;                /* keep-alive object or NULL */
} extern_ctx;

static int extern_safe_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  extern_ctx* x = (extern_ctx*)self;
  if (x->fn != NULL) return x->fn(NULL, args, n, result);
  void* handle = NULL;
  int rc = 0;
  const TVMFFIAny* a = args;
  void* packed[5] = {&handle, (void*)&a, &n, &result, &rc};
  x->entry(packed);
  return rc;
}

static void extern_deleter(void* self) {
  extern_ctx* x = (extern_ctx*)self;
  if (x->keep != NULL) py_decref_deleter(x->keep);
  free(x);
}

static int make_extern(TVMFFISafeCallType fn, void (*entry)(void**), intptr_t box_id,
                       TVMFFIObjectHandle* out) {
  PyObject* keep = box_get((PyObject*)box_id);
  extern_ctx* x = (extern_ctx*)malloc(sizeof(extern_ctx));
  if (x == NULL) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "out of memory");
    return 1;
  }
  x->fn = fn;
  x->entry = entry;
  x->keep = keep == Py_None ? NULL : keep;
  Py_XINCREF(x->keep);
  if (TVMFFIFunctionCreate(x, extern_safe_call, extern_deleter, out) != 0) {
    Py_XDECREF(x->keep);
    free(x);
    return 1;
  }
  return 0;
}

int TVMFFIPyFunctionFromExternC(void* fn, intptr_t box, TVMFFIObjectHandle* out) {
  return make_extern((TVMFFISafeCallType)fn, NULL, box, out);
}

int TVMFFIPyFunctionFromMLIRPacked(void* entry, intptr_t box, TVMFFIObjectHandle* out) {
  return make_extern(NULL, (void (*)(void**))entry, box, out);
}

/* ---- DLPack capsules ------------------------------------------------- */

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

int TVMFFIPyTensorToCapsule(TVMFFIObjectHandle tensor, int32_t versioned, intptr_t box_id) {
  PyObject* box = (PyObject*)box_id;
  PyObject* cap;
  if (versioned) {
    DLManagedTensorVersioned* t = NULL;
    if (TVMFFITensorToDLPackVersioned(tensor, &t) != 0) return 1;
    cap = PyCapsule_New(t, "dltensor_versioned", capsule_dtor_versioned);
    if (cap == NULL && t->deleter) t->deleter(t);
  } else {
    DLManagedTensor* t = NULL;
    if (TVMFFITensorToDLPack(tensor, &t) != 0) return 1;
    cap = PyCapsule_New(t, "dltensor", capsule_dtor_legacy);
    if (cap == NULL && t->deleter) t->deleter(t);
  }
  if (cap == NULL) return box_exception(box, 2);
  box_set(box, cap);
  return 0;
}

int TVMFFIPyTensorFromCapsule(intptr_t box_id, int32_t require_alignment,
                              int32_t require_contiguous, TVMFFIObjectHandle* out) {
  PyObject* box = (PyObject*)box_id;
  int rc = consume_capsule(box_get(box), require_alignment, require_contiguous, out);
  return rc == 0 ? 0 : rc == -2 ? 1 : box_exception(box, 2);
}

/* from_dlpack core: 0 with *out = the Tensor, -1 (Python exception) or -2 (FFI error). */
static int from_dlpack_impl(PyObject* v, int32_t align, int32_t contig, PyObject** out) {
  TVMFFIObjectHandle h = NULL;
  RuleEntry rule;
  if (type_rule(Py_TYPE(v), &rule) != 0) return -1;
  int has_dlpack = rule.has_dlpack;
  if (rule.code == RULE_EXCHANGE) {
    const DLPackExchangeAPI* api = rule.api;
    DLManagedTensorVersioned* t = NULL;
    if (api->managed_tensor_from_py_object_no_sync((void*)v, &t) != 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack exchange export failed");
      if (!(has_dlpack && PyErr_ExceptionMatches(PyExc_BufferError))) return -1;
      PyErr_Clear(); /* a BufferError falls through to __dlpack__ */
    } else if (TVMFFITensorFromDLPackVersioned(t, align, contig, &h) != 0) {
      if (t->deleter) t->deleter(t);
      return -2;
    }
  }
  if (h == NULL) {
    int rc;
    if (has_dlpack) {
      PyObject* cap = PyObject_CallMethodObjArgs(v, g_str_dlpack, NULL);
      if (cap == NULL) return -1;
      rc = consume_capsule(cap, align, contig, &h);
      Py_DECREF(cap);
    } else if (PyCapsule_CheckExact(v)) {
      rc = consume_capsule(v, align, contig, &h);
    } else {
      PyErr_SetString(PyExc_TypeError,
                      "Expect from_dlpack to take either a compatible tensor or PyCapsule");
      rc = -1;
    }
    if (rc != 0) return rc;
  }
  TVMFFIAny any;
  any.type_index = kTVMFFITensor;
  any.zero_padding = 0;
  any.v_obj = (TVMFFIObject*)h;
  *out = from_any(&any, 1, NULL, NULL);
  return *out == NULL ? -1 : 0;
}

int TVMFFIPyFromDLPack(intptr_t box_id, int32_t align, int32_t contig) {
  PyObject* box = (PyObject*)box_id;
  PyObject* out = NULL;
  int rc = from_dlpack_impl(box_get(box), align, contig, &out);
  if (rc == -2) return 1;
  if (rc == -1) return box_exception(box, 2);
  box_set(box, out);
  return 0;
}

int TVMFFIPyTensorFromExchangeAPI(intptr_t box_id, void* api_ptr, int32_t require_alignment,
                                  int32_t require_contiguous, TVMFFIObjectHandle* out) {
  PyObject* box = (PyObject*)box_id;
  const DLPackExchangeAPI* api = (const DLPackExchangeAPI*)api_ptr;
  DLManagedTensorVersioned* t = NULL;
  if (api->managed_tensor_from_py_object_no_sync((void*)box_get(box), &t) != 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "DLPack exchange export failed");
    return box_exception(box, 2);
  }
  if (TVMFFITensorFromDLPackVersioned(t, require_alignment, require_contiguous, out) != 0) {
    if (t->deleter) t->deleter(t);
    return 1;
  }
  return 0;
}

/* ---- DLTensorTestWrapper's static exchange table ---------------------- */

static int test_from_py(void* py_object, DLManagedTensorVersioned** out) {
  PyObject* tensor = PyObject_GetAttr((PyObject*)py_object, g_str_tensor);
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

static int test_to_py(DLManagedTensorVersioned* t, void** out) {
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPackVersioned(t, 0, 0, &h) != 0) {
    discard_ffi_error();
    PyErr_SetString(PyExc_BufferError, "DLTensorTestWrapper: import failed");
    return -1;
  }
  TVMFFIAny v;
  v.type_index = kTVMFFITensor;
  v.zero_padding = 0;
  v.v_obj = (TVMFFIObject*)h;
  PyObject* tensor = from_any(&v, 1, NULL, NULL);
  if (tensor == NULL) return -1;
  PyObject* w = PyObject_CallFunctionObjArgs(g_test_wrapper, tensor, NULL);
  Py_DECREF(tensor);
  if (w == NULL) return -1;
  *out = w;
  return 0;
}

static int test_stream(DLDeviceType device_type, int32_t device_id, void** out) {
  *out = TVMFFIEnvGetStream(device_type, device_id);
  return 0;
}

static DLPackExchangeAPI g_test_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL}, NULL, test_from_py, test_to_py, NULL,
    test_stream};

void* TVMFFIPyTestExchangeAPI(void) { return &g_test_api; }
