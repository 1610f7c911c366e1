/*
 * orcjit.cc -- loads relocatable object files (.o) through LLVM ORC JIT v2
 * (LLJIT + JITLink) and exposes them as TVM FFI modules
 * (docs/dlpack-and-addons.md Part C).
 *
 * Built only against the installed headers: modules are made through the
 * runtime's public global ffi.Module.from_symbol_lookup(kind, lookup), whose
 * `lookup` function owns the JIT dylib; the module owns `lookup`, and every
 * function taken from the module owns the module, so JIT code outlives its
 * callers.
 *
 * Pieces: Session (one LLJIT, one mutex), Dylib (one JITDylib = one module
 * namespace, torn down when the last reference goes), InitFiniPlugin (runs
 * .init_array/.ctors after the lookup that materialised them and
 * .dtors/.fini_array at teardown), a __cxa_atexit shim so C++ static
 * destructors also run at teardown instead of at process exit.
 */
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/JITLink/EHFrameSupport.h>
#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/tvm_ffi.h>

namespace orcjit {

namespace ffi = tvm::ffi;
using namespace llvm;
using namespace llvm::orc;

// Every LLVM error is reported as InternalError "<file>:<line>: <what> failed: <LLVM message>".
#define ORCJIT_CHECK_LLVM(expr, what)                                            \
  do {                                                                           \
    if (auto __err = (expr))                                                     \
      TVM_FFI_THROW(InternalError) << "orcjit.cc:" << __LINE__ << ": " << (what) \
                                   << " failed: " << toString(std::move(__err)); \
  } while (0)

/* ---- init/fini bookkeeping ------------------------------------------------ */

struct InitFiniEntry {
  uint64_t addr;
  int cls;       // 0 .init_array, 1 .ctors, 2 .dtors, 3 .fini_array
  int64_t prio;  // C.7 priority values
  uint64_t seq;  // section-content order, for a stable tie break
};

// Classifies an ELF section name; returns false for other sections.
static bool ClassifySection(StringRef name, int* cls, int64_t* prio) {
  struct Kind {
    const char* prefix;
    int cls;
    int64_t unsuffixed;
    int sign;
  };
  static const Kind kinds[] = {{".init_array", 0, 65535, 1},
                               {".ctors", 1, 0, -1},
                               {".dtors", 2, 0, 1},
                               {".fini_array", 3, -65535, -1}};
  for (const Kind& k : kinds) {
    if (!name.startswith(k.prefix)) continue;
    StringRef rest = name.drop_front(std::strlen(k.prefix));
    *cls = k.cls;
    if (rest.empty()) {
      *prio = k.unsuffixed;
      return true;
    }
    uint64_t n;
    if (!rest.consume_front(".") || rest.getAsInteger(10, n)) continue;
    *prio = k.sign * static_cast<int64_t>(n);
    return true;
  }
  return false;
}

class Session;

/* One JITDylib.  Destroyed when the module and every function and
 * DynamicLibrary object over it are gone. */
class Dylib {
 public:
  Dylib(std::shared_ptr<Session> s, JITDylib* jd, std::string name)
      : session(std::move(s)), jd(jd), name(std::move(name)) {}
  ~Dylib();
  // Address of `name` defined in this dylib (materialising it), or nullptr.
  void* Lookup(const std::string& name);
  void AddObject(std::unique_ptr<MemoryBuffer> buf);

  std::shared_ptr<Session> session;
  JITDylib* jd;
  std::string name;
  char* dso_handle = nullptr;  // this dylib's __dso_handle
  // Registered by the JIT code through the __cxa_atexit shim.
  std::vector<std::pair<void (*)(void*), void*>> atexit;
};

class InitFiniPlugin;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session();
  std::shared_ptr<Dylib> CreateDylib(std::string name);
  std::unique_ptr<LLJIT> jit;
  JITDylib* process = nullptr;  // process symbols, behind every dylib
  std::mutex mu;                // guards the LLJIT (C.11)
  std::atomic<uint64_t> counter{0};
  // Pending init/fini entries per JITDylib, filled by the plugin.
  std::mutex pending_mu;
  std::map<JITDylib*, std::vector<InitFiniEntry>> inits, finis;
  uint64_t seq = 0;

  std::vector<InitFiniEntry> TakeInits(JITDylib* jd) {
    std::lock_guard<std::mutex> g(pending_mu);
    auto it = inits.find(jd);
    if (it == inits.end()) return {};
    std::vector<InitFiniEntry> v = std::move(it->second);
    inits.erase(it);
    return v;
  }
};

static void RunSorted(std::vector<InitFiniEntry> v) {
  std::stable_sort(v.begin(), v.end(), [](const InitFiniEntry& a, const InitFiniEntry& b) {
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.prio != b.prio) return a.prio < b.prio;
    return a.seq < b.seq;
  });
  for (const InitFiniEntry& e : v) reinterpret_cast<void (*)()>(e.addr)();
}

/* Keeps init/fini sections through dead-stripping and records their slots
 * once fixed up (C.7). */
class InitFiniPlugin : public ObjectLinkingLayer::Plugin {
 public:
  explicit InitFiniPlugin(Session* s) : s_(s) {}
  void modifyPassConfig(MaterializationResponsibility& MR, jitlink::LinkGraph&,
                        jitlink::PassConfiguration& config) override {
    JITDylib* jd = &MR.getTargetJITDylib();
    config.PrePrunePasses.push_back([](jitlink::LinkGraph& g) -> Error {
      for (auto& sec : g.sections()) {
        int cls;
        int64_t prio;
        if (!ClassifySection(sec.getName(), &cls, &prio)) continue;
        std::vector<jitlink::Block*> blocks(sec.blocks().begin(), sec.blocks().end());
        for (jitlink::Block* b : blocks) g.addAnonymousSymbol(*b, 0, b->getSize(), false, true);
      }
      return Error::success();
    });
    config.PostFixupPasses.push_back([this, jd](jitlink::LinkGraph& g) -> Error {
      std::vector<InitFiniEntry> found;
      for (auto& sec : g.sections()) {
        int cls;
        int64_t prio;
        if (!ClassifySection(sec.getName(), &cls, &prio)) continue;
        std::vector<jitlink::Block*> blocks(sec.blocks().begin(), sec.blocks().end());
        std::sort(blocks.begin(), blocks.end(), [](jitlink::Block* a, jitlink::Block* b) {
          return a->getAddress() < b->getAddress();
        });
        std::vector<uint64_t> slots;
        for (jitlink::Block* b : blocks) {
          ArrayRef<char> c = b->getContent();
          for (size_t off = 0; off + 8 <= c.size(); off += 8) {
            uint64_t v;
            std::memcpy(&v, c.data() + off, 8);
            if (v != 0 && v != ~uint64_t(0)) slots.push_back(v);
          }
        }
        // As libc does: .ctors and .fini_array run back to front.
        if (cls == 1 || cls == 3) std::reverse(slots.begin(), slots.end());
        for (uint64_t v : slots) found.push_back({v, cls, prio, 0});
      }
      if (found.empty()) return Error::success();
      std::lock_guard<std::mutex> g2(s_->pending_mu);
      for (InitFiniEntry& e : found) {
        e.seq = s_->seq++;
        (e.cls < 2 ? s_->inits : s_->finis)[jd].push_back(e);
      }
      return Error::success();
    });
  }
  Error notifyFailed(MaterializationResponsibility&) override { return Error::success(); }
  Error notifyRemovingResources(ResourceKey) override { return Error::success(); }
  void notifyTransferringResources(ResourceKey, ResourceKey) override {}

 private:
  Session* s_;
};

/* ---- __dso_handle and the __cxa_atexit shim -------------------------------- */

// __dso_handle slots live in this library's data so that the hidden,
// PC-relative references compilers emit to them stay within +-2 GiB of JIT
// memory (both are ordinary mmap-region mappings).
static constexpr size_t kDsoSlots = 4096;
static char g_dso_pool[kDsoSlots];
static std::mutex g_dso_mu;
static Dylib* g_dso_owner[kDsoSlots];

extern "C" int __cxa_atexit(void (*fn)(void*), void* arg, void* dso);

static int AtexitShim(void (*fn)(void*), void* arg, void* dso) {
  char* p = static_cast<char*>(dso);
  if (p >= g_dso_pool && p < g_dso_pool + kDsoSlots) {
    std::lock_guard<std::mutex> g(g_dso_mu);
    Dylib* d = g_dso_owner[p - g_dso_pool];
    if (d != nullptr) {
      d->atexit.emplace_back(fn, arg);
      return 0;
    }
  }
  return __cxa_atexit(fn, arg, dso);
}

static char* AcquireDsoSlot(Dylib* d) {
  std::lock_guard<std::mutex> g(g_dso_mu);
  for (size_t i = 0; i < kDsoSlots; ++i) {
    if (g_dso_owner[i] == nullptr) {
      g_dso_owner[i] = d;
      return &g_dso_pool[i];
    }
  }
  return nullptr;
}

static void ReleaseDsoSlot(char* p) {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> g(g_dso_mu);
  g_dso_owner[p - g_dso_pool] = nullptr;
}

/* ---- Session ------------------------------------------------------------ */

static void* SelfHandle() {
  // dlsym on our own handle searches this library's dependencies too
  // (libtvm_ffi, libstdc++, libc), which a host may have loaded RTLD_LOCAL.
  static void* h = [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&SelfHandle), &info) == 0)
      return static_cast<void*>(nullptr);
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }();
  return h;
}

Session::Session() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  auto jit = LLJITBuilder()
                 .setObjectLinkingLayerCreator(
                     [this](ExecutionSession& es,
                            const Triple&) -> Expected<std::unique_ptr<ObjectLayer>> {
                       auto layer = std::make_unique<ObjectLinkingLayer>(es);
                       layer->addPlugin(std::make_unique<EHFrameRegistrationPlugin>(
                           es, std::make_unique<jitlink::InProcessEHFrameRegistrar>()));
                       layer->addPlugin(std::make_unique<InitFiniPlugin>(this));
                       return std::unique_ptr<ObjectLayer>(std::move(layer));
                     })
                 .setPlatformSetUp(setUpInactivePlatform)  // init/fini are ours (C.7)
                 .create();
  ORCJIT_CHECK_LLVM(jit.takeError(), "LLJITBuilder::create");
  this->jit = std::move(*jit);
  auto& es = this->jit->getExecutionSession();
  auto proc = es.createJITDylib("<Process Symbols>");
  ORCJIT_CHECK_LLVM(proc.takeError(), "createJITDylib");
  process = &*proc;
  char prefix = this->jit->getDataLayout().getGlobalPrefix();
  if (void* self = SelfHandle())
    process->addGenerator(
        std::make_unique<DynamicLibrarySearchGenerator>(sys::DynamicLibrary(self), prefix));
  auto g = DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  ORCJIT_CHECK_LLVM(g.takeError(), "DynamicLibrarySearchGenerator");
  process->addGenerator(std::move(*g));
}

std::shared_ptr<Dylib> Session::CreateDylib(std::string name) {
  if (name.empty()) name = "dylib_" + std::to_string(counter++);
  auto& es = jit->getExecutionSession();
  JITDylib* raw;
  {
    std::lock_guard<std::mutex> g(mu);
    auto jd = es.createJITDylib(name);
    ORCJIT_CHECK_LLVM(jd.takeError(), "createJITDylib");
    raw = &*jd;
    raw->setLinkOrder({{raw, JITDylibLookupFlags::MatchAllSymbols},
                       {process, JITDylibLookupFlags::MatchExportedSymbolsOnly}},
                      false);
  }
  // From here on the Dylib owns (and on failure removes) the JITDylib.
  auto d = std::make_shared<Dylib>(shared_from_this(), raw, name);
  d->dso_handle = AcquireDsoSlot(d.get());
  if (d->dso_handle != nullptr) {
    SymbolMap defs;
    defs[es.intern("__dso_handle")] =
        JITEvaluatedSymbol(pointerToJITTargetAddress(d->dso_handle), JITSymbolFlags::Exported);
    defs[es.intern("__cxa_atexit")] =
        JITEvaluatedSymbol(pointerToJITTargetAddress(&AtexitShim),
                           JITSymbolFlags::Exported | JITSymbolFlags::Callable);
    std::lock_guard<std::mutex> g(mu);
    ORCJIT_CHECK_LLVM(raw->define(absoluteSymbols(std::move(defs))), "define");
  }
  return d;
}

/* ---- Dylib ---------------------------------------------------------------- */

void Dylib::AddObject(std::unique_ptr<MemoryBuffer> buf) {
  std::lock_guard<std::mutex> g(session->mu);
  ORCJIT_CHECK_LLVM(session->jit->addObjectFile(*jd, std::move(buf)), "addObjectFile");
}

void* Dylib::Lookup(const std::string& sym) {
  Expected<JITEvaluatedSymbol> r = JITEvaluatedSymbol();
  {
    std::lock_guard<std::mutex> g(session->mu);
    auto& es = session->jit->getExecutionSession();
    r = es.lookup({{jd, JITDylibLookupFlags::MatchAllSymbols}}, es.intern(sym));
  }
  if (!r) {
    bool absent = false;
    Error rest = handleErrors(r.takeError(), [&](std::unique_ptr<SymbolsNotFound> e) -> Error {
      for (const auto& s : e->getSymbols())
        if (*s == sym) absent = true;
      if (absent) return Error::success();
      return Error(std::move(e));
    });
    ORCJIT_CHECK_LLVM(std::move(rest), "lookup of " + sym);
  }
  // Constructors collected while materialising run outside the lock, so they
  // may call back into the session (C.7).
  RunSorted(session->TakeInits(jd));
  if (!r) return nullptr;
  return jitTargetAddressToPointer<void*>(r->getAddress());
}

Dylib::~Dylib() {
  std::vector<InitFiniEntry> finis;
  {
    std::lock_guard<std::mutex> g(session->pending_mu);
    session->inits.erase(jd);
    auto it = session->finis.find(jd);
    if (it != session->finis.end()) {
      finis = std::move(it->second);
      session->finis.erase(it);
    }
  }
  RunSorted(std::move(finis));
  ReleaseDsoSlot(dso_handle);
  for (auto it = atexit.rbegin(); it != atexit.rend(); ++it) it->first(it->second);
  std::lock_guard<std::mutex> g(session->mu);
  consumeError(session->jit->getExecutionSession().removeJITDylib(*jd));
}

/* ---- FFI objects ----------------------------------------------------------- */

class ExecutionSessionObj : public ffi::Object {
 public:
  std::shared_ptr<Session> impl;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("tvm_ffi_orcjit.ExecutionSession", ExecutionSessionObj,
                                    ffi::Object);
};

class DynamicLibraryObj : public ffi::Object {
 public:
  std::shared_ptr<Dylib> impl;
  ffi::Optional<ffi::Module> module;  // built at the first GetModule
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("tvm_ffi_orcjit.DynamicLibrary", DynamicLibraryObj,
                                    ffi::Object);
};

static std::unique_ptr<MemoryBuffer> ReadItem(const ffi::Any& item, const std::string& dylib) {
  if (auto path = item.try_cast<ffi::String>()) {
    std::string p(path->data(), path->size());
    auto buf = MemoryBuffer::getFile(p, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buf) TVM_FFI_THROW(IOError) << "Failed to read object file: " << p;
    return std::move(*buf);
  }
  if (auto bytes = item.try_cast<ffi::Bytes>()) {
    return MemoryBuffer::getMemBufferCopy(StringRef(bytes->data(), bytes->size()), dylib);
  }
  TVM_FFI_THROW(TypeError)
      << "load_module objects must be a path (str or Path) or object-file bytes, but got "
      << item.GetTypeKey();
  return nullptr;
}

// The module over `d`: ffi.Module.from_symbol_lookup with a lookup owning `d`.
static ffi::Module MakeModule(std::shared_ptr<Dylib> d) {
  static ffi::Function from_lookup =
      ffi::Function::GetGlobalRequired("ffi.Module.from_symbol_lookup");
  ffi::Function lookup = ffi::Function::FromTyped([d](ffi::String name) -> ffi::Any {
    void* p = d->Lookup(std::string(name.data(), name.size()));
    if (p == nullptr) return ffi::Any(nullptr);
    return ffi::Any(p);
  });
  return from_lookup(ffi::String("orcjit"), lookup).cast<ffi::Module>();
}

static ffi::Module LoadModule(const std::shared_ptr<Session>& s, const ffi::Array<ffi::Any>& objs,
                              const std::string& name) {
  std::shared_ptr<Dylib> d = s->CreateDylib(name);
  for (const ffi::Any& item : objs) d->AddObject(ReadItem(item, d->name));
  return MakeModule(std::move(d));
}

static ffi::ObjectRef NewSession(const ffi::Any& orc_rt, int64_t slab_size) {
  (void)slab_size;  // JIT memory comes from LLVM's default manager (no slab pool)
  if (orc_rt != nullptr && !orc_rt.try_cast<ffi::String>() && !orc_rt.try_cast<ffi::Bytes>())
    TVM_FFI_THROW(TypeError) << "orc_rt must be 'auto', a path (str or Path), liborc_rt bytes, "
                                "or None, but got "
                             << orc_rt.GetTypeKey();
  auto obj = ffi::make_object<ExecutionSessionObj>();
  obj->impl = std::make_shared<Session>();
  return ffi::ObjectRef(std::move(obj));
}

static std::shared_ptr<Session> SessionOf(const ffi::ObjectRef& ref) {
  const auto* s = ref.as<ExecutionSessionObj>();
  if (s == nullptr)
    TVM_FFI_THROW(TypeError) << "expected a tvm_ffi_orcjit.ExecutionSession, got "
                             << ref.GetTypeKey();
  return s->impl;
}

static DynamicLibraryObj* LibOf(const ffi::ObjectRef& ref) {
  const auto* l = ref.as<DynamicLibraryObj>();
  if (l == nullptr)
    TVM_FFI_THROW(TypeError) << "expected a tvm_ffi_orcjit.DynamicLibrary, got "
                             << ref.GetTypeKey();
  return const_cast<DynamicLibraryObj*>(l);  // the cached module is filled in lazily
}

static ffi::ObjectRef DefaultSession() {
  // Leaked on purpose: JIT code may be referenced until the process ends.
  static ffi::ObjectRef* s = new ffi::ObjectRef(NewSession(ffi::Any(nullptr), 0));
  return *s;
}

static void RegisterGlobals() {
  namespace refl = tvm::ffi::reflection;
  refl::ObjectDef<ExecutionSessionObj>();
  refl::ObjectDef<DynamicLibraryObj>();
  refl::GlobalDef()
      .def("tvm_ffi_orcjit.ExecutionSession", NewSession)
      .def("tvm_ffi_orcjit.GlobalDefaultSession", DefaultSession)
      .def("tvm_ffi_orcjit.SessionLoadModule",
           [](ffi::ObjectRef s, ffi::Array<ffi::Any> objs, ffi::String name) {
             return LoadModule(SessionOf(s), objs, std::string(name.data(), name.size()));
           })
      .def("tvm_ffi_orcjit.SessionClearFreeSlabs",
           [](ffi::ObjectRef s) -> int64_t {
             SessionOf(s);
             return 0;  // no slab pool: nothing to reclaim
           })
      // Incremental loading (seed ObjectLoader, gen-1 DynamicLibrary).
      .def("tvm_ffi_orcjit.SessionCreateDynamicLibrary",
           [](ffi::ObjectRef s, ffi::String name) {
             auto obj = ffi::make_object<DynamicLibraryObj>();
             obj->impl = SessionOf(s)->CreateDylib(std::string(name.data(), name.size()));
             return ffi::ObjectRef(std::move(obj));
           })
      .def("tvm_ffi_orcjit.DynamicLibraryAdd",
           [](ffi::ObjectRef lib, ffi::Any item) {
             DynamicLibraryObj* l = LibOf(lib);
             l->impl->AddObject(ReadItem(item, l->impl->name));
           })
      .def("tvm_ffi_orcjit.DynamicLibraryGetModule",
           [](ffi::ObjectRef lib) {
             static std::mutex mu;  // one module per library, even under racing callers
             DynamicLibraryObj* l = LibOf(lib);
             std::lock_guard<std::mutex> g(mu);
             if (!l->module.has_value()) l->module = MakeModule(l->impl);
             return l->module.value();
           })
      // tvm_ffi.load_module("x.o") (seed README): one object, default session.
      .def("ffi.Module.load_from_file.o", [](ffi::String path, ffi::Optional<ffi::String> fmt) {
        (void)fmt;
        ffi::Array<ffi::Any> objs;
        objs.push_back(path);
        return LoadModule(SessionOf(DefaultSession()), objs, "");
      });
}

}  // namespace orcjit

extern "C" __attribute__((visibility("default"))) void TVMFFIOrcJITInitialize(void) {
  static std::once_flag once;
  std::call_once(once, orcjit::RegisterGlobals);
}

namespace {
struct AutoInit {
  AutoInit() { TVMFFIOrcJITInitialize(); }
} auto_init;
}  // namespace
