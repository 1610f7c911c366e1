/*
 * tvm/ffi/extra/structural_visit.h -- customising structural walks from C++:
 * VisitInterrupt (a value that stops a walk), StructuralVisitorObj (the
 * visitor a `__s_visit__` hook receives) and type_attr::kStructuralVisit.
 *
 * The walks themselves are the runtime's (ffi.StructuralWalk,
 * ffi.StructuralVisit, structural equality's def regions); a hook registered
 * with TypeAttrDef<T>().native_fn_attr<&Hook>(type_attr::kStructuralVisit)
 * becomes the ffi.Function the runtime calls as (value, visitor), and the
 * visitor's methods call ffi.StructuralVisitorVisit and its siblings.
 * Upstream's header-only walk engines (a visitor carrying its own vtable)
 * are not provided.  See tvm_ffi_extra(3).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
#define TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Payload of the runtime's ffi.VisitInterrupt (static type index 77). */
class VisitInterruptObj : public Object {
 public:
  Any value;
  VisitInterruptObj() = default;
  explicit VisitInterruptObj(Any v) : value(std::move(v)) {}
  static constexpr int32_t _type_index = kTVMFFIVisitInterrupt;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.VisitInterrupt", VisitInterruptObj, Object);
};

/*! \brief Returned by a visit callback or hook to stop the walk, carrying a value. */
class VisitInterrupt : public ObjectRef {
 public:
  VisitInterrupt() : VisitInterrupt(Any(nullptr)) {}
  explicit VisitInterrupt(Any value) : ObjectRef(make_object<VisitInterruptObj>(std::move(value))) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitInterrupt, ObjectRef, VisitInterruptObj);
};

/*!
 * \brief The runtime's ffi.StructuralVisitor, valid during the walk that made
 * it.  Results are None (go on), a VisitInterrupt (stop) or an error.
 */
class StructuralVisitorObj : public Object {
 public:
  using Result = Expected<Optional<VisitInterrupt>>;

  /*! \brief Visits a child value (the runtime's walk, with this type's hooks). */
  Result VisitExpected(AnyView value) noexcept {
    try {
      static const Function visit = Function::GetGlobalRequired("ffi.StructuralVisitorVisit");
      return visit.CallExpected<Optional<VisitInterrupt>>(Self(), value);
    } catch (const Error& err) {
      return Unexpected<Error>(err);
    }
  }
  Optional<VisitInterrupt> Visit(AnyView value) { return VisitExpected(value).value(); }
  /*! \brief The def-region kind in effect (kTVMFFIDefRegionKind*). */
  TVMFFIDefRegionKind def_region_kind() const {
    static const Function kind = Function::GetGlobalRequired("ffi.StructuralVisitorDefRegionKind");
    return static_cast<TVMFFIDefRegionKind>(kind(Self()).cast<int>());
  }
  /*!
   * \brief Runs callback (returning Result) with the def-region kind set to
   * `kind`; inside a pattern region everything stays a pattern.
   */
  template <typename Callback>
  Result WithDefRegionKind(TVMFFIDefRegionKind kind, Callback&& callback) {
    if (def_region_kind() == kTVMFFIDefRegionKindPattern) return std::forward<Callback>(callback)();
    try {
      static const Function with = Function::GetGlobalRequired("ffi.StructuralVisitorWithDefRegionKind");
      Function body = Function::FromTyped(
          [&callback]() -> Optional<VisitInterrupt> { return callback().value(); });
      return with.CallExpected<Optional<VisitInterrupt>>(Self(), static_cast<int>(kind), body);
    } catch (const Error& err) {
      return Unexpected<Error>(err);
    }
  }

  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralVisitor", StructuralVisitorObj, Object);

 private:
  StructuralVisitorObj() = default;  // only the runtime makes visitors
  AnyView Self() const { return AnyView(static_cast<const Object*>(this)); }
};

namespace details {
inline bool StructuralVisitNeedEarlyReturn(const Optional<VisitInterrupt>& r) noexcept {
  return r.has_value();
}
template <typename T>
inline bool StructuralVisitNeedEarlyReturn(const Expected<T>& r) noexcept {
  return r.is_err() || r.value().has_value();
}
/* The ffi.Function the runtime calls for a `__s_visit__` hook written as
 * Expected<Optional<VisitInterrupt>> Hook(StructuralVisitorObj*, AnyView). */
template <auto Hook>
inline Function StructuralVisitHookFunction() {
  return Function::FromPacked([](PackedArgs args, Any* rv) {
    if (args.size() != 2 || args[1].type_index() < kTVMFFIStaticObjectBegin) {
      TVM_FFI_THROW(TypeError) << "__s_visit__ hook expects (value, ffi.StructuralVisitor)";
    }
    TVMFFIAny raw = args[1].CopyToTVMFFIAny();
    auto* visitor = static_cast<StructuralVisitorObj*>(AnyObject(&raw));
    Optional<VisitInterrupt> r = Hook(visitor, args[0]).value();
    *rv = r.has_value() ? Any(*std::move(r)) : Any(nullptr);
  });
}
}  // namespace details

namespace reflection {
namespace details {
/* A visit hook is stored as the ffi.Function the runtime's walks call. */
/* Exactly the hook's result type: is_invocable_r would also take other two-argument
 * hooks whose result converts, e.g. __any_equal__'s bool(const Any&, const Any&). */
template <auto Fn>
struct NativeHook<Fn, std::enable_if_t<std::is_same_v<
                          std::invoke_result_t<decltype(Fn), StructuralVisitorObj*, AnyView>, Expected<Optional<VisitInterrupt>>>>> {
  static Any Value() { return Any(::tvm::ffi::details::StructuralVisitHookFunction<Fn>()); }
};
}  // namespace details
}  // namespace reflection

/*! \brief Returns from the enclosing hook when a visit result is an interrupt or an error. */
#define TVM_FFI_S_VISIT_MAYBE_EARLY_RETURN(Result)                                         \
  do {                                                                                     \
    auto&& tvm_ffi_visit_result_ = (Result);                                               \
    if (::tvm::ffi::details::StructuralVisitNeedEarlyReturn(tvm_ffi_visit_result_)) {      \
      return ::std::move(tvm_ffi_visit_result_);                                           \
    }                                                                                      \
  } while (0)

namespace type_attr {
/*! \brief A type's own structural traversal (see StructuralVisitorObj). */
inline constexpr reflection::AttrKey<Function> kStructuralVisit{"__s_visit__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STRUCTURAL_VISIT_H_
