/*
 * bench/compile/containers.cc -- a compile-time benchmark TU (bench/bench_cpp.sh): typed
 * globals over the containers (Array, Map, Optional, Variant, String) registered with
 * GlobalDef, with the checks' error paths. Builds against both header sets.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

namespace bench_containers {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

using IntOrString = ffi::Variant<int64_t, ffi::String>;

ffi::Array<int64_t> Prefix(ffi::Array<int64_t> xs) {
  ffi::Array<int64_t> out;
  int64_t s = 0;
  for (int64_t x : xs) out.push_back(s += x);
  return out;
}

ffi::Map<ffi::String, ffi::Array<int64_t>> Group(ffi::Array<ffi::String> keys,
                                                 ffi::Array<int64_t> values) {
  TVM_FFI_ICHECK_EQ(keys.size(), values.size()) << "keys and values differ in length";
  ffi::Map<ffi::String, ffi::Array<int64_t>> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    ffi::Array<int64_t> cur = out.count(keys[i]) ? out[keys[i]] : ffi::Array<int64_t>();
    cur.push_back(values[i]);
    out.Set(keys[i], cur);
  }
  return out;
}

ffi::String Describe(IntOrString v) {
  if (auto i = v.as<int64_t>()) return ffi::String(std::to_string(*i));
  return v.get<ffi::String>();
}

int64_t Lookup(ffi::Map<ffi::String, int64_t> table, ffi::String key,
               ffi::Optional<int64_t> fallback) {
  auto it = table.find(key);
  if (it != table.end()) return (*it).second;
  if (!fallback.has_value()) TVM_FFI_THROW(KeyError) << "no entry " << key;
  return fallback.value();
}

ffi::Array<IntOrString> Mixed(int64_t n, ffi::Optional<ffi::String> tag) {
  ffi::Array<IntOrString> out;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 2 == 0 || !tag.has_value()) {
      out.push_back(IntOrString(i));
    } else {
      out.push_back(IntOrString(tag.value()));
    }
  }
  return out;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::GlobalDef()
      .def("bench.prefix", Prefix)
      .def("bench.group", Group)
      .def("bench.describe", Describe)
      .def("bench.lookup", Lookup)
      .def("bench.mixed", Mixed);
}

}  // namespace bench_containers
