/*
 * tvm/ffi/reflection/registry.h -- registering global functions (GlobalDef)
 * and reflected object types (ObjectDef) through the C registration API.
 *
 *   namespace refl = tvm::ffi::reflection;
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     refl::GlobalDef().def("pkg.add_one", AddOne);
 *     refl::ObjectDef<MyObj>().def_ro("x", &MyObj::x).def(refl::init<int64_t>());
 *   }
 */
#ifndef TVM_FFI_REFLECTION_REGISTRY_H_
#define TVM_FFI_REFLECTION_REGISTRY_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>
#include <tvm/ffi/string.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

TVM_FFI_NS_BEGIN
namespace reflection {

/*! \brief Extra key/value metadata (values: int, bool or string). */
struct Metadata {
  Metadata(std::initializer_list<std::pair<std::string, Any>> e) : entries(e) {}
  std::vector<std::pair<std::string, Any>> entries;
};

/*! \brief Field default value. */
struct DefaultValue {
  explicit DefaultValue(Any v) : value(std::move(v)) {}
  Any value;
};
using default_value = DefaultValue;
/*! \brief Field default produced by calling a factory. */
struct DefaultFactory {
  explicit DefaultFactory(Function f) : factory(std::move(f)) {}
  Function factory;
};
using default_factory = DefaultFactory;

/*! \brief Sets or clears a field flag. */
struct AttachFieldFlag {
  int64_t flag;
  bool set;
  static AttachFieldFlag SEqHashIgnore() { return {kTVMFFIFieldFlagBitMaskSEqHashIgnore, true}; }
  static AttachFieldFlag SEqHashDefRecursive() {
    return {kTVMFFIFieldFlagBitMaskSEqHashDefRecursive, true};
  }
  static AttachFieldFlag SEqHashDefNonRecursive() {
    return {kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive, true};
  }
  /* The 0.1.16 names of the same two flags. */
  static AttachFieldFlag SEqHashDefPattern() { return SEqHashDefRecursive(); }
  static AttachFieldFlag SEqHashDefSimple() { return SEqHashDefNonRecursive(); }
};
inline AttachFieldFlag repr(bool on) { return {kTVMFFIFieldFlagBitMaskReprOff, !on}; }
inline AttachFieldFlag compare(bool on) { return {kTVMFFIFieldFlagBitMaskCompareOff, !on}; }
inline AttachFieldFlag hash(bool on) { return {kTVMFFIFieldFlagBitMaskHashOff, !on}; }
inline AttachFieldFlag kw_only(bool on) { return {kTVMFFIFieldFlagBitMaskKwOnly, on}; }

/*! \brief Constructor marker for ObjectDef::def; init(false) suppresses the automatic init. */
template <typename... Args>
struct init {
  explicit init(bool enable = true) : enabled(enable) {}
  bool enabled;
};

namespace details {
using ::tvm::ffi::details::AnyUnsafe;
inline TVMFFIByteArray BA(const std::string& s) { return {s.data(), s.size()}; }

/* Collected docstring, metadata and field options from the variadic extras. */
struct Extras {
  std::string doc;
  std::string metadata;  // ",\"k\":v" fragments
  int64_t flags_set = 0;
  int64_t flags_clear = 0;
  std::optional<Any> default_value;
  bool default_is_factory = false;

  void Add(const char* d) { doc = d; }
  void Add(const std::string& d) { doc = d; }
  // a template, so that a TU without metadata instantiates none of its conversions
  template <typename M, typename = std::enable_if_t<std::is_same_v<M, Metadata>>>
  void Add(const M& m) {
    for (const auto& kv : m.entries) {
      std::string v;
      const Any& a = kv.second;
      if (auto b = a.as<bool>()) {
        v = *b ? "true" : "false";
      } else if (auto i = a.as<int64_t>()) {
        v = std::to_string(*i);
      } else if (auto s = a.try_cast<std::string>()) {
        v = std::string(EscapeStringJSON(String(*s)).view());
      } else {
        TVM_FFI_THROW(TypeError) << "Metadata value of `" << kv.first
                                 << "` must be int, bool or string, but got `" << a.GetTypeKey()
                                 << "`";
      }
      metadata += "," + std::string(EscapeStringJSON(String(kv.first)).view()) + ":" + v;
    }
  }
  void Add(const DefaultValue& d) { default_value = d.value; }
  void Add(const DefaultFactory& d) {
    default_value = Any(d.factory);
    default_is_factory = true;
  }
  void Add(const AttachFieldFlag& f) {
    if (f.set)
      flags_set |= f.flag;
    else
      flags_clear |= f.flag;
  }
  template <typename... A>
  void Add(const init<A...>& i) {
    if (!i.enabled) flags_set |= kTVMFFIFieldFlagBitMaskInitOff;
  }
  /* {"type_schema":"..."} plus user metadata. */
  TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT std::string MetadataJSON(const std::string& schema) const {
    std::string out = "{";
    if (!schema.empty())
      out += "\"type_schema\":" + std::string(EscapeStringJSON(String(schema)).view());
    if (!metadata.empty()) out += schema.empty() ? metadata.substr(1) : metadata;
    return out + "}";
  }
};
template <typename... Extra>
inline Extras CollectExtras(Extra&&... extra) {
  Extras e;
  (e.Add(extra), ...);
  return e;
}

/* The registration steps below are plain functions, compiled once per TU: a definition
 * instantiates only the typed wrapper and passes its schema as a function. */

/* A global function (type_index < 0) or a method of type_index. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void RegisterMethodInfo(
    int32_t type_index, const char* name, bool is_static, const Function& f,
    const std::string& schema, const Extras& e) {
  std::string n = name, meta = e.MetadataJSON(schema);
  TVMFFIMethodInfo info{};
  info.name = BA(n);
  info.doc = BA(e.doc);
  info.metadata = BA(meta);
  info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
  info.method = AnyView(f).CopyToTVMFFIAny();
  if (type_index < 0) {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0));
  } else {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMethod(type_index, &info));
  }
}
inline void RegisterGlobal(const char* name, const Function& f, const std::string& schema,
                           const Extras& e) {
  RegisterMethodInfo(-1, name, false, f, schema, e);
}
/* A typed global without extras; `schema` makes its signature's schema text. */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void RegisterGlobalTyped(
    const char* name, const Function& f, std::string (*schema)(const char*)) {
  RegisterMethodInfo(-1, name, false, f, schema("ffi.Function"), Extras());
}
/* A field: what depends on its type is in `info` (size, offset, accessors). */
inline TVM_FFI_NO_INLINE TVM_FFI_COLD_UNOPT void RegisterFieldInfo(int32_t type_index,
                                                                   const char* name, bool writable,
                                                                   const std::string& schema,
                                                                   const Extras& e,
                                                                   TVMFFIFieldInfo* info) {
  std::string n = name, meta = e.MetadataJSON(schema);
  info->name = BA(n);
  info->doc = BA(e.doc);
  info->metadata = BA(meta);
  info->flags = (writable ? kTVMFFIFieldFlagBitMaskWritable : 0) | e.flags_set;
  info->flags &= ~e.flags_clear;
  ::tvm::ffi::details::AnySetNone(&info->default_value_or_factory);
  if (e.default_value.has_value()) {
    info->flags |= kTVMFFIFieldFlagBitMaskHasDefault;
    if (e.default_is_factory) info->flags |= kTVMFFIFieldFlagBitMaskDefaultFromFactory;
    info->default_value_or_factory = AnyView(*e.default_value).CopyToTVMFFIAny();
  }
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(type_index, info));
}

/* Member-function pointers become callables taking the receiver first. */
template <typename F>
struct MethodAdapter {
  static F&& Adapt(F&& f) { return std::forward<F>(f); }
};
template <typename C, typename R, typename... Args>
inline auto AdaptMethod(R (C::*f)(Args...) const) {
  if constexpr (std::is_base_of_v<Object, C>) {
    return
        [f](const C* self, Args... args) -> R { return (self->*f)(std::forward<Args>(args)...); };
  } else {
    return [f](C self, Args... args) -> R { return (self.*f)(std::forward<Args>(args)...); };
  }
}
template <typename C, typename R, typename... Args>
inline auto AdaptMethod(R (C::*f)(Args...)) {
  if constexpr (std::is_base_of_v<Object, C>) {
    return [f](const C* self, Args... args) -> R {
      return (const_cast<C*>(self)->*f)(std::forward<Args>(args)...);
    };
  } else {
    return [f](C self, Args... args) -> R { return (self.*f)(std::forward<Args>(args)...); };
  }
}
template <typename F>
inline F AdaptMethod(F f) {
  return f;
}

/* Field accessors registered with the runtime. */
template <typename T>
int FieldGetter(void* field, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  Any v(*static_cast<T*>(field));
  *result = AnyUnsafe::MoveAnyToTVMFFIAny(std::move(v));
  TVM_FFI_SAFE_CALL_END();
}
template <typename T>
int FieldSetter(void* field, const TVMFFIAny* value) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if constexpr (std::is_same_v<T, Any>) {
    *static_cast<T*>(field) = Any(AnyView::CopyFromTVMFFIAny(*value));
  } else {
    *static_cast<T*>(field) = AnyView::CopyFromTVMFFIAny(*value).cast<T>();
  }
  TVM_FFI_SAFE_CALL_END();
}
/* Schema and static type index of a field type (Any has no TypeTraits). */
template <typename T>
TVM_FFI_COLD_UNOPT std::string FieldSchema() {
  if constexpr (std::is_same_v<T, Any>)
    return ::tvm::ffi::details::SchemaOf("Any");
  else
    return TypeTraits<T>::TypeSchema();
}
template <typename T>
constexpr int32_t FieldStaticTypeIndex() {
  if constexpr (std::is_same_v<T, Any>)
    return kTVMFFIAny;
  else
    return TypeTraits<T>::field_static_type_index;
}
/* A class reflection can make empty: default-constructible, or constructible
 * from UnsafeInit (fields left for the setters to fill). */
template <typename Class>
inline constexpr bool kCreatable =
    std::is_default_constructible_v<Class> || std::is_constructible_v<Class, UnsafeInit>;
template <typename Class>
ObjectPtr<Class> MakeEmpty() {
  if constexpr (std::is_default_constructible_v<Class>) {
    return make_object<Class>();
  } else {
    return make_object<Class>(UnsafeInit{});
  }
}
template <typename Class>
int ObjectCreator(TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *out = ::tvm::ffi::details::ObjectUnsafe::MoveObjectPtrToHandle(MakeEmpty<Class>());
  TVM_FFI_SAFE_CALL_END();
}
}  // namespace details

/*! \brief Offset of a field measured from the object header. */
template <typename Class, typename T>
inline int64_t GetFieldByteOffsetToObject(T Class::* field) {
  alignas(Class) static char storage[sizeof(Class)];  // never constructed: address arithmetic only
  Class* p = reinterpret_cast<Class*>(storage);
  return reinterpret_cast<char*>(&(p->*field)) - reinterpret_cast<char*>(static_cast<Object*>(p));
}

namespace details {
/* A Python-defined subclass of Class (docs/cpp.md §5) lays its fields out from
 * Class's data size -- sizeof less the tail padding a derived class reuses --
 * so that they never overlap members reflection does not know about. */
template <typename Class>
int64_t DataSize() {
  struct Probe : Class {
    char tail;
  };
  return GetFieldByteOffsetToObject(&Probe::tail);
}

/* __ffi_construct_at__ (a C entry point, so no typed wrapper per class):
 * makes the Class part of a Python-defined subclass's object a real Class at
 * an address -- default-made, or copied from an object's Class part --
 * leaving the header to the caller, and returns the deleter that, with the
 * strong bit alone, runs ~Class() there and keeps the memory.  The checks and
 * error handling are one body for every class (ConstructAtCall); only the
 * constructor calls are per class (ConstructAtMake). */
using ConstructAtFn = void (*)(void* addr, const Object* src);
TVM_FFI_NO_INLINE inline int ConstructAtCall(const TVMFFIAny* args, int32_t num_args,
                                             TVMFFIAny* result, size_t align, const char* key,
                                             ConstructAtFn make, FObjectDeleter deleter) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if (num_args != 2 || args[0].type_index != kTVMFFIOpaquePtr || args[0].v_ptr == nullptr ||
      reinterpret_cast<uintptr_t>(args[0].v_ptr) % align != 0 ||
      (args[1].type_index != kTVMFFINone && args[1].type_index < kTVMFFIStaticObjectBegin)) {
    TVM_FFI_THROW(TypeError) << "__ffi_construct_at__ of `" << key << "` takes an address "
                             << "aligned to " << align << " and an object to copy or None";
  }
  const Object* src =
      args[1].type_index == kTVMFFINone ? nullptr : reinterpret_cast<const Object*>(args[1].v_obj);
  if (make == nullptr) {
    TVM_FFI_THROW(TypeError) << "`" << key
                             << "` has no copy constructor, so objects of a Python-defined "
                                "subclass cannot be copied";
  }
  make(args[0].v_ptr, src);
  result->type_index = kTVMFFIOpaquePtr;
  result->zero_padding = 0;
  result->v_ptr = reinterpret_cast<void*>(deleter);
  TVM_FFI_SAFE_CALL_END();
}
[[noreturn]] TVM_FFI_NO_INLINE inline void ConstructAtWrongSource(const char* key,
                                                                  const Object* src) {
  TVM_FFI_THROW(TypeError) << "__ffi_construct_at__: cannot copy a `" << key << "` from a `"
                           << src->GetTypeKey() << "`";
  TVM_FFI_UNREACHABLE();
}
template <typename Class>
void ConstructAtMake(void* addr, const Object* src) {
  if (src == nullptr) {
    if constexpr (std::is_default_constructible_v<Class>) {
      new (addr) Class();
    } else {
      new (addr) Class(UnsafeInit{});
    }
  } else if constexpr (std::is_copy_constructible_v<Class>) {
    if (!src->IsInstance<Class>()) ConstructAtWrongSource(Class::_type_key, src);
    new (addr) Class(*static_cast<const Class*>(src));
  }
}
template <typename Class>
int ConstructAt(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  // a class without a copy constructor: only default ones, copies refused
  ConstructAtFn make =
      std::is_copy_constructible_v<Class> || (num_args == 2 && args[1].type_index == kTVMFFINone)
          ? ConstructAtMake<Class>
          : nullptr;
  return ConstructAtCall(args, num_args, result, alignof(Class), Class::_type_key, make,
                         ::tvm::ffi::details::ObjAllocator<Class>::Deleter);
}

/* Registers __ffi_data_size__ (when data_size > 0) and __ffi_construct_at__
 * (when given) for a type: one body for every class. */
TVM_FFI_NO_INLINE inline void RegisterSubclassSupport(int32_t type_index, int64_t data_size,
                                                      TVMFFISafeCallType construct_at) {
  if (data_size > 0) {
    Any v(data_size);
    TVMFFIByteArray n{"__ffi_data_size__", 17};
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITypeRegisterAttr(type_index, &n, ::tvm::ffi::details::AnyUnsafe::GetRaw(&v)));
  }
  if (construct_at != nullptr) {
    Any f(Function::FromExternC(nullptr, construct_at, nullptr));
    TVMFFIByteArray n{"__ffi_construct_at__", 20};
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITypeRegisterAttr(type_index, &n, ::tvm::ffi::details::AnyUnsafe::GetRaw(&f)));
  }
}
}  // namespace details

/*! \brief Registers global functions; use as a temporary and chain calls. */
class GlobalDef {
 public:
  template <typename F, typename... Extra>
  TVM_FFI_COLD_UNOPT GlobalDef& def(const char* name, F&& f, Extra&&... extra) {
    auto g = details::AdaptMethod(std::forward<F>(f));
    using G = decltype(g);
    if constexpr (sizeof...(Extra) == 0) {
      // the schema text and the (empty) extras are made in the cold function
      details::RegisterGlobalTyped(name, Function::FromTyped(std::move(g), name),
                                   &::tvm::ffi::details::FuncTraitsOf<G>::Schema);
    } else {
      details::RegisterGlobal(name, Function::FromTyped(std::move(g), name),
                              ::tvm::ffi::details::FuncTraitsOf<G>::Schema(),
                              details::CollectExtras(std::forward<Extra>(extra)...));
    }
    return *this;
  }
  template <typename F, typename... Extra>
  GlobalDef& def_packed(const char* name, F f, Extra&&... extra) {
    details::RegisterGlobal(name, Function::FromPacked(std::move(f)),
                            ::tvm::ffi::details::SchemaOf("ffi.Function"),
                            details::CollectExtras(std::forward<Extra>(extra)...));
    return *this;
  }
  template <typename F, typename... Extra>
  GlobalDef& def_method(const char* name, F&& f, Extra&&... extra) {
    return def(name, std::forward<F>(f), std::forward<Extra>(extra)...);
  }
};

namespace details {
/* A type attribute value: stored as is when it converts to Any, else (a
 * function, lambda or member function) as an ffi.Function. */
template <typename V>
inline Any TypeAttrValue(V value) {
  if constexpr (TypeTraits<V>::convert_enabled || std::is_same_v<V, Any>) {
    return Any(std::move(value));
  } else {
    return Any(Function::FromTyped(AdaptMethod(std::move(value))));
  }
}
/* The __ffi_convert__ attribute def_convert<TSelf>() registers: a value that
 * converts to TSelf, or TypeError. */
template <typename TSelf>
inline Function ConvertFunction() {
  return Function::FromTyped([](AnyView value) -> TSelf {
    if (std::optional<TSelf> r = value.try_cast<TSelf>()) return *std::move(r);
    TVM_FFI_THROW(TypeError) << "Cannot cast from `" << value.GetTypeKey() << "` to `"
                             << TypeTraits<TSelf>::TypeStr() << "`";
    TVM_FFI_UNREACHABLE();
  });
}
}  // namespace details

/*!
 * \brief Registers a type's fields, methods and constructor.  Use as a
 *  temporary; the destructor finishes the registration.
 */
template <typename Class>
class ObjectDef {
 public:
  template <typename... Extra>
  explicit ObjectDef(Extra&&... extra)
      : type_index_(Class::_GetOrAllocRuntimeTypeIndex()),
        extras_(details::CollectExtras(std::forward<Extra>(extra)...)) {}
  ObjectDef(const ObjectDef&) = delete;
  ObjectDef& operator=(const ObjectDef&) = delete;
  ~ObjectDef() noexcept(false) {
    TVMFFITypeMetadata meta{};
    meta.doc = details::BA(extras_.doc);
    if constexpr (details::kCreatable<Class>) meta.creator = details::ObjectCreator<Class>;
    meta.total_size = static_cast<int32_t>(sizeof(Class));
    meta.structural_eq_hash_kind = Class::_type_s_eq_hash_kind;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(type_index_, &meta));
    // Finality is published for tools (tvm-ffi-stubgen's layout report), as upstream does.
    def_type_attr("__ffi_type_final__", static_cast<bool>(Class::_type_final));
    const std::string key = Class::_type_key;
    if constexpr (std::is_copy_constructible_v<Class>) {
      // DeepCopy and copy.copy start from a copy of the C++ object
      def_type_attr("__ffi_shallow_copy__",
                    Function::FromTyped(
                        [](const Class* self) { return ObjectRef(make_object<Class>(*self)); },
                        key + ".__ffi_shallow_copy__"));
    }
    int64_t data_size = 0;
    if constexpr (!std::is_final_v<Class>) data_size = details::DataSize<Class>();
    TVMFFISafeCallType construct_at = nullptr;
    if constexpr (details::kCreatable<Class>) construct_at = details::ConstructAt<Class>;
    details::RegisterSubclassSupport(type_index_, data_size, construct_at);
    if constexpr (details::kCreatable<Class>) {
      def_type_attr("__ffi_new__",
                    Function::FromTyped([]() { return ObjectRef(details::MakeEmpty<Class>()); },
                                        key + ".__ffi_new__"));
      // Only creatable types get the generated keyword-capable __ffi_init__;
      // others keep "cannot be constructed" on the Python side.
      if (!has_init_ && !(extras_.flags_set & kTVMFFIFieldFlagBitMaskInitOff)) {
        if (std::optional<Function> f = Function::GetGlobal("ffi._RegisterFFIInit")) {
          (*f)(type_index_);
        }
      }
    }
  }

  template <typename T, typename Base, typename... Extra>
  TVM_FFI_COLD_UNOPT ObjectDef& def_ro(const char* name, T Base::* field, Extra&&... extra) {
    RegisterField(name, field, false, std::forward<Extra>(extra)...);
    return *this;
  }
  template <typename T, typename Base, typename... Extra>
  TVM_FFI_COLD_UNOPT ObjectDef& def_rw(const char* name, T Base::* field, Extra&&... extra) {
    static_assert(Class::_type_mutable, "def_rw requires _type_mutable = true");
    RegisterField(name, field, true, std::forward<Extra>(extra)...);
    return *this;
  }
  /// Instance method: a member pointer receives `const Class*`; a lambda's first parameter is the receiver.
  template <typename F, typename... Extra>
  TVM_FFI_COLD_UNOPT ObjectDef& def(const char* name, F&& f, Extra&&... extra) {
    RegisterMethod(name, false, details::AdaptMethod(std::forward<F>(f)),
                   std::forward<Extra>(extra)...);
    return *this;
  }
  template <typename F, typename... Extra>
  TVM_FFI_COLD_UNOPT ObjectDef& def_static(const char* name, F&& f, Extra&&... extra) {
    RegisterMethod(name, true, std::forward<F>(f), std::forward<Extra>(extra)...);
    return *this;
  }
  /// Constructor: registers type attribute __ffi_init__ building make_object<Class>(args...).
  template <typename... Args, typename... Extra>
  ObjectDef& def(init<Args...> i, Extra&&...) {
    if (!i.enabled) return *this;
    has_init_ = true;
    Function f = Function::FromTyped(
        [](Args... args) { return ObjectRef(make_object<Class>(std::forward<Args>(args)...)); },
        std::string(Class::_type_key) + ".__ffi_init__");
    def_type_attr("__ffi_init__", f);
    return *this;
  }
  /// Registers __ffi_convert__: how a value becomes a TSelf (a reference to Class).
  template <typename TSelf>
  ObjectDef& def_convert() {
    static_assert(std::is_same_v<typename TSelf::ContainerType, Class>,
                  "def_convert: TSelf must be the reference type of this class");
    return def_type_attr(::tvm::ffi::type_attr::kConvert.name, details::ConvertFunction<TSelf>());
  }
  /// A value, or a callable stored as an ffi.Function.
  template <typename V>
  ObjectDef& def_type_attr(const char* name, V value) {
    Any v = details::TypeAttrValue(std::move(value));
    TVMFFIByteArray n{name, std::char_traits<char>::length(name)};
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITypeRegisterAttr(type_index_, &n, ::tvm::ffi::details::AnyUnsafe::GetRaw(&v)));
    return *this;
  }

 private:
  template <typename T, typename Base, typename... Extra>
  TVM_FFI_COLD_UNOPT void RegisterField(const char* name, T Base::* field, bool writable,
                                        Extra&&... extra) {
    static_assert(std::is_base_of_v<Base, Class>, "field must belong to the class or a base");
    TVMFFIFieldInfo info{};
    info.size = sizeof(T);
    info.alignment = alignof(T);
    info.offset = GetFieldByteOffsetToObject<Class>(static_cast<T Class::*>(field));
    info.getter = details::FieldGetter<T>;
    info.setter = reinterpret_cast<void*>(details::FieldSetter<T>);
    info.field_static_type_index = details::FieldStaticTypeIndex<T>();
    details::RegisterFieldInfo(type_index_, name, writable, details::FieldSchema<T>(),
                               details::CollectExtras(std::forward<Extra>(extra)...), &info);
  }
  template <typename F, typename... Extra>
  TVM_FFI_COLD_UNOPT void RegisterMethod(const char* name, bool is_static, F f, Extra&&... extra) {
    std::string full = std::string(Class::_type_key) + "." + name;
    RegisterMethodAs(name, is_static, Function::FromTyped(std::move(f), full),
                     ::tvm::ffi::details::FuncTraitsOf<F>::Schema(), std::forward<Extra>(extra)...);
  }

 protected:
  /* Lists `func` as method `name` with the type schema `schema` (OverloadObjectDef lists
   * one dispatcher under each overload's schema). */
  template <typename... Extra>
  void RegisterMethodAs(const char* name, bool is_static, const Function& func,
                        const std::string& schema, Extra&&... extra) {
    details::RegisterMethodInfo(type_index_, name, is_static, func, schema,
                                details::CollectExtras(std::forward<Extra>(extra)...));
  }

  int32_t type_index_;
  details::Extras extras_;
  bool has_init_ = false;  // an explicit constructor was given (no generated __ffi_init__)
};

/*! \brief Attributes of a type (no fields). */
template <typename Class>
class TypeAttrDef {
 public:
  TypeAttrDef() : type_index_(Class::_GetOrAllocRuntimeTypeIndex()) {}
  /// A value, or a callable (function, lambda, member function) stored as an ffi.Function.
  template <typename V>
  TypeAttrDef& def(const char* name, V value) {
    Register(name, details::TypeAttrValue(std::move(value)));
    return *this;
  }
  template <typename V>
  TypeAttrDef& attr(const char* name, V value) {
    return def(name, std::move(value));
  }
  /// Registers __ffi_convert__: how a value becomes a TSelf (a reference to Class).
  template <typename TSelf>
  TypeAttrDef& def_convert() {
    static_assert(std::is_same_v<typename TSelf::ContainerType, Class>,
                  "def_convert: TSelf must be the reference type of this class");
    Register(::tvm::ffi::type_attr::kConvert.name, Any(details::ConvertFunction<TSelf>()));
    return *this;
  }
  /// A value of the key's type.
  template <typename T, typename V>
  TypeAttrDef& attr(AttrKey<T> key, V&& value) {
    Register(key.name, Any(T(std::forward<V>(value))));
    return *this;
  }
  /*!
   * \brief Stores a native hook under `key`, in the form the runtime calls for
   * that attribute (see reflection/native_function.h).
   */
  template <auto Fn, typename K>
  TypeAttrDef& native_fn_attr(AttrKey<K> key) {
    if constexpr (details::IsNativeFunctionView<K>::value) {
      Register(key.name, Any(K::template FromNative<Fn>()));
    } else {
      Register(key.name, details::NativeHookValue<Fn>());
    }
    return *this;
  }

 private:
  void Register(const char* name, Any v) {
    TVMFFIByteArray n{name, std::char_traits<char>::length(name)};
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFITypeRegisterAttr(type_index_, &n, ::tvm::ffi::details::AnyUnsafe::GetRaw(&v)));
  }

  int32_t type_index_;
};

/*! \brief Makes sure the attribute column `name` exists (empty for every type). */
inline void EnsureTypeAttrColumn(std::string_view name) {
  TVMFFIByteArray n{name.data(), name.size()};
  TVMFFIAny none{};
  none.type_index = kTVMFFINone;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(kTVMFFINone, &n, &none));
}
template <typename T>
inline void EnsureTypeAttrColumn(AttrKey<T> key) {
  EnsureTypeAttrColumn(std::string_view(key.name));
}

/*! \brief Tag selecting the const-qualified member function in overload_cast. */
struct ConstTag {};
inline constexpr ConstTag const_{};

namespace details {
/* Each operator() takes the overload set by address.  Deduction keeps the one
 * member whose parameters are exactly Prefix..., or, failing that, the one
 * member whose parameters start with Prefix... (the rest deduced); overloads
 * that several members satisfy do not deduce, so the caller spells more. */
template <typename... Prefix>
struct OverloadCast {
  template <typename R>
  constexpr auto operator()(R (*f)(Prefix...)) const noexcept {
    return f;
  }
  template <typename R, typename... Rest>
  constexpr auto operator()(R (*f)(Prefix..., Rest...)) const noexcept {
    return f;
  }
  template <typename R, typename C>
  constexpr auto operator()(R (C::*f)(Prefix...)) const noexcept {
    return f;
  }
  template <typename R, typename C, typename... Rest>
  constexpr auto operator()(R (C::*f)(Prefix..., Rest...)) const noexcept {
    return f;
  }
  template <typename R, typename C>
  constexpr auto operator()(R (C::*f)(Prefix...) const, ConstTag) const noexcept {
    return f;
  }
  template <typename R, typename C, typename... Rest>
  constexpr auto operator()(R (C::*f)(Prefix..., Rest...) const, ConstTag) const noexcept {
    return f;
  }
};
}  // namespace details

/*!
 * \brief Picks one function of an overload set by its leading parameter types:
 * `overload_cast<const Cat*>(&Pet::Feed)`; `overload_cast<int>(&T::Get, const_)`
 * for a const member function.  Usable in constant expressions.
 */
template <typename... Prefix>
inline constexpr details::OverloadCast<Prefix...> overload_cast{};

}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_REGISTRY_H_
