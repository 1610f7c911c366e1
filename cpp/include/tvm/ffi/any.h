/*
 * tvm/ffi/any.h -- AnyView (non-owning, trivially copyable) and Any (owning):
 * both are exactly one TVMFFIAny.
 */
#ifndef TVM_FFI_ANY_H_
#define TVM_FFI_ANY_H_

#include <tvm/ffi/extra/c_container_base.h>
#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <optional>
#include <string>

TVM_FFI_NS_BEGIN
namespace details {
/*! \brief The hash of bytes the containers use (same value on every platform and alignment). */
inline uint64_t StableHashBytes(const void* data, size_t size) {
  return TVMFFIContainerHashBytes(static_cast<const char*>(data), size);
}
/*! \brief Folds an integral value into a running hash key. */
template <typename T>
inline uint64_t StableHashCombine(uint64_t key, const T& value) {
  return TVMFFIContainerHashCombine(key, static_cast<uint64_t>(value));
}
}  // namespace details

class Any;

namespace details {
template <typename Tr, typename = void>
struct has_copy_after_check : std::false_type {};
template <typename Tr>
struct has_copy_after_check<Tr, std::void_t<decltype(Tr::CopyFromAnyViewAfterCheck(nullptr))>>
    : std::true_type {};
template <typename Tr, typename = void>
struct has_move_after_check : std::false_type {};
template <typename Tr>
struct has_move_after_check<Tr, std::void_t<decltype(Tr::MoveFromAnyAfterCheck(nullptr))>>
    : std::true_type {};

struct AnyUnsafe;

/* Strict extraction (no conversion). */
template <typename T>
inline std::optional<T> AsStrict(const TVMFFIAny* d) {
  using Tr = TypeTraitsNoCR<T>;
  if constexpr (has_copy_after_check<Tr>::value) {
    if (Tr::CheckAnyStrict(d)) return Tr::CopyFromAnyViewAfterCheck(d);
  }
  return std::nullopt;
}
}  // namespace details

/*! \brief Non-owning view of any FFI value (16 bytes, trivially copyable). */
class AnyView {
 public:
  AnyView() noexcept { details::AnySetNone(&data_); }
  AnyView(const AnyView&) noexcept = default;
  AnyView& operator=(const AnyView&) noexcept = default;
  /* Moves copy: a view stays trivially copyable, so it is passed in registers exactly
   * like a TVMFFIAny -- the raw hook entry points (extra/structural_*.h) rely on it. */
  AnyView(AnyView&&) noexcept = default;
  AnyView& operator=(AnyView&&) noexcept = default;
  template <typename T, typename = std::enable_if_t<TypeTraitsNoCR<T>::convert_enabled>>
  AnyView(const T& other) {  // NOLINT(*)
    TypeTraitsNoCR<T>::CopyToAnyView(other, &data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraitsNoCR<T>::convert_enabled>>
  AnyView& operator=(const T& other) {
    TypeTraitsNoCR<T>::CopyToAnyView(other, &data_);
    return *this;
  }

  int32_t type_index() const noexcept { return data_.type_index; }
  std::string GetTypeKey() const { return TypeIndexToTypeKey(data_.type_index); }
  void reset() noexcept { details::AnySetNone(&data_); }
  void swap(AnyView& o) noexcept { std::swap(data_, o.data_); }

  template <typename T, std::enable_if_t<!std::is_base_of_v<Object, T>, int> = 0>
  std::optional<T> as() const {
    if constexpr (std::is_same_v<T, AnyView>)
      return *this;
    else
      return details::AsStrict<T>(&data_);
  }
  template <typename ObjT, std::enable_if_t<std::is_base_of_v<Object, ObjT>, long> = 0>
  const ObjT* as() const {
    if (data_.type_index >= kTVMFFIStaticObjectBegin &&
        details::AnyObject(&data_)->template IsInstance<ObjT>()) {
      return static_cast<const ObjT*>(details::AnyObject(&data_));
    }
    return nullptr;
  }
  /*! \brief as<T>(), throwing TypeError when the value is not exactly a T. */
  template <typename T>
  T as_or_throw() const {
    std::optional<T> r = this->as<T>();
    if (!r.has_value()) details::ThrowCannotTreat<T>(GetTypeKey());
    return *std::move(r);
  }
  template <typename T>
  T cast() const {
    if constexpr (std::is_same_v<T, AnyView>) {
      return *this;
    } else {
      std::optional<T> r = TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
      if (!r.has_value()) details::ThrowCannotConvert<T>(&data_);
      return *std::move(r);
    }
  }
  template <typename T>
  std::optional<T> try_cast() const {
    if constexpr (std::is_same_v<T, AnyView>)
      return *this;
    else
      return TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
  }
  bool operator==(std::nullptr_t) const noexcept { return data_.type_index == kTVMFFINone; }
  bool operator!=(std::nullptr_t) const noexcept { return data_.type_index != kTVMFFINone; }

  /// Raw access. [ext]
  TVMFFIAny CopyToTVMFFIAny() const noexcept { return data_; }
  static AnyView CopyFromTVMFFIAny(TVMFFIAny data) noexcept {
    AnyView v;
    v.data_ = data;
    return v;
  }

 protected:
  TVMFFIAny data_;
  friend class Any;
  friend struct details::AnyUnsafe;
};
static_assert(std::is_trivially_copyable_v<AnyView>, "AnyView crosses the C ABI by value");

/*! \brief Owning FFI value: holds one strong reference when the payload is an object. */
class Any {
 public:
  Any() noexcept { details::AnySetNone(&data_); }
  ~Any() { reset(); }
  Any(const Any& o) noexcept : data_(o.data_) {
    if (data_.type_index >= kTVMFFIStaticObjectBegin)
      details::ObjectUnsafe::IncRefHandle(data_.v_obj);
  }
  Any(Any&& o) noexcept : data_(o.data_) { details::AnySetNone(&o.data_); }
  Any& operator=(const Any& o) noexcept {
    Any(o).swap(*this);  // take new, then drop old
    return *this;
  }
  Any& operator=(Any&& o) noexcept {
    Any(std::move(o)).swap(*this);
    return *this;
  }
  /// Promotes a view: objects get a reference; raw strings/bytes are copied; rvalue refs move.
  Any(const AnyView& v) {  // NOLINT(*)
    const int32_t ti = v.data_.type_index;
    if (ti >= kTVMFFIStaticObjectBegin) {
      data_ = v.data_;
      details::ObjectUnsafe::IncRefHandle(data_.v_obj);
    } else if (ti == kTVMFFIRawStr || ti == kTVMFFIByteArrayPtr || ti == kTVMFFIObjectRValueRef) {
      details::AnySetNone(&data_);
      TVM_FFI_CHECK_SAFE_CALL(TVMFFIAnyViewToOwnedAny(&v.data_, &data_));
    } else {
      data_ = v.data_;
    }
  }
  Any& operator=(const AnyView& v) {
    Any(v).swap(*this);
    return *this;
  }
  template <typename T, typename = std::enable_if_t<TypeTraitsNoCR<T>::convert_enabled>>
  Any(T other) {  // NOLINT(*)
    TypeTraitsNoCR<T>::MoveToAny(std::move(other), &data_);
  }
  template <typename T, typename = std::enable_if_t<TypeTraitsNoCR<T>::convert_enabled>>
  Any& operator=(T other) {
    Any(std::move(other)).swap(*this);
    return *this;
  }
  operator AnyView() const noexcept { return AnyView::CopyFromTVMFFIAny(data_); }

  void reset() noexcept {
    if (data_.type_index >= kTVMFFIStaticObjectBegin)
      details::ObjectUnsafe::DecRefHandle(data_.v_obj);
    details::AnySetNone(&data_);
  }
  void swap(Any& o) noexcept { std::swap(data_, o.data_); }
  int32_t type_index() const noexcept { return data_.type_index; }
  std::string GetTypeKey() const { return TypeIndexToTypeKey(data_.type_index); }

  template <typename T, std::enable_if_t<!std::is_base_of_v<Object, T>, int> = 0>
  std::optional<T> as() const& {
    if constexpr (std::is_same_v<T, Any>)
      return *this;
    else
      return details::AsStrict<T>(&data_);
  }
  template <typename T, std::enable_if_t<!std::is_base_of_v<Object, T>, int> = 0>
  std::optional<T> as() && {
    if constexpr (std::is_same_v<T, Any>) {
      return std::move(*this);
    } else {
      using Tr = TypeTraitsNoCR<T>;
      if constexpr (details::has_move_after_check<Tr>::value) {
        if (Tr::CheckAnyStrict(&data_)) return Tr::MoveFromAnyAfterCheck(&data_);
        return std::nullopt;
      } else {
        return details::AsStrict<T>(&data_);
      }
    }
  }
  template <typename ObjT, std::enable_if_t<std::is_base_of_v<Object, ObjT>, long> = 0>
  const ObjT* as() const& {
    return AnyView::CopyFromTVMFFIAny(data_).as<ObjT>();
  }
  template <typename T>
  T as_or_throw() const& {
    std::optional<T> r = this->as<T>();
    if (!r.has_value()) details::ThrowCannotTreat<T>(GetTypeKey());
    return *std::move(r);
  }
  template <typename T>
  T as_or_throw() && {
    std::optional<T> r = std::move(*this).template as<T>();
    if (!r.has_value()) details::ThrowCannotTreat<T>(GetTypeKey());
    return *std::move(r);
  }
  template <typename T>
  T cast() const& {
    if constexpr (std::is_same_v<T, Any>) {
      return *this;
    } else {
      std::optional<T> r = TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
      if (!r.has_value()) details::ThrowCannotConvert<T>(&data_);
      return *std::move(r);
    }
  }
  template <typename T>
  T cast() && {
    if constexpr (std::is_same_v<T, Any>) {
      return std::move(*this);
    } else {
      using Tr = TypeTraitsNoCR<T>;
      if constexpr (details::has_move_after_check<Tr>::value) {
        if (Tr::CheckAnyStrict(&data_)) return Tr::MoveFromAnyAfterCheck(&data_);
      }
      std::optional<T> r = Tr::TryCastFromAnyView(&data_);
      if (!r.has_value()) details::ThrowCannotConvert<T>(&data_);
      return *std::move(r);
    }
  }
  template <typename T>
  std::optional<T> try_cast() const {
    if constexpr (std::is_same_v<T, Any>)
      return *this;
    else
      return TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
  }
  bool operator==(std::nullptr_t) const noexcept { return data_.type_index == kTVMFFINone; }
  bool operator!=(std::nullptr_t) const noexcept { return data_.type_index != kTVMFFINone; }
  /// Bitwise (identity) comparison.
  bool same_as(const Any& o) const noexcept {
    return std::memcmp(&data_, &o.data_, sizeof(TVMFFIAny)) == 0;
  }
  bool same_as(const ObjectRef& o) const noexcept {
    if (o.get() == nullptr) return data_.type_index == kTVMFFINone;
    return data_.type_index >= kTVMFFIStaticObjectBegin && details::AnyObject(&data_) == o.get();
  }

 protected:
  TVMFFIAny data_;
  friend struct details::AnyUnsafe;
};

static_assert(sizeof(Any) == sizeof(TVMFFIAny), "Any must be one TVMFFIAny");
static_assert(sizeof(AnyView) == sizeof(TVMFFIAny), "AnyView must be one TVMFFIAny");

namespace details {
/*! \brief Raw access used by the layer itself. */
struct AnyUnsafe {
  static TVMFFIAny* GetRaw(Any* a) noexcept { return &a->data_; }
  static const TVMFFIAny* GetRaw(const Any* a) noexcept { return &a->data_; }
  static const TVMFFIAny* GetRaw(const AnyView* a) noexcept { return &a->data_; }
  static TVMFFIAny* GetRaw(AnyView* a) noexcept { return &a->data_; }
  /* Moves the owned payload out (caller owns it); `a` becomes None. */
  /* The object of a view already checked to hold a T (no reference taken). */
  template <typename T = Object>
  static T* RawObjectPtrFromAnyViewAfterCheck(const AnyView& v) noexcept {
    return static_cast<T*>(details::AnyObject(&v.data_));
  }
  template <typename T = Object>
  static T* RawObjectPtrFromAnyAfterCheck(const Any& v) noexcept {
    return static_cast<T*>(details::AnyObject(&v.data_));
  }
  static TVMFFIAny MoveAnyToTVMFFIAny(Any&& a) noexcept {
    TVMFFIAny r = a.data_;
    AnySetNone(&a.data_);
    return r;
  }
  /* Adopts an owned payload. */
  static Any MoveTVMFFIAnyToAny(TVMFFIAny* raw) noexcept {
    Any a;
    a.data_ = *raw;
    AnySetNone(raw);
    return a;
  }
  /* Adopts an owned payload passed by value. */
  static Any MoveTVMFFIAnyRawToAny(TVMFFIAny raw) noexcept { return MoveTVMFFIAnyToAny(&raw); }
  template <typename T>
  static T MoveFromAny(Any&& a) {
    return std::move(a).cast<T>();
  }
  static const TVMFFIAny* TVMFFIAnyPtrFromAny(const Any& a) noexcept { return &a.data_; }
  /* Whether the value is exactly a T, with no conversion (Any accepts everything). */
  template <typename T>
  static bool CheckAnyStrict(const Any& a) {
    if constexpr (std::is_same_v<T, Any>)
      return true;
    else
      return TypeTraitsNoCR<T>::CheckAnyStrict(&a.data_);
  }
  template <typename T>
  static bool CheckAnyViewStrict(const AnyView& v) {
    if constexpr (std::is_same_v<T, AnyView> || std::is_same_v<T, Any>)
      return true;
    else
      return TypeTraitsNoCR<T>::CheckAnyStrict(&v.data_);
  }
  /* A T out of a value already known to satisfy CheckAnyStrict<T>. */
  template <typename T>
  static T CopyFromAnyViewAfterCheck(const Any& a) {
    using Tr = TypeTraitsNoCR<T>;
    if constexpr (std::is_same_v<T, Any>)
      return a;
    else if constexpr (has_copy_after_check<Tr>::value)
      return Tr::CopyFromAnyViewAfterCheck(&a.data_);
    else
      return a.cast<T>();
  }
  template <typename T>
  static T MoveFromAnyAfterCheck(Any&& a) {
    using Tr = TypeTraitsNoCR<T>;
    if constexpr (std::is_same_v<T, Any>)
      return std::move(a);
    else if constexpr (has_move_after_check<Tr>::value)
      return Tr::MoveFromAnyAfterCheck(&a.data_);
    else
      return CopyFromAnyViewAfterCheck<T>(a);
  }
  template <typename T>
  static std::string GetMismatchTypeInfo(const Any& a) {
    return TypeTraitsNoCR<T>::GetMismatchTypeInfo(&a.data_);
  }
};

}  // namespace details

namespace details {
/*
 * A type's conversion as a plain function: ElemConvFn converts *src to an owned Any that
 * holds the type strictly (what TryCastFromAnyView would give), or answers false.
 * Containers, optionals and variants convert their parts through such functions, and a
 * typed argument that fails its strict check converts through one too, so the conversion
 * code of Array, Map, Optional and Variant is one function per binary whatever the
 * element types (bench/README.md, "C++ layer").  A built-in TypeTraits defines
 * `static bool ConvertToAny(const TVMFFIAny*, Any*)` for that; any other type (a user's
 * TypeTraits) goes through ElemConv<T>, its TryCastFromAnyView.  Type Any is nullptr
 * (taken as it is).
 */
using ElemConvFn = bool (*)(const TVMFFIAny* src, Any* out);
using ElemInfoFn = std::string (*)(const TVMFFIAny* src);
using StrictFn = bool (*)(const TVMFFIAny* src);
template <typename Tr, typename = void>
struct has_convert_to_any : std::false_type {};
template <typename Tr>
struct has_convert_to_any<Tr, std::void_t<decltype(Tr::ConvertToAny(nullptr, nullptr))>>
    : std::bool_constant<Tr::storage_enabled> {};
template <typename T>
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT bool ElemConv(const TVMFFIAny* src, Any* out) {
  std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(src);
  if (!v.has_value()) return false;
  *out = Any(*std::move(v));
  return true;
}
template <typename T>
constexpr ElemConvFn ElemConvOf() {
  if constexpr (std::is_same_v<T, Any>)
    return nullptr;
  else if constexpr (has_convert_to_any<TypeTraits<T>>::value)
    return &TypeTraits<T>::ConvertToAny;
  else
    return &ElemConv<T>;
}
template <typename T>
constexpr ElemInfoFn ElemInfoOf() {
  if constexpr (std::is_same_v<T, Any>)
    return nullptr;
  else
    return &TypeTraits<T>::GetMismatchTypeInfo;
}
/* TryCastFromAnyView of a type with ConvertToAny: the value when strict, else its
 * conversion; the rule itself is written once, in ConvertToAny. */
template <typename Tr, typename U>
inline std::optional<U> TryCastByConvert(const TVMFFIAny* s) {
  if (Tr::CheckAnyStrict(s)) return Tr::CopyFromAnyViewAfterCheck(s);
  Any converted;
  if (!Tr::ConvertToAny(s, &converted)) return std::nullopt;
  return Tr::CopyFromAnyViewAfterCheck(AnyUnsafe::GetRaw(&converted));
}
/* Optional<T>'s conversion: None, or T's. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT bool OptionalConvertAny(const TVMFFIAny* s,
                                                                    ElemConvFn conv, Any* out) {
  if (s->type_index == kTVMFFINone || conv == nullptr) {
    *out = *reinterpret_cast<const Any*>(s);
    return true;
  }
  return conv(s, out);
}
/* Variant<V...>'s conversion: the value itself when an alternative takes it strictly, else
 * the first alternative that converts it, in order. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT bool VariantConvertAny(const TVMFFIAny* s,
                                                                   StrictFn strict,
                                                                   const ElemConvFn* alts, size_t n,
                                                                   Any* out) {
  if (strict(s)) {
    *out = *reinterpret_cast<const Any*>(s);
    return true;
  }
  for (size_t i = 0; i < n; ++i) {
    if (alts[i] == nullptr) {
      *out = *reinterpret_cast<const Any*>(s);
      return true;
    }
    if (alts[i](s, out)) return true;
  }
  return false;
}
}  // namespace details

/*! \brief Hash used by Map/Dict keys: content for strings/bytes, raw bits otherwise (docs/abi.md §5.6). */
struct AnyHash {
  uint64_t operator()(const Any& a) const {
    uint64_t h = 0;
    if (TVMFFIContainerAnyHash(details::AnyUnsafe::GetRaw(&a), &h) != 0) details::ThrowRaised(-1);
    return h;
  }
};

/*! \brief Equality used by Map/Dict keys (Int 1 and Float 1.0 differ). */
struct AnyEqual {
  bool operator()(const Any& a, const Any& b) const {
    int r = TVMFFIContainerAnyEqual(details::AnyUnsafe::GetRaw(&a), details::AnyUnsafe::GetRaw(&b));
    if (r < 0) details::ThrowRaised(-1);
    return r != 0;
  }
};

TVM_FFI_NS_END

namespace tvm {
using tvm::ffi::Any;
using tvm::ffi::AnyView;
}  // namespace tvm

#endif  // TVM_FFI_ANY_H_
