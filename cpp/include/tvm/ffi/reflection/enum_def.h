/*
 * tvm/ffi/reflection/enum_def.h -- EnumDef<EnumClsObj>: defines the members
 * of an enum class (tvm/ffi/enum.h) and their attributes, usually in a
 * TVM_FFI_STATIC_INIT_BLOCK:
 *
 *   refl::EnumDef<ColorObj>("Red").set_attr("hex", String("#f00"));
 *   refl::EnumDef<LevelObj>("High", 10);   // an IntEnum names its integer
 *
 * A plain or string enum numbers its members 0, 1, ... in definition order.
 * The members and attributes live in the class's EnumState (type attribute
 * "__ffi_enum__"), which this creates on first use -- the same state the
 * runtime and Python read.
 */
#ifndef TVM_FFI_REFLECTION_ENUM_DEF_H_
#define TVM_FFI_REFLECTION_ENUM_DEF_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN
namespace reflection {

template <typename EnumClsObj, typename = std::enable_if_t<std::is_base_of_v<EnumObj, EnumClsObj>>>
class EnumDef {
 public:
  /*! \brief Whether the class has a member whose string index is `name`. */
  static bool IsDefined(const String& name) {
    const EnumStateObj* state = FindState(EnumClsObj::_GetOrAllocRuntimeTypeIndex());
    return state != nullptr && state->indexes.count(Any(name)) != 0;
  }

  /*! \brief Defines member `str_index`, numbered after the members already defined. */
  explicit EnumDef(const char* str_index) : type_index_(EnumClsObj::_GetOrAllocRuntimeTypeIndex()) {
    static_assert(!std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "an IntEnum member needs its integer index: EnumDef(name, value)");
    EnumState state = EnsureState();
    Define(state, static_cast<int64_t>(state->entries.size()), String(str_index));
  }
  /*! \brief Defines IntEnum member `str_index` with integer index `int_index`. */
  EnumDef(const char* str_index, int64_t int_index)
      : type_index_(EnumClsObj::_GetOrAllocRuntimeTypeIndex()) {
    static_assert(std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "only IntEnum members take an explicit integer index");
    Define(EnsureState(), int_index, String(str_index));
  }

  /*! \brief Sets attribute `attr_name` of this member. */
  template <typename T>
  EnumDef& set_attr(const char* attr_name, T value) {
    Dict<String, Dict<ObjectRef, Any>> attrs = EnsureState()->attrs;
    String key(attr_name);
    std::optional<Dict<ObjectRef, Any>> column = attrs.Get(key);
    if (!column.has_value()) {
      column = Dict<ObjectRef, Any>();
      attrs.Set(key, *column);
    }
    column->Set(member_, Any(std::move(value)));
    return *this;
  }
  template <typename T, typename Value>
  EnumDef& set_attr(AttrKey<T> key, Value&& value) {
    return set_attr(key.name, T(std::forward<Value>(value)));
  }
  /*! \brief Sets a native hook (`T::FromNative<Fn>()`, e.g. a NativeFunctionView). */
  template <auto Fn, typename T>
  EnumDef& set_native_fn_attr(AttrKey<T> key) {
    return set_attr(key.name, T::template FromNative<Fn>());
  }

 private:
  static const EnumStateObj* FindState(int32_t type_index) {
    AnyView value = TypeAttrColumn(::tvm::ffi::type_attr::kEnumState)[type_index];
    if (value == nullptr) return nullptr;
    if (const EnumStateObj* state = value.as<EnumStateObj>()) return state;
    TVM_FFI_THROW(TypeError) << "the " << ::tvm::ffi::type_attr::kEnumState.name
                             << " attribute of `" << TypeIndexToTypeKey(type_index) << "` must be `"
                             << EnumStateObj::_type_key << "`, got `" << value.GetTypeKey() << "`";
    TVM_FFI_UNREACHABLE();
  }

  EnumState EnsureState() const {
    if (const EnumStateObj* state = FindState(type_index_)) return GetRef<EnumState>(state);
    EnumState state = ::tvm::ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<EnumState>(
        make_object<EnumStateObj>());
    TVMFFIByteArray name{::tvm::ffi::type_attr::kEnumState.name,
                         std::char_traits<char>::length(::tvm::ffi::type_attr::kEnumState.name)};
    TVMFFIAny raw = AnyView(state).CopyToTVMFFIAny();
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index_, &name, &raw));
    return state;
  }

  void Define(const EnumState& state, int64_t int_index, String str_index) {
    Dict<Any, ObjectRef> indexes = state->indexes;
    if (indexes.count(Any(int_index)) != 0 || indexes.count(Any(str_index)) != 0) {
      TVM_FFI_THROW(ValueError) << "enum `" << EnumClsObj::_type_key << "` already has a member "
                                << "with index " << int_index << " or \"" << str_index << "\"";
    }
    ObjectPtr<EnumClsObj> obj = make_object<EnumClsObj>();
    obj->_int_index = int_index;
    obj->_str_index = str_index;
    member_ = ::tvm::ffi::details::ObjectUnsafe::ObjectRefFromObjectPtr<Enum>(std::move(obj));
    List<ObjectRef> entries = state->entries;
    entries.push_back(member_);
    indexes.Set(Any(int_index), member_);
    indexes.Set(Any(std::move(str_index)), member_);
  }

  int32_t type_index_;
  Enum member_{UnsafeInit{}};
};

}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_ENUM_DEF_H_
