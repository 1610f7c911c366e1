/*
 * tvm/ffi/container/list.h -- List<T>: a shared mutable sequence (no
 * copy-on-write; every handle sees every mutation).  Payload: ListObj =
 * header + TVMFFISeqCell with a separately malloc'd buffer, so growing keeps
 * the object address (ABI §7.7).
 */
#ifndef TVM_FFI_CONTAINER_LIST_H_
#define TVM_FFI_CONTAINER_LIST_H_

#include <tvm/ffi/container/array.h>

#include <cstdlib>

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
  template <typename IterType, typename = typename std::iterator_traits<IterType>::iterator_category>
  List(IterType first, IterType last) : List() {
    Assign(first, last);
  }
  List(const List&) = default;
  List(List&&) = default;
  List& operator=(const List&) = default;
  List& operator=(List&&) = default;
  template <typename U, typename = std::enable_if_t<!std::is_same_v<T, U> && type_subsumes_v<T, U>>>
  List(const List<U>& other) : ObjectRef(details::ObjectUnsafe::GetObjectPtr(other)) {}  // NOLINT(*)

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
    T copy = val;
    int64_t idx = Index(position);
    ListObj* p = Checked();
    p->Grow(1);
    OpenGap(p, idx, 1);
    new (p->begin() + idx) Any(std::move(copy));
  }
  template <typename IterType>
  void insert(iterator position, IterType first, IterType last) {
    std::vector<Any> vals;
    for (; first != last; ++first) vals.emplace_back(T(*first));
    int64_t idx = Index(position), n = static_cast<int64_t>(vals.size());
    if (n == 0) return;
    ListObj* p = Checked();
    p->Grow(n);
    OpenGap(p, idx, n);
    for (int64_t i = 0; i < n; ++i) new (p->begin() + idx + i) Any(std::move(vals[i]));
  }
  void pop_back() {
    if (empty()) TVM_FFI_THROW(IndexError) << "pop_back on empty sequence";
    ListObj* p = Obj();
    int64_t n = p->TVMFFISeqCell::size - 1;
    Any old = std::move(p->begin()[n]);
    p->TVMFFISeqCell::size = n;
  }
  void erase(iterator position) { erase(position, position + 1); }
  void erase(iterator first, iterator last) {
    int64_t b = Index(first), e = Index(last), n = static_cast<int64_t>(size());
    if (b > e || e > n) TVM_FFI_THROW(IndexError) << "erase range out of bounds";
    if (b == e) return;
    ListObj* p = Obj();
    std::vector<Any> dead;  // released after the list is consistent again
    for (int64_t i = b; i < e; ++i) dead.push_back(std::move(p->begin()[i]));
    for (int64_t i = b; i < e; ++i) p->begin()[i].~Any();
    std::memmove(static_cast<void*>(p->begin() + b), static_cast<void*>(p->begin() + e),
                 static_cast<size_t>(n - e) * sizeof(Any));
    p->TVMFFISeqCell::size = n - (e - b);
  }
  void resize(int64_t n) {
    if (n < 0) TVM_FFI_THROW(ValueError) << "cannot resize a List to negative size " << n;
    ListObj* p = Checked();
    int64_t cur = p->TVMFFISeqCell::size;
    if (n > cur) {
      p->Reserve(n);
      for (int64_t i = cur; i < n; ++i) new (p->begin() + i) Any();
      p->TVMFFISeqCell::size = n;
    } else if (n < cur) {
      std::vector<Any> dead;
      for (int64_t i = n; i < cur; ++i) dead.push_back(std::move(p->begin()[i]));
      for (int64_t i = n; i < cur; ++i) p->begin()[i].~Any();
      p->TVMFFISeqCell::size = n;
    }
  }
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
  static void OpenGap(ListObj* p, int64_t idx, int64_t n) {
    int64_t size = p->TVMFFISeqCell::size;
    if (idx < 0 || idx > size) TVM_FFI_THROW(IndexError) << "insert position out of bounds";
    std::memmove(static_cast<void*>(p->begin() + idx + n), static_cast<void*>(p->begin() + idx),
                 static_cast<size_t>(size - idx) * sizeof(Any));
    p->TVMFFISeqCell::size = size + n;
  }
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
      std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(items + i);
      if (!v.has_value()) return std::nullopt;
      out.push_back(*std::move(v));
    }
    return out;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIArray) return details::SeqMismatch<T>(s, "Array");
    if (s->type_index == kTVMFFIList) return details::SeqMismatch<T>(s, "List");
    return TypeIndexToTypeKey(s->type_index);
  }
  static std::string TypeStr() { return "List<" + details::Type2Str<T>::v() + ">"; }
  static std::string TypeSchema() {
    return "{\"type\":\"ffi.List\",\"args\":[" + details::Type2Schema<T>::v() + "]}";
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_LIST_H_
