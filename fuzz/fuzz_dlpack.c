/*
 * fuzz_dlpack.c -- libFuzzer target for TVMFFITensorFromDLPack[Versioned],
 * ToDLPack[Versioned] and CreateUnsafeView.
 *
 * The input bytes describe a managed tensor: legacy or versioned, version,
 * flags, ndim (including negative and > 64), device, dtype, shape and
 * strides (small, negative, zero or huge values), NULL or misaligned data,
 * byte_offset and the alignment/contiguity requirements.  The shape and
 * strides arrays have exactly the entries a valid ndim needs (none when ndim
 * is out of range), so ASan reports any read the runtime should not make.
 *
 * Properties: failure raises exactly one ValueError/RuntimeError and takes
 * nothing (our deleter is not called); success yields a tensor whose
 * DLTensor matches the source (shape pointer shared, strides materialised
 * compact when absent), whose exports hold a reference until their deleter
 * runs, and whose destruction calls our deleter exactly once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define FUZZ_ASSERT(cond, ...)                     \
  do {                                             \
    if (!(cond)) {                                 \
      fprintf(stderr, "fuzz_dlpack: %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);                \
      fprintf(stderr, "\n");                       \
      abort();                                     \
    }                                              \
  } while (0)

typedef struct {
  const uint8_t* p;
  size_t n;
} reader;

static uint8_t take(reader* r) {
  if (r->n == 0) return 0;
  --r->n;
  return *r->p++;
}

/* Extents: mostly small, sometimes zero, negative or huge. */
static int64_t take_extent(reader* r) {
  uint8_t b = take(r);
  switch (b >> 5) {
    case 0:
      return 0;
    case 1:
      return -(int64_t)(b & 31) - 1;
    case 2:
      return (int64_t)1 << (b & 31) << (b & 31);
    case 3:
      return INT64_MAX - (b & 31);
    default:
      return (b & 7) + 1;
  }
}

static int64_t take_stride(reader* r) {
  uint8_t b = take(r);
  return (b & 0x80) ? -(int64_t)(b & 0x7F) : (int64_t)b;
}

static int deleted;
static void legacy_deleter(DLManagedTensor* self) {
  (void)self;
  ++deleted;
}
static void versioned_deleter(DLManagedTensorVersioned* self) {
  (void)self;
  ++deleted;
}

static uint32_t use_count(TVMFFIObjectHandle h) {
  return (uint32_t)(__atomic_load_n(&((TVMFFIObject*)h)->combined_ref_count, __ATOMIC_RELAXED) &
                    0xFFFFFFFFu);
}

static void expect_error(int rc, const char* a, const char* b) {
  FUZZ_ASSERT(rc != 0, "expected failure");
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  FUZZ_ASSERT(err != NULL, "failure without a raised error");
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
  int ok = (c->kind.size == strlen(a) && memcmp(c->kind.data, a, c->kind.size) == 0) ||
           (b != NULL && c->kind.size == strlen(b) && memcmp(c->kind.data, b, c->kind.size) == 0);
  FUZZ_ASSERT(ok, "unexpected kind %.*s: %.*s", (int)c->kind.size, c->kind.data,
              (int)c->message.size, c->message.data);
  TVMFFIObjectDecRef(err);
}

static void expect_clean(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  FUZZ_ASSERT(err == NULL, "success left an error raised");
}

/* Checks a freshly imported tensor against its source and exercises export
 * and views; leaves the tensor's reference count as it found it. */
static void check_tensor(TVMFFIObjectHandle t, const DLTensor* src) {
  FUZZ_ASSERT(TVMFFIObjectGetTypeIndex(t) == kTVMFFITensor, "type index");
  FUZZ_ASSERT(use_count(t) == 1, "fresh tensor use_count %u", use_count(t));
  const DLTensor* dl = TVMFFITensorGetDLTensorPtr(t);
  FUZZ_ASSERT(dl->data == src->data && dl->ndim == src->ndim && dl->shape == src->shape &&
                  dl->byte_offset == src->byte_offset &&
                  dl->device.device_type == src->device.device_type &&
                  dl->device.device_id == src->device.device_id &&
                  memcmp(&dl->dtype, &src->dtype, sizeof(DLDataType)) == 0,
              "fields not copied");
  if (src->strides != NULL) {
    FUZZ_ASSERT(dl->strides == src->strides, "strides pointer changed");
  } else if (dl->ndim > 0) {
    FUZZ_ASSERT(dl->strides != NULL, "strides not materialised");
    uint64_t expect = 1;
    for (int32_t i = dl->ndim - 1; i >= 0; --i) {
      FUZZ_ASSERT((uint64_t)dl->strides[i] == expect, "stride %d", (int)i);
      expect *= (uint64_t)dl->shape[i];
    }
  }

  DLManagedTensor* out = NULL;
  FUZZ_ASSERT(TVMFFITensorToDLPack(t, &out) == 0, "ToDLPack");
  DLManagedTensorVersioned* vout = NULL;
  FUZZ_ASSERT(TVMFFITensorToDLPackVersioned(t, &vout) == 0, "ToDLPackVersioned");
  expect_clean();
  FUZZ_ASSERT(use_count(t) == 3, "exports hold references");
  FUZZ_ASSERT(out->dl_tensor.strides == dl->strides && vout->dl_tensor.shape == dl->shape &&
                  vout->version.major == DLPACK_MAJOR_VERSION && vout->flags == 0,
              "export contents");

  /* A view built from the tensor's own description. */
  TVMFFIObjectHandle view = NULL;
  int rc = TVMFFITensorCreateUnsafeView(t, dl, &view);
  if (dl->strides == NULL) {
    expect_error(rc, "InternalError", NULL);
  } else {
    FUZZ_ASSERT(rc == 0, "view");
    expect_clean();
    const DLTensor* v = TVMFFITensorGetDLTensorPtr(view);
    FUZZ_ASSERT(v->ndim == dl->ndim && v->data == dl->data, "view fields");
    if (dl->ndim > 0)
      FUZZ_ASSERT(memcmp(v->shape, dl->shape, (size_t)dl->ndim * 8) == 0 &&
                      memcmp(v->strides, dl->strides, (size_t)dl->ndim * 8) == 0,
                  "view shape/strides");
    FUZZ_ASSERT(use_count(t) == 4, "view keeps the source");
    TVMFFIObjectDecRef(view);
  }
  out->deleter(out);
  vout->deleter(vout);
  FUZZ_ASSERT(use_count(t) == 1, "exports released");
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  reader r = {data, size};
  uint8_t mode = take(&r);
  int versioned = mode & 1;
  int null_strides = mode & 2;
  int32_t require_contiguous = (mode >> 2) & 1;
  int null_data = (mode >> 3) & 1;
  int null_shape = ((mode >> 4) & 7) == 7;
  int32_t ndim = (int8_t)take(&r);
  int32_t device_type = (int8_t)take(&r);
  int32_t device_id = (int8_t)take(&r);
  DLDataType dtype;
  dtype.code = take(&r);
  dtype.bits = take(&r);
  dtype.lanes = (uint16_t)(take(&r) | (take(&r) << 8));
  uint64_t byte_offset = take(&r);
  int8_t align_byte = (int8_t)take(&r);
  int32_t require_alignment =
      align_byte >= 0 && align_byte < 16 ? (1 << (align_byte & 15)) >> 1 : (int32_t)align_byte;
  uint8_t data_shift = take(&r) & 7;
  uint32_t major = take(&r) % 3;
  uint64_t flags = take(&r) & 7;

  /* Exactly as many entries as a valid ndim needs: over-reads are caught. */
  size_t nent = (ndim > 0 && ndim <= 64) ? (size_t)ndim : 0;
  int64_t* shape = null_shape ? NULL : malloc(nent ? nent * sizeof(int64_t) : 1);
  int64_t* strides = null_strides ? NULL : malloc(nent ? nent * sizeof(int64_t) : 1);
  for (size_t i = 0; i < nent; ++i) {
    int64_t e = take_extent(&r);
    if (shape) shape[i] = e;
    int64_t s = take_stride(&r);
    if (strides) strides[i] = s;
  }
  static _Alignas(256) uint8_t buffer[512];
  void* ptr = null_data ? NULL : buffer + data_shift;

  DLTensor dl;
  dl.data = ptr;
  dl.device.device_type = (DLDeviceType)device_type;
  dl.device.device_id = device_id;
  dl.ndim = ndim;
  dl.dtype = dtype;
  dl.shape = shape;
  dl.strides = strides;
  dl.byte_offset = byte_offset;

  deleted = 0;
  TVMFFIObjectHandle t = NULL;
  int rc;
  DLManagedTensor legacy;
  DLManagedTensorVersioned ver;
  if (versioned) {
    ver.version.major = major;
    ver.version.minor = 7;
    ver.manager_ctx = NULL;
    ver.deleter = versioned_deleter;
    ver.flags = flags;
    ver.dl_tensor = dl;
    rc = TVMFFITensorFromDLPackVersioned(&ver, require_alignment, require_contiguous, &t);
  } else {
    legacy.dl_tensor = dl;
    legacy.manager_ctx = NULL;
    legacy.deleter = legacy_deleter;
    rc = TVMFFITensorFromDLPack(&legacy, require_alignment, require_contiguous, &t);
  }
  if (rc == 0) {
    expect_clean();
    FUZZ_ASSERT(t != NULL, "no tensor");
    check_tensor(t, &dl);
    FUZZ_ASSERT(deleted == 0, "deleter ran early");
    TVMFFIObjectDecRef(t);
    FUZZ_ASSERT(deleted == 1, "deleter ran %d times", deleted);
  } else {
    expect_error(rc, "ValueError", "RuntimeError");
    FUZZ_ASSERT(t == NULL && deleted == 0, "failure took ownership");
  }
  free(shape);
  free(strides);
  return 0;
}
