/*
 * tvm/ffi/function.h -- Function (packed, type-erased), TypedFunction, the
 * global registry and TVM_FFI_DLL_EXPORT_TYPED_FUNC.
 *
 * Functions created by these headers share one safe_call trampoline per
 * binary.  When C++ code calls a function whose safe_call is that trampoline,
 * it calls the C++ body directly (exceptions pass through unchanged, as
 * upstream's cpp_call path does); every other function is called through
 * safe_call and its raised error is rethrown as ffi::Error.  cpp_call stays
 * NULL, so no foreign binary ever unwinds through our frames.
 */
#ifndef TVM_FFI_FUNCTION_H_
#define TVM_FFI_FUNCTION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

TVM_FFI_NS_BEGIN

class Function;

/*! \brief Payload of Function: header followed by the C function cell. */
class FunctionObj : public Object, public TVMFFIFunctionCell {
 public:
  static constexpr int32_t _type_index = kTVMFFIFunction;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Function", FunctionObj, Object);
  inline void CallPacked(const AnyView* args, int32_t num_args, Any* rv) const;

 protected:
  FunctionObj() : TVMFFIFunctionCell{nullptr, nullptr} {}
};

namespace details {
/* Functions built by these headers: a C++ entry point after the cell. */
class FunctionObjCxx : public FunctionObj {
 public:
  using CallFn = void (*)(const FunctionObjCxx* self, const AnyView* args, int32_t num_args,
                          Any* rv);
  CallFn call_;

 protected:
  explicit FunctionObjCxx(CallFn call);
};

/* The shared C entry point of every function made by this binary. */
inline int FunctionSafeCallTrampoline(void* handle, const TVMFFIAny* args, int32_t num_args,
                                      TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  const FunctionObjCxx* self =
      static_cast<const FunctionObjCxx*>(ObjectUnsafe::ObjectFromHandle(handle));
  // the caller initialised *result to a non-object kind, i.e. a valid empty Any
  self->call_(self, reinterpret_cast<const AnyView*>(args), num_args,
              reinterpret_cast<Any*>(result));
  TVM_FFI_SAFE_CALL_END();
}

inline FunctionObjCxx::FunctionObjCxx(CallFn call) : call_(call) {
  this->safe_call = FunctionSafeCallTrampoline;
  this->cpp_call = nullptr;
}

template <typename F>
class FunctionObjImpl : public FunctionObjCxx {
 public:
  explicit FunctionObjImpl(F f) : FunctionObjCxx(Call), f_(std::move(f)) {}

 private:
  static void Call(const FunctionObjCxx* self, const AnyView* args, int32_t n, Any* rv) {
    static_cast<const FunctionObjImpl*>(self)->f_(args, n, rv);
  }
  mutable F f_;
};
}  // namespace details

inline void FunctionObj::CallPacked(const AnyView* args, int32_t num_args, Any* rv) const {
  if (safe_call == details::FunctionSafeCallTrampoline) {
    const details::FunctionObjCxx* self = static_cast<const details::FunctionObjCxx*>(this);
    self->call_(self, args, num_args, rv);
    return;
  }
  // the callee writes straight into *rv (reset to None, as the convention requires);
  // a failed callee leaves no owned value there
  rv->reset();
  int ret =
      safe_call(details::ObjectUnsafe::GetHeader(this), reinterpret_cast<const TVMFFIAny*>(args),
                num_args, details::AnyUnsafe::GetRaw(rv));
  if (TVM_FFI_PREDICT_FALSE(ret != 0)) details::ThrowRaised(ret);
}

/*! \brief A view of packed arguments. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) : data_(data), size_(size) {}
  int32_t size() const { return size_; }
  const AnyView* data() const { return data_; }
  PackedArgs Slice(int begin, int end = -1) const {
    if (end == -1) end = size_;
    return PackedArgs(data_ + begin, end - begin);
  }
  AnyView operator[](int i) const { return data_[i]; }
  template <typename... Args>
  static void Fill(AnyView* data, Args&&... args) {
    size_t i = 0;
    ((data[i++] = AnyView(args)), ...);
    (void)i;
  }

 private:
  const AnyView* data_;
  int32_t size_;
};

namespace details {
template <typename T>
inline AnyView ToAnyView(const T& v) {
  if constexpr (std::is_same_v<T, AnyView>)
    return v;
  else if constexpr (std::is_same_v<T, Any>)
    return AnyView(v);
  else
    return AnyView(v);
}
inline TVMFFIByteArray ToByteArray(std::string_view s) { return {s.data(), s.size()}; }
}  // namespace details

/*! \brief Reference to a callable FFI function (nullable). */
class Function : public ObjectRef {
 public:
  Function(std::nullptr_t) {}  // NOLINT(*)
  template <typename TCallable, typename = std::enable_if_t<
                                    std::is_invocable_v<TCallable, const AnyView*, int32_t, Any*> ||
                                    std::is_invocable_v<TCallable, PackedArgs, Any*>>>
  explicit Function(TCallable packed_call) : Function(FromPacked(std::move(packed_call))) {}

  /// Wraps `f(const AnyView*, int32_t, Any*)` or `f(PackedArgs, Any*)`.
  template <typename TCallable>
  static Function FromPacked(TCallable f) {
    if constexpr (std::is_invocable_v<TCallable, const AnyView*, int32_t, Any*>) {
      return FromObj(make_object<details::FunctionObjImpl<TCallable>>(std::move(f)));
    } else if constexpr (std::is_invocable_v<TCallable, PackedArgs, Any*>) {
      auto g = [f = std::move(f)](const AnyView* args, int32_t n, Any* rv) mutable {
        f(PackedArgs(args, n), rv);
      };
      return FromObj(make_object<details::FunctionObjImpl<decltype(g)>>(std::move(g)));
    } else {
      static_assert(details::always_false_v<TCallable>,
                    "FromPacked needs f(const AnyView*, int32_t, Any*) or f(PackedArgs, Any*)");
    }
  }
  /// Wraps a typed callable; arguments are converted, mismatches throw TypeError.
  template <typename TCallable>
  static Function FromTyped(TCallable f) {
    auto g = [f = std::move(f)](const AnyView* args, int32_t n, Any* rv) mutable {
      details::unpack_call<TCallable>(nullptr, f, args, n, rv);
    };
    return FromObj(make_object<details::FunctionObjImpl<decltype(g)>>(std::move(g)));
  }
  template <typename TCallable>
  static Function FromTyped(TCallable f, std::string name) {
    auto g = [f = std::move(f), name = std::move(name)](const AnyView* args, int32_t n,
                                                        Any* rv) mutable {
      details::unpack_call<TCallable>(name.c_str(), f, args, n, rv);
    };
    return FromObj(make_object<details::FunctionObjImpl<decltype(g)>>(std::move(g)));
  }
  /// Wraps a C entry point; deleter(self) runs when the function dies.
  static Function FromExternC(void* self, TVMFFISafeCallType safe_call,
                              void (*deleter)(void* self)) {
    TVMFFIObjectHandle h = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCreate(self, safe_call, deleter, &h));
    return FromObj(details::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(h));
  }
  /// Calls a C entry point directly; a failure is rethrown.
  template <typename... Args>
  static Any InvokeExternC(void* handle, TVMFFISafeCallType f, Args&&... args) {
    AnyView packed[sizeof...(Args) > 0 ? sizeof...(Args) : 1];
    PackedArgs::Fill(packed, std::forward<Args>(args)...);
    Any result;
    int ret = f(handle, reinterpret_cast<const TVMFFIAny*>(packed),
                static_cast<int32_t>(sizeof...(Args)), details::AnyUnsafe::GetRaw(&result));
    if (ret != 0) details::ThrowRaised(ret);
    return result;
  }

  static std::optional<Function> GetGlobal(std::string_view name) {
    TVMFFIByteArray n = details::ToByteArray(name);
    TVMFFIObjectHandle h = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionGetGlobal(&n, &h));
    if (h == nullptr) return std::nullopt;
    return FromObj(details::ObjectUnsafe::ObjectPtrFromOwned<FunctionObj>(h));
  }
  static std::optional<Function> GetGlobal(const std::string& name) {
    return GetGlobal(std::string_view(name));
  }
  static std::optional<Function> GetGlobal(const String& name) { return GetGlobal(name.view()); }
  static std::optional<Function> GetGlobal(const char* name) {
    return GetGlobal(std::string_view(name));
  }
  static Function GetGlobalRequired(std::string_view name) {
    std::optional<Function> f = GetGlobal(name);
    if (!f.has_value()) TVM_FFI_THROW(ValueError) << "Function " << name << " not found";
    return *std::move(f);
  }
  static Function GetGlobalRequired(const std::string& name) {
    return GetGlobalRequired(std::string_view(name));
  }
  static Function GetGlobalRequired(const String& name) { return GetGlobalRequired(name.view()); }
  static Function GetGlobalRequired(const char* name) {
    return GetGlobalRequired(std::string_view(name));
  }
  /// Registers `f` under `name`; RuntimeError if present and !override.
  static void SetGlobal(std::string_view name, Function f, bool override = false) {
    TVMFFIByteArray n = details::ToByteArray(name);
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobal(&n, details::RefHandle(f), override ? 1 : 0));
  }
  /// (A template only so that a TU that never calls it does not instantiate std::vector.)
  template <typename Vec = std::vector<String>>
  static Vec ListGlobalNames() {
    Function functor = GetGlobalRequired("ffi.FunctionListGlobalNamesFunctor")().cast<Function>();
    int64_t n = functor(-1).cast<int64_t>();
    Vec names;
    names.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) names.push_back(functor(i).cast<String>());
    return names;
  }
  static void RemoveGlobal(const String& name) {
    GetGlobalRequired("ffi.FunctionRemoveGlobal")(name);
  }

  /// Calls with arguments packed as views; returns the owned result.
  template <typename... Args>
  TVM_FFI_INLINE Any operator()(Args&&... args) const {
    constexpr size_t kNum = sizeof...(Args);
    AnyView packed[kNum > 0 ? kNum : 1];
    size_t i = 0;
    ((packed[i++] = details::ToAnyView(args)), ...);
    (void)i;
    Any rv;
    static_cast<const FunctionObj*>(data_.get())
        ->CallPacked(packed, static_cast<int32_t>(kNum), &rv);
    return rv;
  }
  /// Calls through safe_call; raised errors and returned Error objects become Unexpected.
  template <typename T = Any, typename... Args>
  Expected<T> CallExpected(Args&&... args) const {
    constexpr size_t kNum = sizeof...(Args);
    AnyView packed[kNum > 0 ? kNum : 1];
    size_t i = 0;
    ((packed[i++] = details::ToAnyView(args)), ...);
    (void)i;
    Any rv;
    const FunctionObj* obj = static_cast<const FunctionObj*>(data_.get());
    int ret = obj->safe_call(details::ObjectUnsafe::GetHeader(obj),
                             reinterpret_cast<const TVMFFIAny*>(packed), static_cast<int32_t>(kNum),
                             details::AnyUnsafe::GetRaw(&rv));
    if (ret != 0) return Unexpected<Error>(details::MoveFromSafeCallRaised());
    if (std::optional<Error> err = rv.as<Error>()) return Unexpected<Error>(*std::move(err));
    if constexpr (std::is_same_v<T, Any>) {
      return rv;
    } else if constexpr (std::is_void_v<T>) {
      if (rv.type_index() == kTVMFFINone) return Expected<void>();
      return Unexpected<Error>(Error(
          "TypeError",
          "CallExpected: result type mismatch, expected void, but got " + rv.GetTypeKey(), ""));
    } else {
      if (std::optional<T> v = rv.try_cast<T>()) return *std::move(v);
      return Unexpected<Error>(Error("TypeError",
                                     "CallExpected: result type mismatch, expected " +
                                         details::Type2Str<T>::v() + ", but got " + rv.GetTypeKey(),
                                     ""));
    }
  }
  void CallPacked(const AnyView* args, int32_t num_args, Any* rv) const {
    static_cast<const FunctionObj*>(data_.get())->CallPacked(args, num_args, rv);
  }
  void CallPacked(PackedArgs args, Any* rv) const { CallPacked(args.data(), args.size(), rv); }
  bool operator==(std::nullptr_t) const { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return data_ != nullptr; }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Function, ObjectRef, FunctionObj);

 private:
  template <typename T>
  static Function FromObj(ObjectPtr<T> p) {
    return Function(ObjectPtr<FunctionObj>(std::move(p)));
  }
};

template <typename FType>
class TypedFunction;

/*! \brief A Function with a static signature R(Args...). */
template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  using TSelf = TypedFunction<R(Args...)>;
  TypedFunction() = default;
  TypedFunction(std::nullptr_t) {}  // NOLINT(*)
  TypedFunction(Function packed) : packed_(std::move(packed)) {}  // NOLINT(*)
  template <typename FLambda,
            typename = std::enable_if_t<std::is_invocable_r_v<R, FLambda, Args...> &&
                                        !std::is_base_of_v<ObjectRef, std::decay_t<FLambda>> &&
                                        !std::is_same_v<std::decay_t<FLambda>, TSelf>>>
  TypedFunction(FLambda f) : packed_(Function::FromTyped(std::move(f))) {}  // NOLINT(*)
  template <typename FLambda>
  TypedFunction(FLambda f, std::string name)
      : packed_(Function::FromTyped(std::move(f), std::move(name))) {}
  TypedFunction& operator=(Function packed) {
    packed_ = std::move(packed);
    return *this;
  }
  template <typename FLambda,
            typename = std::enable_if_t<std::is_invocable_r_v<R, FLambda, Args...> &&
                                        !std::is_base_of_v<ObjectRef, std::decay_t<FLambda>> &&
                                        !std::is_same_v<std::decay_t<FLambda>, TSelf>>>
  TypedFunction& operator=(FLambda f) {
    packed_ = Function::FromTyped(std::move(f));
    return *this;
  }
  TVM_FFI_INLINE R operator()(Args... args) const {
    if constexpr (std::is_void_v<R>) {
      packed_(std::forward<Args>(args)...);
    } else {
      Any res = packed_(std::forward<Args>(args)...);
      if constexpr (std::is_same_v<R, Any>)
        return res;
      else
        return std::move(res).cast<R>();
    }
  }
  operator Function() const { return packed_; }  // NOLINT(*)
  const Function& packed() const& { return packed_; }
  Function packed() && { return std::move(packed_); }
  bool operator==(std::nullptr_t) const { return packed_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return packed_ != nullptr; }
  static std::string TypeSchema() { return details::FuncSig<R, Args...>::Schema(); }

 private:
  Function packed_;
};

template <typename FType>
struct TypeTraits<TypedFunction<FType>> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kTVMFFIFunction;
  using FT = TypeTraits<Function>;
  static void CopyToAnyView(const TypedFunction<FType>& f, TVMFFIAny* r) {
    FT::CopyToAnyView(f.packed(), r);
  }
  static void MoveToAny(TypedFunction<FType> f, TVMFFIAny* r) {
    FT::MoveToAny(std::move(f).packed(), r);
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIFunction; }
  static TypedFunction<FType> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return TypedFunction<FType>(FT::CopyFromAnyViewAfterCheck(s));
  }
  static TypedFunction<FType> MoveFromAnyAfterCheck(TVMFFIAny* s) {
    return TypedFunction<FType>(FT::MoveFromAnyAfterCheck(s));
  }
  static std::optional<TypedFunction<FType>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (std::optional<Function> f = FT::TryCastFromAnyView(s)) return TypedFunction<FType>(*f);
    return std::nullopt;
  }
  static std::string TypeStr() { return details::FuncTraits<FType>::Sig(); }
  static std::string TypeSchema() { return details::FuncTraits<FType>::Schema(); }
};

/*! \brief Type index of a registered key; throws if unknown. */
inline int32_t TypeKeyToIndex(std::string_view type_key) {
  TVMFFIByteArray k = details::ToByteArray(type_key);
  int32_t out = -1;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&k, &out));
  return out;
}

namespace details {
/* Result of an exported metadata symbol: {"type_schema":"<escaped schema>"}. */
template <typename F>
inline int ExportMetadata(TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  std::string json = "{\"type_schema\":" +
                     std::string(EscapeStringJSON(String(FuncTraitsOf<F>::Schema())).view()) + "}";
  *reinterpret_cast<Any*>(result) = String(json);
  TVM_FFI_SAFE_CALL_END();
}
inline int ExportDoc(const char* doc, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  *reinterpret_cast<Any*>(result) = String(doc);
  TVM_FFI_SAFE_CALL_END();
}
}  // namespace details

TVM_FFI_NS_END

/* ---- exporting typed functions as C symbols ---------------------------------------- */

#ifndef TVM_FFI_DLL_EXPORT_INCLUDE_METADATA
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 0
#endif

#if TVM_FFI_DLL_EXPORT_INCLUDE_METADATA
#define TVM_FFI_DLL_EXPORT_METADATA_(ExportName)                                                   \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##ExportName(void*, const TVMFFIAny*,      \
                                                                     int32_t, TVMFFIAny* result) { \
    return ::tvm::ffi::details::ExportMetadata<decltype(__tvm_ffi_export_fn_##ExportName)>(        \
        result);                                                                                   \
  }
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)                                  \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_##ExportName(void*, const TVMFFIAny*, int32_t, \
                                                                TVMFFIAny* result) {              \
    return ::tvm::ffi::details::ExportDoc(DocString, result);                                     \
  }
#else
#define TVM_FFI_DLL_EXPORT_METADATA_(ExportName)
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)
#endif

/*
 * Defines `extern "C" int __tvm_ffi_<ExportName>(void*, const TVMFFIAny*, int32_t, TVMFFIAny*)`.
 * The callable is bound to a static variable first, so lambdas work too.
 */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, ...)                                            \
  static auto __tvm_ffi_export_fn_##ExportName = (__VA_ARGS__);                                   \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi_##ExportName(void* self, const TVMFFIAny* args,     \
                                                           int32_t num_args, TVMFFIAny* result) { \
    (void)self;                                                                                   \
    TVM_FFI_SAFE_CALL_BEGIN();                                                                    \
    ::tvm::ffi::details::unpack_call<decltype(__tvm_ffi_export_fn_##ExportName)>(                 \
        #ExportName, __tvm_ffi_export_fn_##ExportName,                                            \
        reinterpret_cast<const ::tvm::ffi::AnyView*>(args), num_args,                             \
        reinterpret_cast<::tvm::ffi::Any*>(result));                                              \
    TVM_FFI_SAFE_CALL_END();                                                                      \
  }                                                                                               \
  TVM_FFI_DLL_EXPORT_METADATA_(ExportName)

#endif  // TVM_FFI_FUNCTION_H_
