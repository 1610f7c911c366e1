/*
 * binding.h -- private header of the C fast path compiled into tvm_ffi._ffi_cffi.
 *
 * Why C at all: packing arguments field by field from Python costs ~200 ns per argument;
 * here one C call converts a whole argument tuple with per-type dispatch, calls the
 * function and converts the result.  Python objects reach the entry points (helpers.h) as
 * the id() of a "box", a tuple or list whose item 0 is replaced by the result.  The GIL is
 * held throughout (the module is built with cffi's GIL release compiled out, _build_ffi.py)
 * and released only around the foreign call itself, as Function.release_gil asks.  Anything
 * Python-specific that is not hot (class selection for returned objects, protocol objects,
 * errors with tracebacks) is delegated to hooks of core.py named in ffipy_config.
 *
 * The files, one concern each, are compiled as one translation unit (module.c includes
 * them) so that the hot path inlines across them; this header holds what they share:
 *   state.c      ffipy_init: the configuration from core.py, the module state
 *   pyint.c      handles stored in Python ints, read without the generic int API
 *   errors.c     boxes and the Python exception handed back to core.py
 *   identity.c   the wrapper identity table (one live wrapper per handle)
 *   pack.c       Python value -> TVMFFIAny (arguments, callback results)
 *   exchange.c   framework tensors through the DLPack exchange API
 *   dlpack.c     DLPack capsules, __dlpack__ producers, from_dlpack
 *   results.c    TVMFFIAny -> Python (call results, callback arguments, fields)
 *   call.c       the call itself and its Python-facing forms (__call__, tp_call, __del__)
 *   callbacks.c  Python callables and C functions as FFI functions
 *   fields.c     reflected field getters as builtins
 *   test_api.c   the static exchange table of core.DLTensorTestWrapper
 * Everything here is static: only the entry points of helpers.h leave the module.
 */
#ifndef TVM_FFI_PY_BINDING_H_
#define TVM_FFI_PY_BINDING_H_

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

/* Outcome of an internal conversion or call; the entry points turn it into an ffipy_status. */
enum {
  CONV_OK = 0,
  CONV_PY_ERROR = -1,  /* a Python exception is set */
  CONV_FFI_ERROR = -2, /* an FFI error waits in the raised-error slot */
};

/* How a Python type converts to an argument, as core._classify answers (int or (rule, extra)). */
enum {
  RULE_SLOW = 0,      /* through the hook core._convert_slow */
  RULE_OBJECT = 1,    /* a CObject wrapper: its handle */
  RULE_EXCHANGE = 2,  /* a framework tensor with a DLPack exchange API (extra: its address) */
  RULE_POD = 3,       /* __tvm_ffi_pod__ gives a value or (type_index, payload) */
  RULE_CONTAINER = 4, /* a container wrapper: its handle, and its tensors' exchange API */
  RULE_DLPACK = 5,    /* any other __dlpack__ producer */
  RULE_SEQUENCE = 6,  /* a list or tuple subclass (NamedTuple, ...): an Array of its items */
};

/* ---- module state (state.c; set once by ffipy_init) ---------------------------------- */
typedef struct {
  /* classes and hooks of core.py (owned references) */
  PyObject* cobject_cls;      /* core.CObject */
  PyTypeObject* function_cls; /* core.Function; NULL when its slot offsets are unknown */
  PyTypeObject* tensor_cls;   /* core.Tensor; NULL when its slot offsets are unknown */
  PyObject* tensor_cls_box;   /* core._CLASS_TENSOR_BOX: [current tensor class] */
  PyObject* classify;         /* classify(type) -> rule (RULE_* or (rule, extra)) */
  PyObject* convert_slow;     /* convert_slow(value) -> simpler value */
  PyObject* ret_obj;          /* ret_obj(type_index, payload, api_obj) -> object */
  PyObject* exc_to_error;     /* exc_to_error(exc, native_backtrace) -> core.Error */
  PyObject* test_wrapper;     /* core.DLTensorTestWrapper */
  PyObject* type_cls;         /* core._TYPE_CLS: type index -> class (read live) */
  PyObject* wrapper_kind;     /* core._wrapper_kind(cls) -> (kind, slot offset) */
  PyObject* release_default;  /* Py_True/Py_False: Function.release_gil of new wrappers */
  PyObject* call_error;       /* core._call_error(pending_exc_or_None) -> exception to raise */
  PyObject* field_error;      /* core._raised_exception() -> the raised FFI error as exception */
  /* byte offsets of __slots__ members (-1 unknown: attribute lookup instead) */
  Py_ssize_t off_h;           /* CObject._h, the handle as a Python int */
  Py_ssize_t off_release_gil; /* Function.release_gil */
  Py_ssize_t off_view;        /* Tensor._view */
  TVMFFIObjectHandle fn_array; /* ffi.Array (owned) */
  TVMFFIObjectHandle fn_map;   /* ffi.Map (owned) */
  PyObject* zero;              /* the int 0 */
  PyObject* type_rules;        /* dict: type -> rule, filled by classify */
  /* interned attribute names */
  PyObject *str_h, *str_release_gil, *str_pod, *str_api, *str_tensor, *str_dlpack;
  int long_layout;             /* pyint.c: 0 unknown, 1 or 2 */
  volatile int finalizing;     /* after atexit: deleters leak instead of touching Python */
} binding_state;

static binding_state g = {.off_h = -1, .off_release_gil = -1, .off_view = -1};

/* ---- pyint.c -------------------------------------------------------------------------- */
static inline int long_fast(PyObject* o, int layout, uintptr_t* out);
static inline void* slot_handle(PyObject* o);
static int probe_long_layout(void);

/* ---- errors.c ------------------------------------------------------------------------- */
static PyObject* fetch_exception(void);
static void discard_ffi_error(void);
static PyObject* box_get(PyObject* box);
static int box_set(PyObject* box, PyObject* value);
static int box_shared(PyObject* box);
static int box_exception(PyObject* box, int code);
static int entry_status(PyObject* box, int conv);
static void raise_hook_exception(PyObject* hook, PyObject* arg);

/* ---- identity.c ----------------------------------------------------------------------- */
static int has_identity(int32_t t);
static int tieable(int32_t t);
static PyObject* tie_get(const void* h);
static void tie_put(void* h, PyObject* w);
static void tie_drop(const void* h, PyObject* w);
static PyObject* tie_take(TVMFFIObject* h, int owned);
static void tie_result(TVMFFIObject* h, PyObject* r);
static PyObject* tie_retag(PyObject* w, int32_t tidx, PyObject* api_obj);

/* ---- pack.c --------------------------------------------------------------------------- */
struct view_block;
#define CTX_MAX_VIEWS 8

/* Per-call conversion state: temporaries and the stream/allocator context. */
typedef struct {
  /* exchange-API argument tensors whose Python reference is taken only if the callee kept
   * them (see view_block, exchange.c); handle and block pairs */
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

/* A type's conversion rule, decoded once: the hot path reads C fields, not Python ints. */
typedef struct {
  PyTypeObject* tp;
  PyObject* rule;               /* borrowed from g.type_rules (the dict never drops entries) */
  long code;                    /* RULE_* */
  PyObject* extra;              /* item 1 of a (rule, extra) tuple, else NULL (borrowed) */
  const DLPackExchangeAPI* api; /* RULE_EXCHANGE: the decoded extra */
  int has_dlpack;               /* the type has __dlpack__ (from_dlpack's fallback) */
} RuleEntry;

static void ctx_init(CallCtx* c);
static void ctx_release(CallCtx* c);
static int ctx_own(CallCtx* c, TVMFFIObjectHandle h);
static int ctx_keep(CallCtx* c, PyObject* o);
static int get_handle(PyObject* obj, TVMFFIObjectHandle* out);
static int type_rule(PyTypeObject* tp, RuleEntry* out);
/* The CONV_* of converting v; out is a view whose temporaries c owns until ctx_release. */
static int pack(CallCtx* c, PyObject* v, TVMFFIAny* out, int depth);
static inline int pack_arg(CallCtx* c, PyObject* v, TVMFFIAny* out);
static int pack_to_owned(PyObject* v, TVMFFIAny* out);

/* ---- exchange.c ----------------------------------------------------------------------- */
static void view_keep_alive(struct view_block* b);
static int pack_exchange(CallCtx* c, PyObject* v, PyObject* api_obj, const DLPackExchangeAPI* api,
                         TVMFFIAny* out);

/* ---- dlpack.c ------------------------------------------------------------------------- */
static int pack_dlpack(CallCtx* c, PyObject* v, TVMFFIAny* out);
static int from_dlpack_impl(PyObject* v, int32_t align, int32_t contig, PyObject** out);
static PyObject* py_from_dlpack(PyObject* unused, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames);

/* ---- results.c ------------------------------------------------------------------------ */
/* v as a Python object (owned: v's reference moves in); NULL with an exception. */
static PyObject* from_any(TVMFFIAny* v, int owned, PyObject* api_obj, const DLPackExchangeAPI* api);
static PyObject* tensor_result(TVMFFIObjectHandle h);

/* ---- test_api.c ----------------------------------------------------------------------- */
static DLPackExchangeAPI test_exchange_api;

#endif /* TVM_FFI_PY_BINDING_H_ */
