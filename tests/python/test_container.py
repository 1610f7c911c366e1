"""Array, List, Map, Dict (docs/python.md §13)."""

import pickle

import pytest

import tvm_ffi
from conftest import requires_global
from tvm_ffi import Array, Dict, List, Map


def test_array_basics():
    a = tvm_ffi.convert([1, 2, 3])
    assert isinstance(a, Array) and len(a) == 3
    assert a[-1] == 3 and a[0] == 1
    assert a[-3:-1] == [1, 2] and type(a[-3:-1]) is list
    assert list(a) == [1, 2, 3]
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[-4]
    with pytest.raises(TypeError):
        a["x"]
    with pytest.raises(TypeError):
        a[0] = 1
    assert bool(a) and not bool(Array([]))


@pytest.mark.parametrize("cls", [Array, List])
def test_bad_construction(cls):
    with pytest.raises(TypeError):
        cls(1)


def test_map_bad_construction():
    with pytest.raises(AttributeError):
        Map(1)


def test_nested():
    a = tvm_ffi.convert([[1, 2, 3], {"A": 5, "B": 6}])
    assert isinstance(a[0], Array) and isinstance(a[1], Map)
    assert a[1]["B"] == 6


def test_map_protocol():
    m = tvm_ffi.convert({3: 2, 4: 3})
    assert isinstance(m, Map)
    assert 3 in m and 5 not in m
    assert tuple(m.items()) == ((3, 2), (4, 3))
    assert tuple(m.keys()) == (3, 4) and tuple(m.values()) == (2, 3)
    with pytest.raises(KeyError):
        m[5]
    big = Map({i: i * i for i in range(100)})
    assert big.get(101) is None and big.get(3) == 9 and len(big) == 100
    strs = Map({"k%d" % i: i for i in range(10)})
    assert list(strs) == ["k%d" % i for i in range(10)]
    assert Map({"a": 1}).get("b") is None and Map({"a": 1}).get("b", 42) == 42


def test_python_objects_inside():
    class X:
        pass

    x = X()
    assert Array([x])[0] is x
    assert Map({"x": x})["x"] is x


@requires_global("ffi.RecursiveEq")
def test_containment_and_equality():
    assert 2 in Array([1, 2]) and "a" in Array(["a"]) and 5 not in Array([1])
    assert ("BLOCK_SIZE", 128) in Array([("BLOCK_SIZE", 128)])
    assert ("BLOCK_SIZE", 128) in List([("BLOCK_SIZE", 128)])
    assert Array([1, 2, 3]) == [1, 2, 3] and Array([1, 2, 3]) == (1, 2, 3)
    assert Array([1, 2, 3]) == Array([1, 2, 3])
    assert hash(Array([1, 2, 3])) == hash(Array([1, 2, 3]))
    assert Array([[1, 2], [3]]) == Array([[1, 2], [3]])
    assert Array([1]).__eq__("hello") is NotImplemented
    assert Map({"x": 1}).__eq__({"x": 1}) is NotImplemented
    assert Map({"a": 1}) == Map({"a": 1})
    assert len({Map({"a": 1}), Map({"a": 1})}) == 1


def test_concatenation():
    a = Array([1, 2])
    for other in (Array([3]), [3], (3,)):
        r = a + other
        assert isinstance(r, Array) and list(r) == [1, 2, 3]
    assert list([0] + a) == [0, 1, 2] and isinstance((0,) + a, Array)


@requires_global("ffi.ReprPrint")
def test_str():
    assert str(Array([1, 2, 3])) == "(1, 2, 3)"
    assert str(Map({3: 2, 4: 3})) == "{3: 2, 4: 3}"
    assert str(Map({"a": 1, "b": 2})) == '{"a": 1, "b": 2}'
    assert str(List([1, 2, 3])) == "[1, 2, 3]"
    assert str(List()) == "[]"


def test_list_mutation():
    lst = List([1, 2, 3])
    alias = lst
    lst.append(4)
    lst.insert(0, 0)
    assert list(alias) == [0, 1, 2, 3, 4]
    assert lst.pop() == 4 and lst.pop(0) == 0
    lst.extend([5, 6])
    assert list(lst) == [1, 2, 3, 5, 6]
    assert lst[::-1] == [6, 5, 3, 2, 1]
    lst.insert(-100, -1)
    lst.insert(100, 100)
    assert lst[0] == -1 and lst[-1] == 100
    lst.clear()
    assert len(lst) == 0 and not lst
    with pytest.raises(IndexError, match="pop from empty list"):
        List().pop()
    with pytest.raises(IndexError):
        List([1])[5]
    with pytest.raises(IndexError):
        List([1])[5] = 2
    with pytest.raises(IndexError):
        del List([1])[5]


def test_list_slices():
    def check(ops):
        ref = list(range(10))
        lst = List(range(10))
        ops(ref)
        ops(lst)
        assert list(lst) == ref

    def a(x):
        x[3:3] = [100, 101]

    def b(x):
        x[1:4] = [7]

    def c(x):
        x[::2] = list(range(5))

    def d(x):
        del x[1:8:2]

    def e(x):
        x[3:1] = [9]

    def f(x):
        del x[5:1:-1]

    def g(x):
        del x[::-1]

    def h(x):
        x[1:3] = x

    for ops in (a, b, c, d, e, f, g, h):
        check(ops)
    lst = List(range(5))
    with pytest.raises(ValueError, match="extended slice"):
        lst[::2] = [1]


def test_list_reverse():
    for n in (3, 0, 1):
        lst = List(range(n))
        lst.reverse()
        assert list(lst) == list(reversed(range(n)))


def test_dict():
    d = Dict()
    assert len(d) == 0 and not d
    d["a"] = 1
    d[2] = "b"
    assert d["a"] == 1 and d[2] == "b" and len(d) == 2
    del d["a"]
    assert "a" not in d
    with pytest.raises(KeyError):
        del d["nonexistent"]
    assert d.pop(2) == "b" and d.pop("zz", 5) == 5
    with pytest.raises(KeyError):
        d.pop("zz")
    with pytest.raises(TypeError):
        d.pop("zz", 1, 2)
    d.update({i: i for i in range(10)})
    assert sorted(d.keys()) == list(range(10))
    del d[3]
    d[42] = 0
    assert sorted(d) == [0, 1, 2, 4, 5, 6, 7, 8, 9, 42]
    if tvm_ffi.get_global_func("ffi.ReprPrint", allow_missing=True) is not None:
        assert ":" in repr(d)
    d.clear()
    assert len(d) == 0


def test_sibling_types():
    assert not isinstance(Map({}), Array) and not isinstance(List(), Dict)
    assert not isinstance(Array([]), List) and not isinstance(Map({}), Dict)
    for c in (Array([]), List(), Map({}), Dict()):
        assert isinstance(c, tvm_ffi.Object)


@requires_global("ffi.ToJSONGraphString")
@requires_global("ffi.RecursiveEq")
def test_pickle_roundtrip():
    for value in (Array([1, 2]), List([1, "a", {"k": 2}]), Dict({"a": 1})):
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        assert back == value
    assert isinstance(pickle.loads(pickle.dumps(List([1, "a", {"k": 2}])))[2], Map)


def test_typed_callee_conversion():
    f = tvm_ffi.get_global_func("testing.schema_id_arr_int", allow_missing=True)
    if f is None:
        pytest.skip("testing.schema_id_arr_int not available")
    assert isinstance(f(List([1, 2])), Array)
    with pytest.raises(TypeError):
        f(["x"])
