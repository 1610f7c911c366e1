/*
 * tvm/ffi/reflection/accessor.h -- reading reflection data registered with
 * the runtime: field getters/setters, methods and type-attribute columns.
 */
#ifndef TVM_FFI_REFLECTION_ACCESSOR_H_
#define TVM_FFI_REFLECTION_ACCESSOR_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>

#include <optional>
#include <string_view>

TVM_FFI_NS_BEGIN
namespace reflection {

/*! \brief Names of well-known type attributes. */
namespace type_attr {
inline constexpr const char* kInit = "__ffi_init__";
inline constexpr const char* kAnyHash = "__any_hash__";
inline constexpr const char* kAnyEqual = "__any_equal__";
}  // namespace type_attr

/*!
 * \brief Typed name of a type attribute: `key.name` is the column name and
 * ValueType what its entries hold (upstream's attribute keys are of this type).
 */
template <typename T>
struct AttrKey {
  using ValueType = T;
  const char* name;
  /*! \brief An entry of this column as a T: nullopt for None (no entry), TypeError otherwise. */
  std::optional<T> ValueFrom(AnyView value) const {
    if (value == nullptr) return std::nullopt;
    return value.template as_or_throw<T>();
  }
};

namespace details {
inline std::string_view View(const TVMFFIByteArray& b) { return {b.data, b.size}; }
inline const TVMFFITypeInfo* InfoOfKey(std::string_view type_key) {
  return TVMFFIGetTypeInfo(TypeKeyToIndex(type_key));
}
}  // namespace details

/*! \brief The field `name` of a type (exact match, the type's own fields first, then its ancestors'). */
inline const TVMFFIFieldInfo* GetFieldInfo(std::string_view type_key, const char* name) {
  const TVMFFITypeInfo* info = details::InfoOfKey(type_key);
  for (const TVMFFITypeInfo* t = info; t != nullptr;) {
    for (int32_t i = 0; i < t->num_fields; ++i) {
      if (details::View(t->fields[i].name) == name) return &t->fields[i];
    }
    t = t->type_depth > 0 ? t->type_ancestors[t->type_depth - 1] : nullptr;
  }
  TVM_FFI_THROW(AttributeError) << "Cannot find field `" << name << "` in type `" << type_key
                                << "`";
  TVM_FFI_UNREACHABLE();
}
/*! \brief Calls f(const TVMFFIFieldInfo*) for every field of the type, its ancestors' first. */
template <typename F>
inline void ForEachFieldInfo(const TVMFFITypeInfo* info, F&& f) {
  for (int32_t d = 0; d < info->type_depth; ++d) {
    const TVMFFITypeInfo* base = info->type_ancestors[d];
    for (int32_t i = 0; i < base->num_fields; ++i) f(&base->fields[i]);
  }
  for (int32_t i = 0; i < info->num_fields; ++i) f(&info->fields[i]);
}
/*! \brief ForEachFieldInfo until f returns true; returns whether it did. */
template <typename F>
inline bool ForEachFieldInfoWithEarlyStop(const TVMFFITypeInfo* info, F&& f) {
  for (int32_t d = 0; d < info->type_depth; ++d) {
    const TVMFFITypeInfo* base = info->type_ancestors[d];
    for (int32_t i = 0; i < base->num_fields; ++i) {
      if (f(&base->fields[i])) return true;
    }
  }
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (f(&info->fields[i])) return true;
  }
  return false;
}
/*! \brief The method `name` of a type (exact match). */
inline const TVMFFIMethodInfo* GetMethodInfo(std::string_view type_key, const char* name) {
  const TVMFFITypeInfo* info = details::InfoOfKey(type_key);
  for (const TVMFFITypeInfo* t = info; t != nullptr;) {
    for (int32_t i = 0; i < t->num_methods; ++i) {
      if (details::View(t->methods[i].name) == name) return &t->methods[i];
    }
    t = t->type_depth > 0 ? t->type_ancestors[t->type_depth - 1] : nullptr;
  }
  TVM_FFI_THROW(AttributeError) << "Cannot find method `" << name << "` in type `" << type_key
                                << "`";
  TVM_FFI_UNREACHABLE();
}
inline Function GetMethod(std::string_view type_key, const char* name) {
  return AnyView::CopyFromTVMFFIAny(GetMethodInfo(type_key, name)->method).cast<Function>();
}

/*! \brief Reads a reflected field of an object. */
class FieldGetter {
 public:
  explicit FieldGetter(const TVMFFIFieldInfo* info) : info_(info) {}
  FieldGetter(std::string_view type_key, const char* name) : info_(GetFieldInfo(type_key, name)) {}
  Any operator()(const ObjectRef& obj) const {
    char* base = static_cast<char*>(::tvm::ffi::details::RefHandle(obj));
    TVM_FFI_ICHECK(base != nullptr) << "FieldGetter on a null object";
    Any result;
    TVM_FFI_CHECK_SAFE_CALL(
        info_->getter(base + info_->offset, ::tvm::ffi::details::AnyUnsafe::GetRaw(&result)));
    return result;
  }

 private:
  const TVMFFIFieldInfo* info_;
};

/*! \brief Writes a reflected field of an object (the setter converts the value). */
class FieldSetter {
 public:
  explicit FieldSetter(const TVMFFIFieldInfo* info) : info_(info) {}
  FieldSetter(std::string_view type_key, const char* name) : info_(GetFieldInfo(type_key, name)) {}
  void operator()(const ObjectRef& obj, AnyView value) const {
    char* base = static_cast<char*>(::tvm::ffi::details::RefHandle(obj));
    TVM_FFI_ICHECK(base != nullptr) << "FieldSetter on a null object";
    if (info_->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
      // the setter is an ffi.Function handle called with (field address, value)
      TVMFFIAny h;
      h.type_index = kTVMFFIFunction;
      h.zero_padding = 0;
      h.v_ptr = info_->setter;
      AnyView::CopyFromTVMFFIAny(h).cast<Function>()(static_cast<void*>(base + info_->offset),
                                                     value);
      return;
    }
    auto setter = reinterpret_cast<TVMFFIFieldSetter>(info_->setter);
    TVM_FFI_CHECK_SAFE_CALL(
        setter(base + info_->offset, ::tvm::ffi::details::AnyUnsafe::GetRaw(&value)));
  }

 private:
  const TVMFFIFieldInfo* info_;
};

/*! \brief One type attribute across all types; None where a type has no entry. */
class TypeAttrColumn {
 public:
  explicit TypeAttrColumn(std::string_view name) {
    TVMFFIByteArray n{name.data(), name.size()};
    column_ = TVMFFIGetTypeAttrColumn(&n);
  }
  template <typename T>
  explicit TypeAttrColumn(AttrKey<T> key) : TypeAttrColumn(std::string_view(key.name)) {}
  AnyView operator[](int32_t type_index) const {
    if (column_ == nullptr) return AnyView();
    int32_t off = type_index - column_->begin_index;
    if (off < 0 || off >= column_->size) return AnyView();
    return AnyView::CopyFromTVMFFIAny(column_->data[off]);
  }

 private:
  const TVMFFITypeAttrColumn* column_;
};

}  // namespace reflection

namespace reflection {
template <typename Signature>
class NativeFunctionView;  // reflection/native_function.h
}  // namespace reflection

/*! \brief Keys of the hooks containers consult for a type's values as map keys:
 * TypeAttrDef::native_fn_attr<&Fn>(kAnyHash) with `int64_t Fn(const Any&)` (and
 * kAnyEqual, `bool Fn(const Any&, const Any&)`) stores Fn's NativeFunctionView
 * adapter, the form every runtime calls (c_container.h). */
namespace type_attr {
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<int64_t(const Any&)>> kAnyHash{
    "__any_hash__"};
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<bool(const Any&, const Any&)>>
    kAnyEqual{"__any_equal__"};
/*! \brief The constructor ObjectDef::def(init<...>()) registers. */
inline constexpr reflection::AttrKey<Function> kInit{"__ffi_init__"};
/*! \brief Makes an empty object (what ObjectCreator starts from without a native creator). */
inline constexpr reflection::AttrKey<Function> kNew{"__ffi_new__"};
/*! \brief Converts a value to the class's reference type (def_convert). */
inline constexpr reflection::AttrKey<Function> kConvert{"__ffi_convert__"};
/*! \brief Whether the class is final (ObjectDef publishes it). */
inline constexpr reflection::AttrKey<bool> kTypeFinal{"__ffi_type_final__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_ACCESSOR_H_
