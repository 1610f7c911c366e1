/*
 * tvm/ffi/container/array.h -- Array<T>: an immutable value with
 * copy-on-write (every mutator copies unless this handle owns the object).
 * Payload: ArrayObj = header + TVMFFISeqCell + elements inline.
 */
#ifndef TVM_FFI_CONTAINER_ARRAY_H_
#define TVM_FFI_CONTAINER_ARRAY_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/seq_base.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>

#include <cstring>
#include <initializer_list>
#include <vector>

TVM_FFI_NS_BEGIN

/*! \brief Array payload: elements live inline after the cell. */
class ArrayObj : public SeqBaseObj {
 public:
  static constexpr int32_t _type_index = kTVMFFIArray;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Array", ArrayObj, Object);
  static constexpr int64_t kInitSize = 4;
  static constexpr int64_t kIncFactor = 2;

  /// An empty array with room for `cap` elements.
  static ObjectPtr<ArrayObj> Empty(int64_t cap = kInitSize) {
    ObjectPtr<ArrayObj> p = make_inplace_array_object<ArrayObj, Any>(static_cast<size_t>(cap));
    p->data = reinterpret_cast<char*>(p.get()) + sizeof(ArrayObj);
    p->TVMFFISeqCell::capacity = cap;
    return p;
  }
  /// A copy (or, when `move` is set, a transfer) of the elements into new storage of `cap`.
  static ObjectPtr<ArrayObj> CopyFrom(const TVMFFISeqCell* src, int64_t cap, bool move) {
    ObjectPtr<ArrayObj> p = Empty(cap);
    TVMFFIAny* s = static_cast<TVMFFIAny*>(src->data);
    TVMFFIAny* d = static_cast<TVMFFIAny*>(p->data);
    if (move) {
      if (src->size) std::memcpy(d, s, static_cast<size_t>(src->size) * sizeof(TVMFFIAny));
      p->TVMFFISeqCell::size = src->size;
      const_cast<TVMFFISeqCell*>(src)->size = 0;  // the elements now belong to p
    } else {
      for (int64_t i = 0; i < src->size; ++i) {
        new (d + i) Any(*reinterpret_cast<const Any*>(s + i));
        p->TVMFFISeqCell::size = i + 1;
      }
    }
    return p;
  }
};

namespace details {
template <typename T>
inline Any ToAnyElem(T&& v) {
  return Any(std::forward<T>(v));
}
}  // namespace details

/*! \brief Copy-on-write array of T (elements are returned by value). */
template <typename T>
class Array : public ObjectRef {
 public:
  using value_type = T;
  using iterator = details::SeqIterator<T>;
  using const_iterator = iterator;
  using reverse_iterator = std::reverse_iterator<iterator>;

  Array() : ObjectRef(ArrayObj::Empty()) {}
  explicit Array(UnsafeInit tag) : ObjectRef(tag) {}
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Array(std::initializer_list<T> init) { Assign(init.begin(), init.end()); }
  Array(const std::vector<T>& init) { Assign(init.begin(), init.end()); }  // NOLINT(*)
  template <typename IterType,
            typename = typename std::iterator_traits<IterType>::iterator_category>
  Array(IterType first, IterType last) {
    Assign(first, last);
  }
  explicit Array(size_t n, const T& val) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) Append(p.get(), Any(val));
    data_ = std::move(p);
  }
  Array(const Array&) = default;
  Array(Array&&) = default;
  Array& operator=(const Array&) = default;
  Array& operator=(Array&&) = default;
  /// Zero-copy upcast (e.g. Array<Any> from Array<int>).
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  Array(const Array<U>& other)
      : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  Array(Array<U>&& other)  // NOLINT(*)
      : ObjectRef(std::move(details::ObjectUnsafe::GetObjectPtrRef(other))) {}

  size_t size() const { return data_ ? GetArrayObj()->size() : 0; }
  size_t capacity() const { return data_ ? GetArrayObj()->capacity() : 0; }
  bool empty() const { return size() == 0; }
  const T operator[](int64_t i) const {
    if (!data_) ThrowNull();
    return details::SeqElem<T>(&RawOf(GetArrayObj()->at(i)));
  }
  T front() const {
    if (empty()) TVM_FFI_THROW(IndexError) << "front() on empty sequence";
    return (*this)[0];
  }
  T back() const {
    if (empty()) TVM_FFI_THROW(IndexError) << "back() on empty sequence";
    return (*this)[static_cast<int64_t>(size()) - 1];
  }
  iterator begin() const { return iterator(RawBegin()); }
  iterator end() const { return iterator(RawBegin() + size()); }
  reverse_iterator rbegin() const { return reverse_iterator(end()); }
  reverse_iterator rend() const { return reverse_iterator(begin()); }

  void push_back(const T& item) { Append(CopyOnWrite(1), Any(item)); }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    Append(CopyOnWrite(1), Any(T(std::forward<Args>(args)...)));
  }
  void insert(iterator position, const T& val) {
    int64_t idx = position.raw() - RawBegin();
    ArrayObj* p = CopyOnWrite(1);
    InsertRaw(p, idx, 1);
    new (p->begin() + idx) Any(val);
  }
  template <typename IterType>
  void insert(iterator position, IterType first, IterType last) {
    int64_t idx = position.raw() - RawBegin();
    int64_t n = static_cast<int64_t>(std::distance(first, last));
    if (n == 0) return;
    ArrayObj* p = CopyOnWrite(n);
    InsertRaw(p, idx, n);
    for (int64_t i = 0; first != last; ++first, ++i) new (p->begin() + idx + i) Any(T(*first));
  }
  void pop_back() {
    if (empty()) TVM_FFI_THROW(IndexError) << "pop_back on empty sequence";
    ArrayObj* p = CopyOnWrite();
    int64_t n = p->TVMFFISeqCell::size - 1;
    p->TVMFFISeqCell::size = n;
    p->begin()[n].~Any();
  }
  void erase(iterator position) { erase(position, position + 1); }
  void erase(iterator first, iterator last) {
    int64_t b = first.raw() - RawBegin(), e = last.raw() - RawBegin();
    int64_t n = static_cast<int64_t>(size());
    if (b < 0 || e > n || b > e) TVM_FFI_THROW(IndexError) << "erase range out of bounds";
    if (b == e) return;
    ArrayObj* p = CopyOnWrite();
    Any* items = p->begin();
    for (int64_t i = b; i < e; ++i) items[i].~Any();
    std::memmove(static_cast<void*>(items + b), static_cast<void*>(items + e),
                 static_cast<size_t>(n - e) * sizeof(Any));
    p->TVMFFISeqCell::size = n - (e - b);
  }
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "cannot resize an Array to negative size " << n;
    int64_t cur = static_cast<int64_t>(size());
    if (n == cur) return;
    if (n > cur) {
      ArrayObj* p = CopyOnWrite(n - cur);
      for (int64_t i = cur; i < n; ++i) Append(p, Any());
    } else {
      ArrayObj* p = CopyOnWrite();
      for (int64_t i = n; i < cur; ++i) p->begin()[i].~Any();
      p->TVMFFISeqCell::size = n;
    }
  }
  void reserve(int64_t n) {
    if (n > static_cast<int64_t>(capacity())) CopyOnWrite(n - static_cast<int64_t>(size()));
  }
  void clear() {
    if (!data_) return;
    if (unique()) {
      TVMFFISeqCellReleaseItems(GetArrayObj());
    } else {
      data_ = ArrayObj::Empty();
    }
  }
  void Set(int64_t i, T value) {
    if (i < 0 || i >= static_cast<int64_t>(size())) {
      TVM_FFI_THROW(IndexError) << "Index " << i << " out of bounds " << size();
    }
    CopyOnWrite()->SetItem(i, Any(std::move(value)));
  }
  /// Applies f to every element; returns the same object if nothing changed.
  template <typename F, typename U = std::invoke_result_t<F, T>>
  Array<U> Map(F f) const {
    Array<U> out;
    out.reserve(static_cast<int64_t>(size()));
    bool same = std::is_same_v<T, U>;
    for (iterator it = begin(); it != end(); ++it) {
      Any r(f(*it));
      if (same && !r.same_as(*reinterpret_cast<const Any*>(it.raw()))) same = false;
      out.push_back(std::move(r).template cast<U>());
    }
    if constexpr (std::is_same_v<T, U>) {
      if (same) return *this;
    }
    return out;
  }
  /// Replaces every element with f(element), in place when unique.
  template <typename F>
  void MutateByApply(F f) {
    if (empty()) return;
    ArrayObj* p = CopyOnWrite();
    for (int64_t i = 0; i < p->TVMFFISeqCell::size; ++i) {
      // move the element out so that f sees the only reference (and may mutate in place)
      Any& slot = p->begin()[i];
      if constexpr (std::is_same_v<T, Any>) {
        Any v = std::move(slot);
        slot = Any(f(std::move(v)));
      } else {
        T v = details::AnyUnsafe::MoveFromAny<T>(std::move(slot));
        slot = Any(f(std::move(v)));
      }
    }
  }
  template <typename IterType>
  void Assign(IterType first, IterType last) {
    int64_t n = static_cast<int64_t>(std::distance(first, last));
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(n > 0 ? n : 0);
    for (; first != last; ++first) Append(p.get(), Any(T(*first)));
    data_ = std::move(p);
  }
  /// Unique backing object with room for `extra` more elements.
  ArrayObj* CopyOnWrite(int64_t extra = 0) {
    if (!data_) {
      data_ = ArrayObj::Empty(extra > ArrayObj::kInitSize ? extra : ArrayObj::kInitSize);
      return GetArrayObj();
    }
    ArrayObj* p = GetArrayObj();
    int64_t need = p->TVMFFISeqCell::size + extra;
    if (unique() && need <= p->TVMFFISeqCell::capacity) return p;
    int64_t cap = p->TVMFFISeqCell::capacity;
    if (need > cap) {
      cap = cap * ArrayObj::kIncFactor;
      if (cap < need) cap = need;
      if (cap < ArrayObj::kInitSize) cap = ArrayObj::kInitSize;
    }
    data_ = ArrayObj::CopyFrom(p, cap, unique());
    return GetArrayObj();
  }
  ArrayObj* GetArrayObj() const { return static_cast<ArrayObj*>(data_.get()); }
  template <typename... Args>
  static Array<T> Agregate(Args... args) {
    Array<T> r;
    (r.push_back(T(std::move(args))), ...);
    return r;
  }

  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
  /* Holds only some of its ContainerType's objects (those with matching elements). */
  static constexpr bool _type_container_is_exact = false;

 private:
  static const TVMFFIAny& RawOf(const Any& a) { return *details::AnyUnsafe::GetRaw(&a); }
  const TVMFFIAny* RawBegin() const {
    return data_ ? static_cast<const TVMFFIAny*>(GetArrayObj()->data) : nullptr;
  }
  static void Append(ArrayObj* p, Any v) {
    new (p->begin() + p->TVMFFISeqCell::size) Any(std::move(v));
    p->TVMFFISeqCell::size += 1;
  }
  /* Opens a gap of n slots at idx (capacity already ensured). */
  static void InsertRaw(ArrayObj* p, int64_t idx, int64_t n) {
    int64_t size = p->TVMFFISeqCell::size;
    if (idx < 0 || idx > size) TVM_FFI_THROW(IndexError) << "insert position out of bounds";
    Any* items = p->begin();
    std::memmove(static_cast<void*>(items + idx + n), static_cast<void*>(items + idx),
                 static_cast<size_t>(size - idx) * sizeof(Any));
    p->TVMFFISeqCell::size = size + n;
  }
  [[noreturn]] static void ThrowNull() {
    TVM_FFI_THROW(IndexError) << "cannot index a null array";
    TVM_FFI_UNREACHABLE();
  }
};

/*! \brief Concatenation. */
template <typename T>
inline Array<T> Concat(Array<T> lhs, const Array<T>& rhs) {
  lhs.insert(lhs.end(), rhs.begin(), rhs.end());
  return lhs;
}

namespace details {
/* Element-wise conversion of a sequence payload into a new array; nullptr when an element
 * does not convert (one function for every element type: seq_base.h). */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT ObjectPtr<ArrayObj> ArrayConvert(const TVMFFIAny* s,
                                                                             ElemConvFn conv) {
  const TVMFFISeqCell* c = SeqCellOf(s);
  const TVMFFIAny* items = static_cast<const TVMFFIAny*>(c->data);
  ObjectPtr<ArrayObj> p = ArrayObj::Empty(c->size);
  for (int64_t i = 0; i < c->size; ++i) {
    Any* slot = new (p->begin() + i) Any();
    p->TVMFFISeqCell::size = i + 1;
    if (conv == nullptr) {
      *slot = *reinterpret_cast<const Any*>(items + i);
    } else if (!conv(items + i, slot)) {
      return nullptr;
    }
  }
  return p;
}
/* Array<T>'s conversion (ElemConvFn form): the value itself when already strict, else an
 * element-wise converted copy of an Array or List; one function per binary. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT bool ArrayConvertAny(const TVMFFIAny* s,
                                                                 StrictFn strict, ElemConvFn conv,
                                                                 Any* out) {
  if (s->type_index != kTVMFFIArray && s->type_index != kTVMFFIList) return false;
  if (strict(s)) {
    *out = *reinterpret_cast<const Any*>(s);
    return true;
  }
  ObjectPtr<ArrayObj> p = ArrayConvert(s, conv);
  if (p == nullptr) return false;
  *out = Any(ObjectRef(ObjectPtr<Object>(std::move(p))));
  return true;
}
}  // namespace details

template <typename T>
inline constexpr bool use_default_type_traits_v<Array<T>> = false;

template <typename T, typename U>
struct type_subsumes<Array<T>, Array<U>> : std::bool_constant<type_subsumes_v<T, U>> {};
template <typename U>
struct type_subsumes<Any, U> : std::true_type {};

template <typename T>
struct TypeTraits<Array<T>> : public ObjectRefTypeTraitsBase<Array<T>> {
  static constexpr int32_t field_static_type_index = kTVMFFIArray;
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIArray && details::SeqAllStrict<T>(s);
  }
  static std::optional<Array<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    return details::TryCastByConvert<TypeTraits, Array<T>>(s);
  }
  static bool ConvertToAny(const TVMFFIAny* s, Any* out) {
    return details::ArrayConvertAny(s, &CheckAnyStrict, details::ElemConvOf<T>(), out);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIArray) return details::SeqMismatch<T>(s, "Array");
    if (s->type_index == kTVMFFIList) return details::SeqMismatch<T>(s, "List");
    return TypeIndexToTypeKey(s->type_index);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<T>::v};
    return details::JoinStrs("Array<", parts, 1, ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<T>::v};
    return details::SchemaWithArgs("ffi.Array", parts, 1);
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_ARRAY_H_
