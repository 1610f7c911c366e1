/*
 * tvm/ffi/big_int_details.h -- the word arithmetic behind BigInt (big_int.h).
 *
 * Integers here are borrowed WordViews: two's-complement int64_t words, least
 * significant first, sign-extended without end (so any length is valid, minimal
 * or not).  Results are std::vectors of words that need not be minimal; BigInt
 * trims them and keeps values that fit int64_t inline.  Products, quotients and
 * decimal text work on magnitudes of 32-bit digits so that every partial product
 * fits uint64_t on any compiler.
 */
#ifndef TVM_FFI_BIG_INT_DETAILS_H_
#define TVM_FFI_BIG_INT_DETAILS_H_

#include <tvm/ffi/base_details.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

TVM_FFI_NS_BEGIN
namespace details {

/*! \brief Borrowed two's-complement words (least significant first); the storage outlives it. */
class BigIntWordView {
 public:
  BigIntWordView(const int64_t* data, size_t size) : data_(data), size_(size) {}
  const int64_t& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  const int64_t* data() const { return data_; }
  bool negative() const { return data_[size_ - 1] < 0; }
  /*! \brief Word i of the infinite sign extension. */
  uint64_t ext(size_t i) const {
    if (i < size_) return static_cast<uint64_t>(data_[i]);
    return negative() ? ~uint64_t{0} : 0;
  }

 private:
  const int64_t* data_;
  size_t size_;
};

namespace bigint {
using Words = std::vector<int64_t>;
using Digits = std::vector<uint32_t>;  // magnitude, least significant first, no leading zeros
using View = BigIntWordView;

inline Words AddSub(View a, View b, bool subtract) {
  size_t n = std::max(a.size(), b.size()) + 1;
  Words out(n);
  uint64_t carry = subtract;  // a - b == a + ~b + 1
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = a.ext(i), y = subtract ? ~b.ext(i) : b.ext(i);
    uint64_t s = x + y;
    uint64_t t = s + carry;
    carry = (s < x) | (t < s);
    out[i] = static_cast<int64_t>(t);
  }
  return out;
}

enum class BitOp { kAnd, kOr, kXor };
inline Words Bitwise(View a, View b, BitOp op) {
  size_t n = std::max(a.size(), b.size());
  Words out(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = a.ext(i), y = b.ext(i);
    out[i] = static_cast<int64_t>(op == BitOp::kAnd  ? (x & y)
                                  : op == BitOp::kOr ? (x | y)
                                                     : (x ^ y));
  }
  return out;
}

inline Words Complement(View a) {
  Words out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = ~a[i];
  return out;
}

/*! \brief -1, 0 or 1; the lengths may differ and need not be minimal. */
inline int Compare(View a, View b) {
  if (a.negative() != b.negative()) return a.negative() ? -1 : 1;
  for (size_t i = std::max(a.size(), b.size()); i-- > 0;) {
    uint64_t x = a.ext(i), y = b.ext(i);  // same sign: unsigned order of words is the order
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/*! \brief a * 2^count (count < 64 * SIZE_MAX / 64 checked by the caller). */
inline Words ShiftLeft(View a, uint64_t count) {
  size_t whole = static_cast<size_t>(count / 64);
  unsigned part = static_cast<unsigned>(count % 64);
  Words out(whole + a.size() + 1, 0);
  for (size_t k = 0; k <= a.size(); ++k) {
    uint64_t w = a.ext(k) << part;
    if (part != 0 && k > 0) w |= a.ext(k - 1) >> (64 - part);
    out[whole + k] = static_cast<int64_t>(w);
  }
  return out;
}

/*! \brief floor(a / 2^count). */
inline Words ShiftRight(View a, uint64_t count) {
  if (count / 64 >= a.size()) return Words{a.negative() ? -1 : 0};
  size_t whole = static_cast<size_t>(count / 64);
  unsigned part = static_cast<unsigned>(count % 64);
  Words out(a.size() - whole);
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t w = a.ext(i + whole) >> part;
    if (part != 0) w |= a.ext(i + whole + 1) << (64 - part);
    out[i] = static_cast<int64_t>(w);
  }
  return out;
}

// ---- magnitudes ------------------------------------------------------------
inline void Trim(Digits* d) {
  while (!d->empty() && d->back() == 0) d->pop_back();
}

/*! \brief |a| as digits; *negative gets the sign. */
inline Digits ToDigits(View a, bool* negative) {
  *negative = a.negative();
  Digits d(2 * a.size());
  uint64_t carry = *negative;  // |a| = ~a + 1 for negative a
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t w = *negative ? ~static_cast<uint64_t>(a[i]) : static_cast<uint64_t>(a[i]);
    w += carry;
    carry = carry && w == 0;
    d[2 * i] = static_cast<uint32_t>(w);
    d[2 * i + 1] = static_cast<uint32_t>(w >> 32);
  }
  Trim(&d);
  return d;
}

/*! \brief Words of +-|d| (with room for the sign). */
inline Words FromDigits(const Digits& d, bool negative) {
  Words out(d.size() / 2 + 2, 0);
  for (size_t i = 0; i < d.size(); ++i) {
    out[i / 2] = static_cast<int64_t>(static_cast<uint64_t>(out[i / 2]) |
                                      (static_cast<uint64_t>(d[i]) << (32 * (i % 2))));
  }
  if (negative) {
    uint64_t carry = 1;
    for (int64_t& w : out) {
      uint64_t v = ~static_cast<uint64_t>(w) + carry;
      carry = carry && v == 0;
      w = static_cast<int64_t>(v);
    }
  }
  return out;
}

inline Digits MulDigits(const Digits& x, const Digits& y) {
  if (x.empty() || y.empty()) return Digits();
  Digits z(x.size() + y.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < y.size(); ++j) {
      uint64_t cur = static_cast<uint64_t>(x[i]) * y[j] + z[i + j] + carry;  // < 2^64
      z[i + j] = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    z[i + y.size()] = static_cast<uint32_t>(carry);
  }
  Trim(&z);
  return z;
}

/*! \brief u = q * v + r with 0 <= r < v (v nonzero): Knuth's algorithm D on 32-bit digits. */
inline void DivModDigits(const Digits& u, const Digits& v, Digits* q, Digits* r) {
  constexpr uint64_t kBase = uint64_t{1} << 32;
  const size_t n = v.size();
  if (u.size() < n) {
    q->clear();
    *r = u;
    return;
  }
  if (n == 1) {  // one-digit divisor: schoolbook short division
    q->assign(u.size(), 0);
    uint64_t rem = 0;
    for (size_t i = u.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | u[i];
      (*q)[i] = static_cast<uint32_t>(cur / v[0]);
      rem = cur % v[0];
    }
    Trim(q);
    r->assign(1, static_cast<uint32_t>(rem));
    Trim(r);
    return;
  }
  const size_t m = u.size() - n;
  // normalize so that the divisor's top digit has its high bit set
  unsigned s = 0;
  while ((v[n - 1] << s & 0x80000000u) == 0) ++s;
  auto shifted = [s](const Digits& x, size_t len) {
    Digits out(len, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      uint64_t w = static_cast<uint64_t>(x[i]) << s;
      out[i] |= static_cast<uint32_t>(w);
      if (i + 1 < len) out[i + 1] = static_cast<uint32_t>(w >> 32);
    }
    return out;
  };
  Digits vn = shifted(v, n), un = shifted(u, u.size() + 1);
  q->assign(m + 1, 0);
  for (size_t j = m + 1; j-- > 0;) {
    uint64_t num = (static_cast<uint64_t>(un[j + n]) << 32) | un[j + n - 1];
    uint64_t qhat = num / vn[n - 1], rhat = num % vn[n - 1];
    while (qhat >= kBase || qhat * vn[n - 2] > ((rhat << 32) | un[j + n - 2])) {
      --qhat;
      rhat += vn[n - 1];
      if (rhat >= kBase) break;
    }
    // un[j..j+n] -= qhat * vn
    int64_t borrow = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t p = qhat * vn[i] + carry;
      carry = p >> 32;
      int64_t t = static_cast<int64_t>(un[i + j]) - static_cast<int64_t>(p & 0xFFFFFFFFu) - borrow;
      un[i + j] = static_cast<uint32_t>(t);
      borrow = t < 0;
    }
    int64_t t = static_cast<int64_t>(un[j + n]) - static_cast<int64_t>(carry) - borrow;
    un[j + n] = static_cast<uint32_t>(t);
    if (t < 0) {  // qhat was one too large: add the divisor back
      --qhat;
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t sum = static_cast<uint64_t>(un[i + j]) + vn[i] + c;
        un[i + j] = static_cast<uint32_t>(sum);
        c = sum >> 32;
      }
      un[j + n] = static_cast<uint32_t>(un[j + n] + c);
    }
    (*q)[j] = static_cast<uint32_t>(qhat);
  }
  Trim(q);
  r->assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t w = static_cast<uint64_t>(un[i]) >> s;
    if (s != 0) w |= static_cast<uint64_t>(un[i + 1]) << (32 - s);
    (*r)[i] = static_cast<uint32_t>(w);
  }
  Trim(r);
}

/*! \brief Truncating division (b nonzero): the quotient rounds toward zero, r has a's sign. */
inline void TruncDivMod(View a, View b, Words* q, Words* r) {
  bool na, nb;
  Digits dq, dr;
  DivModDigits(ToDigits(a, &na), ToDigits(b, &nb), &dq, &dr);
  *q = FromDigits(dq, na != nb);
  *r = FromDigits(dr, na);
}

/*! \brief d * mul + add, in place. */
inline void MulAddSmall(Digits* d, uint32_t mul, uint32_t add) {
  uint64_t carry = add;
  for (uint32_t& x : *d) {
    uint64_t cur = static_cast<uint64_t>(x) * mul + carry;
    x = static_cast<uint32_t>(cur);
    carry = cur >> 32;
  }
  if (carry != 0) d->push_back(static_cast<uint32_t>(carry));
}

inline std::string ToDecimal(View a) {
  bool negative;
  Digits d = ToDigits(a, &negative);
  std::string text;
  while (!d.empty()) {  // peel nine decimal digits at a time
    uint64_t rem = 0;
    for (size_t i = d.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | d[i];
      d[i] = static_cast<uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    Trim(&d);
    for (int k = 0; k < 9 && (!d.empty() || rem != 0); ++k, rem /= 10) {
      text.push_back(static_cast<char>('0' + rem % 10));
    }
  }
  if (text.empty()) text = "0";
  if (negative) text.push_back('-');
  std::reverse(text.begin(), text.end());
  return text;
}

/*! \brief Words of the decimal digit string [first, last) (digits only), negated on request. */
inline Words FromDecimal(const char* first, const char* last, bool negative) {
  Digits d;
  while (first != last) {
    uint32_t chunk = 0, scale = 1;
    for (int k = 0; k < 9 && first != last; ++k, ++first) {
      chunk = chunk * 10 + static_cast<uint32_t>(*first - '0');
      scale *= 10;
    }
    MulAddSmall(&d, scale, chunk);
  }
  Trim(&d);
  return FromDigits(d, negative);
}

/*! \brief Nearest double, ties to even; false when it is beyond the finite doubles. */
inline bool ToDouble(View a, double* out) {
  bool negative;
  Digits d = ToDigits(a, &negative);
  size_t bits = 32 * d.size();
  for (uint32_t top = d.empty() ? 0 : d.back(); bits > 0 && (top & 0x80000000u) == 0; top <<= 1) {
    --bits;
  }
  auto bit = [&d](size_t i) { return (d[i / 32] >> (i % 32)) & 1u; };
  uint64_t significand = 0;
  size_t shift = bits > 53 ? bits - 53 : 0;
  for (size_t i = bits; i-- > shift;) significand = (significand << 1) | bit(i);
  if (shift > 0) {
    bool half = bit(shift - 1), sticky = false;
    for (size_t i = 0; i + 1 < shift && !sticky; ++i) sticky = bit(i) != 0;
    if (half && (sticky || (significand & 1))) {
      if (++significand == (uint64_t{1} << 53)) {
        significand >>= 1;
        ++shift;
      }
    }
  }
  if (shift > 1024 - 53) return false;
  double v = std::ldexp(static_cast<double>(significand), static_cast<int>(shift));
  *out = negative ? -v : v;
  return true;
}

/*! \brief Words of trunc(x) for a finite x. */
inline Words FromDouble(double x) {
  int exponent;
  double fraction = std::frexp(std::fabs(x), &exponent);  // |x| = fraction * 2^exponent
  if (exponent <= 0) return Words{0};
  if (exponent <= 53) {
    int64_t v = static_cast<int64_t>(std::ldexp(fraction, exponent));
    return Words{x < 0 ? -v : v};
  }
  const int64_t significand[2] = {static_cast<int64_t>(std::ldexp(fraction, 53)), 0};
  Words w = ShiftLeft(View(significand, 2), static_cast<uint64_t>(exponent - 53));
  if (x < 0) {
    const int64_t zero = 0;
    return AddSub(View(&zero, 1), View(w.data(), w.size()), true);
  }
  return w;
}

}  // namespace bigint
}  // namespace details
TVM_FFI_NS_END

#endif  // TVM_FFI_BIG_INT_DETAILS_H_
