/*
 * tvm/ffi/extra/module.h -- Module: loaded libraries and system libraries.
 *
 * ModuleObj is a facade: the runtime's module objects are reached through the
 * ffi.Module* global functions (ABI §14.3), so `mod->GetFunction("f")` works
 * on any module whatever created it.  Subclassing ModuleObj is not supported.
 */
#ifndef TVM_FFI_EXTRA_MODULE_H_
#define TVM_FFI_EXTRA_MODULE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>

TVM_FFI_NS_BEGIN

class Module;

/*! \brief Module payload (ffi.Module); every member calls a runtime global. */
class ModuleObj : public Object {
 public:
  static constexpr int32_t _type_index = kTVMFFIModule;
  static constexpr bool _type_final = true;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Module", ModuleObj, Object);

  /// The function `name` (symbol __tvm_ffi_<name>), or empty.
  Optional<Function> GetFunction(const String& name, bool query_imports = false) const {
    return Call("ffi.ModuleGetFunction", name, query_imports).cast<Optional<Function>>();
  }
  bool ImplementsFunction(const String& name, bool query_imports = false) const {
    return Call("ffi.ModuleImplementsFunction", name, query_imports).cast<bool>();
  }
  Optional<String> GetFunctionDoc(const String& name, bool query_imports = false) const {
    return Call("ffi.ModuleGetFunctionDoc", name, query_imports).cast<Optional<String>>();
  }
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports = false) const {
    return Call("ffi.ModuleGetFunctionMetadata", name, query_imports).cast<Optional<String>>();
  }
  String kind() const { return Call("ffi.ModuleGetKind").cast<String>(); }
  int GetPropertyMask() const { return Call("ffi.ModuleGetPropertyMask").cast<int>(); }
  void WriteToFile(const String& file, const String& format) const {
    Call("ffi.ModuleWriteToFile", file, format);
  }
  Array<String> GetWriteFormats() const {
    return Call("ffi.ModuleGetWriteFormats").cast<Array<String>>();
  }
  String InspectSource(const String& format = "") const {
    return Call("ffi.ModuleInspectSource", format).cast<String>();
  }
  inline void ImportModule(const Module& other) const;
  void ClearImports() const { Call("ffi.ModuleClearImports"); }

 private:
  template <typename... Args>
  Any Call(const char* global, Args&&... args) const {
    return Function::GetGlobalRequired(global)(this, std::forward<Args>(args)...);
  }
};

/*! \brief Non-nullable reference to a module. */
class Module : public ObjectRef {
 public:
  enum ModulePropertyMask : int {
    kBinarySerializable = 0b001,
    kRunnable = 0b010,
    kCompilationExportable = 0b100,
  };
  explicit Module(ObjectPtr<ModuleObj> p) : ObjectRef(std::move(p)) {
    TVM_FFI_ICHECK(data_ != nullptr) << "Module must not be null";
  }
  /// Loads a library; the format comes from the file extension.
  static Module LoadFromFile(const String& file_name) {
    return Function::GetGlobalRequired("ffi.ModuleLoadFromFile")(file_name).cast<Module>();
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Module, ObjectRef, ModuleObj);
};

inline void ModuleObj::ImportModule(const Module& other) const {
  Call("ffi.ModuleImportModule", other);
}

namespace symbol {
constexpr const char* tvm_ffi_symbol_prefix = "__tvm_ffi_";
constexpr const char* tvm_ffi_main = "__tvm_ffi_main";
constexpr const char* tvm_ffi_library_ctx = "__tvm_ffi__library_ctx";
constexpr const char* tvm_ffi_library_bin = "__tvm_ffi__library_bin";
constexpr const char* tvm_ffi_metadata_prefix = "__tvm_ffi__metadata_";
constexpr const char* tvm_ffi_doc_prefix = "__tvm_ffi__doc_";
}  // namespace symbol

TVM_FFI_NS_END
#endif  // TVM_FFI_EXTRA_MODULE_H_
