/*
 * tvm/ffi/extra/serialization.h -- a value graph to JSON and back
 * (ToJSONGraph / FromJSONGraph): shared objects stay shared, reflected
 * objects are written field by field or through their __data_to_json__.
 *
 * Header-only over the runtime globals ffi.ToJSONGraph and ffi.FromJSONGraph
 * (see tvm_ffi_serialization(3)).
 */
#ifndef TVM_FFI_EXTRA_SERIALIZATION_H_
#define TVM_FFI_EXTRA_SERIALIZATION_H_

#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>

TVM_FFI_NS_BEGIN

/*! \brief The JSON graph of a value; `metadata` (None or a map) is stored beside it. */
TVM_FFI_EXTRA_CXX_API json::Value ToJSONGraph(const Any& value, const Any& metadata = Any(nullptr));
/*! \brief The value a JSON graph describes. */
TVM_FFI_EXTRA_CXX_API Any FromJSONGraph(const json::Value& value);

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API json::Value ToJSONGraph(const Any& value, const Any& metadata) {
  static const Function to_graph = Function::GetGlobalRequired("ffi.ToJSONGraph");
  return to_graph(value, metadata);
}
TVM_FFI_EXTRA_CXX_API Any FromJSONGraph(const json::Value& value) {
  static const Function from_graph = Function::GetGlobalRequired("ffi.FromJSONGraph");
  return from_graph(value);
}
#endif

/* The type attributes a class defines to choose its own JSON data. */
namespace type_attr {
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataToJson{"__data_to_json__"};
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataFromJson{
    "__data_from_json__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_SERIALIZATION_H_
