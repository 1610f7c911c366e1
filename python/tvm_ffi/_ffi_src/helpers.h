/*
 * helpers.h -- entry points of the C fast path compiled into the cffi module (API mode
 * only; binding.h maps the files that implement them).  Declared here once: the build
 * feeds this file to both cffi's cdef and the C compiler, so the package reads the same names.
 *
 * A "box" is the id() of a tuple or list whose item 0 is replaced by the result.
 */
#ifndef TVM_FFI_PY_HELPERS_H_
#define TVM_FFI_PY_HELPERS_H_

/* What an entry point returning ffipy_status left behind. */
typedef enum {
  FFIPY_OK = 0,           /* success, box[0] is the result */
  FFIPY_FFI_ERROR = 1,    /* an FFI error waits in this thread's raised-error slot */
  FFIPY_PY_ERROR = 2,     /* a Python exception waits for ffipy_take_exception */
} ffipy_status;

/* What _boot.py hands to C once (ffipy_init).  Python objects travel as id(): they are module
 * globals (_boot.py names them), and C takes its own references. */
typedef struct {
  intptr_t cobject_cls, function_cls, tensor_cls;
  intptr_t tensor_cls_box;  /* _tensor._CLASS_TENSOR_BOX: [current tensor class] */
  intptr_t type_cls;        /* _base._TYPE_CLS: type index -> class */
  intptr_t test_wrapper;    /* _tensor.DLTensorTestWrapper (gets its exchange API capsule) */
  /* hooks for the rare cases */
  intptr_t classify;        /* classify(type) -> rule (the types classify_rows leave to it) */
  intptr_t classify_rows;   /* _conversion._CLASSIFY_C: the table's CLASSIFY rows, resolved */
  intptr_t exchange_address; /* exchange_address(capsule) -> the checked table address */
  intptr_t exact_rules; /* ((type, rule), ...): the table's exact types (_rules.EXACT_TYPES) */
  intptr_t convert_slow; /* convert_slow(value) -> simpler value */
  intptr_t ret_obj; /* ret_obj(type_index, payload, api_obj) -> object */
  intptr_t exc_to_error; /* exc_to_error(exc, native_backtrace) -> error.Error */
  intptr_t wrapper_kind; /* wrapper_kind(cls) -> kind (results.c) */
  intptr_t call_error; /* call_error(pending_exc_or_None) -> exception to raise */
  /* ffi.Array and ffi.Map (borrowed: C takes its own reference), or NULL */
  void* fn_array;
  void* fn_map;
  int32_t release_gil_default; /* Function.release_gil of wrappers made in C */
  int32_t rules_fingerprint; /* _rules.fingerprint() of the table the package reads */
} ffipy_config;

/* Takes the configuration; -1 when it is unusable, -2 when the module was compiled from another
 * conversion table (_rules.py changed since the build: rebuild). */
int ffipy_init(const ffipy_config* config);
/* box[0] = (_CObjectBase, _FunctionBase, set_h): the C bases of CObject and Function and the
 * writer of `_h` (basetypes.c). */
int ffipy_base_types(intptr_t box);
/* After the class statement of Function (a subclass of _FunctionBase): makes its calls take
 * vectorcall where the class statement did not (before 3.12). 0, or 1 when left as it was. */
int ffipy_function_class_ready(intptr_t cls);
/* box = [CObject class]: becomes [from_dlpack builtin, CObject.__del__ descriptor]. */
int ffipy_make_builtins(intptr_t box);
/* Converts box[0] (Python value) into an owned Any in *out. */
int ffipy_to_any(intptr_t box, TVMFFIAny* out);
/* Converts *value to Python into box[0]; owned != 0 moves value's reference. */
int ffipy_from_any(TVMFFIAny* value, int32_t owned, intptr_t box);
/* New ffi.Function calling the Python callable box[0]. */
int ffipy_callback_create(intptr_t box, TVMFFIObjectHandle* out);
/* box = [callable, tag]: a new ffi.Function calling it with tensor arguments converted through
 * the DLPack exchange table at api (tag: its address as an int, given to container arguments). */
int ffipy_callback_create_with_api(intptr_t box, void* api, TVMFFIObjectHandle* out);
/* New ffi.OpaquePyObject holding a strong reference to box[0]. */
int ffipy_opaque_create(intptr_t box, TVMFFIObjectHandle* out);
/* box[0] = new DLPack capsule ("dltensor" or "dltensor_versioned") of a tensor. */
int ffipy_tensor_to_capsule(TVMFFIObjectHandle tensor, int32_t versioned, intptr_t box);
/* Consumes the capsule box[0] (renamed to "used_..."), making a new tensor. */
int ffipy_tensor_from_capsule(intptr_t box, int32_t require_alignment, int32_t require_contiguous,
                              TVMFFIObjectHandle* out);
/* from_dlpack(box[0]) (exchange API, __dlpack__ or a capsule); box[0] = the Tensor. */
int ffipy_from_dlpack(intptr_t box, int32_t require_alignment, int32_t require_contiguous);
/* Imports box[0] through the exchange API at address api. */
int ffipy_tensor_from_exchange_api(intptr_t box, void* api, int32_t require_alignment,
                                   int32_t require_contiguous, TVMFFIObjectHandle* out);
/* What _tensor._exchange_api_address checks of a __dlpack_c_exchange_api__ capsule box[0], read
 * without realising the table's type in cffi: box[0] = (address (0 unless it is a capsule
 * named "dlpack_exchange_api"), DLPack major, minor, which conversion functions are present
 * (bit 0: managed_tensor_from_py_object_no_sync, bit 1: managed_tensor_to_py_object_no_sync)). */
int ffipy_exchange_api_fields(intptr_t box);
/* Function calling the C safe-call fn (self ignored); box[0] is kept alive unless None. */
int ffipy_function_from_extern_c(void* fn, intptr_t box, TVMFFIObjectHandle* out);
/* Function calling an MLIR packed entry void(void** packed); box[0] kept alive as above. */
int ffipy_function_from_mlir_packed(void* entry, intptr_t box, TVMFFIObjectHandle* out);
/* box[0] = the Python exception left by an entry point (returns 1 when none). */
int ffipy_take_exception(intptr_t box);
/* TVMFFIObjectDecRef on an integer handle (wrapper finalisers). */
void ffipy_dec_ref(intptr_t handle);
/* Wrapper identity table (docs/python.md §4.3): handle -> live wrapper (borrowed; identity.c).
 * Tie keeps an existing entry; Untie removes the entry only if it is this wrapper. */
void ffipy_tie(intptr_t wrapper, intptr_t handle);
void ffipy_untie(intptr_t wrapper, intptr_t handle);
/* Untie, then TVMFFIObjectDecRef (a wrapper's finaliser). */
void ffipy_drop_handle(intptr_t wrapper, intptr_t handle);
/* box[0] = the live wrapper tied to handle, or None. Returns 0. */
int ffipy_tied_wrapper(intptr_t handle, intptr_t box);
/* Number of tied wrappers (tests). */
int64_t ffipy_tied_count(void);
/* box = [None, raised_exception hook, refuse]: box[0] = a builtin fget(obj) reading the
 * reflected field at handle + offset through the TVMFFIFieldGetter at address getter, for
 * objects of type index owner (depth owner_depth) or a subtype; refuse(obj) raises for others. */
int ffipy_make_field_getter(intptr_t getter, int64_t offset, int32_t owner, int32_t owner_depth,
                            intptr_t box);
/* box = [None, refuse, name, setter Function or None]: box[0] = a builtin fset(obj, value)
 * writing the field at handle + offset through the setter Function, else the
 * TVMFFIFieldSetter at address setter, with the owner check of ffipy_make_field_getter. */
int ffipy_make_field_setter(intptr_t setter, int64_t offset, int32_t owner, int32_t owner_depth,
                            intptr_t box);
/* Drops the cached wrapper_kind answer for a class (address of the class object). */
void ffipy_forget_wrapper_kind(intptr_t cls);
/* After this, deleters of Python-owned objects leak instead of touching Python. */
void ffipy_set_finalizing(void);
/* The static DLPackExchangeAPI of DLTensorTestWrapper (_tensor.py). */
void* ffipy_test_exchange_api(void);

#endif /* TVM_FFI_PY_HELPERS_H_ */
