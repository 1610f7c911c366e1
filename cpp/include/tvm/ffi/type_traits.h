/*
 * tvm/ffi/type_traits.h -- TypeTraits<T>: how a C++ type is stored in and
 * read back from a TVMFFIAny.  Specialise it to make your own type convertible.
 *
 * Member contract (all static):
 *   CopyToAnyView(const T&, TVMFFIAny*)        non-owning payload
 *   MoveToAny(T, TVMFFIAny*)                    owning payload (one reference)
 *   CheckAnyStrict(const TVMFFIAny*)            exactly T's representation
 *   CopyFromAnyViewAfterCheck / MoveFromAnyAfterCheck
 *   TryCastFromAnyView(const TVMFFIAny*)        converting extraction
 *   TypeStr(), TypeSchema(), GetMismatchTypeInfo(const TVMFFIAny*)
 */
#ifndef TVM_FFI_TYPE_TRAITS_H_
#define TVM_FFI_TYPE_TRAITS_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

TVM_FFI_NS_BEGIN

/*! \brief The C enums under their C++ names. */
using TypeIndex = TVMFFITypeIndex;
using TypeInfo = TVMFFITypeInfo;

/*! \brief Runtime type keys of the built-in payload kinds. */
struct StaticTypeKey {
  static constexpr const char* kTVMFFIAny = "Any";
  static constexpr const char* kTVMFFINone = "None";
  static constexpr const char* kTVMFFIBool = "bool";
  static constexpr const char* kTVMFFIInt = "int";
  static constexpr const char* kTVMFFIFloat = "float";
  static constexpr const char* kTVMFFIOpaquePtr = "void*";
  static constexpr const char* kTVMFFIDataType = "DataType";
  static constexpr const char* kTVMFFIDevice = "Device";
  static constexpr const char* kTVMFFIDLTensorPtr = "DLTensor*";
  static constexpr const char* kTVMFFIRawStr = "const char*";
  static constexpr const char* kTVMFFIByteArrayPtr = "TVMFFIByteArray*";
  static constexpr const char* kTVMFFIObjectRValueRef = "ObjectRValueRef";
  static constexpr const char* kTVMFFISmallStr = "ffi.SmallStr";
  static constexpr const char* kTVMFFISmallBytes = "ffi.SmallBytes";
  static constexpr const char* kTVMFFIBytes = "ffi.Bytes";
  static constexpr const char* kTVMFFIStr = "ffi.String";
  static constexpr const char* kTVMFFIShape = "ffi.Shape";
  static constexpr const char* kTVMFFITensor = "ffi.Tensor";
  static constexpr const char* kTVMFFIObject = "ffi.Object";
  static constexpr const char* kTVMFFIFunction = "ffi.Function";
  static constexpr const char* kTVMFFIArray = "ffi.Array";
  static constexpr const char* kTVMFFIMap = "ffi.Map";
  static constexpr const char* kTVMFFIList = "ffi.List";
  static constexpr const char* kTVMFFIDict = "ffi.Dict";
  static constexpr const char* kTVMFFIModule = "ffi.Module";
  static constexpr const char* kTVMFFIError = "ffi.Error";
  static constexpr const char* kTVMFFIOpaquePyObject = "ffi.OpaquePyObject";
};

namespace details {
inline void AnySetNone(TVMFFIAny* r) noexcept {
  r->type_index = kTVMFFINone;
  r->zero_padding = 0;
  r->v_int64 = 0;
}
inline Object* AnyObject(const TVMFFIAny* v) noexcept {
  return ObjectUnsafe::ObjectFromHandle(v->v_obj);
}
}  // namespace details

/*! \brief The runtime type key of an index. */
inline std::string TypeIndexToTypeKey(int32_t tindex) {
  return details::TypeIndexToTypeKeyImpl(tindex);
}

/*! \brief Primary template: not convertible. */
template <typename, typename>
struct TypeTraits {
  static constexpr bool convert_enabled = false;
  static constexpr bool storage_enabled = false;
};

namespace details {
/*! \brief Whether T may be the declared type of a stored value (a field, a container element). */
template <typename T>
inline constexpr bool storage_enabled_v =
    TypeTraits<std::remove_const_t<std::remove_reference_t<T>>>::storage_enabled;
}  // namespace details

template <typename T>
using TypeTraitsNoCR = TypeTraits<std::remove_const_t<std::remove_reference_t<T>>>;

/*! \brief Set to false for an ObjectRef subclass that provides its own full specialisation. */
template <typename T>
inline constexpr bool use_default_type_traits_v = true;

/*! \brief Defaults shared by every convertible type.
 *
 * A full specialisation (TypeTraits<String>, <bool>, <TensorView>, ...) declares
 * TryCastFromAnyView as a template on its result type, defaulted to the type: the compiler
 * then instantiates std::optional<X> only in TUs that cast to X, not in every TU that
 * includes the header (0.08 s of a kernel TU's 0.8 s with g++ -O2, bench/bench_cpp.sh). */
struct TypeTraitsBase {
  static constexpr bool convert_enabled = true;
  static constexpr bool storage_enabled = true;
  static constexpr int32_t field_static_type_index = kTVMFFIAny;
  static std::string GetMismatchTypeInfo(const TVMFFIAny* source) {
    return TypeIndexToTypeKey(source->type_index);
  }
};

template <typename T>
struct TypeToFieldStaticTypeIndex {
  static constexpr int32_t value = TypeTraitsNoCR<T>::field_static_type_index;
};

/*! \brief Runtime type index a value of T is stored under (its class's index for objects). */
template <typename T, typename = void>
struct TypeToRuntimeTypeIndex {
  static int32_t v() { return TypeToFieldStaticTypeIndex<T>::value; }
};
template <typename T>
struct TypeToRuntimeTypeIndex<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>>> {
  static int32_t v() { return T::ContainerType::RuntimeTypeIndex(); }
};
template <typename T>
struct TypeToRuntimeTypeIndex<ObjectPtr<T>, std::enable_if_t<is_object_subclass_v<T>>> {
  static int32_t v() { return T::RuntimeTypeIndex(); }
};
template <typename T>
struct TypeToRuntimeTypeIndex<Arc<T>, std::enable_if_t<is_object_subclass_v<T>>> {
  static int32_t v() { return T::RuntimeTypeIndex(); }
};

/*! \brief Whether a Source value can reuse Target storage without conversion. */
template <typename Target, typename Source, typename = void>
struct type_subsumes
    : std::bool_constant<std::is_same_v<Target, Source> || std::is_base_of_v<Target, Source>> {};
template <typename Target, typename Source>
inline constexpr bool type_subsumes_v = type_subsumes<Target, Source>::value;

namespace details {
template <typename T>
void ThrowCannotTreat(const std::string& from) {
  TVM_FFI_THROW(TypeError) << "Cannot treat type `" << from << "` as type `"
                           << TypeTraitsNoCR<T>::TypeStr() << "`";
  TVM_FFI_UNREACHABLE();
}
template <typename T>
[[noreturn]] TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void ThrowCannotConvert(const TVMFFIAny* src) {
  TVM_FFI_THROW(TypeError) << "Cannot convert from type `"
                           << TypeTraitsNoCR<T>::GetMismatchTypeInfo(src) << "` to `"
                           << TypeTraitsNoCR<T>::TypeStr() << "`";
  TVM_FFI_UNREACHABLE();
}
/* JSON schema of a plain name: {"type":"<name>"} */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string SchemaOf(const char* name) {
  return std::string("{\"type\":\"") + name + "\"}";
}
/* Type names and schemas are built only at registration and on error paths: each
 * composite type lists its parts as functions and one plain function joins them, so a
 * TU compiles one copy of the string code instead of one per signature. */
using StrFn = std::string (*)();
/* open + parts[0]() + sep + parts[1]() ... + close */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string JoinStrs(const char* open,
                                                                 const StrFn* parts, size_t n,
                                                                 const char* sep,
                                                                 const char* close) {
  std::string s = open;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += sep;
    s += parts[i]();
  }
  return s += close;
}
/* {"type":"<name>","args":[<schemas of the parts>]} */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string SchemaWithArgs(const char* name,
                                                                       const StrFn* parts,
                                                                       size_t n) {
  std::string open = std::string("{\"type\":\"") + name + "\",\"args\":[";
  return JoinStrs(open.c_str(), parts, n, ",", "]}");
}
}  // namespace details

/*! \brief A bool that only accepts Bool payloads (use as a fallback type instead of bool). */
class StrictBool {
 public:
  StrictBool(bool v) : v_(v) {}  // NOLINT(*)
  operator bool() const { return v_; }

 private:
  bool v_;
};

/* ---- POD traits ------------------------------------------------------------ */

template <>
struct TypeTraits<std::nullptr_t> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFINone;
  static void CopyToAnyView(const std::nullptr_t&, TVMFFIAny* r) { details::AnySetNone(r); }
  static void MoveToAny(std::nullptr_t, TVMFFIAny* r) { details::AnySetNone(r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFINone; }
  static std::nullptr_t CopyFromAnyViewAfterCheck(const TVMFFIAny*) { return nullptr; }
  static std::nullptr_t MoveFromAnyAfterCheck(TVMFFIAny*) { return nullptr; }
  template <typename T = std::nullptr_t>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return nullptr;
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFINone; }
  static std::string TypeSchema() { return details::SchemaOf("None"); }
};

template <>
struct TypeTraits<StrictBool> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIBool;
  static void CopyToAnyView(const StrictBool& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIBool;
    r->zero_padding = 0;
    r->v_int64 = static_cast<bool>(v);
  }
  static void MoveToAny(StrictBool v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIBool; }
  static StrictBool CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return s->v_int64 != 0; }
  static StrictBool MoveFromAnyAfterCheck(TVMFFIAny* s) { return s->v_int64 != 0; }
  template <typename T = StrictBool>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIBool) return StrictBool(s->v_int64 != 0);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIBool; }
  static std::string TypeSchema() { return details::SchemaOf("bool"); }
};

template <>
struct TypeTraits<bool> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIBool;
  static void CopyToAnyView(const bool& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIBool;
    r->zero_padding = 0;
    r->v_int64 = v;
  }
  static void MoveToAny(bool v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIBool; }
  static bool CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return s->v_int64 != 0; }
  static bool MoveFromAnyAfterCheck(TVMFFIAny* s) { return s->v_int64 != 0; }
  template <typename T = bool>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIBool || s->type_index == kTVMFFIInt) return s->v_int64 != 0;
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIBool; }
  static std::string TypeSchema() { return details::SchemaOf("bool"); }
};

/* Integers and enums with an integral underlying type. */
template <typename Int>
struct TypeTraits<Int, std::enable_if_t<(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) ||
                                        std::is_enum_v<Int>>> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIInt;
  static void CopyToAnyView(const Int& v, TVMFFIAny* r) {
    if constexpr (std::is_enum_v<Int>) {
      r->v_int64 = static_cast<int64_t>(v);
    } else {
      if constexpr (std::is_unsigned_v<Int> && sizeof(Int) >= sizeof(int64_t)) {
        if (TVM_FFI_PREDICT_FALSE(v > static_cast<Int>(std::numeric_limits<int64_t>::max()))) {
          TVM_FFI_THROW(OverflowError)
              << "Integer value " << v
              << " is too large to fit in int64_t. Consider explicitly casting to int64_t "
                 "first if this is intentional.";
        }
      }
      r->v_int64 = static_cast<int64_t>(v);
    }
    r->type_index = kTVMFFIInt;
    r->zero_padding = 0;
  }
  static void MoveToAny(Int v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIInt; }
  static Int CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return static_cast<Int>(s->v_int64); }
  static Int MoveFromAnyAfterCheck(TVMFFIAny* s) { return static_cast<Int>(s->v_int64); }
  static std::optional<Int> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIInt || s->type_index == kTVMFFIBool) {
      return static_cast<Int>(s->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIInt; }
  static std::string TypeSchema() { return details::SchemaOf("int"); }
};

template <typename Float>
struct TypeTraits<Float, std::enable_if_t<std::is_floating_point_v<Float>>>
    : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIFloat;
  static void CopyToAnyView(const Float& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIFloat;
    r->zero_padding = 0;
    r->v_float64 = static_cast<double>(v);
  }
  static void MoveToAny(Float v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIFloat; }
  static Float CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return static_cast<Float>(s->v_float64);
  }
  static Float MoveFromAnyAfterCheck(TVMFFIAny* s) { return static_cast<Float>(s->v_float64); }
  static std::optional<Float> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIFloat) return static_cast<Float>(s->v_float64);
    if (s->type_index == kTVMFFIInt || s->type_index == kTVMFFIBool) {
      return static_cast<Float>(s->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIFloat; }
  static std::string TypeSchema() { return details::SchemaOf("float"); }
};

template <>
struct TypeTraits<void*> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIOpaquePtr;
  static void CopyToAnyView(void* const& v, TVMFFIAny* r) {
    r->type_index = kTVMFFIOpaquePtr;
    r->zero_padding = 0;
    r->v_int64 = 0;
    r->v_ptr = v;
  }
  static void MoveToAny(void* v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIOpaquePtr; }
  static void* CopyFromAnyViewAfterCheck(const TVMFFIAny* s) { return s->v_ptr; }
  static void* MoveFromAnyAfterCheck(TVMFFIAny* s) { return s->v_ptr; }
  template <typename T = void*>  // (lazy: see TypeTraitsBase)
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIOpaquePtr) return s->v_ptr;
    if (s->type_index == kTVMFFINone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIOpaquePtr; }
  static std::string TypeSchema() { return details::SchemaOf("void*"); }
};

/* ---- object references ------------------------------------------------------ */

/*! \brief Default traits of an ObjectRef subclass. */
template <typename TObjRef>
struct ObjectRefTypeTraitsBase : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIObject;
  using ContainerType = typename TObjRef::ContainerType;

  static void CopyToAnyView(const TObjRef& src, TVMFFIAny* r) {
    const Object* obj = details::ObjectUnsafe::GetObjectPtr(src).get();
    if (obj == nullptr) {
      details::AnySetNone(r);
      return;
    }
    r->type_index = obj->type_index();
    r->zero_padding = 0;
    r->v_obj = details::ObjectUnsafe::GetHeader(obj);
  }
  static void MoveToAny(TObjRef src, TVMFFIAny* r) {
    ObjectPtr<Object>& p = details::ObjectUnsafe::GetObjectPtrRef(src);
    if (p == nullptr) {
      details::AnySetNone(r);
      return;
    }
    r->type_index = p->type_index();
    r->zero_padding = 0;
    r->v_obj = details::ObjectUnsafe::MoveObjectPtrToHandle(std::move(p));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return TObjRef::_type_is_nullable;
    if (s->type_index < kTVMFFIStaticObjectBegin) return false;
    if constexpr (std::is_same_v<ContainerType, Object>) {
      return true;
    } else {
      return details::AnyObject(s)->template IsInstance<ContainerType>();
    }
  }
  static TObjRef CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return TObjRef(UnsafeInit{});
    return details::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
        details::ObjectUnsafe::ObjectPtrFromUnowned<Object>(details::AnyObject(s)));
  }
  static TObjRef MoveFromAnyAfterCheck(TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return TObjRef(UnsafeInit{});
    TObjRef ref = details::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
        details::ObjectUnsafe::ObjectPtrFromOwned<Object>(details::AnyObject(s)));
    details::AnySetNone(s);
    return ref;
  }
  static std::optional<TObjRef> TryCastFromAnyView(const TVMFFIAny* s) {
    /* A ref's own traits may narrow CheckAnyStrict (a value check on top of the type): use it. */
    using Own = TypeTraits<TObjRef>;
    if constexpr (std::is_base_of_v<ObjectRefTypeTraitsBase, Own>) {
      if (Own::CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    } else {
      if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return ContainerType::_type_key; }
  static std::string TypeSchema() { return details::SchemaOf(ContainerType::_type_key); }
};

/*!
 * \brief Traits of a ref that also converts from other types: the object
 *  path first, then each Fallback in order via TypeTraits<Ref>::ConvertFallbackValue.
 */
template <typename TObjRef, typename... FallbackTypes>
struct ObjectRefWithFallbackTraitsBase : public ObjectRefTypeTraitsBase<TObjRef> {
  static_assert((!std::is_same_v<FallbackTypes, bool> && ...),
                "use StrictBool instead of bool as a fallback type");
  static std::optional<TObjRef> TryCastFromAnyView(const TVMFFIAny* s) {
    if (ObjectRefTypeTraitsBase<TObjRef>::CheckAnyStrict(s)) {
      return ObjectRefTypeTraitsBase<TObjRef>::CopyFromAnyViewAfterCheck(s);
    }
    return TryFallback<FallbackTypes...>(s);
  }

 private:
  template <typename F, typename... Rest>
  static std::optional<TObjRef> TryFallback(const TVMFFIAny* s) {
    if (auto v = TypeTraits<F>::TryCastFromAnyView(s)) {
      return TypeTraits<TObjRef>::ConvertFallbackValue(*std::move(v));
    }
    if constexpr (sizeof...(Rest) > 0) {
      return TryFallback<Rest...>(s);
    } else {
      return std::nullopt;
    }
  }
};

template <typename TObjRef>
struct TypeTraits<TObjRef, std::enable_if_t<std::is_base_of_v<ObjectRef, TObjRef> &&
                                            use_default_type_traits_v<TObjRef>>>
    : public ObjectRefTypeTraitsBase<TObjRef> {};

/*! \brief For types only converted from others (never stored), e.g. std::string. */
template <typename T, typename... FallbackTypes>
struct FallbackOnlyTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static std::optional<T> TryCastFromAnyView(const TVMFFIAny* s) {
    return TryFallback<FallbackTypes...>(s);
  }

 private:
  template <typename F, typename... Rest>
  static std::optional<T> TryFallback(const TVMFFIAny* s) {
    if (auto v = TypeTraits<F>::TryCastFromAnyView(s)) {
      return TypeTraits<T>::ConvertFallbackValue(*std::move(v));
    }
    if constexpr (sizeof...(Rest) > 0) {
      return TryFallback<Rest...>(s);
    } else {
      return std::nullopt;
    }
  }
};

/* ObjectPtr<T>: None <-> null.  Only for (non-const) object types. */
template <typename TObj>
struct TypeTraits<ObjectPtr<TObj>, std::enable_if_t<is_object_subclass_v<TObj> &&
                                                    std::is_same_v<TObj, std::remove_cv_t<TObj>>>>
    : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIObject;
  static void CopyToAnyView(const ObjectPtr<TObj>& p, TVMFFIAny* r) {
    if (p == nullptr) return details::AnySetNone(r);
    r->type_index = p->type_index();
    r->zero_padding = 0;
    r->v_obj = details::ObjectUnsafe::GetHeader(p.get());
  }
  static void MoveToAny(ObjectPtr<TObj> p, TVMFFIAny* r) {
    if (p == nullptr) return details::AnySetNone(r);
    r->type_index = p->type_index();
    r->zero_padding = 0;
    r->v_obj = details::ObjectUnsafe::MoveObjectPtrToHandle(std::move(p));
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return true;
    if (s->type_index < kTVMFFIStaticObjectBegin) return false;
    return details::AnyObject(s)->template IsInstance<TObj>();
  }
  static ObjectPtr<TObj> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return nullptr;
    return details::ObjectUnsafe::ObjectPtrFromUnowned<TObj>(details::AnyObject(s));
  }
  static ObjectPtr<TObj> MoveFromAnyAfterCheck(TVMFFIAny* s) {
    if (s->type_index == kTVMFFINone) return nullptr;
    ObjectPtr<TObj> p = details::ObjectUnsafe::ObjectPtrFromOwned<TObj>(details::AnyObject(s));
    details::AnySetNone(s);
    return p;
  }
  static std::optional<ObjectPtr<TObj>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    return std::nullopt;
  }
  static std::string TypeStr() { return TObj::_type_key; }
  static std::string TypeSchema() {
    return "{\"type\":\"Optional\",\"args\":[" + details::SchemaOf(TObj::_type_key) + "]}";
  }
};

/* Arc<T>: like ObjectPtr<T>, but None is not a value of it. */
template <typename TObj>
struct TypeTraits<Arc<TObj>, std::enable_if_t<is_object_subclass_v<TObj> &&
                                              std::is_same_v<TObj, std::remove_cv_t<TObj>>>>
    : public TypeTraits<ObjectPtr<TObj>> {
  using Base = TypeTraits<ObjectPtr<TObj>>;
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index != kTVMFFINone && Base::CheckAnyStrict(s);
  }
  static Arc<TObj> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return details::ObjectUnsafe::ArcFromObjectPtr(Base::CopyFromAnyViewAfterCheck(s));
  }
  static Arc<TObj> MoveFromAnyAfterCheck(TVMFFIAny* s) {
    return details::ObjectUnsafe::ArcFromObjectPtr(Base::MoveFromAnyAfterCheck(s));
  }
  static std::optional<Arc<TObj>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    return std::nullopt;
  }
  static std::string TypeSchema() { return details::SchemaOf(TObj::_type_key); }
};
template <typename T, typename U>
struct type_subsumes<Arc<T>, Arc<U>> : std::bool_constant<std::is_base_of_v<T, U>> {};
template <typename T, typename U>
struct type_subsumes<ObjectPtr<T>, ObjectPtr<U>> : std::bool_constant<std::is_base_of_v<T, U>> {};
template <typename T, typename U>
struct type_subsumes<ObjectPtr<T>, Arc<U>> : std::bool_constant<std::is_base_of_v<T, U>> {};

/* Raw object pointers: views of an instance; Any(T*) takes a reference. */
template <typename TObject>
struct TypeTraits<TObject*, std::enable_if_t<std::is_base_of_v<Object, TObject>>>
    : public TypeTraitsBase {
  using Raw = std::remove_const_t<TObject>;
  static constexpr int32_t field_static_type_index = kTVMFFIObject;
  static void CopyToAnyView(TObject* const& p, TVMFFIAny* r) {
    if (p == nullptr) return details::AnySetNone(r);
    r->type_index = p->type_index();
    r->zero_padding = 0;
    r->v_obj = details::ObjectUnsafe::GetHeader(p);
  }
  static void MoveToAny(TObject* p, TVMFFIAny* r) {
    CopyToAnyView(p, r);
    if (p != nullptr) details::ObjectUnsafe::IncRef(p);
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    return s->type_index >= kTVMFFIStaticObjectBegin &&
           details::AnyObject(s)->template IsInstance<Raw>();
  }
  static TObject* CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    // storing a T* is always fine; handing out a mutable one needs a mutable type
    static_assert(std::is_const_v<TObject> || Raw::_type_mutable,
                  "reading a non-const object pointer from Any needs _type_mutable = true");
    return static_cast<TObject*>(details::AnyObject(s));
  }
  static std::optional<TObject*> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return CopyFromAnyViewAfterCheck(s);
    return std::nullopt;
  }
  static std::string TypeStr() { return Raw::_type_key; }
  static std::string TypeSchema() { return details::SchemaOf(Raw::_type_key); }
};

TVM_FFI_NS_END
#endif  // TVM_FFI_TYPE_TRAITS_H_
