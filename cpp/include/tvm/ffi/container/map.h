/*
 * tvm/ffi/container/map.h -- Map<K, V>: an insertion-ordered hash map with
 * copy-on-write value semantics.  Keys hash and compare with AnyHash/AnyEqual.
 */
#ifndef TVM_FFI_CONTAINER_MAP_H_
#define TVM_FFI_CONTAINER_MAP_H_

#include <tvm/ffi/container/map_base.h>

#include <initializer_list>
#include <unordered_map>

TVM_FFI_NS_BEGIN

/*! \brief Map payload (ffi.Map). */
class MapObj : public MapBaseObj {
 public:
  static constexpr int32_t _type_index = kTVMFFIMap;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Map", MapObj, Object);
};

/*! \brief Copy-on-write map; lookups return values, never references. */
template <typename K, typename V>
class Map : public ObjectRef {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = details::MapIterator<K, V>;
  using const_iterator = iterator;

  Map() : ObjectRef(details::MapNewEmpty<MapObj>(0)) {}
  explicit Map(UnsafeInit tag) : ObjectRef(tag) {}
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Map(std::initializer_list<std::pair<K, V>> init) { Assign(init.begin(), init.end()); }
  template <typename IterType,
            typename = typename std::iterator_traits<IterType>::iterator_category>
  Map(IterType first, IterType last) {
    Assign(first, last);
  }
  template <typename H, typename E>
  Map(const std::unordered_map<K, V, H, E>& init) {  // NOLINT(*)
    Assign(init.begin(), init.end());
  }
  Map(const Map&) = default;
  Map(Map&&) = default;
  Map& operator=(const Map&) = default;
  Map& operator=(Map&&) = default;
  template <typename KU, typename VU,
            typename = std::enable_if_t<!(std::is_same_v<K, KU> && std::is_same_v<V, VU>) &&
                                        type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Map(const Map<KU, VU>& other)
      : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}  // NOLINT(*)
  template <typename KU, typename VU,
            typename = std::enable_if_t<!(std::is_same_v<K, KU> && std::is_same_v<V, VU>) &&
                                        type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Map(Map<KU, VU>&& other)  // NOLINT(*)
      : ObjectRef(std::move(details::ObjectUnsafe::GetObjectPtrRef(other))) {}

  size_t size() const { return data_ ? Obj()->size() : 0; }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const {
    return data_ && details::MapFind(Obj()->cell(), Any(key)) != TVMFFI_MAP_ITER_END ? 1 : 0;
  }
  const V at(const K& key) const {
    uint64_t pos = data_ ? details::MapFind(Obj()->cell(), Any(key)) : TVMFFI_MAP_ITER_END;
    if (pos == TVMFFI_MAP_ITER_END) details::ThrowKeyMissing("Map");
    return details::MapElem<V>(TVMFFIMapCellValue(Obj()->cell(), pos));
  }
  const V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    uint64_t pos = data_ ? details::MapFind(Obj()->cell(), Any(key)) : TVMFFI_MAP_ITER_END;
    if (pos == TVMFFI_MAP_ITER_END) return std::nullopt;
    return details::MapElem<V>(TVMFFIMapCellValue(Obj()->cell(), pos));
  }
  iterator begin() const {
    return data_ ? iterator(Obj()->cell(), TVMFFIMapCellIterBegin(Obj()->cell())) : iterator();
  }
  iterator end() const { return data_ ? iterator(Obj()->cell(), TVMFFI_MAP_ITER_END) : iterator(); }
  iterator find(const K& key) const {
    if (!data_) return end();
    return iterator(Obj()->cell(), details::MapFind(Obj()->cell(), Any(key)));
  }
  void Set(const K& key, const V& value) {
    Any k(key), v(value);
    MapObj* p = CopyOnWrite();
    TVMFFIAny rk = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(k));
    TVMFFIAny rv = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v));
    int r = TVMFFIMapCellInsert(p->cell(), &rk, &rv, 1);
    if (r != 0) {
      Any dk = details::AnyUnsafe::MoveTVMFFIAnyToAny(&rk);
      Any dv = details::AnyUnsafe::MoveTVMFFIAnyToAny(&rv);
      details::ThrowRaised(-1);
    }
  }
  void erase(const K& key) {
    if (!data_) return;
    if (details::MapFind(Obj()->cell(), Any(key)) == TVMFFI_MAP_ITER_END) return;
    MapObj* p = CopyOnWrite();
    TVMFFIMapCellErase(p->cell(), details::MapFind(p->cell(), Any(key)));
  }
  /// Replaces the object with a new empty map.
  void clear() { data_ = details::MapNewEmpty<MapObj>(0); }
  /// A uniquely owned object of ours (copies when shared or made elsewhere).
  MapObj* CopyOnWrite() {
    if (!data_) {
      data_ = details::MapNewEmpty<MapObj>(0);
    } else if (!unique() || details::ObjectUnsafe::GetHeader(Obj())->deleter !=
                                details::ObjAllocator<MapObj>::Deleter) {
      data_ = details::MapCopy<MapObj>(Obj()->cell());
    }
    return Obj();
  }
  template <typename IterType>
  void Assign(IterType first, IterType last) {
    uint64_t n = static_cast<uint64_t>(std::distance(first, last));
    ObjectPtr<MapObj> p = details::MapNewEmpty<MapObj>(n);
    for (; first != last; ++first)
      details::MapInsertInPlace(p->cell(), Any(K(first->first)), Any(V(first->second)));
    data_ = std::move(p);
  }

  using ContainerType = MapObj;
  static constexpr bool _type_is_nullable = false;
  /* Holds only some of its ContainerType's objects (those with matching elements). */
  static constexpr bool _type_container_is_exact = false;

 private:
  MapObj* Obj() const { return static_cast<MapObj*>(data_.get()); }
};

/*! \brief Union of two maps; rhs wins on duplicate keys. */
template <typename K, typename V>
inline Map<K, V> Merge(Map<K, V> lhs, const Map<K, V>& rhs) {
  for (auto kv : rhs) lhs.Set(kv.first, kv.second);
  return lhs;
}

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Map<K, V>> = false;
template <typename K, typename V, typename KU, typename VU>
struct type_subsumes<Map<K, V>, Map<KU, VU>>
    : std::bool_constant<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>> {};

namespace details {
/* Map<K, V>'s conversion (ElemConvFn form): the value itself when already strict, else a
 * converted copy of a Map or Dict; one function per binary. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT bool MapConvertAny(const TVMFFIAny* s, StrictFn strict,
                                                               ElemConvFn kconv, ElemConvFn vconv,
                                                               Any* out) {
  if (s->type_index != kTVMFFIMap && s->type_index != kTVMFFIDict) return false;
  if (strict(s)) {
    *out = *reinterpret_cast<const Any*>(s);
    return true;
  }
  ObjectPtr<MapObj> p = MapConvertOf<MapObj>(s, kconv, vconv);
  if (p == nullptr) return false;
  *out = Any(ObjectRef(ObjectPtr<Object>(std::move(p))));
  return true;
}
}  // namespace details

template <typename K, typename V>
struct TypeTraits<Map<K, V>> : public ObjectRefTypeTraitsBase<Map<K, V>> {
  static constexpr int32_t field_static_type_index = kTVMFFIMap;
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIMap && details::MapAllStrict<K, V>(s);
  }
  static std::optional<Map<K, V>> TryCastFromAnyView(const TVMFFIAny* s) {
    return details::TryCastByConvert<TypeTraits, Map<K, V>>(s);
  }
  static bool ConvertToAny(const TVMFFIAny* s, Any* out) {
    return details::MapConvertAny(s, &CheckAnyStrict, details::ElemConvOf<K>(),
                                  details::ElemConvOf<V>(), out);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIMap) return details::MapMismatch<K, V>(s, "Map");
    if (s->type_index == kTVMFFIDict) return details::MapMismatch<K, V>(s, "Dict");
    return TypeIndexToTypeKey(s->type_index);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<K>::v, &details::Type2Str<V>::v};
    return details::JoinStrs("Map<", parts, 2, ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<K>::v,
                                               &details::Type2Schema<V>::v};
    return details::SchemaWithArgs("ffi.Map", parts, 2);
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_MAP_H_
