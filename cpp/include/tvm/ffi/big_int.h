/*
 * tvm/ffi/big_int.h -- BigInt: an integer of any size, as an FFI value.
 *
 * The value is either a kTVMFFIInt (whenever it fits int64_t) or an ffi.BigInt
 * object (type index 78) holding two's-complement 64-bit words, least
 * significant first, in minimal form.  The runtime builds and normalizes the
 * objects (TVMFFIBigIntFromByteArray) and exposes their words
 * (TVMFFIBigIntGetContentByteArray); arithmetic here works on word vectors.
 */
#ifndef TVM_FFI_BIG_INT_H_
#define TVM_FFI_BIG_INT_H_

#include <tvm/ffi/any.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

TVM_FFI_NS_BEGIN

class BigInt {
 public:
  BigInt() noexcept : BigInt(int64_t{0}) {}
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int> &&
                                                      !std::is_same_v<Int, bool>>>
  BigInt(Int v) {  // NOLINT(*)
    if constexpr (std::is_unsigned_v<Int> && sizeof(Int) >= sizeof(int64_t)) {
      const int64_t words[2] = {static_cast<int64_t>(v), 0};
      *this = FromWords(words, 2);
    } else {
      data_ = static_cast<int64_t>(v);
    }
  }
  /*! \brief From two's-complement words, least significant first (normalized). */
  static BigInt FromWords(const int64_t* words, size_t n) {
    TVMFFIByteArray bytes{reinterpret_cast<const char*>(words), n * sizeof(int64_t)};
    TVMFFIAny raw;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIBigIntFromByteArray(&bytes, &raw));
    BigInt r;
    r.data_ = details::AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
    return r;
  }
  /*! \brief The words of the minimal form (one word for an int64 value). */
  std::vector<int64_t> words() const {
    TVMFFIByteArray b = TVMFFIBigIntGetContentByteArray(details::AnyUnsafe::GetRaw(&data_));
    std::vector<int64_t> w(b.size / sizeof(int64_t));
    std::memcpy(w.data(), b.data, b.size);
    return w;
  }
  bool fits_int64() const noexcept { return data_.type_index() == kTVMFFIInt; }
  /*! \brief The value as int64_t; OverflowError when it does not fit. */
  int64_t ToInt64() const {
    if (!fits_int64()) TVM_FFI_THROW(OverflowError) << "BigInt " << ToString() << " does not fit int64_t";
    return details::AnyUnsafe::GetRaw(&data_)->v_int64;
  }
  bool is_negative() const { return words().back() < 0; }

  friend BigInt operator+(const BigInt& a, const BigInt& b) { return AddWords(a.words(), b.words(), false); }
  friend BigInt operator-(const BigInt& a, const BigInt& b) { return AddWords(a.words(), b.words(), true); }
  BigInt operator-() const { return BigInt() - *this; }
  friend BigInt operator*(const BigInt& a, const BigInt& b) {
    bool neg = a.is_negative() != b.is_negative();
    std::vector<uint32_t> x = Magnitude(a), y = Magnitude(b), z(x.size() + y.size() + 1, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      uint64_t carry = 0;
      for (size_t j = 0; j < y.size(); ++j) {
        uint64_t cur = static_cast<uint64_t>(x[i]) * y[j] + z[i + j] + carry;
        z[i + j] = static_cast<uint32_t>(cur);
        carry = cur >> 32;
      }
      for (size_t k = i + y.size(); carry != 0; ++k) {
        uint64_t cur = static_cast<uint64_t>(z[k]) + carry;
        z[k] = static_cast<uint32_t>(cur);
        carry = cur >> 32;
      }
    }
    return FromMagnitude(z, neg);
  }
  BigInt& operator+=(const BigInt& o) { return *this = *this + o; }
  BigInt& operator-=(const BigInt& o) { return *this = *this - o; }
  BigInt& operator*=(const BigInt& o) { return *this = *this * o; }

  /*! \brief -1, 0 or 1. */
  static int Compare(const BigInt& a, const BigInt& b) {
    std::vector<int64_t> x = a.words(), y = b.words();
    bool nx = x.back() < 0, ny = y.back() < 0;
    if (nx != ny) return nx ? -1 : 1;
    if (x.size() != y.size()) return (x.size() < y.size()) != nx ? -1 : 1;
    if (x.back() != y.back()) return x.back() < y.back() ? -1 : 1;
    for (size_t i = x.size() - 1; i-- > 0;) {
      if (x[i] != y[i]) return static_cast<uint64_t>(x[i]) < static_cast<uint64_t>(y[i]) ? -1 : 1;
    }
    return 0;
  }
  friend bool operator==(const BigInt& a, const BigInt& b) { return Compare(a, b) == 0; }
  friend bool operator!=(const BigInt& a, const BigInt& b) { return Compare(a, b) != 0; }
  friend bool operator<(const BigInt& a, const BigInt& b) { return Compare(a, b) < 0; }
  friend bool operator<=(const BigInt& a, const BigInt& b) { return Compare(a, b) <= 0; }
  friend bool operator>(const BigInt& a, const BigInt& b) { return Compare(a, b) > 0; }
  friend bool operator>=(const BigInt& a, const BigInt& b) { return Compare(a, b) >= 0; }

  /*! \brief Decimal text ("-123"). */
  std::string ToString() const {
    std::vector<uint32_t> m = Magnitude(*this);
    std::string digits;
    while (!m.empty()) {
      uint64_t rem = 0;
      for (size_t i = m.size(); i-- > 0;) {
        uint64_t cur = (rem << 32) | m[i];
        m[i] = static_cast<uint32_t>(cur / 1000000000u);
        rem = cur % 1000000000u;
      }
      while (!m.empty() && m.back() == 0) m.pop_back();
      for (int k = 0; k < 9 && (!m.empty() || rem != 0); ++k, rem /= 10) {
        digits.push_back(static_cast<char>('0' + rem % 10));
      }
    }
    if (digits.empty()) digits = "0";
    if (is_negative()) digits.push_back('-');
    std::reverse(digits.begin(), digits.end());
    return digits;
  }
  /*! \brief Hash of the value (equal values hash alike). */
  size_t hash() const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t w : words()) h = (h ^ static_cast<uint64_t>(w)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
  friend std::ostream& operator<<(std::ostream& os, const BigInt& v) { return os << v.ToString(); }

 private:
  friend struct TypeTraits<BigInt>;
  Any data_;  // kTVMFFIInt or ffi.BigInt

  static BigInt AddWords(std::vector<int64_t> x, std::vector<int64_t> y, bool subtract) {
    size_t n = std::max(x.size(), y.size()) + 1;
    x.resize(n, x.back() < 0 ? -1 : 0);
    y.resize(n, y.back() < 0 ? -1 : 0);
    std::vector<int64_t> z(n);
    uint64_t carry = subtract ? 1 : 0;  // a - b = a + ~b + 1
    for (size_t i = 0; i < n; ++i) {
      uint64_t a = static_cast<uint64_t>(x[i]);
      uint64_t b = subtract ? ~static_cast<uint64_t>(y[i]) : static_cast<uint64_t>(y[i]);
      uint64_t s = a + b;
      uint64_t c1 = s < a;
      uint64_t t = s + carry;
      uint64_t c2 = t < s;
      z[i] = static_cast<int64_t>(t);
      carry = c1 | c2;
    }
    return FromWords(z.data(), z.size());
  }
  /* |v| as 32-bit limbs, least significant first, no leading zeros. */
  static std::vector<uint32_t> Magnitude(const BigInt& v) {
    std::vector<int64_t> w = v.words();
    bool neg = w.back() < 0;
    std::vector<uint32_t> m;
    uint64_t carry = neg;
    for (int64_t word : w) {
      uint64_t u = neg ? ~static_cast<uint64_t>(word) : static_cast<uint64_t>(word);
      uint64_t lo = (u & 0xFFFFFFFFu) + carry;
      carry = lo >> 32;
      uint64_t hi = (u >> 32) + carry;
      carry = hi >> 32;
      m.push_back(static_cast<uint32_t>(lo));
      m.push_back(static_cast<uint32_t>(hi));
    }
    while (!m.empty() && m.back() == 0) m.pop_back();
    return m;
  }
  static BigInt FromMagnitude(const std::vector<uint32_t>& m, bool negative) {
    std::vector<int64_t> w((m.size() + 1) / 2 + 1, 0);
    for (size_t i = 0; i < m.size(); ++i) {
      w[i / 2] = static_cast<int64_t>(static_cast<uint64_t>(w[i / 2]) |
                                      (static_cast<uint64_t>(m[i]) << (32 * (i % 2))));
    }
    BigInt r = FromWords(w.data(), w.size());
    return negative ? -r : r;
  }
};

/* Int or ffi.BigInt values convert to BigInt; a BigInt converts to the minimal kind. */
template <>
struct TypeTraits<BigInt> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIAny;
  static void CopyToAnyView(const BigInt& v, TVMFFIAny* r) {
    *r = *details::AnyUnsafe::GetRaw(&v.data_);
  }
  static void MoveToAny(BigInt v, TVMFFIAny* r) {
    *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFIInt || s->type_index == kTVMFFIBigInt;
  }
  static BigInt CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    BigInt r;
    r.data_ = AnyView::CopyFromTVMFFIAny(*s);
    return r;
  }
  static BigInt MoveFromAnyAfterCheck(TVMFFIAny* s) {
    BigInt r;
    r.data_ = details::AnyUnsafe::MoveTVMFFIAnyToAny(s);
    return r;
  }
  static std::optional<BigInt> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    if (s->type_index == kTVMFFIBool) return BigInt(s->v_int64);
    return std::nullopt;
  }
  static std::string TypeStr() { return "ffi.BigInt"; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.BigInt"); }
};

TVM_FFI_NS_END

#endif  // TVM_FFI_BIG_INT_H_
