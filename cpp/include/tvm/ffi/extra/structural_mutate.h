/*
 * tvm/ffi/extra/structural_mutate.h -- structural mutation from C++ (the
 * protocol of ABI 0.1.16): UnchangedOr<T> (a replacement or "keep the
 * input"), InplaceMode, StructuralMutatorObj (a mutator: an object with a
 * vtable of raw entry points and the def-region kind), the header-only
 * engines StructuralMutateEngine (callbacks owning their recursion),
 * StructuralMapEngine (typed replacement callbacks, pre- or post-order) and
 * StructuralMapDynEngine (the same with ffi.Functions), StructuralMutate /
 * StructuralMap over them, and `__s_mutate__` / `__s_maybe_inplace_mutate__`
 * hooks.
 *
 * How a value is mutated when no callback takes it (container elements and
 * map values copy-on-write or in place, reflected fields of a shallow copy,
 * def regions, the variable remap of free variables and DAG nodes, a type's
 * hooks) is the runtime's rule, written once: DefaultMutateExpected calls the
 * runtime's default (ffi.StructuralMutateDefaultEntry), which mutates each
 * child back through this mutator's vtable.  See docs/cpp.md §16.
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
#define TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/extra/structural_callback.h>
#include <tvm/ffi/extra/structural_visit.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/native_function.h>

#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

TVM_FFI_NS_BEGIN

/*! \brief Whether a mutation may reuse a uniquely owned input. */
enum class InplaceMode : int32_t {
  kDisallow = 0,  // copy-on-write: the input is never changed
  kAllow = 1,     // a uniquely owned input may be changed in place
};

/*! \brief Marker result: keep the input as it is (type index kTVMFFIUnchanged). */
struct Unchanged {};

template <>
struct TypeTraits<Unchanged> : public TypeTraitsBase {
  static void CopyToAnyView(const Unchanged&, TVMFFIAny* r) {
    r->type_index = kTVMFFIUnchanged;
    r->zero_padding = 0;
    r->v_int64 = 0;
  }
  static void MoveToAny(Unchanged v, TVMFFIAny* r) { CopyToAnyView(v, r); }
  static bool CheckAnyStrict(const TVMFFIAny* s) { return s->type_index == kTVMFFIUnchanged; }
  static Unchanged CopyFromAnyViewAfterCheck(const TVMFFIAny*) { return {}; }
  static std::optional<Unchanged> TryCastFromAnyView(const TVMFFIAny* s) {
    if (CheckAnyStrict(s)) return Unchanged{};
    return std::nullopt;
  }
  static std::string TypeStr() { return "Unchanged"; }
  static std::string TypeSchema() { return details::SchemaOf("Any"); }
};

/*! \brief Either a replacement T or Unchanged. */
template <typename T>
class UnchangedOr {
  template <typename U>
  static constexpr bool converts_from_v =
      std::is_convertible_v<U, T> &&
      (!std::is_same_v<std::decay_t<U>, Any> || std::is_same_v<T, Any>);

 public:
  UnchangedOr(Unchanged) noexcept {}  // NOLINT(*)
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, Unchanged> &&
                                                    !std::is_same_v<std::decay_t<U>, UnchangedOr>>>
  UnchangedOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT(*)
  /*! \brief From another UnchangedOr whose values convert implicitly (Unchanged stays). */
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, T> && converts_from_v<const U&>>>
  UnchangedOr(const UnchangedOr<U>& other) {  // NOLINT(*)
    if (!other.IsUnchanged()) value_.emplace(T(other.value()));
  }
  template <typename U, typename = std::enable_if_t<!std::is_same_v<U, T> && converts_from_v<U&&>>>
  UnchangedOr(UnchangedOr<U>&& other) {  // NOLINT(*)
    if (!other.IsUnchanged()) value_.emplace(T(std::move(other).ValueUnchecked()));
  }

  bool IsUnchanged() const noexcept { return !value_.has_value(); }
  /*! \brief True when unchanged or the replacement is the very same value as `input`. */
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
  /*! \brief The replacement (the caller knows there is one). */
  T ValueUnchecked() && { return *std::move(value_); }
  const T& value() const& { return *value_; }
  /*! \brief The replacement as a U when it is exactly one (nullopt when unchanged or not). */
  template <typename U>
  std::optional<U> as() && {
    if (IsUnchanged()) return std::nullopt;
    return AnyView(*value_).template as<U>();
  }
  /*! \brief As an UnchangedOr<U> (Unchanged stays); TypeError when the replacement is not a U. */
  template <typename R>
  R as_or_throw() && {
    using U = std::decay_t<decltype(std::declval<R&&>().ValueUnchecked())>;
    if (IsUnchanged()) return R(Unchanged{});
    return R(AnyView(*value_).template as_or_throw<U>());
  }

 private:
  std::optional<T> value_;
  template <typename, typename>
  friend struct TypeTraits;
};

template <typename T, typename U>
struct type_subsumes<UnchangedOr<T>, UnchangedOr<U>>
    : std::bool_constant<std::is_same_v<T, Any> || type_subsumes_v<T, U>> {};

template <typename T>
struct TypeTraits<UnchangedOr<T>> : public TypeTraitsBase {
  static void MoveToAny(UnchangedOr<T> v, TVMFFIAny* r) {
    if (v.IsUnchanged()) return TypeTraits<Unchanged>::MoveToAny(Unchanged{}, r);
    if constexpr (std::is_same_v<T, Any>) {
      *r = details::AnyUnsafe::MoveAnyToTVMFFIAny(*std::move(v.value_));
    } else {
      TypeTraits<T>::MoveToAny(*std::move(v.value_), r);
    }
  }
  static void CopyToAnyView(const UnchangedOr<T>& v, TVMFFIAny* r) {
    if (v.IsUnchanged()) return TypeTraits<Unchanged>::CopyToAnyView(Unchanged{}, r);
    if constexpr (std::is_same_v<T, Any>) {
      *r = *details::AnyUnsafe::GetRaw(&*v.value_);
    } else {
      TypeTraits<T>::CopyToAnyView(*v.value_, r);
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* s) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return s->type_index == kTVMFFIUnchanged || TypeTraits<T>::CheckAnyStrict(s);
    }
  }
  static UnchangedOr<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIUnchanged) return Unchanged{};
    if constexpr (std::is_same_v<T, Any>) {
      return UnchangedOr<T>(Any(AnyView::CopyFromTVMFFIAny(*s)));
    } else {
      return UnchangedOr<T>(TypeTraits<T>::CopyFromAnyViewAfterCheck(s));
    }
  }
  static std::optional<UnchangedOr<T>> TryCastFromAnyView(const TVMFFIAny* s) {
    if (s->type_index == kTVMFFIUnchanged) return UnchangedOr<T>(Unchanged{});
    if constexpr (std::is_same_v<T, Any>) {
      return UnchangedOr<T>(Any(AnyView::CopyFromTVMFFIAny(*s)));
    } else {
      if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(s))
        return UnchangedOr<T>(*std::move(v));
      return std::nullopt;
    }
  }
  static std::string TypeStr() { return "UnchangedOr<" + details::Type2Str<T>::v() + ">"; }
  static std::string TypeSchema() { return details::Type2Schema<T>::v(); }
};

class StructuralMutatorObj;
/*! \brief Raw entry points: `value` is borrowed; the result, owned, is a value, Unchanged or an ffi.Error. */
using FStructuralMutateABI = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView value) noexcept;
using FStructuralVarRemapGet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var) noexcept;
using FStructuralVarRemapSet = TVMFFIAny (*)(StructuralMutatorObj* mutator, AnyView var,
                                             AnyView mapped) noexcept;
/*! \brief A mutator's vtable (the runtime calls it with the same C layout). */
struct StructuralMutatorVTable {
  FStructuralMutateABI mutate = nullptr;                // copy-on-write
  FStructuralMutateABI maybe_inplace_mutate = nullptr;  // the caller owns `value` uniquely
  FStructuralVarRemapGet var_remap_get = nullptr;       // replacement of a variable, or None
  FStructuralVarRemapSet var_remap_set = nullptr;       // records one; None or an error
};

namespace details {
/* The runtime's default mutation (structural_mutate.c's default_entry). */
using SRawMutateFn = TVMFFIAny (*)(StructuralMutatorObj*, TVMFFIAny, int32_t);
inline SRawMutateFn StructuralMutateDefaultEntry() {
  static const SRawMutateFn fn = reinterpret_cast<SRawMutateFn>(
      Function::GetGlobalRequired("ffi.StructuralMutateDefaultEntry")().cast<void*>());
  return fn;
}
template <typename T>
inline Expected<T> SExpectedFromRaw(TVMFFIAny raw) noexcept {
  return ExpectedUnsafe::MoveFromTVMFFIAny<T>(raw);
}
inline bool SIsUnique(AnyView v) noexcept {
  return v.type_index() >= kTVMFFIStaticObjectBegin && AnyObject(AnyUnsafe::GetRaw(&v))->unique();
}
}  // namespace details

/*!
 * \brief A mutator, as the runtime lays it out: the object header, the vtable
 * (+24) and the def-region kind in effect (+32).  Engines derive from it;
 * `__s_mutate__` hooks receive it.
 */
class StructuralMutatorObj : public details::StructuralEngineObj<StructuralMutatorVTable> {
 public:
  /*! \brief The type engine callbacks receive (a layer may name itself). */
  using MutatorObjType = StructuralMutatorObj;

  explicit StructuralMutatorObj(const StructuralMutatorVTable* vtable)
      : StructuralEngineObj(vtable) {}

  /*!
   * \brief Mutates a value through this mutator.  With kAllow a value whose
   * object only the caller owns may be changed in place.
   */
  Expected<UnchangedOr<Any>> MutateExpected(AnyView value,
                                            InplaceMode mode = InplaceMode::kDisallow) noexcept {
    FStructuralMutateABI entry = mode == InplaceMode::kAllow && details::SIsUnique(value)
                                     ? vtable_->maybe_inplace_mutate
                                     : vtable_->mutate;
    return details::SExpectedFromRaw<UnchangedOr<Any>>(entry(this, value));
  }
  UnchangedOr<Any> Mutate(AnyView value, InplaceMode mode = InplaceMode::kDisallow) {
    return MutateExpected(value, mode).value();
  }
  /*!
   * \brief The runtime's mutation of a value's children (and its hooks), each
   * child through this mutator; kAllow changes `value` itself in place (the
   * caller vouches that it may).
   */
  Expected<UnchangedOr<Any>> DefaultMutateExpected(
      AnyView value, InplaceMode mode = InplaceMode::kDisallow) noexcept {
    return details::SExpectedFromRaw<UnchangedOr<Any>>(details::StructuralMutateDefaultEntry()(
        this, *details::AnyUnsafe::GetRaw(&value), static_cast<int32_t>(mode)));
  }
  /*! \brief The replacement recorded for a variable (None when none); TypeError for a non-object. */
  Expected<Any> VarRemapGetExpected(AnyView var) noexcept {
    return details::SExpectedFromRaw<Any>(vtable_->var_remap_get(this, var));
  }
  Expected<void> VarRemapSetExpected(AnyView var, AnyView mapped) noexcept {
    return details::SExpectedFromRaw<void>(vtable_->var_remap_set(this, var, mapped));
  }
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StructuralMutator", StructuralMutatorObj, Object);
};

/*! \brief Reference to a mutator. */
class StructuralMutator : public ObjectRef {
 public:
  explicit StructuralMutator(ObjectPtr<StructuralMutatorObj> n) : ObjectRef(std::move(n)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralMutator, ObjectRef, StructuralMutatorObj);
};

/*!
 * \brief The base of the engines: a mutator with a variable remap (free
 * variables and DAG nodes map to one result per walk).
 */
class StructuralMapEngineBase : public StructuralMutatorObj {
 public:
  explicit StructuralMapEngineBase(const StructuralMutatorVTable* vtable)
      : StructuralMutatorObj(vtable) {}

 protected:
  static TVMFFIAny RawVarRemapGet(StructuralMutatorObj* self, AnyView var) noexcept {
    if (var.type_index() < kTVMFFIStaticObjectBegin) return KeyError();
    auto& remap = static_cast<StructuralMapEngineBase*>(self)->var_remap_;
    auto it = remap.find(details::AnyObject(details::AnyUnsafe::GetRaw(&var)));
    Any out = it == remap.end() ? Any() : it->second.second;
    return details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(out));
  }
  static TVMFFIAny RawVarRemapSet(StructuralMutatorObj* self, AnyView var,
                                  AnyView mapped) noexcept {
    if (var.type_index() < kTVMFFIStaticObjectBegin) return KeyError();
    auto& remap = static_cast<StructuralMapEngineBase*>(self)->var_remap_;
    const Object* key = details::AnyObject(details::AnyUnsafe::GetRaw(&var));
    remap[key] = {var.cast<ObjectRef>(), Any(mapped)};
    return TVMFFIAny{};
  }
  /* The vtable of an engine over this base. */
  template <typename Engine>
  static constexpr StructuralMutatorVTable EngineVTable() {
    return {&Engine::RawMutate, &Engine::RawMaybeInplace, &RawVarRemapGet, &RawVarRemapSet};
  }

 private:
  TVM_FFI_COLD_UNOPT static TVMFFIAny KeyError() noexcept {
    const char msg[] = "Variable-remap key must be an object-backed value";
    return details::AnyUnsafe::MoveAnyToTVMFFIAny(
        Any(details::MakeError("TypeError", msg, sizeof(msg) - 1, nullptr)));
  }
  std::unordered_map<const Object*, std::pair<ObjectRef, Any>> var_remap_;
};

namespace details {
/* The common frame of an engine entry: the depth guard.  (Dispatch records the
 * node an error left.) */
template <typename Engine>
inline TVMFFIAny SMutateEnter(StructuralMutatorObj* self, AnyView value,
                              InplaceMode mode) noexcept {
  Engine* engine = static_cast<Engine*>(self);
  if (engine->depth_ >= kStructuralMaxDepth) return SDepthError();
  ++engine->depth_;
  Any data = engine->Dispatch(value, mode);
  --engine->depth_;
  return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(data));
}
#define TVM_FFI_S_MUTATE_ENGINE_ENTRIES_(Engine)                                                \
  template <typename>                                                                           \
  friend TVMFFIAny details::SMutateEnter(StructuralMutatorObj*, AnyView, InplaceMode) noexcept; \
  friend class StructuralMapEngineBase;                                                         \
  static TVMFFIAny RawMutate(StructuralMutatorObj* self, AnyView value) noexcept {              \
    return details::SMutateEnter<Engine>(self, value, InplaceMode::kDisallow);                  \
  }                                                                                             \
  static TVMFFIAny RawMaybeInplace(StructuralMutatorObj* self, AnyView value) noexcept {        \
    return details::SMutateEnter<Engine>(self, value, InplaceMode::kAllow);                     \
  }                                                                                             \
  inline static const StructuralMutatorVTable kVTable =                                         \
      StructuralMapEngineBase::EngineVTable<Engine>();                                          \
  int depth_ = 0

/*
 * mutate(x) of the map engines: post-order callback(D(x)), pre-order
 * D(callback(x)), where D is the engine's default mutation and callback(v, &data)
 * says whether a callback took v (data: its result).  A pre-order replacement is
 * changed in place only when it is the input itself or owned by nobody else.
 * An error records the node it left: the descended node when the post-order
 * callback failed on it, else v (as the runtime's ffi.StructuralMap does).
 */
template <WalkOrder order, typename Default, typename Callback>
inline Any SMapDispatch(AnyView v, InplaceMode mode, Default&& descend,
                        Callback&& callback) noexcept {
  Any data;
  if constexpr (order == WalkOrder::kPostOrder) {
    Any out = descend(v, mode);
    if (out.type_index() == kTVMFFIError) {
      SNoteErrorNode(out, v);
      return out;
    }
    AnyView mapped = out.type_index() == kTVMFFIUnchanged ? v : AnyView(out);
    if (!callback(mapped, &data)) return out;
    SNoteErrorNode(data, mapped);
    return data.type_index() == kTVMFFIUnchanged ? out : data;
  } else {
    Any out;
    if (!callback(v, &data)) {
      out = descend(v, mode);
    } else if (data.type_index() != kTVMFFIError) {
      bool unchanged = data.type_index() == kTVMFFIUnchanged;
      AnyView target = unchanged ? v : AnyView(data);
      bool keep = unchanged || data.same_as(Any(v)) || SIsUnique(target);
      out = descend(target, mode == InplaceMode::kAllow && keep ? InplaceMode::kAllow
                                                                : InplaceMode::kDisallow);
      if (out.type_index() == kTVMFFIUnchanged) out = std::move(data);
    } else {
      out = std::move(data);
    }
    SNoteErrorNode(out, v);
    return out;
  }
}
}  // namespace details

/*!
 * \brief A mutator whose first matching callback owns the value (it mutates what
 * it wants through the mutator it receives); other values get Parent's default.
 * Callbacks take (value, Parent::MutatorObjType*[, state...][, InplaceMode]) and
 * return a replacement, Unchanged, or an error (Expected, Unexpected or Error).
 */
template <typename Parent, typename... Callbacks>
class StructuralMutateEngine : public Parent {
 public:
  explicit StructuralMutateEngine(Callbacks... callbacks)
      : Parent(&kVTable), callbacks_(std::move(callbacks)...) {}

 private:
  TVM_FFI_S_MUTATE_ENGINE_ENTRIES_(StructuralMutateEngine);
  Any Dispatch(AnyView value, InplaceMode mode) noexcept {
    using Self = typename Parent::MutatorObjType;
    bool found = false;
    Any data = details::SCallFirst(callbacks_, value, std::make_tuple(static_cast<Self*>(this)),
                                   this->StateTuple(), mode, &found);
    if (!found) data = details::ExpectedUnsafe::GetData(Parent::DefaultMutateExpected(value, mode));
    details::SNoteErrorNode(data, value);
    return data;
  }
  std::tuple<Callbacks...> callbacks_;
};

/*!
 * \brief A mutator replacing values with typed callbacks, pre- or post-order
 * (see details::SMapDispatch).  Callbacks take (value[, state...][, def-region
 * kind]) and return a replacement, Unchanged, or an error.
 */
template <typename Parent, WalkOrder order, typename... Callbacks>
class StructuralMapEngine : public Parent {
 public:
  explicit StructuralMapEngine(Callbacks... callbacks)
      : Parent(&kVTable), callbacks_(std::move(callbacks)...) {}

 private:
  TVM_FFI_S_MUTATE_ENGINE_ENTRIES_(StructuralMapEngine);
  Any Dispatch(AnyView value, InplaceMode mode) noexcept {
    return details::SMapDispatch<order>(
        value, mode,
        [this](AnyView v, InplaceMode m) {
          return details::ExpectedUnsafe::GetData(Parent::DefaultMutateExpected(v, m));
        },
        [this](AnyView v, Any* data) {
          bool found = false;
          *data = details::SCallFirst(callbacks_, v, std::tuple<>(), this->StateTuple(),
                                      this->def_region_kind(), &found);
          return found;
        });
  }
  std::tuple<Callbacks...> callbacks_;
};

/*!
 * \brief StructuralMapEngine with ffi.Function callbacks chosen by type index
 * (ffi.StructuralMap's arguments: (type_index, f) entries called as f(value), and
 * entries called as f(value, def_region_kind)).
 */
template <typename Parent, WalkOrder order>
class StructuralMapDynEngine : public Parent {
 public:
  using Entries = Array<Tuple<int32_t, Function>>;
  StructuralMapDynEngine(Entries callbacks, Entries callbacks_with_def_region_kind)
      : Parent(&kVTable),
        callbacks_(std::move(callbacks)),
        with_kind_(std::move(callbacks_with_def_region_kind)) {}

 private:
  TVM_FFI_S_MUTATE_ENGINE_ENTRIES_(StructuralMapDynEngine);
  bool Call(AnyView v, Any* data) noexcept {
    int32_t t = v.type_index();
    for (const Entries* entries : {&callbacks_, &with_kind_}) {
      for (const Tuple<int32_t, Function>& e : *entries) {
        if (!details::SDynTypeMatches(t, e.template get<0>())) continue;
        bool kind = entries == &with_kind_;
        *data = details::SCatchToData([&]() {
          return kind ? e.template get<1>()(v, static_cast<int32_t>(this->def_region_kind()))
                      : e.template get<1>()(v);
        });
        return true;
      }
    }
    return false;
  }
  Any Dispatch(AnyView value, InplaceMode mode) noexcept {
    return details::SMapDispatch<order>(
        value, mode,
        [this](AnyView v, InplaceMode m) {
          return details::ExpectedUnsafe::GetData(Parent::DefaultMutateExpected(v, m));
        },
        [this](AnyView v, Any* data) { return Call(v, data); });
  }
  Entries callbacks_;
  Entries with_kind_;
};

namespace details {
/* Runs an engine over a root held by value: a root only the caller owns may change in place. */
template <typename Engine, typename... Args>
inline Expected<Any> SRunMutateEngine(Any root, Args&&... args) {
  try {
    ObjectPtr<Engine> engine = make_object<Engine>(std::forward<Args>(args)...);
    Expected<UnchangedOr<Any>> r = engine->MutateExpected(root, InplaceMode::kAllow);
    if (r.is_err()) return std::move(r).error();
    Any data = ExpectedUnsafe::GetData(r);
    if (data.type_index() == kTVMFFIUnchanged) return root;
    return std::move(data);
  } catch (const Error& err) {
    return err;
  }
}
}  // namespace details

/*! \brief Mutates `root` with callbacks owning their recursion (see StructuralMutateEngine). */
template <typename... Callbacks>
Expected<Any> StructuralMutateExpected(Any root, Callbacks&&... callbacks) {
  using Engine = StructuralMutateEngine<StructuralMapEngineBase, std::decay_t<Callbacks>...>;
  return details::SRunMutateEngine<Engine>(std::move(root), std::forward<Callbacks>(callbacks)...);
}
template <typename... Callbacks>
Any StructuralMutate(Any root, Callbacks&&... callbacks) {
  return StructuralMutateExpected(std::move(root), std::forward<Callbacks>(callbacks)...).value();
}
/*! \brief Maps `root` with typed replacement callbacks (see StructuralMapEngine). */
template <WalkOrder order, typename... Callbacks>
Expected<Any> StructuralMapExpected(Any root, Callbacks&&... callbacks) {
  using Engine = StructuralMapEngine<StructuralMapEngineBase, order, std::decay_t<Callbacks>...>;
  return details::SRunMutateEngine<Engine>(std::move(root), std::forward<Callbacks>(callbacks)...);
}
template <WalkOrder order, typename... Callbacks>
Any StructuralMap(Any root, Callbacks&&... callbacks) {
  return StructuralMapExpected<order>(std::move(root), std::forward<Callbacks>(callbacks)...)
      .value();
}

namespace details {
/* The raw entry point stored for a `__s_mutate__` / `__s_maybe_inplace_mutate__` hook
 * written as Expected<UnchangedOr<Any>> Hook(StructuralMutatorObj*, AnyView) noexcept. */
template <auto Hook>
inline TVMFFIAny StructuralMutateHookThunk(StructuralMutatorObj* self, AnyView value) noexcept {
  return AnyUnsafe::MoveAnyToTVMFFIAny(
      SCatchToData([&]() { return SResultData(Hook(self, value)); }));
}
/* The value of a mutate result as a `Type` (UnchangedOr<U> or a plain type), strictly. */
template <typename Type, typename R>
inline Expected<Type> SMutateResultAs(R&& result) {
  Any data = SResultData(std::forward<R>(result));
  if (data.type_index() == kTVMFFIError)
    return AnyUnsafe::MoveFromAnyAfterCheck<Error>(std::move(data));
  if (!AnyUnsafe::CheckAnyStrict<Type>(data)) {
    return Error("TypeError",
                 "structural mutate: a result of type `" + data.GetTypeKey() +
                     "` does not match the declared type `" + Type2Str<Type>::v() + "`",
                 "");
  }
  return Expected<Type>(UnsafeInit{}, std::move(data));
}
}  // namespace details

namespace reflection {
namespace details {
/* A mutate hook is stored as its raw entry point, which the runtime and
 * upstream-built engines call directly.  Exactly the hook's result type: see
 * the visit hook in extra/structural_visit.h. */
template <auto Fn>
struct NativeHook<Fn, std::enable_if_t<std::is_same_v<
                          std::invoke_result_t<decltype(Fn), StructuralMutatorObj*, AnyView>,
                          Expected<UnchangedOr<Any>>>>> {
  static Any Value() {
    ::tvm::ffi::FStructuralMutateABI thunk = &::tvm::ffi::details::StructuralMutateHookThunk<Fn>;
    return Any(reinterpret_cast<void*>(thunk));
  }
};
}  // namespace details
}  // namespace reflection

/*!
 * \brief Declares `Name` of `Type` from a mutate result (an Expected, a value, ...),
 * returning its error, or a TypeError when the value is not a `Type`.
 */
#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                                 \
  TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(TVM_FFI_STR_CONCAT(tvm_ffi_mutate_, __COUNTER__), Type, \
                                          Name, ResultExpr)
#define TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(Result, Type, Name, ResultExpr)  \
  auto Result = ::tvm::ffi::details::SMutateResultAs<Type>(ResultExpr);          \
  if (Result.is_err())                                                           \
    return ::tvm::ffi::Unexpected<::tvm::ffi::Error>(std::move(Result).error()); \
  Type Name = std::move(Result).value()

/*!
 * \brief As TVM_FFI_S_MUTATE_ASSIGN_OR_RETURN, for a success value the caller
 *  guarantees to be a `Type`: it is moved out with no type check.
 */
#define TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN(Type, Name, ResultExpr)                           \
  TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(TVM_FFI_STR_CONCAT(tvm_ffi_mutate_, __COUNTER__), \
                                                 Type, Name, ResultExpr)
#define TVM_FFI_UNSAFE_S_MUTATE_ASSIGN_OR_RETURN_IMPL_(Result, Type, Name, ResultExpr) \
  auto Result = (ResultExpr);                                                          \
  if (Result.is_err()) return std::move(Result).error();                               \
  Type Name = ::tvm::ffi::details::AnyUnsafe::MoveFromAnyAfterCheck<Type>(             \
      ::tvm::ffi::details::ExpectedUnsafe::GetData(Result))

namespace type_attr {
/*! \brief A type's own structural mutation: a raw entry point (FStructuralMutateABI)
 * or an ffi.Function called as (mutator, value). */
inline constexpr reflection::AttrKey<void*> kStructuralMutate{"__s_mutate__"};
/*! \brief The same for a value its caller owns uniquely (may change it in place). */
inline constexpr reflection::AttrKey<void*> kStructuralMaybeInplaceMutate{
    "__s_maybe_inplace_mutate__"};
}  // namespace type_attr

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_STRUCTURAL_MUTATE_H_
