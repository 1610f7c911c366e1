// tests/cpp/test_containers.cc -- Array, List, Map and Dict.
#include <tvm/ffi/extra/stl.h>
#include <algorithm>
#include <vector>

#include "testing_objects.h"

namespace {
using namespace testing;
namespace ffi = tvm::ffi;
using ffi::Any;
using ffi::Array;
using ffi::Dict;
using ffi::List;
using ffi::Map;

template <typename Seq>
std::vector<int> ToVec(const Seq& s) {
  return std::vector<int>(s.begin(), s.end());
}

TEST_SUITE("array") {
  TEST_CASE("copy on write") {
    Array<TInt> a = {TInt(0), TInt(1), TInt(2)};
    Array<TInt> b = a;
    TInt x(42);
    a.Set(1, x);
    CHECK_EQ(a.use_count(), 1);
    CHECK_EQ(b[1]->value, 1);
    CHECK_EQ(a[1]->value, 42);
  }

  TEST_CASE("MutateByApply in place only when unique") {
    Array<int> a = {1, 2, 3};
    const ffi::Object* before = a.get();
    a.MutateByApply([](int v) { return v * 2; });
    CHECK_EQ(a.get(), before);
    CHECK_EQ(ToVec(a), std::vector<int>{2, 4, 6});
    Array<int> shared = a;
    a.MutateByApply([](int v) { return v + 1; });
    CHECK_NE(a.get(), shared.get());
    CHECK_EQ(ToVec(shared), std::vector<int>{2, 4, 6});
  }

  TEST_CASE("mutators match std::vector for sizes 0..10") {
    for (int n = 0; n <= 10; ++n) {
      std::vector<int> ref;
      Array<int> arr;
      List<int> lst;
      for (int i = 0; i < n; ++i) {
        ref.push_back(i);
        arr.push_back(i);
        lst.push_back(i);
      }
      CHECK_EQ(ToVec(arr), ref);
      CHECK_EQ(ToVec(lst), ref);
      ref.insert(ref.begin() + n / 2, 100);
      arr.insert(arr.begin() + n / 2, 100);
      lst.insert(lst.begin() + n / 2, 100);
      std::vector<int> extra = {7, 8, 9};
      ref.insert(ref.begin() + 1, extra.begin(), extra.end());
      arr.insert(arr.begin() + 1, extra.begin(), extra.end());
      lst.insert(lst.begin() + 1, extra.begin(), extra.end());
      CHECK_EQ(ToVec(arr), ref);
      CHECK_EQ(ToVec(lst), ref);
      ref.erase(ref.begin());
      arr.erase(arr.begin());
      lst.erase(lst.begin());
      ref.erase(ref.begin() + 1, ref.begin() + 3);
      arr.erase(arr.begin() + 1, arr.begin() + 3);
      lst.erase(lst.begin() + 1, lst.begin() + 3);
      ref.pop_back();
      arr.pop_back();
      lst.pop_back();
      CHECK_EQ(ToVec(arr), ref);
      CHECK_EQ(ToVec(lst), ref);
      CHECK_EQ(arr.size(), ref.size());
    }
  }

  TEST_CASE("conversions through Any") {
    Array<Any> mixed = {11.1, 1};
    Array<double> d = Any(mixed).cast<Array<double>>();
    CHECK_FALSE(d.same_as(mixed));
    CHECK_EQ(d[1], 1.0);
    Array<double> again = Any(d).cast<Array<double>>();
    CHECK(again.same_as(d));
    CHECK_THROWS_FFI(Any(mixed).cast<Array<int>>(), "TypeError",
                     "Cannot convert from type `Array[index 0: float]` to `Array<int>`");
    Any nested = Array<Any>{Array<Any>{1}, Array<Any>{TInt(2)}};
    CHECK_THROWS_FFI_HAS(nested.cast<Array<Array<int>>>(), "TypeError",
                         "Array[index 1: Array[index 0: test.Int]]");
  }

  TEST_CASE("bounds and upcasts") {
    CHECK_THROWS_FFI(Array<int>({1, 2})[5], "IndexError", "Index 5 out of bounds 2");
    Array<int> a{1, 2};
    CHECK_THROWS_FFI_HAS(a.GetArrayObj()->at(-1), "IndexError", "out of bounds");
    CHECK_THROWS_FFI_HAS(a.GetArrayObj()->SetItem(-1, 3), "IndexError", "out of bounds");
    CHECK_THROWS_FFI(Array<int>().front(), "IndexError", "front() on empty sequence");
    CHECK_THROWS_FFI(Array<int>().pop_back(), "IndexError", "pop_back on empty sequence");
    CHECK_THROWS_FFI_HAS(a.resize(-1), "ValueError", "negative");
    Array<int> a0 = {3};
    Array<Any> a1 = a0;
    CHECK(a1.same_as(a0));
    Array<ffi::Variant<int, float>> v = Array<int>{1, 2};
    CHECK_EQ(v.size(), 2u);
    CHECK_EQ(ffi::Concat(Array<int>{1}, Array<int>{2, 3}).size(), 3u);
    Array<int> mapped = a.Map([](int x) { return x; });
    CHECK(mapped.same_as(a));
  }

  TEST_CASE("arrays made by the runtime") {
    Array<int> r = ffi::Function::GetGlobalRequired("ffi.Array")(1, 2, 3).cast<Array<int>>();
    CHECK_EQ(ToVec(r), std::vector<int>{1, 2, 3});
    r.push_back(4);  // unique runtime object: grows into a new one of ours
    CHECK_EQ(ToVec(r), std::vector<int>{1, 2, 3, 4});
    CHECK_EQ(ffi::Function::GetGlobalRequired("ffi.ArraySize")(r).cast<int>(), 4);
  }
}

TEST_SUITE("list") {
  TEST_CASE("shared mutation, reserve and conversions") {
    List<int> a = {1, 2};
    List<int> alias = a;
    a.push_back(3);
    alias.Set(0, 10);
    CHECK_EQ(ToVec(a), std::vector<int>{10, 2, 3});
    const ffi::Object* obj = a.get();
    a.reserve(100);
    CHECK_EQ(a.get(), obj);
    CHECK_GE(a.capacity(), 100u);
    CHECK_EQ(ToVec(alias), std::vector<int>{10, 2, 3});
    Array<Any> arr = {1, 2.5};
    List<double> l = Any(arr).cast<List<double>>();
    l.push_back(4);
    CHECK_EQ(arr.size(), 2u);
    CHECK_EQ(l.size(), 3u);
    List<int> runtime = ffi::Function::GetGlobalRequired("ffi.List")(5, 6).cast<List<int>>();
    runtime.push_back(7);  // grows the runtime's buffer through its data_deleter
    CHECK_EQ(ffi::Function::GetGlobalRequired("ffi.ListSize")(runtime).cast<int>(), 3);
    CHECK_EQ(ToVec(runtime), std::vector<int>{5, 6, 7});
    CHECK_THROWS_FFI(List<int>(ffi::UnsafeInit{})[0], "IndexError", "cannot index a null list");
  }
}

TEST_SUITE("map") {
  TEST_CASE("keys, lookup and COW") {
    Map<Any, Any> m = {{1, 2}, {1.1, 3}};
    CHECK_EQ(m.size(), 2u);
    CHECK(m.find(1.1) != m.end());
    CHECK_EQ(m.at(1.1).cast<int>(), 3);
    CHECK_THROWS_FFI(m.at(5), "KeyError", "key is not in Map");
    Map<Any, Any> copy = m;
    m.Set(7, 8);
    CHECK_EQ(copy.size(), 2u);
    CHECK_EQ(m.size(), 3u);
    CHECK_FALSE(copy.Get(7).has_value());
    CHECK_EQ(m.Get(7).value().cast<int>(), 8);
  }

  TEST_CASE("insertion order survives erase and re-insert, small and dense") {
    for (int n : {4, 17}) {
      Map<int, int> m;
      std::vector<int> order;
      for (int i = 0; i < n; ++i) {
        m.Set(i, i * 10);
        order.push_back(i);
      }
      for (int victim : {0, n / 2, n - 1}) {
        m.erase(victim);
        order.erase(std::find(order.begin(), order.end(), victim));
      }
      m.Set(0, 1);
      order.push_back(0);
      std::vector<int> got;
      for (auto kv : m) got.push_back(kv.first);
      CHECK_EQ(got, order);
      for (int k : order) m.erase(k);
      CHECK(m.begin() == m.end());
      CHECK(m.empty());
    }
  }

  TEST_CASE("duplicates in a range keep the last value") {
    std::vector<std::pair<int, int>> kv = {{1, 1}, {2, 2}, {1, 3}};
    Map<int, int> m(kv.begin(), kv.end());
    CHECK_EQ(m.size(), 2u);
    CHECK_EQ(m[1], 3);
  }

  TEST_CASE("conversions through Any") {
    Map<Any, Any> src = {{1, 2}, {2, 3.1}};
    Map<int, double> copied = Any(src).cast<Map<int, double>>();
    CHECK_FALSE(copied.same_as(src));
    CHECK_EQ(copied[1], 2.0);
    Map<int, Any> shared = Any(src).cast<Map<int, Any>>();
    CHECK(shared.same_as(src));
    Any bad = Map<Any, Any>{{11, 1.1}};
    CHECK_THROWS_FFI((bad.cast<Map<int64_t, int64_t>>()), "TypeError",
                     "Cannot convert from type `Map[K, some value is float]` to `Map<int, int>`");
    CHECK_THROWS_FFI_HAS((bad.cast<Map<TNumber, double>>()), "TypeError",
                         "Map[some key is int, V]");
  }

  TEST_CASE("maps made by the runtime") {
    ffi::Function make = ffi::Function::GetGlobalRequired("ffi.Map");
    Map<ffi::String, int> m = make("a", 1, "b", 2).cast<Map<ffi::String, int>>();
    CHECK_EQ(m["b"], 2);
    for (int i = 0; i < 20; ++i) m.Set("k" + std::to_string(i), i);
    CHECK_EQ(ffi::Function::GetGlobalRequired("ffi.MapSize")(m).cast<int>(), 22);
    CHECK_EQ(ffi::Function::GetGlobalRequired("ffi.MapGetItem")(m, "k19").cast<int>(), 19);
    CHECK_EQ(ffi::Merge(m, Map<ffi::String, int>{{"a", 100}})["a"], 100);
  }
}

TEST_SUITE("dict") {
  TEST_CASE("in-place mutation, stable object, Get, bindings") {
    Dict<ffi::String, int> d;
    Dict<ffi::String, int> alias = d;
    const ffi::Object* obj = d.get();
    for (int i = 0; i < 10; ++i) d.Set(std::to_string(i), i);
    CHECK_EQ(d.get(), obj);
    CHECK_EQ(alias.size(), 10u);
    d.erase("3");
    CHECK_EQ(alias.size(), 9u);
    CHECK_FALSE(alias.Get("3").has_value());
    CHECK_EQ(alias.Get("4").value(), 4);
    int sum = 0;
    for (auto [k, v] : d) sum += v;
    CHECK_EQ(sum, 45 - 3);
    d.clear();
    CHECK(alias.empty());
    CHECK_THROWS_FFI(alias.at("x"), "KeyError", "key is not in Dict");
  }

  TEST_CASE("Map <-> Dict through Any copies") {
    Map<ffi::String, int> m = {{"a", 1}};
    Dict<ffi::String, int> d = Any(m).cast<Dict<ffi::String, int>>();
    d.Set("b", 2);
    CHECK_EQ(m.size(), 1u);
    Map<ffi::String, int> back = Any(d).cast<Map<ffi::String, int>>();
    CHECK_EQ(back.size(), 2u);
    Dict<int, int> rd = ffi::Function::GetGlobalRequired("ffi.Dict")(1, 2).cast<Dict<int, int>>();
    for (int i = 2; i < 12; ++i) rd.Set(i, i);
    CHECK_EQ(ffi::Function::GetGlobalRequired("ffi.DictSize")(rd).cast<int>(), 11);
  }
}
}  // namespace

namespace {
TEST_SUITE("stl") {
  TEST_CASE("std::vector, std::optional and std::map parameters and results") {
    namespace ffi = tvm::ffi;
    ffi::Function sum = ffi::Function::FromTyped([](std::vector<int64_t> v) {
      int64_t s = 0;
      for (int64_t x : v) s += x;
      return s;
    });
    CHECK_EQ(sum(ffi::Array<int>{1, 2, 3}).cast<int>(), 6);
    CHECK_EQ(sum(ffi::List<int>{4}).cast<int>(), 4);
    CHECK_THROWS_FFI_HAS(sum(ffi::Array<ffi::Any>{1.5}), "TypeError",
                         "Expected `Array<int>` but got `Array[index 0: float]`");
    ffi::Function make =
        ffi::Function::FromTyped([](int n) { return std::vector<double>(n, 0.5); });
    ffi::Array<double> made = make(3).cast<ffi::Array<double>>();
    CHECK_EQ(made.size(), 3u);
    ffi::Function opt = ffi::Function::FromTyped(
        [](std::optional<int> v) { return std::optional<int>(v.has_value() ? *v + 1 : -1); });
    CHECK_EQ(opt(nullptr).cast<int>(), -1);
    CHECK_EQ(opt(1).cast<int>(), 2);
    ffi::Function keys = ffi::Function::FromTyped(
        [](std::map<ffi::String, int> m) { return static_cast<int>(m.size()) * 10 + m.at("b"); });
    CHECK_EQ(keys(ffi::Map<ffi::String, int>{{"a", 1}, {"b", 2}}).cast<int>(), 22);
  }
}
}  // namespace
