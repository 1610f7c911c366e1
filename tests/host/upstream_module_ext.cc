// A C++ extension built against the apache-tvm-ffi wheel's headers (not
// ours): a ModuleObj subclass, and functions that call the C++ API upstream's
// headers declare as exported by libtvm_ffi.so.  upstream_cxx_check.py loads
// it into our runtime (docs/cxx-abi.md).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <fstream>
#include <string>

namespace ffi = tvm::ffi;

namespace {

class DemoModule : public ffi::ModuleObj {
 public:
  explicit DemoModule(int64_t scale) : scale_(scale) {}
  const char* kind() const final { return "demo"; }
  int GetPropertyMask() const final {
    return ffi::Module::kRunnable | ffi::Module::kCompilationExportable;
  }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    if (name == "scale") {
      int64_t s = scale_;
      return ffi::Function::FromTyped([s](int64_t x) { return x * s; });
    }
    if (name == "fail") {
      return ffi::Function::FromTyped([]() -> int { TVM_FFI_THROW(ValueError) << "demo failure"; });
    }
    if (name == "broken") TVM_FFI_THROW(TypeError) << "GetFunction(broken) throws";
    return std::nullopt;
  }
  void WriteToFile(const ffi::String& file, const ffi::String& format) const final {
    std::ofstream(std::string(file)) << "demo " << std::string(format) << " " << scale_;
  }
  ffi::Array<ffi::String> GetWriteFormats() const final { return {"txt"}; }
  ffi::String InspectSource(const ffi::String& format) const final {
    return ffi::String("source:" + std::string(format));
  }

 private:
  int64_t scale_;
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::GlobalDef()
      .def("upstream_ext.make_module",
           [](int64_t scale) { return ffi::Module(ffi::make_object<DemoModule>(scale)); })
      // virtual calls on any module, the runtime's included
      .def("upstream_ext.kind_of", [](ffi::Module m) { return ffi::String(m->kind()); })
      .def("upstream_ext.has_own",
           [](ffi::Module m, ffi::String name) { return m->GetFunction(name).has_value(); })
      // the out-of-line members and functions of upstream's headers
      .def("upstream_ext.call_imported",
           [](ffi::Module m, ffi::String name, int64_t x) {
             return m->GetFunction(name, true).value()(x).cast<int64_t>();
           })
      .def("upstream_ext.import", [](ffi::Module m, ffi::Module other) { m->ImportModule(other); })
      .def("upstream_ext.num_imports",
           [](ffi::Module m) { return static_cast<int64_t>(m->imports().size()); })
      .def("upstream_ext.load", [](ffi::String path) { return ffi::Module::LoadFromFile(path); })
      .def("upstream_ext.structural_equal",
           [](ffi::Any a, ffi::Any b) { return ffi::StructuralEqual::Equal(a, b); })
      .def("upstream_ext.structural_hash",
           [](ffi::Any a) { return static_cast<int64_t>(ffi::StructuralHash::Hash(a)); })
      .def("upstream_ext.json_roundtrip",
           [](ffi::String text) { return ffi::json::Stringify(ffi::json::Parse(text)); })
      // a context as a failing visit records it (innermost object first)
      .def("upstream_ext.find_access_paths",
           [](ffi::ObjectRef root, ffi::Array<ffi::ObjectRef> pattern, bool allow_prefix) {
             auto obj = ffi::make_object<ffi::VisitErrorContextObj>();
             for (const ffi::ObjectRef& node : pattern) obj->reverse_visit_pattern.push_back(node);
             ffi::VisitErrorContext ctx(std::move(obj));
             return ffi::VisitErrorContext::FindAccessPaths(root, ctx, allow_prefix);
           });
}
