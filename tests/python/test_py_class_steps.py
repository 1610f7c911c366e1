"""py_class in steps (core._register_py_class, TypeInfo._register_fields,
registry._add_class_attrs, _dunder._install_dataclass_dunders), init_property, and a class
body's own __init__ (docs/guide-dataclasses.md §1)."""

import itertools

import pytest

import tvm_ffi
import tvm_ffi.testing
from tvm_ffi import core
from tvm_ffi._dunder import _install_dataclass_dunders
from tvm_ffi.core import MISSING, Object, TypeSchema
from tvm_ffi.dataclasses import Field, field, fields, init_property, py_class
from tvm_ffi.registry import _add_class_attrs

_keys = itertools.count()


def _key(name):
    return "testing.py_class_steps.%s_%d" % (name, next(_keys))


def _build(name, flds, eq=False):
    parent = core._type_cls_to_type_info(Object)
    cls = type(name, (Object,), {"__slots__": ()})
    info = core._register_py_class(parent, _key(name), cls)
    assert info.fields is None and info.parent_type_info is parent
    info._register_fields(flds)
    cls.__tvm_ffi_type_info__ = info
    _add_class_attrs(cls, info)
    _install_dataclass_dunders(cls, init=True, repr=True, eq=eq, order=False, unsafe_hash=False)
    return cls


def test_type_from_field_records():
    Point = _build("Point", [Field(name="x", _ty_schema=TypeSchema("int")),
                             Field(name="y", _ty_schema=TypeSchema("float"), default=0.5,
                                   compare=True)], eq=True)
    p = Point(x=True)
    assert p.x == 1 and type(p.x) is int and p.y == 0.5
    assert [f.name for f in fields(Point)] == ["x", "y"]
    assert Point(x=1, y=2.0) == Point(x=3, y=2.0)  # x: raw Field records compare=False
    with pytest.raises(TypeError):
        p.x = "no"
    assert "x=1" in repr(p)


def test_registration_errors_leave_the_first_type():
    parent = core._type_cls_to_type_info(Object)
    key = _key("Dup")
    first = type("Dup", (Object,), {"__slots__": ()})
    core._register_py_class(parent, key, first)
    with pytest.raises(ValueError, match="already registered"):
        core._register_py_class(parent, key, type("Dup2", (Object,), {"__slots__": ()}))
    assert core._lookup_or_register_type_info_from_type_key(key).type_cls is first
    sized_by_nothing = core._type_cls_to_type_info(tvm_ffi.Array)  # no metadata: size unknown
    with pytest.raises(TypeError, match="cannot extend `ffi.Array`"):
        core._register_py_class(sized_by_nothing, _key("Bad"), type("Bad", (Object,), {}))
    # a child laid out before its parent's fields would overlap them (the apache package
    # places it at offset 24)
    child = core._register_py_class(core._lookup_or_register_type_info_from_type_key(key),
                                    _key("DupChild"), type("DupChild", (first,), {}))
    with pytest.raises(RuntimeError, match="register the fields of `%s` before" % key):
        child._register_fields([Field(name="y", _ty_schema=TypeSchema("int"))])
    assert child.fields is None


def test_init_property_computed_once_and_stored():
    calls = []

    @py_class(_key("Base"))
    class Base(Object):
        x: int = 0

        @init_property
        def doubled(self) -> int:
            calls.append("base")
            return self.x * 2

    @py_class(_key("Child"))
    class Child(Base):
        @init_property
        def doubled(self) -> int:  # redefines how the parent's field is computed
            calls.append("child")
            return self.x * 3

    assert Base(x=2).doubled == 4 and Child(x=2).doubled == 6
    assert calls == ["base", "child"]
    info = Base.__tvm_ffi_type_info__
    f = next(f for f in info.fields if f.name == "doubled")
    assert not f.c_init and f.c_structural_eq == "ignore"


def test_own_init_assigns_fields_and_super_init_is_a_no_op():
    @py_class(_key("Root"))
    class Root(Object):
        pass

    @py_class(_key("Leaf"), init=False)
    class Leaf(Root):
        a: int
        b: str = field(default="b")

        def __init__(self, a):
            super().__init__()
            self.a = a

    leaf = Leaf(7)
    assert leaf.a == 7 and type(leaf) is Leaf
    with pytest.raises(TypeError):
        leaf.a = "seven"


def test_convert_type_schema_attribute_widens_input_repr():
    key = _key("ExprLike")

    @py_class(key)
    class ExprLike(Object):
        __ffi_convert_type_schema__ = '{"type":"Union","args":[{"type":"int"},{"type":"%s"}]}' % key

    s = TypeSchema.from_annotation(ExprLike)
    assert s.output_repr() == key and s.input_repr() == "int | " + key
    assert MISSING is core.MISSING


def test_field_setters_convert_by_the_annotation():
    @py_class(_key("Typed"))
    class Typed(Object):
        rows: list[list[int]]
        dev: tvm_ffi.Device
        pair: tvm_ffi.testing.TestIntPair

    t = Typed(rows=[[True, 2]], dev="cuda:1", pair=tvm_ffi.testing.TestIntPair(1, 2))
    assert [list(r) for r in t.rows] == [[1, 2]] and type(t.rows[0][0]) is int
    assert t.dev == tvm_ffi.device("cuda", 1)
    with pytest.raises(TypeError, match=r"element \[0\]"):
        t.rows = [["x"]]
    with pytest.raises(TypeError):
        t.pair = None  # not Optional
    with pytest.raises(TypeError, match="field `x`"):
        @py_class(_key("Untyped"))
        class Untyped(Object):
            x: object


def test_fields_of_plain_mixin_bases_are_collected():
    from tvm_ffi.dataclasses import KW_ONLY

    @py_class(_key("Node"))
    class Node(Object):
        x: int

    class Mixin(Node):  # a plain class: its annotations become fields of the py_class below
        a: int
        b: int = field(default=5)
        _: KW_ONLY
        c: int

    @py_class(_key("Leaf"))
    class Leaf(Mixin):
        b: str = "two"  # redeclared: keeps the mixin's position
        d: int = 0

    leaf = Leaf(1, 2, c=3)
    assert [f.name for f in fields(Leaf)] == ["x", "a", "b", "c", "d"]
    assert (leaf.x, leaf.a, leaf.b, leaf.c, leaf.d) == (1, 2, "two", 3, 0)
    assert [f.name for f in Leaf.__tvm_ffi_type_info__.fields] == ["a", "b", "c", "d"]
    with pytest.raises(TypeError):
        Leaf(1, 2, "b", 3)  # c and d follow the mixin's KW_ONLY marker
    assert "a" in Mixin.__annotations__ and "b" in Mixin.__dict__  # the mixin is untouched


def test_type_attr_names_register_body_values_and_pass_selected_ones_down():
    from tvm_ffi.core import _lookup_type_attr

    @py_class(_key("AttrBase"))
    class AttrBase(Object):
        __ffi_type_attr_names__ = ("__meta__", "__hook__")
        __ffi_inherit_type_attrs__ = ("__hook__",)
        __meta__ = ("tag", 1)

        def __hook__(self):
            return 11

    @py_class(_key("AttrKid"))
    class AttrKid(AttrBase):
        v: int = 0

    @py_class(_key("AttrNone"))
    class AttrNone(AttrBase):
        __hook__ = None

    base, kid = AttrBase.__tvm_ffi_type_info__, AttrKid.__tvm_ffi_type_info__
    assert tuple(_lookup_type_attr(base.type_index, "__meta__")) == ("tag", 1)
    assert "__meta__" not in [f.name for f in base.fields]
    assert _lookup_type_attr(kid.type_index, "__meta__") is None  # not listed for inheritance
    assert _lookup_type_attr(kid.type_index, "__hook__")(AttrKid()) == 11
    assert _lookup_type_attr(AttrNone.__tvm_ffi_type_info__.type_index, "__hook__") is None
