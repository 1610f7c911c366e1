/*
 * tvm/ffi/container/tensor.h -- Tensor (owning ffi.Tensor reference) and
 * TensorView (a non-owning copy of a DLTensor), with the allocation and
 * DLPack entry points of the kernel library guide.
 *
 * An ffi.Tensor is the header followed by a DLTensor (handle + 24).
 */
#ifndef TVM_FFI_CONTAINER_TENSOR_H_
#define TVM_FFI_CONTAINER_TENSOR_H_

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <optional>

TVM_FFI_NS_BEGIN

using ::DLDataType;
using ::DLDevice;
using ::DLTensor;

/*! \brief Bytes needed by `numel` elements of `dtype` (sub-byte types round up). */
inline size_t GetDataSize(size_t numel, DLDataType dtype) {
  return (numel * dtype.bits * dtype.lanes + 7) / 8;
}
inline size_t GetDataSize(const DLTensor& t) {
  size_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= static_cast<size_t>(t.shape[i]);
  return GetDataSize(n, t.dtype);
}
/*! \brief Row-major compact, ignoring the strides of size-1 dimensions. */
inline bool IsContiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return true;
  }
  int64_t expected = 1;
  for (int32_t i = t.ndim; i-- > 0;) {
    if (t.shape[i] == 1) continue;
    if (t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}
inline bool IsDirectAddressDevice(const DLDevice& d) {
  return d.device_type <= kDLCUDAHost || d.device_type == kDLCUDAManaged ||
         d.device_type == kDLROCM || d.device_type == kDLROCMHost;
}
inline bool IsAligned(const DLTensor& t, size_t alignment) {
  if (IsDirectAddressDevice(t.device)) {
    return (reinterpret_cast<uintptr_t>(t.data) + t.byte_offset) % alignment == 0;
  }
  return t.byte_offset % alignment == 0;
}

namespace details {
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowDimIndex(int64_t i,
                                                                            int32_t ndim) {
  TVM_FFI_THROW(IndexError) << "Index " << i << " out of bounds for tensor with " << ndim
                            << " dimensions";
  TVM_FFI_UNREACHABLE();
}
/* Shared accessors of Tensor and TensorView over a DLTensor. */
inline int64_t DimAt(const int64_t* v, int32_t ndim, int64_t i) {
  int64_t j = i < 0 ? i + ndim : i;
  if (j < 0 || j >= ndim) ThrowDimIndex(i, ndim);
  return v[j];
}
inline ShapeView StridesOf(const DLTensor* t) {
  TVM_FFI_ICHECK(t->strides != nullptr || t->ndim == 0) << "tensor has no strides";
  return ShapeView(t->strides, static_cast<size_t>(t->ndim));
}
/* Applies an element offset the way as_strided does. */
inline void ApplyElementOffset(DLTensor* t, std::optional<int64_t> element_offset) {
  int64_t off = element_offset.value_or(0);
  TVM_FFI_ICHECK_GE(off, 0) << "element_offset must be non-negative";
  uint64_t bytes = GetDataSize(static_cast<size_t>(off), t->dtype);
  if (IsDirectAddressDevice(t->device)) {
    t->data = static_cast<char*>(t->data) + t->byte_offset + bytes;
    t->byte_offset = 0;
  } else {
    t->byte_offset += bytes;
  }
}
}  // namespace details

/*! \brief Tensor payload: the header followed by a DLTensor. */
class TensorObj : public Object, public DLTensor {
 public:
  TensorObj() : DLTensor{} {}
  static constexpr int32_t _type_index = kTVMFFITensor;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Tensor", TensorObj, Object);
  /// Exports with one reference held until the consumer calls the deleter.
  DLManagedTensor* ToDLPack() const {
    DLManagedTensor* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorToDLPack(details::ObjectUnsafe::GetHeader(this), &out));
    return out;
  }
  DLManagedTensorVersioned* ToDLPackVersioned() const {
    DLManagedTensorVersioned* out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITensorToDLPackVersioned(details::ObjectUnsafe::GetHeader(this), &out));
    return out;
  }
};

namespace details {
/* A tensor whose data comes from a user allocator; shape and strides inline after it. */
template <typename TNDAlloc>
class TensorObjFromNDAlloc : public TensorObj {
 public:
  template <typename... Extra>
  TensorObjFromNDAlloc(TNDAlloc alloc, ShapeView shape, ShapeView strides, DLDataType dtype,
                       DLDevice device, Extra&&... extra)
      : alloc_(std::move(alloc)) {
    int64_t* dims = reinterpret_cast<int64_t*>(this + 1);
    for (size_t i = 0; i < shape.size(); ++i) dims[i] = shape[i];
    for (size_t i = 0; i < shape.size(); ++i) dims[shape.size() + i] = strides[i];
    this->device = device;
    this->dtype = dtype;
    this->ndim = static_cast<int32_t>(shape.size());
    this->shape = dims;
    this->strides = dims + shape.size();
    this->byte_offset = 0;
    this->data = nullptr;
    alloc_.AllocData(static_cast<DLTensor*>(this), std::forward<Extra>(extra)...);
    allocated_ = true;
  }
  ~TensorObjFromNDAlloc() {
    if (allocated_) alloc_.FreeData(static_cast<DLTensor*>(this));
  }

 private:
  TNDAlloc alloc_;
  bool allocated_{false};
};
}  // namespace details

class TensorView;

/*! \brief Owning, nullable reference to an ffi.Tensor. */
class Tensor : public ObjectRef {
 public:
  Tensor() = default;
  Tensor(std::nullptr_t) {}  // NOLINT(*)
  explicit Tensor(ObjectPtr<TensorObj> p) : ObjectRef(std::move(p)) {}
  explicit Tensor(UnsafeInit tag) : ObjectRef(tag) {}

  void* data_ptr() const { return T()->data; }
  DLDevice device() const { return T()->device; }
  DLDataType dtype() const { return T()->dtype; }
  int32_t ndim() const { return T()->ndim; }
  int32_t dim() const { return T()->ndim; }
  ShapeView shape() const { return ShapeView(T()->shape, static_cast<size_t>(T()->ndim)); }
  ShapeView sizes() const { return shape(); }
  ShapeView strides() const { return details::StridesOf(T()); }
  int64_t size(int64_t i) const { return details::DimAt(T()->shape, T()->ndim, i); }
  int64_t stride(int64_t i) const { return details::DimAt(strides().data(), T()->ndim, i); }
  int64_t numel() const { return shape().Product(); }
  uint64_t byte_offset() const { return T()->byte_offset; }
  bool IsContiguous() const { return ::tvm::ffi::IsContiguous(*T()); }
  bool is_contiguous() const { return IsContiguous(); }
  bool IsAligned(size_t alignment) const { return ::tvm::ffi::IsAligned(*T(), alignment); }
  const DLTensor* GetDLTensorPtr() const { return T(); }
  /// Superset of upstream: field access such as t->ndim (older kernel code).
  const TensorObj* operator->() const { return static_cast<const TensorObj*>(data_.get()); }
  const TensorObj* get() const { return static_cast<const TensorObj*>(data_.get()); }

  /// A new tensor sharing the data (and keeping this one alive) with other shape/strides.
  Tensor as_strided(ShapeView shape, ShapeView strides,
                    std::optional<int64_t> element_offset = std::nullopt) const {
    TVM_FFI_ICHECK_EQ(shape.size(), strides.size());
    DLTensor proto = *T();
    proto.ndim = static_cast<int32_t>(shape.size());
    proto.shape = const_cast<int64_t*>(shape.data());
    proto.strides = const_cast<int64_t*>(strides.data());
    details::ApplyElementOffset(&proto, element_offset);
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorCreateUnsafeView(details::RefHandle(*this), &proto, &out));
    return Adopt(out);
  }
  DLManagedTensor* ToDLPack() const { return get()->ToDLPack(); }
  DLManagedTensorVersioned* ToDLPackVersioned() const { return get()->ToDLPackVersioned(); }

  /// Allocates through `alloc.AllocData(DLTensor*, extra...)`; FreeData runs on the last release.
  template <typename TNDAlloc, typename... Extra>
  static Tensor FromNDAlloc(TNDAlloc alloc, ShapeView shape, DLDataType dtype, DLDevice device,
                            Extra&&... extra) {
    Shape strides = Shape::StridesFromShape(shape);
    return FromNDAllocStrided(std::move(alloc), shape, strides, dtype, device,
                              std::forward<Extra>(extra)...);
  }
  template <typename TNDAlloc, typename... Extra>
  static Tensor FromNDAllocStrided(TNDAlloc alloc, ShapeView shape, ShapeView strides,
                                   DLDataType dtype, DLDevice device, Extra&&... extra) {
    if (shape.size() != strides.size()) {
      TVM_FFI_THROW(ValueError) << "shape and strides must have the same size.";
    }
    using Obj = details::TensorObjFromNDAlloc<TNDAlloc>;
    ObjectPtr<Obj> p =
        make_inplace_array_object<Obj, int64_t>(shape.size() * 2, std::move(alloc), shape, strides,
                                                dtype, device, std::forward<Extra>(extra)...);
    return Tensor(ObjectPtr<TensorObj>(std::move(p)));
  }
  /// Allocates through an environment allocator such as TVMFFIEnvTensorAlloc.
  static Tensor FromEnvAlloc(int (*env_alloc)(DLTensor*, TVMFFIObjectHandle*), ShapeView shape,
                             DLDataType dtype, DLDevice device) {
    DLTensor proto{};
    proto.device = device;
    proto.dtype = dtype;
    proto.ndim = static_cast<int32_t>(shape.size());
    proto.shape = const_cast<int64_t*>(shape.data());
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(env_alloc(&proto, &out));
    return Adopt(out);
  }
  /// Takes ownership of a DLPack tensor (not on failure).
  static Tensor FromDLPack(DLManagedTensor* t, size_t require_alignment = 0,
                           bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPack(t, static_cast<int32_t>(require_alignment),
                                                   require_contiguous ? 1 : 0, &out));
    return Adopt(out);
  }
  static Tensor FromDLPackVersioned(DLManagedTensorVersioned* t, size_t require_alignment = 0,
                                    bool require_contiguous = false) {
    TVMFFIObjectHandle out = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITensorFromDLPackVersioned(
        t, static_cast<int32_t>(require_alignment), require_contiguous ? 1 : 0, &out));
    return Adopt(out);
  }

  using ContainerType = TensorObj;
  static constexpr bool _type_is_nullable = true;

 private:
  const DLTensor* T() const { return static_cast<const TensorObj*>(data_.get()); }
  static Tensor Adopt(TVMFFIObjectHandle h) {
    return Tensor(details::ObjectUnsafe::ObjectPtrFromOwned<TensorObj>(h));
  }
};

/*! \brief Non-owning copy of a DLTensor; the source must outlive the view. */
class TensorView {
 public:
  TensorView(const Tensor& tensor) {  // NOLINT(*)
    TVM_FFI_ICHECK(tensor.defined()) << "TensorView of an undefined Tensor";
    tensor_ = *tensor.GetDLTensorPtr();
  }
  TensorView(Tensor&&) = delete;
  TensorView(const DLTensor* tensor) {  // NOLINT(*)
    TVM_FFI_ICHECK(tensor != nullptr) << "TensorView of a null DLTensor*";
    tensor_ = *tensor;
  }
  TensorView(const TensorView&) = default;
  TensorView(TensorView&&) = default;
  TensorView& operator=(const TensorView&) = default;
  TensorView& operator=(TensorView&&) = default;
  TensorView& operator=(const Tensor& tensor) { return *this = TensorView(tensor); }
  TensorView& operator=(Tensor&&) = delete;

  void* data_ptr() const { return tensor_.data; }
  DLDevice device() const { return tensor_.device; }
  DLDataType dtype() const { return tensor_.dtype; }
  int32_t ndim() const { return tensor_.ndim; }
  int32_t dim() const { return tensor_.ndim; }
  ShapeView shape() const { return ShapeView(tensor_.shape, static_cast<size_t>(tensor_.ndim)); }
  ShapeView sizes() const { return shape(); }
  ShapeView strides() const { return details::StridesOf(&tensor_); }
  int64_t size(int64_t i) const { return details::DimAt(tensor_.shape, tensor_.ndim, i); }
  int64_t stride(int64_t i) const { return details::DimAt(strides().data(), tensor_.ndim, i); }
  int64_t numel() const { return shape().Product(); }
  uint64_t byte_offset() const { return tensor_.byte_offset; }
  bool IsContiguous() const { return ::tvm::ffi::IsContiguous(tensor_); }
  bool is_contiguous() const { return IsContiguous(); }
  bool IsAligned(size_t alignment) const { return ::tvm::ffi::IsAligned(tensor_, alignment); }
  const DLTensor* GetDLTensorPtr() const { return &tensor_; }
  /// View arithmetic only: the result points at the caller's shape/strides arrays.
  TensorView as_strided(ShapeView shape, ShapeView strides,
                        std::optional<int64_t> element_offset = std::nullopt) const {
    TVM_FFI_ICHECK_EQ(shape.size(), strides.size());
    TensorView r = *this;
    r.tensor_.ndim = static_cast<int32_t>(shape.size());
    r.tensor_.shape = const_cast<int64_t*>(shape.data());
    r.tensor_.strides = const_cast<int64_t*>(strides.data());
    details::ApplyElementOffset(&r.tensor_, element_offset);
    return r;
  }

 private:
  DLTensor tensor_;
};
static_assert(sizeof(TensorView) == sizeof(DLTensor), "TensorView is one DLTensor");

inline size_t GetDataSize(const Tensor& t) { return GetDataSize(*t.GetDLTensorPtr()); }
inline size_t GetDataSize(const TensorView& t) { return GetDataSize(*t.GetDLTensorPtr()); }

/* TensorView: stored as DLTensorPtr (never in an owned Any); reads DLTensorPtr or a Tensor. */
template <>
struct TypeTraits<TensorView> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIDLTensorPtr;
  static void CopyToAnyView(const TensorView& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIDLTensorPtr;
    r->zero_padding = 0;
    r->v_ptr = const_cast<DLTensor*>(v.GetDLTensorPtr());
  }
  template <typename U = TensorView>
  static void MoveToAny(U, TVMFFIAny*) {
    static_assert(details::always_false_v<U>,
                  "TensorView cannot be held in Any (it does not own the tensor): use Tensor");
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIDLTensorPtr; }
  static TensorView CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return TensorView(static_cast<const DLTensor*>(s->v_ptr));
  }
  template <typename T = TensorView>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIDLTensorPtr)
      return TensorView(static_cast<const DLTensor*>(s->v_ptr));
    if (s->type_index == kTVMFFITensor) return TensorView(TVMFFITensorGetDLTensorPtr(s->v_obj));
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDLTensorPtr; }
  static std::string TypeSchema() { return details::SchemaOf("DLTensor*"); }
};

/* DLTensor*: a DLTensorPtr view; an owned Any refuses it. */
template <>
struct TypeTraits<DLTensor*> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIDLTensorPtr;
  static void CopyToAnyView(DLTensor* const& v, TVMFFIAny* r) {
    TVM_FFI_ICHECK_NOTNULL(v);
    r->type_index = kTVMFFIDLTensorPtr;
    r->zero_padding = 0;
    r->v_ptr = v;
  }
  static void MoveToAny(DLTensor*, TVMFFIAny*) {
    TVM_FFI_THROW(RuntimeError) << "DLTensor* cannot be held in Any as it does not retain "
                                   "ownership, use Tensor instead";
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIDLTensorPtr; }
  static DLTensor* CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return static_cast<DLTensor*>(s->v_ptr);
  }
  template <typename T = DLTensor*>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIDLTensorPtr) return static_cast<DLTensor*>(s->v_ptr);
    if (s->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(s->v_obj);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDLTensorPtr; }
  static std::string TypeSchema() { return details::SchemaOf("DLTensor*"); }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_TENSOR_H_
