"""py_class fields that wait for a forward reference (python/tvm_ffi/dataclasses/_deferred.py,
docs/guide-dataclasses.md §1): nothing of the type but its index exists until every
annotation resolves, then the fields get their native layout."""

import itertools
import typing

import pytest

import tvm_ffi
from tvm_ffi import Object
from tvm_ffi import _type_index as T
from tvm_ffi.dataclasses import fields, py_class

_keys = itertools.count()


def _key(name):
    return "testing.py_class_deferred.%s_%d" % (name, next(_keys))


def _layout(cls):
    return [(f.name, f.static_type_index, f.offset, f.size)
            for f in cls.__tvm_ffi_type_info__.fields]


def test_mutual_references_get_object_fields_once_both_exist():
    @py_class(_key("Left"))
    class Left(Object):
        flag: bool
        right: typing.Optional["Right"]  # noqa: F821 - defined below
        rights: "list[Right]"  # noqa: F821

    assert Left.__tvm_ffi_type_info__.fields is None
    with pytest.raises(TypeError, match="Cannot instantiate Left: unresolved forward "
                                        "references: .*right.*Right.*rights: list\\[Right\\]"):
        Left(True, None, [])

    @py_class(_key("Right"))
    class Right(Object):
        left: Left  # a waiting class can be named: it has its type index
        n: int = 0

    # Right's definition completed Left: a list of objects is one pointer, not a 16-byte Any
    assert _layout(Left) == [("flag", T.kTVMFFIBool, 24, 1),
                             ("right", -1, 32, 16),
                             ("rights", T.kTVMFFIObject, 48, 8)]
    assert _layout(Right) == [("left", T.kTVMFFIObject, 24, 8), ("n", T.kTVMFFIInt, 32, 8)]
    right_key = Right.__tvm_ffi_type_info__.type_key
    assert str(Left.__tvm_ffi_type_info__.fields[2].ty) == "List[%s]" % right_key
    left = Left(True, None, [])
    right = Right(left, 2)
    left.right, left.rights = right, [right]
    assert left.right.n == 2 and left.rights[0].left.same_as(left)
    with pytest.raises(TypeError):
        left.rights = [left]  # the element type is checked now
    left.right = None  # (break the cycle)


def test_subclass_of_a_waiting_class_waits_and_is_laid_out_after_it():
    @py_class(_key("WaitParent"))
    class Parent(Object):
        flag: bool
        later: "LaterTarget"  # noqa: F821

    @py_class(_key("WaitChild"))
    class Child(Parent):
        other: bool = False

    assert Child.__tvm_ffi_type_info__.fields is None
    with pytest.raises(TypeError, match="Cannot instantiate Child: unresolved forward "
                                        "references: .*later: LaterTarget"):
        Child(True, None)

    @py_class(_key("LaterTarget"))
    class LaterTarget(Object):
        value: int

    assert _layout(Parent) == [("flag", T.kTVMFFIBool, 24, 1),
                               ("later", T.kTVMFFIObject, 32, 8)]
    assert _layout(Child) == [("other", T.kTVMFFIBool, 40, 1)]
    child = Child(True, LaterTarget(7), other=True)
    assert child.later.value == 7 and child.other
    assert [f.name for f in fields(Child)] == ["flag", "later", "other"]


def test_methods_and_hooks_of_a_waiting_class_register_with_its_fields():
    @py_class(_key("WaitMethods"))
    class Holder(Object):
        item: typing.Optional["MethodTarget"] = None  # noqa: F821

        @tvm_ffi.method
        def tag(self) -> str:
            return "holder"

        def __ffi_repr__(self, fn_repr):
            return "<holder>"

    info = Holder.__tvm_ffi_type_info__
    assert info.methods == [] and info.fields is None

    @py_class(_key("MethodTarget"))
    class MethodTarget(Object):
        pass

    assert [m.name for m in info.methods] == ["tag"]
    assert Holder().tag() == "holder" and repr(Holder()) == "<holder>"


def test_annotation_error_other_than_an_undefined_name_refuses_the_definition():
    key = _key("BadText")
    body = {"__annotations__": {"x": "len(1)"}, "__module__": __name__}
    with pytest.raises(TypeError, match="len"):
        py_class(key)(type("BadText", (Object,), dict(body)))

    # as upstream the key may be defined again
    Good = py_class(key)(type("Good", (Object,), {"__annotations__": {"x": "int"},
                                                  "__module__": __name__}))
    assert Good(3).x == 3


def test_completion_that_fails_is_raised_by_construction():
    key = _key("BadLater")

    @py_class(key)
    class Holder(Object):
        value: "PlainLater"  # noqa: F821

    class PlainLater:  # resolves, but no FFI type corresponds to a plain class
        pass

    globals()["PlainLater"] = PlainLater
    try:
        py_class(_key("Unrelated"))(type("Unrelated", (Object,), {"__module__": __name__}))
        for _ in range(2):
            with pytest.raises(TypeError, match="field `value`"):
                Holder(PlainLater())
    finally:
        del globals()["PlainLater"]

    @py_class(key)  # the failed definition left its key free
    class Holder2(Object):
        value: int

    assert Holder2(1).value == 1


def test_key_of_a_class_that_failed_to_build_can_be_defined_again():
    key = _key("Redefined")
    Old = py_class(key)(type("Old", (Object,), {"__annotations__": {"x": "NeverDefined"},
                                                "__module__": __name__}))
    index = Old.__tvm_ffi_type_info__.type_index
    with pytest.raises(TypeError, match="unresolved forward references"):
        Old(1)  # as upstream, this frees the key for a corrected definition
    New = py_class(key)(type("New", (Object,), {"__annotations__": {"x": "int"},
                                                "__module__": __name__}))
    assert New(5).x == 5
    assert New.__tvm_ffi_type_info__.type_index == index
    with pytest.raises(TypeError, match="was defined again"):
        Old(1)


def test_user_init_of_a_waiting_class_runs_once_it_completes():
    @py_class(_key("WaitInit"))
    class WithInit(Object):
        n: int
        ref: typing.Optional["InitTarget"]  # noqa: F821

        def __init__(self, n):
            self.n = n * 2
            self.ref = None

    @py_class(_key("InitTarget"))
    class InitTarget(Object):
        pass

    obj = WithInit(4)
    assert obj.n == 8 and obj.ref is None
