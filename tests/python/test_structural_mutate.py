"""structural_map / structural_mutate / structural_visit and the StructuralMutator handed to
callbacks (tvm_ffi_structural(3)): copy-on-write along changed paths, in-place changes of a
moved root, callbacks owning their recursion, the optional inplace_mode argument, errors."""

import pytest

import tvm_ffi
from tvm_ffi import Array, Dict, InplaceMode, List, Map, StructuralMutator, WalkOrder
from tvm_ffi.core import _lookup_type_attr


def test_builtin_types_have_mutate_hooks():
    for type_index in (65, 66, 71, 72, 75, 76):  # String Bytes Array Map List Dict
        assert _lookup_type_attr(type_index, "__s_mutate__") is not None
        assert _lookup_type_attr(type_index, "__s_maybe_inplace_mutate__") is not None
    assert _lookup_type_attr(77, "__ffi_shallow_copy__") is not None  # VisitInterrupt
    value = tvm_ffi.VisitInterrupt(Array([1]))
    copied = _lookup_type_attr(77, "__ffi_shallow_copy__")(value)
    assert not copied.same_as(value) and copied.value.same_as(value.value)


def test_map_rebuilds_only_changed_paths():
    untouched = Array(["a", "b"])
    root = Array([1, Map({"k": Array([2])}), untouched, List([3]), Dict({"d": 4})])
    mapped = tvm_ffi.structural_map(root, (int, lambda v: v * 10))
    assert list(mapped[0:1]) == [10]
    assert list(mapped[1]["k"]) == [20]
    assert mapped[2].same_as(untouched)  # no change below: shared, not copied
    assert list(mapped[3]) == [30] and mapped[4]["d"] == 40
    assert list(root[1]["k"]) == [2] and root[0] == 1  # the source is untouched
    same = tvm_ffi.structural_map(root, (float, lambda v: v + 1))
    assert same.same_as(root)


def test_map_orders():
    root = Array([Array([1]), 2])

    def trace(order):
        seen = []

        def on_array(v):
            seen.append("array%d" % len(v))
            return v

        def on_int(v):
            seen.append(v)
            return v

        kw = {} if order is None else {"order": order}
        tvm_ffi.structural_map(root, [(Array, on_array), (int, on_int)], **kw)
        return seen

    assert trace(None) == [1, "array1", 2, "array2"]  # post-order by default
    assert trace("pre") == ["array2", "array1", 1, 2]
    assert trace(WalkOrder.POSTORDER) == trace(None)
    with pytest.raises(ValueError, match="order"):
        tvm_ffi.structural_map(root, (int, int), order="sideways")


def test_post_order_callback_sees_mapped_children():
    root = Array([Array([1, 2])])
    seen = []
    tvm_ffi.structural_map(root, [(int, lambda v: v + 1), (Array, lambda a: seen.append(a) or a)])
    assert list(seen[0]) == [2, 3]  # the inner array after its ints were mapped


def test_moved_root_changes_in_place():
    root = List([1, 2])
    handle = root.__chandle__()
    mapped = tvm_ffi.structural_map(root._move(), (int, lambda v: v + 1))
    assert mapped.__chandle__() == handle and list(mapped) == [2, 3]
    shared = Array([1])
    holder = Array([shared])
    mapped = tvm_ffi.structural_map(shared._move(), (int, lambda v: v + 1))
    assert not mapped.same_as(holder[0])  # a second owner forces the copy
    assert list(holder[0]) == [1]


def test_mutate_callbacks_own_recursion():
    calls = []

    def on_array(value, mutator):
        assert isinstance(mutator, StructuralMutator)
        calls.append("array")
        return Array([mutator.mutate(value[0]), -1])

    mapped = tvm_ffi.structural_mutate(Array([1, 2]), [(Array, on_array), (int, lambda v, m: v * 7)])
    assert list(mapped) == [7, -1] and calls == ["array"]  # the result is final

    def default(value, mutator):
        return mutator.default_mutate(value)

    mapped = tvm_ffi.structural_mutate(Array([Array([1])]), [(Array, default), (int, lambda v, m: v + 5)])
    assert list(mapped[0]) == [6]
    # Unchanged resolves to the value itself
    assert tvm_ffi.structural_mutate(Array(["x"]), (Array, lambda v, m: m.mutate(v[0]))) == "x"


def test_mutate_inplace_mode_argument():
    modes = []

    def with_mode(value, mutator, inplace_mode):
        assert type(inplace_mode) is int
        modes.append(inplace_mode)
        return mutator.default_mutate(value)

    tvm_ffi.structural_mutate(Array([1]), (Array, with_mode))
    tvm_ffi.structural_mutate(Array([1])._move(), (Array, with_mode))
    assert modes == [InplaceMode.DISALLOW, InplaceMode.ALLOW]
    with pytest.raises(TypeError, match="value, mutator"):
        tvm_ffi.structural_mutate(Array([1]), (int, lambda v: v))


def test_mutator_state_methods():
    seen = {}
    key = Array([0])

    def on_array(value, mutator):
        assert mutator.var_remap_get(key) is None
        mutator.var_remap_set(key, 42)
        seen["get"] = mutator.var_remap_get(key)
        seen["kind"] = mutator.def_region_kind()
        seen["inner"] = mutator.with_def_region_kind(
            tvm_ffi.DefRegionKind.DEF_SIMPLE, lambda: mutator.def_region_kind()
        )
        with pytest.raises(TypeError, match="object-backed"):
            mutator.var_remap_get(1)
        return value

    tvm_ffi.structural_mutate(Array([1]), (Array, on_array))
    assert seen == {"get": 42, "kind": tvm_ffi.DefRegionKind.NONE,
                    "inner": tvm_ffi.DefRegionKind.DEF_SIMPLE}
    with pytest.raises(TypeError):
        StructuralMutator()


def test_errors_propagate():
    def fail(value, mutator):
        raise ValueError("no thanks: %d" % value)

    with pytest.raises(ValueError, match="no thanks: 2"):
        tvm_ffi.structural_mutate(Array([1, 2]), (int, lambda v, m: fail(v, m) if v == 2 else v))
    with pytest.raises(ValueError, match="no thanks"):
        tvm_ffi.structural_map(Map({"a": 1}), (int, lambda v: fail(v, None)))
    with pytest.raises(TypeError, match="callback"):
        tvm_ffi.structural_map(Array([1]), 42)


def test_reflected_object_copy_on_write():
    from tvm_ffi.testing import TestIntPair

    pair = TestIntPair(3, 7)
    mapped = tvm_ffi.structural_map(Array([pair]), (int, lambda v: v + 100))
    assert (mapped[0].a, mapped[0].b) == (103, 107)
    assert (pair.a, pair.b) == (3, 7)
    assert tvm_ffi.structural_map(pair, (str, str)).same_as(pair)


def test_structural_visit_callbacks_own_descent():
    trace = []

    def on_array(value, visitor):
        trace.append("array%d" % len(value))
        return visitor.default_visit(value) if len(value) > 1 else None  # prune 1-element arrays

    def on_int(value, visitor):
        trace.append(value)
        return tvm_ffi.VisitInterrupt("stop") if value == 3 else None

    result = tvm_ffi.structural_visit(Array([1, Array([2]), 3, 4]), [(Array, on_array), (int, on_int)])
    assert trace == ["array4", 1, "array1", 3]
    assert isinstance(result, tvm_ffi.VisitInterrupt) and result.value == "stop"
    assert tvm_ffi.structural_visit(Array([1]), (str, lambda v, vis: None)) is None


def test_structural_walk_defaults_to_post_order():
    seen = []
    tvm_ffi.structural_walk(Array([Array([1])]), (object, lambda v: seen.append(type(v).__name__)))
    assert seen == ["int", "Array", "Array"]
