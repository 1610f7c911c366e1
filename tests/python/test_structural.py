"""Runtime structural globals as Python sees them (python.md §4.1, §13; abi.md §14.4):
ffi.ReprPrint behind repr(), ffi.RecursiveEq/Hash behind == and hash(), the order
globals, ffi.DeepCopy behind copy.deepcopy, the JSON graph behind pickle, and
ffi.json.Parse/Stringify."""

import copy
import json
import math
import pickle

import pytest

import tvm_ffi
from tvm_ffi import Array, Dict, List, Map

g = tvm_ffi.get_global_func


def test_repr_examples():
    assert repr(Array([1, 2, 3])) == "(1, 2, 3)"
    assert repr(Array([42])) == "(42,)"
    assert repr(List([1, 2, 3])) == "[1, 2, 3]"
    assert repr(Map({"a": 1})) == '{"a": 1}'
    assert repr(Dict({"a": None, "b": True})) == '{"a": None, "b": True}'
    assert repr(List([1.5, 2.0, "x\n"])) == '[1.5, 2.0, "x\\n"]'
    assert g("ffi.ReprPrint")(tvm_ffi.dtype("float32")) == "float32"


def test_repr_tensor(np):
    t = tvm_ffi.from_dlpack(np.zeros((3, 4), dtype="float32"))
    assert g("ffi.ReprPrint")(t) == "float32[3, 4]@cpu:0"


def test_repr_self_containing():
    lst = List([1])
    lst.append(lst)
    assert repr(lst) == "[1, [...]]"
    d = Dict()
    d["me"] = d
    assert repr(d) == '{"me": {...}}'
    lst.clear()
    d.clear()


def test_equality_and_hash():
    assert Array([1, 2, 3]) == Array([1, 2, 3])
    assert Array([1, 2, 3]) != Array([1, 2])
    assert Array([1, 2, 3]) == [1, 2, 3] and Array([1, 2]) == (1, 2)
    assert List([Array([1]), Map({"k": List([2])})]) == List([Array([1]), Map({"k": List([2])})])
    assert Map({"a": 1, "b": 2}) == Map({"b": 2, "a": 1})
    assert hash(Map({"a": 1, "b": 2})) == hash(Map({"b": 2, "a": 1}))
    assert Dict({"a": 1}) != Dict({"a": 2})
    # Numbers compare by value, as in Python, and equal values hash alike.
    assert Array([1, True]) == Array([1.0, 1])
    assert hash(Array([1, True])) == hash(Array([1.0, 1]))
    assert len({Array([1, 2]), Array([1, 2]), Array([2, 1])}) == 2
    nan = float("nan")
    assert not g("ffi.RecursiveEq")(nan, nan)


def test_order():
    lt, le, gt, ge = (g("ffi.Recursive" + n) for n in ("Lt", "Le", "Gt", "Ge"))
    assert lt(Array([1, 2]), Array([1, 3])) and lt(Array([1]), Array([1, 0]))
    assert le(Array([1, 2]), Array([1, 2])) and not lt(Array([1, 2]), Array([1, 2]))
    assert gt("b", "a") and ge(2.5, 2) and not gt(1, 1.0)
    for a, b in [(Map({}), Map({})), (None, None), (Array([1]), "x"), (Array([]), List([]))]:
        with pytest.raises(TypeError):
            lt(a, b)


def test_cyclic_equality_is_an_error_not_a_crash():
    a, b = List([1]), List([1])
    a.append(a)
    b.append(b)
    assert a == a
    with pytest.raises(RuntimeError, match="recursion"):
        g("ffi.RecursiveEq")(a, b)
    a.clear()
    b.clear()


def test_deepcopy():
    inner = List([1, "s"])
    outer = Array([inner, Dict({"k": inner}), 2.5])
    c = copy.deepcopy(outer)
    assert c == outer and not c.same_as(outer)
    assert c[0].same_as(c[1]["k"]) and not c[0].same_as(inner)
    c[0].append(3)
    assert len(inner) == 2
    lst = List([0])
    lst.append(lst)
    lc = copy.deepcopy(lst)
    assert lc[1].same_as(lc) and not lc.same_as(lst)
    lst.clear()
    lc.clear()


def test_pickle_roundtrip():
    value = Array([1, 2.5, "s", None, True, Map({"a": List([1, Dict({"x": b"\x00\xff"})])})])
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is Array and back == value
    lst = List([7])
    lst.append(lst)
    lb = pickle.loads(pickle.dumps(lst))
    assert lb[0] == 7 and lb[1].same_as(lb)
    lst.clear()
    lb.clear()


def test_json_graph_format():
    text = tvm_ffi.serialization.to_json_graph_str(Array([7, "s"]), None)
    doc = json.loads(text)
    assert doc["root_index"] == 0
    assert doc["nodes"][0] == {"type": "ffi.Array", "data": [1, 2]}
    assert tvm_ffi.serialization.from_json_graph_str(text) == Array([7, "s"])
    with pytest.raises(ValueError, match="node 0"):
        tvm_ffi.serialization.from_json_graph_str('{"root_index": 0, "nodes": [3]}')
    with pytest.raises(TypeError, match="ffi.Function"):
        tvm_ffi.serialization.to_json_graph_str(Array([g("ffi.ReprPrint")]), None)


def test_json_parse_stringify():
    parse, stringify = g("ffi.json.Parse"), g("ffi.json.Stringify")
    v = parse('{"a": [1, 2.0, "\\u00e9"], "b": null, "c": true}')
    assert isinstance(v, Map) and v["a"] == [1, 2.0, "é"] and v["b"] is None and v["c"] is True
    assert stringify(v, None) == '{"a":[1,2.0,"é"],"b":null,"c":true}'
    assert json.loads(stringify(v, 2)) == {"a": [1, 2.0, "é"], "b": None, "c": True}
    assert math.isinf(parse("Infinity"))
    with pytest.raises(ValueError, match="line 1, column 7"):
        parse("[1, 2,]")
    with pytest.raises(TypeError, match="keys must be str"):
        stringify(Map({1: 2}), None)
