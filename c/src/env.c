/*
 * env.c -- environment API: per-thread streams, tensors from the DLPack
 * allocator and frontend hooks (docs/abi.md §11.1-§11.3).  The library-module half of
 * c_env_api.h (§11.4) lives in module.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- streams: thread-local (device_type, device_id) -> stream ----------- */

typedef struct {
  int32_t device_type;
  int32_t device_id;
  TVMFFIStreamHandle stream;
} stream_entry;

/* A handful of devices per thread at most, so a flat array with linear
 * search beats anything cleverer.  Entries set back to NULL are removed. */
typedef struct {
  stream_entry* items;
  size_t size;
  size_t capacity;
} stream_table;

static _Thread_local stream_table tls_streams;

static pthread_once_t streams_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t streams_key;

/* Thread exit: free this thread's table (the key's value is the table). */
static void streams_free(void* p) {
  stream_table* tab = (stream_table*)p;
  free(tab->items);
  tab->items = NULL;
  tab->size = tab->capacity = 0;
}
static void streams_key_create(void) { pthread_key_create(&streams_key, streams_free); }

static stream_entry* stream_find(int32_t device_type, int32_t device_id) {
  for (size_t i = 0; i < tls_streams.size; ++i) {
    stream_entry* e = &tls_streams.items[i];
    if (e->device_type == device_type && e->device_id == device_id) return e;
  }
  return NULL;
}

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  if (device_type < 0 || device_id < 0)
    return tvmffi__raise("ValueError",
                         "TVMFFIEnvSetStream: device_type and device_id must be non-negative, "
                         "got (%d, %d)",
                         (int)device_type, (int)device_id);
  stream_entry* e = stream_find(device_type, device_id);
  if (e == NULL && stream != NULL) {
    if (tls_streams.size == tls_streams.capacity) {
      size_t cap = tls_streams.capacity ? tls_streams.capacity * 2 : 4;
      stream_entry* items = realloc(tls_streams.items, cap * sizeof(stream_entry));
      if (items == NULL) return tvmffi__raise_oom();
      if (tls_streams.items == NULL) {
        /* First table of this thread: arrange for it to be freed at exit. */
        pthread_once(&streams_key_once, streams_key_create);
        pthread_setspecific(streams_key, &tls_streams);
      }
      tls_streams.items = items;
      tls_streams.capacity = cap;
    }
    e = &tls_streams.items[tls_streams.size++];
    e->device_type = device_type;
    e->device_id = device_id;
    e->stream = NULL;
  }
  TVMFFIStreamHandle original = e != NULL ? e->stream : NULL;
  if (e != NULL) {
    if (stream != NULL) {
      e->stream = stream;
    } else {
      *e = tls_streams.items[--tls_streams.size];
    }
  }
  if (opt_out_original_stream != NULL) *opt_out_original_stream = original;
  return 0;
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  stream_entry* e = stream_find(device_type, device_id);
  return e != NULL ? e->stream : NULL;
}

/* ---- DLPack managed-tensor allocator (the slot itself: env_allocator.c) -- */

/* The SetError handed to allocators: raise an FFI error of that kind. */
static void env_alloc_set_error(void* error_ctx, const char* kind, const char* message) {
  (void)error_ctx;
  TVMFFIErrorSetRaisedFromCStr(kind != NULL ? kind : "RuntimeError",
                               message != NULL ? message : "");
}

int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  if (prototype == NULL || out == NULL)
    return tvmffi__raise("ValueError", "TVMFFIEnvTensorAlloc: prototype and out must not be NULL");
  DLPackManagedTensorAllocator alloc = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (alloc == NULL)
    return tvmffi__raise("RuntimeError",
                         "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because "
                         "TVMFFIEnvSetDLPackManagedTensorAllocator has not been called.");
  /* Allocators read ndim/shape/device/dtype: make sure those are sane. */
  if (tvmffi__dltensor_check("TVMFFIEnvTensorAlloc", prototype, 0) != 0) return -1;
  DLManagedTensorVersioned* mt = NULL;
  int rc = alloc(prototype, &mt, NULL, env_alloc_set_error);
  if (rc != 0) {
    /* Pass the allocator's code through; make sure an error is waiting. */
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err == NULL) {
      tvmffi__raise("RuntimeError",
                    "TVMFFIEnvTensorAlloc: the allocator failed with code %d without "
                    "reporting an error",
                    rc);
    } else {
      TVMFFIErrorSetRaised(err);
      TVMFFIObjectDecRef(err);
    }
    return rc;
  }
  if (mt == NULL)
    return tvmffi__raise("RuntimeError",
                         "TVMFFIEnvTensorAlloc: failed to allocate a tensor from the allocator");
  if (tvmffi__tensor_from_allocated(mt, out) != 0) {
    /* We own what the allocator returned: hand it back. */
    if (mt->deleter != NULL) mt->deleter(mt);
    return -1;
  }
  return 0;
}

/* ---- frontend hooks -------------------------------------------------------- */

/* Stored as the void* the frontend registered; converted when called
 * (memcpy keeps the object->function pointer conversion well defined). */
static void* py_check_signals;
static void* py_gil_ensure;
static void* py_gil_release;

int TVMFFIEnvCheckSignals(void) {
  void* check_p = __atomic_load_n(&py_check_signals, __ATOMIC_ACQUIRE);
  if (check_p == NULL) return 0;
  void* ensure_p = __atomic_load_n(&py_gil_ensure, __ATOMIC_ACQUIRE);
  void* release_p = __atomic_load_n(&py_gil_release, __ATOMIC_ACQUIRE);
  if (ensure_p == NULL || release_p == NULL)
    return tvmffi__raise("InternalError",
                         "TVMFFIEnvCheckSignals: PyErr_CheckSignals is registered but "
                         "PyGILState_Ensure/PyGILState_Release are not");
  int (*check)(void);
  void* (*ensure)(void);
  void (*release)(void*);
  memcpy(&check, &check_p, sizeof(check));
  memcpy(&ensure, &ensure_p, sizeof(ensure));
  memcpy(&release, &release_p, sizeof(release));
  void* state = ensure();
  int rc = check();
  release(state);
  /* The frontend holds the pending exception; no FFI error is raised. */
  return rc != 0 ? -1 : 0;
}

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  if (name == NULL) return tvmffi__raise("ValueError", "TVMFFIEnvRegisterCAPI: name is NULL");
  if (strcmp(name, "PyErr_CheckSignals") == 0) {
    __atomic_store_n(&py_check_signals, symbol, __ATOMIC_RELEASE);
  } else if (strcmp(name, "PyGILState_Ensure") == 0) {
    __atomic_store_n(&py_gil_ensure, symbol, __ATOMIC_RELEASE);
  } else if (strcmp(name, "PyGILState_Release") == 0) {
    __atomic_store_n(&py_gil_release, symbol, __ATOMIC_RELEASE);
  } else {
    return tvmffi__raise("ValueError",
                         "Unknown env API %s (expected PyErr_CheckSignals, PyGILState_Ensure "
                         "or PyGILState_Release)",
                         name);
  }
  return 0;
}
