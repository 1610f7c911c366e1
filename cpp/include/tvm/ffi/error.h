/*
 * tvm/ffi/error.h -- Error, the throw/check macros and the C boundary helpers.
 *
 * Error objects are created by the runtime (TVMFFIErrorCreate...), so their
 * storage and update_backtrace live in libtvm_ffi.  Messages are built with a
 * small string stream instead of <sstream> to keep kernel TUs cheap to compile;
 * any type with an `operator<<(std::ostream&, T)` still streams (through a
 * std::streambuf adapter instantiated only when such a type is used).
 */
#ifndef TVM_FFI_ERROR_H_
#define TVM_FFI_ERROR_H_

#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>

#include <cstdio>
#include <exception>
#include <iosfwd>
#include <string>
#include <string_view>

/* Upstream's error.h brings in <iostream> and <sstream>, and user code written against it
 * uses std::cout / std::ostringstream without including them (docs/cpp.md §1), so ours does
 * too.  Nothing in these headers needs them: a kernel that includes what it uses defines
 * TVM_FFI_NO_IOSTREAM to skip both, a tenth of its compile time (bench/bench_cpp.sh). */
#ifndef TVM_FFI_NO_IOSTREAM
#include <iostream>
#include <sstream>
#endif

TVM_FFI_NS_BEGIN

class Error;

/*! \brief Payload of Error: the header followed by the C error cell. */
class ErrorObj : public Object {
 public:
  TVMFFIErrorCell cell;
  static constexpr int32_t _type_index = kTVMFFIError;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Error", ErrorObj, Object);
};

namespace details {
inline std::string_view ByteArrayView(const TVMFFIByteArray& b) { return {b.data, b.size}; }

template <typename T, typename = void>
struct has_ostream_op : std::false_type {};

/* A streambuf appending to a std::string; a template so <streambuf> is needed only on use. */
template <typename Ch, typename Traits = std::char_traits<Ch>>
class StringAppendBuf : public std::basic_streambuf<Ch, Traits> {
 public:
  explicit StringAppendBuf(std::string* out) : out_(out) {}

 protected:
  typename Traits::int_type overflow(typename Traits::int_type c) override {
    if (!Traits::eq_int_type(c, Traits::eof())) out_->push_back(Traits::to_char_type(c));
    return Traits::not_eof(c);
  }
  std::streamsize xsputn(const Ch* s, std::streamsize n) override {
    out_->append(s, static_cast<size_t>(n));
    return n;
  }

 private:
  std::string* out_;
};

inline void AppendDataType(std::string* out, DLDataType dtype);

/* Message building only happens on error paths: keep it out of line. */
#define TVM_FFI_MSG_COLD TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT
/*!
 * \brief Minimal text builder used by TVM_FFI_THROW and the check macros.
 *  Formats like std::ostream with default flags.
 */
class MsgStream {
 public:
  TVM_FFI_MSG_COLD MsgStream& operator<<(const char* s) {
    buf_.append(s ? s : "(null)");
    return *this;
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(char* s) { return *this << static_cast<const char*>(s); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(std::string_view s) {
    buf_.append(s.data(), s.size());
    return *this;
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(const std::string& s) {
    buf_.append(s);
    return *this;
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(char c) {
    buf_.push_back(c);
    return *this;
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(signed char c) { return *this << static_cast<char>(c); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(unsigned char c) { return *this << static_cast<char>(c); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(bool b) {
    buf_.push_back(b ? '1' : '0');
    return *this;
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(short v) { return Fmt("%d", static_cast<int>(v)); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(unsigned short v) {
    return Fmt("%u", static_cast<unsigned>(v));
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(int v) { return Fmt("%d", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(unsigned v) { return Fmt("%u", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(long v) { return Fmt("%ld", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(unsigned long v) { return Fmt("%lu", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(long long v) { return Fmt("%lld", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(unsigned long long v) { return Fmt("%llu", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(float v) { return Fmt("%g", static_cast<double>(v)); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(double v) { return Fmt("%g", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(long double v) { return Fmt("%Lg", v); }
  TVM_FFI_MSG_COLD MsgStream& operator<<(std::nullptr_t) { return *this << "nullptr"; }
  TVM_FFI_MSG_COLD MsgStream& operator<<(const void* p) {
    if (p == nullptr) return *this << '0';
    return Fmt("%p", p);
  }
  TVM_FFI_MSG_COLD MsgStream& operator<<(DLDataType dtype) {
    AppendDataType(&buf_, dtype);
    return *this;
  }
  /* Everything else: string-like, enums, other pointers, or ostream-printable types. */
  template <typename T>
  MsgStream& operator<<(const T& v) {
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      return *this << std::string_view(v);
    } else if constexpr (std::is_enum_v<T>) {
      return *this << static_cast<long long>(v);
    } else if constexpr (std::is_pointer_v<T>) {
      return *this << static_cast<const void*>(v);
    } else {
      StringAppendBuf<char, std::char_traits<std::conditional_t<sizeof(T) != 0, char, T>>> sb(
          &buf_);
      std::basic_ostream<char, std::char_traits<std::conditional_t<sizeof(T) != 0, char, T>>> os(
          &sb);
      os << v;
      return *this;
    }
  }
  const std::string& str() const { return buf_; }
  std::string& str() { return buf_; }

 private:
  template <typename V>
  MsgStream& Fmt(const char* fmt, V v) {
    char tmp[64];
    int n = std::snprintf(tmp, sizeof(tmp), fmt, v);
    if (n > 0) buf_.append(tmp, static_cast<size_t>(n < 64 ? n : 63));
    return *this;
  }
  std::string buf_;
};
}  // namespace details

/*!
 * \brief The exception type of the FFI: a reference to an ffi.Error object
 *  (kind, message, backtrace).  Default visibility so other libraries can catch it.
 */
class __attribute__((visibility("default"))) Error : public ObjectRef, public std::exception {
 public:
  Error(std::string kind, std::string message, std::string backtrace) : ObjectRef(UnsafeInit{}) {
    Create(kind, message, backtrace, nullptr, nullptr);
  }
  Error(std::string kind, std::string message, const TVMFFIByteArray* backtrace)
      : Error(kind, message,
              backtrace ? std::string(backtrace->data, backtrace->size) : std::string()) {}
  Error(const std::string& kind, const std::string& message, const std::string& backtrace,
        const std::optional<Error>& cause_chain, const std::optional<ObjectRef>& extra_context)
      : ObjectRef(UnsafeInit{}) {
    Create(kind, message, backtrace,
           cause_chain.has_value() ? details::RefHandle(*cause_chain) : nullptr,
           extra_context.has_value() ? details::RefHandle(*extra_context) : nullptr);
  }

  std::string kind() const { return std::string(details::ByteArrayView(cell().kind)); }
  std::string message() const { return std::string(details::ByteArrayView(cell().message)); }
  std::string backtrace() const { return std::string(details::ByteArrayView(cell().backtrace)); }
  std::optional<Error> cause_chain() const {
    if (cell().cause_chain == nullptr) return std::nullopt;
    return details::ObjectUnsafe::ObjectRefFromObjectPtr<Error>(
        details::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
            details::ObjectUnsafe::ObjectFromHandle(cell().cause_chain)));
  }
  std::optional<ObjectRef> extra_context() const {
    if (cell().extra_context == nullptr) return std::nullopt;
    return ObjectRef(details::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
        details::ObjectUnsafe::ObjectFromHandle(cell().extra_context)));
  }
  /// The message only (NUL-terminated inside the error object).
  const char* what() const noexcept override { return data_ ? cell().message.data : ""; }
  /// Backtrace lines, most recent call last.
  std::string TracebackMostRecentCallLast() const {
    std::string_view bt = details::ByteArrayView(cell().backtrace);
    std::string out;
    size_t end = bt.size();
    while (end > 0) {
      size_t start = bt.rfind('\n', end - 1);
      size_t line_begin = (start == std::string_view::npos) ? 0 : start + 1;
      if (end > line_begin) {
        out.append(bt.data() + line_begin, end - line_begin);
        out.push_back('\n');
      }
      if (start == std::string_view::npos) break;
      end = start;
    }
    return out;
  }
  std::string FullMessage() const {
    return "Traceback (most recent call last):\n" + TracebackMostRecentCallLast() + kind() + ": " +
           message() + "\n";
  }
  void UpdateBacktrace(const TVMFFIByteArray* backtrace, int32_t update_mode) {
    ErrorObj* obj = static_cast<ErrorObj*>(data_.get());
    obj->cell.update_backtrace(details::ObjectUnsafe::GetHeader(obj), backtrace, update_mode);
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Error, ObjectRef, ErrorObj);

 private:
  const TVMFFIErrorCell& cell() const { return static_cast<const ErrorObj*>(data_.get())->cell; }
  /* Both public constructors end here with borrowed handles: delegating through
   * std::optional temporaries made GCC warn (-Wmaybe-uninitialized) at -O2 under
   * the sanitizers, in every TU that throws. */
  void Create(const std::string& kind, const std::string& message, const std::string& backtrace,
              void* cause, void* extra) {
    TVMFFIByteArray k{kind.data(), kind.size()};
    TVMFFIByteArray m{message.data(), message.size()};
    TVMFFIByteArray b{backtrace.data(), backtrace.size()};
    TVMFFIObjectHandle out = nullptr;
    if (TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, cause, extra, &out) != 0) {
      throw std::bad_alloc();
    }
    data_ = details::ObjectUnsafe::ObjectPtrFromOwned<Object>(out);
  }
};

namespace details {
/*
 * Creates an Error straight through the C API from C strings: the throw paths
 * use it instead of the std::string constructor, so a kernel TU compiles no
 * string copies for them.
 */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT Error MakeError(const char* kind, const char* msg,
                                                            size_t msg_len,
                                                            const TVMFFIByteArray* backtrace) {
  TVMFFIByteArray k{kind, std::strlen(kind)};
  TVMFFIByteArray m{msg, msg_len};
  TVMFFIByteArray empty{"", 0};
  TVMFFIObjectHandle out = nullptr;
  if (TVMFFIErrorCreate(&k, &m, backtrace ? backtrace : &empty, &out) != 0) {
    throw std::bad_alloc();
  }
  return ObjectUnsafe::ObjectRefFromObjectPtr<Error>(ObjectUnsafe::ObjectPtrFromOwned<Object>(out));
}
/* Stores a non-FFI C++ exception in this thread's slot as an InternalError. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void SetSafeCallRaisedFromStd(const char* what) {
  if (what == nullptr) what = "";
  Error err = MakeError("InternalError", what, std::strlen(what), nullptr);
  TVMFFIErrorSetRaised(RefHandle(err));
}
}  // namespace details

/*! \brief The error to throw when the host environment already holds a pending error. */
inline Error EnvErrorAlreadySet() {
  return details::MakeError("EnvErrorAlreadySet", "", 0, nullptr);
}

namespace details {
/* Moves the error raised in this thread's slot into an Error. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT Error MoveFromSafeCallRaised() {
  TVMFFIObjectHandle h = nullptr;
  TVMFFIErrorMoveFromRaised(&h);
  if (h == nullptr) {
    static const char kMsg[] = "FFI call failed but no error was raised";
    return MakeError("RuntimeError", kMsg, sizeof(kMsg) - 1, nullptr);
  }
  return ObjectUnsafe::ObjectRefFromObjectPtr<Error>(ObjectUnsafe::ObjectPtrFromOwned<Object>(h));
}
/* Stores an Error in this thread's slot (the slot takes its own reference). */
inline void SetSafeCallRaised(const Error& err) { TVMFFIErrorSetRaised(RefHandle(err)); }
/* Throws the raised error for a failed C call (-2: the environment already has one). */
[[noreturn]] inline TVM_FFI_COLD_UNOPT void ThrowRaised(int ret) {
  if (ret == -2) throw EnvErrorAlreadySet();
  throw MoveFromSafeCallRaised();
}

inline void AppendDataType(std::string* out, DLDataType dtype) {
  TVMFFIAny s;
  s.type_index = kTVMFFINone;
  s.zero_padding = 0;
  s.v_int64 = 0;
  if (TVMFFIDataTypeToString(&dtype, &s) != 0) ThrowRaised(-1);
  if (s.type_index == kTVMFFISmallStr) {
    out->append(s.v_bytes, s.small_str_len);
  } else if (s.type_index >= kTVMFFIStaticObjectBegin) {
    const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(s.v_obj);
    out->append(b->data, b->size);
    ObjectUnsafe::DecRefHandle(s.v_obj);
  }
}

/*!
 * \brief Builds an Error from a stream and throws it from its destructor.
 *  kLog prints the full message to stderr first (TVM_FFI_LOG_AND_THROW, or
 *  every throw when TVM_FFI_ALWAYS_LOG_BEFORE_THROW is 1).
 */
template <bool kLog>
class ErrorBuilderT {
 public:
  ErrorBuilderT(const char* kind, const char* file, int line, const char* func)
      : kind_(kind), file_(file), func_(func), line_(line) {}
  ErrorBuilderT(const ErrorBuilderT&) = delete;
  ErrorBuilderT& operator=(const ErrorBuilderT&) = delete;
  MsgStream& stream() { return stream_; }
  [[noreturn]] ~ErrorBuilderT() noexcept(false) {
    Throw(kind_, &stream_.str(), file_, line_, func_);
  }

 private:
  /* Out of line (once per binary) so each throw site stays small. */
  [[noreturn]] static TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void Throw(const char* kind,
                                                                      std::string* msg,
                                                                      const char* file, int line,
                                                                      const char* func) {
    Error err = MakeError(kind, msg->data(), msg->size(), TVMFFIBacktrace(file, line, func, 0));
    if constexpr (kLog) std::fprintf(stderr, "%s", err.FullMessage().c_str());
    throw err;
  }
  const char* kind_;
  const char* file_;
  const char* func_;
  int line_;
  MsgStream stream_;
};
using ErrorBuilder = ErrorBuilderT<TVM_FFI_ALWAYS_LOG_BEFORE_THROW != 0>;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
/*
 * Result of a comparison check: null when it held, else the " (x vs. y) " text.
 * A bare owning pointer (not std::optional<std::string>) so the passing path of
 * every check compiles to a compare and a null test.
 */
class CheckMsg {
 public:
  explicit CheckMsg(MsgStream* m = nullptr) noexcept : m_(m) {}
  CheckMsg(CheckMsg&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
  CheckMsg(const CheckMsg&) = delete;
  CheckMsg& operator=(const CheckMsg&) = delete;
  ~CheckMsg() {
    if (m_) Free(m_);
  }
  explicit operator bool() const noexcept { return m_ != nullptr; }
  bool operator!() const noexcept { return m_ == nullptr; }
  const std::string& operator*() const { return m_->str(); }

 private:
  static TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void Free(MsgStream* m) { delete m; }
  MsgStream* m_;
};
inline MsgStream& operator<<(MsgStream& os, const CheckMsg& m) { return os << *m; }

template <typename X, typename Y>
TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT CheckMsg CheckFormat(const X& x, const Y& y) {
  MsgStream* os = new MsgStream();
  *os << " (" << x << " vs. " << y << ") ";
  return CheckMsg(os);
}
#define TVM_FFI_DEFINE_CHECK_FUNC_(name, op)                \
  template <typename X, typename Y>                         \
  inline CheckMsg LogCheck_##name(const X& x, const Y& y) { \
    if (x op y) return CheckMsg();                          \
    return CheckFormat(x, y);                               \
  }                                                         \
  inline CheckMsg LogCheck_##name(int x, int y) { return LogCheck_##name<int, int>(x, y); }
TVM_FFI_DEFINE_CHECK_FUNC_(LT, <)
TVM_FFI_DEFINE_CHECK_FUNC_(GT, >)
TVM_FFI_DEFINE_CHECK_FUNC_(LE, <=)
TVM_FFI_DEFINE_CHECK_FUNC_(GE, >=)
TVM_FFI_DEFINE_CHECK_FUNC_(EQ, ==)
TVM_FFI_DEFINE_CHECK_FUNC_(NE, !=)
#undef TVM_FFI_DEFINE_CHECK_FUNC_
#pragma GCC diagnostic pop

template <typename T>
inline T CheckNotNull(T x, const char* kind, const char* text, const char* file, int line,
                      const char* func) {
  if (TVM_FFI_PREDICT_FALSE(x == nullptr)) {
    ErrorBuilder(kind, file, line, func).stream() << text;
  }
  return x;
}
}  // namespace details
TVM_FFI_NS_END

/* ---- throwing and checking ------------------------------------------------ */

#define TVM_FFI_THROW(ErrorKind) \
  ::tvm::ffi::details::ErrorBuilder(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG).stream()

#define TVM_FFI_LOG_AND_THROW(ErrorKind)                                                     \
  ::tvm::ffi::details::ErrorBuilderT<true>(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG) \
      .stream()

#define TVM_FFI_CHECK(cond, ErrorKind) \
  if (TVM_FFI_PREDICT_TRUE(cond)) {    \
  } else                               \
    TVM_FFI_THROW(ErrorKind) << "Check failed: (" #cond ") is false: "

#define TVM_FFI_CHECK_BINARY_OP_(name, op, x, xtext, y, ytext, ErrorKind)                       \
  if (auto __tvm_ffi_check_msg = ::tvm::ffi::details::LogCheck_##name(x, y);                    \
      TVM_FFI_PREDICT_TRUE(!__tvm_ffi_check_msg)) {                                             \
  } else                                                                                        \
    TVM_FFI_THROW(ErrorKind) << "Check failed: " xtext " " #op " " ytext << __tvm_ffi_check_msg \
                             << ": "

#define TVM_FFI_CHECK_EQ(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(EQ, ==, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_NE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(NE, !=, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_LT(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(LT, <, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_LE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(LE, <=, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_GT(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(GT, >, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_GE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(GE, >=, x, #x, y, #y, ErrorKind)
#define TVM_FFI_CHECK_NOTNULL(x, ErrorKind)                                               \
  ::tvm::ffi::details::CheckNotNull((x), #ErrorKind, "Check not null: " #x " ", __FILE__, \
                                    __LINE__, TVM_FFI_FUNC_SIG)

/* The second operand is variadic so braced values such as DLDataType{kDLInt, 8, 1} work. */
#define TVM_FFI_ICHECK(x) TVM_FFI_CHECK(x, InternalError)
#define TVM_FFI_ICHECK_EQ(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(EQ, ==, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_NE(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(NE, !=, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_LT(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(LT, <, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_LE(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(LE, <=, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_GT(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(GT, >, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_GE(x, ...) \
  TVM_FFI_CHECK_BINARY_OP_(GE, >=, x, #x, (__VA_ARGS__), #__VA_ARGS__, InternalError)
#define TVM_FFI_ICHECK_NOTNULL(x) TVM_FFI_CHECK_NOTNULL(x, InternalError)

#ifndef NDEBUG
#define TVM_FFI_DCHECK(x) TVM_FFI_ICHECK(x)
#define TVM_FFI_DCHECK_EQ(x, ...) TVM_FFI_ICHECK_EQ(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_NE(x, ...) TVM_FFI_ICHECK_NE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_LT(x, ...) TVM_FFI_ICHECK_LT(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_LE(x, ...) TVM_FFI_ICHECK_LE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_GT(x, ...) TVM_FFI_ICHECK_GT(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_GE(x, ...) TVM_FFI_ICHECK_GE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_NOTNULL(x) TVM_FFI_ICHECK_NOTNULL(x)
#else
/* `while (false)` keeps the operands type-checked but never evaluated. */
#define TVM_FFI_DCHECK(x) \
  while (false) TVM_FFI_ICHECK(x)
#define TVM_FFI_DCHECK_EQ(x, ...) \
  while (false) TVM_FFI_ICHECK_EQ(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_NE(x, ...) \
  while (false) TVM_FFI_ICHECK_NE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_LT(x, ...) \
  while (false) TVM_FFI_ICHECK_LT(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_LE(x, ...) \
  while (false) TVM_FFI_ICHECK_LE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_GT(x, ...) \
  while (false) TVM_FFI_ICHECK_GT(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_GE(x, ...) \
  while (false) TVM_FFI_ICHECK_GE(x, __VA_ARGS__)
#define TVM_FFI_DCHECK_NOTNULL(x) (x)
#endif

/* ---- crossing the C boundary ----------------------------------------------- */

/* Wraps the body of an int-returning C function: 0 on success, -1 with the error raised. */
#define TVM_FFI_SAFE_CALL_BEGIN() try {
#define TVM_FFI_SAFE_CALL_END()                                \
  return 0;                                                    \
  }                                                            \
  catch (const ::tvm::ffi::Error& err) {                       \
    ::tvm::ffi::details::SetSafeCallRaised(err);               \
    return -1;                                                 \
  }                                                            \
  catch (const std::exception& err) {                          \
    ::tvm::ffi::details::SetSafeCallRaisedFromStd(err.what()); \
    return -1;                                                 \
  }

/* Evaluates a C call; a non-zero return throws the raised error. */
#define TVM_FFI_CHECK_SAFE_CALL(func)                  \
  do {                                                 \
    int __tvm_ffi_ret = (func);                        \
    if (TVM_FFI_PREDICT_FALSE(__tvm_ffi_ret != 0)) {   \
      ::tvm::ffi::details::ThrowRaised(__tvm_ffi_ret); \
    }                                                  \
  } while (0)

#endif  // TVM_FFI_ERROR_H_
