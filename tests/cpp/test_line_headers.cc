// tests/cpp/test_line_headers.cc -- the header names of earlier 0.1.x releases
// (docs/cpp.md): each compiles here and brings what the release's header of
// that name declared -- base64, DeepCopy, reflection::MakeInit.
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/extra/base64.h>
#include <tvm/ffi/extra/deep_copy.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/reflection/init.h>

#include <cstring>
#include <string>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
namespace refl = tvm::ffi::reflection;

class LineInitObj : public ffi::Object {
 public:
  int64_t a = 0, b = 0, c = 0;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("cpptest.LineInit", LineInitObj, ffi::Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  // declared out of order: the defaulted b first, the keyword-only c last
  refl::ObjectDef<LineInitObj>()
      .def_rw("b", &LineInitObj::b, refl::default_value(5))
      .def_rw("a", &LineInitObj::a)
      .def_rw("c", &LineInitObj::c, refl::kw_only(true), refl::default_value(7));
}

std::string Text(const ffi::Bytes& b) { return std::string(b.data(), b.size()); }

TEST_SUITE("line headers") {
  TEST_CASE("Base64Encode / Base64Decode") {
    const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char* coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; ++i) {
      CHECK_EQ(ffi::Base64Encode(TVMFFIByteArray{plain[i], std::strlen(plain[i])}), coded[i]);
      CHECK_EQ(Text(ffi::Base64Decode(ffi::String(coded[i]))), plain[i]);
    }
    std::string all;
    for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
    ffi::Bytes bytes(all);
    CHECK_EQ(Text(ffi::Base64Decode(ffi::Base64Encode(bytes))), all);
    CHECK_THROWS_FFI_HAS(ffi::Base64Decode(ffi::String("Zm9")), "ValueError", "multiple of 4");
    for (const char* bad : {"Zm9!", "Z===", "Zg==Zg==", "Zm=v"}) {
      CHECK_THROWS_FFI_HAS(ffi::Base64Decode(ffi::String(bad)), "ValueError", "invalid character");
    }
  }

  TEST_CASE("deep_copy.h declares DeepCopy") {
    ffi::Array<ffi::Any> a{1, ffi::Array<ffi::Any>{2}};
    ffi::Any copy = ffi::DeepCopy(a);
    CHECK(!copy.same_as(ffi::Any(a)));
    CHECK_EQ(copy.cast<ffi::Array<ffi::Any>>()[0].cast<int>(), 1);
  }

  TEST_CASE("reflection::MakeInit binds positional, then keyword arguments") {
    ffi::Function init = refl::MakeInit(LineInitObj::RuntimeTypeIndex());
    ffi::Any kwargs = ffi::Function::GetGlobalRequired("ffi.GetKwargsObject")();
    auto fields = [](ffi::Any v) {
      const LineInitObj* o = v.cast<ffi::ObjectRef>().as<LineInitObj>();
      REQUIRE(o != nullptr);
      return std::to_string(o->a) + " " + std::to_string(o->b) + " " + std::to_string(o->c);
    };
    CHECK_EQ(fields(init(1)), "1 5 7");  // a is the first positional parameter, b the second
    CHECK_EQ(fields(init(1, 2)), "1 2 7");
    CHECK_EQ(fields(init(1, kwargs, "c", 9)), "1 5 9");
    CHECK_EQ(fields(init(kwargs, "b", 4, "a", 3)), "3 4 7");
    CHECK_THROWS_FFI_HAS(init(1, 2, 3), "TypeError", "takes at most 2 positional argument(s)");
    CHECK_THROWS_FFI_HAS(init(1, kwargs, "c"), "TypeError", "name/value pairs");
    CHECK_THROWS_FFI_HAS(init(), "TypeError", "`a` not set");
    CHECK_THROWS_FFI_HAS(init(1, kwargs, "a", 2), "TypeError", "more than once");
    CHECK_THROWS_FFI_HAS(init(1, kwargs, "zz", 2), "TypeError", "zz");
    CHECK_THROWS_FFI_HAS(refl::MakeInit(-5), "RuntimeError", "-5");
    CHECK(RaisedSlotIsClean());
  }
}

}  // namespace
