/*
 * tests/cpp/lib/cpp_testlib.cc -- a library built only with the C++ headers.
 * test_module.cc loads it through the C API and through Module, and checks
 * what it registers at load time and what it exports.
 */
#define TVM_FFI_DLL_EXPORT_INCLUDE_METADATA 1
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <stdexcept>

namespace cpp_testlib {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

int init_runs_new = 0;
int init_runs_old = 0;

int AddI(int x) { return x + 1; }
const int kRaiseLine = __LINE__ + 1;
void RaiseValueError(int v) { TVM_FFI_THROW(ValueError) << "bad " << v; }
int ThrowStd() { throw std::runtime_error("boom"); }

/* A reflected object with a read-only and a writable field. */
class PairObj : public ffi::Object {
 public:
  int64_t x;
  int64_t y;
  PairObj(int64_t a, int64_t b) : x(a), y(b) {}
  int64_t Sum() const { return x + y; }
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpptestlib.Pair", PairObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  ++init_runs_new;
  refl::GlobalDef()
      .def(
          "cpptestlib.add", [](int a, int b) { return a + b; }, "adds two ints")
      .def("cpptestlib.concat", [](ffi::String a, ffi::String b) { return a + b; })
      .def_packed("cpptestlib.count_args",
                  [](ffi::PackedArgs args, ffi::Any* rv) { *rv = args.size(); });
  refl::ObjectDef<PairObj>()
      .def(refl::init<int64_t, int64_t>())
      .def_ro("x", &PairObj::x, "first")
      .def_rw("y", &PairObj::y, refl::default_value(10))
      .def("sum", &PairObj::Sum);
}

// The older spelling, with commas inside the body.
TVM_FFI_STATIC_INIT_BLOCK({
  ++init_runs_old;
  int unused_a = 1, unused_b = 2;
  (void)unused_a;
  (void)unused_b;
  refl::GlobalDef().def("cpptestlib.old_form", [](int a, int b) { return a * b; });
});

ffi::Array<int> InitRuns() { return {init_runs_new, init_runs_old}; }
int64_t RaiseLine() { return kRaiseLine; }

}  // namespace cpp_testlib

TVM_FFI_DLL_EXPORT_TYPED_FUNC(addi, cpp_testlib::AddI)
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(addi, "returns x + 1");
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_value_error, cpp_testlib::RaiseValueError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(throw_std, cpp_testlib::ThrowStd);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(init_runs, cpp_testlib::InitRuns);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_line, cpp_testlib::RaiseLine);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lambda_add, [](int a, int b) { return a + b; });
