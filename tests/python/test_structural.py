"""Runtime structural globals as Python sees them (docs/python.md §4.1, §13; docs/abi.md §14.4):
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
    assert repr(List([1.5, 2.0, "x\n"])) == '[1.5, 2, "x\\n"]'  # floats print as upstream's C++ ostream does
    assert g("ffi.ReprPrint")(tvm_ffi.dtype("float32")) == "float32"


def test_repr_tensor(np):
    t = tvm_ffi.from_dlpack(np.zeros((3, 4), dtype="float32"))
    assert g("ffi.ReprPrint")(t) == "float32[3, 4]@cpu:0"


def test_repr_self_containing():
    lst = List([1])
    lst.append(lst)
    assert repr(lst) == "[1, ...]"  # the value met again prints "..."
    d = Dict()
    d["me"] = d
    assert repr(d) == '{"me": ...}'
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
    # int, bool and float are kinds of their own (as in the apache runtime), and hash apart;
    # NaN equals NaN
    assert Array([1, True]) != Array([1.0, 1]) and Array([1]) != Array([True])
    assert hash(Array([1])) != hash(Array([1.0]))
    assert len({Array([1, 2]), Array([1, 2]), Array([2, 1])}) == 2
    nan = float("nan")
    assert g("ffi.RecursiveEq")(nan, nan) and Array([nan]) == Array([nan])
    assert hash(Array([nan])) == hash(Array([float("nan")]))
    # objects without reflected fields equal the others of their type
    assert Array([g("testing.nop")]) == Array([g("testing.add_one")])


def test_order():
    lt, le, gt, ge = (g("ffi.Recursive" + n) for n in ("Lt", "Le", "Gt", "Ge"))
    assert lt(Array([1, 2]), Array([1, 3])) and lt(Array([1]), Array([1, 0]))
    assert le(Array([1, 2]), Array([1, 2])) and not lt(Array([1, 2]), Array([1, 2]))
    assert gt("b", "a") and ge(2.5, 2.0) and not gt(1, 1)
    assert lt(None, 0) and le(None, None) and not lt(None, None)  # None orders first
    assert le(Map({"k": 1}), Map({"k": 1})) and not lt(Map({}), Map({}))  # equal maps
    assert lt(tvm_ffi.dtype("float16"), tvm_ffi.dtype("float32"))
    assert lt(tvm_ffi.Device("cpu", 0), tvm_ffi.Device("cpu", 1))
    for a, b in [(Map({"k": 1}), Map({"k": 2})), (1, 1.0), (True, 1), (float("nan"), 1.0),
                 (Array([1]), "x"), (Array([]), List([]))]:
        with pytest.raises(TypeError):
            lt(a, b)


def test_cyclic_graphs_compare_without_recursing_forever():
    a, b = List([1]), List([1])
    a.append(a)
    b.append(b)
    assert a == a
    assert a == b and g("ffi.RecursiveEq")(a, b)  # same shape: a pair met again counts equal
    assert hash(a) == hash(b)
    with pytest.raises(ValueError, match="cyclic"):
        g("ffi.RecursiveLt")(a, b)
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
    shared = List([7])
    back = pickle.loads(pickle.dumps(Array([shared, shared])))
    assert back[0].same_as(back[1])  # sharing survives
    lst = List([7])
    lst.append(lst)
    with pytest.raises(ValueError, match="cycle"):  # as the reference's JSON graph writer
        pickle.dumps(lst)
    lst.clear()


def test_json_graph_format():
    text = tvm_ffi.serialization.to_json_graph_str(Array([7, "s"]), None)
    doc = json.loads(text)
    assert doc["root_index"] == 2  # children first (test_json_graph_cross.py has the rest)
    assert doc["nodes"][2] == {"type": "ffi.Array", "data": [0, 1]}
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
    with pytest.raises(ValueError, match=r"^Expecting value: line 1 column 7 \(char 6\)$"):
        parse("[1, 2,]")
    with pytest.raises(TypeError, match="keys must be str"):
        stringify(Map({1: 2}), None)


@pytest.mark.parametrize(("text", "why"), [
    ("1e999", "too large for float64"), ("-1e999", "too large for float64"),
    ("1e-400", "too small for float64"), ("-2.5e-324", "too small for float64"),
    ("9" * 100000, "the integer is too large for int64 and for float64"),
    ('{"a": [0, 1e400]}', "too large for float64"),
])
def test_json_numbers_out_of_float64_range_raise(text, why):
    # upstream refuses them (strtod's ERANGE) where they parsed to inf or 0.0 (issue 22 item 9)
    with pytest.raises(ValueError, match="^Expecting value: line 1 column .*" + why):
        g("ffi.json.Parse")(text)
    graph = '{"root_index": 0, "nodes": [{"type": "float", "data": %s}]}' % text
    with pytest.raises(ValueError, match=why):
        tvm_ffi.serialization.from_json_graph_str(graph)


def test_json_numbers_at_the_edges_of_float64_parse():
    parse = g("ffi.json.Parse")
    assert parse("0e999") == 0.0 and parse("1.7976931348623157e308") == 1.7976931348623157e308
    assert parse("2.2250738585072014e-308") == 2.2250738585072014e-308
    assert parse("9223372036854775807") == 2**63 - 1 and parse("1" + "0" * 300) == 1e300


# ---- structural equality / hashing (tvm_ffi.structural, docs/abi.md §14.4) ----------------------

from tvm_ffi import (  # noqa: E402
    DefRegionKind, StructuralKey, StructuralVisitor, VisitInterrupt, WalkOrder, WalkResult,
    get_first_structural_mismatch, structural_equal, structural_hash, structural_walk,
)
from tvm_ffi.access_path import AccessKind, AccessPath, AccessStep  # noqa: E402


def test_structural_exports():
    for name in ("structural_equal", "structural_hash", "structural_walk", "StructuralKey",
                 "StructuralVisitor", "VisitInterrupt", "WalkOrder", "WalkResult", "DefRegionKind",
                 "get_first_structural_mismatch", "access_path", "structural"):
        assert name in tvm_ffi.__all__ and hasattr(tvm_ffi, name)
    assert tvm_ffi.access_path.AccessPath is AccessPath
    assert (int(WalkOrder.PREORDER), int(WalkOrder.POSTORDER)) == (0, 1)
    assert (int(WalkResult.ADVANCE), int(WalkResult.SKIP)) == (0, 1)
    assert [int(k) for k in DefRegionKind] == [0, 1, 2]
    assert DefRegionKind.DEF_RECURSIVE == 1 and DefRegionKind.DEF_NON_RECURSIVE == 2
    assert [k.name for k in AccessKind] == ["ATTR", "ARRAY_ITEM", "MAP_ITEM", "ATTR_MISSING",
                                           "ARRAY_ITEM_MISSING", "MAP_ITEM_MISSING"]


def test_structural_equal_is_exact_about_kinds():
    assert structural_equal(Array([1, "a", None]), [1, "a", None])
    assert not structural_equal(1, 1.0) and not structural_equal(1, True)
    assert structural_equal(float("nan"), float("nan"))  # unlike ==
    assert not structural_equal(0.0, -0.0)
    assert structural_equal("short", "short") and structural_equal("x" * 40, "x" * 40)
    assert not structural_equal("ab", b"ab") and structural_equal(b"\x00ab", b"\x00ab")
    assert not structural_equal(Array([1]), List([1]))
    assert not structural_equal(Map({"a": 1}), Dict({"a": 1}))
    assert structural_equal(Map({"a": 1, "b": Array([2])}), Map({"b": [2], "a": 1}))
    assert structural_equal(tvm_ffi.Shape((2, 3)), tvm_ffi.Shape((2, 3)))
    assert structural_equal(tvm_ffi.dtype("float32"), tvm_ffi.dtype("float32"))
    assert structural_equal(tvm_ffi.device("cpu"), tvm_ffi.device("cpu", 0))
    assert not structural_equal(tvm_ffi.device("cpu", 0), tvm_ffi.device("cpu", 1))


def test_structural_hash():
    h = structural_hash(Array([1, 2]))
    assert 0 <= h < 2**64 and isinstance(h, int)
    assert h == structural_hash([1, 2]) == structural_hash(Array([1, 2]), map_free_vars=True)
    assert structural_hash(Map({"a": 1, "b": 2})) == structural_hash(Map({"b": 2, "a": 1}))
    assert structural_hash(float("nan")) == structural_hash(-float("nan"))
    assert structural_hash("s" * 9) == structural_hash(tvm_ffi.convert("s" * 9))
    values = [1, 1.0, True, "1", b"1", None, Array([1]), List([1]), Array([2]), Map({1: 1})]
    assert len({structural_hash(v) for v in values}) == len(values)


def test_structural_unsupported_types():
    f = g("ffi.ReprPrint")
    with pytest.raises(TypeError, match="not supported for this type"):
        structural_equal(f, f)
    with pytest.raises(TypeError, match="ffi.Function"):
        structural_hash(Array([f]))
    with pytest.raises(TypeError, match="bool"):
        g("ffi.StructuralEqual")(1, 1, "yes", False)
    with pytest.raises(TypeError, match="Expected 3 but got 1"):
        g("ffi.StructuralHash")(1)


def test_structural_reflected_objects():
    from tvm_ffi.testing import create_object

    a = create_object("testing.TestObjectBase", v_i64=3)
    b = create_object("testing.TestObjectBase", v_i64=3)
    c = create_object("testing.TestObjectBase", v_i64=4)
    assert not a.same_as(b)
    assert structural_equal(a, b) and structural_hash(a) == structural_hash(b)
    assert not structural_equal(a, c)
    lhs, rhs = get_first_structural_mismatch(Array([a]), Array([c]))
    assert repr(lhs) == repr(rhs) == "<root>[0].v_i64"


def test_first_mismatch_paths():
    mm = get_first_structural_mismatch
    assert mm(Array([1, 2]), Array([1, 2])) is None
    pair = mm(Array([1, 2]), Array([1, 3]))
    assert isinstance(pair, tuple) and all(isinstance(p, AccessPath) for p in pair)
    assert [repr(p) for p in pair] == ["<root>[1]", "<root>[1]"]
    assert [repr(p) for p in mm(Array([1, 2, 3]), Array([1]))] == ["<root>[1]", "<root>[<missing:1>]"]
    assert [repr(p) for p in mm(Array([1]), Array([1, 5]))] == ["<root>[<missing:1>]", "<root>[1]"]
    assert [repr(p) for p in mm(Map({"a": 1, "b": 2}), Map({"a": 1}))] == [
        '<root>["b"]', '<root>[<missing:"b">]']
    assert [repr(p) for p in mm(Map({"a": 1}), Map({"a": 1, "b": 2}))] == [
        '<root>[<missing:"b">]', '<root>["b"]']
    nested = mm(Array([Array([1, Map({"x": Array([3])})])]), Array([Array([1, Map({"x": Array([4])})])]))
    assert [repr(p) for p in nested] == ['<root>[0][1]["x"][0]'] * 2
    assert [repr(p) for p in mm(Array([1]), List([1]))] == ["<root>", "<root>"]
    steps = nested[0].to_steps()
    assert [(s.kind, s.key) for s in steps] == [
        (AccessKind.ARRAY_ITEM, 0), (AccessKind.ARRAY_ITEM, 1), (AccessKind.MAP_ITEM, "x"),
        (AccessKind.ARRAY_ITEM, 0)]


def test_structural_tensors(np):
    a = tvm_ffi.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3))
    b = tvm_ffi.from_dlpack(np.arange(6, dtype="float32").reshape(2, 3))
    c = tvm_ffi.from_dlpack(np.ones((2, 3), dtype="float32"))
    d = tvm_ffi.from_dlpack(np.ones((2, 3), dtype="float64"))
    assert structural_equal(a, b) and structural_hash(a) == structural_hash(b)
    assert not structural_equal(a, c)
    assert structural_equal(a, c, skip_tensor_content=True)
    assert structural_hash(a, skip_tensor_content=True) == structural_hash(c, skip_tensor_content=True)
    assert not structural_equal(c, d, skip_tensor_content=True)  # dtype differs
    strided = tvm_ffi.from_dlpack(np.arange(12, dtype="float32").reshape(2, 6)[:, ::2])
    assert structural_equal(strided, strided)  # the same tensor needs no content check
    with pytest.raises(RuntimeError, match="contiguous"):
        structural_equal(a, tvm_ffi.from_dlpack(np.arange(12, dtype="float32").reshape(2, 6)[:, ::2]))


def test_structural_key():
    k1, k2, k3 = StructuralKey(Array([1, 2])), StructuralKey([1, 2]), StructuralKey(Array([2]))
    assert isinstance(k1, tvm_ffi.Object) and k1.key == Array([1, 2])
    assert k1 == k2 and hash(k1) == hash(k2) and k1 != k3 and k1 != "x"
    assert hash(k1) == k1.hash_i64 & 0xFFFFFFFFFFFFFFFF == structural_hash([1, 2])
    assert {k1: "v"}[k2] == "v" and len({k1, k2, k3}) == 2
    m = Map({k1: 7})  # the runtime's map uses the key's __any_hash__/__any_equal__
    assert m[k2] == 7 and k3 not in m
    assert g("ffi.StructuralKeyEqual")(k1, k2) and not g("ffi.StructuralKeyEqual")(k1, k3)
    with pytest.raises(TypeError, match="ffi.StructuralKey"):
        g("ffi.StructuralKeyEqual")(Array([1]), Array([1]))


def test_access_path_api():
    root = AccessPath.root()
    assert root.depth == 0 and root.parent is None and root.step is None
    assert len(root.to_steps()) == 0 and root == AccessPath.root() and repr(root) == "<root>"
    p = root.attr("body").array_item(3).map_item("k")
    assert repr(p) == '<root>.body[3]["k"]' and p.depth == 3
    assert p.parent == root.attr("body").array_item(3) and p != root
    assert hash(p) == hash(root.attr("body").array_item(3).map_item("k"))
    step = p.step
    assert isinstance(step, AccessStep) and step.kind == AccessKind.MAP_ITEM and step.key == "k"
    missing = root.attr_missing("x").array_item_missing(1).map_item_missing(2.5)
    assert [int(s.kind) for s in missing.to_steps()] == [3, 4, 5]
    assert repr(missing) == '<root>[<missing:"x">][<missing:1>][<missing:2.5>]'
    assert root.is_prefix_of(p) and p.is_prefix_of(p) and p.parent.is_prefix_of(p)
    assert not p.is_prefix_of(p.parent) and not root.attr("other").is_prefix_of(p)
    assert root.attr("a") != root.map_item("a")  # kind matters, not just the key
    assert (root == 1) is False and (root != 1) is True
    with pytest.raises(ValueError, match="AccessPath.root"):
        AccessPath()
    with pytest.raises(TypeError, match="str"):
        root.attr(1)
    with pytest.raises(TypeError, match="int"):
        root.array_item("x")


def _walk_log(root, order="pre", **kw):
    seen = []
    result = structural_walk(root, lambda v: seen.append(v), order=order, **kw)
    assert result is None
    return seen


def test_structural_walk_orders():
    inner = Array([2, 3])
    root = Array([1, inner, None, Map({"k": 4.5})])
    pre = _walk_log(root)
    assert pre[0].same_as(root) and pre[1:3] == [1, inner] and pre[3:5] == [2, 3]
    assert pre[6:] == [4.5] and isinstance(pre[5], Map)  # keys are not visited, None neither
    post = _walk_log(root, order=WalkOrder.POSTORDER)
    assert post[:3] == [1, 2, 3] and post[3].same_as(inner) and post[-1].same_as(root)
    assert _walk_log(root, order="post") == post
    with pytest.raises(ValueError, match="order"):
        structural_walk(root, lambda v: None, order="sideways")


def test_structural_walk_typed_callbacks_skip_and_interrupt():
    root = Array([1, "s", Array([2, 2.5]), List([3])])
    ints, strs = [], []
    structural_walk(root, [(int, ints.append), (str, strs.append)])
    assert ints == [1, 2, 3] and strs == ["s"]
    nums = []
    structural_walk(root, ((int, float), nums.append))
    assert nums == [1, 2, 2.5, 3]
    seqs = []
    structural_walk(root, (List, seqs.append))
    assert len(seqs) == 1 and isinstance(seqs[0], List)
    # SKIP prunes the children of the value it was returned for
    seen = []

    def skip_arrays(v):
        seen.append(v)
        return WalkResult.SKIP if isinstance(v, Array) and len(v) == 2 else WalkResult.ADVANCE

    structural_walk(root, skip_arrays, order="pre")
    assert 2 not in seen and 3 in seen
    # a VisitInterrupt stops the walk and comes back with its payload
    visited = []

    def stop_at_two(v):
        visited.append(v)
        return VisitInterrupt(v * 10) if v == 2 else None

    res = structural_walk(root, (int, stop_at_two))
    assert isinstance(res, VisitInterrupt) and res.value == 20 and visited == [1, 2]
    assert VisitInterrupt().value is None and VisitInterrupt("x").value == "x"


def test_structural_walk_def_region_kind_and_errors():
    kinds = []
    structural_walk(Array([1, Array([2])]), with_def_region_kind=(int, lambda v, k: kinds.append((v, k))))
    assert kinds == [(1, DefRegionKind.NONE), (2, DefRegionKind.NONE)]
    assert all(type(k) is DefRegionKind for _, k in kinds)
    with pytest.raises(TypeError, match="callback"):
        structural_walk(Array([1]), [(int,)])
    with pytest.raises(TypeError, match="callback type"):
        structural_walk(Array([1]), (complex, lambda v: None))
    with pytest.raises(TypeError, match="callbacks"):
        structural_walk(Array([1]), 42)

    def boom(v):
        raise KeyError("from callback")

    with pytest.raises(KeyError, match="from callback"):
        structural_walk(Array([1]), boom)
    with pytest.raises(TypeError):
        StructuralVisitor()


def test_structural_walk_callback_types():
    from tvm_ffi.testing import create_object

    obj = create_object("testing.TestObjectBase", v_i64=3)
    cls = type(obj)
    seen = []
    # first matching entry wins: the class entry before the catch-all
    structural_walk(Array([obj, 1]), [(cls, seen.append), (object, lambda v: seen.append(("any", v)))], order="pre")
    assert seen[1].same_as(obj) and ("any", 3) in seen and seen[-1] == ("any", 1)
    assert seen.count(("any", 1)) == 1 and not any(isinstance(s, tuple) and s[1] is obj for s in seen)
    found = []
    structural_walk(Array([tvm_ffi.Shape((1,)), "x", b"y"]), ((tvm_ffi.Shape, str, bytes), found.append))
    assert found == [(1,), "x", b"y"]


def test_def_regions_reach_through_objects_but_not_into_a_simple_variable():
    # upstream's rule: a def region propagates into the fields of the objects it holds; a
    # simple one stops at a free variable (its fields are uses)
    from typing import Any, Optional

    from tvm_ffi.dataclasses import field, py_class

    @py_class("testing.pyapi_region.Var", structural_eq="var")
    class Var(tvm_ffi.Object):
        name: str
        inner: Optional[tvm_ffi.Object] = None

    @py_class("testing.pyapi_region.Box")
    class Box(tvm_ffi.Object):
        v: Any

    @py_class("testing.pyapi_region.Bind")
    class Bind(tvm_ffi.Object):
        d: Any = field(structural_eq="def-simple")
        body: Any = None

    x, y = Var("x"), Var("x")
    a, b = Bind(Box(x), x), Bind(Box(y), y)  # x binds to y through the Box
    assert tvm_ffi.structural_equal(a, b)
    assert tvm_ffi.structural_hash(a) == tvm_ffi.structural_hash(b)
    z1, z2 = Var("z"), Var("z")
    a, b = Bind(Var("v", z1), z1), Bind(Var("v", z2), z2)  # z sits inside a variable: a use
    assert not tvm_ffi.structural_equal(a, b)
    assert tvm_ffi.structural_hash(a) != tvm_ffi.structural_hash(b)


def test_visit_region_fixtures():
    from tvm_ffi.structural import structural_walk

    make = g("testing.make_visit_region_graph")
    seen = {False: [], True: []}
    for with_hook, kinds in seen.items():
        structural_walk(make(with_hook), with_def_region_kind=(int, lambda v, k, out=kinds: out.append((v, int(k)))))
    # field flags open simple (2) / pattern (1) regions; the hook visits its child in a simple
    # region, whose ordinary field inherits it, then the int 4 back in no region
    assert seen[False] == [(1, 2), (2, 1), (3, 0)]
    assert seen[True] == [(1, 2), (2, 1), (3, 2), (4, 0)]
    assert type(make(True)).__name__ == "TestVisitHook" and make(True).child.ordinary == 3
    with pytest.raises(TypeError, match="Expected `bool`"):
        make("x")


def test_list_reserve():
    lst = List([1, 2])
    assert g("ffi.ListReserve")(lst, 100) is None and list(lst) == [1, 2]
    g("ffi.ListReserve")(lst, -1)
    lst.append(3)
    assert list(lst) == [1, 2, 3]
    with pytest.raises(MemoryError):
        g("ffi.ListReserve")(lst, 1 << 62)
    with pytest.raises(TypeError, match="List<Any>"):
        g("ffi.ListReserve")(Array([1]), 3)


def test_dag_sharing_is_hashed_as_it_is_compared():
    from typing import Any

    from tvm_ffi.dataclasses import py_class

    @py_class("testing.pyapi_dag.Node", structural_eq="dag")
    class Node(tvm_ffi.Object):
        v: Any

    @py_class("testing.pyapi_dag.Var", structural_eq="var")
    class Var(tvm_ffi.Object):
        name: str

    def h(v, **kw):
        return tvm_ffi.structural_hash(v, **kw)

    s, s2, c1, c2 = Node(1), Node(1), Node(1), Node(1)
    shared, tree = Array([s, s]), Array([c1, c2])
    assert not tvm_ffi.structural_equal(shared, tree) and h(shared) != h(tree)
    assert tvm_ffi.structural_equal(shared, Array([s2, s2])) and h(shared) == h(Array([s2, s2]))
    # a node holding a free variable is still hashed once, as equality binds it once
    x, y = Var("x"), Var("x")
    a, b = Array([Node(x)] * 2), Array([Node(y)] * 2)
    assert tvm_ffi.structural_equal(a, b, map_free_vars=True)
    assert h(a, map_free_vars=True) == h(b, map_free_vars=True)
    # equal maps with their entries in another order hash alike
    m1, m2 = Map({"a": s, "b": s}), Map({"b": s2, "a": s2})
    assert tvm_ffi.structural_equal(m1, m2) and h(m1) == h(m2)
