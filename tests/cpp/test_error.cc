// tests/cpp/test_error.cc -- Error, TVM_FFI_THROW and the check macros.
#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;

// One line: the backtrace must name the line kThrowLine holds.
// clang-format off
const int kThrowLine = __LINE__; void ThrowHere() { TVM_FFI_THROW(RuntimeError) << "test" << 0; }
// clang-format on

TEST_SUITE("error") {
  TEST_CASE("TVM_FFI_THROW carries kind, message and a backtrace naming this line") {
    try {
      ThrowHere();
      FAIL("no throw");
    } catch (const ffi::Error& e) {
      CHECK_EQ(e.kind(), "RuntimeError");
      CHECK_EQ(e.message(), "test0");
      CHECK_EQ(std::string(e.what()), "test0");
      std::string full = e.FullMessage();
      CHECK(full.rfind("Traceback (most recent call last):\n", 0) == 0);
      CHECK(full.find("test_error.cc") != std::string::npos);
      CHECK(full.find("line " + std::to_string(kThrowLine)) != std::string::npos);
      CHECK(full.find("ThrowHere") != std::string::npos);
      CHECK(full.find("RuntimeError: test0\n") != std::string::npos);
    }
  }

  TEST_CASE("ICHECK forms") {
    CHECK_THROWS_FFI_HAS(TVM_FFI_ICHECK_GT(2, 3), "InternalError", "2 > 3");
    CHECK_THROWS_FFI(TVM_FFI_ICHECK_EQ(1, 2) << "hello", "InternalError",
                     "Check failed: 1 == 2 (1 vs. 2) : hello");
    int value = -5;
    CHECK_THROWS_FFI_HAS(TVM_FFI_CHECK(value >= 0, ValueError) << "got " << value, "ValueError",
                         "Check failed: (value >= 0) is false");
    CHECK_THROWS_FFI_HAS(TVM_FFI_CHECK(value >= 0, ValueError) << "got " << value, "ValueError",
                         "got -5");
    CHECK_THROWS_FFI_HAS(TVM_FFI_CHECK_NE(3, 3, ValueError), "ValueError", "3 vs. 3");
    CHECK_THROWS_FFI_HAS(TVM_FFI_CHECK_LT(5, 3, IndexError), "IndexError", "5 < 3");
    CHECK_THROWS_FFI_HAS(TVM_FFI_CHECK_GE(2, 5, TypeError), "TypeError", "2 vs. 5");
    CHECK_THROWS_FFI_HAS(TVM_FFI_ICHECK(1 + 1 == 3), "InternalError",
                         "Check failed: (1 + 1 == 3) is false");
    // passing checks do nothing and evaluate operands once
    int calls = 0;
    auto once = [&calls]() { return ++calls; };
    TVM_FFI_ICHECK_EQ(once(), 1);
    CHECK_EQ(calls, 1);
    TVM_FFI_ICHECK_LE(1u, 2) << "unsigned vs signed compiles";
  }

  TEST_CASE("CHECK_NOTNULL is an expression") {
    int x = 3;
    int* p = &x;
    CHECK_EQ(TVM_FFI_CHECK_NOTNULL(p, ValueError), p);
    int* null = nullptr;
    CHECK_THROWS_FFI(TVM_FFI_CHECK_NOTNULL(null, ValueError), "ValueError",
                     "Check not null: null ");
    CHECK_THROWS_FFI_HAS(TVM_FFI_ICHECK_NOTNULL(null), "InternalError", "Check not null");
  }

  TEST_CASE("dtype operands print their names") {
    DLDataType f32{kDLFloat, 32, 1};
    CHECK_THROWS_FFI_HAS(TVM_FFI_ICHECK_EQ(f32, DLDataType{kDLInt, 8, 1}), "InternalError",
                         "(float32 vs. int8)");
  }

  TEST_CASE("DCHECK follows NDEBUG") {
#ifdef NDEBUG
    TVM_FFI_DCHECK(false);
    int* np = nullptr;
    CHECK(TVM_FFI_DCHECK_NOTNULL(np) == nullptr);
#else
    CHECK_THROWS_FFI_HAS(TVM_FFI_DCHECK(false), "InternalError", "Check failed");
    CHECK_THROWS_FFI_HAS(TVM_FFI_DCHECK_EQ(1, 2), "InternalError", "1 vs. 2");
#endif
  }

  TEST_CASE("traceback order, cause chain and Any round trip") {
    ffi::Error e("TypeError", "here", "test0\ntest1\ntest2\n");
    CHECK_EQ(e.TracebackMostRecentCallLast(), "test2\ntest1\ntest0\n");
    CHECK_EQ(e.FullMessage(),
             "Traceback (most recent call last):\ntest2\ntest1\ntest0\nTypeError: here\n");
    ffi::Error caused("ValueError", "cause", "t", e, std::nullopt);
    REQUIRE(caused.cause_chain().has_value());
    CHECK_EQ(caused.cause_chain()->kind(), e.kind());
    CHECK_FALSE(caused.extra_context().has_value());
    ffi::Any any = e;
    std::optional<ffi::Error> back = any.as<ffi::Error>();
    REQUIRE(back.has_value());
    CHECK_EQ(back->kind(), "TypeError");
    CHECK_EQ(back->message(), "here");
    CHECK_EQ(ffi::EnvErrorAlreadySet().kind(), "EnvErrorAlreadySet");
  }

  TEST_CASE("errors raised through the C slot") {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "msg");
    ffi::Error e = ffi::details::MoveFromSafeCallRaised();
    CHECK_EQ(e.kind(), "ValueError");
    CHECK_EQ(e.message(), "msg");
    const char* parts[] = {"Mismatched", nullptr, " got Tensor"};
    TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 3);
    ffi::Error p = ffi::details::MoveFromSafeCallRaised();
    CHECK_EQ(p.kind(), "TypeError");
    CHECK_EQ(p.message(), "Mismatched got Tensor");
    CHECK(RaisedSlotIsClean());
  }

  TEST_CASE("SAFE_CALL converts exceptions and keeps the slot clean on success") {
    auto ok = []() -> int {
      TVM_FFI_SAFE_CALL_BEGIN();
      TVM_FFI_SAFE_CALL_END();
    };
    CHECK_EQ(ok(), 0);
    CHECK(RaisedSlotIsClean());
    auto early = []() -> int {
      TVM_FFI_SAFE_CALL_BEGIN();
      return 7;
      TVM_FFI_SAFE_CALL_END();
    };
    CHECK_EQ(early(), 7);
    auto ffi_err = []() -> int {
      TVM_FFI_SAFE_CALL_BEGIN();
      TVM_FFI_THROW(KeyError) << "missing " << 3;
      TVM_FFI_SAFE_CALL_END();
    };
    CHECK_EQ(ffi_err(), -1);
    CHECK_THROWS_FFI(TVM_FFI_CHECK_SAFE_CALL(-1), "KeyError", "missing 3");
    auto std_err = []() -> int {
      TVM_FFI_SAFE_CALL_BEGIN();
      throw std::out_of_range("oops");
      TVM_FFI_SAFE_CALL_END();
    };
    CHECK_EQ(std_err(), -1);
    CHECK_THROWS_FFI(TVM_FFI_CHECK_SAFE_CALL(-1), "InternalError", "oops");
    CHECK(RaisedSlotIsClean());
  }
  TEST_CASE("Expected: strict reinterpretation and the returning check macros") {
    ffi::Expected<ffi::Any> any_int = ffi::Any(1);
    ffi::Error e = any_int.as_or_error<ffi::String>().error();
    CHECK_EQ(e.kind(), "TypeError");
    CHECK_EQ(e.message(), "Cannot treat type `int` as type `str`");
    CHECK_EQ(any_int.as_or_error<int64_t>().value(), 1);
    // converting Expected<int> -> Expected<double> converts the value, keeps an error as is
    ffi::Expected<double> d = ffi::Expected<int>(2);
    CHECK_EQ(d.value(), 2.0);

    auto lt = [](int x) -> ffi::Expected<void> {
      TVM_FFI_RET_CHECK_LT(x, 3, ValueError) << "x=" << x;
      TVM_FFI_RET_ICHECK_NE(x, 1);
      return {};
    };
    CHECK(lt(2).is_ok());
    ffi::Error lt_err = lt(5).error();
    CHECK_EQ(lt_err.kind(), "ValueError");
    CHECK_EQ(lt_err.message(), "Check failed: x < 3 (5 vs. 3) : x=5");
    CHECK_EQ(lt(1).error().kind(), "InternalError");
    // an Expected<void> crosses a Function as None or the Error itself
    ffi::Function f = ffi::Function::FromTyped(lt);
    CHECK_EQ(f(2).type_index(), ffi::TypeIndex::kTVMFFINone);
    CHECK_EQ(f(7).as<ffi::Error>()->kind(), "ValueError");
    CHECK(f.CallExpected<void>(2).is_ok());
    CHECK_EQ(f.CallExpected<void>(7).error().message(), "Check failed: x < 3 (7 vs. 3) : x=7");
    CHECK_EQ(ffi::Function::FromTyped([]() { return 1; }).CallExpected<void>().error().kind(),
             "TypeError");
    CHECK(RaisedSlotIsClean());
  }
}
}  // namespace
