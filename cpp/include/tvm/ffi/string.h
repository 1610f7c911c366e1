/*
 * tvm/ffi/string.h -- String and Bytes: 16-byte values with the bits of a
 * TVMFFIAny payload.  Up to 7 bytes live inline (SmallStr/SmallBytes); longer
 * content lives in a heap object (ffi.String / ffi.Bytes).
 */
#ifndef TVM_FFI_STRING_H_
#define TVM_FFI_STRING_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

TVM_FFI_NS_BEGIN

/*! \brief Heap string payload: header + {data, size}; content NUL-terminated. */
class StringObj : public Object, public TVMFFIByteArray {
 public:
  StringObj() : TVMFFIByteArray{nullptr, 0} {}
  static constexpr int32_t _type_index = kTVMFFIStr;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.String", StringObj, Object);
};
/*! \brief Heap bytes payload. */
class BytesObj : public Object, public TVMFFIByteArray {
 public:
  BytesObj() : TVMFFIByteArray{nullptr, 0} {}
  static constexpr int32_t _type_index = kTVMFFIBytes;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Bytes", BytesObj, Object);
};

inline std::string_view ToStringView(TVMFFIByteArray b) { return {b.data, b.size}; }

namespace details {
/* A heap payload that adopts a moved std::string. */
template <typename Base>
class ObjFromStdString : public Base {
 public:
  explicit ObjFromStdString(std::string&& s) : str_(std::move(s)) {
    this->data = str_.data();
    this->size = str_.size();
  }

 private:
  std::string str_;
};

/*!
 * \brief Shared storage of String and Bytes: a canonical TVMFFIAny holding
 *  either the small form or one reference to a heap object.
 */
template <int32_t kSmall, int32_t kHeap, typename HeapObj>
class BytesCell {
 public:
  BytesCell() noexcept { InitEmpty(); }
  BytesCell(const char* data, size_t size) { InitCopy(data, size); }
  explicit BytesCell(std::string&& s) {
    ObjectPtr<ObjFromStdString<HeapObj>> p = make_object<ObjFromStdString<HeapObj>>(std::move(s));
    data_.type_index = kHeap;
    data_.zero_padding = 0;
    data_.v_obj = ObjectUnsafe::MoveObjectPtrToHandle(std::move(p));
  }
  BytesCell(const BytesCell& o) noexcept : data_(o.data_) {
    if (data_.type_index == kHeap) ObjectUnsafe::IncRefHandle(data_.v_obj);
  }
  BytesCell(BytesCell&& o) noexcept : data_(o.data_) { o.InitEmpty(); }
  ~BytesCell() { Release(); }
  BytesCell& operator=(const BytesCell& o) noexcept {
    BytesCell tmp(o);
    std::swap(data_, tmp.data_);
    return *this;
  }
  BytesCell& operator=(BytesCell&& o) noexcept {
    BytesCell tmp(std::move(o));
    std::swap(data_, tmp.data_);
    return *this;
  }
  const char* data() const noexcept {
    return data_.type_index == kSmall ? data_.v_bytes
                                      : TVMFFIBytesGetByteArrayPtr(data_.v_obj)->data;
  }
  size_t size() const noexcept {
    return data_.type_index == kSmall ? data_.small_str_len
                                      : TVMFFIBytesGetByteArrayPtr(data_.v_obj)->size;
  }
  /* Raw bits (a view); used by the Any traits. */
  const TVMFFIAny& cell() const noexcept { return data_; }
  /* Gives the bits (with their reference) away, leaving an empty value. */
  TVMFFIAny ReleaseCell() noexcept {
    TVMFFIAny r = data_;
    InitEmpty();
    return r;
  }
  /* Builds from bits: borrow (IncRef) or adopt. */
  static BytesCell FromCell(const TVMFFIAny& c, bool adopt) noexcept {
    BytesCell r;
    r.data_ = c;
    if (!adopt && c.type_index == kHeap) ObjectUnsafe::IncRefHandle(c.v_obj);
    return r;
  }

 protected:
  void swap_cell(BytesCell& o) noexcept { std::swap(data_, o.data_); }

 private:
  void InitEmpty() noexcept {
    data_.type_index = kSmall;
    data_.small_str_len = 0;
    data_.v_int64 = 0;
  }
  void InitCopy(const char* src, size_t n) {
    if (n <= 7) {
      data_.type_index = kSmall;
      data_.small_str_len = static_cast<uint32_t>(n);
      data_.v_int64 = 0;
      if (n) std::memcpy(data_.v_bytes, src, n);
      return;
    }
    ObjectPtr<HeapObj> p = make_inplace_array_object<HeapObj, char>(n + 1);
    char* dst = reinterpret_cast<char*>(p.get()) + sizeof(HeapObj);
    std::memcpy(dst, src, n);
    dst[n] = '\0';
    p->data = dst;
    p->size = n;
    data_.type_index = kHeap;
    data_.zero_padding = 0;
    data_.v_obj = ObjectUnsafe::MoveObjectPtrToHandle(std::move(p));
  }
  void Release() noexcept {
    if (data_.type_index == kHeap) ObjectUnsafe::DecRefHandle(data_.v_obj);
  }
  TVMFFIAny data_;
};

inline int MemCompare(const char* a, size_t na, const char* b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? std::memcmp(a, b, n) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  if (na == nb) return 0;
  return na < nb ? -1 : 1;
}
}  // namespace details

/*! \brief Immutable string value (16 bytes); never null. */
class String : public details::BytesCell<kTVMFFISmallStr, kTVMFFIStr, StringObj> {
  using Base = details::BytesCell<kTVMFFISmallStr, kTVMFFIStr, StringObj>;

 public:
  static constexpr size_t npos = std::string_view::npos;
  String() noexcept = default;
  String(std::nullptr_t) = delete;
  String(const char* s) : Base(s, std::strlen(s)) {}  // NOLINT(*)
  String(const char* s, size_t n) : Base(s, n) {}
  String(const std::string& s) : Base(s.data(), s.size()) {}  // NOLINT(*)
  String(std::string&& s) : Base(std::move(s)) {}  // NOLINT(*)
  explicit String(TVMFFIByteArray b) : Base(b.data, b.size) {}
  explicit String(std::string_view s) : Base(s.data(), s.size()) {}
  String(const String&) = default;
  String(String&&) noexcept = default;
  String& operator=(const String&) = default;
  String& operator=(String&&) noexcept = default;
  String& operator=(const std::string& s) { return *this = String(s); }
  String& operator=(std::string&& s) { return *this = String(std::move(s)); }
  String& operator=(const char* s) { return *this = String(s); }
  void swap(String& o) noexcept { swap_cell(o); }

  const char* c_str() const noexcept { return data(); }
  size_t length() const noexcept { return size(); }
  bool empty() const noexcept { return size() == 0; }
  char at(size_t i) const {
    if (i >= size()) throw std::out_of_range("tvm::ffi::String index out of range");
    return data()[i];
  }
  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string() const { return std::string(data(), size()); }  // NOLINT(*)
  operator std::string_view() const noexcept { return view(); }        // NOLINT(*)

  int compare(const String& o) const {
    return details::MemCompare(data(), size(), o.data(), o.size());
  }
  int compare(const std::string& o) const {
    return details::MemCompare(data(), size(), o.data(), o.size());
  }
  int compare(const char* o) const {
    return details::MemCompare(data(), size(), o, std::strlen(o));
  }
  int compare(const TVMFFIByteArray& o) const {
    return details::MemCompare(data(), size(), o.data, o.size);
  }
  size_t find(const String& s, size_t pos = 0) const { return view().find(s.view(), pos); }
  size_t find(const char* s, size_t pos = 0) const { return view().find(s, pos); }
  size_t find(const char* s, size_t pos, size_t count) const { return view().find(s, pos, count); }
  String substr(size_t pos = 0, size_t count = npos) const {
    if (pos > size()) throw std::out_of_range("tvm::ffi::String::substr position out of range");
    std::string_view v = view().substr(pos, count);
    return String(v.data(), v.size());
  }
  bool starts_with(std::string_view p) const noexcept {
    return p.size() <= size() && view().compare(0, p.size(), p) == 0;
  }
  bool starts_with(const String& p) const noexcept { return starts_with(p.view()); }
  bool starts_with(const char* p) const noexcept { return starts_with(std::string_view(p)); }
  bool starts_with(const char* p, size_t n) const noexcept {
    return starts_with(std::string_view(p, n));
  }
  bool ends_with(std::string_view p) const noexcept {
    return p.size() <= size() && view().compare(size() - p.size(), p.size(), p) == 0;
  }
  bool ends_with(const String& p) const noexcept { return ends_with(p.view()); }
  bool ends_with(const char* p) const noexcept { return ends_with(std::string_view(p)); }
  bool ends_with(const char* p, size_t n) const noexcept {
    return ends_with(std::string_view(p, n));
  }
  /// Views into this string, split at every `delim`.  (A template only so that a TU
  /// that never calls it does not instantiate std::vector's members.)
  template <typename Vec = std::vector<std::string_view>>
  Vec Split(char delim) const {
    Vec out;
    std::string_view v = view();
    size_t start = 0;
    while (true) {
      size_t p = v.find(delim, start);
      if (p == npos) {
        out.push_back(v.substr(start));
        return out;
      }
      out.push_back(v.substr(start, p - start));
      start = p + 1;
    }
  }

 private:
  friend struct TypeTraits<String>;
  explicit String(Base&& b) noexcept : Base(std::move(b)) {}
};

/*! \brief Immutable byte string (16 bytes). */
class Bytes : public details::BytesCell<kTVMFFISmallBytes, kTVMFFIBytes, BytesObj> {
  using Base = details::BytesCell<kTVMFFISmallBytes, kTVMFFIBytes, BytesObj>;

 public:
  Bytes() noexcept = default;
  Bytes(const char* s, size_t n) : Base(s, n) {}
  Bytes(TVMFFIByteArray b) : Base(b.data, b.size) {}  // NOLINT(*)
  Bytes(const std::string& s) : Base(s.data(), s.size()) {}  // NOLINT(*)
  Bytes(std::string&& s) : Base(std::move(s)) {}  // NOLINT(*)
  Bytes(const Bytes&) = default;
  Bytes(Bytes&&) noexcept = default;
  Bytes& operator=(const Bytes&) = default;
  Bytes& operator=(Bytes&&) noexcept = default;
  template <typename T, typename = std::enable_if_t<std::is_constructible_v<Bytes, T&&> &&
                                                    !std::is_same_v<std::decay_t<T>, Bytes>>>
  Bytes& operator=(T&& v) {
    return *this = Bytes(std::forward<T>(v));
  }
  void swap(Bytes& o) noexcept { swap_cell(o); }
  operator std::string() const { return std::string(data(), size()); }  // NOLINT(*)
  static int memncmp(const char* a, const char* b, size_t na, size_t nb) {
    return details::MemCompare(a, na, b, nb);
  }
  static bool memequal(const void* a, const void* b, size_t na, size_t nb) {
    return na == nb && (na == 0 || std::memcmp(a, b, na) == 0);
  }

 private:
  friend struct TypeTraits<Bytes>;
  explicit Bytes(Base&& b) noexcept : Base(std::move(b)) {}
};

/* ---- operators ------------------------------------------------------------- */

inline String operator+(const String& a, const String& b) {
  std::string s;
  s.reserve(a.size() + b.size());
  s.append(a.data(), a.size()).append(b.data(), b.size());
  return String(s);
}
inline String operator+(const String& a, const std::string& b) { return a + String(b); }
inline String operator+(const std::string& a, const String& b) { return String(a) + b; }
inline String operator+(const String& a, const char* b) { return a + String(b); }
inline String operator+(const char* a, const String& b) { return String(a) + b; }

#define TVM_FFI_STRING_CMP_(op)                                                                \
  inline bool operator op(const String& a, const String& b) { return a.compare(b) op 0; }      \
  inline bool operator op(const String& a, const std::string& b) { return a.compare(b) op 0; } \
  inline bool operator op(const std::string& a, const String& b) { return 0 op b.compare(a); } \
  inline bool operator op(const String& a, const char* b) { return a.compare(b) op 0; }        \
  inline bool operator op(const char* a, const String& b) { return 0 op b.compare(a); }        \
  bool operator op(const String&, std::nullptr_t) = delete;                                    \
  bool operator op(std::nullptr_t, const String&) = delete;
TVM_FFI_STRING_CMP_(==)
TVM_FFI_STRING_CMP_(!=)
TVM_FFI_STRING_CMP_(<)
TVM_FFI_STRING_CMP_(>)
TVM_FFI_STRING_CMP_(<=)
TVM_FFI_STRING_CMP_(>=)
#undef TVM_FFI_STRING_CMP_

/* A template on the traits so <ostream> is only needed by code that uses it. */
template <typename Traits>
inline std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                                    const String& s) {
  os.write(s.data(), static_cast<std::streamsize>(s.size()));
  return os;
}

namespace details {
/* The backslash escape both quoting styles below write for c, or NULL; \b and \f are JSON's only. */
inline const char* QuoteEscape(unsigned char c, bool json) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return json ? "\\b" : nullptr;
    case '\f':
      return json ? "\\f" : nullptr;
    default:
      return nullptr;
  }
}
}  // namespace details

/*! \brief Quoted, JSON-escaped copy of a string. */
inline String EscapeStringJSON(const String& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s.data()[i]);
    if (const char* esc = details::QuoteEscape(c, true)) {
      out += esc;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
  return String(std::move(out));
}
/* Deprecated alias. */
inline String EscapeString(const String& s) { return EscapeStringJSON(s); }

/*!
 * \brief Quoted copy of a string as Python's repr writes it in double quotes:
 * C escapes, other control bytes as \xNN, well-formed UTF-8 as \uXXXX or
 * \UXXXXXXXX, and each byte of a malformed sequence as \xNN.
 */
inline String EscapedStringPy(const String& s) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  std::string out;
  out.reserve(n + 2);
  out.push_back('"');
  char buf[16];
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c < 0x80) {
      if (const char* esc = details::QuoteEscape(c, false)) {
        out += esc;
      } else if (c < 0x20 || c == 0x7f) {
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    // length and payload bits of a UTF-8 leader; 0 for a byte that cannot lead
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    uint32_t cp = len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xc0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if (!ok) {
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    std::snprintf(buf, sizeof(buf), cp <= 0xffff ? "\\u%04x" : "\\U%08x",
                  static_cast<unsigned>(cp));
    out += buf;
    i += len;
  }
  out.push_back('"');
  return String(std::move(out));
}

/* ---- Any conversions --------------------------------------------------------- */

template <>
struct TypeTraits<String> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIStr;
  static void CopyToAnyView(const String& s, TVMFFIAny* r) { *r = s.cell(); }
  static void MoveToAny(String s, TVMFFIAny* r) { *r = s.ReleaseCell(); }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFISmallStr || s->type_index == kTVMFFIStr;
  }
  static String CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return String(String::Base::FromCell(*s, false));
  }
  static String MoveFromAnyAfterCheck(TVMFFIAny* s) {
    String r(String::Base::FromCell(*s, true));
    details::AnySetNone(s);
    return r;
  }
  template <typename T = String>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    if (s->type_index == kTVMFFIRawStr) return String(s->v_c_str);
    return std::nullopt;
  }
  static std::string TypeStr() { return "str"; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.String"); }
};

template <>
struct TypeTraits<Bytes> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIBytes;
  static void CopyToAnyView(const Bytes& s, TVMFFIAny* r) { *r = s.cell(); }
  static void MoveToAny(Bytes s, TVMFFIAny* r) { *r = s.ReleaseCell(); }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index == kTVMFFISmallBytes || s->type_index == kTVMFFIBytes;
  }
  static Bytes CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return Bytes(Bytes::Base::FromCell(*s, false));
  }
  static Bytes MoveFromAnyAfterCheck(TVMFFIAny* s) {
    Bytes r(Bytes::Base::FromCell(*s, true));
    details::AnySetNone(s);
    return r;
  }
  template <typename T = Bytes>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    if (s->type_index == kTVMFFIByteArrayPtr) {
      return Bytes(*static_cast<const TVMFFIByteArray*>(s->v_ptr));
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "bytes"; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.Bytes"); }
};

/* const char*: a RawStr view; stored as String. */
template <>
struct TypeTraits<const char*> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIRawStr;
  static void CopyToAnyView(const char* const& s, TVMFFIAny* r) {
    TVM_FFI_ICHECK_NOTNULL(s);
    r->type_index = kTVMFFIRawStr;
    r->zero_padding = 0;
    r->v_c_str = s;
  }
  static void MoveToAny(const char* s, TVMFFIAny* r) {
    TVM_FFI_ICHECK_NOTNULL(s);
    TypeTraits<String>::MoveToAny(String(s), r);
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  template <typename T = const char*>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIRawStr) return s->v_c_str;
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIRawStr; }
  static std::string TypeSchema() { return details::SchemaOf("const char*"); }
};
template <>
struct TypeTraits<char*> : public TypeTraits<const char*> {};
template <size_t N>
struct TypeTraits<char[N]> : public TypeTraits<const char*> {
  static void CopyToAnyView(const char (&s)[N], TVMFFIAny* r) {
    TypeTraits<const char*>::CopyToAnyView(s, r);
  }
  static void MoveToAny(const char (&s)[N], TVMFFIAny* r) {
    TypeTraits<const char*>::MoveToAny(s, r);
  }
};

/* std::string: a RawStr view; stored as a heap String; reads any string or bytes. */
template <>
struct TypeTraits<std::string> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static void CopyToAnyView(const std::string& s, TVMFFIAny* r) {
    r->type_index = kTVMFFIRawStr;
    r->zero_padding = 0;
    r->v_c_str = s.c_str();
  }
  static void MoveToAny(std::string s, TVMFFIAny* r) {
    TypeTraits<String>::MoveToAny(String(std::move(s)), r);
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  template <typename T = std::string>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    switch (s->type_index) {
      case kTVMFFIRawStr:
        return std::string(s->v_c_str);
      case kTVMFFIByteArrayPtr: {
        const TVMFFIByteArray* b = static_cast<const TVMFFIByteArray*>(s->v_ptr);
        return std::string(b->data, b->size);
      }
      case kTVMFFISmallStr:
      case kTVMFFISmallBytes:
        return std::string(s->v_bytes, s->small_str_len);
      case kTVMFFIStr:
      case kTVMFFIBytes: {
        const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(s->v_obj);
        return std::string(b->data, b->size);
      }
      default:
        return std::nullopt;
    }
  }
  static std::string TypeStr() { return "std::string"; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.String"); }
};

/* TVMFFIByteArray*: a ByteArrayPtr view; stored as Bytes. */
template <>
struct TypeTraits<TVMFFIByteArray*> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = kTVMFFIByteArrayPtr;
  static void CopyToAnyView(TVMFFIByteArray* const& b, TVMFFIAny* r) {
    TVM_FFI_ICHECK_NOTNULL(b);
    r->type_index = kTVMFFIByteArrayPtr;
    r->zero_padding = 0;
    r->v_ptr = b;
  }
  static void MoveToAny(TVMFFIByteArray* b, TVMFFIAny* r) {
    TVM_FFI_ICHECK_NOTNULL(b);
    TypeTraits<Bytes>::MoveToAny(Bytes(*b), r);
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  template <typename T = TVMFFIByteArray*>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIByteArrayPtr) return static_cast<TVMFFIByteArray*>(s->v_ptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIByteArrayPtr; }
  static std::string TypeSchema() { return details::SchemaOf("ffi.Bytes"); }
};

TVM_FFI_NS_END

namespace std {
template <>
struct hash<::tvm::ffi::String> {
  size_t operator()(const ::tvm::ffi::String& s) const noexcept {
    return std::hash<std::string_view>()(s.view());
  }
};
template <>
struct hash<::tvm::ffi::Bytes> {
  size_t operator()(const ::tvm::ffi::Bytes& s) const noexcept {
    return std::hash<std::string_view>()(std::string_view(s.data(), s.size()));
  }
};
}  // namespace std

#endif  // TVM_FFI_STRING_H_
