"""ffi.DeepCopy (copy.deepcopy of FFI values): keys are copied like values, a Map reached
again from inside its own entries yields a copy reaching the copy, enum members stay shared,
a type that cannot be copied is a RuntimeError."""

import copy

import pytest

import tvm_ffi
import tvm_ffi.testing as T

deep_copy = tvm_ffi.get_global_func("ffi.DeepCopy")


def test_map_reached_from_its_values_and_keys():
    shared = tvm_ffi.List()
    m = tvm_ffi.Map({"a": shared, "b": shared})
    shared.append(m)
    c = copy.deepcopy(m)
    assert not c.same_as(m) and c["a"].same_as(c["b"]) and c["a"][0].same_as(c)

    key = tvm_ffi.Dict()
    m2 = tvm_ffi.Map({key: 1})
    key["self"] = m2
    c2 = deep_copy(m2)
    (ckey,) = list(c2.keys())
    assert isinstance(ckey, tvm_ffi.Dict) and not ckey.same_as(key)
    assert ckey["self"].same_as(c2)
    shared.clear(), key.clear(), c["a"].clear(), ckey.clear()  # break the cycles


def test_large_map_cycle_keeps_identity():
    back = tvm_ffi.List()
    m = tvm_ffi.Map({**{"k%d" % i: i for i in range(40)}, "back": back})
    back.append(m)
    c = deep_copy(m)
    assert len(c) == 41 and c["back"][0].same_as(c) and c["k39"] == 39
    back.clear(), c["back"].clear()


def test_array_root_used_as_dict_key():
    d = tvm_ffi.Dict()
    root = tvm_ffi.Array([d])
    d[root] = 1
    c = deep_copy(root)
    (ckey,) = list(c[0].keys())
    assert ckey.same_as(c) and not ckey.same_as(root)
    d.clear(), c[0].clear()


def test_any_and_object_fields_are_copied_with_sharing():
    inner = T.TestIntPair(3, 4)
    obj = T.create_object("testing.TestDeepCopyEdges", v_any=inner, v_obj=inner)
    c = copy.deepcopy(obj)
    assert c.v_any.same_as(c.v_obj) and not c.v_any.same_as(inner) and c.v_any.a == 3
    with pytest.raises(TypeError, match="ffi.Object"):
        T.create_object("testing.TestDeepCopyEdges", v_any=None, v_obj=1)


def test_not_copy_constructible_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="TestNonCopyable.*not copy-constructible"):
        deep_copy(tvm_ffi.Array([T.TestNonCopyable(1)]))
