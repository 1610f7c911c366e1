// tests/cpp/test_module.cc -- libraries built with these headers, loaded through
// the C API and through Module: exports, load-time registration, errors, examples.
#include <dlfcn.h>

#include <tvm/ffi/extra/module.h>
#include <cstdlib>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Function;
using ffi::Module;
using ffi::Tensor;

/* Path of a library built by `make check` (top_builddir is set by the test harness). */
std::string BuiltLib(const std::string& rel) {
  const char* top = std::getenv("top_builddir");
  return std::string(top ? top : ".") + "/" + rel;
}
std::string TestLib() { return BuiltLib("tests/cpp/.libs/cpp_testlib.so"); }

TVMFFIAny IntArg(int64_t v) {
  TVMFFIAny a{};
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

struct CPUNDAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};
const DLDataType kF32{kDLFloat, 32, 1};
Tensor Vec(std::initializer_list<float> values) {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {static_cast<int64_t>(values.size())}, kF32,
                                 DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (float v : values) *p++ = v;
  return t;
}
float At(const Tensor& t, int i) { return static_cast<const float*>(t.data_ptr())[i]; }

TEST_SUITE("module") {
  TEST_CASE("exported symbols called through the plain C API") {
    void* h = dlopen(TestLib().c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(h != nullptr, dlerror());
    auto addi = reinterpret_cast<TVMFFISafeCallType>(dlsym(h, "__tvm_ffi_addi"));
    REQUIRE(dlsym(h, "__tvm_ffi_addi") != nullptr);
    TVMFFIAny arg = IntArg(41), result{};
    CHECK_EQ(addi(nullptr, &arg, 1, &result), 0);
    CHECK_EQ(result.type_index, kTVMFFIInt);
    CHECK_EQ(result.v_int64, 42);
    CHECK(RaisedSlotIsClean());

    // a typed mismatch comes back as a TypeError naming the export
    TVMFFIAny bad{};
    bad.type_index = kTVMFFIFloat;
    bad.v_float64 = 1.5;
    result = TVMFFIAny{};
    CHECK_EQ(addi(nullptr, &bad, 1, &result), -1);
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    REQUIRE(err != nullptr);
    TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    CHECK_EQ(std::string(cell->kind.data, cell->kind.size), "TypeError");
    CHECK_EQ(std::string(cell->message.data, cell->message.size),
             "Mismatched type on argument #0 when calling: `addi(0: int) -> int`. Expected "
             "`int` but got `float`");
    TVMFFIObjectDecRef(err);

    // TVM_FFI_THROW inside the library: kind, message and the throwing file:line
    auto raise = reinterpret_cast<TVMFFISafeCallType>(dlsym(h, "__tvm_ffi_raise_value_error"));
    auto line_fn = reinterpret_cast<TVMFFISafeCallType>(dlsym(h, "__tvm_ffi_raise_line"));
    REQUIRE(dlsym(h, "__tvm_ffi_raise_value_error") != nullptr);
    REQUIRE(dlsym(h, "__tvm_ffi_raise_line") != nullptr);
    REQUIRE(dlsym(h, "__tvm_ffi_throw_std") != nullptr);
    result = TVMFFIAny{};
    CHECK_EQ(line_fn(nullptr, nullptr, 0, &result), 0);
    int64_t line = result.v_int64;
    arg = IntArg(1);
    result = TVMFFIAny{};
    CHECK_EQ(raise(nullptr, &arg, 1, &result), -1);
    TVMFFIErrorMoveFromRaised(&err);
    REQUIRE(err != nullptr);
    cell = TVMFFIErrorGetCellPtr(err);
    CHECK_EQ(std::string(cell->kind.data, cell->kind.size), "ValueError");
    CHECK_EQ(std::string(cell->message.data, cell->message.size), "bad 1");
    std::string bt(cell->backtrace.data, cell->backtrace.size);
    CHECK_MESSAGE(bt.find("cpp_testlib.cc\", line " + std::to_string(line)) != std::string::npos,
                  bt);
    CHECK_MESSAGE(bt.find("RaiseValueError") != std::string::npos, bt);
    TVMFFIObjectDecRef(err);

    // a std::exception becomes InternalError with what() as the message
    auto thr = reinterpret_cast<TVMFFISafeCallType>(dlsym(h, "__tvm_ffi_throw_std"));
    result = TVMFFIAny{};
    CHECK_EQ(thr(nullptr, nullptr, 0, &result), -1);
    ffi::Error e = ffi::details::MoveFromSafeCallRaised();
    CHECK_EQ(e.kind(), "InternalError");
    CHECK_EQ(e.message(), "boom");

    // metadata symbol: {"type_schema": ...}
    auto meta = reinterpret_cast<TVMFFISafeCallType>(dlsym(h, "__tvm_ffi__metadata_addi"));
    REQUIRE(dlsym(h, "__tvm_ffi__metadata_addi") != nullptr);
    Any m;
    CHECK_EQ(meta(nullptr, nullptr, 0, ffi::details::AnyUnsafe::GetRaw(&m)), 0);
    std::string json = m.cast<std::string>();
    CHECK_EQ(json.rfind("{\"type_schema\":", 0), 0u);
    CHECK(json.find("int") != std::string::npos);
    CHECK(dlsym(h, "__tvm_ffi__doc_addi") != nullptr);
    CHECK(RaisedSlotIsClean());
    // the library made `m`'s string: its deleter must stay mapped after dlclose
    // (memory.h pins every binary that makes objects), so `m` dies after this
    dlclose(h);
  }

  TEST_CASE("load-time registration, both STATIC_INIT_BLOCK forms run once") {
    Module mod = Module::LoadFromFile(TestLib());
    ffi::Array<int> runs = mod->GetFunction("init_runs").value()().cast<ffi::Array<int>>();
    CHECK_EQ(runs[0], 1);
    CHECK_EQ(runs[1], 1);
    CHECK_EQ(Function::GetGlobalRequired("cpptestlib.add")(2, 3).cast<int>(), 5);
    CHECK_EQ(Function::GetGlobalRequired("cpptestlib.old_form")(2, 3).cast<int>(), 6);
    CHECK_EQ(Function::GetGlobalRequired("cpptestlib.concat")("ab", "cd").cast<ffi::String>(),
             "abcd");
    CHECK_EQ(Function::GetGlobalRequired("cpptestlib.count_args")(1, 2, 3).cast<int>(), 3);
    CHECK_EQ(mod->GetFunction("lambda_add").value()(20, 22).cast<int>(), 42);
    CHECK_FALSE(mod->GetFunction("missing").has_value());
    // reflected object: __ffi_init__ attribute and fields at the expected offsets
    int32_t tindex = ffi::TypeKeyToIndex("cpptestlib.Pair");
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(tindex);
    REQUIRE_EQ(info->num_fields, 2);
    CHECK_EQ(info->fields[0].offset, static_cast<int64_t>(sizeof(TVMFFIObject)));
    CHECK_EQ(info->fields[1].offset, static_cast<int64_t>(sizeof(TVMFFIObject) + 8));
    CHECK((info->fields[1].flags & kTVMFFIFieldFlagBitMaskWritable) != 0);
    CHECK((info->fields[1].flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0);
    CHECK_EQ(std::string(info->fields[0].doc.data, info->fields[0].doc.size), "first");
    TVMFFIByteArray init_name{"__ffi_init__", 12};
    const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&init_name);
    REQUIRE(col != nullptr);
    REQUIRE_LT(tindex - col->begin_index, col->size);
    Function init =
        ffi::AnyView::CopyFromTVMFFIAny(col->data[tindex - col->begin_index]).cast<Function>();
    ffi::ObjectRef pair = init(1, 2).cast<ffi::ObjectRef>();
    Any x;
    CHECK_EQ(info->fields[0].getter(
                 reinterpret_cast<char*>(ffi::details::RefHandle(pair)) + info->fields[0].offset,
                 ffi::details::AnyUnsafe::GetRaw(&x)),
             0);
    CHECK_EQ(x.cast<int>(), 1);
    CHECK_EQ(pair.GetTypeKey(), "cpptestlib.Pair");
  }

  TEST_CASE("a function keeps its module alive") {
    Function f = Module::LoadFromFile(TestLib())->GetFunction("addi").value();
    CHECK_EQ(f(1).cast<int>(), 2);
    CHECK_THROWS_FFI_HAS(f("x"), "TypeError", "addi(0: int) -> int");
  }

  TEST_CASE("packaging example: add_one and raise_error") {
    Module mod = Module::LoadFromFile(BuiltLib("examples/packaging/.libs/my_ffi_extension.so"));
    Tensor x = Vec({1, 2, 3}), y = Vec({0, 0, 0});
    mod->GetFunction("add_one").value()(x, y);
    CHECK_EQ(At(y, 0), 2.0f);
    CHECK_EQ(At(y, 2), 4.0f);
    try {
      Function::GetGlobalRequired("my_ffi_extension.raise_error")("oops");
      FAIL("no throw");
    } catch (const ffi::Error& e) {
      CHECK_EQ(e.kind(), "RuntimeError");
      CHECK_EQ(e.message(), "oops");
      CHECK_MESSAGE(e.backtrace().find("extension.cc") != std::string::npos, e.backtrace());
      CHECK_MESSAGE(e.backtrace().find("RaiseError") != std::string::npos, e.backtrace());
    }
  }

  TEST_CASE("quickstart add_one_cpu") {
    Module mod = Module::LoadFromFile(BuiltLib("examples/quickstart/.libs/add_one_cpu.so"));
    Tensor x = Vec({1, 2}), y = Vec({0, 0});
    mod->GetFunction("add_one_cpu").value()(x, y);
    CHECK_EQ(At(y, 1), 3.0f);
    Tensor wrong =
        Tensor::FromNDAlloc(CPUNDAlloc(), {2}, DLDataType{kDLInt, 32, 1}, DLDevice{kDLCPU, 0});
    CHECK_THROWS_FFI_HAS(mod->GetFunction("add_one_cpu").value()(wrong, y), "InternalError",
                         "x must be a float tensor");
  }

  TEST_CASE("kernel library example: Optional args, env allocation, streams") {
    Module mod = Module::LoadFromFile(BuiltLib("examples/kernel_library/.libs/kernel_lib.so"));
    Function axpy = mod->GetFunction("axpy").value();
    Tensor in = Vec({1, 2}), other = Vec({10, 20}), out = Vec({0, 0}), ws = Vec({0, 0});
    axpy(in, nullptr, out, ws, nullptr);
    CHECK_EQ(At(out, 1), 2.0f);
    axpy(in, other, out, ws, 0.5);
    CHECK_EQ(At(ws, 1), 22.0f);
    CHECK_EQ(At(out, 1), 11.0f);
    CHECK_THROWS_FFI_HAS(axpy(in, nullptr, Vec({0}), ws, nullptr), "ValueError",
                         "output size differs from input");

    Tensor full = mod->GetFunction("full").value()(ffi::Shape({2, 3}), 1.5).cast<Tensor>();
    CHECK_EQ(full.numel(), 6);
    CHECK_EQ(At(full, 5), 1.5f);

    auto alloc = [](DLTensor* proto, DLManagedTensorVersioned** out, void*,
                    void (*)(void*, const char*, const char*)) -> int {
      Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), ffi::ShapeView(proto->shape, proto->ndim),
                                     proto->dtype, proto->device);
      *out = t.ToDLPackVersioned();
      return 0;
    };
    DLPackManagedTensorAllocator old = nullptr;
    TVMFFIEnvSetDLPackManagedTensorAllocator(alloc, 0, &old);
    Tensor y = mod->GetFunction("add_one_alloc").value()(in).cast<Tensor>();
    TVMFFIEnvSetDLPackManagedTensorAllocator(old, 0, nullptr);
    CHECK_EQ(At(y, 0), 2.0f);

    Function stream = mod->GetFunction("current_stream").value();
    CHECK_EQ(stream(in).cast<int64_t>(), 0);
    TVMFFIStreamHandle prev = nullptr;
    TVMFFIEnvSetStream(kDLCPU, 0, reinterpret_cast<void*>(0x1234), &prev);
    CHECK_EQ(stream(in).cast<int64_t>(), 0x1234);
    TVMFFIEnvSetStream(kDLCPU, 0, prev, nullptr);
    CHECK(RaisedSlotIsClean());
  }
}
}  // namespace
