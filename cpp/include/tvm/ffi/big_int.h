/*
 * tvm/ffi/big_int.h -- BigInt: an integer of any size, as an FFI value.
 *
 * A BigInt is one TVMFFIAny cell: a kTVMFFIInt whenever the value fits int64_t,
 * else an owned ffi.BigInt object (type index 78) laid out as
 * { TVMFFIObject header; size_t size; int64_t words[size] } -- two's-complement
 * words, least significant first, in minimal form (the runtime's layout, and
 * upstream's, so objects pass between binaries either way).  Arithmetic is
 * header-only (big_int_details.h); int64 operands take a fast path without
 * allocating.  / and % truncate toward zero, floordiv / floormod round down,
 * bitwise operations and >> act on the infinite two's-complement form.
 */
#ifndef TVM_FFI_BIG_INT_H_
#define TVM_FFI_BIG_INT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int_details.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>

#include <cctype>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN

namespace details {
struct BigIntUnsafe;
/*! \brief Heap payload: `size` words follow the object (make_inplace_array_object). */
class BigIntObj : public Object {
 public:
  explicit BigIntObj(size_t size) : size_(size) {}
  BigIntObj(const BigIntObj&) = delete;
  BigIntObj& operator=(const BigIntObj&) = delete;
  static constexpr int32_t _type_index = kTVMFFIBigInt;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.BigInt", BigIntObj, Object);

 private:
  size_t size_;
  friend struct BigIntUnsafe;
};
static_assert(sizeof(BigIntObj) == sizeof(TVMFFIObject) + sizeof(size_t), "ffi.BigInt layout");
}  // namespace details

/*! \brief Immutable integer of any size; copies share the heap words. */
class BigInt {
 public:
  using ArrayView = details::BigIntWordView;

  BigInt() noexcept { Reset(); }
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int> = 0>
  BigInt(Int value);  // NOLINT(*)
  /*! \brief trunc(value); NaN: ValueError, infinity: OverflowError. */
  explicit BigInt(double value);
  BigInt(const BigInt& other) noexcept : cell_(other.cell_) {
    if (!IsInline()) details::ObjectUnsafe::IncRefHandle(cell_.v_obj);
  }
  /*! \brief The source is left holding zero. */
  BigInt(BigInt&& other) noexcept : cell_(other.cell_) { other.Reset(); }
  ~BigInt() {
    if (!IsInline()) details::ObjectUnsafe::DecRefHandle(cell_.v_obj);
  }
  BigInt& operator=(const BigInt& other) noexcept {
    BigInt(other).swap(*this);
    return *this;
  }
  BigInt& operator=(BigInt&& other) noexcept {
    BigInt(std::move(other)).swap(*this);
    return *this;
  }
  void swap(BigInt& other) noexcept { std::swap(cell_, other.cell_); }

  explicit operator bool() const noexcept { return !IsInline() || cell_.v_int64 != 0; }
  /*! \brief OverflowError when the value does not fit int64_t. */
  explicit operator int64_t() const {
    if (!IsInline()) TVM_FFI_THROW(OverflowError) << "BigInt " << *this << " does not fit int64_t";
    return cell_.v_int64;
  }
  /*! \brief Nearest double (ties to even); OverflowError beyond the finite doubles. */
  explicit operator double() const;
  /*! \brief The value as Int when it fits, else nullopt. */
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int> = 0>
  std::optional<Int> as() const;
  /*! \brief Hash of the value: the value itself when it fits int64_t. */
  uint64_t hash() const;

  BigInt& operator+=(const BigInt& rhs);
  BigInt& operator-=(const BigInt& rhs);
  BigInt& operator*=(const BigInt& rhs);
  BigInt& operator/=(const BigInt& rhs);
  BigInt& operator%=(const BigInt& rhs);
  BigInt& operator&=(const BigInt& rhs);
  BigInt& operator|=(const BigInt& rhs);
  BigInt& operator^=(const BigInt& rhs);
  BigInt& operator<<=(const BigInt& rhs);
  BigInt& operator>>=(const BigInt& rhs);
  BigInt& operator++() { return *this += 1; }
  BigInt& operator--() { return *this -= 1; }
  BigInt operator++(int) {
    BigInt old = *this;
    ++*this;
    return old;
  }
  BigInt operator--(int) {
    BigInt old = *this;
    --*this;
    return old;
  }
  friend std::ostream& operator<<(std::ostream& os, const BigInt& v);

 private:
  explicit BigInt(ObjectPtr<details::BigIntObj> owned) noexcept {  // a minimal multiword value
    cell_.type_index = kTVMFFIBigInt;
    cell_.zero_padding = 0;
    cell_.v_int64 = 0;
    cell_.v_obj = details::ObjectUnsafe::MoveObjectPtrToHandle(std::move(owned));
  }
  void Reset() noexcept {
    cell_.type_index = kTVMFFIInt;
    cell_.zero_padding = 0;
    cell_.v_int64 = 0;
  }
  bool IsInline() const noexcept { return cell_.type_index == kTVMFFIInt; }
  TVMFFIAny cell_;
  friend struct details::BigIntUnsafe;
  friend struct TypeTraits<BigInt>;
};

namespace details {
/*! \brief Raw access to the representation (upstream's names). */
struct BigIntUnsafe {
  static bool CheckInt64(const BigInt& v) noexcept { return v.IsInline(); }
  static bool CheckInt64(const int64_t&) noexcept { return true; }
  static int64_t GetInt64(const BigInt& v) noexcept { return v.cell_.v_int64; }
  static int64_t GetInt64(const int64_t& v) noexcept { return v; }
  /*! \brief The minimal words; the view borrows from v. */
  static BigInt::ArrayView GetArrayView(const BigInt& v) noexcept { return GetArrayView(&v.cell_); }
  static BigInt::ArrayView GetArrayView(const int64_t& v) noexcept { return {&v, 1}; }
  static BigInt::ArrayView GetArrayView(const TVMFFIAny* cell) noexcept {
    if (cell->type_index != kTVMFFIBigInt) return {&cell->v_int64, 1};
    const auto* obj = reinterpret_cast<const BigIntObj*>(cell->v_obj);
    return {reinterpret_cast<const int64_t*>(obj + 1), obj->size_};
  }
  /*! \brief The words of an object under construction (not yet minimal). */
  static BigInt::ArrayView GetArrayView(const ObjectPtr<BigIntObj>& p) noexcept {
    return {GetMutableData(p), p->size_};
  }
  static int64_t* GetMutableData(const ObjectPtr<BigIntObj>& p) noexcept {
    return reinterpret_cast<int64_t*>(const_cast<BigIntObj*>(p.get()) + 1);
  }
  static void ShrinkSize(const ObjectPtr<BigIntObj>& p, size_t size) noexcept {
    const_cast<BigIntObj*>(p.get())->size_ = size;
  }
  /*! \brief Drops redundant sign words; a value that fits int64_t becomes inline. */
  static BigInt Normalize(ObjectPtr<BigIntObj> p) {
    size_t n = MinimalSize(GetArrayView(p));
    if (n <= 1) return BigInt(n == 0 ? int64_t{0} : GetMutableData(p)[0]);
    ShrinkSize(p, n);
    return BigInt(std::move(p));
  }
  /*! \brief BigInt of any words (copied). */
  static BigInt FromWords(BigInt::ArrayView w) {
    size_t n = MinimalSize(w);
    if (n <= 1) return BigInt(n == 0 ? int64_t{0} : w[0]);
    ObjectPtr<BigIntObj> p = make_inplace_array_object<BigIntObj, int64_t>(n, n);
    std::memcpy(GetMutableData(p), w.data(), n * sizeof(int64_t));
    return BigInt(std::move(p));
  }
  static BigInt FromWords(const bigint::Words& w) { return FromWords({w.data(), w.size()}); }

 private:
  static size_t MinimalSize(BigInt::ArrayView w) noexcept {
    size_t n = w.size();
    while (n > 1 && w[n - 1] == (w[n - 2] < 0 ? -1 : 0)) --n;
    return n;
  }
};

/*! \brief An operand of a binary operation: a BigInt, or an integer kept as one word. */
class BigIntOperand {
 public:
  BigIntOperand(const BigInt& v) noexcept  // NOLINT(*)
      : small_(BigIntUnsafe::GetInt64(v)), view_(BigIntUnsafe::GetArrayView(v)) {
    if (BigIntUnsafe::CheckInt64(v)) view_ = BigInt::ArrayView(&small_, 1);
  }
  BigIntOperand(int64_t v) noexcept : small_(v), view_(&small_, 1) {}  // NOLINT(*)
  BigIntOperand(const BigIntOperand&) = delete;
  bool is_small() const noexcept { return view_.data() == &small_; }
  int64_t small() const noexcept { return small_; }
  BigInt::ArrayView view() const noexcept { return view_; }

 private:
  int64_t small_;
  BigInt::ArrayView view_;
};

/* Integer operand types taken as one word: all but 64-bit unsigned (not exact as int64_t). */
template <typename I>
using EnableIfWordInt =
    std::enable_if_t<std::is_integral_v<I> && (std::is_signed_v<I> || sizeof(I) < 8), int>;

[[noreturn]] inline TVM_FFI_NO_INLINE void ThrowBigIntDivisionByZero() {
  TVM_FFI_THROW(ZeroDivisionError) << "BigInt division by zero";
  TVM_FFI_UNREACHABLE();
}
}  // namespace details

// ---- int_ops: word-level entry points (upstream's names) --------------------
namespace details {
namespace int_ops {
inline bool IsNegative(BigInt::ArrayView x) { return x.negative(); }
inline bool IsNormalizedZero(BigInt::ArrayView x) { return x.size() == 1 && x[0] == 0; }
inline int CompareFallback(BigInt::ArrayView a, BigInt::ArrayView b) {
  return bigint::Compare(a, b);
}
inline bool EqualFallback(BigInt::ArrayView a, BigInt::ArrayView b) {
  return bigint::Compare(a, b) == 0;
}
/*! \brief {trunc(a / b), a - b * trunc(a / b)}; ZeroDivisionError for b == 0. */
inline std::pair<BigInt, BigInt> DivRemFallback(BigInt::ArrayView a, BigInt::ArrayView b) {
  const int64_t zero = 0;
  if (bigint::Compare(b, {&zero, 1}) == 0) ThrowBigIntDivisionByZero();
  bigint::Words q, r;
  bigint::TruncDivMod(a, b, &q, &r);
  return {BigIntUnsafe::FromWords(q), BigIntUnsafe::FromWords(r)};
}
inline std::string ToStringFallback(const BigInt& v) {
  return bigint::ToDecimal(BigIntUnsafe::GetArrayView(v));
}
}  // namespace int_ops

/* ---- the operations on operands (the int64 fast path first) ---- */
namespace bigint {
using Op = BigIntOperand;
inline BigInt Add(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) {
    int64_t r =
        static_cast<int64_t>(static_cast<uint64_t>(a.small()) + static_cast<uint64_t>(b.small()));
    if (((a.small() ^ r) & (b.small() ^ r)) >= 0) return r;  // no signed overflow
  }
  return BigIntUnsafe::FromWords(AddSub(a.view(), b.view(), false));
}
inline BigInt Sub(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) {
    int64_t r =
        static_cast<int64_t>(static_cast<uint64_t>(a.small()) - static_cast<uint64_t>(b.small()));
    if (((a.small() ^ b.small()) & (a.small() ^ r)) >= 0) return r;
  }
  return BigIntUnsafe::FromWords(AddSub(a.view(), b.view(), true));
}
inline BigInt Mul(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) {
#if defined(__GNUC__) || defined(__clang__)
    int64_t r;
    if (!__builtin_mul_overflow(a.small(), b.small(), &r)) return r;
#else
    auto fits32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
    if (fits32(a.small()) && fits32(b.small())) return a.small() * b.small();
#endif
  }
  bool na, nb;
  Digits x = ToDigits(a.view(), &na), y = ToDigits(b.view(), &nb);
  return BigIntUnsafe::FromWords(FromDigits(MulDigits(x, y), na != nb));
}
/* Truncating quotient/remainder; `floor` moves them to the rounded-down quotient. */
inline std::pair<BigInt, BigInt> DivMod(const Op& a, const Op& b, bool floor) {
  if (b.is_small() && b.small() == 0) ThrowBigIntDivisionByZero();
  if (a.is_small() && b.is_small() && !(a.small() == INT64_MIN && b.small() == -1)) {
    int64_t q = a.small() / b.small(), r = a.small() % b.small();
    if (floor && r != 0 && ((r < 0) != (b.small() < 0))) --q, r += b.small();
    return {q, r};
  }
  std::pair<BigInt, BigInt> qr = int_ops::DivRemFallback(a.view(), b.view());
  if (floor && qr.second &&
      BigIntUnsafe::GetArrayView(qr.second).negative() != b.view().negative()) {
    --qr.first;
    qr.second += BigIntUnsafe::FromWords(b.view());
  }
  return qr;
}
inline BigInt BitAnd(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) return a.small() & b.small();
  return BigIntUnsafe::FromWords(Bitwise(a.view(), b.view(), BitOp::kAnd));
}
inline BigInt BitOr(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) return a.small() | b.small();
  return BigIntUnsafe::FromWords(Bitwise(a.view(), b.view(), BitOp::kOr));
}
inline BigInt BitXor(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) return a.small() ^ b.small();
  return BigIntUnsafe::FromWords(Bitwise(a.view(), b.view(), BitOp::kXor));
}
/* A shift count: ValueError when negative; `huge` when it does not fit int64_t. */
inline uint64_t ShiftCount(const Op& count, bool* huge) {
  if (count.view().negative()) TVM_FFI_THROW(ValueError) << "negative BigInt shift count";
  *huge = !count.is_small();
  return *huge ? 0 : static_cast<uint64_t>(count.small());
}
inline BigInt ShiftLeft(const Op& a, const Op& count) {
  bool huge;
  uint64_t c = ShiftCount(count, &huge);
  if (a.is_small() && a.small() == 0) return 0;
  // at most 2^30 words (8 GiB) of result: beyond, an error rather than a failed allocation
  constexpr uint64_t kMaxShiftWords = uint64_t{1} << 30;
  if (huge || c / 64 >= kMaxShiftWords) {
    TVM_FFI_THROW(OverflowError) << "BigInt shift count " << BigIntUnsafe::FromWords(count.view())
                                 << " is too large";
  }
  if (a.is_small() && c < 63) {
    int64_t r = static_cast<int64_t>(static_cast<uint64_t>(a.small()) << c);
    if ((r >> c) == a.small()) return r;
  }
  return BigIntUnsafe::FromWords(ShiftLeft(a.view(), c));
}
inline BigInt ShiftRight(const Op& a, const Op& count) {
  bool huge;
  uint64_t c = ShiftCount(count, &huge);
  if (huge) return a.view().negative() ? -1 : 0;
  if (a.is_small()) return c >= 64 ? (a.small() < 0 ? -1 : 0) : a.small() >> c;
  return BigIntUnsafe::FromWords(ShiftRight(a.view(), c));
}
inline int Cmp(const Op& a, const Op& b) {
  if (a.is_small() && b.is_small()) return a.small() < b.small() ? -1 : a.small() > b.small();
  return Compare(a.view(), b.view());
}
}  // namespace bigint
}  // namespace details

/* Each binary operation takes BigInt/BigInt, BigInt/integer and integer/BigInt
 * (integers up to 64 bits; uint64_t goes through BigInt to stay exact). */
#define TVM_FFI_BIGINT_BINARY(Ret, Name, Body)                             \
  inline Ret Name(const BigInt& lhs, const BigInt& rhs) {                  \
    const details::BigIntOperand &a = lhs, &b = rhs;                       \
    Body;                                                                  \
  }                                                                        \
  template <typename I, details::EnableIfWordInt<I> = 0>                   \
  inline Ret Name(const BigInt& lhs, I rhs) {                              \
    const details::BigIntOperand &a = lhs, &b = static_cast<int64_t>(rhs); \
    Body;                                                                  \
  }                                                                        \
  template <typename I, details::EnableIfWordInt<I> = 0>                   \
  inline Ret Name(I lhs, const BigInt& rhs) {                              \
    const details::BigIntOperand &a = static_cast<int64_t>(lhs), &b = rhs; \
    Body;                                                                  \
  }

TVM_FFI_BIGINT_BINARY(BigInt, operator+, return details::bigint::Add(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator-, return details::bigint::Sub(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator*, return details::bigint::Mul(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, truncdiv, return details::bigint::DivMod(a, b, false).first)
TVM_FFI_BIGINT_BINARY(BigInt, truncmod, return details::bigint::DivMod(a, b, false).second)
TVM_FFI_BIGINT_BINARY(BigInt, operator/, return details::bigint::DivMod(a, b, false).first)
TVM_FFI_BIGINT_BINARY(BigInt, operator%, return details::bigint::DivMod(a, b, false).second)
TVM_FFI_BIGINT_BINARY(BigInt, floordiv, return details::bigint::DivMod(a, b, true).first)
TVM_FFI_BIGINT_BINARY(BigInt, floormod, return details::bigint::DivMod(a, b, true).second)
TVM_FFI_BIGINT_BINARY(BigInt, operator&, return details::bigint::BitAnd(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator|, return details::bigint::BitOr(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator^, return details::bigint::BitXor(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator<<, return details::bigint::ShiftLeft(a, b))
TVM_FFI_BIGINT_BINARY(BigInt, operator>>, return details::bigint::ShiftRight(a, b))
TVM_FFI_BIGINT_BINARY(bool, operator==, return details::bigint::Cmp(a, b) == 0)
TVM_FFI_BIGINT_BINARY(bool, operator!=, return details::bigint::Cmp(a, b) != 0)
TVM_FFI_BIGINT_BINARY(bool, operator<, return details::bigint::Cmp(a, b) < 0)
TVM_FFI_BIGINT_BINARY(bool, operator<=, return details::bigint::Cmp(a, b) <= 0)
TVM_FFI_BIGINT_BINARY(bool, operator>, return details::bigint::Cmp(a, b) > 0)
TVM_FFI_BIGINT_BINARY(bool, operator>=, return details::bigint::Cmp(a, b) >= 0)
TVM_FFI_BIGINT_BINARY(BigInt, min,
                      return details::bigint::Cmp(a, b) <= 0 ? BigInt(lhs) : BigInt(rhs))
TVM_FFI_BIGINT_BINARY(BigInt, max,
                      return details::bigint::Cmp(a, b) >= 0 ? BigInt(lhs) : BigInt(rhs))
#undef TVM_FFI_BIGINT_BINARY

inline BigInt operator+(const BigInt& v) { return v; }
inline BigInt operator-(const BigInt& v) { return int64_t{0} - v; }
inline BigInt operator~(const BigInt& v) {
  if (details::BigIntUnsafe::CheckInt64(v)) return ~details::BigIntUnsafe::GetInt64(v);
  return details::BigIntUnsafe::FromWords(
      details::bigint::Complement(details::BigIntUnsafe::GetArrayView(v)));
}

inline BigInt& BigInt::operator+=(const BigInt& rhs) { return *this = *this + rhs; }
inline BigInt& BigInt::operator-=(const BigInt& rhs) { return *this = *this - rhs; }
inline BigInt& BigInt::operator*=(const BigInt& rhs) { return *this = *this * rhs; }
inline BigInt& BigInt::operator/=(const BigInt& rhs) { return *this = *this / rhs; }
inline BigInt& BigInt::operator%=(const BigInt& rhs) { return *this = *this % rhs; }
inline BigInt& BigInt::operator&=(const BigInt& rhs) { return *this = *this & rhs; }
inline BigInt& BigInt::operator|=(const BigInt& rhs) { return *this = *this | rhs; }
inline BigInt& BigInt::operator^=(const BigInt& rhs) { return *this = *this ^ rhs; }
inline BigInt& BigInt::operator<<=(const BigInt& rhs) { return *this = *this << rhs; }
inline BigInt& BigInt::operator>>=(const BigInt& rhs) { return *this = *this >> rhs; }

template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int>>
inline BigInt::BigInt(Int value) {
  Reset();
  if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      const int64_t words[2] = {static_cast<int64_t>(value), 0};
      *this = details::BigIntUnsafe::FromWords({words, 2});
      return;
    }
  }
  cell_.v_int64 = static_cast<int64_t>(value);
}

inline BigInt::BigInt(double value) {
  Reset();
  if (value != value) TVM_FFI_THROW(ValueError) << "cannot convert NaN to BigInt";
  if (value - value != 0) TVM_FFI_THROW(OverflowError) << "cannot convert infinity to BigInt";
  // [-2^63, 2^63): the bounds are exact doubles, so the cast below is defined
  if (value >= -9223372036854775808.0 && value < 9223372036854775808.0) {
    cell_.v_int64 = static_cast<int64_t>(value);
  } else {
    *this = details::BigIntUnsafe::FromWords(details::bigint::FromDouble(value));
  }
}

inline BigInt::operator double() const {
  if (IsInline()) return static_cast<double>(cell_.v_int64);
  double out;
  if (!details::bigint::ToDouble(details::BigIntUnsafe::GetArrayView(*this), &out)) {
    TVM_FFI_THROW(OverflowError) << "BigInt is too large to convert to double";
  }
  return out;
}

template <typename Int, std::enable_if_t<std::is_integral_v<Int> && sizeof(Int) <= 8, int>>
inline std::optional<Int> BigInt::as() const {
  if (IsInline()) {
    int64_t v = cell_.v_int64;
    if constexpr (std::is_signed_v<Int>) {
      if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max())
        return std::nullopt;
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<Int>::max()) return std::nullopt;
    }
    return static_cast<Int>(v);
  }
  if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {  // [2^63, 2^64): {low, 0}
    ArrayView w = details::BigIntUnsafe::GetArrayView(*this);
    if (w.size() == 2 && w[1] == 0) return static_cast<Int>(w[0]);
  }
  return std::nullopt;
}

inline uint64_t BigInt::hash() const {
  if (IsInline()) return static_cast<uint64_t>(cell_.v_int64);
  ArrayView w = details::BigIntUnsafe::GetArrayView(*this);
  return details::StableHashBytes(w.data(), w.size() * sizeof(int64_t));
}

/*! \brief Decimal text ("-123"). */
inline std::ostream& operator<<(std::ostream& os, const BigInt& v) {
  return os << details::int_ops::ToStringFallback(v);
}

/*! \brief Reads [+-]digits (after whitespace unless noskipws); on failure sets failbit and
 * leaves the value as it was. */
inline std::istream& operator>>(std::istream& is, BigInt& value) {
  std::istream::sentry ok(is);
  if (!ok) return is;
  std::string digits;
  bool negative = false;
  int c = is.peek();
  if (c == '+' || c == '-') {
    negative = c == '-';
    is.get();
    c = is.peek();
  }
  while (c != std::char_traits<char>::eof() && std::isdigit(c)) {
    digits.push_back(static_cast<char>(is.get()));
    c = is.peek();
  }
  if (digits.empty()) {
    is.setstate(std::ios::failbit);
  } else {
    value = details::BigIntUnsafe::FromWords(
        details::bigint::FromDecimal(digits.data(), digits.data() + digits.size(), negative));
  }
  return is;
}

/* Int or ffi.BigInt values convert to BigInt (a Bool as 0/1); a BigInt becomes whichever it is. */
template <>
struct TypeTraits<BigInt> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIAny;
  static void CopyToAnyView(const BigInt& v, TVMFFIAny* r) { *r = v.cell_; }
  static void MoveToAny(BigInt v, TVMFFIAny* r) {
    *r = v.cell_;
    v.Reset();
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIInt || s->type_index == kTVMFFIBigInt;
  }
  static BigInt CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    BigInt r;
    r.cell_ = *s;
    if (!r.IsInline()) details::ObjectUnsafe::IncRefHandle(r.cell_.v_obj);
    return r;
  }
  static BigInt MoveFromAnyAfterCheck(TVMFFIAny* s) {
    BigInt r;
    r.cell_ = *s;
    details::AnySetNone(s);
    return r;
  }
  template <typename T = BigInt>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    if (s->type_index == kTVMFFIBool) return BigInt(s->v_int64);
    return std::nullopt;
  }
  static std::string TypeStr() { return "BigInt"; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.BigInt"); }
};

TVM_FFI_NS_END

namespace std {
template <>
struct hash<::tvm::ffi::BigInt> {
  size_t operator()(const ::tvm::ffi::BigInt& v) const { return static_cast<size_t>(v.hash()); }
};
}  // namespace std

#endif  // TVM_FFI_BIG_INT_H_
