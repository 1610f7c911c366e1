/*
 * tvm/ffi/container/tuple.h -- Tuple<T...>: a fixed-size heterogeneous
 * sequence backed by an ffi.Array of exactly sizeof...(T) elements (COW).
 */
#ifndef TVM_FFI_CONTAINER_TUPLE_H_
#define TVM_FFI_CONTAINER_TUPLE_H_

#include <tvm/ffi/container/array.h>

#include <tuple>

TVM_FFI_NS_BEGIN

template <typename... Types>
class Tuple;

namespace details {
/* Whether every element type of B can be stored as the one of A (same length). */
template <typename A, typename B>
struct TupleSubsumes : std::false_type {};
template <typename... T, typename... U>
struct TupleSubsumes<std::tuple<T...>, std::tuple<U...>> {
  static constexpr bool value = [] {
    if constexpr (sizeof...(T) == sizeof...(U)) {
      return (type_subsumes_v<T, U> && ...);
    } else {
      return false;
    }
  }();
};
}  // namespace details

template <typename... T, typename... U>
struct type_subsumes<Tuple<T...>, Tuple<U...>>
    : std::bool_constant<details::TupleSubsumes<std::tuple<T...>, std::tuple<U...>>::value> {};

template <typename... Types>
class Tuple : public ObjectRef {
 public:
  static constexpr size_t kSize = sizeof...(Types);
  Tuple() : Tuple(Types()...) {}
  template <typename... U,
            typename = std::enable_if_t<sizeof...(U) == kSize && (kSize > 0) &&
                                        !(sizeof...(U) == 1 &&
                                          (std::is_same_v<std::decay_t<U>, Tuple> && ...))>>
  explicit Tuple(U&&... args) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(kSize));
    Fill(p.get(), std::index_sequence_for<Types...>{}, std::forward<U>(args)...);
    data_ = std::move(p);
  }
  explicit Tuple(UnsafeInit tag) : ObjectRef(tag) {}
  /// A tuple whose elements are all storable as Types... shares the same object.
  template <typename... U,
            typename = std::enable_if_t<!std::is_same_v<Tuple<U...>, Tuple> &&
                                        details::TupleSubsumes<std::tuple<Types...>,
                                                               std::tuple<U...>>::value>>
  Tuple(const Tuple<U...>& other)  // NOLINT(*)
      : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}
  Tuple(const Tuple&) = default;
  Tuple(Tuple&&) = default;
  Tuple& operator=(const Tuple&) = default;
  Tuple& operator=(Tuple&&) = default;

  template <size_t I>
  auto get() const& {
    using T = std::tuple_element_t<I, std::tuple<Types...>>;
    return details::SeqElem<T>(Raw(I));
  }
  /// Moves the element out when this tuple is the only owner.
  template <size_t I>
  auto get() && {
    using T = std::tuple_element_t<I, std::tuple<Types...>>;
    if (unique()) {
      Any* slot = reinterpret_cast<Any*>(const_cast<TVMFFIAny*>(Raw(I)));
      return std::move(*slot).template cast<T>();
    }
    return details::SeqElem<T>(Raw(I));
  }
  template <size_t I, typename U>
  void Set(U&& v) {
    using T = std::tuple_element_t<I, std::tuple<Types...>>;
    if (!unique()) data_ = ArrayObj::CopyFrom(static_cast<ArrayObj*>(data_.get()), kSize, false);
    static_cast<ArrayObj*>(data_.get())->SetItem(I, Any(T(std::forward<U>(v))));
  }

  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
  /* Holds only some of its ContainerType's objects (those with matching elements). */
  static constexpr bool _type_container_is_exact = false;

 private:
  const TVMFFIAny* Raw(size_t i) const {
    return static_cast<const TVMFFIAny*>(static_cast<ArrayObj*>(data_.get())->data) + i;
  }
  template <size_t... Is, typename... U>
  static void Fill(ArrayObj* p, std::index_sequence<Is...>, U&&... args) {
    ((new (p->begin() + Is)
          Any(std::tuple_element_t<Is, std::tuple<Types...>>(std::forward<U>(args))),
      p->TVMFFISeqCell::size = Is + 1),
     ...);
  }
};

template <typename... T>
Tuple(T...) -> Tuple<T...>;

template <size_t I, typename... T>
inline auto get(const Tuple<T...>& t) {
  return t.template get<I>();
}
template <size_t I, typename... T>
inline auto get(Tuple<T...>&& t) {
  return std::move(t).template get<I>();
}

template <typename... T>
inline constexpr bool use_default_type_traits_v<Tuple<T...>> = false;

template <typename... Types>
struct TypeTraits<Tuple<Types...>> : public ObjectRefTypeTraitsBase<Tuple<Types...>> {
  using Self = Tuple<Types...>;
  static constexpr size_t N = sizeof...(Types);
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if (s->type_index != kTVMFFIArray) return false;
    const TVMFFISeqCell* c = details::SeqCellOf(s);
    if (c->size != static_cast<int64_t>(N)) return false;
    return AllStrict(static_cast<const TVMFFIAny*>(c->data), std::index_sequence_for<Types...>{});
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return ObjectRefTypeTraitsBase<Self>::CopyFromAnyViewAfterCheck(s);
    if (s->type_index != kTVMFFIArray && s->type_index != kTVMFFIList) return std::nullopt;
    const TVMFFISeqCell* c = details::SeqCellOf(s);
    if (c->size != static_cast<int64_t>(N)) return std::nullopt;
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(N));
    if (!ConvertAll(static_cast<const TVMFFIAny*>(c->data), p.get(),
                    std::index_sequence_for<Types...>{})) {
      return std::nullopt;
    }
    return details::ObjectUnsafe::ObjectRefFromObjectPtr<Self>(ObjectPtr<Object>(std::move(p)));
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index != kTVMFFIArray && s->type_index != kTVMFFIList) {
      return TypeIndexToTypeKey(s->type_index);
    }
    const char* kind = s->type_index == kTVMFFIArray ? "Array" : "List";
    const TVMFFISeqCell* c = details::SeqCellOf(s);
    if (c->size != static_cast<int64_t>(N)) {
      return std::string(kind) + "[size=" + std::to_string(c->size) + "]";
    }
    std::string out;
    FirstBad(static_cast<const TVMFFIAny*>(c->data), kind, &out,
             std::index_sequence_for<Types...>{});
    return out.empty() ? TypeIndexToTypeKey(s->type_index) : out;
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<Types>::v..., nullptr};
    return details::JoinStrs("Tuple<", parts, sizeof...(Types), ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<Types>::v..., nullptr};
    return details::SchemaWithArgs("Tuple", parts, sizeof...(Types));
  }

 private:
  template <size_t... Is>
  static bool AllStrict(const TVMFFIAny* items, std::index_sequence<Is...>) {
    return (TypeTraits<Types>::CheckAnyStrict(items + Is) && ...);
  }
  template <size_t... Is>
  static bool ConvertAll(const TVMFFIAny* items, ArrayObj* p, std::index_sequence<Is...>) {
    return (ConvertOne<Types>(items + Is, p, Is) && ...);
  }
  template <typename T>
  static bool ConvertOne(const TVMFFIAny* item, ArrayObj* p, size_t i) {
    std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(item);
    if (!v.has_value()) return false;
    new (p->begin() + i) Any(*std::move(v));
    p->TVMFFISeqCell::size = static_cast<int64_t>(i + 1);
    return true;
  }
  template <size_t... Is>
  static void FirstBad(const TVMFFIAny* items, const char* kind, std::string* out,
                       std::index_sequence<Is...>) {
    ((out->empty() && !TypeTraits<Types>::TryCastFromAnyView(items + Is).has_value()
          ? (void)(*out = std::string(kind) + "[index " + std::to_string(Is) + ": " +
                          TypeTraits<Types>::GetMismatchTypeInfo(items + Is) + "]")
          : (void)0),
     ...);
  }
};

TVM_FFI_NS_END

namespace std {
template <typename... T>
struct tuple_size<::tvm::ffi::Tuple<T...>> : std::integral_constant<size_t, sizeof...(T)> {};
template <size_t I, typename... T>
struct tuple_element<I, ::tvm::ffi::Tuple<T...>> {
  using type = std::tuple_element_t<I, std::tuple<T...>>;
};
}  // namespace std

#endif  // TVM_FFI_CONTAINER_TUPLE_H_
