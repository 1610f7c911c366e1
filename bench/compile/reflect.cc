/*
 * bench/compile/reflect.cc -- a compile-time benchmark TU (bench/bench_cpp.sh): one object
 * type with reflection (ObjectDef, three fields) and four typed globals over Array, Map,
 * TensorView and Optional, registered with GlobalDef. Builds against both header sets.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

namespace bench_reflect {

namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class ConfigObj : public ffi::Object {
 public:
  int64_t tile;
  double alpha;
  ffi::String name;

  ConfigObj(int64_t tile, double alpha, ffi::String name)
      : tile(tile), alpha(alpha), name(std::move(name)) {}

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("bench.Config", ConfigObj, ffi::Object);
};

class Config : public ffi::ObjectRef {
 public:
  Config(int64_t tile, double alpha, ffi::String name) {
    data_ = ffi::make_object<ConfigObj>(tile, alpha, std::move(name));
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Config, ffi::ObjectRef, ConfigObj);
};

int64_t SumTiles(ffi::Array<Config> configs) {
  int64_t s = 0;
  for (Config c : configs) s += c->tile;
  return s;
}

ffi::Map<ffi::String, int64_t> TileTable(ffi::Array<Config> configs) {
  ffi::Map<ffi::String, int64_t> out;
  for (Config c : configs) out.Set(c->name, c->tile);
  return out;
}

void Scale(ffi::TensorView x, Config cfg) {
  TVM_FFI_ICHECK(x.ndim() == 1) << "x must be 1-D, got " << x.ndim();
  float* p = static_cast<float*>(x.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) p[i] *= static_cast<float>(cfg->alpha);
}

int64_t TileOr(ffi::Optional<Config> cfg, int64_t fallback) {
  if (!cfg.has_value()) return fallback;
  if (cfg.value()->tile <= 0) TVM_FFI_THROW(ValueError) << "tile must be positive";
  return cfg.value()->tile;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<ConfigObj>()
      .def_ro("tile", &ConfigObj::tile)
      .def_ro("alpha", &ConfigObj::alpha)
      .def_ro("name", &ConfigObj::name);
  refl::GlobalDef()
      .def("bench.Config", [](int64_t tile, double alpha,
                              ffi::String name) { return Config(tile, alpha, std::move(name)); })
      .def("bench.sum_tiles", SumTiles)
      .def("bench.tile_table", TileTable)
      .def("bench.scale", Scale)
      .def("bench.tile_or", TileOr);
}

}  // namespace bench_reflect
