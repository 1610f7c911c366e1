"""docs/python.md §25.7 contracts: Array, List, Map, Dict (items 93-113).

Each test is named after the contract item it checks (test_cNN_...).
"""

import gc
import pickle

import pytest

import tvm_ffi
from tvm_ffi import Array, Dict, List, Map, core


def test_c93_convert_list_to_array():
    a = tvm_ffi.convert([1, 2, 3])
    assert isinstance(a, Array) and len(a) == 3
    assert a[-1] == 3 and a[0] == 1
    s = a[-3:-1]
    assert type(s) is list and s == [1, 2]
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[-4]
    with pytest.raises(TypeError):
        a["x"]
    with pytest.raises(TypeError):
        a[0] = 5


@pytest.mark.parametrize("cls,exc", [(Array, TypeError), (List, TypeError), (Map, AttributeError)])
def test_c94_bad_constructor_argument(cls, exc):
    with pytest.raises(exc):
        cls(1)
    # the half-built object must repr and deallocate safely
    half = cls.__new__(cls)
    assert isinstance(repr(half), str)
    del half
    gc.collect()


def test_c94_failed_init_object_is_safe():
    objs = []
    for cls in (Array, List, Map, Dict):
        obj = cls.__new__(cls)
        try:
            obj.__init__(1)
        except (TypeError, AttributeError):
            pass
        objs.append(obj)
    for obj in objs:
        repr(obj)
        str(obj)
    del objs
    gc.collect()


def test_c95_nested_convert():
    a = tvm_ffi.convert([[1, 2, 3], {"A": 5, "B": 6}])
    assert isinstance(a, Array)
    assert isinstance(a[0], Array) and list(a[0]) == [1, 2, 3]
    assert isinstance(a[1], Map) and a[1]["A"] == 5 and a[1]["B"] == 6


def test_c96_map_protocol():
    m = tvm_ffi.convert({3: 2, 4: 3})
    assert isinstance(m, Map)
    assert 3 in m and 5 not in m
    assert tuple(m.items()) == ((3, 2), (4, 3))
    assert tuple(m.keys()) == (3, 4)
    assert tuple(m.values()) == (2, 3)
    assert (3, 2) in m.items() and (3, 3) not in m.items()
    keys = ["k%d" % i for i in range(10)]
    sm = Map({k: i for i, k in enumerate(keys)})
    assert list(sm) == keys
    assert list(sm.values()) == list(range(10))


def test_c97_python_objects_come_back_identical():
    class Thing:
        pass

    x, y = Thing(), Thing()
    a = Array([x, 1, y])
    assert a[0] is x and a[2] is y
    m = Map({"x": x, "y": y})
    assert m["x"] is x and m["y"] is y
    lst = List([x])
    assert lst[0] is x
    d = Dict({"y": y})
    assert d["y"] is y


def test_c98_map_missing_key_and_get():
    m = Map({i: i * i for i in range(100)})
    with pytest.raises(KeyError):
        m[101]
    assert m.get(101) is None
    assert m.get(3) == 9
    assert m.get(101, "dflt") == "dflt"
    with pytest.raises(KeyError):
        Map({})["nope"]


def test_c99_str_of_containers():
    assert str(Array([1, 2, 3])) == "(1, 2, 3)"
    assert str(Map({3: 2, 4: 3})) == "{3: 2, 4: 3}"
    assert str(Map({"a": 1, "b": 2})) == '{"a": 1, "b": 2}'
    assert str(List([1, 2, 3])) == "[1, 2, 3]"
    assert str(List()) == "[]"


def test_c100_pickle_roundtrip():
    a = Array([1, 2, "x"])
    back = pickle.loads(pickle.dumps(a))
    assert isinstance(back, Array) and list(back) == [1, 2, "x"]
    lst = List([1, "a", {"k": 2}])
    back = pickle.loads(pickle.dumps(lst))
    assert isinstance(back, List) and back[0] == 1 and back[1] == "a"
    assert isinstance(back[2], Map) and back[2]["k"] == 2
    d = Dict({"a": 1, "b": [1, 2]})
    back = pickle.loads(pickle.dumps(d))
    assert isinstance(back, Dict) and back["a"] == 1 and list(back["b"]) == [1, 2]
    m = Map({"a": 1})
    back = pickle.loads(pickle.dumps(m))
    assert isinstance(back, Map) and dict(back.items()) == {"a": 1}


def test_c101_concatenation():
    a = Array([1, 2])
    for other in (Array([3, 4]), [3, 4], (3, 4)):
        r = a + other
        assert isinstance(r, Array) and list(r) == [1, 2, 3, 4]
    for other in ([0], (0,)):
        r = other + a
        assert isinstance(r, Array) and list(r) == [0, 1, 2]
    assert list(a) == [1, 2]  # unchanged


def test_c102_containment():
    a = Array([1, 2, "x"])
    assert 1 in a and "x" in a and 3 not in a and "y" not in a
    assert ("BLOCK_SIZE", 128) in Array([("BLOCK_SIZE", 128)])
    assert ("BLOCK_SIZE", 64) not in Array([("BLOCK_SIZE", 128)])
    assert ("BLOCK_SIZE", 128) in List([("BLOCK_SIZE", 128)])
    assert ["BLOCK_SIZE", 128] in List([("BLOCK_SIZE", 128)])
    lst = List([1, "s"])
    assert 1 in lst and "s" in lst and 2 not in lst


def test_c103_bool():
    for cls, full in ((Array, [1]), (List, [1])):
        assert not cls([]) and bool(cls(full))
    for cls in (Map, Dict):
        assert not cls({}) and bool(cls({"a": 1}))
    assert not List() and not Dict()


def test_c104_list_basics():
    lst = List([1, 2])
    lst.append(3)
    lst.insert(0, 0)
    assert list(lst) == [0, 1, 2, 3] and len(lst) == 4
    assert lst.pop() == 3 and list(lst) == [0, 1, 2]
    assert lst.pop(0) == 0 and list(lst) == [1, 2]
    lst.extend([3, 4])
    assert list(lst) == [1, 2, 3, 4]
    r = lst[::-1]
    assert type(r) is list and r == [4, 3, 2, 1]
    lst.clear()
    assert len(lst) == 0 and list(lst) == []


def _mirror(ops):
    """Run the same mutation sequence on a Python list and a List; compare after each step."""
    ref = list(range(10))
    lst = List(ref)
    for op in ops:
        op(ref)
        op(lst)
        assert list(lst) == ref, op
    return ref


def test_c105_slice_assignment_and_deletion():
    def s(i, v):
        def f(x):
            x[i] = v
        return f

    def d(i):
        def f(x):
            del x[i]
        return f

    _mirror([
        s(0, 100), s(-1, 99), s(slice(2, 4), [7, 7, 7]), s(slice(3, 3), [5, 6]),
        s(slice(0, 6, 2), ["a", "b", "c"]), d(slice(1, 8, 2)), s(slice(3, 1), [9]),
        d(slice(5, 1, -1)), d(0), d(-1), s(slice(None), [1, 2, 3, 4, 5, 6]),
        s(slice(1, 5), []), d(slice(None, None, -1)),
    ])
    lst = List(range(10))
    lst[3:1] = [9]
    assert list(lst) == [0, 1, 2, 9, 3, 4, 5, 6, 7, 8, 9]
    lst = List(range(6))
    with pytest.raises(ValueError, match="attempt to assign sequence of size 2 to extended slice of size 3"):
        lst[::2] = [1, 2]
    assert list(lst) == list(range(6))
    del lst[::-1]
    assert len(lst) == 0


def test_c106_insert_clamps():
    lst = List([1, 2, 3])
    lst.insert(-100, 0)
    lst.insert(100, 4)
    assert list(lst) == [0, 1, 2, 3, 4]
    lst.insert(-1, 3.5)
    assert list(lst) == [0, 1, 2, 3, 3.5, 4]


def test_c107_list_index_errors():
    lst = List([1, 2, 3])
    with pytest.raises(IndexError):
        lst[3]
    with pytest.raises(IndexError):
        lst[-4]
    with pytest.raises(IndexError):
        lst[3] = 1
    with pytest.raises(IndexError):
        del lst[5]
    with pytest.raises(IndexError):
        lst.pop(7)
    with pytest.raises(IndexError, match="pop from empty list"):
        List().pop()
    assert list(lst) == [1, 2, 3]


def test_c108_reverse_alias_and_self_slice():
    for n in (3, 0, 1):
        lst = List(range(n))
        lst.reverse()
        assert list(lst) == list(reversed(range(n)))
    lst = List([1, 2, 3, 4])
    ref = [1, 2, 3, 4]
    lst[1:3] = lst
    ref[1:3] = ref
    assert list(lst) == ref
    alias = lst
    alias.append(42)
    assert lst[-1] == 42
    outer = List([lst])
    outer[0].append(43)
    assert lst[-1] == 43


def test_c109_typed_callee_conversion():
    arr_int = tvm_ffi.get_global_func("testing.schema_id_arr_int")
    list_int = tvm_ffi.get_global_func("testing.schema_id_list_int")
    map_si = tvm_ffi.get_global_func("testing.schema_id_map_str_int")
    dict_si = tvm_ffi.get_global_func("testing.schema_id_dict_str_int")
    for src in (List([1, 2]), Array([1, 2]), [1, 2]):
        out = arr_int(src)
        assert isinstance(out, Array) and list(out) == [1, 2]
        out = list_int(src)
        assert isinstance(out, List) and list(out) == [1, 2]
    for src in (Dict({"a": 1}), Map({"a": 1}), {"a": 1}):
        out = map_si(src)
        assert isinstance(out, Map) and out["a"] == 1
        out = dict_si(src)
        assert isinstance(out, Dict) and out["a"] == 1
    with pytest.raises(TypeError):
        arr_int(List(["x"]))
    with pytest.raises(TypeError):
        list_int(Array([1.5]))
    with pytest.raises(TypeError):
        map_si(Dict({"a": "b"}))
    with pytest.raises(TypeError):
        dict_si({1: 1})


def test_c110_missing_sentinel():
    assert isinstance(core.MISSING, tvm_ffi.Object)
    assert core.MISSING.same_as(tvm_ffi.container.MISSING)
    m = Map({"a": 1})
    assert m.get("b") is None and m.get("b", 42) == 42 and m.get("a") == 1
    d = Dict({"a": 1})
    assert d.get("b") is None and d.get("b", 42) == 42


def test_c111_dict():
    d = Dict()
    assert len(d) == 0 and not d
    d["a"] = 1
    d["b"] = 2
    assert d["a"] == 1 and len(d) == 2
    d["a"] = 10
    assert d["a"] == 10
    del d["a"]
    assert "a" not in d
    with pytest.raises(KeyError):
        del d["nonexistent"]
    assert d.pop("b") == 2 and len(d) == 0
    assert d.pop("b", 7) == 7
    with pytest.raises(KeyError):
        d.pop("b")
    with pytest.raises(TypeError):
        d.pop("b", 1, 2)
    d.update({"x": 1, "y": 2})
    assert dict(d.items()) == {"x": 1, "y": 2}
    d.clear()
    assert len(d) == 0
    for i in range(10):
        d["k%d" % i] = i
    assert sorted(d.keys()) == sorted("k%d" % i for i in range(10))
    assert sum(d.values()) == 45
    del d["k3"]
    d["new"] = 100
    assert list(d.keys()) == ["k%d" % i for i in range(10) if i != 3] + ["new"]
    assert dict(d.items())["new"] == 100 and len(list(d.items())) == 10
    assert ":" in repr(d)
    # no copy-on-write: all references see the change
    alias = d
    alias["z"] = 0
    assert "z" in d


def test_c112_structural_equality_and_hash():
    pairs = [
        (Array([1, 2, 3]), Array([1, 2, 3])),
        (List([1, "a"]), List([1, "a"])),
        (Map({"a": 1, "b": [1, 2]}), Map({"a": 1, "b": [1, 2]})),
        (Dict({"a": 1}), Dict({"a": 1})),
        (Array([[1, 2], [3]]), Array([[1, 2], [3]])),
    ]
    for a, b in pairs:
        assert a is not b and not a.same_as(b)
        assert a == b and not (a != b) and hash(a) == hash(b)
        assert len({a, b}) == 1
        assert {a: 1}[b] == 1
    assert Array([1, 2, 3]) != Array([1, 2, 4])
    assert Array([[1, 2], [3]]) != Array([[1, 2], [4]])
    assert Map({"a": 1}) != Map({"a": 2})
    assert Array([1, 2, 3]) == [1, 2, 3] and Array([1, 2, 3]) == (1, 2, 3)
    assert Array([1, 2, 3]) != [1, 2]
    assert Array([1, 2, 3]).__eq__("hello") is NotImplemented
    assert Map({"x": 1}).__eq__({"x": 1}) is NotImplemented
    assert (Map({"x": 1}) == {"x": 1}) is False


def test_c113_sibling_containers_are_distinct():
    classes = [Array, List, Map, Dict]
    for c in classes:
        assert issubclass(c, tvm_ffi.Object)
    for a, b in ((Map, Array), (List, Dict), (Array, List), (Map, Dict)):
        assert not issubclass(a, b) and not issubclass(b, a)
    assert not isinstance(Map({}), Array) and not isinstance(Array([]), Map)
    assert not isinstance(List([]), Dict) and not isinstance(Dict({}), List)
    assert not isinstance(Array([]), List) and not isinstance(List([]), Array)
    assert not isinstance(Map({}), Dict) and not isinstance(Dict({}), Map)
    for obj in (Array([]), List([]), Map({}), Dict({})):
        assert isinstance(obj, tvm_ffi.Object)


def test_c112_unrelated_sequence_containers_compare_by_content():
    # §13.1: a non-str, non-mapping Sequence (List included) is converted to type(self)
    assert Array([1, 2]) == List([1, 2]) and List([1, 2]) == Array([1, 2])
    assert Array([1, 2]) != List([1, 3])
    assert (Array([1]) == Map({1: 1})) is False


def test_c104_views_and_index_types():
    m = Map({"a": 1})
    for view in (m.keys(), m.values(), m.items()):
        assert isinstance(repr(view), str) and len(view) == 1
    assert "a" in m.keys() and ("a", 1) in m.items() and 1 in m.values()
    lst = List([1, 2])
    with pytest.raises(TypeError):
        lst.pop("a")
    with pytest.raises(TypeError):
        lst["a"] = 3
    with pytest.raises(TypeError):
        del lst[1.0]
    assert lst.index(2) == 1 and lst.count(1) == 1
