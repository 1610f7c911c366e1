/*
 * helpers.h -- entry points of the C fast path compiled into the cffi module
 * (API mode only; helpers.c is the implementation).  Declared here once: the
 * build feeds this file to both cffi's cdef and the C compiler.
 *
 * A "box" is the id() of a tuple or list whose item 0 is replaced by the
 * result; box protocol return codes:
 *   0  success, box[0] is the result
 *   1  an FFI error waits in this thread's raised-error slot
 *   2  box[0] is a Python exception instance to raise
 *   3  an FFI error waits in the slot and box[0] is the Python exception
 *      that was pending in the interpreter (EnvErrorAlreadySet)
 *  -1  the box is shared (refcount > 1): retry with a fresh list
 */
#ifndef TVM_FFI_PY_HELPERS_H_
#define TVM_FFI_PY_HELPERS_H_

/* Hands the Python-side hooks (a tuple, see core.py) to C. Returns 0/-1. */
int TVMFFIPyInit(intptr_t config);
/* box = (function_wrapper, arg0, arg1, ...): converts, calls, converts back. */
int TVMFFIPyCall(intptr_t box);
/* Converts box[0] (Python value) into an owned Any in *out. */
int TVMFFIPyToAny(intptr_t box, TVMFFIAny* out);
/* Converts *value to Python into box[0]; owned != 0 moves value's reference. */
int TVMFFIPyFromAny(TVMFFIAny* value, int32_t owned, intptr_t box);
/* New ffi.Function calling the Python callable box[0]. */
int TVMFFIPyCallbackCreate(intptr_t box, TVMFFIObjectHandle* out);
/* New ffi.OpaquePyObject holding a strong reference to box[0]. */
int TVMFFIPyOpaqueCreate(intptr_t box, TVMFFIObjectHandle* out);
/* box[0] = new DLPack capsule ("dltensor" or "dltensor_versioned") of a tensor. */
int TVMFFIPyTensorToCapsule(TVMFFIObjectHandle tensor, int32_t versioned, intptr_t box);
/* Consumes the capsule box[0] (renamed to "used_..."), making a new tensor. */
int TVMFFIPyTensorFromCapsule(intptr_t box, int32_t require_alignment,
                              int32_t require_contiguous, TVMFFIObjectHandle* out);
/* Imports box[0] through the exchange API at address api. */
int TVMFFIPyTensorFromExchangeAPI(intptr_t box, void* api, int32_t require_alignment,
                                  int32_t require_contiguous, TVMFFIObjectHandle* out);
/* After this, deleters of Python-owned objects leak instead of touching Python. */
void TVMFFIPySetFinalizing(void);
/* The static DLPackExchangeAPI of DLTensorTestWrapper (see core.py). */
void* TVMFFIPyTestExchangeAPI(void);

#endif /* TVM_FFI_PY_HELPERS_H_ */
