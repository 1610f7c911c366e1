// Source compatibility of transitive includes (docs/cpp.md §1): code written against
// upstream uses std::cout and std::ostringstream having included only tvm/ffi/error.h.
// Ours leaves <iostream>/<sstream> out (kernel TUs compile faster) unless
// TVM_FFI_IOSTREAM_COMPAT is defined; the helpers below come before any other include,
// so they compile only if error.h then provides both.
#define TVM_FFI_IOSTREAM_COMPAT
#include <tvm/ffi/error.h>

namespace {
std::string FormatWithStringStream(int v) {
  std::ostringstream os;
  os << "value=" << v;
  return os.str();
}
std::ostream* StandardOut() { return &std::cout; }
}  // namespace

#include <doctest/doctest.h>

TEST_SUITE("includes") {
  TEST_CASE("with TVM_FFI_IOSTREAM_COMPAT error.h provides iostream and sstream") {
    CHECK(FormatWithStringStream(42) == "value=42");
    CHECK(StandardOut() == &std::cout);
  }
}
