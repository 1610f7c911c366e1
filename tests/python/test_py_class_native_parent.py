"""py_class over a type defined in C/C++ (docs/python.md §4.10): the
parent's fields stay at their C offsets, its C methods read them, copies keep them and the
deleter releases the references they hold."""

import copy
import gc
import itertools

import pytest
import tvm_ffi
from tvm_ffi import core
from tvm_ffi.dataclasses import fields, py_class, replace
from tvm_ffi.testing import TestObjectBase, TestObjectDerived, TestObjectPtrHolder

_keys = itertools.count()
use_count = tvm_ffi.get_global_func("testing.object_use_count")


def _key(name):
    return "testing.native_parent.%s_%d" % (name, next(_keys))


def _info(cls):
    return core._type_cls_to_type_info(cls)


def test_parent_fields_keep_their_offsets_and_methods_read_them():
    @py_class(_key("Child"))
    class Child(TestObjectBase):
        extra: int

    parent = _info(TestObjectBase)
    own = _info(Child).fields
    assert [f.name for f in own] == ["extra"]
    assert own[0].offset >= max(f.offset + f.size for f in parent.fields)
    assert [f.name for f in fields(Child)] == ["v_i64", "v_f64", "v_str", "extra"]
    assert Child(extra=1).v_i64 == 10  # the C default, through the generated __init__
    obj = Child(v_i64=5, extra=7)
    assert (obj.v_i64, obj.v_f64, obj.v_str, obj.extra) == (5, 10.0, "hello", 7)  # C defaults
    assert obj.add_i64(1) == 6  # the C method reads v_i64 at its C offset
    obj.v_i64 = 40
    obj.extra = 8
    assert obj.add_i64(2) == 42 and obj.extra == 8
    assert isinstance(obj, TestObjectBase)


def test_copy_deepcopy_and_replace_keep_every_field():
    @py_class(_key("Copied"))
    class Copied(TestObjectDerived):
        note: str = "n"

    obj = Copied(v_map={"k": 1}, v_array=[1, 2], v_i64=3, v_str="s")
    for dup in (copy.copy(obj), copy.deepcopy(obj), replace(obj, note="m")):
        assert not dup.same_as(obj)
        assert (dup.v_i64, dup.v_f64, dup.v_str, dup.v_map["k"], tuple(dup.v_array)) == \
            (3, 10.0, "s", 1, (1, 2))
    assert copy.copy(obj).v_map.same_as(obj.v_map)
    assert not copy.deepcopy(obj).v_map.same_as(obj.v_map)
    assert replace(obj, note="m").note == "m"


def test_deleter_and_copies_release_the_parents_references():
    @py_class(_key("Holder"))
    class Holder(TestObjectPtrHolder):
        extra: int

    target = TestObjectBase()
    other = TestObjectBase()
    h = Holder(value=target, optional_value=other, extra=1)
    assert (use_count(target), use_count(other)) == (2, 2)
    c = copy.copy(h)
    assert (use_count(target), use_count(other)) == (3, 3)
    d = copy.deepcopy(h)
    assert not d.value.same_as(target) and d.value.v_i64 == 10
    assert (use_count(target), use_count(other)) == (3, 3)
    del c, d
    gc.collect()
    assert (use_count(target), use_count(other)) == (2, 2)
    h.optional_value = None
    assert use_count(other) == 1
    del h
    gc.collect()
    assert use_count(target) == 1


def test_py_class_chain_over_a_c_parent():
    @py_class(_key("Mid"))
    class Mid(TestObjectBase):
        a: int = 1

    @py_class(_key("Leaf"))
    class Leaf(Mid):
        b: str = "b"

    leaf = Leaf(v_i64=2, a=3, b="x")
    assert _info(Leaf).parent_type_info is _info(Mid)
    a = _info(Mid).fields[0]
    assert (a.offset, a.size) == (56, 8)  # right after TestObjectBase's v_str (40 + 16)
    assert _info(Leaf).fields[0].offset == 64
    assert (leaf.add_i64(1), leaf.a, leaf.b) == (3, 3, "x")
    assert copy.deepcopy(leaf).b == "x"


def test_parent_with_read_only_fields_and_its_own_init():
    @py_class(_key("Pair"))
    class Pair(tvm_ffi.testing.TestIntPair):
        extra: int = 0

    p = Pair(a=1, b=2, extra=3)
    assert (p.sum(), p.extra) == (3, 3)
    with pytest.raises(TypeError, match="missing required argument: 'a'"):
        Pair(b=2)


def test_a_type_without_metadata_cannot_be_extended():
    with pytest.raises(TypeError, match="no metadata"):
        @py_class(_key("NoMeta"))
        class NoMeta(tvm_ffi.Array):
            x: int


def test_a_blank_object_starts_from_the_parents_creator():
    from tvm_ffi import _typeinfo

    @py_class(_key("Blank"))
    class Blank(TestObjectBase):
        extra: int

    new = _typeinfo._lookup_type_attr(_info(Blank).type_index, "__ffi_new__")
    blank = new()  # what a class body's own __init__ starts from
    assert (blank.v_i64, blank.v_f64, blank.v_str, blank.extra) == (10, 10.0, "hello", 0)


def test_parent_without_creator_or_copy():
    from tvm_ffi.testing import TestNonCopyable  # positional __ffi_init__, no creator

    @py_class(_key("NoCreator"))
    class NoCreator(TestNonCopyable):
        extra: str = "e"

    assert _info(NoCreator).fields[0].offset == 32  # after `value` at 24
    obj = NoCreator(value=3, extra="x")
    dup = copy.deepcopy(obj)  # the child's own __ffi_shallow_copy__ copies the parent's part
    assert (obj.value, dup.value, copy.copy(obj).extra, dup.extra) == (3, 3, "x", "x")
