// tests/cpp/test_string.cc -- String and Bytes.
#include <stdexcept>
#include <unordered_map>

#include "testing_objects.h"

namespace {
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::AnyView;
using ffi::Bytes;
using ffi::String;

TEST_SUITE("string") {
  TEST_CASE("comparisons agree with std::string, embedded NULs included") {
    const char* words[] = {"", "a", "ab", "hello", "hello world", "hellp"};
    for (const char* x : words) {
      for (const char* y : words) {
        std::string sx = x, sy = y;
        String ax = x;
        CHECK_EQ(ax == sy, sx == sy);
        CHECK_EQ(ax < y, sx < sy);
        CHECK_EQ(sx >= String(y), sx >= sy);
        CHECK_EQ(y != ax, sy != sx);
      }
    }
    String z1("a\0b", 3), z2("a\0c", 3);
    CHECK(z1 < z2);
    CHECK_EQ(z1.size(), 3u);
    CHECK_EQ(String("hello").compare("hell"), 1);
    CHECK_EQ(String("hello").compare("hello world"), -1);
    CHECK_EQ(String("hello").compare(String("hello")), 0);
  }

  TEST_CASE("construction, move and concatenation") {
    std::string src = "a moved std::string";
    String s(std::move(src));
    CHECK(src.empty());
    CHECK_EQ(s, "a moved std::string");
    CHECK_EQ(String("a") + String("b"), "ab");
    CHECK_EQ(String("a") + std::string("b"), "ab");
    CHECK_EQ(std::string("a") + String("b"), "ab");
    CHECK_EQ(String("a") + "b", "ab");
    CHECK_EQ("a" + String() + "b", "ab");
    String moved_from = "some heap string content";
    String target = std::move(moved_from);
    CHECK(moved_from.empty());
    CHECK_EQ(target.size(), 24u);
    CHECK_THROWS_AS(target.at(100), std::out_of_range);
  }

  TEST_CASE("find, substr, starts_with, ends_with, Split") {
    String h = "hello world";
    CHECK_EQ(h.find("o", 5), 7u);
    CHECK_EQ(h.find("", 11), 11u);
    CHECK_EQ(h.find("", 20), String::npos);
    CHECK_EQ(h.substr(6), "world");
    CHECK_THROWS_AS(h.substr(12), std::out_of_range);
    CHECK(h.starts_with(""));
    CHECK(h.ends_with(""));
    CHECK(h.starts_with("hello"));
    CHECK(h.ends_with(String("world")));
    CHECK_FALSE(String("ab").starts_with("abc"));
    CHECK_FALSE(String("ab").ends_with("abc"));
    String csv = ",a,b,";  // Split returns views into csv
    auto parts = csv.Split(',');
    REQUIRE_EQ(parts.size(), 4u);
    CHECK_EQ(parts[0], "");
    CHECK_EQ(parts[1], "a");
    CHECK_EQ(parts[2], "b");
    CHECK_EQ(parts[3], "");
    CHECK_EQ(String("").Split(',').size(), 1u);
  }

  TEST_CASE("hashing and unordered_map keys") {
    CHECK_EQ(std::hash<String>()(String("abc")), std::hash<String>()(String(std::string("abc"))));
    std::unordered_map<String, int> m;
    m[String("key")] = 1;
    m[String(std::string("key"))] += 1;
    CHECK_EQ(m.size(), 1u);
    CHECK_EQ(m[String("key")], 2);
  }

  TEST_CASE("Bytes") {
    std::string raw = {'\0', 'a', 'b', 'c'};
    Bytes b(raw);
    CHECK_EQ(b.size(), 4u);
    CHECK_EQ(std::string(b), raw);
    TVMFFIByteArray ba{raw.data(), raw.size()};
    AnyView v = &ba;
    CHECK_EQ(v.type_index(), kTVMFFIByteArrayPtr);
    Any owned = &ba;
    CHECK_EQ(owned.type_index(), kTVMFFISmallBytes);
    CHECK_EQ(v.try_cast<std::string>().value(), raw);
    CHECK_EQ(owned.try_cast<std::string>().value(), raw);
    CHECK_EQ(AnyView("raw").try_cast<std::string>().value(), "raw");
    CHECK_EQ(Any(String("a long string!")).try_cast<std::string>().value(), "a long string!");
    CHECK_EQ(Any(Bytes(std::string("long bytes value"))).type_index(), kTVMFFIBytes);
  }

  TEST_CASE("EscapeStringJSON") {
    CHECK_EQ(ffi::EscapeStringJSON("a\\b\"c"), "\"a\\\\b\\\"c\"");
    CHECK_EQ(ffi::EscapeStringJSON("\n\x01"), "\"\\n\\u0001\"");
    CHECK_EQ(ffi::EscapeStringJSON("\b\f\t\r\x7f"), "\"\\b\\f\\t\\r\x7f\"");
  }
  TEST_CASE("EscapedStringPy writes what Python's repr writes") {
    // \b and \f have no short escape in Python's repr; DEL is escaped there, not in JSON
    CHECK_EQ(ffi::EscapedStringPy("\b\f\t\r\n\x7f"), "\"\\x08\\x0c\\t\\r\\n\\x7f\"");
    CHECK_EQ(ffi::EscapedStringPy("a\\b\"c"), "\"a\\\\b\\\"c\"");
  }
}
}  // namespace
