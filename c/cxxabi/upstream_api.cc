/*
 * upstream_api.cc -- the C++ symbols that upstream's headers declare as
 * exported by libtvm_ffi.so: ModuleObj's vtable, typeinfo and out-of-line
 * members, Module::LoadFromFile/VisitContextSymbols, structural equality and
 * hashing, repr, deep copy, the Recursive* comparisons, JSON and JSON graphs,
 * FindAccessPaths.  c/cxxabi/libtvm_ffi_cxx.map lists them.
 *
 * Our headers put their names in an inline namespace (tvm::ffi::cimpl), so
 * no declaration of theirs has upstream's mangled name: each symbol is
 * defined here under its upstream name with an asm label, and calls the
 * runtime global of the same meaning; nothing is stored here.  A member
 * function is defined as a free function taking `this` first, which the
 * Itanium C++ ABI passes the same way.  Parameter and result types have
 * upstream's layout: Any, String and 0.1.13+'s Optional<int> are 16-byte Any values;
 * object references and Optional<ObjectRef> one pointer; class results come
 * back through a hidden result pointer.
 */
#include <cxxabi.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstddef>
#include <optional>

#define TVMFFI_CXX_EXPORT(mangled) __asm__(mangled) __attribute__((visibility("default")))

namespace tvm {
namespace ffi {
namespace cxxabi {
namespace {

template <typename... Args>
Any Global(const char* name, Args&&... args) {
  return Function::GetGlobalRequired(name)(std::forward<Args>(args)...);
}

}  // namespace

// StructuralEqual::Equal(const Any&, const Any&, bool, bool)
bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars, bool skip_tensor_content)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi15StructuralEqual5EqualERKNS0_3AnyES4_bb");
bool StructuralEqual(const Any& lhs, const Any& rhs, bool map_free_vars, bool skip_tensor_content) {
  return Global("ffi.StructuralEqual", lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
}

// StructuralEqual::GetFirstMismatch(...) -> Optional<AccessPathPair>
Optional<ObjectRef> GetFirstMismatch(const Any& lhs, const Any& rhs, bool map_free_vars,
                                     bool skip_tensor_content)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi15StructuralEqual16GetFirstMismatchERKNS0_3AnyES4_bb");
Optional<ObjectRef> GetFirstMismatch(const Any& lhs, const Any& rhs, bool map_free_vars,
                                     bool skip_tensor_content) {
  return Global("ffi.GetFirstStructuralMismatch", lhs, rhs, map_free_vars, skip_tensor_content)
      .cast<Optional<ObjectRef>>();
}

// StructuralHash::Hash(const Any&, bool, bool) -> uint64_t
uint64_t StructuralHash(const Any& value, bool map_free_vars, bool skip_tensor_content)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi14StructuralHash4HashERKNS0_3AnyEbb");
uint64_t StructuralHash(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  return static_cast<uint64_t>(
      Global("ffi.StructuralHash", value, map_free_vars, skip_tensor_content).cast<int64_t>());
}

String ReprPrint(const Any& value) TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ReprPrintERKNS0_3AnyE");
String ReprPrint(const Any& value) { return Global("ffi.ReprPrint", value).cast<String>(); }

Any DeepCopy(const Any& value) TVMFFI_CXX_EXPORT("_ZN3tvm3ffi8DeepCopyERKNS0_3AnyE");
Any DeepCopy(const Any& value) { return Global("ffi.DeepCopy", value); }

int64_t RecursiveHash(const Any& value) TVMFFI_CXX_EXPORT("_ZN3tvm3ffi13RecursiveHashERKNS0_3AnyE");
int64_t RecursiveHash(const Any& value) {
  return Global("ffi.RecursiveHash", value).cast<int64_t>();
}

#define TVMFFI_CXX_RECURSIVE_CMP(Name, mangled)                         \
  bool Name(const Any& lhs, const Any& rhs) TVMFFI_CXX_EXPORT(mangled); \
  bool Name(const Any& lhs, const Any& rhs) { return Global("ffi." #Name, lhs, rhs).cast<bool>(); }
TVMFFI_CXX_RECURSIVE_CMP(RecursiveEq, "_ZN3tvm3ffi11RecursiveEqERKNS0_3AnyES3_")
TVMFFI_CXX_RECURSIVE_CMP(RecursiveLt, "_ZN3tvm3ffi11RecursiveLtERKNS0_3AnyES3_")
TVMFFI_CXX_RECURSIVE_CMP(RecursiveLe, "_ZN3tvm3ffi11RecursiveLeERKNS0_3AnyES3_")
TVMFFI_CXX_RECURSIVE_CMP(RecursiveGt, "_ZN3tvm3ffi11RecursiveGtERKNS0_3AnyES3_")
TVMFFI_CXX_RECURSIVE_CMP(RecursiveGe, "_ZN3tvm3ffi11RecursiveGeERKNS0_3AnyES3_")
#undef TVMFFI_CXX_RECURSIVE_CMP

// ToJSONGraph(const Any& value, const Any& metadata) -> json::Value (an Any)
Any ToJSONGraph(const Any& value, const Any& metadata)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi11ToJSONGraphERKNS0_3AnyES3_");
Any ToJSONGraph(const Any& value, const Any& metadata) {
  return Global("ffi.ToJSONGraph", value, metadata);
}

Any FromJSONGraph(const Any& value) TVMFFI_CXX_EXPORT("_ZN3tvm3ffi13FromJSONGraphERKNS0_3AnyE");
Any FromJSONGraph(const Any& value) { return Global("ffi.FromJSONGraph", value); }

// json::Parse(const String&, String* error_msg): with error_msg, a syntax
// error is reported there and the result is None instead of a throw.
Any JSONParse(const String& text, String* error_msg)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi4json5ParseERKNS0_6StringEPS2_");
Any JSONParse(const String& text, String* error_msg) {
  if (error_msg == nullptr) return Global("ffi.json.Parse", text);
  try {
    return Global("ffi.json.Parse", text);
  } catch (const Error& err) {
    *error_msg = err.message();
    return Any();
  }
}

// json::Stringify(const json::Value&, const Optional<int>& indent): the
// Optional<int> is an Any (None or int).
String JSONStringify(const Any& value, const Any& indent)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi4json9StringifyERKNS0_3AnyERKNS0_8OptionalIivEE");
String JSONStringify(const Any& value, const Any& indent) {
  return Global("ffi.json.Stringify", value, indent).cast<String>();
}

// json::Stringify(const json::Value&, Optional<int> indent) of 0.1.0-0.1.12,
// the Optional by value.  Those headers' Optional<int> holds a
// std::optional<int> and has a user-written copy constructor, so the Itanium
// C++ ABI passes it by invisible reference: a pointer to the caller's copy,
// laid out as std::optional<int> (the value, then the engaged flag).
String JSONStringifyByValue(const Any& value, const std::optional<int>& indent)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE");
String JSONStringifyByValue(const Any& value, const std::optional<int>& indent) {
  return JSONStringify(value, indent.has_value() ? Any(*indent) : Any());
}

// VisitErrorContext::FindAccessPaths(const ObjectRef& root,
//     const VisitErrorContext& ctx, bool allow_prefix_match) -> Array<AccessPath>
Array<ObjectRef> FindAccessPaths(const ObjectRef& root, const ObjectRef& ctx, bool allow_prefix)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi17VisitErrorContext15FindAccessPathsERKNS0_9ObjectRefERKS1_b");
Array<ObjectRef> FindAccessPaths(const ObjectRef& root, const ObjectRef& ctx, bool allow_prefix) {
  return Global("ffi.VisitErrorContext.FindAccessPaths", root, ctx, allow_prefix)
      .cast<Array<ObjectRef>>();
}

// ---- ModuleObj and Module ---------------------------------------------

// ModuleObj::GetFunction(const String&, bool) and its siblings: the runtime
// global walks the imports for every kind of module.
Optional<Function> GetFunctionQ(ModuleObj* self, const String& name, bool query_imports)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj11GetFunctionERKNS0_6StringEb");
Optional<Function> GetFunctionQ(ModuleObj* self, const String& name, bool query_imports) {
  return self->GetFunction(name, query_imports);
}
bool ImplementsQ(ModuleObj* self, const String& name, bool query_imports)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj18ImplementsFunctionERKNS0_6StringEb");
bool ImplementsQ(ModuleObj* self, const String& name, bool query_imports) {
  return self->ImplementsFunction(name, query_imports);
}
Optional<String> DocQ(ModuleObj* self, const String& name, bool query_imports)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj14GetFunctionDocERKNS0_6StringEb");
Optional<String> DocQ(ModuleObj* self, const String& name, bool query_imports) {
  return self->GetFunctionDoc(name, query_imports);
}
Optional<String> MetadataQ(ModuleObj* self, const String& name, bool query_imports)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj19GetFunctionMetadataERKNS0_6StringEb");
Optional<String> MetadataQ(ModuleObj* self, const String& name, bool query_imports) {
  return self->GetFunctionMetadata(name, query_imports);
}
void ImportModule(ModuleObj* self, const Module& other)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj12ImportModuleERKNS0_6ModuleE");
void ImportModule(ModuleObj* self, const Module& other) { self->ModuleObj::ImportModule(other); }
void ClearImports(ModuleObj* self) TVMFFI_CXX_EXPORT("_ZN3tvm3ffi9ModuleObj12ClearImportsEv");
void ClearImports(ModuleObj* self) { self->ModuleObj::ClearImports(); }

Module LoadFromFile(const String& file_name)
    TVMFFI_CXX_EXPORT("_ZN3tvm3ffi6Module12LoadFromFileERKNS0_6StringE");
Module LoadFromFile(const String& file_name) { return Module::LoadFromFile(file_name); }

// Module::VisitContextSymbols(const TypedFunction<void(String, void*)>&): a
// TypedFunction is one Function.
void VisitContextSymbols(const Function& callback) TVMFFI_CXX_EXPORT(
    "_ZN3tvm3ffi6Module19VisitContextSymbolsERKNS0_13TypedFunctionIFvNS0_6StringEPvEEE");
void VisitContextSymbols(const Function& callback) {
  Global("ffi.ModuleVisitContextSymbols", callback);
}

// The defaults of ModuleObj's virtual functions: the bodies of our header,
// called non-virtually.
namespace {
int DefaultPropertyMask(const ModuleObj* self) { return self->ModuleObj::GetPropertyMask(); }
bool DefaultImplements(ModuleObj* self, const String& name) {
  return self->ModuleObj::ImplementsFunction(name);
}
Optional<String> DefaultDoc(ModuleObj* self, const String& name) {
  return self->ModuleObj::GetFunctionDoc(name);
}
Optional<String> DefaultMetadata(ModuleObj* self, const String& name) {
  return self->ModuleObj::GetFunctionMetadata(name);
}
void DefaultWriteToFile(const ModuleObj* self, const String& file, const String& format) {
  self->ModuleObj::WriteToFile(file, format);
}
Array<String> DefaultWriteFormats(const ModuleObj* self) {
  return self->ModuleObj::GetWriteFormats();
}
Bytes DefaultSaveToBytes(const ModuleObj* self) { return self->ModuleObj::SaveToBytes(); }
String DefaultInspectSource(const ModuleObj* self, const String& format) {
  return self->ModuleObj::InspectSource(format);
}
}  // namespace

// typeinfo for tvm::ffi::ModuleObj (its name, then the object).  Subclasses
// built against upstream's headers name it as their base.
extern const char kModuleObjTypeName[] TVMFFI_CXX_EXPORT("_ZTSN3tvm3ffi9ModuleObjE");
const char kModuleObjTypeName[] = "N3tvm3ffi9ModuleObjE";
extern const abi::__class_type_info kModuleObjTypeInfo
    TVMFFI_CXX_EXPORT("_ZTIN3tvm3ffi9ModuleObjE");
const abi::__class_type_info kModuleObjTypeInfo(kModuleObjTypeName);

// vtable for tvm::ffi::ModuleObj: the constructors of upstream-built
// subclasses install it while the base is being built.  Slot order as the
// declaration order of the virtual functions in tvm/ffi/extra/module.h.
struct ModuleVTable {
  std::ptrdiff_t offset_to_top;
  const void* type_info;
  const void* slots[12];
};
extern "C" void __cxa_pure_virtual();
#define TVMFFI_SLOT(f) reinterpret_cast<const void*>(&(f))
extern const ModuleVTable kModuleObjVTable TVMFFI_CXX_EXPORT("_ZTVN3tvm3ffi9ModuleObjE");
const ModuleVTable kModuleObjVTable = {
    0,
    &kModuleObjTypeInfo,
    {TVMFFI_SLOT(__cxa_pure_virtual), TVMFFI_SLOT(DefaultPropertyMask),
     TVMFFI_SLOT(__cxa_pure_virtual), TVMFFI_SLOT(DefaultImplements), TVMFFI_SLOT(DefaultDoc),
     TVMFFI_SLOT(DefaultMetadata), TVMFFI_SLOT(DefaultWriteToFile),
     TVMFFI_SLOT(DefaultWriteFormats), TVMFFI_SLOT(DefaultSaveToBytes),
     TVMFFI_SLOT(DefaultInspectSource), TVMFFI_SLOT(ImportModule), TVMFFI_SLOT(ClearImports)},
};
#undef TVMFFI_SLOT

}  // namespace cxxabi
}  // namespace ffi
}  // namespace tvm
