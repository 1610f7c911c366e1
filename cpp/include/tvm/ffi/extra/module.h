/*
 * tvm/ffi/extra/module.h -- Module: loaded libraries, system libraries and
 * modules implemented in C++.
 *
 * ModuleObj has upstream's polymorphic layout (docs/cxx-abi.md): a vtable
 * pointer, the object header, imports_ at handle + 24 and a private lookup
 * cache at + 32, and the twelve virtual functions in upstream's order.  A C++
 * module is a subclass that overrides kind() and GetFunction(name); modules
 * the runtime makes (library, system library) carry the vtable of the C++
 * ABI library libtvm_ffi_cxx.so, whose overrides call the ffi.Module* globals.
 *
 * Everything that is not a virtual function calls an ffi.Module* global, so
 * it behaves the same for every module whatever created it, on this runtime
 * and on upstream's.
 */
#ifndef TVM_FFI_EXTRA_MODULE_H_
#define TVM_FFI_EXTRA_MODULE_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>

TVM_FFI_NS_BEGIN

class Module;

/*! \brief Module payload (ffi.Module). */
class ModuleObj : public Object {
 public:
  /// Kind of the module ("library" for shared libraries); names its
  /// ffi.Module.load_from_bytes.<kind> loader.
  virtual const char* kind() const = 0;
  /// Module::ModulePropertyMask bits.
  virtual int GetPropertyMask() const { return 0b000; }
  /// The module's own function `name`, or nullopt.
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).has_value(); }
  virtual Optional<String> GetFunctionDoc(const String& /*name*/) { return Optional<String>(); }
  virtual Optional<String> GetFunctionMetadata(const String& /*name*/) {
    return Optional<String>();
  }
  virtual void WriteToFile(const String& /*file_name*/, const String& /*format*/) const {
    TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support WriteToFile";
  }
  virtual Array<String> GetWriteFormats() const { return Array<String>(); }
  virtual Bytes SaveToBytes() const {
    TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support SaveToBytes";
    TVM_FFI_UNREACHABLE();
  }
  virtual String InspectSource(const String& /*format*/) const { return String(); }
  virtual void ImportModule(const Module& other);
  virtual void ClearImports();

  /// Function `name`, continuing depth first through the imports when
  /// query_imports (the runtime walks them, for every kind of module).
  Optional<Function> GetFunction(const String& name, bool query_imports) {
    return Call("ffi.ModuleGetFunction", name, query_imports).cast<Optional<Function>>();
  }
  bool ImplementsFunction(const String& name, bool query_imports) {
    return Call("ffi.ModuleImplementsFunction", name, query_imports).cast<bool>();
  }
  Optional<String> GetFunctionDoc(const String& name, bool query_imports) {
    return Call("ffi.ModuleGetFunctionDoc", name, query_imports).cast<Optional<String>>();
  }
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports) {
    return Call("ffi.ModuleGetFunctionMetadata", name, query_imports).cast<Optional<String>>();
  }
  /// The imported modules (read without the runtime's lock: not while another
  /// thread imports into this module).
  const Array<Any>& imports() const { return imports_; }

  struct InternalUnsafe;

  static constexpr int32_t _type_index = kTVMFFIModule;
  static constexpr bool _type_final = true;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Module", ModuleObj, Object);

 protected:
  friend struct InternalUnsafe;
  /// Imported modules (ffi.Module values); the runtime replaces the array on
  /// import, it never mutates a published one.
  Array<Any> imports_;

 private:
  /// Filled by the runtime's TVMFFIEnvModLookupFromImports.
  Map<String, Function> import_lookup_cache_;

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
  explicit Module(const ObjectPtr<ModuleObj>& p) : ObjectRef(p) {
    TVM_FFI_ICHECK(p != nullptr) << "Module must not be null";
  }
  /// Loads a library; the format comes from the file extension.
  static Module LoadFromFile(const String& file_name) {
    return Function::GetGlobalRequired("ffi.ModuleLoadFromFile")(file_name).cast<Module>();
  }
  /// Calls callback(name, address) for every symbol registered with
  /// TVMFFIEnvModRegisterContextSymbol, in registration order (a module that
  /// links code itself, e.g. a JIT, fills the same symbols the loader does).
  static void VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
    Function::GetGlobalRequired("ffi.ModuleVisitContextSymbols")(callback);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Module, ObjectRef, ModuleObj);
};

inline void ModuleObj::ImportModule(const Module& other) { Call("ffi.ModuleImportModule", other); }
inline void ModuleObj::ClearImports() { Call("ffi.ModuleClearImports"); }

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
