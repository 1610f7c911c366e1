// tests/compat/hook_peer.cc -- a map-key type with native __any_hash__ /
// __any_equal__ hooks, built against one apache-tvm-ffi 0.1.N release's
// headers (-DCOMPAT_RELEASE_PATCH=N, N >= 9) and stored the way that release
// stores them: raw int64_t / bool function pointers up to 0.1.14 (as TVM 0.27
// does), native_fn_attr's TVMFFIAny adapters in 0.1.15.  Two of these, an old
// release's and a new one's, share one process in apache_kernel_load --peers:
// each library's inline map code hashes the other's keys.  The type key names
// the release, so both register.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#ifndef COMPAT_RELEASE_PATCH
#error "build with -DCOMPAT_RELEASE_PATCH=N for apache-tvm-ffi 0.1.N"
#endif
#define PEER_STR2(x) #x
#define PEER_STR(x) PEER_STR2(x)

namespace ffi = tvm::ffi;

namespace {

class PeerKeyObj : public ffi::Object {
 public:
  int64_t id;
  explicit PeerKeyObj(int64_t id) : id(id) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("compat.hook_peer" PEER_STR(COMPAT_RELEASE_PATCH) ".Key",
                                    PeerKeyObj, ffi::Object);
};

// ids 1, 4 and 7 hash to 1, which reads like 0.1.15's Int type index
int64_t PeerHash(const ffi::Any& key) { return key.as<PeerKeyObj>()->id % 3; }

bool PeerEqual(const ffi::Any& a, const ffi::Any& b) {
  return a.as<PeerKeyObj>()->id == b.as<PeerKeyObj>()->id;
}

ffi::ObjectRef MakeKey(int64_t id) { return ffi::ObjectRef(ffi::make_object<PeerKeyObj>(id)); }

// These headers' inline Map::Set: each key hashed and compared through the columns.
ffi::Map<ffi::Any, int64_t> KeyMap(ffi::Array<ffi::Any> keys) {
  ffi::Map<ffi::Any, int64_t> out;
  for (size_t i = 0; i < keys.size(); ++i) out.Set(keys[i], static_cast<int64_t>(i));
  return out;
}

int64_t KeyLookup(ffi::Map<ffi::Any, int64_t> m, ffi::Any key) {
  auto it = m.find(key);
  return it == m.end() ? -1 : (*it).second;
}

int64_t ReleasePatch() { return COMPAT_RELEASE_PATCH; }

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_key, MakeKey);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(key_map, KeyMap);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(key_lookup, KeyLookup);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(release_patch, ReleasePatch);

TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<PeerKeyObj>().def_ro("id", &PeerKeyObj::id);
#if COMPAT_RELEASE_PATCH >= 15
  refl::TypeAttrDef<PeerKeyObj>()
      .native_fn_attr<&PeerHash>(ffi::type_attr::kAnyHash)
      .native_fn_attr<&PeerEqual>(ffi::type_attr::kAnyEqual);
#else
  refl::TypeAttrDef<PeerKeyObj>()
      .attr("__any_hash__", reinterpret_cast<void*>(&PeerHash))
      .attr("__any_equal__", reinterpret_cast<void*>(&PeerEqual));
#endif
}
