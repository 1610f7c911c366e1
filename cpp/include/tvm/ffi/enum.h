/*
 * tvm/ffi/enum.h -- enum classes whose members are singletons: EnumObj
 * (ffi.Enum) and its IntEnumObj / StrEnumObj forms, and the EnumState that
 * holds a class's members (docs/cpp.md §16).
 *
 * The types are the runtime's (see its enum.c; same layouts): a member has a
 * canonical integer and string index; the class's EnumState, stored under its
 * type attribute "__ffi_enum__", lists the members in registration order,
 * maps both indices to them and keeps per-member attributes, so members
 * defined in C++ (reflection/enum_def.h) and in Python are one set.
 */
#ifndef TVM_FFI_ENUM_H_
#define TVM_FFI_ENUM_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <type_traits>
#include <utility>

TVM_FFI_NS_BEGIN

class Enum;

/*! \brief The members of one enum class and their attributes. */
class EnumStateObj : public Object {
 public:
  /*! \brief Members in registration order. */
  List<ObjectRef> entries;
  /*! \brief Each member under its integer index and its string index. */
  Dict<Any, ObjectRef> indexes;
  /*! \brief attribute name -> member -> value. */
  Dict<String, Dict<ObjectRef, Any>> attrs;

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.EnumState", EnumStateObj, Object);
};

class EnumState : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(EnumState, ObjectRef, EnumStateObj);
};

/*! \brief Base of enum member objects; members compare by identity. */
class EnumObj : public Object {
 public:
  int64_t _int_index = 0;
  String _str_index;

  EnumObj() = default;
  EnumObj(int64_t int_index, String str_index)
      : _int_index(int_index), _str_index(std::move(str_index)) {}

  /*! \brief The member of EnumClsObj with this index; ValueError when there is none. */
  template <typename EnumClsObj>
  static Enum _GetByIntIndex(int64_t index);
  template <typename EnumClsObj>
  static Enum _GetByStrIndex(const String& index);
  static Enum _GetByIntIndex(int32_t type_index, int64_t index);
  static Enum _GetByStrIndex(int32_t type_index, const String& index);

  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.Enum", EnumObj, Object);

 private:
  template <typename Index>
  static Enum Lookup(int32_t type_index, const Index& index);
};

class Enum : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Enum, ObjectRef, EnumObj);
};

/*! \brief Members whose value is their integer index. */
class IntEnumObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.IntEnum", IntEnumObj, EnumObj);
};
class IntEnum : public Enum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(IntEnum, Enum, IntEnumObj);
};

/*! \brief Members whose value is their string index. */
class StrEnumObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StrEnum", StrEnumObj, EnumObj);
};
class StrEnum : public Enum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StrEnum, Enum, StrEnumObj);
};

namespace type_attr {
/*! \brief Where an enum class keeps its EnumState. */
inline constexpr reflection::AttrKey<EnumState> kEnumState{"__ffi_enum__"};
}  // namespace type_attr

template <typename Index>
inline Enum EnumObj::Lookup(int32_t type_index, const Index& index) {
  AnyView state = reflection::TypeAttrColumn(type_attr::kEnumState)[type_index];
  if (const auto* s = state.as<EnumStateObj>()) {
    if (std::optional<ObjectRef> member = s->indexes.Get(Any(index))) {
      return member->as_or_throw<Enum>();
    }
  }
  TVM_FFI_THROW(ValueError) << "Enum `" << TypeIndexToTypeKey(type_index)
                            << "` has no member with index " << index;
  TVM_FFI_UNREACHABLE();
}

template <typename EnumClsObj>
inline Enum EnumObj::_GetByIntIndex(int64_t index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "not an enum class");
  return Lookup(EnumClsObj::_GetOrAllocRuntimeTypeIndex(), index);
}
template <typename EnumClsObj>
inline Enum EnumObj::_GetByStrIndex(const String& index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "not an enum class");
  return Lookup(EnumClsObj::_GetOrAllocRuntimeTypeIndex(), index);
}
inline Enum EnumObj::_GetByIntIndex(int32_t type_index, int64_t index) {
  return Lookup(type_index, index);
}
inline Enum EnumObj::_GetByStrIndex(int32_t type_index, const String& index) {
  return Lookup(type_index, index);
}

TVM_FFI_NS_END
#endif  // TVM_FFI_ENUM_H_
