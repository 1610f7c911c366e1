/*
 * tvm/ffi/container/shape.h -- ShapeView (non-owning {data, size}) and Shape
 * (immutable ffi.Shape object: header + TVMFFIShapeCell + values inline).
 */
#ifndef TVM_FFI_CONTAINER_SHAPE_H_
#define TVM_FFI_CONTAINER_SHAPE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>

#include <initializer_list>
#include <vector>

TVM_FFI_NS_BEGIN

namespace details {
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowShapeIndex(size_t i, size_t n) {
  TVM_FFI_THROW(IndexError) << "indexing " << i << " on a Shape of size " << n;
  TVM_FFI_UNREACHABLE();
}
}  // namespace details

/*! \brief Non-owning view of int64 values (the initializer-list form dangles after the full expression). */
class ShapeView {
 public:
  ShapeView() = default;
  ShapeView(const int64_t* data, size_t size) : data_(data), size_(size) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  ShapeView(const std::initializer_list<int64_t>& l)  // NOLINT(*)
      : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t Product() const {
    int64_t p = 1;
    for (size_t i = 0; i < size_; ++i) p *= data_[i];
    return p;
  }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t at(size_t i) const {
    if (i >= size_) details::ThrowShapeIndex(i, size_);
    return data_[i];
  }
  int64_t front() const { return at(0); }
  int64_t back() const {
    if (size_ == 0) details::ThrowShapeIndex(0, 0);
    return data_[size_ - 1];
  }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }

 private:
  const int64_t* data_{nullptr};
  size_t size_{0};
};

/*! \brief Shape payload: values inline after the cell. */
class ShapeObj : public Object, public TVMFFIShapeCell {
 public:
  ShapeObj() : TVMFFIShapeCell{nullptr, 0} {}
  static constexpr int32_t _type_index = kTVMFFIShape;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Shape", ShapeObj, Object);
};

/*! \brief Immutable, non-nullable shape. */
class Shape : public ObjectRef {
 public:
  Shape() : Shape(ShapeView()) {}
  Shape(std::initializer_list<int64_t> l) : Shape(ShapeView(l.begin(), l.size())) {}  // NOLINT(*)
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  Shape(const std::vector<I>& v) : Shape(v.begin(), v.end()) {}  // NOLINT(*)
  /* Templates (on A, It) so that a TU that never converts an Array does not instantiate
   * the Array and std::vector code behind it. */
  template <typename A, typename = std::enable_if_t<std::is_same_v<A, Array<int64_t>>>>
  Shape(const A& a) {  // NOLINT(*)
    // sized up front: no std::vector in a TU that takes a Shape argument
    int64_t* dst = Alloc(a.size());
    for (int64_t v : a) *dst++ = v;
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Shape(It first, It last) {
    std::vector<int64_t> v;
    for (; first != last; ++first) v.push_back(static_cast<int64_t>(*first));
    *this = Shape(ShapeView(v.data(), v.size()));
  }
  Shape(ShapeView view) {  // NOLINT(*)
    int64_t* dst = Alloc(view.size());
    for (size_t i = 0; i < view.size(); ++i) dst[i] = view[i];
  }
  explicit Shape(UnsafeInit tag) : ObjectRef(tag) {}
  explicit Shape(ObjectPtr<ShapeObj> p) : ObjectRef(std::move(p)) {}
  /// Compact row-major strides of a shape.
  static Shape StridesFromShape(ShapeView shape) {
    Shape out(shape);  // same length, then overwritten in place (not shared yet)
    int64_t* s = const_cast<int64_t*>(out.data());
    int64_t acc = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      s[i] = acc;
      acc *= shape[i];
    }
    return out;
  }
  operator ShapeView() const { return ShapeView(data(), size()); }  // NOLINT(*)
  const int64_t* data() const { return data_ ? Obj()->data : nullptr; }
  size_t size() const { return data_ ? Obj()->size : 0; }
  bool empty() const { return size() == 0; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t at(size_t i) const { return ShapeView(*this).at(i); }
  int64_t front() const { return at(0); }
  int64_t back() const { return ShapeView(*this).back(); }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size(); }
  int64_t Product() const { return ShapeView(*this).Product(); }

  using ContainerType = ShapeObj;
  static constexpr bool _type_is_nullable = false;

 private:
  const ShapeObj* Obj() const { return static_cast<const ShapeObj*>(data_.get()); }
  /* A new ShapeObj of n values held by this Shape; returns where the values go. */
  int64_t* Alloc(size_t n) {
    ObjectPtr<ShapeObj> p = make_inplace_array_object<ShapeObj, int64_t>(n);
    int64_t* dst = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(p.get()) + sizeof(ShapeObj));
    p->data = dst;
    p->size = n;
    data_ = std::move(p);
    return dst;
  }
};

template <typename Traits>
inline std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                                    const Shape& s) {
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) os << ", ";
    os << s[i];
  }
  return os << ']';
}

template <>
inline constexpr bool use_default_type_traits_v<Shape> = false;

template <>
struct TypeTraits<Shape> : public ObjectRefTypeTraitsBase<Shape> {
  static constexpr int32_t field_static_type_index = kTVMFFIShape;
  /* A Shape object, or an Array/List of ints (a new Shape).  A template (on A) so that a TU
   * that never casts to a Shape does not instantiate Array's conversion code. */
  template <typename A = Array<int64_t>>
  static std::optional<Shape> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIShape) return CopyFromAnyViewAfterCheck(s);
    if (s->type_index == kTVMFFIArray || s->type_index == kTVMFFIList) {
      if (std::optional<A> a = TypeTraits<A>::TryCastFromAnyView(s)) {
        return Shape(*a);
      }
    }
    return std::nullopt;
  }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_CONTAINER_SHAPE_H_
