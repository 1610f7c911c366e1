/*
 * helpers.h -- entry points of the C fast path compiled into the cffi module
 * (API mode only; helpers.c is the implementation).  Declared here once: the
 * build feeds this file to both cffi's cdef and the C compiler.
 *
 * A "box" is the id() of a tuple or list whose item 0 is replaced by the
 * result; box protocol return codes:
 *   0  success, box[0] is the result
 *   1  an FFI error waits in this thread's raised-error slot
 *   2  a Python exception waits in this thread's slot (TVMFFIPyTakeException)
 *   3  an FFI error waits in the raised-error slot and the Python exception
 *      that was pending in the interpreter (EnvErrorAlreadySet) in ours
 *  -1  the box is shared (refcount > 1): retry with a fresh list
 */
#ifndef TVM_FFI_PY_HELPERS_H_
#define TVM_FFI_PY_HELPERS_H_

/* Hands the Python-side hooks (a tuple, see core.py) to C. Returns 0/-1. */
int TVMFFIPyInit(intptr_t config);
/* box = (function_wrapper, arg0, arg1, ...): converts, calls, converts back. */
int TVMFFIPyCall(intptr_t box);
/* box = [Function class, call_error hook]: box[0] = a METH_FASTCALL method descriptor
 * usable as Function.__call__ (call_error(pending_exc_or_None) -> exception to raise). */
int TVMFFIPyMakeCallDescriptor(intptr_t box);
/* After `cls.__call__ = <that descriptor>`: points cls's call slot straight at the C call
 * (skipping CPython's generic __call__ dispatch). Returns 0, or 1 when left as it was. */
int TVMFFIPyInstallCallSlot(intptr_t cls);
/* box = [CObject class]: becomes [from_dlpack builtin, CObject.__del__ descriptor]. */
int TVMFFIPyMakeBuiltins(intptr_t box);
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
/* from_dlpack(box[0]) (exchange API, __dlpack__ or a capsule); box[0] = the Tensor. */
int TVMFFIPyFromDLPack(intptr_t box, int32_t require_alignment, int32_t require_contiguous);
/* Imports box[0] through the exchange API at address api. */
int TVMFFIPyTensorFromExchangeAPI(intptr_t box, void* api, int32_t require_alignment,
                                  int32_t require_contiguous, TVMFFIObjectHandle* out);
/* Function calling the C safe-call fn (self ignored); box[0] is kept alive unless None. */
int TVMFFIPyFunctionFromExternC(void* fn, intptr_t box, TVMFFIObjectHandle* out);
/* Function calling an MLIR packed entry void(void** packed); box[0] kept alive as above. */
int TVMFFIPyFunctionFromMLIRPacked(void* entry, intptr_t box, TVMFFIObjectHandle* out);
/* box[0] = the Python exception left by an entry point (returns 1 when none). */
int TVMFFIPyTakeException(intptr_t box);
/* box = [code, globals]: box[0] = a new frame with no f_back (synthetic traceback frames). */
int TVMFFIPyFrameNew(intptr_t box);
/* TVMFFIObjectDecRef on an integer handle (wrapper finalisers). */
void TVMFFIPyDecRef(intptr_t handle);
/* Wrapper identity table (docs/python.md §4.3): handle -> live wrapper (borrowed; see helpers.c).
 * Tie keeps an existing entry; Untie removes the entry only if it is this wrapper. */
void TVMFFIPyTie(intptr_t wrapper, intptr_t handle);
void TVMFFIPyUntie(intptr_t wrapper, intptr_t handle);
/* Untie, then TVMFFIObjectDecRef (a wrapper's finaliser). */
void TVMFFIPyDropHandle(intptr_t wrapper, intptr_t handle);
/* box[0] = the live wrapper tied to handle, or None. Returns 0. */
int TVMFFIPyTiedWrapper(intptr_t handle, intptr_t box);
/* Number of tied wrappers (tests). */
int64_t TVMFFIPyTiedCount(void);
/* box = [None, raised_exception hook]: box[0] = a builtin fget(obj) reading the reflected
 * field at handle + offset through the TVMFFIFieldGetter at address getter. */
int TVMFFIPyMakeFieldGetter(intptr_t getter, int64_t offset, intptr_t box);
/* box = (core._TYPE_CLS, core._wrapper_kind): lets C build wrappers of registered object
 * types whose class allows it (see helpers.c). Returns 0/-1. */
int TVMFFIPyInitObjects(intptr_t box);
/* Drops the cached _wrapper_kind answer for a class (address of the class object). */
void TVMFFIPyForgetWrapperKind(intptr_t cls);
/* After this, deleters of Python-owned objects leak instead of touching Python. */
void TVMFFIPySetFinalizing(void);
/* The static DLPackExchangeAPI of DLTensorTestWrapper (see core.py). */
void* TVMFFIPyTestExchangeAPI(void);

#endif /* TVM_FFI_PY_HELPERS_H_ */
