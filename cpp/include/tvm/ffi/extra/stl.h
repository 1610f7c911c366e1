/*
 * tvm/ffi/extra/stl.h -- conversions for standard containers, so typed
 * functions can take and return them: std::vector<T> (from/to Array or
 * List), std::optional<T> (None or T), std::map / std::unordered_map (from/to
 * Map or Dict).  They copy element by element and are not storage-enabled: a
 * view (AnyView) of one cannot be made, only an owned Any.
 */
#ifndef TVM_FFI_EXTRA_STL_H_
#define TVM_FFI_EXTRA_STL_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

TVM_FFI_NS_BEGIN

namespace details {
/* Base of the STL conversions: strict never holds, views cannot be made. */
struct STLTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
};
}  // namespace details

template <typename T, typename A>
struct TypeTraits<std::vector<T, A>> : public details::STLTraitsBase {
  static void MoveToAny(std::vector<T, A> v, TVMFFIAny* r) {
    TypeTraits<Array<T>>::MoveToAny(Array<T>(v.begin(), v.end()), r);
  }
  static std::optional<std::vector<T, A>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<Array<T>> a = TypeTraits<Array<T>>::TryCastFromAnyView(s);
    if (!a.has_value()) return std::nullopt;
    return std::vector<T, A>(a->begin(), a->end());
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<Array<T>>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return TypeTraits<Array<T>>::TypeStr(); }
  static std::string TypeSchema() { return TypeTraits<Array<T>>::TypeSchema(); }
};

template <typename T>
struct TypeTraits<std::optional<T>> : public details::STLTraitsBase {
  static void MoveToAny(std::optional<T> v, TVMFFIAny* r) {
    if (!v.has_value()) return details::AnySetNone(r);
    TypeTraits<T>::MoveToAny(*std::move(v), r);
  }
  static std::optional<std::optional<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return std::optional<T>();
    if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s)) return v;
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<T>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return "Optional<" + TypeTraits<T>::TypeStr() + ">"; }
  static std::string TypeSchema() {
    return "{\"type\":\"Optional\",\"args\":[" + TypeTraits<T>::TypeSchema() + "]}";
  }
};

namespace details {
template <typename M, typename K, typename V>
struct STLMapTraits : public STLTraitsBase {
  static void MoveToAny(M m, TVMFFIAny* r) {
    TypeTraits<Map<K, V>>::MoveToAny(Map<K, V>(m.begin(), m.end()), r);
  }
  static std::optional<M> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<Map<K, V>> m = TypeTraits<Map<K, V>>::TryCastFromAnyView(s);
    if (!m.has_value()) return std::nullopt;
    M out;
    for (auto kv : *m) out.emplace(std::move(kv.first), std::move(kv.second));
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<Map<K, V>>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return TypeTraits<Map<K, V>>::TypeStr(); }
  static std::string TypeSchema() { return TypeTraits<Map<K, V>>::TypeSchema(); }
};
}  // namespace details

template <typename K, typename V, typename C, typename A>
struct TypeTraits<std::map<K, V, C, A>>
    : public details::STLMapTraits<std::map<K, V, C, A>, K, V> {};
template <typename K, typename V, typename H, typename E, typename A>
struct TypeTraits<std::unordered_map<K, V, H, E, A>>
    : public details::STLMapTraits<std::unordered_map<K, V, H, E, A>, K, V> {};

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STL_H_
