/*
 * tensor.c -- ffi.Tensor objects and DLPack import/export (docs/abi.md §7.5, §10.5).
 *
 * Object layout:
 *   0  TVMFFIObject header
 *   24 DLTensor (48 bytes; what C++ TensorObj and TVMFFITensorGetDLTensorPtr see)
 *   72 source: the managed tensor we own (DLPack import, env allocation) or
 *      the object we keep alive (unsafe view)
 *   80 source kind
 *   88 int64 tail: materialised strides (import with NULL strides) or the
 *      copied shape and strides (unsafe view)
 * The DLTensor fields never change after creation.
 *
 * Error kinds: the two messages the spec fixes ("Data is not aligned",
 * "Tensor is not contiguous") and the padded-subbyte rejection are
 * RuntimeError, as in the reference runtime.  Structurally invalid tensors
 * (NULL pointers, ndim out of range, negative extents, bad device, NULL data
 * with a non-zero size, wrong DLPack major version) are ValueError: the
 * reference runtime does not check them at all and would crash later.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum {
  kSourceLegacy = 0,    /* DLManagedTensor*          */
  kSourceVersioned = 1, /* DLManagedTensorVersioned* */
  kSourceObject = 2,    /* TVMFFIObject* kept alive   */
};

typedef struct {
  TVMFFIObject header;
  DLTensor dl;
  void* source;
  int32_t source_kind;
  int32_t block; /* from tvmffi__block_alloc (else malloc) */
  int64_t tail[];
} tvmffi__tensor_obj;

_Static_assert(offsetof(tvmffi__tensor_obj, dl) == 24, "DLTensor must follow the header");
_Static_assert(offsetof(tvmffi__tensor_obj, source) == 72, "source at +72 as upstream");

/* Frees the block of tensor_alloc below. */
static void tensor_free(tvmffi__tensor_obj* t) {
  if (t->block)
    tvmffi__block_free(t);
  else
    free(t);
}

static void tensor_deleter(void* self, int flags) {
  tvmffi__tensor_obj* t = (tvmffi__tensor_obj*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    switch (t->source_kind) {
      case kSourceLegacy: {
        DLManagedTensor* mt = (DLManagedTensor*)t->source;
        if (mt != NULL && mt->deleter != NULL) mt->deleter(mt);
        break;
      }
      case kSourceVersioned: {
        DLManagedTensorVersioned* mt = (DLManagedTensorVersioned*)t->source;
        if (mt != NULL && mt->deleter != NULL) mt->deleter(mt);
        break;
      }
      default:
        tvmffi__decref((TVMFFIObject*)t->source);
        break;
    }
    t->source = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) tensor_free(t);
}

/* A tensor object of `size` bytes, only its header and `block` set: from the
 * block cache where it fits (tensors are made and dropped per call). */
static inline __attribute__((always_inline)) tvmffi__tensor_obj* tensor_alloc(size_t size) {
  int block = size <= TVMFFI__BLOCK_SIZE;
  tvmffi__tensor_obj* t = (tvmffi__tensor_obj*)tvmffi__object_init(
      (TVMFFIObject*)(block ? tvmffi__block_alloc() : malloc(size)), kTVMFFITensor, tensor_deleter);
  if (t != NULL) t->block = block;
  return t;
}

/* ---- checks -------------------------------------------------------------- */

static int device_type_known(int32_t dt) {
  return (dt >= kDLCPU && dt <= kDLOpenCL) || (dt >= kDLVulkan && dt <= kDLTrn);
}

static int is_direct_address(int32_t dt) {
  return dt == kDLCPU || dt == kDLCUDA || dt == kDLCUDAHost || dt == kDLROCM || dt == kDLROCMHost ||
         dt == kDLCUDAManaged;
}

int tvmffi__dltensor_check(const char* fname, const DLTensor* t, int check_data) {
  if (t->ndim < 0 || t->ndim > TVMFFI__TENSOR_MAX_NDIM)
    return tvmffi__raise("ValueError", "%s: ndim must be in [0, %d], got %d", fname,
                         TVMFFI__TENSOR_MAX_NDIM, (int)t->ndim);
  if (t->ndim > 0 && t->shape == NULL)
    return tvmffi__raise("ValueError", "%s: shape is NULL for a tensor with ndim %d", fname,
                         (int)t->ndim);
  uint64_t numel = 1;
  int overflow = 0, has_zero = 0;
  for (int32_t i = 0; i < t->ndim; ++i) {
    int64_t d = t->shape[i];
    if (d < 0)
      return tvmffi__raise("ValueError", "%s: shape[%d] is %lld; extents must be non-negative",
                           fname, (int)i, (long long)d);
    if (d == 0) has_zero = 1;
    if (__builtin_mul_overflow(numel, (uint64_t)d, &numel)) overflow = 1;
  }
  if (has_zero) numel = 0;
  /* Strides and byte sizes are int64: more than 2^63 elements is nonsense. */
  if (!has_zero && (overflow || numel > (uint64_t)INT64_MAX))
    return tvmffi__raise("ValueError", "%s: the number of elements overflows 64 bits", fname);
  if (!device_type_known((int32_t)t->device.device_type))
    return tvmffi__raise("ValueError", "%s: unsupported device type %d", fname,
                         (int)t->device.device_type);
  if (t->device.device_id < 0)
    return tvmffi__raise("ValueError", "%s: device_id must be non-negative, got %d", fname,
                         (int)t->device.device_id);
  if (check_data && t->data == NULL && numel != 0)
    return tvmffi__raise("ValueError", "%s: data is NULL but the tensor has %llu elements", fname,
                         (unsigned long long)numel);
  return 0;
}

/* docs/abi.md §10.5: NULL strides, or any zero extent, or row-major compact
 * skipping extent-1 dimensions.  The shape has been validated, so the running
 * product cannot overflow (it is bounded by the element count). */
static int dltensor_is_contiguous(const DLTensor* t) {
  if (t->strides == NULL) return 1;
  for (int32_t i = 0; i < t->ndim; ++i)
    if (t->shape[i] == 0) return 1;
  int64_t expected = 1;
  for (int32_t i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] == 1) continue;
    if (t->strides[i] != expected) return 0;
    expected *= t->shape[i];
  }
  return 1;
}

static int dltensor_is_aligned(const DLTensor* t, uint64_t alignment) {
  if (is_direct_address((int32_t)t->device.device_type))
    return (((uint64_t)(uintptr_t)t->data + t->byte_offset) % alignment) == 0;
  return (t->byte_offset % alignment) == 0;
}

/* ---- construction -------------------------------------------------------- */

/* Wraps `dl` (inside the managed tensor `source`) into a new tensor object.
 * Does not check anything; on failure nothing is taken. */
static TVMFFIObject* tensor_wrap(void* source, int32_t kind, const DLTensor* dl) {
  size_t extra = (dl->strides == NULL && dl->ndim > 0) ? (size_t)dl->ndim : 0;
  tvmffi__tensor_obj* t = tensor_alloc(sizeof(tvmffi__tensor_obj) + extra * sizeof(int64_t));
  if (t == NULL) return NULL;
  t->dl = *dl; /* shape keeps pointing into the source, as upstream */
  if (extra != 0) {
    /* Compact row-major strides.  Unsigned arithmetic: a zero-size tensor may
     * have huge other extents, and wrapping is harmless there. */
    uint64_t stride = 1;
    for (int32_t i = dl->ndim - 1; i >= 0; --i) {
      t->tail[i] = (int64_t)stride;
      stride *= (uint64_t)dl->shape[i];
    }
    t->dl.strides = t->tail;
  }
  t->source = source;
  t->source_kind = kind;
  return &t->header;
}

/* A tensor the fast test below rejects: tvmffi__dltensor_check names the first
 * problem (0: none after all, a zero extent made the product overflow). */
static TVMFFI__COLD int import_recheck(const char* fname, const DLTensor* dl, TVMFFIObject* t) {
  if (tvmffi__dltensor_check(fname, dl, 1) == 0) return 0;
  tensor_free((tvmffi__tensor_obj*)t);
  return -1;
}

/* Checks and wraps in one backward pass over the shape: the pass writes the
 * strides tensor_wrap would and computes what tvmffi__dltensor_check tests,
 * which runs only when that test fails, so the messages and their order are
 * its own.  The block is allocated before the checks end and freed on error. */
static inline __attribute__((always_inline)) int tensor_import(
    const char* fname, void* source, int32_t kind, const DLTensor* dl, uint64_t flags,
    int32_t require_alignment, int32_t require_contiguous, TVMFFIObjectHandle* out) {
  if (out == NULL) return tvmffi__raise("ValueError", "%s: out must not be NULL", fname);
  if (require_alignment < 0)
    return tvmffi__raise("ValueError", "%s: require_alignment must be non-negative, got %d", fname,
                         (int)require_alignment);
  int32_t ndim = dl->ndim;
  const int64_t* shape = dl->shape;
  if (TVMFFI__UNLIKELY((uint32_t)ndim > TVMFFI__TENSOR_MAX_NDIM || (ndim != 0 && shape == NULL)))
    return tvmffi__dltensor_check(fname, dl, 1);
  size_t extra = dl->strides == NULL ? (size_t)ndim : 0;
  tvmffi__tensor_obj* t = tensor_alloc(sizeof(tvmffi__tensor_obj) + extra * sizeof(int64_t));
  if (t == NULL) return -1;
  /* Unsigned products: a zero-size tensor may have huge other extents, and
   * its wrapped strides are harmless (as in tensor_wrap). */
  uint64_t numel = 1;
  int64_t sign = 0; /* negative iff some extent is */
  uint64_t overflow = 0;
  int64_t* strides = t->tail;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    int64_t d = shape[i];
    if (extra != 0) strides[i] = (int64_t)numel;
    sign |= d;
#ifdef __SIZEOF_INT128__
    unsigned __int128 p = (unsigned __int128)numel * (uint64_t)d; /* one mul, high half */
    overflow |= (uint64_t)(p >> 64);
    numel = (uint64_t)p;
#else
    overflow |= __builtin_mul_overflow(numel, (uint64_t)d, &numel);
#endif
  }
  if (TVMFFI__UNLIKELY(sign < 0 || overflow || numel > (uint64_t)INT64_MAX ||
                       !device_type_known((int32_t)dl->device.device_type) ||
                       dl->device.device_id < 0 || (dl->data == NULL && numel != 0)) &&
      import_recheck(fname, dl, &t->header) != 0)
    return -1;
  int err = 0;
  if (require_alignment != 0 && !dltensor_is_aligned(dl, (uint64_t)require_alignment))
    err = tvmffi__raise("RuntimeError", "FromDLPack: Data is not aligned to %d bytes.",
                        (int)require_alignment);
  else if (require_contiguous != 0 && !dltensor_is_contiguous(dl))
    err = tvmffi__raise("RuntimeError", "FromDLPack: Tensor is not contiguous.");
  else if (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
    err = tvmffi__raise("RuntimeError", "Subbyte type padded is not yet supported");
  if (TVMFFI__UNLIKELY(err != 0)) {
    tensor_free(t);
    return err;
  }
  t->dl = *dl; /* shape keeps pointing into the source, as upstream */
  if (extra != 0) t->dl.strides = t->tail;
  t->source = source;
  t->source_kind = kind;
  *out = &t->header;
  return 0;
}

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  if (from == NULL)
    return tvmffi__raise("ValueError", "TVMFFITensorFromDLPack: managed tensor is NULL");
  return tensor_import("TVMFFITensorFromDLPack", from, kSourceLegacy, &from->dl_tensor, 0,
                       require_alignment, require_contiguous, out);
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  static const char kName[] = "TVMFFITensorFromDLPackVersioned";
  if (from == NULL) return tvmffi__raise("ValueError", "%s: managed tensor is NULL", kName);
  /* A newer major version may lay out everything after `flags` differently,
   * so nothing else is read and the caller keeps ownership.  Major 0 is
   * accepted: the reference runtime ignores the version field, and producers
   * that zero-initialise the struct exist. */
  if (from->version.major > DLPACK_MAJOR_VERSION)
    return tvmffi__raise("ValueError",
                         "%s: unsupported DLPack version %u.%u (this runtime reads major "
                         "version %d)",
                         kName, (unsigned)from->version.major, (unsigned)from->version.minor,
                         DLPACK_MAJOR_VERSION);
  return tensor_import(kName, from, kSourceVersioned, &from->dl_tensor, from->flags,
                       require_alignment, require_contiguous, out);
}

int tvmffi__tensor_from_allocated(DLManagedTensorVersioned* mt, TVMFFIObjectHandle* out) {
  /* Allocator output gets only the structural checks that keep us from
   * reading out of bounds; the spec wraps it without alignment/contiguity/
   * flag checks. */
  if (tvmffi__dltensor_check("TVMFFIEnvTensorAlloc", &mt->dl_tensor, 0) != 0) return -1;
  TVMFFIObject* t = tensor_wrap(mt, kSourceVersioned, &mt->dl_tensor);
  if (t == NULL) return -1;
  *out = t;
  return 0;
}

int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                 TVMFFIObjectHandle* out) {
  static const char kName[] = "TVMFFITensorCreateUnsafeView";
  if (source == NULL || prototype == NULL || out == NULL)
    return tvmffi__raise("ValueError", "%s: source, prototype and out must not be NULL", kName);
  if (prototype->strides == NULL)
    return tvmffi__raise("InternalError", "%s: prototype->strides must not be NULL", kName);
  if (prototype->ndim < 0 || prototype->ndim > TVMFFI__TENSOR_MAX_NDIM)
    return tvmffi__raise("ValueError", "%s: ndim must be in [0, %d], got %d", kName,
                         TVMFFI__TENSOR_MAX_NDIM, (int)prototype->ndim);
  if (prototype->ndim > 0 && prototype->shape == NULL)
    return tvmffi__raise("ValueError", "%s: shape is NULL for a tensor with ndim %d", kName,
                         (int)prototype->ndim);
  size_t n = (size_t)prototype->ndim;
  for (size_t i = 0; i < n; ++i) {
    if (prototype->shape[i] < 0)
      return tvmffi__raise("ValueError", "%s: shape[%zu] is %lld; extents must be non-negative",
                           kName, i, (long long)prototype->shape[i]);
  }
  tvmffi__tensor_obj* t = tensor_alloc(sizeof(tvmffi__tensor_obj) + 2 * n * sizeof(int64_t));
  if (t == NULL) return -1;
  t->dl = *prototype; /* data verbatim: the view is "unsafe" by contract */
  if (n != 0) {
    memcpy(t->tail, prototype->shape, n * sizeof(int64_t));
    memcpy(t->tail + n, prototype->strides, n * sizeof(int64_t));
  }
  t->dl.shape = t->tail;
  t->dl.strides = t->tail + n;
  tvmffi__incref((TVMFFIObject*)source);
  t->source = source;
  t->source_kind = kSourceObject;
  *out = &t->header;
  return 0;
}

/* ---- export -------------------------------------------------------------- */

static void legacy_export_deleter(DLManagedTensor* self) {
  tvmffi__decref((TVMFFIObject*)self->manager_ctx);
  free(self);
}

static void versioned_export_deleter(DLManagedTensorVersioned* self) {
  tvmffi__decref((TVMFFIObject*)self->manager_ctx);
  free(self);
}

static int export_check(const char* fname, TVMFFIObjectHandle from, void* out) {
  if (from == NULL || out == NULL)
    return tvmffi__raise("ValueError", "%s: tensor and out must not be NULL", fname);
  int32_t ti = ((TVMFFIObject*)from)->type_index;
  if (!tvmffi__type_is_instance(ti, kTVMFFITensor))
    return tvmffi__raise("TypeError", "%s: expected `ffi.Tensor` but got `%s`", fname,
                         tvmffi__type_key(ti));
  return 0;
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  if (export_check("TVMFFITensorToDLPack", from, out) != 0) return -1;
  DLManagedTensor* mt = malloc(sizeof(*mt));
  if (mt == NULL) return tvmffi__raise_oom();
  mt->dl_tensor = *TVMFFITensorGetDLTensorPtr(from);
  mt->manager_ctx = from;
  mt->deleter = legacy_export_deleter;
  tvmffi__incref((TVMFFIObject*)from);
  *out = mt;
  return 0;
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  if (export_check("TVMFFITensorToDLPackVersioned", from, out) != 0) return -1;
  DLManagedTensorVersioned* mt = malloc(sizeof(*mt));
  if (mt == NULL) return tvmffi__raise_oom();
  mt->version.major = DLPACK_MAJOR_VERSION;
  mt->version.minor = DLPACK_MINOR_VERSION;
  mt->manager_ctx = from;
  mt->deleter = versioned_export_deleter;
  mt->flags = 0;
  mt->dl_tensor = *TVMFFITensorGetDLTensorPtr(from);
  tvmffi__incref((TVMFFIObject*)from);
  *out = mt;
  return 0;
}
