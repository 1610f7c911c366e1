/*
 * tvm/ffi/object.h -- the object model: Object, ObjectPtr, WeakObjectPtr, ObjectRef.
 *
 * Every heap object starts with the 24-byte TVMFFIObject header (c_api.h); the
 * reference counts are manipulated inline following the ABI protocol, so
 * objects made by the runtime, by Python or by other libraries mix freely.
 */
#ifndef TVM_FFI_OBJECT_H_
#define TVM_FFI_OBJECT_H_

#include <tvm/ffi/base_details.h>

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

TVM_FFI_NS_BEGIN

class Object;
class ObjectRef;
template <typename T>
class ObjectPtr;
template <typename T>
class WeakObjectPtr;
template <typename T>
class Arc;
template <typename T, typename = void>
struct TypeTraits;

/*! \brief Deleter signature stored in every object header. */
using FObjectDeleter = void (*)(void* obj, int flags);

template <typename T>
inline constexpr bool is_object_subclass_v = std::is_base_of_v<Object, T>;

namespace details {
struct ObjectUnsafe;
inline constexpr uint64_t kCombinedRefCountBothOne = (uint64_t(1) << 32) | 1;
inline constexpr uint64_t kCombinedRefCountWeakOne = uint64_t(1) << 32;

/* Registers (or finds) a dynamic type key with the runtime. */
inline int32_t TypeGetOrAllocIndex(const char* key, int32_t depth, int32_t child_slots,
                                   bool can_overflow, int32_t parent_index) {
  TVMFFIByteArray k{key, std::strlen(key)};
  return TVMFFITypeGetOrAllocIndex(&k, -1, depth, child_slots, can_overflow ? 1 : 0, parent_index);
}
/* The runtime's entry of a type index, or nullptr for an index no type was
 * registered under (an object from a faulty kernel): the runtime then raised
 * an error, dropped here so that callers can answer "unknown". */
inline const TVMFFITypeInfo* TypeInfoOrNull(int32_t tindex) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tindex);
  if (info == nullptr) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
  }
  return info;
}
/* Runtime key of a type index (static names below 64 come from a table). */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string TypeIndexToTypeKeyImpl(int32_t tindex) {
  static constexpr const char* kPod[] = {"None",
                                         "int",
                                         "bool",
                                         "float",
                                         "void*",
                                         "DataType",
                                         "Device",
                                         "DLTensor*",
                                         "const char*",
                                         "TVMFFIByteArray*",
                                         "ObjectRValueRef",
                                         "ffi.SmallStr",
                                         "ffi.SmallBytes"};
  if (tindex >= 0 && tindex < static_cast<int32_t>(sizeof(kPod) / sizeof(kPod[0]))) {
    return kPod[tindex];
  }
  const TVMFFITypeInfo* info = tindex < kTVMFFIStaticObjectBegin ? nullptr : TypeInfoOrNull(tindex);
  if (info == nullptr) {
    char buf[32];  // snprintf, not std::to_string: no <charconv> code per TU
    std::snprintf(buf, sizeof(buf), "Unknown(%d)", static_cast<int>(tindex));
    return buf;
  }
  return std::string(info->type_key.data, info->type_key.size);
}

/* Throws TypeError "Cannot treat type `<from>` as type `<to>`" (defined in type_traits.h). */
template <typename T>
[[noreturn]] TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowCannotTreat(const std::string& from);
}  // namespace details

/*!
 * \brief Base class of every heap object.  The first (and only) member is
 *  the C header, so `Object*` and the handle are the same address.
 */
class Object {
 public:
  Object() noexcept {
    header_.combined_ref_count = 0;
    header_.type_index = 0;
    header_.__padding = 0;
    header_.deleter = nullptr;
  }
  /* Copying an object copies its contents, never its header. */
  Object(const Object&) noexcept : Object() {}
  Object& operator=(const Object&) noexcept { return *this; }

  /// Runtime type index of this object.
  int32_t type_index() const noexcept { return header_.type_index; }
  /// Runtime type key of this object.
  std::string GetTypeKey() const { return details::TypeIndexToTypeKeyImpl(header_.type_index); }
  /// Hash of the type key as computed by the runtime.
  uint64_t GetTypeKeyHash() const {
    const TVMFFITypeInfo* info = details::TypeInfoOrNull(header_.type_index);
    return info != nullptr ? info->type_key_hash : 0;
  }
  /// Type key of an index.
  static std::string TypeIndex2Key(int32_t tindex) {
    return details::TypeIndexToTypeKeyImpl(tindex);
  }
  /// True when exactly one strong reference and no weak reference exist.
  bool unique() const noexcept {
    return __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED) ==
           details::kCombinedRefCountBothOne;
  }
  /// The strong count (relaxed read).
  uint64_t use_count() const noexcept {
    return __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED) & 0xFFFFFFFFu;
  }
  /// Runtime subtype test.
  template <typename TargetType>
  inline bool IsInstance() const;

  static constexpr const char* _type_key = "ffi.Object";
  static constexpr bool _type_final = false;
  static constexpr bool _type_mutable = false;
  static constexpr uint32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = true;
  static constexpr int32_t _type_index = kTVMFFIObject;
  static constexpr int32_t _type_depth = 0;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  static int32_t RuntimeTypeIndex() noexcept { return kTVMFFIObject; }
  static int32_t _GetOrAllocRuntimeTypeIndex() noexcept { return kTVMFFIObject; }

 protected:
  TVMFFIObject header_;

 private:
  void IncRef() noexcept { __atomic_fetch_add(&header_.combined_ref_count, 1, __ATOMIC_RELAXED); }
  void IncWeakRef() noexcept {
    __atomic_fetch_add(&header_.combined_ref_count, details::kCombinedRefCountWeakOne,
                       __ATOMIC_RELAXED);
  }
  void DecRef() noexcept {
    uint64_t old = __atomic_fetch_sub(&header_.combined_ref_count, 1, __ATOMIC_RELEASE);
    if (old == details::kCombinedRefCountBothOne) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (header_.deleter) header_.deleter(&header_, kTVMFFIObjectDeleterFlagBitMaskBoth);
    } else if ((old & 0xFFFFFFFFu) == 1) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      // keep a local copy: the strong-phase deleter may not touch the header, but be safe
      FObjectDeleter d = header_.deleter;
      if (d) d(&header_, kTVMFFIObjectDeleterFlagBitMaskStrong);
      DecWeakRef(d);
    }
  }
  void DecWeakRef(FObjectDeleter d) noexcept {
    uint64_t old = __atomic_fetch_sub(&header_.combined_ref_count,
                                      details::kCombinedRefCountWeakOne, __ATOMIC_RELEASE);
    if (old == details::kCombinedRefCountWeakOne) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (d) d(&header_, kTVMFFIObjectDeleterFlagBitMaskWeak);
    }
  }
  bool TryPromoteWeakPtr() noexcept {
    uint64_t old = __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED);
    while ((old & 0xFFFFFFFFu) != 0) {
      if (__atomic_compare_exchange_n(&header_.combined_ref_count, &old, old + 1, true,
                                      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        return true;
      }
    }
    return false;
  }
  template <typename>
  friend class ObjectPtr;
  template <typename>
  friend class WeakObjectPtr;
  friend struct details::ObjectUnsafe;
};
static_assert(sizeof(Object) == sizeof(TVMFFIObject), "Object must be exactly the C header");

/*! \brief Nullable intrusive owning pointer (one pointer in size). */
template <typename T>
class ObjectPtr {
 public:
  using element_type = T;
  ObjectPtr() noexcept = default;
  ObjectPtr(std::nullptr_t) noexcept {}  // NOLINT(*)
  ObjectPtr(const ObjectPtr& other) noexcept : data_(other.data_) {
    if (data_) data_->IncRef();
  }
  ObjectPtr(ObjectPtr&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  template <typename U>
  ObjectPtr(const ObjectPtr<U>& other) noexcept : data_(other.data_) {  // NOLINT(*)
    static_assert(std::is_base_of_v<T, U>, "can only upcast ObjectPtr");
    if (data_) data_->IncRef();
  }
  template <typename U>
  ObjectPtr(ObjectPtr<U>&& other) noexcept : data_(other.data_) {  // NOLINT(*)
    static_assert(std::is_base_of_v<T, U>, "can only upcast ObjectPtr");
    other.data_ = nullptr;
  }
  ~ObjectPtr() { reset(); }
  ObjectPtr& operator=(const ObjectPtr& other) noexcept {
    ObjectPtr(other).swap(*this);  // take new, then drop old
    return *this;
  }
  ObjectPtr& operator=(ObjectPtr&& other) noexcept {
    ObjectPtr(std::move(other)).swap(*this);
    return *this;
  }
  ObjectPtr& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  void swap(ObjectPtr& other) noexcept { std::swap(data_, other.data_); }
  T* get() const noexcept { return static_cast<T*>(data_); }
  T* operator->() const noexcept { return get(); }
  T& operator*() const noexcept { return *get(); }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  int use_count() const noexcept { return data_ ? static_cast<int>(data_->use_count()) : 0; }
  bool unique() const noexcept { return data_ != nullptr && data_->unique(); }
  void reset() noexcept {
    if (data_) {
      Object* d = data_;
      data_ = nullptr;
      d->DecRef();
    }
  }
  bool operator==(const ObjectPtr& o) const noexcept { return data_ == o.data_; }
  bool operator!=(const ObjectPtr& o) const noexcept { return data_ != o.data_; }
  bool operator==(std::nullptr_t) const noexcept { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const noexcept { return data_ != nullptr; }

 private:
  explicit ObjectPtr(Object* data) noexcept : data_(data) {}  // adopts, no IncRef
  Object* data_{nullptr};
  template <typename>
  friend class ObjectPtr;
  template <typename>
  friend class WeakObjectPtr;
  friend class ObjectRef;
  friend struct details::ObjectUnsafe;
};

/*!
 * \brief Non-nullable owning pointer: an ObjectPtr<T> that always holds an
 * object (made by make_arc, or read from a non-None Any).  It cannot be
 * reset, swapped or built from nullptr; UnsafeInit gives the empty state a
 * later assignment fills (object fields constructed before reflection sets them).
 */
template <typename T>
class Arc : public ObjectPtr<T> {
 public:
  explicit Arc(UnsafeInit) noexcept {}
  Arc(const Arc&) noexcept = default;
  Arc(Arc&&) noexcept = default;
  Arc& operator=(const Arc&) noexcept = default;
  Arc& operator=(Arc&&) noexcept = default;
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc(const Arc<U>& other) noexcept : ObjectPtr<T>(other) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc(Arc<U>&& other) noexcept : ObjectPtr<T>(std::move(other)) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc& operator=(const Arc<U>& other) noexcept {
    ObjectPtr<T>::operator=(other);
    return *this;
  }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Arc& operator=(Arc<U>&& other) noexcept {
    ObjectPtr<T>::operator=(std::move(other));
    return *this;
  }

 private:
  explicit Arc(ObjectPtr<T>&& p) noexcept : ObjectPtr<T>(std::move(p)) {}
  using ObjectPtr<T>::reset;
  using ObjectPtr<T>::swap;
  friend struct details::ObjectUnsafe;
};

/*! \brief Weak reference: lock() gives a strong pointer while the object lives. */
template <typename T>
class WeakObjectPtr {
 public:
  WeakObjectPtr() noexcept = default;
  WeakObjectPtr(std::nullptr_t) noexcept {}  // NOLINT(*)
  template <typename U>
  WeakObjectPtr(const ObjectPtr<U>& p) noexcept : data_(p.data_) {  // NOLINT(*)
    static_assert(std::is_base_of_v<T, U>, "can only upcast WeakObjectPtr");
    if (data_) data_->IncWeakRef();
  }
  WeakObjectPtr(const WeakObjectPtr& o) noexcept : data_(o.data_) {
    if (data_) data_->IncWeakRef();
  }
  WeakObjectPtr(WeakObjectPtr&& o) noexcept : data_(o.data_) { o.data_ = nullptr; }
  ~WeakObjectPtr() { reset(); }
  WeakObjectPtr& operator=(WeakObjectPtr o) noexcept {
    std::swap(data_, o.data_);
    return *this;
  }
  void reset() noexcept {
    if (data_) {
      Object* d = data_;
      data_ = nullptr;
      d->DecWeakRef(d->header_.deleter);
    }
  }
  void swap(WeakObjectPtr& o) noexcept { std::swap(data_, o.data_); }
  ObjectPtr<T> lock() const noexcept {
    if (data_ && data_->TryPromoteWeakPtr()) return ObjectPtr<T>(data_);
    return ObjectPtr<T>(nullptr);
  }
  bool expired() const noexcept { return use_count() == 0; }
  int use_count() const noexcept { return data_ ? static_cast<int>(data_->use_count()) : 0; }

 private:
  Object* data_{nullptr};
};

namespace details {
/*! \brief Raw access used by the layer itself (not for user code). */
struct ObjectUnsafe {
  static TVMFFIObject* GetHeader(const Object* obj) noexcept {
    return const_cast<TVMFFIObject*>(&obj->header_);
  }
  static Object* ObjectFromHandle(void* handle) noexcept {
    return reinterpret_cast<Object*>(handle);
  }
  /* Adopts an owned handle (no IncRef). */
  template <typename T = Object>
  static ObjectPtr<T> ObjectPtrFromOwned(void* handle) noexcept {
    return ObjectPtr<T>(reinterpret_cast<Object*>(handle));
  }
  template <typename T = Object>
  static ObjectPtr<T> ObjectPtrFromOwned(Object* obj) noexcept {
    return ObjectPtr<T>(obj);
  }
  /* Takes a new reference to a borrowed object. */
  template <typename T = Object>
  static ObjectPtr<T> ObjectPtrFromUnowned(const Object* obj) noexcept {
    Object* o = const_cast<Object*>(obj);
    if (o) o->IncRef();
    return ObjectPtr<T>(o);
  }
  /* Gives up ownership without a decrement. */
  template <typename T>
  static TVMFFIObject* MoveObjectPtrToHandle(ObjectPtr<T>&& p) noexcept {
    Object* o = p.data_;
    p.data_ = nullptr;
    return reinterpret_cast<TVMFFIObject*>(o);
  }
  template <typename T>
  static Object* RawObjectPtr(const ObjectPtr<T>& p) noexcept {
    return p.data_;
  }
  template <typename T>
  static Object** RawObjectPtrSlot(ObjectPtr<T>* p) noexcept {
    return &p->data_;
  }
  static void IncRef(const Object* obj) noexcept { const_cast<Object*>(obj)->IncRef(); }
  static void DecRef(const Object* obj) noexcept { const_cast<Object*>(obj)->DecRef(); }
  static void IncRefHandle(void* h) noexcept { reinterpret_cast<Object*>(h)->IncRef(); }
  static void DecRefHandle(void* h) noexcept { reinterpret_cast<Object*>(h)->DecRef(); }
  template <typename RefT>
  static RefT ObjectRefFromObjectPtr(ObjectPtr<Object> p);
  template <typename RefT>
  static const ObjectPtr<Object>& GetObjectPtr(const RefT& ref);
  template <typename RefT>
  static ObjectPtr<Object>& GetObjectPtrRef(RefT& ref);
  /* Upstream's names for the same moves (code written against its headers uses them). */
  template <typename T>
  static T* RawObjectPtrFromUnowned(TVMFFIObject* obj) noexcept {
    return static_cast<T*>(reinterpret_cast<Object*>(obj));
  }
  template <typename T = Object>
  static ObjectPtr<T> ObjectPtrFromUnowned(TVMFFIObject* obj) noexcept {
    return ObjectPtrFromUnowned<T>(reinterpret_cast<const Object*>(obj));
  }
  static void DecRefObjectHandle(TVMFFIObjectHandle h) noexcept { DecRefHandle(h); }
  static void IncRefObjectHandle(TVMFFIObjectHandle h) noexcept { IncRefHandle(h); }
  template <typename T>
  static TVMFFIObject* TVMFFIObjectPtrFromObjectPtr(const ObjectPtr<T>& p) noexcept {
    return reinterpret_cast<TVMFFIObject*>(p.data_);
  }
  template <typename T>
  static TVMFFIObject* MoveObjectPtrToTVMFFIObjectPtr(ObjectPtr<T>&& p) noexcept {
    return MoveObjectPtrToHandle(std::move(p));
  }
  template <typename RefT>
  static Object* RawObjectPtrFromObjectRef(const RefT& ref) noexcept {
    return RawObjectPtr(GetObjectPtr(ref));
  }
  template <typename RefT>
  static TVMFFIObject* TVMFFIObjectPtrFromObjectRef(const RefT& ref) noexcept {
    return reinterpret_cast<TVMFFIObject*>(RawObjectPtrFromObjectRef(ref));
  }
  /* The caller guarantees p is not null. */
  template <typename T>
  static Arc<T> ArcFromObjectPtr(ObjectPtr<T>&& p) noexcept {
    return Arc<T>(std::move(p));
  }
  template <typename RefT>
  static TVMFFIObject* MoveObjectRefToTVMFFIObjectPtr(RefT&& ref) noexcept {
    return MoveObjectPtrToHandle(std::move(GetObjectPtrRef(ref)));
  }
};
}  // namespace details

template <typename TargetType>
inline bool Object::IsInstance() const {
  if constexpr (std::is_same_v<TargetType, Object>) {
    return true;
  } else {
    static_assert(std::is_base_of_v<Object, TargetType>, "IsInstance needs an Object subclass");
    const int32_t begin = TargetType::RuntimeTypeIndex();
    const int32_t idx = header_.type_index;
    if (idx == begin) return true;
    if constexpr (TargetType::_type_final) {
      return false;
    } else {
      if constexpr (TargetType::_type_child_slots != 0) {
        // fast path: children registered inside the reserved slot range
        if (idx > begin && idx < begin + static_cast<int32_t>(TargetType::_type_child_slots)) {
          return true;
        }
        if constexpr (!TargetType::_type_child_slots_can_overflow) return false;
      }
      if (idx < kTVMFFIStaticObjectBegin) return false;
      const TVMFFITypeInfo* info = details::TypeInfoOrNull(idx);
      const int32_t depth = TargetType::_type_depth;
      return info != nullptr && info->type_depth > depth &&
             info->type_ancestors[depth]->type_index == begin;
    }
  }
}

/*! \brief Base class of all reference types: one ObjectPtr<Object>, nullable by default. */
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) noexcept : data_(std::move(data)) {}
  explicit ObjectRef(UnsafeInit) noexcept {}
  ObjectRef(const ObjectRef&) = default;
  ObjectRef(ObjectRef&&) = default;
  ObjectRef& operator=(const ObjectRef&) = default;
  ObjectRef& operator=(ObjectRef&&) = default;

  bool same_as(const ObjectRef& other) const noexcept { return data_ == other.data_; }
  bool operator==(const ObjectRef& other) const noexcept { return data_ == other.data_; }
  bool operator!=(const ObjectRef& other) const noexcept { return data_ != other.data_; }
  bool operator<(const ObjectRef& other) const noexcept { return data_.get() < other.data_.get(); }
  bool defined() const noexcept { return data_ != nullptr; }
  const Object* get() const noexcept { return data_.get(); }
  const Object* operator->() const noexcept { return get(); }
  bool unique() const noexcept { return data_.unique(); }
  int use_count() const noexcept { return data_.use_count(); }
  int32_t type_index() const noexcept { return data_ ? data_->type_index() : kTVMFFINone; }
  std::string GetTypeKey() const { return data_ ? data_->GetTypeKey() : std::string("None"); }

  /// Typed pointer to the object if it is an ObjectType, else nullptr.
  template <typename ObjectType, std::enable_if_t<std::is_base_of_v<Object, ObjectType>, int> = 0>
  const ObjectType* as() const& {
    if (data_ != nullptr && data_->IsInstance<ObjectType>()) {
      return static_cast<const ObjectType*>(data_.get());
    }
    return nullptr;
  }
  /// Strict downcast to another reference type.
  template <typename RefT, std::enable_if_t<std::is_base_of_v<ObjectRef, RefT>, long> = 0>
  std::optional<RefT> as() const& {
    if (data_ == nullptr) {
      if constexpr (RefT::_type_is_nullable) return RefT(UnsafeInit{});
      return std::nullopt;
    }
    if (StrictCheck<RefT>()) return details::ObjectUnsafe::ObjectRefFromObjectPtr<RefT>(data_);
    return std::nullopt;
  }
  template <typename RefT, std::enable_if_t<std::is_base_of_v<ObjectRef, RefT>, long> = 0>
  std::optional<RefT> as() && {
    if (data_ == nullptr) {
      if constexpr (RefT::_type_is_nullable) return RefT(UnsafeInit{});
      return std::nullopt;
    }
    if (StrictCheck<RefT>()) {
      return details::ObjectUnsafe::ObjectRefFromObjectPtr<RefT>(std::move(data_));
    }
    return std::nullopt;
  }
  /// Strict downcast; TypeError on mismatch.
  template <typename RefT>
  RefT as_or_throw() const& {
    std::optional<RefT> r = this->as<RefT>();
    if (!r.has_value()) details::ThrowCannotTreat<RefT>(GetTypeKey());
    return *std::move(r);
  }
  template <typename RefT>
  RefT as_or_throw() && {
    std::optional<RefT> r = std::move(*this).template as<RefT>();
    if (!r.has_value()) details::ThrowCannotTreat<RefT>(GetTypeKey());
    return *std::move(r);
  }

  using ContainerType = Object;
  static constexpr bool _type_container_is_exact = true;
  static constexpr bool _type_is_nullable = true;

 protected:
  Object* get_mutable() const noexcept { return data_.get(); }
  /* Strict (no conversion) check of the held object against RefT's traits. */
  template <typename RefT>
  bool StrictCheck() const {
    TVMFFIAny v;
    v.type_index = data_->type_index();
    v.zero_padding = 0;
    v.v_obj = reinterpret_cast<TVMFFIObject*>(data_.get());
    return TypeTraits<RefT>::CheckAnyStrict(&v);
  }
  ObjectPtr<Object> data_;
  friend struct details::ObjectUnsafe;
};

namespace details {
template <typename RefT>
inline RefT ObjectUnsafe::ObjectRefFromObjectPtr(ObjectPtr<Object> p) {
  RefT ref(UnsafeInit{});
  GetObjectPtrRef(ref) = std::move(p);
  return ref;
}
template <typename RefT>
inline const ObjectPtr<Object>& ObjectUnsafe::GetObjectPtr(const RefT& ref) {
  if constexpr (std::is_base_of_v<ObjectRef, RefT>)
    return static_cast<const ObjectRef&>(ref).data_;
  else
    return ref.data_;  // Optional<ObjectRef>: a pointer, not an ObjectRef
}
template <typename RefT>
inline ObjectPtr<Object>& ObjectUnsafe::GetObjectPtrRef(RefT& ref) {
  if constexpr (std::is_base_of_v<ObjectRef, RefT>)
    return static_cast<ObjectRef&>(ref).data_;
  else
    return ref.data_;
}
/* The handle (header address) of a reference, or NULL; borrowed. */
inline void* RefHandle(const ObjectRef& ref) noexcept {
  return ObjectUnsafe::GetObjectPtr(ref).get();
}
}  // namespace details

/*!
 * \brief Whether every ObjT is a valid value of the reference type RefT: true
 *  when RefT's ContainerType is exact and a base of ObjT.  Defined only for an
 *  ObjectRef type and an Object type; specialise it for a non-exact ref.
 */
template <typename RefT, typename ObjT,
          typename = std::enable_if_t<std::is_base_of_v<ObjectRef, RefT> &&
                                      std::is_base_of_v<Object, ObjT>>>
inline constexpr bool object_ref_contains_v =
    RefT::_type_container_is_exact && std::is_base_of_v<typename RefT::ContainerType, ObjT>;

/*! \brief Hash/equality by object identity, for std::unordered_map keys. */
struct ObjectPtrHash {
  size_t operator()(const ObjectRef& a) const noexcept { return std::hash<const void*>()(a.get()); }
  template <typename T>
  size_t operator()(const ObjectPtr<T>& a) const noexcept {
    return std::hash<const void*>()(a.get());
  }
};
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const noexcept { return a.same_as(b); }
  template <typename T>
  bool operator()(const ObjectPtr<T>& a, const ObjectPtr<T>& b) const noexcept {
    return a == b;
  }
};

TVM_FFI_NS_END

/* ---- object info macros (placed in the public section of an Object subclass) ---- */

#define TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)                 \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                         \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                                              \
    static_assert(!ParentType::_type_final, "ParentType is marked as final");                 \
    static_assert(TypeName::_type_child_slots == 0 || ParentType::_type_child_slots == 0 ||   \
                      TypeName::_type_child_slots < ParentType::_type_child_slots,            \
                  "child slots of a type must be fewer than its parent's");                   \
    static const int32_t tindex = ::tvm::ffi::details::TypeGetOrAllocIndex(                   \
        TypeName::_type_key, TypeName::_type_depth,                                           \
        static_cast<int32_t>(TypeName::_type_child_slots),                                    \
        TypeName::_type_child_slots_can_overflow, ParentType::_GetOrAllocRuntimeTypeIndex()); \
    return tindex;                                                                            \
  }                                                                                           \
  static int32_t RuntimeTypeIndex() { return TypeName::_GetOrAllocRuntimeTypeIndex(); }       \
  static inline const int32_t _type_index = TypeName::_GetOrAllocRuntimeTypeIndex()

#define TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType) \
  static constexpr const char* _type_key = TypeKey;                \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)

#define TVM_FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) \
  static constexpr bool _type_final = true;                              \
  static constexpr int _type_child_slots = 0;                            \
  TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)

/* Built-in types with a fixed index: the class defines `static constexpr int32_t _type_index`. */
#define TVM_FFI_DECLARE_OBJECT_INFO_STATIC(TypeKey, TypeName, ParentType)        \
  static constexpr const char* _type_key = TypeKey;                              \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;            \
  static int32_t _GetOrAllocRuntimeTypeIndex() { return TypeName::_type_index; } \
  static int32_t RuntimeTypeIndex() { return TypeName::_type_index; }

/*
 * An object class whose type some other library registers (an ABI object):
 * its index is looked up by key on first use, never allocated here, and an
 * unknown key throws.  Expands `TypeKeyToIndex`, so include tvm/ffi/function.h
 * (or tvm_ffi.h) first.  TypeDepth is the type's depth in the hierarchy.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP(RegisteredKey, TypeDepth)         \
  static constexpr const char* _type_key = RegisteredKey;                    \
  static constexpr int32_t _type_depth = TypeDepth;                          \
  static constexpr bool _type_mutable = true;                                \
  static constexpr bool _type_final = false;                                 \
  static constexpr uint32_t _type_child_slots = 0;                           \
  static constexpr bool _type_child_slots_can_overflow = true;               \
  static int32_t RuntimeTypeIndex() {                                        \
    static const int32_t tindex = ::tvm::ffi::TypeKeyToIndex(RegisteredKey); \
    return tindex;                                                           \
  }                                                                          \
  static int32_t _GetOrAllocRuntimeTypeIndex() { return RuntimeTypeIndex(); }

/* 0.1.0 spellings, with `_type_key` declared separately. */
#define TVM_FFI_DECLARE_BASE_OBJECT_INFO(TypeName, ParentType) \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)
#define TVM_FFI_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType) \
  static constexpr bool _type_final = true;                     \
  static constexpr int _type_child_slots = 0;                   \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)

/* ---- reference macros (placed in the public section of an ObjectRef subclass) ---- */

#define TVM_FFI_REF_COMMON_(TypeName, ParentType, ObjectName)                                      \
  explicit TypeName(::tvm::ffi::UnsafeInit tag) : ParentType(tag) {}                               \
  TVM_FFI_DEFINE_DEFAULT_COPY_MOVE_AND_ASSIGN(TypeName);                                           \
  using __PtrType = std::conditional_t<ObjectName::_type_mutable, ObjectName*, const ObjectName*>; \
  __PtrType operator->() const { return static_cast<__PtrType>(data_.get()); }                     \
  __PtrType get() const { return static_cast<__PtrType>(data_.get()); }                            \
  using ContainerType = ObjectName

#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName)   \
  TypeName() = default;                                                                \
  explicit TypeName(::tvm::ffi::ObjectPtr<ObjectName> n) : ParentType(std::move(n)) {} \
  static constexpr bool _type_is_nullable = true;                                      \
  TVM_FFI_REF_COMMON_(TypeName, ParentType, ObjectName)

#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName) \
  static constexpr bool _type_is_nullable = false;                                      \
  TVM_FFI_REF_COMMON_(TypeName, ParentType, ObjectName)

#define TVM_FFI_DEFINE_NULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName)
#define TVM_FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName)

#endif  // TVM_FFI_OBJECT_H_
