/*
 * tvm/ffi/extra/visit_error_context.h -- where in a tree a visitor failed.
 *
 * A recursive visitor wraps the work on each node in
 *
 *   TVM_FFI_VISIT_BEGIN();  ...  TVM_FFI_VISIT_END(node);
 *
 * (or throws with TVM_FFI_VISIT_THROW(Kind, node) << "message"); an Error
 * passing through then records the nodes it left, innermost first, in a
 * VisitErrorContext kept as the error's extra_context (a context already
 * there that is not one is kept as prev_error_context).  Afterwards
 * VisitErrorContext::FindAccessPaths(root, context) turns the recorded nodes
 * into reflection::AccessPaths from `root`.
 *
 * The object is the runtime's ffi.VisitErrorContext (same layout); the search
 * is its global ffi.VisitErrorContext.FindAccessPaths (see tvm_ffi_extra(3)).
 */
#ifndef TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
#define TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief The nodes a failing visit was on (innermost first), and an earlier extra context. */
class VisitErrorContextObj : public Object {
 public:
  List<ObjectRef> reverse_visit_pattern;
  Optional<ObjectRef> prev_error_context;

  static constexpr bool _type_mutable = true;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.VisitErrorContext", VisitErrorContextObj, Object);
};

class VisitErrorContext : public ObjectRef {
 public:
  explicit VisitErrorContext(ObjectPtr<VisitErrorContextObj> n) : ObjectRef(std::move(n)) {
    TVM_FFI_ICHECK_NOTNULL(data_.get());
  }

  /*! \brief The error's visit context, if its extra_context is one. */
  static Optional<VisitErrorContext> TryGetFromError(const Error& err) {
    if (std::optional<ObjectRef> extra = err.extra_context()) return extra->as<VisitErrorContext>();
    return std::nullopt;
  }

  /*!
   * \brief The paths from `root` along which the recorded nodes occur, outermost first
   * (with allow_prefix_match, also where only a leading part of them does).
   */
  TVM_FFI_EXTRA_CXX_API static Array<reflection::AccessPath> FindAccessPaths(
      const ObjectRef& root, const VisitErrorContext& visit_context,
      bool allow_prefix_match = false);

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitErrorContext, ObjectRef, VisitErrorContextObj);
};

#ifdef TVM_FFI_EXTRA_CXX_INLINE_BODIES
TVM_FFI_EXTRA_CXX_API Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(
    const ObjectRef& root, const VisitErrorContext& visit_context, bool allow_prefix_match) {
  static const Function find = Function::GetGlobalRequired("ffi.VisitErrorContext.FindAccessPaths");
  return find(root, visit_context, allow_prefix_match).cast<Array<reflection::AccessPath>>();
}
#endif

namespace details {
/*! \brief A context recording `node` alone. */
inline TVM_FFI_COLD_UNOPT VisitErrorContext MakeVisitErrorContext(const ObjectRef& node) {
  ObjectPtr<VisitErrorContextObj> ctx = make_object<VisitErrorContextObj>();
  ctx->reverse_visit_pattern = List<ObjectRef>{node};
  return VisitErrorContext(std::move(ctx));
}

/*! \brief Records that `err` left `node`: appended to its visit context, made if absent. */
inline TVM_FFI_COLD_UNOPT void UpdateVisitErrorContext(Error& err, const ObjectRef& node) {
  std::optional<ObjectRef> extra = err.extra_context();
  if (extra.has_value()) {
    if (Optional<VisitErrorContext> ctx = extra->as<VisitErrorContext>()) {
      ctx.value()->reverse_visit_pattern.push_back(node);
      return;
    }
  }
  VisitErrorContext ctx = MakeVisitErrorContext(node);
  if (extra.has_value()) ctx->prev_error_context = *extra;
  // The error's extra_context slot is owned: swap in the new context.
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(RefHandle(err));
  if (cell->extra_context != nullptr) TVMFFIObjectDecRef(cell->extra_context);
  TVMFFIObjectIncRef(RefHandle(ctx));
  cell->extra_context = RefHandle(ctx);
}
/*! \brief As above for a node held in an AnyView (non-objects are not recorded). */
inline TVM_FFI_COLD_UNOPT void UpdateVisitErrorContext(Error& err, AnyView node) noexcept {
  if (node.type_index() >= kTVMFFIStaticObjectBegin) {
    UpdateVisitErrorContext(err, node.cast<ObjectRef>());
  }
}
/*! \brief As above for an error held in a raw result slot. */
inline TVM_FFI_COLD_UNOPT void UpdateVisitErrorContext(const TVMFFIAny& result,
                                                       AnyView node) noexcept {
  if (node.type_index() >= kTVMFFIStaticObjectBegin) {
    Error err = AnyView::CopyFromTVMFFIAny(result).cast<Error>();
    UpdateVisitErrorContext(err, node.cast<ObjectRef>());
  }
}

/*! \brief Collects the message of TVM_FFI_VISIT_THROW and throws the Error when destroyed. */
class VisitErrorBuilder {
 public:
  VisitErrorBuilder(const char* kind, const TVMFFIByteArray* backtrace, VisitErrorContext context)
      : kind_(kind),
        backtrace_(backtrace ? std::string(backtrace->data, backtrace->size) : std::string()),
        context_(std::move(context)) {}
  VisitErrorBuilder(const VisitErrorBuilder&) = delete;
  VisitErrorBuilder& operator=(const VisitErrorBuilder&) = delete;
  MsgStream& stream() { return stream_; }
  [[noreturn]] ~VisitErrorBuilder() noexcept(false) {
    Error err(kind_, stream_.str(), backtrace_, std::nullopt, ObjectRef(context_));
    if (TVM_FFI_ALWAYS_LOG_BEFORE_THROW) std::fprintf(stderr, "%s", err.FullMessage().c_str());
    throw err;
  }

 private:
  const char* kind_;
  std::string backtrace_;
  VisitErrorContext context_;
  MsgStream stream_;
};
}  // namespace details

TVM_FFI_NS_END

/*! \brief Opens the part of a visit whose errors record `node` (closed by TVM_FFI_VISIT_END). */
#define TVM_FFI_VISIT_BEGIN() try {
/*! \brief Closes TVM_FFI_VISIT_BEGIN: an Error records `node`, then propagates. */
#define TVM_FFI_VISIT_END(node)                                                 \
  }                                                                             \
  catch (::tvm::ffi::Error & tvm_ffi_visit_error_) {                            \
    ::tvm::ffi::details::UpdateVisitErrorContext(tvm_ffi_visit_error_, (node)); \
    throw;                                                                      \
  }
/*! \brief As TVM_FFI_VISIT_END, returning the Error as an Unexpected instead. */
#define TVM_FFI_VISIT_END_RETURN_EXPECTED(node)                                 \
  }                                                                             \
  catch (::tvm::ffi::Error & tvm_ffi_visit_error_) {                            \
    ::tvm::ffi::details::UpdateVisitErrorContext(tvm_ffi_visit_error_, (node)); \
    return ::tvm::ffi::Unexpected(tvm_ffi_visit_error_);                        \
  }
/*! \brief Throws ErrorKind << message with a visit context already recording `node`. */
#define TVM_FFI_VISIT_THROW(ErrorKind, node)                                                       \
  ::tvm::ffi::details::VisitErrorBuilder(#ErrorKind,                                               \
                                         TVMFFIBacktrace(__FILE__, __LINE__, TVM_FFI_FUNC_SIG, 0), \
                                         ::tvm::ffi::details::MakeVisitErrorContext(node))         \
      .stream()

#endif  // TVM_FFI_EXTRA_VISIT_ERROR_CONTEXT_H_
