/*
 * tvm/ffi/expected.h -- Expected<T>: a T or an Error in one Any, for
 * error-as-value code paths (Function::CallExpected, typed returns).
 */
#ifndef TVM_FFI_EXPECTED_H_
#define TVM_FFI_EXPECTED_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>

TVM_FFI_NS_BEGIN

/*! \brief Marks an error value for constructing an Expected. */
template <typename E = Error>
class Unexpected {
  static_assert(std::is_same_v<E, Error>, "Unexpected holds an ffi::Error");

 public:
  explicit Unexpected(E error) : error_(std::move(error)) {}
  const E& error() const& { return error_; }
  E error() && { return std::move(error_); }

 private:
  E error_;
};
Unexpected(Error)->Unexpected<Error>;

/*! \brief Either a T or an Error. */
template <typename T>
class Expected {
  static_assert(!std::is_same_v<T, Error>, "Expected<Error> is not allowed");

 public:
  Expected(T value) : data_(std::move(value)) {}  // NOLINT(*)
  /* Anything a T can be made from (`return Unchanged();` for Expected<UnchangedOr<T>>). */
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Error> &&
                                        !std::is_same_v<std::decay_t<U>, Expected>>>
  Expected(U&& value) : data_(T(std::forward<U>(value))) {}  // NOLINT(*)
  Expected(Error error) : data_(std::move(error)) {}  // NOLINT(*)
  Expected(Unexpected<Error> u) : data_(std::move(u).error()) {}  // NOLINT(*)
  bool is_ok() const { return !is_err(); }
  bool is_err() const { return data_.as<ErrorObj>() != nullptr; }
  bool has_value() const { return is_ok(); }
  /// The value; throws the stored Error when there is none.
  T value() const {
    if (is_err()) throw data_.cast<Error>();
    if constexpr (std::is_same_v<T, Any>) return data_;
    else return data_.cast<T>();
  }
  Error error() const {
    if (!is_err()) {
      TVM_FFI_THROW(RuntimeError) << "Bad expected access: contains value, not error";
    }
    return data_.cast<Error>();
  }
  template <typename U>
  T value_or(U&& def) const {
    return is_ok() ? value() : T(std::forward<U>(def));
  }

 private:
  Any data_;
  template <typename, typename>
  friend struct TypeTraits;
};

/*! \brief Success or an Error. */
template <>
class Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT(*)
  Expected(Unexpected<Error> u) : error_(std::move(u).error()) {}  // NOLINT(*)
  bool is_ok() const { return !error_.has_value(); }
  bool is_err() const { return error_.has_value(); }
  bool has_value() const { return is_ok(); }
  void value() const {
    if (error_.has_value()) throw *error_;
  }
  Error error() const {
    if (!error_.has_value()) {
      TVM_FFI_THROW(RuntimeError) << "Bad expected access: contains value, not error";
    }
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

template <typename T>
struct TypeTraits<Expected<T>> : public TypeTraitsBase {
  static void CopyToAnyView(const Expected<T>& v, TVMFFIAny* r) {
    *r = *details::AnyUnsafe::GetRaw(&v.data_);
  }
  static void MoveToAny(Expected<T> v, TVMFFIAny* r) {
    *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return TypeTraits<T>::CheckAnyStrict(s) || s->type_index == kTVMFFIError;
  }
  static std::optional<Expected<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIError) {
      return Expected<T>(AnyView::CopyFromTVMFFIAny(*s).cast<Error>());
    }
    if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s)) return Expected<T>(*std::move(v));
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* s) {
    return TypeTraits<T>::GetMismatchTypeInfo(s);
  }
  static std::string TypeStr() { return "Expected<" + TypeTraits<T>::TypeStr() + ">"; }
  static std::string TypeSchema() { return TypeTraits<T>::TypeSchema(); }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_EXPECTED_H_
