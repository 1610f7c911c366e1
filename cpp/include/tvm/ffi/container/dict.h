/*
 * tvm/ffi/container/dict.h -- Dict<K, V>: the shared mutable counterpart of
 * Map.  Set/erase/clear act in place (the object address survives rehashing),
 * so every handle observes them.
 */
#ifndef TVM_FFI_CONTAINER_DICT_H_
#define TVM_FFI_CONTAINER_DICT_H_

#include <tvm/ffi/container/map.h>

TVM_FFI_NS_BEGIN

/*! \brief Dict payload (ffi.Dict); same layout as MapObj. */
class DictObj : public MapBaseObj {
 public:
  static constexpr int32_t _type_index = kTVMFFIDict;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Dict", DictObj, Object);
};

/*! \brief Shared mutable insertion-ordered dictionary. */
template <typename K, typename V>
class Dict : public ObjectRef {
 public:
  using key_type = K;
  using mapped_type = V;
  using iterator = details::MapIterator<K, V>;
  using const_iterator = iterator;

  Dict() : ObjectRef(details::MapNewEmpty<DictObj>(0)) {}
  explicit Dict(UnsafeInit tag) : ObjectRef(tag) {}
  explicit Dict(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Dict(std::initializer_list<std::pair<K, V>> init) : Dict() {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }
  template <typename IterType,
            typename = typename std::iterator_traits<IterType>::iterator_category>
  Dict(IterType first, IterType last) : Dict() {
    for (; first != last; ++first) Set(first->first, first->second);
  }
  Dict(const Dict&) = default;
  Dict(Dict&&) = default;
  Dict& operator=(const Dict&) = default;
  Dict& operator=(Dict&&) = default;
  /* A Dict whose keys/values are all storable as K/V shares the same object. */
  template <typename KU, typename VU,
            typename = std::enable_if_t<!(std::is_same_v<K, KU> && std::is_same_v<V, VU>) &&
                                        type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Dict(const Dict<KU, VU>& other)  // NOLINT(*)
      : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}
  template <typename KU, typename VU,
            typename = std::enable_if_t<!(std::is_same_v<K, KU> && std::is_same_v<V, VU>) &&
                                        type_subsumes_v<K, KU> && type_subsumes_v<V, VU>>>
  Dict(Dict<KU, VU>&& other)  // NOLINT(*)
      : ObjectRef(std::move(details::ObjectUnsafe::GetObjectPtrRef(other))) {}

  size_t size() const { return data_ ? Cell()->size : 0; }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const {
    return data_ && details::MapFind(Cell(), Any(key)) != TVMFFI_MAP_ITER_END ? 1 : 0;
  }
  const V at(const K& key) const {
    uint64_t pos = data_ ? details::MapFind(Cell(), Any(key)) : TVMFFI_MAP_ITER_END;
    if (pos == TVMFFI_MAP_ITER_END) details::ThrowKeyMissing("Dict");
    return details::MapElem<V>(TVMFFIMapCellValue(Cell(), pos));
  }
  const V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    uint64_t pos = data_ ? details::MapFind(Cell(), Any(key)) : TVMFFI_MAP_ITER_END;
    if (pos == TVMFFI_MAP_ITER_END) return std::nullopt;
    return details::MapElem<V>(TVMFFIMapCellValue(Cell(), pos));
  }
  iterator begin() const {
    return data_ ? iterator(Cell(), TVMFFIMapCellIterBegin(Cell())) : iterator();
  }
  iterator end() const { return data_ ? iterator(Cell(), TVMFFI_MAP_ITER_END) : iterator(); }
  iterator find(const K& key) const {
    return data_ ? iterator(Cell(), details::MapFind(Cell(), Any(key))) : end();
  }
  void Set(const K& key, const V& value) {
    if (!data_) TVM_FFI_THROW(ValueError) << "cannot Set on a null Dict";
    details::MapInsertInPlace(Cell(), Any(key), Any(value));
  }
  void erase(const K& key) {
    if (!data_) return;
    uint64_t pos = details::MapFind(Cell(), Any(key));
    if (pos != TVMFFI_MAP_ITER_END) TVMFFIMapCellErase(Cell(), pos);
  }
  void clear() {
    if (data_) TVMFFIMapCellClear(Cell());
  }
  DictObj* GetDictObj() const { return static_cast<DictObj*>(data_.get()); }

  using ContainerType = DictObj;
  static constexpr bool _type_is_nullable = false;
  /* Holds only some of its ContainerType's objects (those with matching elements). */
  static constexpr bool _type_container_is_exact = false;

 private:
  TVMFFIMapCell* Cell() const { return details::MapCellOf(data_.get()); }
};

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Dict<K, V>> = false;
template <typename K, typename V, typename KU, typename VU>
struct type_subsumes<Dict<K, V>, Dict<KU, VU>>
    : std::bool_constant<type_subsumes_v<K, KU> && type_subsumes_v<V, VU>> {};

template <typename K, typename V>
struct TypeTraits<Dict<K, V>> : public ObjectRefTypeTraitsBase<Dict<K, V>> {
  static constexpr int32_t field_static_type_index = kTVMFFIDict;
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIDict && details::MapAllStrict<K, V>(s);
  }
  static std::optional<Dict<K, V>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index != kTVMFFIMap && s->type_index != kTVMFFIDict) return std::nullopt;
    if (CheckAnyStrict(s)) return ObjectRefTypeTraitsBase<Dict<K, V>>::CopyFromAnyViewAfterCheck(s);
    ObjectPtr<DictObj> p = details::MapConvert<DictObj, K, V>(s);
    if (p == nullptr) return std::nullopt;
    return Dict<K, V>(ObjectPtr<Object>(std::move(p)));
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIMap) return details::MapMismatch<K, V>(s, "Map");
    if (s->type_index == kTVMFFIDict) return details::MapMismatch<K, V>(s, "Dict");
    return TypeIndexToTypeKey(s->type_index);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<K>::v, &details::Type2Str<V>::v};
    return details::JoinStrs("Dict<", parts, 2, ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<K>::v,
                                               &details::Type2Schema<V>::v};
    return details::SchemaWithArgs("ffi.Dict", parts, 2);
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_DICT_H_
