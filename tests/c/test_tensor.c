/* test_tensor.c -- ffi.Tensor and DLPack import/export (docs/abi.md §7.5, §10.5). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"

static int legacy_deleted;
static int versioned_deleted;

static void legacy_deleter(DLManagedTensor* self) {
  (void)self;
  ++legacy_deleted;
}
static void versioned_deleter(DLManagedTensorVersioned* self) {
  (void)self;
  ++versioned_deleted;
}

/* Float storage big enough for every tensor below, 64-byte aligned. */
static _Alignas(64) float storage[256];

static DLTensor make_dl(int32_t ndim, int64_t* shape, int64_t* strides) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = storage;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
  return t;
}

static DLManagedTensor make_legacy(int32_t ndim, int64_t* shape, int64_t* strides) {
  DLManagedTensor mt;
  mt.dl_tensor = make_dl(ndim, shape, strides);
  mt.manager_ctx = NULL;
  mt.deleter = legacy_deleter;
  return mt;
}

static DLManagedTensorVersioned make_versioned(int32_t ndim, int64_t* shape, int64_t* strides) {
  DLManagedTensorVersioned mt;
  mt.version.major = DLPACK_MAJOR_VERSION;
  mt.version.minor = DLPACK_MINOR_VERSION;
  mt.manager_ctx = NULL;
  mt.deleter = versioned_deleter;
  mt.flags = 0;
  mt.dl_tensor = make_dl(ndim, shape, strides);
  return mt;
}

static void test_legacy_round_trip(void) {
  int64_t shape[3] = {2, 3, 4};
  DLManagedTensor mt = make_legacy(3, shape, NULL);
  mt.dl_tensor.byte_offset = 8;
  TVMFFIObjectHandle t = NULL;
  legacy_deleted = 0;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 0, &t));
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(t), kTVMFFITensor);
  CHECK_EQ_INT(check_use_count(t), 1);
  DLTensor* dl = TVMFFITensorGetDLTensorPtr(t);
  CHECK((char*)dl == (char*)t + 24);
  CHECK(dl->data == storage);
  CHECK_EQ_INT(dl->ndim, 3);
  CHECK_EQ_INT(dl->byte_offset, 8);
  CHECK(dl->dtype.code == kDLFloat && dl->dtype.bits == 32 && dl->dtype.lanes == 1);
  CHECK(dl->device.device_type == kDLCPU && dl->device.device_id == 0);
  CHECK(dl->shape == shape); /* shape points into the source */
  /* NULL strides are materialised as compact row-major, owned by the object. */
  CHECK(dl->strides != NULL);
  CHECK_EQ_INT(dl->strides[0], 12);
  CHECK_EQ_INT(dl->strides[1], 4);
  CHECK_EQ_INT(dl->strides[2], 1);
  CHECK(mt.dl_tensor.strides == NULL); /* the source is not modified */

  /* Export: the tensor stays alive until the consumer's deleter runs. */
  DLManagedTensor* out = NULL;
  CHECK_OK(TVMFFITensorToDLPack(t, &out));
  CHECK_EQ_INT(check_use_count(t), 2);
  CHECK(out->manager_ctx == t);
  CHECK(out->dl_tensor.data == storage);
  CHECK(out->dl_tensor.shape == dl->shape && out->dl_tensor.strides == dl->strides);
  CHECK_EQ_INT(out->dl_tensor.byte_offset, 8);
  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(legacy_deleted, 0);
  CHECK_EQ_INT(check_use_count(t), 1);
  CHECK_EQ_INT(out->dl_tensor.strides[0], 12); /* still readable */
  out->deleter(out);
  CHECK_EQ_INT(legacy_deleted, 1); /* exactly once, when the last reference went */
}

static void test_versioned_round_trip(void) {
  int64_t shape[2] = {3, 5};
  int64_t strides[2] = {5, 1};
  DLManagedTensorVersioned mt = make_versioned(2, shape, strides);
  mt.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED; /* ignored */
  mt.version.minor = 99; /* minor versions are fine */
  TVMFFIObjectHandle t = NULL;
  versioned_deleted = 0;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(&mt, 64, 1, &t));
  DLTensor* dl = TVMFFITensorGetDLTensorPtr(t);
  CHECK(dl->shape == shape && dl->strides == strides);

  DLManagedTensorVersioned* out = NULL;
  CHECK_OK(TVMFFITensorToDLPackVersioned(t, &out));
  CHECK_EQ_INT(out->version.major, DLPACK_MAJOR_VERSION);
  CHECK_EQ_INT(out->version.minor, DLPACK_MINOR_VERSION);
  CHECK_EQ_INT(out->flags, 0);
  CHECK(out->manager_ctx == t);
  CHECK_EQ_INT(check_use_count(t), 2);

  /* Re-import the export: a second tensor owning the first. */
  TVMFFIObjectHandle t2 = NULL;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(out, 0, 0, &t2));
  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(versioned_deleted, 0);
  CHECK(TVMFFITensorGetDLTensorPtr(t2)->data == storage);
  TVMFFIObjectDecRef(t2); /* runs out->deleter, which drops t */
  CHECK_EQ_INT(versioned_deleted, 1);
}

static void test_zero_dim_and_null_deleter(void) {
  DLManagedTensor mt = make_legacy(0, NULL, NULL);
  mt.deleter = NULL; /* allowed: nothing to call */
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 4, 1, &t));
  CHECK_EQ_INT(TVMFFITensorGetDLTensorPtr(t)->ndim, 0);
  TVMFFIObjectDecRef(t);
}

/* A failed import raises `kind` and leaves the managed tensor to the caller. */
#define IMPORT_FAILS(mtp, align, contig, kind, needle)                                 \
  do {                                                                                 \
    TVMFFIObjectHandle _t = (TVMFFIObjectHandle)0x1;                                   \
    legacy_deleted = 0;                                                                \
    CHECK_RAISED(TVMFFITensorFromDLPack((mtp), (align), (contig), &_t), kind, needle); \
    CHECK(_t == (TVMFFIObjectHandle)0x1);                                              \
    CHECK_EQ_INT(legacy_deleted, 0);                                                   \
  } while (0)

static void test_alignment(void) {
  int64_t shape[1] = {4};
  DLManagedTensor mt = make_legacy(1, shape, NULL);
  TVMFFIObjectHandle t = NULL;
  mt.dl_tensor.byte_offset = 4;
  IMPORT_FAILS(&mt, 8, 0, "RuntimeError", "FromDLPack: Data is not aligned to 8 bytes.");
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 4, 0, &t)); /* 4-aligned is enough */
  TVMFFIObjectDecRef(t);
  mt.dl_tensor.byte_offset = 0;
  mt.dl_tensor.data = (char*)storage + 2; /* misaligned pointer itself */
  IMPORT_FAILS(&mt, 4, 0, "RuntimeError", "FromDLPack: Data is not aligned to 4 bytes.");
  mt.dl_tensor.byte_offset = 2; /* data + byte_offset is what counts */
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 4, 0, &t));
  TVMFFIObjectDecRef(t);
  /* Non direct-address devices: data is opaque, only byte_offset counts. */
  mt.dl_tensor.device.device_type = kDLOpenCL;
  mt.dl_tensor.data = (void*)(uintptr_t)0x1003;
  mt.dl_tensor.byte_offset = 64;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 64, 0, &t));
  TVMFFIObjectDecRef(t);
  mt.dl_tensor.byte_offset = 65;
  IMPORT_FAILS(&mt, 64, 0, "RuntimeError", "not aligned to 64 bytes");
  mt.dl_tensor.byte_offset = 0;
  IMPORT_FAILS(&mt, -1, 0, "ValueError", "require_alignment must be non-negative");
  /* Zero-size tensor with NULL data is aligned. */
  shape[0] = 0;
  mt.dl_tensor.device.device_type = kDLCPU;
  mt.dl_tensor.data = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 256, 1, &t));
  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(legacy_deleted, 1); /* counted since the last failed import */
}

static void test_contiguity(void) {
  int64_t shape[3] = {2, 3, 4};
  int64_t strides[3] = {12, 4, 1};
  DLManagedTensor mt = make_legacy(3, shape, strides);
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 1, &t));
  TVMFFIObjectDecRef(t);
  /* Transposed: not contiguous. */
  int64_t tshape[2] = {3, 2};
  int64_t tstrides[2] = {1, 3};
  DLManagedTensor tr = make_legacy(2, tshape, tstrides);
  IMPORT_FAILS(&tr, 0, 1, "RuntimeError", "FromDLPack: Tensor is not contiguous.");
  CHECK_OK(TVMFFITensorFromDLPack(&tr, 0, 0, &t)); /* fine when not required */
  TVMFFIObjectDecRef(t);
  /* Extent-1 dimensions may carry any stride. */
  int64_t s1shape[3] = {1, 3, 1};
  int64_t s1strides[3] = {999, 1, -7};
  DLManagedTensor s1 = make_legacy(3, s1shape, s1strides);
  CHECK_OK(TVMFFITensorFromDLPack(&s1, 0, 1, &t));
  TVMFFIObjectDecRef(t);
  /* A zero extent makes any strides contiguous. */
  int64_t zshape[2] = {0, 3};
  int64_t zstrides[2] = {1, 100};
  DLManagedTensor z = make_legacy(2, zshape, zstrides);
  CHECK_OK(TVMFFITensorFromDLPack(&z, 0, 1, &t));
  TVMFFIObjectDecRef(t);
  /* Padding in the middle is not contiguous. */
  int64_t pstrides[3] = {16, 4, 1};
  DLManagedTensor p = make_legacy(3, shape, pstrides);
  IMPORT_FAILS(&p, 0, 1, "RuntimeError", "not contiguous");
  /* Alignment is checked before contiguity. */
  p.dl_tensor.byte_offset = 1;
  IMPORT_FAILS(&p, 4, 1, "RuntimeError", "not aligned to 4 bytes");
}

static void test_versioned_rejections(void) {
  int64_t shape[1] = {8};
  DLManagedTensorVersioned mt = make_versioned(1, shape, NULL);
  TVMFFIObjectHandle t = (TVMFFIObjectHandle)0x1;
  versioned_deleted = 0;
  mt.dl_tensor.dtype.code = kDLFloat4_e2m1fn;
  mt.dl_tensor.dtype.bits = 4;
  mt.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  CHECK_RAISED(TVMFFITensorFromDLPackVersioned(&mt, 0, 0, &t), "RuntimeError",
               "Subbyte type padded is not yet supported");
  mt.flags = 0;
  mt.version.major = 2;
  CHECK_RAISED(TVMFFITensorFromDLPackVersioned(&mt, 0, 0, &t), "ValueError",
               "unsupported DLPack version 2.");
  /* Major 0 (a zero-initialised version field) is read like 1.x, as the
   * reference runtime does; only a newer major is refused. */
  mt.version.major = 0;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(&mt, 0, 0, &t));
  TVMFFIObjectDecRef(t);
  CHECK_EQ_INT(versioned_deleted, 1);
  versioned_deleted = 0;
  t = (TVMFFIObjectHandle)0x1;
  CHECK_RAISED(TVMFFITensorFromDLPackVersioned(NULL, 0, 0, &t), "ValueError", "NULL");
  CHECK(t == (TVMFFIObjectHandle)0x1);
  CHECK_EQ_INT(versioned_deleted, 0);
}

static void test_malformed(void) {
  int64_t shape[3] = {2, 3, 4};
  DLManagedTensor mt = make_legacy(3, shape, NULL);
  TVMFFIObjectHandle t = NULL;
  CHECK_RAISED(TVMFFITensorFromDLPack(NULL, 0, 0, &t), "ValueError", "managed tensor is NULL");
  CHECK_RAISED(TVMFFITensorFromDLPack(&mt, 0, 0, NULL), "ValueError", "out must not be NULL");
  shape[1] = -3;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "shape[1] is -3");
  shape[1] = 3;
  mt.dl_tensor.ndim = -1;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "ndim must be in [0, 64], got -1");
  mt.dl_tensor.ndim = 65;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "ndim must be in [0, 64], got 65");
  mt.dl_tensor.ndim = 3;
  mt.dl_tensor.shape = NULL;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "shape is NULL");
  mt.dl_tensor.shape = shape;
  mt.dl_tensor.device.device_type = (DLDeviceType)5;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "unsupported device type 5");
  mt.dl_tensor.device.device_type = (DLDeviceType)0;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "unsupported device type 0");
  mt.dl_tensor.device.device_type = (DLDeviceType)1000;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "unsupported device type 1000");
  mt.dl_tensor.device.device_type = kDLCUDA;
  mt.dl_tensor.device.device_id = -1;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "device_id must be non-negative");
  mt.dl_tensor.device.device_id = 0;
  mt.dl_tensor.data = NULL;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "data is NULL but the tensor has 24 elements");
  int64_t huge[3] = {INT64_MAX, INT64_MAX, 2};
  mt.dl_tensor.shape = huge;
  mt.dl_tensor.data = storage;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "overflows");
  /* Huge extents next to a zero extent are a valid empty tensor. */
  huge[2] = 0;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 1, &t));
  CHECK_EQ_INT(TVMFFITensorGetDLTensorPtr(t)->strides[2], 1);
  TVMFFIObjectDecRef(t);
  /* Import multiplies from the last extent: here the product overflows
   * before it meets the zero, still a valid empty tensor... */
  huge[0] = 0;
  huge[2] = 4;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 1, &t));
  CHECK_EQ_INT(TVMFFITensorGetDLTensorPtr(t)->strides[2], 1);
  CHECK_EQ_INT(TVMFFITensorGetDLTensorPtr(t)->strides[1], 4);
  TVMFFIObjectDecRef(t);
  /* ...while a product that wraps to exactly zero is an overflow. */
  int64_t wraps[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
  mt.dl_tensor.ndim = 2;
  mt.dl_tensor.shape = wraps;
  IMPORT_FAILS(&mt, 0, 0, "ValueError", "overflows");
}

static void test_export_errors(void) {
  DLManagedTensor* out = NULL;
  DLManagedTensorVersioned* vout = NULL;
  CHECK_RAISED(TVMFFITensorToDLPack(NULL, &out), "ValueError", "must not be NULL");
  CHECK_RAISED(TVMFFITensorToDLPackVersioned(NULL, &vout), "ValueError", "must not be NULL");
  /* A String is not a tensor. */
  TVMFFIAny s;
  TVMFFIByteArray ba = check_ba("definitely not a tensor");
  CHECK_OK(TVMFFIStringFromByteArray(&ba, &s));
  CHECK_RAISED(TVMFFITensorToDLPack(s.v_obj, &out), "TypeError", "expected `ffi.Tensor`");
  CHECK_RAISED(TVMFFITensorToDLPackVersioned(s.v_obj, &vout), "TypeError", "ffi.String");
  CHECK(out == NULL && vout == NULL);
  check_any_release(&s);
}

static void test_unsafe_view(void) {
  int64_t shape[2] = {4, 6};
  DLManagedTensor mt = make_legacy(2, shape, NULL);
  TVMFFIObjectHandle src = NULL, view = NULL;
  legacy_deleted = 0;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 0, &src));

  int64_t vshape[2] = {3, 2};
  int64_t vstrides[2] = {1, 6};
  DLTensor proto = *TVMFFITensorGetDLTensorPtr(src);
  proto.data = (char*)storage + 4; /* verbatim, not adjusted by byte_offset */
  proto.byte_offset = 16;
  proto.shape = vshape;
  proto.strides = vstrides;
  CHECK_OK(TVMFFITensorCreateUnsafeView(src, &proto, &view));
  CHECK_EQ_INT(check_use_count(src), 2);
  DLTensor* v = TVMFFITensorGetDLTensorPtr(view);
  CHECK(v->data == (char*)storage + 4);
  CHECK_EQ_INT(v->byte_offset, 16);
  CHECK(v->shape != vshape && v->strides != vstrides); /* copied, owned by the view */
  vshape[0] = 100;
  vstrides[1] = 100;
  CHECK_EQ_INT(v->shape[0], 3);
  CHECK_EQ_INT(v->shape[1], 2);
  CHECK_EQ_INT(v->strides[0], 1);
  CHECK_EQ_INT(v->strides[1], 6);
  /* The view keeps the source (and its DLPack owner) alive. */
  TVMFFIObjectDecRef(src);
  CHECK_EQ_INT(legacy_deleted, 0);
  DLManagedTensor* out = NULL;
  CHECK_OK(TVMFFITensorToDLPack(view, &out));
  out->deleter(out);
  TVMFFIObjectDecRef(view);
  CHECK_EQ_INT(legacy_deleted, 1);

  /* Bad prototypes. */
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 0, &src));
  proto.strides = NULL;
  CHECK_RAISED(TVMFFITensorCreateUnsafeView(src, &proto, &view), "InternalError", "strides");
  proto.strides = vstrides;
  proto.ndim = 100;
  CHECK_RAISED(TVMFFITensorCreateUnsafeView(src, &proto, &view), "ValueError", "ndim");
  proto.ndim = 2;
  vshape[0] = -1;
  CHECK_RAISED(TVMFFITensorCreateUnsafeView(src, &proto, &view), "ValueError", "shape[0]");
  CHECK_RAISED(TVMFFITensorCreateUnsafeView(NULL, &proto, &view), "ValueError", "NULL");
  CHECK_RAISED(TVMFFITensorCreateUnsafeView(src, NULL, &view), "ValueError", "NULL");
  CHECK_EQ_INT(check_use_count(src), 1);
  TVMFFIObjectDecRef(src);
  CHECK_EQ_INT(legacy_deleted, 2);
}

/* A C++ WeakObjectPtr keeps the block but not the contents: when the last
 * strong reference goes the DLPack owner is released (flag 1), and the
 * memory goes with the last weak unit (flag 2).  Emulates §4.3 by hand. */
static void test_weak_reference(void) {
  int64_t shape[1] = {3};
  DLManagedTensor mt = make_legacy(1, shape, NULL);
  TVMFFIObjectHandle t = NULL;
  legacy_deleted = 0;
  CHECK_OK(TVMFFITensorFromDLPack(&mt, 0, 0, &t));
  TVMFFIObject* h = (TVMFFIObject*)t;
  __atomic_fetch_add(&h->combined_ref_count, (uint64_t)1 << 32, __ATOMIC_RELAXED);
  TVMFFIObjectDecRef(t); /* strong 1 -> 0 with a weak ref: destroy, keep memory */
  CHECK_EQ_INT(legacy_deleted, 1);
  CHECK_EQ_INT(h->combined_ref_count, (uint64_t)1 << 32); /* block still readable */
  uint64_t old = __atomic_fetch_sub(&h->combined_ref_count, (uint64_t)1 << 32, __ATOMIC_RELEASE);
  CHECK(old == (uint64_t)1 << 32);
  h->deleter(h, kTVMFFIObjectDeleterFlagBitMaskWeak); /* frees; valgrind checks */
  CHECK_EQ_INT(legacy_deleted, 1);
}

/* Tensor blocks are reused through a per-thread cache (object.c): tensors
 * made, dropped and made again on several threads, some dropped on another
 * thread than their maker's, keep their own fields; small ones (cached) and
 * large ones (ndim 6 with computed strides: malloc) alike.  Each thread exits
 * with blocks cached: valgrind and LeakSanitizer find them freed. */
#define CACHE_ROUNDS 3
#define CACHE_TENSORS 40

static void make_many(TVMFFIObjectHandle* out, int64_t (*shapes)[6],
                      DLManagedTensorVersioned* mts) {
  for (int i = 0; i < CACHE_TENSORS; ++i) {
    int32_t ndim = i % 3 == 2 ? 6 : 2;
    for (int d = 0; d < 6; ++d) shapes[i][d] = 1 + (i + d) % 4;
    mts[i] = make_versioned(ndim, shapes[i], NULL);
    mts[i].deleter = NULL;
    CHECK_OK(TVMFFITensorFromDLPackVersioned(&mts[i], 0, 0, &out[i]));
  }
  for (int i = 0; i < CACHE_TENSORS; ++i) {
    DLTensor* dl = TVMFFITensorGetDLTensorPtr(out[i]);
    CHECK(dl->shape == shapes[i]);
    CHECK_EQ_INT(dl->ndim, i % 3 == 2 ? 6 : 2);
    CHECK_EQ_INT(dl->strides[dl->ndim - 1], 1);
    CHECK_EQ_INT(dl->strides[dl->ndim - 2], shapes[i][dl->ndim - 1]);
    CHECK_EQ_INT(((TVMFFIObject*)out[i])->type_index, kTVMFFITensor);
  }
}

typedef struct {
  TVMFFIObjectHandle mine[CACHE_TENSORS];
  TVMFFIObjectHandle theirs[CACHE_TENSORS]; /* made by main, dropped here */
  int64_t shapes[CACHE_TENSORS][6];
  DLManagedTensorVersioned mts[CACHE_TENSORS];
} cache_job;

/* Drops and forgets the handle (else valgrind finds the cached block through it). */
static void drop(TVMFFIObjectHandle* h) {
  TVMFFIObjectDecRef(*h);
  *h = NULL;
}

static void* cache_thread(void* arg) {
  cache_job* job = (cache_job*)arg;
  for (int i = 0; i < CACHE_TENSORS; ++i) drop(&job->theirs[i]);
  for (int r = 0; r < CACHE_ROUNDS; ++r) {
    make_many(job->mine, job->shapes, job->mts);
    for (int i = CACHE_TENSORS - 1; i >= 0; i -= 2) drop(&job->mine[i]);
    for (int i = 0; i < CACHE_TENSORS; i += 2) drop(&job->mine[i]);
  }
  return NULL;
}

static void test_block_cache_threads(void) {
  enum { kThreads = 4 };
  static cache_job jobs[kThreads];
  static int64_t shapes[kThreads][CACHE_TENSORS][6];
  static DLManagedTensorVersioned mts[kThreads][CACHE_TENSORS];
  pthread_t th[kThreads];
  /* Stacks of our own, freed after the join: glibc keeps a thread's
   * thread-local storage there, and would keep a stack it made for reuse,
   * where valgrind would still find the pointers to blocks a thread left. */
  void* stacks[kThreads];
  size_t stack_size = 1 << 20;
  for (int t = 0; t < kThreads; ++t) make_many(jobs[t].theirs, shapes[t], mts[t]);
  for (int t = 0; t < kThreads; ++t) {
    pthread_attr_t attr;
    CHECK_EQ_INT(posix_memalign(&stacks[t], 4096, stack_size), 0);
    CHECK_EQ_INT(pthread_attr_init(&attr), 0);
    CHECK_EQ_INT(pthread_attr_setstack(&attr, stacks[t], stack_size), 0);
    CHECK_EQ_INT(pthread_create(&th[t], &attr, cache_thread, &jobs[t]), 0);
    pthread_attr_destroy(&attr);
  }
  for (int t = 0; t < kThreads; ++t) {
    CHECK_EQ_INT(pthread_join(th[t], NULL), 0);
    free(stacks[t]);
  }
  /* And on the main thread, whose cache is freed when the library unloads. */
  TVMFFIObjectHandle again[CACHE_TENSORS];
  make_many(again, shapes[0], mts[0]);
  for (int i = 0; i < CACHE_TENSORS; ++i) drop(&again[i]);
}

int main(void) {
  test_legacy_round_trip();
  test_versioned_round_trip();
  test_zero_dim_and_null_deleter();
  test_alignment();
  test_contiguity();
  test_versioned_rejections();
  test_malformed();
  test_export_errors();
  test_unsafe_view();
  test_weak_reference();
  test_block_cache_threads();
  printf("test_tensor: ok\n");
  return 0;
}
