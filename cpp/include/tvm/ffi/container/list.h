/*
 * tvm/ffi/container/list.h -- List<T>: a shared mutable sequence (no
 * copy-on-write; every handle sees every mutation).  Payload: ListObj =
 * header + TVMFFISeqCell with a separately malloc'd buffer, so growing keeps
 * the object address (docs/abi.md §7.7).
 */
#ifndef TVM_FFI_CONTAINER_LIST_H_
#define TVM_FFI_CONTAINER_LIST_H_

#include <tvm/ffi/container/array.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <vector>

TVM_FFI_NS_BEGIN

/*! \brief List payload: elements in a malloc'd buffer released by data_deleter. */
class ListObj : public SeqBaseObj {
 public:
  static constexpr int32_t _type_index = kTVMFFIList;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.List", ListObj, Object);
  ListObj() { data_deleter = std::free; }
  void Reserve(int64_t n) {
    if (TVMFFIListCellReserve(this, n) != 0) details::ThrowRaised(-1);
  }
  /* Room for `extra` more elements (capacity doubles). */
  void Grow(int64_t extra) {
    int64_t need = TVMFFISeqCell::size + extra;
    if (need <= TVMFFISeqCell::capacity) return;
    int64_t cap = TVMFFISeqCell::capacity * 2;
    if (cap < need) cap = need;
    if (cap < 4) cap = 4;
    Reserve(cap);
  }
  /* Index-based mutation; every removed element is released only after the
   * list is consistent again (its deleter may look at the list). */
  void pop_back() {
    if (empty()) TVM_FFI_THROW(IndexError) << "pop_back on an empty List";
    int64_t n = TVMFFISeqCell::size - 1;
    Any old = std::move(begin()[n]);
    begin()[n].~Any();
    TVMFFISeqCell::size = n;
  }
  void erase(int64_t idx) {
    if (idx < 0 || idx >= TVMFFISeqCell::size) ThrowIndex(idx);
    erase(idx, idx + 1);
  }
  void erase(int64_t first, int64_t last) {
    int64_t n = TVMFFISeqCell::size;
    if (first < 0 || first > last || last > n) {
      TVM_FFI_THROW(IndexError) << "erase range [" << first << ", " << last
                                << ") out of bounds for a List of size " << n;
    }
    if (first == last) return;
    std::vector<Any> dead(std::make_move_iterator(begin() + first),
                          std::make_move_iterator(begin() + last));
    for (int64_t i = first; i < last; ++i) begin()[i].~Any();
    std::memmove(static_cast<void*>(begin() + first), static_cast<void*>(begin() + last),
                 static_cast<size_t>(n - last) * sizeof(Any));
    TVMFFISeqCell::size = n - (last - first);
  }
  void insert(int64_t idx, Any value) {
    OpenGap(idx, 1);
    new (begin() + idx) Any(std::move(value));
  }
  /* Inserts already converted values at idx. */
  void insert(int64_t idx, std::vector<Any>&& values) {
    int64_t k = static_cast<int64_t>(values.size());
    if (k == 0) {
      if (idx < 0 || idx > TVMFFISeqCell::size) ThrowIndex(idx);
      return;
    }
    OpenGap(idx, k);
    for (int64_t i = 0; i < k; ++i) new (begin() + idx + i) Any(std::move(values[i]));
  }
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "cannot resize a List to negative size " << n;
    int64_t cur = TVMFFISeqCell::size;
    if (n > cur) {
      Reserve(n);
      for (int64_t i = cur; i < n; ++i) new (begin() + i) Any();
      TVMFFISeqCell::size = n;
    } else if (n < cur) {
      std::vector<Any> dead(std::make_move_iterator(begin() + n),
                            std::make_move_iterator(begin() + cur));
      for (int64_t i = n; i < cur; ++i) begin()[i].~Any();
      TVMFFISeqCell::size = n;
    }
  }

 private:
  /* Moves [idx, size) up by k (growing first) and counts the k new slots. */
  void OpenGap(int64_t idx, int64_t k) {
    int64_t size = TVMFFISeqCell::size;
    if (idx < 0 || idx > size) ThrowIndex(idx);
    Grow(k);
    std::memmove(static_cast<void*>(begin() + idx + k), static_cast<void*>(begin() + idx),
                 static_cast<size_t>(size - idx) * sizeof(Any));
    TVMFFISeqCell::size = size + k;
  }
};

/*! \brief Shared mutable list of T. */
template <typename T>
class List : public ObjectRef {
 public:
  using value_type = T;
  using iterator = details::SeqIterator<T>;
  using const_iterator = iterator;
  using reverse_iterator = std::reverse_iterator<iterator>;

  List() : ObjectRef(make_object<ListObj>()) {}
  explicit List(UnsafeInit tag) : ObjectRef(tag) {}
  explicit List(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  List(std::initializer_list<T> init) : List() { Assign(init.begin(), init.end()); }
  List(const std::vector<T>& init) : List() { Assign(init.begin(), init.end()); }  // NOLINT(*)
  template <typename IterType,
            typename = typename std::iterator_traits<IterType>::iterator_category>
  List(IterType first, IterType last) : List() {
    Assign(first, last);
  }
  List(const List&) = default;
  List(List&&) = default;
  List& operator=(const List&) = default;
  List& operator=(List&&) = default;
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  List(const List<U>& other)
      : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  List(List<U>&& other)  // NOLINT(*)
      : ObjectRef(std::move(details::ObjectUnsafe::GetObjectPtrRef(other))) {}

  size_t size() const { return data_ ? Obj()->size() : 0; }
  size_t capacity() const { return data_ ? Obj()->capacity() : 0; }
  bool empty() const { return size() == 0; }
  const T operator[](int64_t i) const {
    return details::SeqElem<T>(details::AnyUnsafe::GetRaw(&Checked()->at(i)));
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

  void push_back(const T& item) {
    ListObj* p = Checked();
    p->Grow(1);
    new (p->end()) Any(item);
    p->TVMFFISeqCell::size += 1;
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
  }
  void insert(iterator position, const T& val) {
    Any item(val);
    int64_t idx = Index(position);
    Checked()->insert(idx, std::move(item));
  }
  template <typename IterType>
  void insert(iterator position, IterType first, IterType last) {
    std::vector<Any> vals;
    for (; first != last; ++first) vals.emplace_back(T(*first));
    int64_t idx = Index(position);
    Checked()->insert(idx, std::move(vals));
  }
  void pop_back() { Checked()->pop_back(); }
  void erase(iterator position) { Checked()->erase(Index(position)); }
  void erase(iterator first, iterator last) { Checked()->erase(Index(first), Index(last)); }
  void resize(int64_t n) { Checked()->resize(n); }
  void reserve(int64_t n) { Checked()->Reserve(n); }
  void clear() {
    if (data_) TVMFFISeqCellReleaseItems(Obj());
  }
  void Set(int64_t i, T value) { Checked()->SetItem(i, Any(std::move(value))); }
  template <typename IterType>
  void Assign(IterType first, IterType last) {
    std::vector<Any> vals;
    for (; first != last; ++first) vals.emplace_back(T(*first));
    ListObj* p = Checked();
    clear();
    p->Reserve(static_cast<int64_t>(vals.size()));
    for (size_t i = 0; i < vals.size(); ++i) new (p->begin() + i) Any(std::move(vals[i]));
    p->TVMFFISeqCell::size = static_cast<int64_t>(vals.size());
  }
  ListObj* GetListObj() const { return Obj(); }

  using ContainerType = ListObj;
  static constexpr bool _type_is_nullable = false;
  /* Holds only some of its ContainerType's objects (those with matching elements). */
  static constexpr bool _type_container_is_exact = false;

 private:
  ListObj* Obj() const { return static_cast<ListObj*>(data_.get()); }
  ListObj* Checked() const {
    if (!data_) TVM_FFI_THROW(IndexError) << "cannot index a null list";
    return Obj();
  }
  const TVMFFIAny* RawBegin() const {
    return data_ ? static_cast<const TVMFFIAny*>(Obj()->data) : nullptr;
  }
  int64_t Index(iterator it) const { return it.raw() - RawBegin(); }
};

template <typename T>
inline constexpr bool use_default_type_traits_v<List<T>> = false;
template <typename T, typename U>
struct type_subsumes<List<T>, List<U>> : std::bool_constant<type_subsumes_v<T, U>> {};

template <typename T>
struct TypeTraits<List<T>> : public ObjectRefTypeTraitsBase<List<T>> {
  static constexpr int32_t field_static_type_index = kTVMFFIList;
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIList && details::SeqAllStrict<T>(s);
  }
  static std::optional<List<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index != kTVMFFIArray && s->type_index != kTVMFFIList) return std::nullopt;
    if (CheckAnyStrict(s)) return ObjectRefTypeTraitsBase<List<T>>::CopyFromAnyViewAfterCheck(s);
    const TVMFFISeqCell* c = details::SeqCellOf(s);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(c->data);
    List<T> out;
    out.reserve(c->size);
    for (int64_t i = 0; i < c->size; ++i) {
      if constexpr (std::is_same_v<T, Any>) {  // an Array's items, copied as they are
        out.push_back(details::SeqElem<Any>(items + i));
      } else {
        std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(items + i);
        if (!v.has_value()) return std::nullopt;
        out.push_back(*std::move(v));
      }
    }
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    // named after the target, whichever sequence arrived (as upstream words it)
    if (s->type_index == kTVMFFIArray || s->type_index == kTVMFFIList) {
      return details::SeqMismatch<T>(s, "List");
    }
    return TypeIndexToTypeKey(s->type_index);
  }
  static std::string TypeStr() {
    static constexpr details::StrFn parts[] = {&details::Type2Str<T>::v};
    return details::JoinStrs("List<", parts, 1, ", ", ">");
  }
  static std::string TypeSchema() {
    static constexpr details::StrFn parts[] = {&details::Type2Schema<T>::v};
    return details::SchemaWithArgs("ffi.List", parts, 1);
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_LIST_H_
