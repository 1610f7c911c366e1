/* test_env.c -- streams, tensor allocator and frontend hooks (docs/abi.md §11.1-§11.3). */
#include <pthread.h>

#include "check.h"

/* ---- streams ------------------------------------------------------------- */

static void* other_thread_streams(void* arg) {
  (void)arg;
  /* Another thread sees its own, empty table... */
  if (TVMFFIEnvGetStream(kDLCUDA, 0) != NULL) return (void*)1;
  /* ...and its settings do not leak into the main thread's. */
  if (TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0xBEEF, NULL) != 0) return (void*)2;
  if (TVMFFIEnvSetStream(kDLCUDA, 7, (void*)0xF00D, NULL) != 0) return (void*)3;
  if (TVMFFIEnvGetStream(kDLCUDA, 0) != (void*)0xBEEF) return (void*)4;
  return NULL; /* the thread's table is freed at exit (valgrind checks) */
}

static void test_streams(void) {
  TVMFFIStreamHandle orig = (void*)0x1;
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == NULL);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0x100, &orig));
  CHECK(orig == NULL); /* never set before */
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == (void*)0x100);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLROCM, 0) == NULL);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 1, (void*)0x101, NULL));
  CHECK_OK(TVMFFIEnvSetStream(kDLROCM, 0, (void*)0x200, NULL));
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0x102, &orig));
  CHECK(orig == (void*)0x100);
  /* Many devices: the table grows. */
  for (int i = 0; i < 40; ++i)
    CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 100 + i, (void*)(uintptr_t)(0x1000 + i), NULL));
  for (int i = 0; i < 40; ++i)
    CHECK(TVMFFIEnvGetStream(kDLCUDA, 100 + i) == (void*)(uintptr_t)(0x1000 + i));

  pthread_t th;
  void* rc = (void*)99;
  CHECK(pthread_create(&th, NULL, other_thread_streams, NULL) == 0);
  CHECK(pthread_join(th, &rc) == 0);
  CHECK(rc == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == (void*)0x102);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 7) == NULL);

  /* Restoring NULL (the default stream) reports what was there. */
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, NULL, &orig));
  CHECK(orig == (void*)0x102);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1) == (void*)0x101);
  CHECK(TVMFFIEnvGetStream(kDLROCM, 0) == (void*)0x200);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, NULL, &orig));
  CHECK(orig == NULL);

  /* Negative device type or id. */
  orig = (void*)0x1;
  CHECK_RAISED(TVMFFIEnvSetStream(-1, 0, (void*)0x5, &orig), "ValueError", "non-negative");
  CHECK_RAISED(TVMFFIEnvSetStream(kDLCUDA, -2, (void*)0x5, &orig), "ValueError", "(2, -2)");
  CHECK(orig == (void*)0x1);
  CHECK(TVMFFIEnvGetStream(-1, 0) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, -1) == NULL);
}

/* ---- allocator ----------------------------------------------------------- */

static int alloc_calls;
static int alloc_frees;

/* Owns one malloc'd managed tensor with its own shape copy and data. */
typedef struct {
  DLManagedTensorVersioned mt;
  int64_t shape[8];
} fake_alloc_block;

static void fake_alloc_deleter(DLManagedTensorVersioned* self) {
  ++alloc_frees;
  free(self->dl_tensor.data);
  free(self);
}

static int good_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                      void (*set_error)(void*, const char*, const char*)) {
  (void)ctx;
  (void)set_error;
  ++alloc_calls;
  fake_alloc_block* b = calloc(1, sizeof(*b));
  if (b == NULL) return -1;
  size_t numel = 1;
  for (int i = 0; i < proto->ndim; ++i) {
    b->shape[i] = proto->shape[i];
    numel *= (size_t)proto->shape[i];
  }
  b->mt.version.major = DLPACK_MAJOR_VERSION;
  b->mt.version.minor = DLPACK_MINOR_VERSION;
  b->mt.deleter = fake_alloc_deleter;
  b->mt.dl_tensor.data = malloc(numel * ((proto->dtype.bits * proto->dtype.lanes + 7) / 8) + 1);
  b->mt.dl_tensor.device = proto->device;
  b->mt.dl_tensor.ndim = proto->ndim;
  b->mt.dl_tensor.dtype = proto->dtype;
  b->mt.dl_tensor.shape = b->shape;
  b->mt.dl_tensor.strides = NULL;
  *out = &b->mt;
  return 0;
}

static int other_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                       void (*set_error)(void*, const char*, const char*)) {
  return good_alloc(proto, out, ctx, set_error);
}

static int failing_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                         void (*set_error)(void*, const char*, const char*)) {
  (void)proto;
  (void)out;
  set_error(ctx, "MemoryError", "out of fake device memory");
  return -7; /* passed through unchanged */
}

static int silent_failing_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                                void (*set_error)(void*, const char*, const char*)) {
  (void)proto;
  (void)out;
  (void)ctx;
  (void)set_error;
  return -1;
}

static int null_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                      void (*set_error)(void*, const char*, const char*)) {
  (void)proto;
  (void)ctx;
  (void)set_error;
  *out = NULL;
  return 0;
}

/* Returns a tensor whose ndim is out of range: must be released, not wrapped. */
static int bogus_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                       void (*set_error)(void*, const char*, const char*)) {
  int rc = good_alloc(proto, out, ctx, set_error);
  (*out)->dl_tensor.ndim = 1000;
  return rc;
}

static DLTensor proto_2x3(int64_t* shape) {
  DLTensor p;
  memset(&p, 0, sizeof(p));
  shape[0] = 2;
  shape[1] = 3;
  p.device.device_type = kDLCPU;
  p.ndim = 2;
  p.dtype.code = kDLFloat;
  p.dtype.bits = 32;
  p.dtype.lanes = 1;
  p.shape = shape;
  return p;
}

static void* other_thread_alloc(void* arg) {
  (void)arg;
  /* Sees the global allocator only. */
  return (void*)TVMFFIEnvGetDLPackManagedTensorAllocator();
}

static DLPackManagedTensorAllocator get_from_other_thread(void) {
  pthread_t th;
  void* r = NULL;
  CHECK(pthread_create(&th, NULL, other_thread_alloc, NULL) == 0);
  CHECK(pthread_join(th, &r) == 0);
  DLPackManagedTensorAllocator a;
  memcpy(&a, &r, sizeof(a));
  return a;
}

static void test_allocator(void) {
  int64_t shape[2];
  DLTensor proto = proto_2x3(shape);
  TVMFFIObjectHandle t = (TVMFFIObjectHandle)0x1;
  DLPackManagedTensorAllocator prev = good_alloc;

  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == NULL);
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "RuntimeError",
               "TVMFFIEnvTensorAlloc: allocator is nullptr, likely because "
               "TVMFFIEnvSetDLPackManagedTensorAllocator has not been called.");
  CHECK(t == (TVMFFIObjectHandle)0x1);

  /* Thread-local only. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(good_alloc, 0, &prev));
  CHECK(prev == NULL);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == good_alloc);
  CHECK(get_from_other_thread() == NULL);

  alloc_calls = alloc_frees = 0;
  CHECK_OK(TVMFFIEnvTensorAlloc(&proto, &t));
  CHECK_EQ_INT(alloc_calls, 1);
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(t), kTVMFFITensor);
  CHECK_EQ_INT(check_use_count(t), 1);
  DLTensor* dl = TVMFFITensorGetDLTensorPtr(t);
  CHECK_EQ_INT(dl->ndim, 2);
  CHECK(dl->shape != shape); /* the allocator's own copy */
  CHECK_EQ_INT(dl->shape[1], 3);
  CHECK(dl->strides != NULL); /* materialised */
  CHECK_EQ_INT(dl->strides[0], 3);
  CHECK_EQ_INT(dl->strides[1], 1);
  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(alloc_frees, 1);

  /* Global: visible from other threads; thread-local wins where set. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(other_alloc, 1, &prev));
  CHECK(prev == good_alloc);
  CHECK(get_from_other_thread() == other_alloc);
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(good_alloc, 0, &prev));
  CHECK(prev == other_alloc); /* the thread-local value, not the global one */
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == good_alloc);
  CHECK(get_from_other_thread() == other_alloc);
  /* Clearing the thread-local value falls back to the global one. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL));
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == other_alloc);

  /* Allocator errors keep their kind, message and return code. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(failing_alloc, 0, NULL));
  t = (TVMFFIObjectHandle)0x1;
  {
    int rc = TVMFFIEnvTensorAlloc(&proto, &t);
    CHECK_EQ_INT(rc, -7);
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    CHECK(err != NULL);
    CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(err)->kind, "MemoryError");
    CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(err)->message, "out of fake device memory");
    TVMFFIObjectDecRef(err);
  }
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(silent_failing_alloc, 0, NULL));
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "RuntimeError", "without reporting an error");
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(null_alloc, 0, NULL));
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "RuntimeError",
               "TVMFFIEnvTensorAlloc: failed to allocate a tensor from the allocator");
  alloc_frees = 0;
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(bogus_alloc, 0, NULL));
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "ValueError", "ndim");
  CHECK_EQ_INT(alloc_frees, 1); /* handed back, not leaked */
  CHECK(t == (TVMFFIObjectHandle)0x1);

  /* Bad prototypes never reach the allocator. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(good_alloc, 0, NULL));
  alloc_calls = 0;
  proto.ndim = -1;
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "ValueError", "ndim");
  proto.ndim = 2;
  proto.shape = NULL;
  CHECK_RAISED(TVMFFIEnvTensorAlloc(&proto, &t), "ValueError", "shape is NULL");
  CHECK_RAISED(TVMFFIEnvTensorAlloc(NULL, &t), "ValueError", "NULL");
  CHECK_EQ_INT(alloc_calls, 0);

  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, NULL));
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == NULL);
}

/* ---- frontend hooks ------------------------------------------------------- */

static char hook_log[64];
static int signal_result;

static void log_event(char c) {
  size_t n = strlen(hook_log);
  if (n + 1 < sizeof(hook_log)) hook_log[n] = c;
}
static int fake_check_signals(void) {
  log_event('C');
  return signal_result;
}
static void* fake_gil_ensure(void) {
  log_event('E');
  return (void*)0x6157;
}
static void fake_gil_release(void* state) { log_event(state == (void*)0x6157 ? 'R' : '?'); }

static void* as_ptr_int(int (*f)(void)) {
  void* p;
  memcpy(&p, &f, sizeof(p));
  return p;
}
static void* as_ptr_ensure(void* (*f)(void)) {
  void* p;
  memcpy(&p, &f, sizeof(p));
  return p;
}
static void* as_ptr_release(void (*f)(void*)) {
  void* p;
  memcpy(&p, &f, sizeof(p));
  return p;
}

static void test_signals(void) {
  CHECK_EQ_INT(TVMFFIEnvCheckSignals(), 0); /* nothing registered */
  CHECK_SLOT_CLEAN();

  /* Check registered without the GIL pair: an internal check fails. */
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", as_ptr_int(fake_check_signals)));
  CHECK_RAISED(TVMFFIEnvCheckSignals(), "InternalError", "PyGILState_Ensure");
  CHECK_EQ_INT(strlen(hook_log), 0);

  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Ensure", as_ptr_ensure(fake_gil_ensure)));
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Release", as_ptr_release(fake_gil_release)));
  signal_result = 0;
  CHECK_EQ_INT(TVMFFIEnvCheckSignals(), 0);
  CHECK_EQ_STR(hook_log, "ECR"); /* check runs under the frontend lock */
  CHECK_SLOT_CLEAN();

  /* A pending frontend exception: -1 and no FFI error. */
  memset(hook_log, 0, sizeof(hook_log));
  signal_result = -1;
  CHECK_EQ_INT(TVMFFIEnvCheckSignals(), -1);
  CHECK_EQ_STR(hook_log, "ECR");
  CHECK_SLOT_CLEAN();

  /* Re-registration overwrites; NULL unregisters. */
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyErr_CheckSignals", NULL));
  memset(hook_log, 0, sizeof(hook_log));
  CHECK_EQ_INT(TVMFFIEnvCheckSignals(), 0);
  CHECK_EQ_INT(strlen(hook_log), 0);

  CHECK_RAISED(TVMFFIEnvRegisterCAPI("PyErr_Occurred", (void*)0x1), "ValueError",
               "Unknown env API PyErr_Occurred");
  CHECK_RAISED(TVMFFIEnvRegisterCAPI(NULL, (void*)0x1), "ValueError", "NULL");
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Ensure", NULL));
  CHECK_OK(TVMFFIEnvRegisterCAPI("PyGILState_Release", NULL));
}

int main(void) {
  test_streams();
  test_allocator();
  test_signals();
  printf("test_env: ok\n");
  return 0;
}
