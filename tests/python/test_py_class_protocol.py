"""py_class's extension protocol (python/tvm_ffi/dataclasses/_protocol.py,
docs/guide-dataclasses.md §1): fields-resolved hooks, extra field() keywords, field markers,
per-record field metadata, and the type attributes a class registers and inherits."""

import copy
import itertools
import typing

import pytest

import tvm_ffi
from tvm_ffi import _base, _function, core
from tvm_ffi.core import Object, TypeSchema
from tvm_ffi.dataclasses import Field, field, fields, py_class

_keys = itertools.count()


def _key(name):
    return "testing.py_class_protocol.%s_%d" % (name, next(_keys))


def _on_fields(func):
    func.__ffi_on_fields_resolved__ = True
    return func


def _attr(cls, name):
    return core._lookup_type_attr(cls.__tvm_ffi_type_info__.type_index, name)


# ---------------------------------------------------------------------------------------------
# Field records


def test_field_metadata_is_a_private_shallow_copy():
    inner = [1]
    src = {"a": 1, "inner": inner}
    f = field(metadata=src)
    src["a"] = 2
    assert f.metadata == {"a": 1, "inner": [1]} and f.metadata["inner"] is inner
    f.metadata["b"] = 3  # editable, and only this record's
    assert "b" not in src
    g = copy.copy(f)
    g.metadata["a"] = 9
    assert f.metadata["a"] == 1 and g.metadata["inner"] is inner
    assert field().metadata == {} and Field().metadata == {}


def test_unknown_field_keywords_are_kept_for_extensions():
    f = field(default=1, unit="ms", scale=2)
    assert f.extra_kwargs == {"unit": "ms", "scale": 2} and f.default == 1
    raw = Field(name="x", unit="s")
    assert raw.extra_kwargs == {"unit": "s"} and raw.name == "x"
    g = copy.copy(f)
    g.extra_kwargs.pop("unit")
    assert f.extra_kwargs == {"unit": "ms", "scale": 2}
    assert field().extra_kwargs == {}


def test_fields_metadata_is_the_python_side_only():
    @py_class(_key("Plain"))
    class Plain(Object):
        x: int
        y: int = field(metadata={"k": 1})

    # the runtime's own field metadata (type_schema) stays on the TypeField
    assert [f.metadata for f in fields(Plain)] == [{}, {"k": 1}]
    assert "type_schema" in Plain.__tvm_ffi_type_info__.fields[0].metadata


# ---------------------------------------------------------------------------------------------
# fields-resolved hooks


def test_hooks_run_base_first_for_every_py_class_below_them():
    calls = []

    @py_class(_key("HookRoot"))
    class Root(Object):
        @_on_fields
        def __ext_a__(info, own):
            assert not info.fields  # nothing of this class reached the runtime yet
            calls.append(("a", info.type_cls.__name__, [(f.name, str(f._ty_schema))
                                                        for f in own]))

        def __not_a_hook__(info, own):
            calls.append("unmarked")

        __not_a_hook__.__ffi_on_fields_resolved__ = 1  # only True counts

    @py_class(_key("HookMid"))
    class Mid(Root):
        x: int

        @_on_fields
        def __ext_b__(info, own):
            calls.append(("b", info.type_cls.__name__, [f.name for f in own]))

    @py_class(_key("HookLeaf"))
    class Leaf(Mid):
        y: typing.Optional[str] = None

    assert calls == [
        ("a", "Root", []),
        ("a", "Mid", [("x", "int")]),
        ("b", "Mid", ["x"]),
        ("a", "Leaf", [("y", "str | None")]),
        ("b", "Leaf", ["y"]),
    ]
    assert Leaf(1).y is None


def test_hook_edits_reach_fields_and_decorator_args():
    @py_class(_key("EditBase"))
    class Base(Object):
        @_on_fields
        def __ext__(info, own):
            for f in own:
                f.metadata["owner"] = info.type_key
                if f.extra_kwargs.pop("hidden", False):
                    f.repr = False
            if own:  # (the hook runs for Base itself too)
                info._decorator_args["kw_only"] = True  # this class only

    @py_class(_key("EditChild"))
    class Child(Base):
        a: int
        b: int = field(hidden=True)

    info = Child.__tvm_ffi_type_info__
    assert [f.metadata for f in fields(Child)] == [{"owner": info.type_key}] * 2
    assert "b=" not in repr(Child(a=1, b=2))
    with pytest.raises(TypeError):
        Child(1, 2)  # the hook made every field keyword-only
    assert info._decorator_args["kw_only"] is True
    assert Base.__tvm_ffi_type_info__._decorator_args["kw_only"] is False


def test_leftover_field_keywords_are_refused():
    with pytest.raises(TypeError, match=r"^Typo\.x: unrecognized field options: a, b$"):

        @py_class(_key("Typo"))
        class Typo(Object):
            x: int = field(b=1, a=2)

    @py_class(_key("Consumer"))
    class Consumer(Object):
        @_on_fields
        def __ext__(info, own):
            for f in own:
                f.extra_kwargs.pop("known", None)

    class Mixin:
        m: int = field(known=1, other=2)

    with pytest.raises(TypeError, match=r"Mixed\.m: unrecognized field options: other"):

        @py_class(_key("Mixed"))
        class Mixed(Mixin, Consumer):
            pass

    assert Mixin.__dict__["m"].extra_kwargs == {"known": 1, "other": 2}  # the mixin's own


def test_c_class_refuses_every_extra_keyword():
    from tvm_ffi.dataclasses import c_class

    with pytest.raises(TypeError, match=r"Base\.v_i64: unrecognized field options: defualt"):

        @c_class("testing.TestObjectBase")
        class Base(Object):
            v_i64: int = field(defualt=3)  # (a typo of default: no hook would consume it)


def test_a_key_whose_hooks_failed_can_be_defined_again():
    @py_class(_key("RetryBase"))
    class Base(Object):
        @_on_fields
        def __ext__(info, own):
            if any(f.metadata.get("boom") for f in own):
                raise RuntimeError("hook refused " + info.type_key)

    key = _key("Retry")
    with pytest.raises(TypeError, match="unrecognized field options: typo"):

        @py_class(key)
        class First(Base):
            x: int = field(typo=1)

    index = _function._type_key_to_index(key)
    assert index is not None and index not in _base._TYPE_CLS  # unbound, index kept
    with pytest.raises(RuntimeError, match="hook refused"):

        @py_class(key)
        class Second(Base):
            x: int = field(metadata={"boom": True})

    with pytest.raises(ValueError, match="left from a failed definition under"):

        @py_class(key)
        class Elsewhere(Object):
            x: int

    @py_class(key)
    class Third(Base):
        x: int

    assert Third.__tvm_ffi_type_info__.type_index == index and Third(4).x == 4
    assert _function._class_for_index(index) is Third
    with pytest.raises(ValueError, match="already registered"):

        @py_class(key)
        class Fourth(Base):
            x: int


def test_mixin_field_records_are_per_class():
    class Mixin:
        v: int = field(default=0, metadata={"tag": "orig"})

    @py_class(_key("MixA"))
    class A(Mixin, Object):
        pass

    @py_class(_key("MixB"))
    class B(Mixin, Object):
        pass

    fields(A)[0].metadata["tag"] = "changed"
    assert fields(B)[0].metadata == {"tag": "orig"}
    assert Mixin.__dict__["v"].metadata == {"tag": "orig"}


# ---------------------------------------------------------------------------------------------
# field markers


class Section:
    """A marker annotation: it declares no field."""


class Anchor:
    """A second marker."""


def test_field_markers_positions_owners_and_inheritance():
    class Mixin:
        m: int = 0
        after_m: Section

    @py_class(_key("MarkBase"))
    class Base(Object):
        __ffi_field_markers__ = (Section, Anchor)
        head: Section
        a: int
        tail: Anchor = "kept as a class attribute"

    @py_class(_key("MarkChild"))
    class Child(Mixin, Base):
        b: int
        end: Section

    base_markers = Base.__tvm_ffi_type_info__._decorator_args["field_markers"]
    assert base_markers == ((Section, Base, "head", 0), (Anchor, Base, "tail", 1))
    assert Child.__tvm_ffi_type_info__._decorator_args["field_markers"] == base_markers + (
        (Section, Mixin, "after_m", 2), (Section, Child, "end", 3))
    assert [f.name for f in fields(Child)] == ["a", "m", "b"]
    assert Base.tail == "kept as a class attribute"
    assert Child(a=1, m=2, b=3).b == 3  # the markers are no parameters


def test_field_markers_must_be_classes():
    key = _key("BadMarkers")
    with pytest.raises(TypeError, match="__ffi_field_markers__ must be a tuple or list"):

        @py_class(key)
        class Bad(Object):
            __ffi_field_markers__ = ("Section",)

    assert _function._type_key_to_index(key) is None  # refused before the type existed


# ---------------------------------------------------------------------------------------------
# type attributes


def test_structural_hooks_are_registered_and_inherited():
    @py_class(_key("Mod3"))
    class Mod3(Object):
        v: int

        def __s_equal__(self, other, compare):
            return self.v % 3 == other.v % 3

        def __s_hash__(self, seed, hash_fn):
            return self.v % 3

    @py_class(_key("Mod3Child"))
    class Child(Mod3):
        w: int = 0

    @py_class(_key("Mod3OptOut"))
    class OptOut(Mod3):
        __ffi_inherit_type_attrs__ = ()

    @py_class(_key("Mod3PastOptOut"))
    class PastOptOut(OptOut):  # (the opt-out list is inherited as a class attribute)
        __ffi_inherit_type_attrs__ = ("__s_equal__",)  # found on Mod3, above OptOut

    @py_class(_key("Mod3Dropped"))
    class Dropped(Mod3):
        __s_equal__ = None

    @py_class(_key("Mod3BelowDropped"))
    class BelowDropped(Dropped):  # None stops the search for descendants too
        pass

    assert tvm_ffi.structural_equal(Mod3(1), Mod3(4))
    assert tvm_ffi.structural_hash(Mod3(1)) == tvm_ffi.structural_hash(Mod3(7))
    assert tvm_ffi.structural_equal(Child(1, 5), Child(4, 6))  # the parent's hook decides
    assert _attr(Child, "__s_hash__") is not None
    assert not tvm_ffi.structural_equal(OptOut(1), OptOut(4))
    assert _attr(OptOut, "__s_equal__") is None
    assert tvm_ffi.structural_equal(PastOptOut(1), PastOptOut(4))
    assert _attr(PastOptOut, "__s_hash__") is None
    assert _attr(Dropped, "__s_equal__") is None and _attr(Dropped, "__s_hash__") is not None
    assert _attr(BelowDropped, "__s_equal__") is None


def test_serialization_hooks_are_inherited():
    @py_class(_key("Celsius"))
    class Celsius(Object):
        deg: int

        def __data_to_json__(self):
            return "%dC" % self.deg

        @staticmethod
        def __data_from_json__(data):
            return Room(int(data[:-1]))

    @py_class(_key("Room"))
    class Room(Celsius):
        pass

    text = tvm_ffi.serialization.to_json_graph_str(Room(21))
    assert "21C" in text
    back = tvm_ffi.serialization.from_json_graph_str(text)
    assert type(back) is Room and back.deg == 21


def test_type_attr_names_follow_the_mro():
    @py_class(_key("ExtBase"))
    class Base(Object):
        __ffi_type_attr_names__ = ("__ext_tag__",)
        __ext_tag__ = "base"

    @py_class(_key("ExtChild"))
    class Child(Base):
        __ext_tag__ = "child"  # a name a base lists registers for the child too

    @py_class(_key("ExtSilent"))
    class Silent(Base):
        pass  # listed, not defined here, not inherited: no entry

    assert _attr(Base, "__ext_tag__") == "base" and _attr(Child, "__ext_tag__") == "child"
    assert _attr(Silent, "__ext_tag__") is None


def test_malformed_type_attr_lists_and_classmethod_hooks_are_refused():
    key = _key("BadList")
    with pytest.raises(TypeError, match="__ffi_inherit_type_attrs__ must be a tuple or list"):

        @py_class(key)
        class BadList(Object):
            __ffi_inherit_type_attrs__ = "__s_equal__"

    assert _function._type_key_to_index(key) is None
    with pytest.raises(TypeError, match="__s_hash__.*@classmethod"):

        @py_class(_key("ClsHook"))
        class ClsHook(Object):
            @classmethod
            def __s_hash__(cls, seed, fn):
                return 0


def test_fields_resolved_hooks_wait_for_forward_references():
    seen = []

    @py_class(_key("FwdBase"))
    class Base(Object):
        @_on_fields
        def __ext__(info, own):
            seen.append((info.type_cls.__name__, [(f.name, f.type, f._ty_schema) for f in own]))

    seen.clear()

    @py_class(_key("Fwd"))
    class Fwd(Base):
        later: "NotDefinedYet"  # noqa: F821

    assert seen == []  # as upstream: the hooks see resolved fields only

    @py_class(_key("NotDefinedYet"))
    class NotDefinedYet(Object):
        pass

    key = NotDefinedYet.__tvm_ffi_type_info__.type_key
    assert seen == [("Fwd", [("later", NotDefinedYet, TypeSchema(key))])]


