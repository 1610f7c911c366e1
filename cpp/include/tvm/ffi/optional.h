/*
 * tvm/ffi/optional.h -- Optional<T> in three storage forms (layout is ABI):
 *   object references           one pointer, null = absent
 *   other storage-enabled types one Any (16 bytes), None = absent
 *   everything else             std::optional<T> (e.g. TensorView, std::string)
 */
#ifndef TVM_FFI_OPTIONAL_H_
#define TVM_FFI_OPTIONAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <optional>
#include <type_traits>

TVM_FFI_NS_BEGIN

template <typename T, typename = void>
class Optional;

template <typename T>
inline constexpr bool is_optional_type_v = false;
template <typename T>
inline constexpr bool is_optional_type_v<Optional<T>> = true;

namespace details {
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowBadOptionalAccess() {
  TVM_FFI_THROW(RuntimeError) << "Back optional access";
  TVM_FFI_UNREACHABLE();
}
template <typename T>
inline constexpr bool optional_is_object_v =
    std::is_base_of_v<ObjectRef, T> && !is_optional_type_v<T>;
/* ObjectPtr<T> / Arc<T>: the optional is the pointer itself, null when absent. */
template <typename T>
inline constexpr bool optional_is_ptr_v = false;
template <typename T>
inline constexpr bool optional_is_ptr_v<ObjectPtr<T>> = true;
template <typename T>
inline constexpr bool optional_is_ptr_v<Arc<T>> = true;
template <typename T>
inline constexpr bool optional_is_any_v =
    !optional_is_object_v<T> && !optional_is_ptr_v<T> && TypeTraits<T>::convert_enabled &&
    TypeTraits<T>::storage_enabled;

/* Comparison shared by all forms: absent == absent, absent != value, else compare values. */
template <typename Opt, typename U>
inline bool OptionalEquals(const Opt& a, const U& b) {
  if constexpr (std::is_same_v<U, std::nullopt_t> || std::is_same_v<U, std::nullptr_t>) {
    return !a.has_value();
  } else if constexpr (is_optional_type_v<U>) {
    if (!a.has_value() || !b.has_value()) return a.has_value() == b.has_value();
    return *a == *b;
  } else if constexpr (std::is_same_v<U, std::optional<std::decay_t<decltype(*a)>>>) {
    if (!a.has_value() || !b.has_value()) return a.has_value() == b.has_value();
    return *a == *b;
  } else {
    return a.has_value() && *a == b;
  }
}
}  // namespace details

#define TVM_FFI_OPTIONAL_COMPARE_()                                                          \
  template <typename U>                                                                      \
  bool operator==(const U& other) const {                                                    \
    return details::OptionalEquals(*this, other);                                            \
  }                                                                                          \
  template <typename U>                                                                      \
  bool operator!=(const U& other) const {                                                    \
    return !details::OptionalEquals(*this, other);                                           \
  }                                                                                          \
  bool operator==(const char* other) const { return details::OptionalEquals(*this, other); } \
  bool operator!=(const char* other) const { return !details::OptionalEquals(*this, other); }

/* Strict reinterpretation of a pointer-backed Optional (absent reads as None); the && form
 * takes the value only when the check passes, so a TypeError keeps it. */
#define TVM_FFI_OPTIONAL_AS_()                       \
  template <typename U>                              \
  auto as() const {                                  \
    return AnyView(*this).template as<U>();          \
  }                                                  \
  template <typename U>                              \
  U as_or_throw() const& {                           \
    return AnyView(*this).template as_or_throw<U>(); \
  }                                                  \
  template <typename U>                              \
  U as_or_throw() && {                               \
    U r = AnyView(*this).template as_or_throw<U>();  \
    *this = std::nullopt;                            \
    return r;                                        \
  }

/*!
 * \brief Object form: one pointer, null when absent.  Not an ObjectRef (as
 *  upstream's): it does not convert to ObjectRef or to T without value().
 */
template <typename T>
class Optional<T, std::enable_if_t<details::optional_is_object_v<T>>> {
 public:
  using value_type = T;
  using ContainerType = typename T::ContainerType;
  static constexpr bool _type_is_nullable = true;
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}       // NOLINT(*)
  Optional(std::nullptr_t) noexcept {}       // NOLINT(*)
  Optional(const T& v) : data_(details::ObjectUnsafe::GetObjectPtr(v)) {}  // NOLINT(*)
  Optional(T&& v) : data_(std::move(details::ObjectUnsafe::GetObjectPtrRef(v))) {}  // NOLINT(*)
  Optional(const std::optional<T>& v) {      // NOLINT(*)
    if (v.has_value()) data_ = details::ObjectUnsafe::GetObjectPtr(*v);
  }
  Optional(std::optional<T>&& v) {  // NOLINT(*)
    if (v.has_value()) data_ = std::move(details::ObjectUnsafe::GetObjectPtrRef(*v));
  }
  template <typename U,
            typename = std::enable_if_t<std::is_base_of_v<T, U> && !std::is_same_v<T, U>>>
  Optional(const U& v) : data_(details::ObjectUnsafe::GetObjectPtr(v)) {}  // NOLINT(*)
  explicit Optional(UnsafeInit) noexcept {}
  Optional(const Optional&) = default;
  Optional(Optional&&) = default;
  Optional& operator=(const Optional&) = default;
  Optional& operator=(Optional&&) = default;
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(const T& v) {
    data_ = details::ObjectUnsafe::GetObjectPtr(v);
    return *this;
  }
  Optional& operator=(T&& v) {
    data_ = std::move(details::ObjectUnsafe::GetObjectPtrRef(v));
    return *this;
  }

  bool has_value() const noexcept { return data_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  T value() const& {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return details::ObjectUnsafe::ObjectRefFromObjectPtr<T>(data_);
  }
  T value() && {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return details::ObjectUnsafe::ObjectRefFromObjectPtr<T>(std::move(data_));
  }
  template <typename U>
  T value_or(U&& def) const {
    return has_value() ? value() : T(std::forward<U>(def));
  }
  T operator*() const& { return details::ObjectUnsafe::ObjectRefFromObjectPtr<T>(data_); }
  T operator*() && { return details::ObjectUnsafe::ObjectRefFromObjectPtr<T>(std::move(data_)); }
  const ContainerType* get() const { return static_cast<const ContainerType*>(data_.get()); }
  auto operator->() const { return value().operator->(); }
  bool same_as(const Optional& o) const noexcept { return data_ == o.data_; }
  bool same_as(const ObjectRef& o) const noexcept { return data_.get() == o.get(); }
  bool unique() const noexcept { return use_count() == 1; }
  int use_count() const noexcept { return data_.use_count(); }
  TVM_FFI_OPTIONAL_AS_()
  TVM_FFI_OPTIONAL_COMPARE_()

 private:
  ObjectPtr<Object> data_;
  friend struct details::ObjectUnsafe;
};

/*! \brief Any-backed form: one Any, None = absent. */
template <typename T>
class Optional<T, std::enable_if_t<details::optional_is_any_v<T>>> {
 public:
  using value_type = T;
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}  // NOLINT(*)
  Optional(std::nullptr_t) noexcept {}  // NOLINT(*)
  Optional(const T& v) : data_(v) {}    // NOLINT(*)
  Optional(T&& v) : data_(std::move(v)) {}  // NOLINT(*)
  Optional(const std::optional<T>& v) {  // NOLINT(*)
    if (v.has_value()) data_ = *v;
  }
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Optional> &&
                                        !std::is_same_v<std::decay_t<U>, std::optional<T>> &&
                                        !std::is_same_v<std::decay_t<U>, std::nullptr_t>>>
  Optional(U&& v) : data_(T(std::forward<U>(v))) {}  // NOLINT(*)
  Optional(const Optional&) = default;
  Optional(Optional&&) = default;
  Optional& operator=(const Optional&) = default;
  Optional& operator=(Optional&&) = default;
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    data_.reset();
    return *this;
  }
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, Optional> &&
                                        !std::is_same_v<std::decay_t<U>, std::optional<T>> &&
                                        !std::is_same_v<std::decay_t<U>, std::nullptr_t> &&
                                        !std::is_same_v<std::decay_t<U>, std::nullopt_t>>>
  Optional& operator=(U&& v) {
    data_ = Any(T(std::forward<U>(v)));
    return *this;
  }

  /*! \brief The value as exactly a U (TypeError otherwise, also when absent). */
  template <typename U>
  U as_or_throw() const& {
    return data_.template as_or_throw<U>();
  }
  template <typename U>
  U as_or_throw() && {
    return std::move(data_).template as_or_throw<U>();
  }
  bool has_value() const noexcept { return data_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  T value() const& {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return **this;
  }
  T value() && {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return *std::move(*this);
  }
  template <typename U>
  T value_or(U&& def) const {
    return has_value() ? **this : T(std::forward<U>(def));
  }
  T operator*() const& {
    return TypeTraits<T>::CopyFromAnyViewAfterCheck(details::AnyUnsafe::GetRaw(&data_));
  }
  T operator*() && {
    return TypeTraits<T>::MoveFromAnyAfterCheck(details::AnyUnsafe::GetRaw(&data_));
  }
  bool same_as(const Optional& o) const noexcept { return data_.same_as(o.data_); }
  template <typename U>
  auto as() const {
    return data_.as<U>();
  }
  TVM_FFI_OPTIONAL_COMPARE_()

 private:
  Any data_;
  template <typename, typename>
  friend struct TypeTraits;
};

/*! \brief Pointer form for ObjectPtr<E> and Arc<E>: one pointer, null when absent. */
template <typename P>
class Optional<P, std::enable_if_t<details::optional_is_ptr_v<P>>> {
 public:
  using value_type = P;
  using element_type = typename P::element_type;
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}                          // NOLINT(*)
  Optional(const P& p) noexcept : ptr_(p) {}                     // NOLINT(*)
  Optional(P&& p) noexcept : ptr_(std::move(p)) {}               // NOLINT(*)
  Optional& operator=(std::nullopt_t) noexcept {
    ptr_ = nullptr;
    return *this;
  }
  Optional& operator=(const P& p) noexcept {
    ptr_ = p;
    return *this;
  }
  bool has_value() const noexcept { return ptr_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  element_type* get() const noexcept { return ptr_.get(); }
  P value() const& {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return Make(ObjectPtr<element_type>(ptr_));
  }
  P value() && {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return Make(std::move(ptr_));
  }
  template <typename U>
  P value_or(U&& def) const {
    return has_value() ? value() : P(std::forward<U>(def));
  }
  P operator*() const& { return value(); }
  P operator*() && { return std::move(*this).value(); }
  element_type* operator->() const noexcept { return get(); }
  TVM_FFI_OPTIONAL_AS_()
  TVM_FFI_OPTIONAL_COMPARE_()

 private:
  static P Make(ObjectPtr<element_type>&& p) {
    if constexpr (std::is_same_v<P, ObjectPtr<element_type>>) {
      return std::move(p);
    } else {
      return details::ObjectUnsafe::ArcFromObjectPtr(std::move(p));
    }
  }
  ObjectPtr<element_type> ptr_;
};

/*! \brief std::optional form for types that cannot be stored (views, std::string, ...). */
template <typename T>
class Optional<T,
               std::enable_if_t<!details::optional_is_object_v<T> &&
                                !details::optional_is_ptr_v<T> && !details::optional_is_any_v<T>>> {
 public:
  using value_type = T;
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}  // NOLINT(*)
  Optional(const T& v) : data_(v) {}    // NOLINT(*)
  Optional(T&& v) : data_(std::move(v)) {}  // NOLINT(*)
  Optional(const std::optional<T>& v) : data_(v) {}  // NOLINT(*)
  Optional(std::optional<T>&& v) : data_(std::move(v)) {}  // NOLINT(*)
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, const U&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Optional> &&
                                        !std::is_same_v<std::decay_t<U>, std::nullopt_t>>>
  Optional(const U& v) : data_(T(v)) {}  // NOLINT(*)
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(const T& v) {
    data_ = v;
    return *this;
  }
  bool has_value() const noexcept { return data_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  const T& value() const& {
    if (!has_value()) details::ThrowBadOptionalAccess();
    return *data_;
  }
  T value() && {
    if (!has_value()) details::ThrowBadOptionalAccess();
    T r = std::move(*data_);
    data_.reset();
    return r;
  }
  template <typename U>
  T value_or(U&& def) const {
    return data_.has_value() ? *data_ : T(std::forward<U>(def));
  }
  const T& operator*() const& { return *data_; }
  T operator*() && { return std::move(*data_); }
  const T* operator->() const { return &*data_; }
  TVM_FFI_OPTIONAL_COMPARE_()

 private:
  std::optional<T> data_;
};

#undef TVM_FFI_OPTIONAL_COMPARE_

template <typename T>
inline bool operator==(std::nullopt_t, const Optional<T>& o) {
  return !o.has_value();
}
template <typename T>
inline bool operator!=(std::nullopt_t, const Optional<T>& o) {
  return o.has_value();
}

/* ---- Any conversion ----------------------------------------------------------- */

template <typename T>
struct TypeTraits<Optional<T>> : public TypeTraitsBase {
  using Inner = TypeTraits<T>;
  static constexpr bool storage_enabled = Inner::storage_enabled;
  static constexpr int32_t field_static_type_index = kTVMFFIAny;
  static constexpr bool kIsObject = details::optional_is_object_v<T>;
  static constexpr bool kIsAny = details::optional_is_any_v<T>;

  static void CopyToAnyView(const Optional<T>& v, TVMFFIAny* r) {
    if (!v.has_value()) return details::AnySetNone(r);
    if constexpr (kIsAny) {
      *r = *details::AnyUnsafe::GetRaw(&v.data_);
    } else {
      Inner::CopyToAnyView(*v, r);
    }
  }
  static void MoveToAny(Optional<T> v, TVMFFIAny* r) {
    if (!v.has_value()) return details::AnySetNone(r);
    if constexpr (kIsAny) {
      *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v.data_));
    } else {
      Inner::MoveToAny(*std::move(v), r);
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFINone || Inner::CheckAnyStrict(s);
  }
  static Optional<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return Optional<T>();
    if constexpr (details::has_copy_after_check<Inner>::value) {
      return Optional<T>(Inner::CopyFromAnyViewAfterCheck(s));
    } else {
      return Optional<T>(*Inner::TryCastFromAnyView(s));
    }
  }
  static Optional<T> MoveFromAnyAfterCheck(TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return Optional<T>();
    if constexpr (details::has_move_after_check<Inner>::value) {
      return Optional<T>(Inner::MoveFromAnyAfterCheck(s));
    } else {
      return CopyFromAnyViewAfterCheck(s);
    }
  }
  static std::optional<Optional<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return Optional<T>();
    if (std::optional<T> v = Inner::TryCastFromAnyView(s)) return Optional<T>(*std::move(v));
    return std::nullopt;
  }
  static bool ConvertToAny(const TVMFFIAny* s, Any* out) {
    return details::OptionalConvertAny(s, details::ElemConvOf<T>(), out);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return Inner::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&Inner::TypeStr};
    return details::JoinStrs("Optional<", parts, 1, ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&Inner::TypeSchema};
    return details::SchemaWithArgs("Optional", parts, 1);
  }
};

template <typename T>
inline constexpr bool use_default_type_traits_v<Optional<T>> = false;

TVM_FFI_NS_END
#endif  // TVM_FFI_OPTIONAL_H_
