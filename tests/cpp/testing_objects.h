/*
 * tests/cpp/testing_objects.h -- small object hierarchy used across the
 * suite: test.Number <- test.Int / test.Float, plus a fallback-converting
 * PrimExpr.  Each type registers its key on first use.
 */
#ifndef TVMFFI_TESTS_CPP_TESTING_OBJECTS_H_
#define TVMFFI_TESTS_CPP_TESTING_OBJECTS_H_

#include <doctest/doctest.h>
#include <tvm/ffi/tvm_ffi.h>

#include <ostream>
#include <string>
#include <utility>

namespace testing {
namespace ffi = tvm::ffi;

class TNumberObj : public ffi::Object {
 public:
  static constexpr uint32_t _type_child_slots = 10;
  TVM_FFI_DECLARE_OBJECT_INFO("test.Number", TNumberObj, ffi::Object);
};
class TNumber : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TNumber, ffi::ObjectRef, TNumberObj);
};

class TIntObj : public TNumberObj {
 public:
  int64_t value;
  explicit TIntObj(int64_t v) : value(v) {}
  int64_t GetValue() const { return value; }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.Int", TIntObj, TNumberObj);
};
class TInt : public TNumber {
 public:
  explicit TInt(int64_t v) { data_ = ffi::make_object<TIntObj>(v); }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TInt, TNumber, TIntObj);
};

class TFloatObj : public TNumberObj {
 public:
  double value;
  explicit TFloatObj(double v) : value(v) {}
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.Float", TFloatObj, TNumberObj);
};
class TFloat : public TNumber {
 public:
  explicit TFloat(double v) { data_ = ffi::make_object<TFloatObj>(v); }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TFloat, TNumber, TFloatObj);
};

/* An expression that converts from bool, int, float and string. */
class TPrimExprObj : public ffi::Object {
 public:
  std::string dtype;
  double value;
  TPrimExprObj(std::string d, double v) : dtype(std::move(d)), value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.PrimExpr", TPrimExprObj, ffi::Object);
};
class TPrimExpr : public ffi::ObjectRef {
 public:
  TPrimExpr(std::string dtype, double v) { data_ = ffi::make_object<TPrimExprObj>(dtype, v); }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TPrimExpr, ffi::ObjectRef, TPrimExprObj);
};

/* An object with a base padded in front of Object (handle != C++ address). */
struct Pad {
  int64_t pad[3] = {1, 2, 3};
};
class TPaddedObj : public Pad, public ffi::Object {
 public:
  int64_t x = 42;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.Padded", TPaddedObj, ffi::Object);
};

/* Strong count of a live object (through the header, as C would read it). */
inline uint64_t RefCount(const ffi::ObjectRef& r) { return r.defined() ? r->use_count() : 0; }

/*! \brief A new T made from args, as a plain ObjectRef (for types with no ref class). */
template <typename T, typename... Args>
inline ffi::ObjectRef MakeRef(Args&&... args) {
  return ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::ObjectRef>(
      ffi::make_object<T>(std::forward<Args>(args)...));
}
}  // namespace testing

namespace tvm {
namespace ffi {
template <>
inline constexpr bool use_default_type_traits_v<::testing::TPrimExpr> = false;
template <>
struct TypeTraits<::testing::TPrimExpr>
    : public ObjectRefWithFallbackTraitsBase<::testing::TPrimExpr, StrictBool, int64_t, double,
                                             String> {
  static ::testing::TPrimExpr ConvertFallbackValue(StrictBool v) {
    return ::testing::TPrimExpr("bool", static_cast<bool>(v));
  }
  static ::testing::TPrimExpr ConvertFallbackValue(int64_t v) {
    return ::testing::TPrimExpr("int64", static_cast<double>(v));
  }
  static ::testing::TPrimExpr ConvertFallbackValue(double v) {
    return ::testing::TPrimExpr("float32", v);
  }
  static ::testing::TPrimExpr ConvertFallbackValue(String v) {
    return ::testing::TPrimExpr(std::string(v), 0);
  }
};
}  // namespace ffi
}  // namespace tvm

/* Expects `stmt` to throw ffi::Error of `kind` whose message equals `msg`. */
#define CHECK_THROWS_FFI(stmt, want_kind, want_msg)            \
  do {                                                         \
    bool __thrown = false;                                     \
    try {                                                      \
      stmt;                                                    \
    } catch (const ::tvm::ffi::Error& __e) {                   \
      __thrown = true;                                         \
      CHECK_EQ(__e.kind(), std::string(want_kind));            \
      CHECK_EQ(__e.message(), std::string(want_msg));          \
    }                                                          \
    CHECK_MESSAGE(__thrown, "expected an ffi::Error: " #stmt); \
  } while (0)

/* Like CHECK_THROWS_FFI but the message only has to contain `part`. */
#define CHECK_THROWS_FFI_HAS(stmt, want_kind, part)                                \
  do {                                                                             \
    bool __thrown = false;                                                         \
    try {                                                                          \
      stmt;                                                                        \
    } catch (const ::tvm::ffi::Error& __e) {                                       \
      __thrown = true;                                                             \
      CHECK_EQ(__e.kind(), std::string(want_kind));                                \
      CHECK_MESSAGE(__e.message().find(part) != std::string::npos, __e.message()); \
    }                                                                              \
    CHECK_MESSAGE(__thrown, "expected an ffi::Error: " #stmt);                     \
  } while (0)

/* The raised-error slot is empty (no stale error left behind). */
inline bool RaisedSlotIsClean() {
  TVMFFIObjectHandle h = nullptr;
  TVMFFIErrorMoveFromRaised(&h);
  if (h != nullptr) TVMFFIObjectDecRef(h);
  return h == nullptr;
}

#endif  // TVMFFI_TESTS_CPP_TESTING_OBJECTS_H_
