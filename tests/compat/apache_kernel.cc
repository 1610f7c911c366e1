// tests/compat/apache_kernel.cc -- a kernel library written the way upstream
// users write one, compiled against the headers of an apache-tvm-ffi release's
// wheel (never ours), for every 0.1.x release.  test_apache_kernel.sh builds it
// and loads it through our runtime; the exports below are what
// apache_kernel_load.c calls.  COMPAT_RELEASE_PATCH is N of the release 0.1.N
// (the headers' TVM_FFI_VERSION_PATCH runs ahead of it in some releases):
// what a release's headers lack is left out by COMPAT_SINCE(N), and the
// export `release_patch` tells the loader what to expect.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <exception>
#include <optional>
#include <string>

#ifndef COMPAT_RELEASE_PATCH
#error "build with -DCOMPAT_RELEASE_PATCH=N for apache-tvm-ffi 0.1.N"
#endif
#define COMPAT_SINCE(patch) (COMPAT_RELEASE_PATCH >= (patch))
#if COMPAT_SINCE(14)
#include <tvm/ffi/big_int.h>
#endif
#if COMPAT_SINCE(13)
#include <tvm/ffi/extra/structural_visit.h>
#endif

namespace ffi = tvm::ffi;

namespace {

// y = x + 1 over 1-d float32 CPU tensors.
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  if (x.ndim() != 1 || y.ndim() != 1 || x.size(0) != y.size(0)) {
    TVM_FFI_THROW(ValueError) << "add_one: expected two 1-d tensors of the same length";
  }
  DLDataType f32{kDLFloat, 32, 1};
  if (x.dtype() != f32 || y.dtype() != f32) {
    TVM_FFI_THROW(TypeError) << "add_one: expected float32 tensors";
  }
  const float* src = static_cast<const float*>(x.data_ptr());
  float* dst = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) dst[i] = src[i] + 1.0f;
}

// A fresh float32 tensor [0, 1, ..., n-1] allocated through the caller's
// environment allocator (TVMFFIEnvTensorAlloc).
ffi::Tensor Iota(int64_t n) {
  int64_t shape[1] = {n};
  ffi::Tensor t = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ffi::ShapeView(shape, 1),
                                            DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  float* data = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(i);
  return t;
}

int64_t AddInt(int64_t a, int64_t b) { return a + b; }

double Scale(double x, double factor) { return x * factor; }

ffi::String Greet(ffi::String name) { return ffi::String("hello, " + std::string(name) + "!"); }

int64_t StrLen(ffi::String s) { return static_cast<int64_t>(s.size()); }

void Fail(int64_t code) {
  TVM_FFI_THROW(ValueError) << "compat kernel failed with code " << code;  // COMPAT_THROW_LINE
}

// Calls back into a function object made by the host's runtime.
int64_t Apply(ffi::Function f, int64_t x) { return f(x).cast<int64_t>() + 1; }

// Containers cross in both directions: the host's runtime reads arrays and
// maps laid out by these headers' inline code, and this code reads the
// host's.
ffi::Array<int64_t> MakeArray(int64_t n) {
  ffi::Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i * i);
  return out;
}

int64_t SumArray(ffi::Array<int64_t> a) {
  int64_t sum = 0;
  for (int64_t v : a) sum += v;
  return sum;
}

ffi::Map<ffi::String, int64_t> MakeMap(int64_t n) {
  ffi::Map<ffi::String, int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.Set("k" + std::to_string(i), i * 10);
  return out;
}

int64_t MapGet(ffi::Map<ffi::String, int64_t> m, ffi::String key) {
  auto it = m.find(key);
  if (it == m.end()) TVM_FFI_THROW(KeyError) << "map_get: no key " << key;
  return (*it).second;
}

// A map key type with its own __any_hash__ / __any_equal__ hooks (0.1.10+):
// registered with 0.1.15's native_fn_attr (called as TVMFFIAny f(const
// Any&...) noexcept), before that as ffi.Function type attributes.  Our
// runtime's maps must call them either way.  (Raw int64_t / bool pointers,
// 0.1.9-0.1.14's native form: hook_peer.cc.)  Equal ids are the same key; a
// negative id makes the hash hook throw.
class KeyObj : public ffi::Object {
 public:
  int64_t id;
  explicit KeyObj(int64_t id) : id(id) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("compat.apache_kernel.Key", KeyObj, ffi::Object);
};

int64_t KeyHash(const ffi::Any& key) {
  int64_t id = key.as<KeyObj>()->id;
  if (id < 0) TVM_FFI_THROW(ValueError) << "compat key hash refused id " << id;
  return id % 3;  // collisions: the equal hook must tell keys apart
}

bool KeyEqual(const ffi::Any& a, const ffi::Any& b) {
  return a.as<KeyObj>()->id == b.as<KeyObj>()->id;
}

ffi::ObjectRef MakeKey(int64_t id) { return ffi::ObjectRef(ffi::make_object<KeyObj>(id)); }

// The kernel's inline map code looks a key up in a map the host built.
int64_t KeyLookup(ffi::Map<ffi::Any, int64_t> m, ffi::Any key) {
  auto it = m.find(key);
  return it == m.end() ? -1 : (*it).second;
}

#if COMPAT_SINCE(13)
// A subclass of a type the runtime itself creates, registered from these headers at load time
// (TVMFFITypeGetOrAllocIndex with ffi.StructuralVisitor's index, static init): refused, the
// library would not load.  Returns the parent's type key as the runtime records it.
class LineVisitorObj : public ffi::StructuralVisitorObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("compat.apache_kernel.LineVisitor", LineVisitorObj,
                                    ffi::StructuralVisitorObj);
};

ffi::String VisitorParent() {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(LineVisitorObj::RuntimeTypeIndex());
  const TVMFFITypeInfo* parent = info->type_ancestors[info->type_depth - 1];
  return ffi::String(parent->type_key.data, parent->type_key.size);
}
#endif

#if COMPAT_SINCE(14)
// BigInt objects cross both ways: the host's runtime made a and c, these
// headers' arithmetic makes the result (its words in a BigIntObj of theirs).
ffi::BigInt BigMulAdd(ffi::BigInt a, int64_t b, ffi::BigInt c) { return a * b + c; }
#endif

// An object type with reflected fields: our runtime reads them through the
// field getters these headers registered.
class PointObj : public ffi::Object {
 public:
  int64_t x;
  double y;
  PointObj(int64_t x, double y) : x(x), y(y) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("compat.apache_kernel.Point", PointObj, ffi::Object);
};

ffi::ObjectRef MakePoint(int64_t x, double y) {
  return ffi::ObjectRef(ffi::make_object<PointObj>(x, y));
}

// A module written in C++ (a ModuleObj subclass, vtable from the C++ ABI
// library): kind "compat_line", one function `scale`.
class LineModule : public ffi::ModuleObj {
 public:
  explicit LineModule(int64_t factor) : factor_(factor) {}
  const char* kind() const final { return "compat_line"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) final {
    if (name == "scale") {
      int64_t factor = factor_;
      return ffi::Function::FromTyped([factor](int64_t v) { return v * factor; });
    }
    if (name == "fail") {
      return ffi::Function::FromTyped(
          []() { TVM_FFI_THROW(IndexError) << "compat_line module failed"; });
    }
    return std::nullopt;
  }

 private:
  int64_t factor_;
};

ffi::Module MakeModule(int64_t factor) { return ffi::Module(ffi::make_object<LineModule>(factor)); }

// json::Stringify through the C++ ABI library: up to 0.1.12 the indent is an
// Optional<int> by value, from 0.1.13 by reference.  A negative indent: none.
ffi::String JsonDump(ffi::Any value, int64_t indent) {
  ffi::Optional<int> opt;
  if (indent >= 0) opt = static_cast<int>(indent);
  return ffi::json::Stringify(value, opt);
}

bool StructEq(ffi::Any a, ffi::Any b) { return ffi::StructuralEqual::Equal(a, b); }

// The virtual what() of a thrown Error, through its vtable (the runtime's,
// from 0.1.13, whose headers export it).
ffi::String WhatOf(ffi::String message) {
  try {
    TVM_FFI_THROW(RuntimeError) << message;
  } catch (const std::exception& err) {
    return ffi::String(err.what());
  }
  return ffi::String("not thrown");
}

int64_t ReleasePatch() { return COMPAT_RELEASE_PATCH; }

}  // namespace

#if COMPAT_SINCE(14)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(big_mul_add, BigMulAdd);
#endif
#if COMPAT_SINCE(13)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(visitor_parent, VisitorParent);
#endif
#if COMPAT_SINCE(10)
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_key, MakeKey);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(key_lookup, KeyLookup);
#endif
TVM_FFI_DLL_EXPORT_TYPED_FUNC(release_patch, ReleasePatch);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_point, MakePoint);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_module, MakeModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(json_dump, JsonDump);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(struct_eq, StructEq);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(what_of, WhatOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(iota, Iota);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(str_len, StrLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(apply, Apply);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_array, MakeArray);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_array, SumArray);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_map, MakeMap);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_get, MapGet);

// Registered into the global registry of whichever libtvm_ffi.so this
// library binds to, as soon as it is loaded.
TVM_FFI_STATIC_INIT_BLOCK() {
  namespace refl = ffi::reflection;
  refl::ObjectDef<PointObj>().def_ro("x", &PointObj::x).def_ro("y", &PointObj::y);
#if COMPAT_SINCE(10)
  refl::ObjectDef<KeyObj>().def_ro("id", &KeyObj::id);
#if COMPAT_SINCE(15)
  refl::TypeAttrDef<KeyObj>()
      .native_fn_attr<&KeyHash>(ffi::type_attr::kAnyHash)
      .native_fn_attr<&KeyEqual>(ffi::type_attr::kAnyEqual);
#else
  refl::TypeAttrDef<KeyObj>().def("__any_hash__", KeyHash).def("__any_equal__", KeyEqual);
#endif
#endif
  ffi::reflection::GlobalDef().def("compat.apache_kernel.mul_int",
                                   [](int64_t a, int64_t b) { return a * b; });
}
