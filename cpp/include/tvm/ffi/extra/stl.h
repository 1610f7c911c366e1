/*
 * tvm/ffi/extra/stl.h -- conversions for standard types, so typed
 * functions can take and return them: std::vector<T> and std::array<T, N>
 * (from/to Array or List), std::tuple<T...> (a sequence of that length),
 * std::optional<T> (None or T), std::variant<T...> (the first alternative
 * that holds the value exactly, else the first that converts),
 * std::map / std::unordered_map (from/to Map or Dict) and
 * std::function<R(A...)> (from/to Function).  They copy element by element
 * and are not storage-enabled: a view (AnyView) of one cannot be made, only
 * an owned Any.
 */
#ifndef TVM_FFI_EXTRA_STL_H_
#define TVM_FFI_EXTRA_STL_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

TVM_FFI_NS_BEGIN

namespace details {
/* Base of the STL conversions: strict never holds, views cannot be made. */
struct STLTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
};
}  // namespace details

namespace details {
/* Elements go through Any one by one, so they may be STL types themselves. */
template <typename Seq>
inline Array<Any> STLToArray(Seq&& seq) {
  Array<Any> out;
  out.reserve(static_cast<int64_t>(seq.size()));
  for (auto& e : seq) out.push_back(Any(std::move(e)));
  return out;
}
template <typename T, typename Out>
inline bool STLFromSeq(const TVMFFIAny* s, Out* out, int64_t want_size = -1) {
  std::optional<Array<Any>> a = TypeTraits<Array<Any>>::TryCastFromAnyView(s);
  if (!a.has_value()) return false;
  if (want_size >= 0 && static_cast<int64_t>(a->size()) != want_size) return false;
  size_t i = 0;
  for (const Any& e : *a) {
    std::optional<T> v = e.try_cast<T>();
    if (!v.has_value()) return false;
    (*out)(i++, *std::move(v));
  }
  return true;
}
/* "Array[index i: <why>]" for the first element that is not a T. */
template <typename T>
inline std::string STLSeqMismatch(const TVMFFIAny* s) {
  if (s->type_index == kTVMFFIArray || s->type_index == kTVMFFIList) {
    const TVMFFISeqCell* c = SeqCellOf(s);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(c->data);
    for (int64_t i = 0; i < c->size; ++i) {
      if (!TypeTraits<T>::TryCastFromAnyView(items + i).has_value()) {
        return "Array[index " + std::to_string(i) + ": " +
               TypeTraits<T>::GetMismatchTypeInfo(items + i) + "]";
      }
    }
  }
  return TypeIndexToTypeKey(s->type_index);
}
}  // namespace details

template <typename T, typename A>
struct TypeTraits<std::vector<T, A>> : public details::STLTraitsBase {
  static void MoveToAny(std::vector<T, A> v, TVMFFIAny* r) {
    TypeTraits<Array<Any>>::MoveToAny(details::STLToArray(std::move(v)), r);
  }
  static std::optional<std::vector<T, A>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::vector<T, A> out;
    auto put = [&out](size_t, T v) { out.push_back(std::move(v)); };
    if (!details::STLFromSeq<T>(s, &put)) return std::nullopt;
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return details::STLSeqMismatch<T>(s);
  }
  static std::string TypeStr() { return "Array<" + details::Type2Str<T>::v() + ">"; }
  static std::string TypeSchema() {
    return "{\"type\":\"ffi.Array\",\"args\":[" + details::Type2Schema<T>::v() + "]}";
  }
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

template <typename T, size_t N>
struct TypeTraits<std::array<T, N>> : public details::STLTraitsBase {
  static void MoveToAny(std::array<T, N> v, TVMFFIAny* r) {
    TypeTraits<Array<Any>>::MoveToAny(details::STLToArray(std::move(v)), r);
  }
  static std::optional<std::array<T, N>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::array<T, N> out;
    auto put = [&out](size_t i, T v) { out[i] = std::move(v); };
    if (!details::STLFromSeq<T>(s, &put, static_cast<int64_t>(N))) return std::nullopt;
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return details::STLSeqMismatch<T>(s);
  }
  static std::string TypeStr() {
    return "std::array<" + details::Type2Str<T>::v() + ", " + std::to_string(N) + ">";
  }
  static std::string TypeSchema() {
    return "{\"type\":\"ffi.Array\",\"args\":[" + details::Type2Schema<T>::v() + "]}";
  }
};

template <typename... Ts>
struct TypeTraits<std::tuple<Ts...>> : public details::STLTraitsBase {
  static void MoveToAny(std::tuple<Ts...> v, TVMFFIAny* r) {
    Array<Any> items =
        std::apply([](auto&&... e) { return Array<Any>{Any(std::move(e))...}; }, std::move(v));
    TypeTraits<Array<Any>>::MoveToAny(std::move(items), r);
  }
  static std::optional<std::tuple<Ts...>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<Array<Any>> a = TypeTraits<Array<Any>>::TryCastFromAnyView(s);
    if (!a.has_value() || a->size() != sizeof...(Ts)) return std::nullopt;
    return Items(*a, std::index_sequence_for<Ts...>{});
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<Array<Any>>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() {
    std::string s = "std::tuple<";
    size_t i = 0;
    ((s += (i++ ? ", " : "") + details::Type2Str<Ts>::v()), ...);
    return s + ">";
  }
  static std::string TypeSchema() {
    std::string s = "{\"type\":\"Tuple\",\"args\":[";
    size_t i = 0;
    ((s += (i++ ? "," : "") + details::Type2Schema<Ts>::v()), ...);
    return s + "]}";
  }

 private:
  template <size_t... I>
  static std::optional<std::tuple<Ts...>> Items(const Array<Any>& a, std::index_sequence<I...>) {
    std::tuple<std::optional<Ts>...> parts{a[I].template try_cast<Ts>()...};
    if (!(std::get<I>(parts).has_value() && ...)) return std::nullopt;
    return std::tuple<Ts...>(*std::move(std::get<I>(parts))...);
  }
};

template <typename... Ts>
struct TypeTraits<std::variant<Ts...>> : public details::STLTraitsBase {
  static void MoveToAny(std::variant<Ts...> v, TVMFFIAny* r) {
    std::visit([r](auto&& e) { TypeTraitsNoCR<decltype(e)>::MoveToAny(std::move(e), r); },
               std::move(v));
  }
  static std::optional<std::variant<Ts...>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<std::variant<Ts...>> out;
    // an alternative that holds the value as it is wins over a converting one
    ((!out && TakeStrict<Ts>(s, &out)), ...);
    ((!out && TryOne<Ts>(s, &out)), ...);
    return out;
  }
  static std::string TypeStr() {
    std::string s = "std::variant<";
    size_t i = 0;
    ((s += (i++ ? ", " : "") + details::Type2Str<Ts>::v()), ...);
    return s + ">";
  }
  static std::string TypeSchema() {
    std::string s = "{\"type\":\"Variant\",\"args\":[";
    size_t i = 0;
    ((s += (i++ ? "," : "") + details::Type2Schema<Ts>::v()), ...);
    return s + "]}";
  }

 private:
  template <typename T>
  static bool TakeStrict(const TVMFFIAny* s, std::optional<std::variant<Ts...>>* out) {
    if constexpr (TypeTraits<T>::storage_enabled) {
      if (!TypeTraits<T>::CheckAnyStrict(s)) return false;
      out->emplace(std::in_place_type<T>, TypeTraits<T>::CopyFromAnyViewAfterCheck(s));
      return true;
    } else {
      return false;
    }
  }
  template <typename T>
  static bool TryOne(const TVMFFIAny* s, std::optional<std::variant<Ts...>>* out) {
    std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s);
    if (v.has_value()) out->emplace(std::in_place_type<T>, *std::move(v));
    return v.has_value();
  }
};

template <typename R, typename... Args>
struct TypeTraits<std::function<R(Args...)>> : public details::STLTraitsBase {
  static void MoveToAny(std::function<R(Args...)> f, TVMFFIAny* r) {
    TypeTraits<Function>::MoveToAny(Function::FromTyped(std::move(f)), r);
  }
  static std::optional<std::function<R(Args...)>> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<Function> f = TypeTraits<Function>::TryCastFromAnyView(s);
    if (!f.has_value()) return std::nullopt;
    return std::function<R(Args...)>(TypedFunction<R(Args...)>(*std::move(f)));
  }
  static std::string TypeStr() { return "std::function" + details::FuncSig<R, Args...>::Sig(); }
  static std::string TypeSchema() { return details::FuncSig<R, Args...>::Schema("std::function"); }
};

namespace details {
template <typename M, typename K, typename V>
struct STLMapTraits : public STLTraitsBase {
  static void MoveToAny(M m, TVMFFIAny* r) {
    Map<Any, Any> out;
    for (auto& kv : m) out.Set(Any(kv.first), Any(std::move(kv.second)));
    TypeTraits<Map<Any, Any>>::MoveToAny(std::move(out), r);
  }
  static std::optional<M> TryCastFromAnyView(const TVMFFIAny* s) {
    std::optional<Map<Any, Any>> m = TypeTraits<Map<Any, Any>>::TryCastFromAnyView(s);
    if (!m.has_value()) return std::nullopt;
    M out;
    for (const auto& kv : *m) {
      std::optional<K> k = kv.first.template try_cast<K>();
      std::optional<V> v = kv.second.template try_cast<V>();
      if (!k.has_value() || !v.has_value()) return std::nullopt;
      out.emplace(*std::move(k), *std::move(v));
    }
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<Map<Any, Any>>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return "Map<" + Type2Str<K>::v() + ", " + Type2Str<V>::v() + ">"; }
  static std::string TypeSchema() {
    return "{\"type\":\"ffi.Map\",\"args\":[" + Type2Schema<K>::v() + "," + Type2Schema<V>::v() +
           "]}";
  }
};
}  // namespace details

template <typename K, typename V, typename C, typename A>
struct TypeTraits<std::map<K, V, C, A>> : public details::STLMapTraits<std::map<K, V, C, A>, K, V> {
};
template <typename K, typename V, typename H, typename E, typename A>
struct TypeTraits<std::unordered_map<K, V, H, E, A>>
    : public details::STLMapTraits<std::unordered_map<K, V, H, E, A>, K, V> {};

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STL_H_
