// tests/cpp/test_big_int.cc -- BigInt (tvm/ffi/big_int.h) over the runtime's ffi.BigInt.
#include <tvm/ffi/big_int.h>

#include <limits>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::BigInt;

BigInt Pow2(int k) {
  BigInt r = 1;
  for (int i = 0; i < k; ++i) r = r * 2;
  return r;
}

TEST_SUITE("big_int") {
  TEST_CASE("values that fit int64 stay Int, others become ffi.BigInt") {
    const int64_t max = std::numeric_limits<int64_t>::max();
    const int64_t min = std::numeric_limits<int64_t>::min();
    CHECK_EQ(Any(BigInt(max)).type_index(), kTVMFFIInt);
    Any over = BigInt(max) + 1;
    CHECK_EQ(over.type_index(), kTVMFFIBigInt);
    CHECK_EQ(Any(BigInt(min) - 1).type_index(), kTVMFFIBigInt);
    CHECK_EQ(Any((BigInt(max) + 1) - 1).type_index(), kTVMFFIInt);  // demoted again
    CHECK_EQ((BigInt(max) + 1).ToString(), "9223372036854775808");
    CHECK_EQ((BigInt(min) - 1).ToString(), "-9223372036854775809");
    CHECK_EQ(BigInt(std::numeric_limits<uint64_t>::max()).ToString(), "18446744073709551615");
    CHECK_THROWS_AS((BigInt(max) + 1).ToInt64(), ffi::Error);
  }

  TEST_CASE("arithmetic and ordering") {
    BigInt big = Pow2(200);
    CHECK_EQ(big.ToString(),
             "1606938044258990275541962092341162602522202993782792835301376");
    CHECK_EQ(big - big, BigInt(0));
    CHECK_EQ((-big) * (-big), Pow2(400));
    CHECK_EQ((big * 3 - big) , big * 2);
    CHECK(-big < BigInt(-1));
    CHECK(big > BigInt(std::numeric_limits<int64_t>::max()));
    CHECK_EQ(BigInt(-7) * BigInt(6), BigInt(-42));
    CHECK_EQ(big.hash(), (Pow2(199) * 2).hash());
  }

  TEST_CASE("Any round trip and casts") {
    Any a = Pow2(100);
    CHECK_EQ(a.cast<BigInt>(), Pow2(100));
    CHECK_EQ(Any(int64_t{5}).cast<BigInt>(), BigInt(5));
    CHECK_THROWS_AS(a.cast<int64_t>(), ffi::Error);
    CHECK_THROWS_AS(Any(ffi::String("x")).cast<BigInt>(), ffi::Error);
    std::vector<int64_t> w = Pow2(64).words();
    CHECK_EQ(w.size(), 2u);
    CHECK_EQ(w[0], 0);
    CHECK_EQ(w[1], 1);
  }
}
}  // namespace
