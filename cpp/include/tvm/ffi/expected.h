/*
 * tvm/ffi/expected.h -- Expected<T>: a T or an Error in one Any, for
 * error-as-value code paths (Function::CallExpected, typed returns), and the
 * TVM_FFI_UNEXPECTED / TVM_FFI_RET_CHECK* macros that return an error instead
 * of throwing it (man 7 tvm_ffi_cpp).
 */
#ifndef TVM_FFI_EXPECTED_H_
#define TVM_FFI_EXPECTED_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function_details.h>

TVM_FFI_NS_BEGIN

/*! \brief Marks an error value for constructing an Expected. */
template <typename E = Error>
class Unexpected {
  static_assert(std::is_base_of_v<Error, std::remove_cv_t<E>>, "Unexpected holds an ffi::Error");

 public:
  explicit Unexpected(E error) : error_(std::move(error)) {}
  const E& error() const& noexcept { return error_; }
  E& error() & noexcept { return error_; }
  E&& error() && noexcept { return std::move(error_); }

 private:
  E error_;
};
template <typename E>
Unexpected(E) -> Unexpected<E>;

template <typename T>
class Expected;

namespace details {
struct ExpectedUnsafe;
template <typename T>
inline constexpr bool is_expected_v = false;
template <typename T>
inline constexpr bool is_expected_v<Expected<T>> = true;
template <typename T>
inline constexpr bool is_unexpected_v = false;
template <typename E>
inline constexpr bool is_unexpected_v<Unexpected<E>> = true;
/* A value of Source may be adopted as a Target without looking at it. */
template <typename Target, typename Source>
inline constexpr bool expected_adopts_v =
    std::is_same_v<Target, Any> || type_subsumes_v<Target, Source>;
[[noreturn]] inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowBadExpectedAccess() {
  TVM_FFI_THROW(RuntimeError) << "Bad expected access: contains value, not error";
  TVM_FFI_UNREACHABLE();
}
template <typename U>
TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT Error CannotTreatError(const Any& data) {
  std::string msg =
      "Cannot treat type `" + data.GetTypeKey() + "` as type `" + Type2Str<U>::v() + "`";
  return MakeError("TypeError", msg.data(), msg.size(), nullptr);
}
}  // namespace details

namespace details {
/* What every Expected has: the one Any and the queries on it. */
class ExpectedBase {
 public:
  /*! \brief The stored type index (kTVMFFIError for an error). */
  int32_t type_index() const noexcept { return data_.type_index(); }
  bool is_ok() const noexcept { return data_.type_index() != kTVMFFIError; }
  bool is_err() const noexcept { return data_.type_index() == kTVMFFIError; }
  bool has_value() const noexcept { return is_ok(); }
  /// The error; throws RuntimeError when there is none.
  Error error() const& {
    if (is_ok()) ThrowBadExpectedAccess();
    return AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
  }
  Error error() && {
    if (is_ok()) ThrowBadExpectedAccess();
    return AnyUnsafe::MoveFromAnyAfterCheck<Error>(std::move(data_));
  }

 protected:
  template <typename>
  friend class ::tvm::ffi::Expected;
  friend struct ExpectedUnsafe;
  template <typename, typename>
  friend struct ::tvm::ffi::TypeTraits;
  ExpectedBase() = default;
  explicit ExpectedBase(Any data) noexcept : data_(std::move(data)) {}
  Any data_;
};
}  // namespace details

template <typename T, typename U>
struct type_subsumes<Expected<T>, Expected<U>> : std::bool_constant<type_subsumes_v<T, U>> {};

/*!
 * \brief Either a T or an Error, held in one Any (the Error when its type index
 *  is kTVMFFIError).  Converts to and from Any as the value or the Error itself.
 */
template <typename T>
class Expected : public details::ExpectedBase {
  static_assert(!std::is_base_of_v<Error, T>, "Expected<Error> is not allowed");

 public:
  Expected(T value) : ExpectedBase(Any(std::move(value))) {}  // NOLINT(*)
  /* Anything implicitly convertible to T (`return Unchanged();` for Expected<UnchangedOr<T>>). */
  template <typename U, typename = std::enable_if_t<!details::is_expected_v<std::decay_t<U>> &&
                                                    !details::is_unexpected_v<std::decay_t<U>> &&
                                                    !std::is_base_of_v<Error, std::decay_t<U>> &&
                                                    std::is_convertible_v<U, T>>>
  Expected(U&& value) : ExpectedBase(Any(T(std::forward<U>(value)))) {}  // NOLINT(*)
  /* Another Expected: adopted as is when its values are already T's, else its value converted. */
  template <typename U,
            typename = std::enable_if_t<!std::is_void_v<U> && (details::expected_adopts_v<T, U> ||
                                                               std::is_convertible_v<U, T>)>>
  Expected(Expected<U> other) {  // NOLINT(*)
    if constexpr (details::expected_adopts_v<T, U>) {
      data_ = std::move(other.data_);
    } else if (other.is_err()) {
      data_ = std::move(other.data_);
    } else {
      data_ = Any(T(std::move(other).value()));
    }
  }
  Expected(Error error) : ExpectedBase(Any(std::move(error))) {}  // NOLINT(*)
  template <typename E>
  Expected(Unexpected<E> u) : ExpectedBase(Any(Error(std::move(u).error()))) {}  // NOLINT(*)

  /// The value; throws the stored Error when there is none.
  T value() const& {
    if (TVM_FFI_PREDICT_FALSE(is_err()))
      throw details::AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
    return details::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
  }
  T value() && {
    if (TVM_FFI_PREDICT_FALSE(is_err()))
      throw details::AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
    return details::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& def) const& {
    if (is_ok()) return details::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
    return T(std::forward<U>(def));
  }
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& def) && {
    if (is_ok()) return details::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
    return T(std::forward<U>(def));
  }
  /*!
   * \brief The same value or error as an Expected<U>, with no conversion: a
   *  value that is not exactly a U gives a TypeError (and the source is kept).
   */
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<U, std::decay_t<U>> && !std::is_base_of_v<Error, U> &&
                            (TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>)>>
  Expected<U> as_or_error() const& {
    if (is_ok() && !details::AnyUnsafe::CheckAnyStrict<U>(data_)) {
      return details::CannotTreatError<U>(data_);
    }
    return Expected<U>(UnsafeInit{}, Any(data_));
  }
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<U, std::decay_t<U>> && !std::is_base_of_v<Error, U> &&
                            (TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>)>>
  Expected<U> as_or_error() && {
    if (is_ok() && !details::AnyUnsafe::CheckAnyStrict<U>(data_)) {
      return details::CannotTreatError<U>(data_);
    }
    return Expected<U>(UnsafeInit{}, std::move(data_));
  }
  /*! \brief Adopts `data`, which the caller guarantees to be a T or an Error. */
  Expected(UnsafeInit, Any data) noexcept : ExpectedBase(std::move(data)) {}

 private:
  Expected() = default;
};

/*! \brief Success (no value) or an Error. */
template <>
class Expected<void> : public details::ExpectedBase {
 public:
  Expected() = default;
  Expected(Error error) : ExpectedBase(Any(std::move(error))) {}  // NOLINT(*)
  template <typename E>
  Expected(Unexpected<E> u) : ExpectedBase(Any(Error(std::move(u).error()))) {}  // NOLINT(*)
  void value() const& {
    if (is_err()) throw details::AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
  }
  void value() && {
    if (is_err()) throw details::AnyUnsafe::MoveFromAnyAfterCheck<Error>(std::move(data_));
  }
  /*! \brief Adopts `data`, which the caller guarantees to be None or an Error. */
  Expected(UnsafeInit, Any data) noexcept : ExpectedBase(std::move(data)) {}
};

namespace details {
/*! \brief Raw access to an Expected's storage, for code that has checked its state. */
struct ExpectedUnsafe {
  /* Adopts an owned payload: the caller guarantees it is a T or an Error. */
  template <typename T>
  static Expected<T> MoveFromTVMFFIAny(TVMFFIAny raw) noexcept {
    return Expected<T>(UnsafeInit{}, AnyUnsafe::MoveTVMFFIAnyRawToAny(raw));
  }
  template <typename T>
  static TVMFFIAny MoveToTVMFFIAny(Expected<T>&& e) noexcept {
    return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(e.data_));
  }
  template <typename T>
  static Any&& GetData(Expected<T>& e) noexcept {
    return std::move(e.data_);
  }
  template <typename T>
  static Any&& GetData(Expected<T>&& e) noexcept {
    return std::move(e.data_);
  }
  template <typename T>
  static const Any& GetData(const Expected<T>& e) noexcept {
    return e.data_;
  }
  /* The value of an Expected known to hold one, as a T. */
  template <typename T, typename U>
  static T ValueAs(const Expected<U>& e) {
    return AnyUnsafe::CopyFromAnyViewAfterCheck<T>(e.data_);
  }
};
}  // namespace details

template <typename T>
struct TypeTraits<Expected<T>> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static void CopyToAnyView(const Expected<T>& v, TVMFFIAny* r) {
    *r = *details::AnyUnsafe::GetRaw(&v.data_);
  }
  static void MoveToAny(Expected<T> v, TVMFFIAny* r) {
    *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIError) return true;
    if constexpr (std::is_void_v<T>)
      return s->type_index == kTVMFFINone;
    else if constexpr (std::is_same_v<T, Any>)
      return true;
    else
      return TypeTraits<T>::CheckAnyStrict(s);
  }
  static Expected<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return Expected<T>(UnsafeInit{}, Any(AnyView::CopyFromTVMFFIAny(*s)));
  }
  static Expected<T> MoveFromAnyAfterCheck(TVMFFIAny* s) {
    return Expected<T>(UnsafeInit{}, details::AnyUnsafe::MoveTVMFFIAnyToAny(s));
  }
  static std::optional<Expected<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    if constexpr (!std::is_void_v<T> && !std::is_same_v<T, Any>) {
      if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s))
        return Expected<T>(*std::move(v));
    }
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    if constexpr (std::is_void_v<T> || std::is_same_v<T, Any>)
      return TypeIndexToTypeKey(s->type_index);
    else
      return TypeTraits<T>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() {
    if constexpr (std::is_void_v<T>)
      return "Expected<void>";
    else
      return "Expected<" + TypeTraits<T>::TypeStr() + ">";
  }
  static std::string TypeSchema() {
    if constexpr (std::is_void_v<T>)
      return details::SchemaOf("None");
    else
      return TypeTraits<T>::TypeSchema();
  }
};

namespace details {
/*!
 * \brief What TVM_FFI_UNEXPECTED streams into: a message built like an
 *  ostream (manipulators included) that becomes an Unexpected<Error> or an
 *  error-holding Expected<T> when it is returned or assigned.  A class
 *  template only so that a TU that never uses it does not need <ostream>.
 */
template <typename Traits = std::char_traits<char>>
class UnexpectedBuilderT {
 public:
  UnexpectedBuilderT(const char* kind, const char* file, int line, const char* func)
      : kind_(kind), file_(file), func_(func), line_(line), buf_(&text_), os_(&buf_) {}
  UnexpectedBuilderT(const UnexpectedBuilderT&) = delete;
  UnexpectedBuilderT& operator=(const UnexpectedBuilderT&) = delete;

  template <typename V>
  UnexpectedBuilderT&& operator<<(V&& v) && {
    os_ << std::forward<V>(v);
    return std::move(*this);
  }
  UnexpectedBuilderT&& operator<<(
      std::basic_ostream<char, Traits>& (*m)(std::basic_ostream<char, Traits>&)) && {
    os_ << m;
    return std::move(*this);
  }
  UnexpectedBuilderT&& operator<<(std::ios_base& (*m)(std::ios_base&)) && {
    os_ << m;
    return std::move(*this);
  }
  operator Unexpected<Error>() && { return Unexpected<Error>(Build()); }  // NOLINT(*)
  template <typename T>
  operator Expected<T>() && {  // NOLINT(*)
    return Expected<T>(Build());
  }

 private:
  /* The backtrace is the one frame of the macro: an error returned as a value
   * does not pay for unwinding the stack. */
  TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT Error Build() {
    char line[32];
    std::snprintf(line, sizeof(line), "\", line %d, in ", line_);
    std::string frame = std::string("  File \"") + file_ + line + func_ + "\n";
    TVMFFIByteArray bt{frame.data(), frame.size()};
    return MakeError(kind_, text_.data(), text_.size(), &bt);
  }
  const char* kind_;
  const char* file_;
  const char* func_;
  int line_;
  std::string text_;
  StringAppendBuf<char, Traits> buf_;
  std::basic_ostream<char, Traits> os_;
};
using UnexpectedBuilder = UnexpectedBuilderT<>;
}  // namespace details

TVM_FFI_NS_END

/*! \brief An error of kind ErrorKind, to `return` from a function returning Expected. */
#define TVM_FFI_UNEXPECTED(ErrorKind) \
  ::tvm::ffi::details::UnexpectedBuilder(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG)

/* The TVM_FFI_CHECK family for Expected-returning code: return the error instead of throwing. */
#define TVM_FFI_RET_CHECK(cond, ErrorKind) \
  if (TVM_FFI_PREDICT_TRUE(cond)) {        \
  } else                                   \
    return TVM_FFI_UNEXPECTED(ErrorKind) << "Check failed: (" #cond ") is false: "
#define TVM_FFI_RET_CHECK_BINARY_OP_(name, op, x, y, ErrorKind)              \
  if (auto __tvm_ffi_check_msg = ::tvm::ffi::details::LogCheck_##name(x, y); \
      TVM_FFI_PREDICT_TRUE(!__tvm_ffi_check_msg)) {                          \
  } else                                                                     \
    return TVM_FFI_UNEXPECTED(ErrorKind)                                     \
           << "Check failed: " #x " " #op " " #y << *__tvm_ffi_check_msg << ": "
#define TVM_FFI_RET_CHECK_EQ(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(EQ, ==, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_NE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(NE, !=, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_LT(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(LT, <, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_LE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(LE, <=, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_GT(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(GT, >, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_GE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(GE, >=, x, y, ErrorKind)
#define TVM_FFI_RET_ICHECK(x) TVM_FFI_RET_CHECK(x, InternalError)
#define TVM_FFI_RET_ICHECK_EQ(x, y) TVM_FFI_RET_CHECK_EQ(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_NE(x, y) TVM_FFI_RET_CHECK_NE(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_LT(x, y) TVM_FFI_RET_CHECK_LT(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_LE(x, y) TVM_FFI_RET_CHECK_LE(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_GT(x, y) TVM_FFI_RET_CHECK_GT(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_GE(x, y) TVM_FFI_RET_CHECK_GE(x, y, InternalError)

#endif  // TVM_FFI_EXPECTED_H_
