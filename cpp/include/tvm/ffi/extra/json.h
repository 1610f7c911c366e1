/*
 * tvm/ffi/extra/json.h -- JSON text <-> Any (json::Parse, json::Stringify).
 *
 * Header-only over the runtime globals ffi.json.Parse and ffi.json.Stringify
 * (see tvm_ffi_json(3)).  Objects parse to Map<Any, Any>, arrays to
 * Array<Any>, integers to int, other numbers to float.
 */
#ifndef TVM_FFI_EXTRA_JSON_H_
#define TVM_FFI_EXTRA_JSON_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

TVM_FFI_NS_BEGIN
namespace json {

using Value = Any;
using Object = ffi::Map<Any, Any>;
using Array = ffi::Array<Any>;

/*!
 * \brief Parses JSON text.  Without error_msg a malformed text throws
 * ValueError; with it the message goes there and the result is None.
 */
TVM_FFI_EXTRA_CXX_API json::Value Parse(const String& json_str, String* error_msg = nullptr);

/*! \brief JSON text of a value (compact, or pretty-printed with `indent` spaces). */
TVM_FFI_EXTRA_CXX_API String Stringify(const json::Value& value,
                                       const Optional<int>& indent = std::nullopt);

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API json::Value Parse(const String& json_str, String* error_msg) {
  static const Function parse = Function::GetGlobalRequired("ffi.json.Parse");
  if (error_msg == nullptr) return parse(json_str);
  try {
    return parse(json_str);
  } catch (const Error& err) {
    if (err.kind() != "ValueError") throw;
    *error_msg = err.message();
    return json::Value(nullptr);
  }
}

TVM_FFI_EXTRA_CXX_API String Stringify(const json::Value& value, const Optional<int>& indent) {
  static const Function stringify = Function::GetGlobalRequired("ffi.json.Stringify");
  return stringify(value, indent).cast<String>();
}
#endif

}  // namespace json
TVM_FFI_NS_END

#endif  // TVM_FFI_EXTRA_JSON_H_
