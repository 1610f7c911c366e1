/*
 * tvm/ffi/container/variant.h -- Variant<V...>: one Any holding a value of
 * one of the alternatives (never null, never an ObjectRef).
 */
#ifndef TVM_FFI_CONTAINER_VARIANT_H_
#define TVM_FFI_CONTAINER_VARIANT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/optional.h>

TVM_FFI_NS_BEGIN

template <typename... V>
class Variant {
  static_assert(sizeof...(V) > 0, "Variant needs at least one alternative");

 public:
  static constexpr bool _type_container_is_exact = false;
  template <typename T, typename = std::enable_if_t<(type_subsumes_v<V, std::decay_t<T>> || ...) &&
                                                    !std::is_same_v<std::decay_t<T>, Variant>>>
  Variant(T&& v) : data_(std::decay_t<T>(std::forward<T>(v))) {}  // NOLINT(*)
  template <typename T, typename = std::enable_if_t<(type_subsumes_v<V, std::decay_t<T>> || ...)>>
  Variant& operator=(T&& v) {
    data_ = Any(std::decay_t<T>(std::forward<T>(v)));
    return *this;
  }
  Variant(const Variant&) = default;
  Variant(Variant&&) = default;
  Variant& operator=(const Variant&) = default;
  Variant& operator=(Variant&&) = default;

  /// Strict extraction.
  template <typename T, std::enable_if_t<!std::is_base_of_v<Object, T>, int> = 0>
  std::optional<T> as() const {
    return data_.as<T>();
  }
  template <typename ObjT, std::enable_if_t<std::is_base_of_v<Object, ObjT>, long> = 0>
  const ObjT* as() const {
    return data_.as<ObjT>();
  }
  /// Converting extraction; TypeError on failure.
  template <typename T>
  T get() const& {
    return data_.cast<T>();
  }
  template <typename T>
  T get() && {
    return std::move(data_).cast<T>();
  }
  std::string GetTypeKey() const { return data_.GetTypeKey(); }
  bool same_as(const Variant& o) const { return data_.same_as(o.data_); }
  /// A Variant of object references is an object reference (ObjectPtrHash, ObjectPtrEqual, ...).
  template <bool kAllObjects = (std::is_base_of_v<ObjectRef, V> && ...),
            typename = std::enable_if_t<kAllObjects>>
  operator ObjectRef() const {  // NOLINT(*)
    return data_.cast<ObjectRef>();
  }

 private:
  Variant() = default;
  template <typename, typename>
  friend struct TypeTraits;
  Any data_;
};

template <typename... V, typename T>
struct type_subsumes<Variant<V...>, T> : std::bool_constant<(type_subsumes_v<V, T> || ...)> {};

template <typename... V>
struct TypeTraits<Variant<V...>> : public TypeTraitsBase {
  using Self = Variant<V...>;
  static void CopyToAnyView(const Self& v, TVMFFIAny* r) {
    *r = *details::AnyUnsafe::GetRaw(&v.data_);
  }
  static void MoveToAny(Self v, TVMFFIAny* r) {
    *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return (TypeTraits<V>::CheckAnyStrict(s) || ...);
  }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    Self r;
    r.data_ = Any(AnyView::CopyFromTVMFFIAny(*s));
    return r;
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* s) {
    Self r;
    r.data_ = details::AnyUnsafe::MoveTVMFFIAnyToAny(s);
    return r;
  }
  /* Every alternative's strict check first, then each conversion in order. */
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* s) {
    return details::TryCastByConvert<TypeTraits, Self>(s);
  }
  static bool ConvertToAny(const TVMFFIAny* s, Any* out) {
    static constexpr details::ElemConvFn alts[] = {details::ElemConvOf<V>()...};
    return details::VariantConvertAny(s, &CheckAnyStrict, alts, sizeof...(V), out);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<V>::v..., nullptr};
    return details::JoinStrs("Variant<", parts, sizeof...(V), ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<V>::v..., nullptr};
    return details::SchemaWithArgs("Variant", parts, sizeof...(V));
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_VARIANT_H_
