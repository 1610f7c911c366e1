/*
 * tvm/ffi/dtype.h -- DLDataType helpers.  Parsing and printing are done by
 * the runtime (TVMFFIDataTypeFromString / TVMFFIDataTypeToString).
 */
#ifndef TVM_FFI_DTYPE_H_
#define TVM_FFI_DTYPE_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>

/*! \brief Codes above the DLPack ones, for custom data types. */
enum DLExtDataTypeCode { kDLExtCustomBegin = 129 };

/* Field-wise equality (global namespace, as kernels compare against constants). */
inline bool operator==(const DLDataType& a, const DLDataType& b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
inline bool operator!=(const DLDataType& a, const DLDataType& b) { return !(a == b); }

TVM_FFI_NS_BEGIN

/*! \brief Parses "float32", "int8x4", "bf16", ...; invalid input throws ValueError. */
inline DLDataType StringToDLDataType(const String& str) {
  TVMFFIByteArray b{str.data(), str.size()};
  DLDataType out;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIDataTypeFromString(&b, &out));
  return out;
}
/*! \brief Canonical name: "float32", "int16x2", "bool"; opaque handle with 0 bits gives "". */
inline String DLDataTypeToString(DLDataType dtype) {
  std::string s;
  details::AppendDataType(&s, dtype);
  return String(s);
}
inline bool DTypeIsFloat(DLDataType t) {
  return t.code == kDLFloat || t.code == kDLBfloat || t.code >= kDLFloat8_e3m4;
}
inline bool DTypeIsInt(DLDataType t) { return t.code == kDLInt || t.code == kDLUInt; }
inline bool DTypeIsBool(DLDataType t) { return t.code == kDLBool; }
/*! \brief Short name: f16x4, i32, u8, bf16, f8_e4m3fn, bool, void, handle. */
inline std::string DTypeAbbrev(DLDataType t) {
  if (t.code == kDLOpaqueHandle) return (t.bits == 0 && t.lanes == 0) ? "void" : "handle";
  std::string s(DLDataTypeToString(t).view());
  static const char* const kPrefix[][2] = {
      {"bfloat", "bf"}, {"float", "f"}, {"uint", "u"}, {"int", "i"}, {"complex", "c"}};
  for (const auto& p : kPrefix) {
    size_t n = std::char_traits<char>::length(p[0]);
    if (s.compare(0, n, p[0]) == 0) return p[1] + s.substr(n);
  }
  return s;
}

template <>
struct TypeTraits<DLDataType> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIDataType;
  static void CopyToAnyView(const DLDataType& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIDataType;
    r->zero_padding = 0;
    r->v_int64 = 0;  // canonical form: unused payload bytes are zero
    r->v_dtype = v;
  }
  static void MoveToAny(DLDataType v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIDataType; }
  static DLDataType CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return s->v_dtype; }
  static DLDataType MoveFromAnyAfterCheck(TVMFFIAny* s) { return s->v_dtype; }
  /* Strings and bytes are parsed; an invalid string throws ValueError. */
  template <typename T = DLDataType>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIDataType) return s->v_dtype;
    if (std::optional<std::string> str = TypeTraits<std::string>::TryCastFromAnyView(s)) {
      return StringToDLDataType(String(*str));
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDataType; }
  static std::string TypeSchema() { return details::SchemaOf("DataType"); }
};

TVM_FFI_NS_END

/* Prints the canonical name; a template so <ostream> is needed only where it is used. */
template <typename Traits>
inline std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os,
                                                    DLDataType dtype) {
  std::string s;
  ::tvm::ffi::details::AppendDataType(&s, dtype);
  return os << s;
}

#endif  // TVM_FFI_DTYPE_H_
