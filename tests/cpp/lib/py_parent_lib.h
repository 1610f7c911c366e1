/*
 * tests/cpp/lib/py_parent_lib.h -- C++ classes with state reflection does not
 * see, extended by Python-defined types in tests/python/test_py_class_cxx_parent.py
 * (through py_parent_lib.so) and tests/cpp/test_py_class_parent.cc (docs/cpp.md §5):
 * a heap block, a string whose short form points into the object, a reference;
 * their constructors and destructors count their runs.
 */
#ifndef TVMFFI_TESTS_CPP_LIB_PY_PARENT_LIB_H_
#define TVMFFI_TESTS_CPP_LIB_PY_PARENT_LIB_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace py_parent_lib {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

inline int64_t made = 0, copied = 0, destroyed = 0;

class TrackedObj : public ffi::Object {
 public:
  int64_t n = 0;
  std::vector<int64_t> items{1, 2, 3};
  std::string label = "short";
  ffi::Optional<ffi::ObjectRef> hidden;
  TrackedObj() { ++made; }
  TrackedObj(const TrackedObj& o)
      : ffi::Object(o), n(o.n), items(o.items), label(o.label), hidden(o.hidden) {
    ++copied;
  }
  ~TrackedObj() { ++destroyed; }
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO("pyparentlib.Tracked", TrackedObj, ffi::Object);
};

// No copy constructor: a Python-defined subclass's objects cannot be copied.
class SoleObj : public ffi::Object {
 public:
  std::unique_ptr<std::string> text = std::make_unique<std::string>(64, 'x');
  ~SoleObj() { ++destroyed; }
  TVM_FFI_DECLARE_OBJECT_INFO("pyparentlib.Sole", SoleObj, ffi::Object);
};

inline void Register() {
  refl::ObjectDef<TrackedObj>()
      .def_rw("n", &TrackedObj::n, refl::default_value(0))
      .def("push", [](const TrackedObj* self,
                      int64_t v) { const_cast<TrackedObj*>(self)->items.push_back(v); })
      .def("set_label",
           [](const TrackedObj* self, ffi::String s) {
             const_cast<TrackedObj*>(self)->label = std::string(s);
           })
      .def("set_hidden",
           [](const TrackedObj* self, ffi::Optional<ffi::ObjectRef> v) {
             const_cast<TrackedObj*>(self)->hidden = v;
           })
      .def("summary", [](const TrackedObj* self) {
        return ffi::String(
            self->label + ":" +
            std::to_string(std::accumulate(self->items.begin(), self->items.end(), int64_t{0}) +
                           self->n));
      });
  refl::ObjectDef<SoleObj>().def("text_size",
                                 [](const SoleObj* self) { return int64_t(self->text->size()); });
  refl::GlobalDef().def("pyparentlib.counts",
                        []() { return ffi::Array<int64_t>{made, copied, destroyed}; });
}
}  // namespace py_parent_lib

#endif  // TVMFFI_TESTS_CPP_LIB_PY_PARENT_LIB_H_
