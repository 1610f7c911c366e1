/*
 * init_once.c -- TVMFFIHandleInitOnce / TVMFFIHandleDeinitOnce (docs/abi.md
 * §10.9): lazily initialised handles for generated code.  One process-wide
 * mutex, so init_func must not recurse into TVMFFIHandleInitOnce.
 */
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t init_once_mutex = PTHREAD_MUTEX_INITIALIZER;

TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result)) {
  if (handle_addr == NULL || init_func == NULL)
    return tvmffi__raise("ValueError",
                         "TVMFFIHandleInitOnce: handle_addr and init_func must not be NULL");
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) != NULL) return 0;
  pthread_mutex_lock(&init_once_mutex);
  int rc = 0;
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) == NULL) {
    void* tmp = NULL;
    rc = init_func(&tmp);
    if (rc == 0 && tmp == NULL)
      rc = tvmffi__raise("RuntimeError", "init_func must return a non-NULL handle");
    if (rc == 0) __atomic_store_n(handle_addr, tmp, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&init_once_mutex);
  return rc;
}

TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle)) {
  if (handle_addr == NULL) return 0;
  void* old = __atomic_exchange_n(handle_addr, NULL, __ATOMIC_ACQ_REL);
  if (old == NULL || deinit_func == NULL) return 0;
  return deinit_func(old);
}
