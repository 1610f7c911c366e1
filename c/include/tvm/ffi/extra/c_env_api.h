/*
 * tvm/ffi/extra/c_env_api.h -- environment API of the TVM FFI runtime:
 * per-thread current streams, the framework tensor allocator, frontend hooks
 * and library-module support.  Unchanged since 0.1.0.  Plain C, valid C11 and
 * C++17.
 */
#ifndef TVM_FFI_EXTRA_C_ENV_API_H_
#define TVM_FFI_EXTRA_C_ENV_API_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device stream (e.g. cudaStream_t); NULL means the default stream. */
typedef void* TVMFFIStreamHandle;

/* ===================================================================== */
/* Section: streams                                                      */
/* ===================================================================== */

/*
 * Sets this thread's current stream for (device_type, device_id), both >= 0.
 * The previous value (NULL if never set) goes to *opt_out_original_stream
 * when that pointer is non-NULL.  Returns 0/-1.
 */
TVM_FFI_DLL int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id,
                                   TVMFFIStreamHandle stream,
                                   TVMFFIStreamHandle* opt_out_original_stream);

/* This thread's current stream for the device, or NULL. Never fails. */
TVM_FFI_DLL TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);

/* ===================================================================== */
/* Section: tensor allocator                                             */
/* ===================================================================== */

/*
 * Installs the DLPack tensor allocator for this thread (always) and, when
 * write_to_global_context != 0, for the process.  The previous thread-local
 * allocator goes to *opt_out_original_allocator when non-NULL.  Returns 0.
 */
TVM_FFI_DLL int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator);

/* The thread-local allocator if set, else the global one (may be NULL). */
TVM_FFI_DLL DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);

/*
 * Allocates a tensor like `prototype` (dtype, ndim, shape, device) through
 * the current allocator.  Returns a new reference in *out.  Returns 0/-1
 * (RuntimeError when no allocator is installed).
 */
TVM_FFI_DLL int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out);

/* ===================================================================== */
/* Section: frontend hooks                                               */
/* ===================================================================== */

/* Runs the frontend's signal check (e.g. PyErr_CheckSignals) when one is
 * registered.  -1 means the frontend holds a pending exception (no FFI error
 * is raised).  Returns 0 otherwise. */
TVM_FFI_DLL int TVMFFIEnvCheckSignals(void);

/* Registers a frontend function: "PyErr_CheckSignals", "PyGILState_Ensure"
 * or "PyGILState_Release".  Other names: -1 with ValueError. */
TVM_FFI_DLL int TVMFFIEnvRegisterCAPI(const char* name, void* symbol);

/* ===================================================================== */
/* Section: library modules                                              */
/* ===================================================================== */

/*
 * Resolves func_name for code inside a loaded library: the module's cache,
 * then its imports (depth first), then the global registry.  library_ctx is
 * the token the loader wrote into __tvm_ffi__library_ctx.  *out is a
 * borrowed reference owned by the module.  Not found: -1 with RuntimeError.
 */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                              TVMFFIObjectHandle* out);

/* Every library loaded afterwards that exports data symbol `name` gets
 * *(void**)sym(name) = symbol.  Returns 0/-1. */
TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol);

/* Records name -> symbol in the system-library table; usable from static
 * initialisers before anything else.  Returns 0. */
TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol);

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* TVM_FFI_EXTRA_C_ENV_API_H_ */
