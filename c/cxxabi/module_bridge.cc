/*
 * module_bridge.cc -- the ModuleObj half of libtvm_ffi_cxx.so
 * (docs/cxx-abi.md).
 *
 * - RuntimeModule: the vtable installed in modules the C runtime makes, so
 *   C++ code can call their virtual functions.  Each one calls back into the
 *   runtime through an ffi.Module* global; nothing is stored here.
 * - The trampolines through which the runtime calls the virtual functions
 *   of C++ ModuleObj subclasses, turning C++ exceptions into raised errors.
 */
#include <tvm/ffi/extra/module.h>

#include <new>

#include "cxx_bridge.h"

namespace tvm {
namespace ffi {
namespace cxxabi {
int RaiseCurrentException();  // upstream_error.cc
}  // namespace cxxabi
namespace {

// Like TVM_FFI_SAFE_CALL_BEGIN/END, and also for errors thrown by code built
// against upstream's headers (a C++ module of such a library).
#define TVMFFI_CXX_GUARD_BEGIN() try {
#define TVMFFI_CXX_GUARD_END()              \
  return 0;                                 \
  }                                         \
  catch (const Error& err) {                \
    details::SetSafeCallRaised(err);        \
    return -1;                              \
  }                                         \
  catch (...) {                             \
    return cxxabi::RaiseCurrentException(); \
  }

// Only ever reached through a vtable pointer the runtime wrote into a module
// it allocated (cxx_bridge.h): never constructed except to read that pointer.
class RuntimeModule final : public ModuleObj {
 public:
  const char* kind() const final {
    auto header = reinterpret_cast<const char*>(details::ObjectUnsafe::GetHeader(this));
    return *reinterpret_cast<const char* const*>(header + TVMFFI_MODULE_KIND_OFFSET);
  }
  int GetPropertyMask() const final { return Call("ffi.ModuleGetPropertyMask").cast<int>(); }
  Optional<Function> GetFunction(const String& name) final {
    return ModuleObj::GetFunction(name, false);
  }
  bool ImplementsFunction(const String& name) final {
    return ModuleObj::ImplementsFunction(name, false);
  }
  Optional<String> GetFunctionDoc(const String& name) final {
    return ModuleObj::GetFunctionDoc(name, false);
  }
  Optional<String> GetFunctionMetadata(const String& name) final {
    return ModuleObj::GetFunctionMetadata(name, false);
  }
  void WriteToFile(const String& file_name, const String& format) const final {
    Call("ffi.ModuleWriteToFile", file_name, format);
  }
  Array<String> GetWriteFormats() const final {
    return Call("ffi.ModuleGetWriteFormats").cast<Array<String>>();
  }
  String InspectSource(const String& format) const final {
    return Call("ffi.ModuleInspectSource", format).cast<String>();
  }

 private:
  template <typename... Args>
  Any Call(const char* global, Args&&... args) const {
    return Function::GetGlobalRequired(global)(static_cast<const ModuleObj*>(this),
                                               std::forward<Args>(args)...);
  }
};

const void* RuntimeModuleVptr() {
  alignas(RuntimeModule) unsigned char buf[sizeof(RuntimeModule)];
  auto* m = new (buf) RuntimeModule();
  const void* vptr = *reinterpret_cast<const void* const*>(buf);
  m->~RuntimeModule();
  return vptr;
}

ModuleObj* FromHandle(TVMFFIObject* self) {
  return static_cast<ModuleObj*>(details::ObjectUnsafe::ObjectFromHandle(self));
}

int Kind(TVMFFIObject* self, const char** out) {
  TVMFFI_CXX_GUARD_BEGIN()
  *out = FromHandle(self)->kind();
  TVMFFI_CXX_GUARD_END()
}

int PropertyMask(TVMFFIObject* self, int32_t* out) {
  TVMFFI_CXX_GUARD_BEGIN()
  *out = FromHandle(self)->GetPropertyMask();
  TVMFFI_CXX_GUARD_END()
}

int GetFunction(TVMFFIObject* self, const char* name, size_t n, TVMFFIObject** out) {
  TVMFFI_CXX_GUARD_BEGIN()
  *out = nullptr;
  Optional<Function> f = FromHandle(self)->GetFunction(String(name, n));
  if (f.has_value()) {
    Any any = *std::move(f);
    TVMFFIAny raw = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(any));
    *out = raw.v_obj;
  }
  TVMFFI_CXX_GUARD_END()
}

int Implements(TVMFFIObject* self, const char* name, size_t n, int* out) {
  TVMFFI_CXX_GUARD_BEGIN()
  *out = FromHandle(self)->ImplementsFunction(String(name, n)) ? 1 : 0;
  TVMFFI_CXX_GUARD_END()
}

// Stores `value` (moved) into the runtime's result slot.
void Put(Any value, TVMFFIAny* out) {
  *out = details::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(value));
}

int GetInfo(TVMFFIObject* self, int doc, const char* name, size_t n, TVMFFIAny* out) {
  TVMFFI_CXX_GUARD_BEGIN()
  ModuleObj* m = FromHandle(self);
  String s(name, n);
  Optional<String> info = doc ? m->GetFunctionDoc(s) : m->GetFunctionMetadata(s);
  Put(info.has_value() ? Any(*info) : Any(), out);
  TVMFFI_CXX_GUARD_END()
}

int WriteToFile(TVMFFIObject* self, const char* file, size_t nf, const char* format, size_t nfmt) {
  TVMFFI_CXX_GUARD_BEGIN()
  FromHandle(self)->WriteToFile(String(file, nf), String(format, nfmt));
  TVMFFI_CXX_GUARD_END()
}

int GetWriteFormats(TVMFFIObject* self, TVMFFIAny* out) {
  TVMFFI_CXX_GUARD_BEGIN()
  Put(FromHandle(self)->GetWriteFormats(), out);
  TVMFFI_CXX_GUARD_END()
}

int InspectSource(TVMFFIObject* self, const char* format, size_t n, TVMFFIAny* out) {
  TVMFFI_CXX_GUARD_BEGIN()
  Put(FromHandle(self)->InspectSource(String(format, n)), out);
  TVMFFI_CXX_GUARD_END()
}

}  // namespace

// Upstream's layout (docs/cxx-abi.md): vtable pointer, header, imports_ at
// handle + 24, the lookup cache at + 32.
static_assert(sizeof(ModuleObj) == 48, "ModuleObj must keep upstream's size");

}  // namespace ffi
}  // namespace tvm

extern "C" __attribute__((visibility("default"))) const tvmffi_cxx_bridge* TVMFFICxxBridgeGet(
    void) {
  using namespace tvm::ffi;  // NOLINT(build/namespaces)
  static const tvmffi_cxx_bridge bridge = {
      TVMFFI_CXX_BRIDGE_VERSION,
      RuntimeModuleVptr(),
      Kind,
      PropertyMask,
      GetFunction,
      Implements,
      GetInfo,
      WriteToFile,
      GetWriteFormats,
      InspectSource,
  };
  return &bridge;
}
