// tests/cpp/test_big_int.cc -- BigInt (tvm/ffi/big_int.h) over the runtime's ffi.BigInt.
// Arithmetic is checked against identities that hold for any integers (a == q*b + r, ...)
// over operands of many sizes and signs, plus fixed values worked out by hand.
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/extra/dataclass.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::BigInt;
using ffi::details::BigIntUnsafe;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::string Text(const BigInt& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
BigInt Parse(const std::string& text) {
  std::istringstream is(text);
  BigInt v;
  is >> v;
  REQUIRE_FALSE(is.fail());
  return v;
}
BigInt Pow2(int k) { return BigInt(1) << k; }
std::string KindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    return e.kind();
  }
  return "no error";
}

// Operands: zero, the int64 edges, and multiword values of both signs.
std::vector<BigInt> Operands() {
  std::vector<BigInt> v = {0, 1, -1, 3, -7, kMax, kMin, BigInt(kMax) + 1, BigInt(kMin) - 1};
  uint64_t state = 0x9E3779B97F4A7C15ull;  // xorshift: deterministic multiword values
  for (int words = 1; words <= 5; ++words) {
    BigInt x = 0;
    for (int i = 0; i < words; ++i) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      x = (x << 64) + BigInt(state);
    }
    v.push_back(x);
    v.push_back(-x);
    v.push_back(x >> 17);
  }
  return v;
}

TEST_SUITE("big_int") {
  TEST_CASE("values that fit int64 stay Int, others become ffi.BigInt") {
    CHECK_EQ(Any(BigInt(kMax)).type_index(), kTVMFFIInt);
    Any over = BigInt(kMax) + 1;
    CHECK_EQ(over.type_index(), kTVMFFIBigInt);
    CHECK_EQ(over.GetTypeKey(), "ffi.BigInt");
    CHECK_EQ(Any(BigInt(kMin) - 1).type_index(), kTVMFFIBigInt);
    CHECK_EQ(Any((BigInt(kMax) + 1) - 1).type_index(), kTVMFFIInt);  // demoted again
    CHECK_EQ(Text(BigInt(kMax) + 1), "9223372036854775808");
    CHECK_EQ(Text(BigInt(kMin) - 1), "-9223372036854775809");
    CHECK_EQ(Text(BigInt(std::numeric_limits<uint64_t>::max())), "18446744073709551615");
    CHECK_EQ(KindOf([] { (void)static_cast<int64_t>(BigInt(kMax) + 1); }), "OverflowError");
    CHECK_EQ(sizeof(BigInt), sizeof(TVMFFIAny));
  }

  TEST_CASE("INT64_MIN edges") {
    BigInt min = kMin, two63 = Pow2(63);
    CHECK_EQ(-min, two63);
    CHECK_FALSE(BigIntUnsafe::CheckInt64(-min));
    CHECK_EQ(min / -1, two63);
    CHECK_EQ(min * -1, two63);
    CHECK_EQ(min % -1, 0);
    CHECK_EQ(floordiv(min, -1), two63);
    CHECK_EQ(floormod(min, -1), 0);
    CHECK_EQ(floordiv(min, 2), kMin / 2);
    CHECK_EQ(min >> 63, -1);
    CHECK_EQ(min >> 64, -1);
    CHECK_EQ(min << 1, -Pow2(64));
    CHECK_EQ(-two63, min);
    CHECK(BigIntUnsafe::CheckInt64(-two63));
    CHECK_EQ(~min, kMax);
    CHECK_EQ(min.as<int64_t>(), kMin);
    CHECK_FALSE(two63.as<int64_t>().has_value());
    CHECK_EQ(two63.as<uint64_t>(), uint64_t{1} << 63);
  }

  TEST_CASE("uint64 operands stay exact") {
    const uint64_t umax = std::numeric_limits<uint64_t>::max();
    CHECK_EQ(BigInt(1) + umax, Pow2(64));
    CHECK_EQ(umax - BigInt(umax), 0);
    CHECK(BigInt(-1) < umax);
  }

  TEST_CASE("division identities over mixed sizes and signs") {
    std::vector<BigInt> ops = Operands();
    for (const BigInt& a : ops) {
      for (const BigInt& b : ops) {
        if (!b) continue;
        BigInt q = a / b, r = a % b;
        CHECK_EQ(q * b + r, a);
        CHECK(r * r < b * b);                         // |r| < |b|
        CHECK((r == 0 || (r < 0) == (a < 0)));        // truncation: r has a's sign
        BigInt fq = floordiv(a, b), fr = floormod(a, b);
        CHECK_EQ(fq * b + fr, a);
        CHECK((fr == 0 || (fr < 0) == (b < 0)));      // floor: r has b's sign
        CHECK_EQ(fq, r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q);
        CHECK_EQ(truncdiv(a, b), q);
        CHECK_EQ(truncmod(a, b), r);
      }
    }
  }

  TEST_CASE("division by hand") {
    // 2^255 + 13 over 2^128 + 1, and negative variants (worked out by hand)
    BigInt n = Pow2(255) + 13, d = Pow2(128) + 1;
    CHECK_EQ(n / d, Pow2(127) - 1);
    CHECK_EQ(n % d, Pow2(127) + 14);  // (2^128 + 1)(2^127 - 1) = 2^255 - 2^127 - 1
    CHECK_EQ(-n / d, -(Pow2(127) - 1));
    CHECK_EQ(-n % d, -(Pow2(127) + 14));
    CHECK_EQ(floordiv(-n, d), -Pow2(127));
    CHECK_EQ(floormod(-n, d), Pow2(127) - 13);
  }

  TEST_CASE("a zero divisor is a ZeroDivisionError") {
    for (const BigInt& a : {BigInt(0), BigInt(5), Pow2(200), -Pow2(200)}) {
      CHECK_EQ(KindOf([&] { (void)(a / 0); }), "ZeroDivisionError");
      CHECK_EQ(KindOf([&] { (void)(a % BigInt(0)); }), "ZeroDivisionError");
      CHECK_EQ(KindOf([&] { (void)floordiv(a, 0); }), "ZeroDivisionError");
      CHECK_EQ(KindOf([&] { (void)floormod(a, BigInt(0)); }), "ZeroDivisionError");
    }
    const int64_t zero = 0;
    BigInt wide = Pow2(99);
    CHECK_EQ(KindOf([&] {
               (void)ffi::details::int_ops::DivRemFallback(BigIntUnsafe::GetArrayView(wide),
                                                           BigIntUnsafe::GetArrayView(zero));
             }),
             "ZeroDivisionError");
  }

  TEST_CASE("bitwise operations act on two's complement") {
    std::vector<BigInt> ops = Operands();
    for (const BigInt& a : ops) {
      CHECK_EQ(~a, -a - 1);
      CHECK_EQ(a & -1, a);
      CHECK_EQ(a | 0, a);
      CHECK_EQ(a ^ a, 0);
      for (const BigInt& b : ops) {
        CHECK_EQ((a & b) + (a | b), a + b);
        CHECK_EQ(a ^ b, (a | b) - (a & b));
        CHECK_EQ(~(a & b), ~a | ~b);
      }
    }
    CHECK_EQ(-Pow2(64) & (Pow2(64) - 1), 0);
    CHECK_EQ(-Pow2(64) | 5, -Pow2(64) + 5);
  }

  TEST_CASE("shifts: floor semantics, negative and huge counts") {
    for (const BigInt& a : Operands()) {
      for (int k : {0, 1, 31, 63, 64, 65, 130, 300}) {
        CHECK_EQ(a << k, a * Pow2(k));
        CHECK_EQ(a >> k, floordiv(a, Pow2(k)));
        CHECK_EQ((a << k) >> k, a);
      }
    }
    BigInt huge = Pow2(255);
    CHECK_EQ(huge >> huge, 0);
    CHECK_EQ(-huge >> huge, -1);
    CHECK_EQ(BigInt(0) << huge, 0);
    CHECK_EQ(KindOf([&] { (void)(BigInt(1) << huge); }), "OverflowError");
    CHECK_EQ(KindOf([&] { (void)(BigInt(1) << (int64_t{1} << 40)); }), "OverflowError");
    CHECK_EQ(KindOf([&] { (void)(huge << -1); }), "ValueError");
    CHECK_EQ(KindOf([&] { (void)(BigInt(0) >> -huge); }), "ValueError");
    CHECK_EQ(BigInt(5) >> kMax, 0);
  }

  TEST_CASE("double conversions") {
    CHECK_EQ(BigInt(-7.9), -7);
    CHECK_EQ(BigInt(std::ldexp(1.0, 63)), Pow2(63));
    CHECK_EQ(BigInt(-std::ldexp(1.0, 63)), kMin);
    CHECK_EQ(BigInt(std::ldexp(3.0, 200)), 3 * Pow2(200));
    CHECK_EQ(BigInt(-std::ldexp(1.5, 70)), -3 * Pow2(69));
    CHECK_EQ(KindOf([] { (void)BigInt(std::nan("")); }), "ValueError");
    CHECK_EQ(KindOf([] { (void)BigInt(-HUGE_VAL); }), "OverflowError");
    CHECK_EQ(static_cast<double>(Pow2(200)), std::ldexp(1.0, 200));
    CHECK_EQ(static_cast<double>(-Pow2(200)), -std::ldexp(1.0, 200));
    // 2^64 + 2^11 is halfway between doubles: ties to even rounds down, one more rounds up
    CHECK_EQ(static_cast<double>(Pow2(64) + Pow2(11)), std::ldexp(1.0, 64));
    CHECK_EQ(static_cast<double>(Pow2(64) + Pow2(11) + 1),
             std::ldexp(1.0, 64) + std::ldexp(1.0, 12));
    CHECK_EQ(static_cast<double>(Pow2(64) + 3 * Pow2(11)),
             std::ldexp(1.0, 64) + std::ldexp(1.0, 13));
    CHECK_EQ(static_cast<double>(BigInt(std::numeric_limits<double>::max())),
             std::numeric_limits<double>::max());
    CHECK_EQ(KindOf([] { (void)static_cast<double>(Pow2(1024)); }), "OverflowError");
  }

  TEST_CASE("decimal text and streams") {
    CHECK_EQ(Text(Pow2(200)), "1606938044258990275541962092341162602522202993782792835301376");
    CHECK_EQ(Parse("-1606938044258990275541962092341162602522202993782792835301376"), -Pow2(200));
    CHECK_EQ(Parse("+000000000000000000000000000042"), 42);
    for (const BigInt& a : Operands()) CHECK_EQ(Parse(Text(a)), a);
    std::istringstream bad("- 5");
    BigInt kept = 9;
    bad >> kept;
    CHECK(bad.fail());
    CHECK_EQ(kept, 9);
  }

  TEST_CASE("objects cross between the header and the runtime") {
    // made by the runtime (its deleter), read by the header
    int64_t words[] = {0, 0, 1};
    TVMFFIByteArray bytes{reinterpret_cast<const char*>(words), sizeof(words)};
    TVMFFIAny raw;
    REQUIRE_EQ(TVMFFIBigIntFromByteArray(&bytes, &raw), 0);
    BigInt from_c = ffi::details::AnyUnsafe::MoveTVMFFIAnyRawToAny(raw).cast<BigInt>();
    CHECK_EQ(from_c, Pow2(128));
    CHECK_EQ(from_c + 1, Pow2(128) + 1);
    // made by the header, read by the runtime (content words, repr, map hashing)
    BigInt mine = -(Pow2(130) + 5);
    Any held = mine;
    TVMFFIByteArray content =
        TVMFFIBigIntGetContentByteArray(ffi::details::AnyUnsafe::GetRaw(&held));
    auto view = BigIntUnsafe::GetArrayView(mine);
    REQUIRE_EQ(content.size, view.size() * 8);
    CHECK_EQ(std::memcmp(content.data, view.data(), content.size), 0);
    CHECK_EQ(std::string(ffi::ReprPrint(held)), Text(mine));
    ffi::Map<BigInt, int> m{{mine, 1}};
    CHECK_EQ(m.at(-(Pow2(130) + 5)), 1);
  }

  TEST_CASE("recursive ordering puts Int and BigInt on one line") {
    BigInt above = BigInt(kMax) + 1, below = BigInt(kMin) - 1;
    CHECK(ffi::RecursiveLt(kMax, above));
    CHECK_FALSE(ffi::RecursiveLt(above, kMax));
    CHECK(ffi::RecursiveLt(below, kMin));
    CHECK(ffi::RecursiveLt(below, 0));
    CHECK_FALSE(ffi::RecursiveEq(kMax, above));
    CHECK(ffi::RecursiveLt(ffi::Array<Any>{1, above}, ffi::Array<Any>{1, above + 1}));
    CHECK_EQ(KindOf([&] { (void)ffi::RecursiveLt(1.0, above); }), "TypeError");
  }

  TEST_CASE("Any round trip and casts") {
    Any a = Pow2(100);
    CHECK_EQ(a.cast<BigInt>(), Pow2(100));
    CHECK_EQ(Any(int64_t{5}).cast<BigInt>(), BigInt(5));
    CHECK_EQ(Any(true).cast<BigInt>(), 1);
    CHECK_THROWS_AS(a.cast<int64_t>(), ffi::Error);
    CHECK_THROWS_AS(Any(ffi::String("x")).cast<BigInt>(), ffi::Error);
    BigInt moved = Pow2(70);
    Any taken(std::move(moved));
    CHECK_EQ(moved, 0);  // NOLINT(bugprone-use-after-move): a moved-from BigInt is zero
    CHECK_EQ(taken.cast<BigInt>(), Pow2(70));
  }
}
}  // namespace
