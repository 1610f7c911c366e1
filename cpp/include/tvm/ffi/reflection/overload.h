/*
 * tvm/ffi/reflection/overload.h -- OverloadObjectDef<T>: ObjectDef where
 * def(name, ...), def_static(name, ...) and def(init<...>()) may be given
 * several times under one name:
 *
 *   refl::OverloadObjectDef<ShapeObj>()
 *       .def(refl::init<int32_t>()).def(refl::init<float>())
 *       .def_static("scale", &Scale<int>).def_static("scale", &Scale<float>);
 *
 * A call picks the first overload whose parameters take the arguments as
 * they are (no conversion), else the first that takes them after conversion;
 * otherwise the first overload's error is raised.  Every overload is listed
 * as a method of that name with its own type schema; each entry calls the
 * same dispatcher.  Constructors are the method and type attribute
 * __ffi_init__.
 */
#ifndef TVM_FFI_REFLECTION_OVERLOAD_H_
#define TVM_FFI_REFLECTION_OVERLOAD_H_

#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

TVM_FFI_NS_BEGIN
namespace reflection {
namespace details {

template <typename List>
struct OverloadMatch;
/* Whether the arguments fit parameters A...: strictly (stored as they are) or after conversion. */
template <typename... A>
struct OverloadMatch<::tvm::ffi::details::TypeList<A...>> {
  static bool Match(const AnyView* args, int32_t n, bool strict) {
    return n == static_cast<int32_t>(sizeof...(A)) &&
           Each(args, strict, std::index_sequence_for<A...>{});
  }
  template <size_t... I>
  static bool Each(const AnyView* args, bool strict, std::index_sequence<I...>) {
    (void)args;
    (void)strict;
    return (One<A>(args[I], strict) && ...);
  }
  template <typename T>
  static bool One(const AnyView& arg, bool strict) {
    const TVMFFIAny* raw = ::tvm::ffi::details::AnyUnsafe::GetRaw(&arg);
    if constexpr (std::is_same_v<std::remove_cv_t<std::remove_reference_t<T>>, Any> ||
                  std::is_same_v<std::remove_cv_t<std::remove_reference_t<T>>, AnyView>) {
      return true;
    } else if (strict) {
      return ::tvm::ffi::TypeTraitsNoCR<T>::CheckAnyStrict(raw);
    } else {
      return ::tvm::ffi::TypeTraitsNoCR<T>::TryCastFromAnyView(raw).has_value();
    }
  }
};

/* The overloads of one name: a matcher (receiver excluded) and the function each. */
struct OverloadSet {
  struct Entry {
    bool (*match)(const AnyView*, int32_t, bool);
    int32_t skip;  // leading arguments the matcher ignores (the receiver)
    Function func;
  };
  std::vector<Entry> entries;

  Function Dispatcher(const std::shared_ptr<OverloadSet>& self) const {
    return Function::FromPacked([self](PackedArgs args, Any* rv) {
      for (bool strict : {true, false}) {
        for (const Entry& e : self->entries) {
          if (args.size() < e.skip) continue;
          if (e.match(args.data() + e.skip, args.size() - e.skip, strict)) {
            e.func.CallPacked(args.data(), args.size(), rv);
            return;
          }
        }
      }
      self->entries.front().func.CallPacked(args.data(), args.size(), rv);  // its error
    });
  }
};
}  // namespace details

template <typename Class>
class OverloadObjectDef : public ObjectDef<Class> {
 public:
  using ObjectDef<Class>::ObjectDef;

  template <typename F, typename... Extra>
  OverloadObjectDef& def(const char* name, F f, Extra&&... extra) {
    using Params = typename ::tvm::ffi::details::FuncTraits<F>::ArgsList;
    Add(name, false, 1, &details::OverloadMatch<Params>::Match, details::AdaptMethod(std::move(f)),
        std::forward<Extra>(extra)...);
    return *this;
  }
  template <typename F, typename... Extra>
  OverloadObjectDef& def_static(const char* name, F f, Extra&&... extra) {
    using Params = typename ::tvm::ffi::details::FuncTraits<F>::ArgsList;
    Add(name, true, 0, &details::OverloadMatch<Params>::Match, std::move(f),
        std::forward<Extra>(extra)...);
    return *this;
  }
  template <typename... Args, typename... Extra>
  OverloadObjectDef& def(init<Args...> i, Extra&&... extra) {
    if (!i.enabled) return *this;
    this->has_init_ = true;
    auto make = [](Args... args) {
      return ObjectRef(make_object<Class>(std::forward<Args>(args)...));
    };
    Add("__ffi_init__", true, 0,
        &details::OverloadMatch<::tvm::ffi::details::TypeList<Args...>>::Match, make,
        std::forward<Extra>(extra)...);
    // The attribute is set once: its dispatcher sees the constructors added later.
    const std::shared_ptr<details::OverloadSet>& set = sets_["__ffi_init__"];
    if (set->entries.size() == 1) this->def_type_attr("__ffi_init__", set->Dispatcher(set));
    return *this;
  }

 private:
  template <typename G, typename... Extra>
  void Add(const char* name, bool is_static, int32_t skip,
           bool (*match)(const AnyView*, int32_t, bool), G g, Extra&&... extra) {
    std::shared_ptr<details::OverloadSet>& set = sets_[name];
    if (!set) set = std::make_shared<details::OverloadSet>();
    std::string full = std::string(Class::_type_key) + "." + name;
    set->entries.push_back({match, skip, Function::FromTyped(g, full)});
    this->RegisterMethodAs(name, is_static, set->Dispatcher(set),
                           ::tvm::ffi::details::FuncTraitsOf<G>::Schema(),
                           std::forward<Extra>(extra)...);
  }

  std::map<std::string, std::shared_ptr<details::OverloadSet>> sets_;
};

}  // namespace reflection
TVM_FFI_NS_END
#endif  // TVM_FFI_REFLECTION_OVERLOAD_H_
