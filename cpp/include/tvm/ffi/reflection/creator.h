/*
 * tvm/ffi/reflection/creator.h -- ObjectCreator: makes an object of a
 * reflected type from a map of field values, the way deserialisers do.
 *
 * Header-only over the runtime global ffi.MakeObjectFromPackedArgs: the
 * object comes from the type's native creator or its __ffi_new__ attribute,
 * given fields go through their setters, the others take their default (a
 * factory called afresh for each object).  An unknown field, a required field
 * left out or a value of the wrong type throws TypeError.
 */
#ifndef TVM_FFI_REFLECTION_CREATOR_H_
#define TVM_FFI_REFLECTION_CREATOR_H_

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <string_view>
#include <vector>

TVM_FFI_NS_BEGIN

/*! \brief Whether objects of the type can be made empty (native creator or __ffi_new__). */
inline bool HasCreator(const TVMFFITypeInfo* type_info) {
  if (type_info->metadata != nullptr && type_info->metadata->creator != nullptr) return true;
  return reflection::TypeAttrColumn(type_attr::kNew)[type_info->type_index].type_index() ==
         kTVMFFIFunction;
}

namespace reflection {

class ObjectCreator {
 public:
  explicit ObjectCreator(std::string_view type_key)
      : ObjectCreator(TVMFFIGetTypeInfo(TypeKeyToIndex(type_key))) {}
  /*! \brief RuntimeError when the type cannot be made empty. */
  explicit ObjectCreator(const TVMFFITypeInfo* type_info) : type_info_(type_info) {
    if (!HasCreator(type_info)) {
      TVM_FFI_THROW(RuntimeError) << "type `" << details::View(type_info->type_key)
                                  << "` has no creator (native or __ffi_new__), so it cannot "
                                  << "be created through reflection";
    }
  }

  /*! \brief A new object with `fields` set and defaults for the rest. */
  Any operator()(const Map<String, Any>& fields) const {
    static const Function make = Function::GetGlobalRequired("ffi.MakeObjectFromPackedArgs");
    // The map yields its pairs by value: keep them alive while the views point at them.
    std::vector<Any> items;
    items.reserve(2 * fields.size());
    for (const auto& kv : fields) {
      items.emplace_back(kv.first);
      items.emplace_back(kv.second);
    }
    std::vector<AnyView> args;
    args.reserve(1 + items.size());
    args.emplace_back(type_info_->type_index);
    for (const Any& item : items) args.emplace_back(item);
    Any result;
    make.CallPacked(args.data(), static_cast<int32_t>(args.size()), &result);
    return result;
  }

 private:
  const TVMFFITypeInfo* type_info_;
};

}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_CREATOR_H_
