// Source compatibility of transitive includes (docs/cpp.md §1): code written against
// upstream uses std::cout and std::ostringstream having included only tvm/ffi/error.h.
// The helpers below come before any other include, so they compile only if error.h
// provides <sstream> and <iostream> (unless TVM_FFI_NO_IOSTREAM, not defined here).
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
  TEST_CASE("error.h provides iostream and sstream as upstream's does") {
    CHECK(FormatWithStringStream(42) == "value=42");
    CHECK(StandardOut() == &std::cout);
  }
}
