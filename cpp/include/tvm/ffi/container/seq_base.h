/*
 * tvm/ffi/container/seq_base.h -- what Array and List share: the sequence
 * cell (TVMFFISeqCell at handle + 24), element access, iterators and the
 * element-wise conversion rules used when a sequence arrives through Any.
 */
#ifndef TVM_FFI_CONTAINER_SEQ_BASE_H_
#define TVM_FFI_CONTAINER_SEQ_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_container_base.h>
#include <tvm/ffi/memory.h>

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

TVM_FFI_NS_BEGIN

/*! \brief Object header followed by the sequence cell; elements are owned Anys. */
class SeqBaseObj : public Object, public TVMFFISeqCell {
 public:
  SeqBaseObj() : TVMFFISeqCell{nullptr, 0, 0, nullptr} {}
  ~SeqBaseObj() {
    TVMFFISeqCellReleaseItems(this);
    if (data_deleter != nullptr) data_deleter(data);
  }
  SeqBaseObj(const SeqBaseObj&) = delete;
  size_t size() const { return static_cast<size_t>(TVMFFISeqCell::size); }
  size_t capacity() const { return static_cast<size_t>(TVMFFISeqCell::capacity); }
  bool empty() const { return TVMFFISeqCell::size == 0; }
  Any* begin() const { return static_cast<Any*>(data); }
  Any* end() const { return begin() + TVMFFISeqCell::size; }
  /// Bounds-checked element (negative and out-of-range indices throw IndexError).
  const Any& at(int64_t i) const {
    if (i < 0 || i >= TVMFFISeqCell::size) ThrowIndex(i);
    return begin()[i];
  }
  const Any& operator[](int64_t i) const { return at(i); }
  void SetItem(int64_t i, Any v) {
    if (i < 0 || i >= TVMFFISeqCell::size) ThrowIndex(i);
    begin()[i] = std::move(v);
  }

 protected:
  [[noreturn]] TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowIndex(int64_t i) const {
    TVM_FFI_THROW(IndexError) << "Index " << i << " out of bounds " << TVMFFISeqCell::size;
    TVM_FFI_UNREACHABLE();
  }
};
static_assert(sizeof(SeqBaseObj) == 56, "sequence object prefix is 56 bytes");

namespace details {
/* Element of a sequence as T (a value, never a reference). */
template <typename T>
TVM_FFI_INLINE T SeqElem(const TVMFFIAny* v) {
  if constexpr (std::is_same_v<T, Any>) {
    return *reinterpret_cast<const Any*>(v);
  } else {
    return TypeTraits<T>::CopyFromAnyViewAfterCheck(v);
  }
}

/*! \brief Random-access iterator yielding T by value. */
template <typename T>
class SeqIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  SeqIterator() = default;
  explicit SeqIterator(const TVMFFIAny* p) : p_(p) {}
  T operator*() const { return SeqElem<T>(p_); }
  T operator[](difference_type n) const { return SeqElem<T>(p_ + n); }
  SeqIterator& operator++() {
    ++p_;
    return *this;
  }
  SeqIterator& operator--() {
    --p_;
    return *this;
  }
  SeqIterator operator++(int) {
    SeqIterator r = *this;
    ++p_;
    return r;
  }
  SeqIterator operator--(int) {
    SeqIterator r = *this;
    --p_;
    return r;
  }
  SeqIterator& operator+=(difference_type n) {
    p_ += n;
    return *this;
  }
  SeqIterator& operator-=(difference_type n) {
    p_ -= n;
    return *this;
  }
  SeqIterator operator+(difference_type n) const { return SeqIterator(p_ + n); }
  SeqIterator operator-(difference_type n) const { return SeqIterator(p_ - n); }
  difference_type operator-(const SeqIterator& o) const { return p_ - o.p_; }
  bool operator==(const SeqIterator& o) const { return p_ == o.p_; }
  bool operator!=(const SeqIterator& o) const { return p_ != o.p_; }
  bool operator<(const SeqIterator& o) const { return p_ < o.p_; }
  bool operator>(const SeqIterator& o) const { return p_ > o.p_; }
  bool operator<=(const SeqIterator& o) const { return p_ <= o.p_; }
  bool operator>=(const SeqIterator& o) const { return p_ >= o.p_; }
  const TVMFFIAny* raw() const { return p_; }

 private:
  const TVMFFIAny* p_{nullptr};
};

inline const TVMFFISeqCell* SeqCellOf(const TVMFFIAny* v) { return TVMFFISeqGetCellPtr(v->v_obj); }

/* Whether every element of a sequence payload is strictly a T. */
template <typename T>
inline bool SeqAllStrict(const TVMFFIAny* v) {
  if constexpr (std::is_same_v<T, Any>) {
    return true;
  } else {
    const TVMFFISeqCell* c = SeqCellOf(v);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(c->data);
    for (int64_t i = 0; i < c->size; ++i) {
      if (!TypeTraits<T>::CheckAnyStrict(items + i)) return false;
    }
    return true;
  }
}

/* Mismatch text of a sequence: "Array[index i: <inner>]" for the first bad element. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string SeqMismatchOf(const TVMFFIAny* v,
                                                                      const char* kind,
                                                                      ElemConvFn conv,
                                                                      ElemInfoFn info) {
  if (conv != nullptr) {
    const TVMFFISeqCell* c = SeqCellOf(v);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(c->data);
    for (int64_t i = 0; i < c->size; ++i) {
      Any converted;
      if (!conv(items + i, &converted)) {
        char buf[32];  // snprintf, not std::to_string: no <charconv> code per TU
        std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(i));
        return std::string(kind) + "[index " + buf + ": " + info(items + i) + "]";
      }
    }
  }
  return TypeIndexToTypeKey(v->type_index);
}
template <typename T>
inline std::string SeqMismatch(const TVMFFIAny* v, const char* kind) {
  return SeqMismatchOf(v, kind, ElemConvOf<T>(), ElemInfoOf<T>());
}
}  // namespace details

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_SEQ_BASE_H_
