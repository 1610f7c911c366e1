/*
 * tvm/ffi/extra/structural_mutate.h -- customising structural mutation from
 * C++: UnchangedOr<T> (a replacement or "keep the input"), InplaceMode, the
 * StructuralMutatorObj a `__s_mutate__` hook receives, and
 * type_attr::kStructuralMutate.
 *
 * The mutation engines are the runtime's (ffi.StructuralMutate,
 * ffi.StructuralMap).  A mutator object has the layout the runtime and C++
 * engines share (object header, vtable of raw entry points, def-region kind),
 * and a hook registered with
 * TypeAttrDef<T>().native_fn_attr<&Hook>(type_attr::kStructuralMutate) is
 * stored as the raw entry point the runtime calls directly.  Upstream's
 * header-only engines are not provided.  See tvm_ffi_extra(3).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
#define TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <optional>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Whether a mutation may reuse a uniquely owned input. */
enum class InplaceMode : int32_t {
  kDisallow = 0,  // copy-on-write: the input is never changed
  kAllow = 1,     // a uniquely owned input may be changed in place
};

/*! \brief Marker result: keep the input as it is (type index kTVMFFIUnchanged). */
struct Unchanged {};

/*! \brief Either a replacement T or Unchanged. */
template <typename T>
class UnchangedOr {
 public:
  UnchangedOr(Unchanged) noexcept {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, Unchanged> &&
                                                    !std::is_same_v<std::decay_t<U>, UnchangedOr>>>
  UnchangedOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT(*)

  bool IsUnchanged() const noexcept { return !value_.has_value(); }
  /*! \brief True when unchanged or the replacement is the very same object as `input`. */
  template <typename U>
  bool UnchangedOrSameAs(const U& input) const {
    if (IsUnchanged()) return true;
    if constexpr (std::is_base_of_v<ObjectRef, T> && std::is_base_of_v<ObjectRef, U>) {
      return value_->same_as(input);
    } else {
      return Any(*value_).same_as(Any(input));
    }
  }
  /*! \brief The replacement, or `input` when unchanged. */
  T ValueOrUnchanged(T input) && {
    return value_.has_value() ? *std::move(value_) : std::move(input);
  }
  const T& value() const& { return *value_; }

 private:
  std::optional<T> value_;
  template <typename, typename>
  friend struct TypeTraits;
};

template <typename T>
struct TypeTraits<UnchangedOr<T>> : public TypeTraitsBase {
  static void MoveToAny(UnchangedOr<T> v, TVMFFIAny* r) {
    if (v.IsUnchanged()) {
      r->type_index = kTVMFFIUnchanged;
      r->zero_padding = 0;
      r->v_int64 = 0;
      return;
    }
    if constexpr (std::is_same_v<T, Any>) {
      *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(*std::move(v.value_));
    } else {
      TypeTraits<T>::MoveToAny(*std::move(v.value_), r);
    }
  }
  static void CopyToAnyView(const UnchangedOr<T>& v, TVMFFIAny* r) { MoveToAny(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return s->type_index == kTVMFFIUnchanged || TypeTraits<T>::CheckAnyStrict(s);
    }
  }
  static std::optional<UnchangedOr<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIUnchanged) return UnchangedOr<T>(Unchanged{});
    if constexpr (std::is_same_v<T, Any>) {
      return UnchangedOr<T>(AnyView::CopyFromTVMFFIAny(*s));
    } else {
      if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s)) {
        return UnchangedOr<T>(*std::move(v));
      }
      return std::nullopt;
    }
  }
  static UnchangedOr<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    return *TryCastFromAnyView(s);
  }
  static std::string TypeStr() { return "UnchangedOr<" + details::Type2Str<T>::v() + ">"; }
  static std::string TypeSchema() { return details::Type2Schema<T>::v(); }
};

class StructuralMutatorObj;
/*! \brief Raw entry points of a mutator: results are a value, Unchanged or an owned ffi.Error. */
struct StructuralMutatorVTable {
  TVMFFIAny (*mutate)(StructuralMutatorObj* self, TVMFFIAny value);
  TVMFFIAny (*maybe_inplace_mutate)(StructuralMutatorObj* self, TVMFFIAny value);
  TVMFFIAny (*var_remap_get)(StructuralMutatorObj* self, TVMFFIAny var);
  TVMFFIAny (*var_remap_set)(StructuralMutatorObj* self, TVMFFIAny var, TVMFFIAny mapped);
};

/*! \brief A mutator (the runtime's ffi.StructuralMutator layout). */
class StructuralMutatorObj : public Object {
 public:
  /*! \brief Mutates a child value through this mutator (type hooks, var remap, ...). */
  template <typename T>
  Expected<UnchangedOr<T>> MutateExpected(const T& value, InplaceMode mode) noexcept {
    try {
      Any input(value);
      TVMFFIAny raw = *details::AnyUnsafe::GetRaw(&input);
      const bool unique = raw.type_index >= kTVMFFIStaticObjectBegin &&
                          details::AnyObject(&raw)->use_count() <= 2;  // `value` and `input`
      TVMFFIAny out = (mode == InplaceMode::kAllow && unique && vtable_->maybe_inplace_mutate)
                          ? vtable_->maybe_inplace_mutate(this, raw)
                          : vtable_->mutate(this, raw);
      Any result = details::AnyUnsafe::MoveTVMFFIAnyToAny(&out);
      if (std::optional<Error> err = result.as<Error>()) return Unexpected<Error>(*std::move(err));
      std::optional<UnchangedOr<T>> typed =
          TypeTraits<UnchangedOr<T>>::TryCastFromAnyView(details::AnyUnsafe::GetRaw(&result));
      if (!typed.has_value()) {
        return Unexpected<Error>(Error("TypeError",
                                       "structural mutate: a hook returned `" +
                                           result.GetTypeKey() + "` where `" +
                                           details::Type2Str<T>::v() + "` was declared",
                                       ""));
      }
      return *std::move(typed);
    } catch (const Error& err) {
      return Unexpected<Error>(err);
    }
  }
  template <typename T>
  UnchangedOr<T> Mutate(const T& value, InplaceMode mode = InplaceMode::kDisallow) {
    return MutateExpected(value, mode).value();
  }
  TVMFFIDefRegionKind def_region_kind() const noexcept {
    return static_cast<TVMFFIDefRegionKind>(def_region_);
  }

  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralMutator", StructuralMutatorObj, Object);

 protected:
  explicit StructuralMutatorObj(const StructuralMutatorVTable* vtable) : vtable_(vtable) {}
  const StructuralMutatorVTable* vtable_;
  int32_t def_region_ = kTVMFFIDefRegionKindNone;
};

namespace details {
/* The raw entry point stored for a `__s_mutate__` hook written as
 * Expected<UnchangedOr<Any>> Hook(StructuralMutatorObj*, AnyView) noexcept. */
template <auto Hook>
inline TVMFFIAny StructuralMutateHookThunk(StructuralMutatorObj* self, TVMFFIAny value) {
  Expected<UnchangedOr<Any>> r = Hook(self, AnyView::CopyFromTVMFFIAny(value));
  Any out = r.is_err() ? Any(r.error()) : Any(r.value());
  return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(out));
}
}  // namespace details

namespace reflection {
namespace details {
/* A mutate hook is stored as the raw entry point the runtime calls directly. */
/* Exactly the hook's result type: is_invocable_r would also take other two-argument
 * hooks whose result converts, e.g. __any_equal__'s bool(const Any&, const Any&). */
template <auto Fn>
struct NativeHook<Fn, std::enable_if_t<std::is_same_v<
                          std::invoke_result_t<decltype(Fn), StructuralMutatorObj*, AnyView>, Expected<UnchangedOr<Any>>>>> {
  static Any Value() {
    TVMFFIAny (*thunk)(StructuralMutatorObj*, TVMFFIAny) =
        &::tvm::ffi::details::StructuralMutateHookThunk<Fn>;
    return Any(reinterpret_cast<void*>(thunk));
  }
};
}  // namespace details
}  // namespace reflection

/*! \brief Declares `Name` from an Expected<UnchangedOr<..>> result, returning its error. */
#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                        \
  TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(TVM_FFI_STR_CONCAT(tvm_ffi_mutate_, __COUNTER__), \
                                          Type, Name, ResultExpr)
#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(Result, Type, Name, ResultExpr) \
  auto Result = (ResultExpr);                                                   \
  if (Result.is_err()) return Result.error();                                   \
  Type Name = Result.value()

/*!
 * \brief As TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN, for a success value the caller
 *  guarantees to be a `Type`: it is moved out with no type check.
 */
#define TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                  \
  TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(                                         \
      TVM_FFI_STR_CONCAT(tvm_ffi_mutate_, __COUNTER__), Type, Name, ResultExpr)
#define TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(Result, Type, Name, ResultExpr) \
  auto Result = (ResultExpr);                                                          \
  if (Result.is_err()) return std::move(Result).error();                               \
  Type Name = ::tvm::ffi::details::AnyUnsafe::MoveFromAnyAfterCheck<Type>(              \
      ::tvm::ffi::details::ExpectedUnsafe::GetData(Result))

namespace type_attr {
/*! \brief A type's own structural mutation (a raw entry point, see above). */
inline constexpr reflection::AttrKey<void*> kStructuralMutate{"__s_mutate__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
