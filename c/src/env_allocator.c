/*
 * env_allocator.c -- the DLPack managed-tensor allocator slot of the
 * environment API (docs/abi.md §11.2): a thread-local allocator and a global
 * one.  On its own because the Python binding sets and restores the slot
 * around every call with a framework tensor: built with TLS descriptors like
 * object.c (c/Makefile.inc), the thread-local access is a few instructions.
 */
#include "internal.h"

static _Thread_local DLPackManagedTensorAllocator tls_allocator;
static DLPackManagedTensorAllocator global_allocator; /* accessed atomically */

int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator) {
  /* Read and written before any branch: one thread-local access, not one per branch.  Only
   * the thread-local value is reported, as the reference does. */
  DLPackManagedTensorAllocator prev = tls_allocator;
  tls_allocator = allocator;
  if (opt_out_original_allocator != NULL) *opt_out_original_allocator = prev;
  if (write_to_global_context != 0)
    __atomic_store_n(&global_allocator, allocator, __ATOMIC_RELEASE);
  return 0;
}

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  if (tls_allocator != NULL) return tls_allocator;
  return __atomic_load_n(&global_allocator, __ATOMIC_ACQUIRE);
}
