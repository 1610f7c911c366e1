/*
 * tvm/ffi/container/map_base.h -- what Map and Dict share: the map cell
 * (docs/abi.md §7.8, algorithms in <tvm/ffi/extra/c_map.h>), iteration and the
 * conversion rules used when a map arrives through Any.
 *
 * Objects made here always carry the whole 56-byte cell and keep small
 * tables in a malloc'd buffer, so they can be grown in place.
 */
#ifndef TVM_FFI_CONTAINER_MAP_BASE_H_
#define TVM_FFI_CONTAINER_MAP_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_map.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>

#include <optional>
#include <string>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Header followed by the map cell. */
class MapBaseObj : public Object {
 public:
  MapBaseObj() { std::memset(&cell_, 0, sizeof(cell_)); }
  MapBaseObj(const MapBaseObj&) = delete;
  ~MapBaseObj() { TVMFFIMapCellDestroy(&cell_); }
  size_t size() const { return static_cast<size_t>(cell_.size); }
  bool empty() const { return cell_.size == 0; }
  TVMFFIMapCell* cell() { return &cell_; }
  const TVMFFIMapCell* cell() const { return &cell_; }
  /* The stored value of `key`; KeyError when absent (defined below, after the lookup). */
  const Any& at(const Any& key) const;

 protected:
  TVMFFIMapCell cell_;
};
static_assert(sizeof(MapBaseObj) == 80, "map object is the header plus the 56-byte cell");

namespace details {
inline TVMFFIMapCell* MapCellOf(const TVMFFIAny* v) { return TVMFFIMapGetCellPtr(v->v_obj); }
inline TVMFFIMapCell* MapCellOf(const Object* o) {
  return TVMFFIMapGetCellPtr(ObjectUnsafe::GetHeader(o));
}

/* Makes an empty table in a fresh object sized for `count` entries. */
template <typename ObjT>
inline ObjectPtr<ObjT> MapNewEmpty(uint64_t count) {
  ObjectPtr<ObjT> p = make_object<ObjT>();
  TVMFFIMapCell* c = p->cell();
  if (count > TVMFFI_MAP_SMALL_MAX) {
    if (TVMFFIMapCellInitDense(c, count) != 0) ThrowRaised(-1);
  } else {
    uint64_t cap = count < TVMFFI_MAP_SMALL_INIT ? TVMFFI_MAP_SMALL_INIT : count;
    void* data = std::malloc(cap * sizeof(TVMFFIMapKV));
    if (data == nullptr) throw std::bad_alloc();
    TVMFFIMapCellInitSmall(c, data, cap, std::free);
  }
  return p;
}
/* Inserts (moving key and value in) into a table that may grow in place. */
inline void MapInsertInPlace(TVMFFIMapCell* c, Any key, Any value) {
  TVMFFIAny k = AnyUnsafe::MoveAnyToTVMFFIAny(std::move(key));
  TVMFFIAny v = AnyUnsafe::MoveAnyToTVMFFIAny(std::move(value));
  if (TVMFFIMapCellInsert(c, &k, &v, 1) != 0) {
    Any drop_k = AnyUnsafe::MoveTVMFFIAnyToAny(&k), drop_v = AnyUnsafe::MoveTVMFFIAnyToAny(&v);
    ThrowRaised(-1);
  }
}
/* Position of a key, or TVMFFI_MAP_ITER_END. */
inline uint64_t MapFind(const TVMFFIMapCell* c, const Any& key) {
  uint64_t pos;
  if (TVMFFIMapCellFind(c, AnyUnsafe::GetRaw(&key), &pos) != 0) ThrowRaised(-1);
  return pos;
}
/* A copy of a table (any layout, any creator) in a fresh object of ours. */
template <typename ObjT>
inline ObjectPtr<ObjT> MapCopy(const TVMFFIMapCell* src) {
  ObjectPtr<ObjT> p = MapNewEmpty<ObjT>(src->size);
  for (uint64_t pos = TVMFFIMapCellIterBegin(src); pos != TVMFFI_MAP_ITER_END;
       pos = TVMFFIMapCellIterNext(src, pos)) {
    MapInsertInPlace(p->cell(), *reinterpret_cast<const Any*>(TVMFFIMapCellKey(src, pos)),
                     *reinterpret_cast<const Any*>(TVMFFIMapCellValue(src, pos)));
  }
  return p;
}

template <typename T>
TVM_FFI_INLINE T MapElem(const TVMFFIAny* v) {
  if constexpr (std::is_same_v<T, Any>)
    return *reinterpret_cast<const Any*>(v);
  else
    return TypeTraits<T>::CopyFromAnyViewAfterCheck(v);
}

/*! \brief Bidirectional iterator over (key, value) pairs in insertion order. */
template <typename K, typename V>
class MapIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using value_type = std::pair<K, V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  // Map<Any, Any> hands out the stored slot itself (a key/value pair of Anys), so
  // `for (auto& [k, v] : map)` binds; typed maps convert each pair to a value.
  static constexpr bool kSlotIsPair = std::is_same_v<K, Any> && std::is_same_v<V, Any>;
  using reference = std::conditional_t<kSlotIsPair, const value_type&, value_type>;
  MapIterator() = default;
  MapIterator(const TVMFFIMapCell* c, uint64_t pos) : cell_(c), pos_(pos) {}
  reference operator*() const {
    if constexpr (kSlotIsPair) {
      static_assert(sizeof(value_type) == 2 * sizeof(TVMFFIAny), "pair of Any is two slots");
      return *reinterpret_cast<const value_type*>(TVMFFIMapCellKey(cell_, pos_));
    } else {
      return {MapElem<K>(TVMFFIMapCellKey(cell_, pos_)),
              MapElem<V>(TVMFFIMapCellValue(cell_, pos_))};
    }
  }
  MapIterator& operator++() {
    pos_ = TVMFFIMapCellIterNext(cell_, pos_);
    return *this;
  }
  MapIterator& operator--() {
    pos_ = TVMFFIMapCellIterPrev(cell_, pos_);
    return *this;
  }
  MapIterator operator++(int) {
    MapIterator r = *this;
    ++*this;
    return r;
  }
  MapIterator operator--(int) {
    MapIterator r = *this;
    --*this;
    return r;
  }
  bool operator==(const MapIterator& o) const { return pos_ == o.pos_; }
  bool operator!=(const MapIterator& o) const { return pos_ != o.pos_; }
  uint64_t pos() const { return pos_; }

 private:
  const TVMFFIMapCell* cell_{nullptr};
  uint64_t pos_{TVMFFI_MAP_ITER_END};
};

template <typename K, typename V>
inline bool MapAllStrict(const TVMFFIAny* s) {
  if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
    return true;
  } else {
    const TVMFFIMapCell* c = MapCellOf(s);
    for (uint64_t p = TVMFFIMapCellIterBegin(c); p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(c, p)) {
      if constexpr (!std::is_same_v<K, Any>) {
        if (!TypeTraits<K>::CheckAnyStrict(TVMFFIMapCellKey(c, p))) return false;
      }
      if constexpr (!std::is_same_v<V, Any>) {
        if (!TypeTraits<V>::CheckAnyStrict(TVMFFIMapCellValue(c, p))) return false;
      }
    }
    return true;
  }
}
/* Element-wise conversion of a Map or Dict payload into a new ObjT, or nullptr (one
 * function per object type for every key and value type: seq_base.h). */
template <typename ObjT>
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT ObjectPtr<ObjT> MapConvertOf(const TVMFFIAny* s,
                                                                         ElemConvFn kconv,
                                                                         ElemConvFn vconv) {
  const TVMFFIMapCell* c = MapCellOf(s);
  ObjectPtr<ObjT> p = MapNewEmpty<ObjT>(c->size);
  for (uint64_t pos = TVMFFIMapCellIterBegin(c); pos != TVMFFI_MAP_ITER_END;
       pos = TVMFFIMapCellIterNext(c, pos)) {
    const TVMFFIAny* k = TVMFFIMapCellKey(c, pos);
    const TVMFFIAny* v = TVMFFIMapCellValue(c, pos);
    Any key, value;
    if (kconv == nullptr) {
      key = *reinterpret_cast<const Any*>(k);
    } else if (!kconv(k, &key)) {
      return nullptr;
    }
    if (vconv == nullptr) {
      value = *reinterpret_cast<const Any*>(v);
    } else if (!vconv(v, &value)) {
      return nullptr;
    }
    MapInsertInPlace(p->cell(), std::move(key), std::move(value));
  }
  return p;
}
template <typename ObjT, typename K, typename V>
inline ObjectPtr<ObjT> MapConvert(const TVMFFIAny* s) {
  return MapConvertOf<ObjT>(s, ElemConvOf<K>(), ElemConvOf<V>());
}
/* Mismatch text of a map: "Map[some key is <inner>, V]" for the first bad key or value. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string MapMismatchOf(
    const TVMFFIAny* s, const char* kind, ElemConvFn kconv, ElemInfoFn kinfo, ElemConvFn vconv,
    ElemInfoFn vinfo) {
  const TVMFFIMapCell* c = MapCellOf(s);
  for (uint64_t pos = TVMFFIMapCellIterBegin(c); pos != TVMFFI_MAP_ITER_END;
       pos = TVMFFIMapCellIterNext(c, pos)) {
    Any converted;
    const TVMFFIAny* k = TVMFFIMapCellKey(c, pos);
    if (kconv != nullptr && !kconv(k, &converted)) {
      return std::string(kind) + "[some key is " + kinfo(k) + ", V]";
    }
    const TVMFFIAny* v = TVMFFIMapCellValue(c, pos);
    if (vconv != nullptr && !vconv(v, &converted)) {
      return std::string(kind) + "[K, some value is " + vinfo(v) + "]";
    }
  }
  return TypeIndexToTypeKey(s->type_index);
}
template <typename K, typename V>
inline std::string MapMismatch(const TVMFFIAny* s, const char* kind) {
  return MapMismatchOf(s, kind, ElemConvOf<K>(), ElemInfoOf<K>(), ElemConvOf<V>(), ElemInfoOf<V>());
}
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowKeyMissing(const char* kind) {
  TVM_FFI_THROW(KeyError) << "key is not in " << kind;
  TVM_FFI_UNREACHABLE();
}
}  // namespace details

inline const Any& MapBaseObj::at(const Any& key) const {
  uint64_t pos = details::MapFind(&cell_, key);
  if (pos == TVMFFI_MAP_ITER_END) details::ThrowKeyMissing("Map");
  return *reinterpret_cast<const Any*>(TVMFFIMapCellValue(&cell_, pos));
}

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_MAP_BASE_H_
