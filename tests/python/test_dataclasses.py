"""tvm_ffi.dataclasses: c_class dunders from reflection, field(), KW_ONLY and the helpers.

Every test registers its own classes for the testing.* fixture types (c/testing/objects.c and
fixtures.c); the ``restore`` fixture puts the previous Python class of each type back, so
other test files keep theirs.
"""

import dataclasses as std_dataclasses
import inspect
from re import escape as re_escape
import sys
import typing

import pytest

import tvm_ffi
from conftest import needs_prompt_free
from tvm_ffi import _base, _loader
from tvm_ffi.dataclasses import (
    KW_ONLY, MISSING, FrozenInstanceError, asdict, astuple, c_class, field, fields, is_dataclass,
    replace,
)

PAIR = "testing.TestIntPair"  # a, b: read-only ints, no defaults, no creator (constructor only)
BASE = "testing.TestObjectBase"  # v_i64=10, v_f64=10.0 (read-only), v_str="hello"; creator
DERIVED = "testing.TestObjectDerived"  # BASE + required v_map, v_array


@pytest.fixture(autouse=True)
def restore():
    """Give every type its previously registered Python class back after the test."""
    from tvm_ffi import _typeinfo

    saved = dict(_base._TYPE_CLS)
    yield
    for tidx, cls in list(_base._TYPE_CLS.items()):
        if saved.get(tidx) is cls:
            continue
        _base._CLS_TYPE.pop(cls, None)
        if tidx in saved:
            _base._register_class(tidx, saved[tidx])
            _typeinfo._register_type_info(tidx, saved[tidx])
        else:
            _base._TYPE_CLS.pop(tidx, None)
            info = _base._TYPE_INFO.get(tidx)
            if info is not None:
                info.type_cls = None


def pair_class(**params):
    @c_class(PAIR, **params)
    class Pair(tvm_ffi.Object):
        pass

    return Pair


# ---------------------------------------------------------------------------------------------
# __init__ from reflection


def test_init_signature_and_defaults_from_reflection():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        pass

    # defaulted parameters show MISSING ("left out"), as upstream: the runtime fills them
    params = inspect.signature(Base.__init__).parameters
    assert list(params) == ["self", "v_i64", "v_f64", "v_str"]
    assert all(params[n].default is MISSING for n in ("v_i64", "v_f64", "v_str"))
    b = Base()
    assert (b.v_i64, b.v_f64, b.v_str) == (10, 10.0, "hello")
    b = Base(1, 2.5, v_str="x")
    assert (b.v_i64, b.v_f64, b.v_str) == (1, 2.5, "x")
    assert isinstance(b, Base) and type(tvm_ffi.get_global_func("testing.echo")(b)) is Base


def test_init_required_derived_fields_come_first():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        pass

    @c_class(DERIVED)
    class Derived(Base):
        pass

    params = list(inspect.signature(Derived.__init__).parameters)
    assert params == ["self", "v_map", "v_array", "v_i64", "v_f64", "v_str"]
    m, a = tvm_ffi.Map({"k": 1}), tvm_ffi.Array([1, 2])
    d = Derived(m, a, 5)
    assert d.v_map.same_as(m) and d.v_array.same_as(a)
    assert (d.v_i64, d.v_str) == (5, "hello")
    assert isinstance(d, Base)


def test_init_errors():
    @c_class(DERIVED)
    class Derived(tvm_ffi.Object):
        pass

    with pytest.raises(TypeError, match="v_array"):
        Derived(tvm_ffi.Map({}))
    with pytest.raises(TypeError, match="unexpected keyword"):
        Derived({}, [], nope=1)
    with pytest.raises(TypeError, match="positional"):
        Derived({}, [], 1, 2.0, "s", 99)
    with pytest.raises(TypeError):  # the runtime's setter checks the value type
        Derived({}, [], v_i64="not an int")


def test_init_through_constructor_when_no_creator():
    Pair = pair_class()
    assert list(inspect.signature(Pair.__init__).parameters) == ["self", "a", "b"]
    p = Pair(1, 2)
    assert (p.a, p.b) == (1, 2)
    with pytest.raises(TypeError):
        Pair(1)
    # a typed constructor takes no keywords: they reach it as KWARGS + pairs (as upstream)
    with pytest.raises(TypeError, match="Mismatched number of arguments"):
        Pair(1, b=2)


def test_class_body_defaults_override_and_factories_run_per_call():
    calls = []

    def make_str():
        calls.append(1)
        return "made%d" % len(calls)

    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_i64: int = 42
        v_str: str = field(default_factory=make_str)

    assert inspect.signature(Base.__init__).parameters["v_i64"].default is MISSING
    assert inspect.signature(Base.__init__).parameters["v_str"].default is MISSING
    assert Base().v_i64 == 42
    assert Base().v_str == "made2"
    assert Base(v_str="given").v_str == "given"
    assert len(calls) == 2  # not called when a value is given


def test_init_false_field_takes_class_body_default():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_str: str = field(default="fixed", init=False)

    assert "v_str" not in inspect.signature(Base.__init__).parameters
    assert Base(3).v_str == "fixed"
    with pytest.raises(TypeError):
        Base(v_str="no")


def test_subclass_inherits_class_body_defaults():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_i64: int = 7

    @c_class(DERIVED)
    class Derived(Base):
        pass

    assert Derived({}, []).v_i64 == 7
    assert fields(Derived)[0].default == 7


def test_custom_init_and_post_init():
    @c_class(PAIR)
    class Pair(tvm_ffi.Object):
        def __init__(self, a):
            self.__ffi_init__(a, a * 10)

    assert Pair(3).b == 30

    seen = []

    @c_class(BASE)
    class Base(tvm_ffi.Object):
        def __post_init__(self):
            seen.append(self.v_i64)

    Base(11)
    assert seen == [11]


def test_constructed_object_has_one_reference():
    use_count = tvm_ffi.get_global_func("testing.object_use_count")

    @c_class(BASE)
    class Base(tvm_ffi.Object):
        pass

    b = Base(v_str="a string longer than seven bytes")
    assert use_count(b) == 1
    assert b.v_str == "a string longer than seven bytes"


# ---------------------------------------------------------------------------------------------
# keyword-only


def test_kw_only_class_level():
    @c_class(BASE, kw_only=True)
    class Base(tvm_ffi.Object):
        pass

    params = inspect.signature(Base.__init__).parameters
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in ("v_i64", "v_str"))
    with pytest.raises(TypeError, match="positional"):
        Base(1)
    assert Base(v_i64=2).v_i64 == 2
    assert Base.__match_args__ == ()


def test_kw_only_marker_and_field_flag():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_i64: int
        _: KW_ONLY
        v_str: str = "k"

    params = inspect.signature(Base.__init__).parameters
    assert params["v_i64"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params["v_str"].kind is inspect.Parameter.KEYWORD_ONLY
    assert Base().v_i64 == 10  # an annotation without a value keeps the C++ default
    assert Base().v_str == "k"

    @c_class(BASE)
    class Base2(tvm_ffi.Object):
        v_f64: float = field(default=1.5, kw_only=True)

    assert inspect.signature(Base2.__init__).parameters["v_f64"].kind is \
        inspect.Parameter.KEYWORD_ONLY
    assert Base2.__match_args__ == ("v_i64", "v_str")
    assert field().kw_only is None  # unset: the class decides (upstream spells it None)


# ---------------------------------------------------------------------------------------------
# repr, eq, order, hash, frozen


def test_repr_from_runtime_and_field_repr_off():
    Pair = pair_class()
    assert repr(Pair(1, 2)) == "testing.TestIntPair(a=1, b=2)"

    @c_class(PAIR)
    class Hidden(tvm_ffi.Object):
        b: int = field(repr=False)

    assert repr(Hidden(1, 2)) == "testing.TestIntPair(a=1)"
    assert repr(Hidden.__new__(Hidden)) == "<Hidden>(chandle=None)"


def test_eq_default_off_keeps_identity_and_hash():
    Pair = pair_class()
    a, b = Pair(1, 2), Pair(1, 2)
    assert a != b and a == a
    assert hash(a) == a.__chandle__()


def test_eq_structural_and_unhashable_when_mutable():
    Pair = pair_class(eq=True)
    assert Pair(1, 2) == Pair(1, 2)
    assert not (Pair(1, 2) != Pair(1, 2))
    assert Pair(1, 2) != Pair(1, 3)
    assert Pair(1, 2).__eq__("x") is NotImplemented
    assert Pair.__hash__ is None
    with pytest.raises(TypeError):
        hash(Pair(1, 2))


def test_frozen_eq_gives_structural_hash():
    Pair = pair_class(eq=True, frozen=True)
    assert hash(Pair(1, 2)) == hash(Pair(1, 2))
    assert len({Pair(1, 2), Pair(1, 2), Pair(2, 1)}) == 2


def test_unsafe_hash_and_explicit_hash():
    Pair = pair_class(eq=True, unsafe_hash=True)
    assert hash(Pair(3, 4)) == hash(Pair(3, 4))
    with pytest.raises(TypeError, match="__hash__"):

        @c_class(PAIR, unsafe_hash=True)
        class Bad(tvm_ffi.Object):
            def __hash__(self):
                return 1

    with pytest.raises(TypeError, match="__lt__"):

        @c_class(PAIR, eq=True, order=True)
        class BadOrder(tvm_ffi.Object):
            def __lt__(self, other):
                return True

    # a refused class is not registered: values still come back as the last good class
    assert type(tvm_ffi.get_global_func("testing.echo")(Pair(1, 2))) is Pair

    @c_class(PAIR, eq=True)
    class Own(tvm_ffi.Object):
        def __hash__(self):
            return 7

    assert hash(Own(1, 2)) == 7


def test_compare_off_field_is_ignored_by_eq_and_hash():
    @c_class(PAIR, eq=True, frozen=True)
    class Pair(tvm_ffi.Object):
        b: int = field(compare=False)

    assert Pair(1, 2) == Pair(1, 99)
    assert Pair(1, 2) != Pair(2, 2)
    assert hash(Pair(1, 2)) == hash(Pair(1, 99))


def test_order():
    Pair = pair_class(eq=True, order=True)
    assert Pair(1, 2) < Pair(1, 3) <= Pair(1, 3)
    assert Pair(2, 0) > Pair(1, 9) >= Pair(1, 9)
    assert not (Pair(1, 2) < Pair(1, 2))
    with pytest.raises(TypeError):
        Pair(1, 2) < 3  # noqa: B015
    with pytest.raises(ValueError, match="eq must be true"):
        c_class(PAIR, order=True)

    @c_class(PAIR, eq=True, order=True)
    class FirstOnly(tvm_ffi.Object):
        b: int = field(compare=False)

    assert not (FirstOnly(1, 9) < FirstOnly(1, 0))
    assert FirstOnly(1, 9) <= FirstOnly(1, 0)
    assert FirstOnly(0, 9) < FirstOnly(1, 0)


def test_frozen():
    @c_class(BASE, frozen=True)
    class Base(tvm_ffi.Object):
        pass

    b = Base()
    with pytest.raises(FrozenInstanceError, match="v_i64"):
        b.v_i64 = 3
    with pytest.raises(AttributeError):
        del b.v_str
    with pytest.raises(AttributeError):
        b.not_a_field = 1
    assert issubclass(FrozenInstanceError, AttributeError)
    assert FrozenInstanceError is std_dataclasses.FrozenInstanceError
    assert b.v_i64 == 10
    Base.v_i64.set(b, 3)  # the escape hatch writes a frozen field
    assert b.v_i64 == 3
    assert Base.__dict__["v_i64"].fset is None

    # a non-frozen child of a frozen class: the parent's fields stay frozen, its own are not
    @c_class(DERIVED)
    class Thawed(Base):
        pass

    t = Thawed(v_map={}, v_array=[])
    t.v_array = [1]
    assert len(t.v_array) == 1
    with pytest.raises(FrozenInstanceError, match="v_i64"):
        t.v_i64 = 3


def test_mutable_fields_stay_writable():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        pass

    b = Base()
    b.v_i64 = 11
    b.v_str = "world"
    assert (b.v_i64, b.v_str) == (11, "world")
    with pytest.raises(AttributeError):
        b.v_f64 = 1.0  # read-only in C++
    with pytest.raises(TypeError):
        b.v_i64 = "hello"


def test_match_args():
    Pair = pair_class()
    assert Pair.__match_args__ == ("a", "b")
    assert "__match_args__" not in pair_class(match_args=False).__dict__
    if sys.version_info < (3, 10):
        return  # no match statement to try __match_args__ with (and this file must parse)
    ns = {"Pair": Pair}
    exec("match Pair(4, 5):\n    case Pair(a, b):\n        got = (a, b)\n", ns)  # noqa: S102
    assert ns["got"] == (4, 5)


# ---------------------------------------------------------------------------------------------
# helpers


def test_fields_and_is_dataclass():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_i64: int = field(default=3, doc="count", metadata={"unit": "items"})

    fs = fields(Base)
    assert [f.name for f in fs] == ["v_i64", "v_f64", "v_str"]
    assert fs[0].type is int and fs[0].doc == "count" and fs[0].metadata["unit"] == "items"
    assert fs[1].type is float and fs[1].default == 10.0  # the reflected schema, as a type
    assert fields(Base()) == fs
    assert Base.__tvm_ffi_type_info__.fields[0].dataclass_field is fs[0]
    assert is_dataclass(Base) and is_dataclass(Base())
    assert not is_dataclass(tvm_ffi.Array([1])) and not is_dataclass(3)
    with pytest.raises(TypeError, match="c_class or py_class"):
        fields(tvm_ffi.Array)


def test_asdict_astuple_recurse():
    Pair = pair_class()

    @c_class(DERIVED)
    class Derived(tvm_ffi.Object):
        pass

    d = Derived({"p": Pair(1, 2)}, [Pair(3, 4), 5])
    assert asdict(d) == {"v_i64": 10, "v_f64": 10.0, "v_str": "hello",
                         "v_map": {"p": {"a": 1, "b": 2}}, "v_array": [{"a": 3, "b": 4}, 5]}
    assert astuple(d) == (10, 10.0, "hello", {"p": (1, 2)}, [(3, 4), 5])
    assert asdict(Pair(1, 2), dict_factory=lambda kv: kv) == [("a", 1), ("b", 2)]
    with pytest.raises(TypeError):
        asdict(Pair)
    with pytest.raises(TypeError):
        astuple(tvm_ffi.Array([1]))


def test_replace():
    @c_class(BASE)
    class Base(tvm_ffi.Object):
        v_str: str = field(default="init-off", init=False)

    b = Base(1, 2.0)
    r = replace(b, v_i64=5)
    assert type(r) is Base and not r.same_as(b)
    assert (r.v_i64, r.v_f64, r.v_str) == (5, 2.0, "init-off")
    assert b.v_i64 == 1
    with pytest.raises(ValueError, match="init=False"):
        replace(b, v_str="x")
    with pytest.raises(TypeError, match="nope"):
        replace(b, nope=1)


# ---------------------------------------------------------------------------------------------
# decoration errors


def test_decoration_errors():
    with pytest.raises(TypeError, match="type_key"):
        c_class(3)
    with pytest.raises(ValueError, match="no.such.Type"):

        @c_class("no.such.Type")
        class A(tvm_ffi.Object):
            pass

    with pytest.raises(TypeError, match="tvm_ffi.Object"):

        @c_class(PAIR)
        class B:
            pass

    with pytest.raises(ValueError, match="not_a_field"):

        @c_class(PAIR)
        class C(tvm_ffi.Object):
            not_a_field: int

    with pytest.raises(ValueError, match="default_factory"):

        @c_class(BASE)
        class D(tvm_ffi.Object):
            v_str: list = []

    with pytest.raises(ValueError, match="both default and default_factory"):
        field(default=1, default_factory=int)
    with pytest.raises(TypeError, match="callable"):
        field(default_factory=3)


def test_classvar_and_plain_attributes_are_not_fields():
    @c_class(PAIR)
    class Pair(tvm_ffi.Object):
        scale: typing.ClassVar[int] = 3
        label = "plain"

    assert Pair.scale == 3 and Pair.label == "plain"
    assert [f.name for f in fields(Pair)] == ["a", "b"]


# ---------------------------------------------------------------------------------------------
# method and the top-level exports


def test_method_marker():
    from tvm_ffi.dataclasses import method

    @method
    def f(self):
        """doc of f"""

    assert f.__tvm_ffi_method__ == {"name": "f", "doc": "doc of f"}

    @method(name="g2", doc="other")
    def g(self):
        pass

    assert g.__tvm_ffi_method__ == {"name": "g2", "doc": "other"}
    s = method(staticmethod(lambda x: x))
    assert isinstance(s, staticmethod) and s.__func__.__tvm_ffi_method__["name"] == "<lambda>"
    with pytest.raises(TypeError):
        method(3)


def test_toplevel_exports():
    assert tvm_ffi.dataclasses.c_class is c_class
    assert tvm_ffi.method is tvm_ffi.dataclasses.method
    assert "dataclasses" in tvm_ffi.__all__ and "method" in tvm_ffi.__all__
    assert tvm_ffi.dataclasses.Object is tvm_ffi.Object


# ---------------------------------------------------------------------------------------------
# the reflection-flag fixtures (c/testing/fixtures.c): InitOff, KwOnly, ReprOff, CompareOff,
# HashOff, defaults, inheritance, generated / positional / no constructor


def cxx(key, base=tvm_ffi.Object, **params):
    return c_class("testing." + key, **params)(type(key, (base,), {}))


def test_cxx_class_custom_init_and_derived_defaults():
    @c_class("testing.TestCxxClassBase")
    class Base(tvm_ffi.Object):
        not_field: typing.ClassVar[int] = 2

        def __init__(self, v_i64, v_i32):
            self.__ffi_init__(v_i64 + 1, v_i32 + 2)

    @c_class("testing.TestCxxClassDerived")
    class Derived(Base):
        v_f32: float = 8

    @c_class("testing.TestCxxClassDerivedDerived")
    class DerivedDerived(Derived):
        v_str: str = field(default_factory=lambda: "py-default")

    b = Base(123, 456)
    assert (b.v_i64, b.v_i32) == (124, 458)
    assert repr(b) == "testing.TestCxxClassBase"  # both fields are ReprOff in C++
    d = Derived(v_i64=123, v_i32=456, v_f64=4.0)
    assert (d.v_i64, d.v_i32, d.v_f64, d.v_f32) == (123, 456, 4.0, 8.0)
    # required fields first: v_i64, v_i32, v_f64, v_bool; then v_f32, v_str
    dd = DerivedDerived(123, 456, 4, True)
    assert (dd.v_f64, dd.v_bool, dd.v_f32, dd.v_str) == (4.0, True, 8.0, "py-default")
    assert isinstance(dd, Derived) and isinstance(dd, Base)


def test_cxx_init_off_fields():
    @c_class("testing.TestCxxInitSubset")
    class InitSubset(tvm_ffi.Object):
        required_field: int
        note: str = field(default_factory=lambda: "py-default", init=False)

    assert list(inspect.signature(InitSubset.__init__).parameters) == ["self", "required_field"]
    obj = InitSubset(7)
    assert (obj.required_field, obj.optional_field, obj.note) == (7, -1, "py-default")
    obj.optional_field = 11
    assert obj.optional_field == 11
    with pytest.raises(TypeError, match="optional_field"):
        InitSubset(1, optional_field=2)
    # a C++ InitOff field without any default keeps what the creator stored
    AllOff = cxx("TestCxxAutoInitAllInitOff")
    assert str(inspect.signature(AllOff.__init__)) == "(self)"
    o = AllOff()
    assert (o.x, o.y, o.z) == (7, 9, 1234)


def test_cxx_kw_only_fields():
    KwOnly = cxx("TestCxxKwOnly")
    params = inspect.signature(KwOnly.__init__).parameters
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in "xyzw")
    assert params["w"].default is MISSING
    o = KwOnly(x=1, y=2, z=3)
    assert (o.x, o.y, o.z, o.w) == (1, 2, 3, 100)
    with pytest.raises(TypeError, match="positional"):
        KwOnly(1, 2, 3, 4)
    with pytest.raises(TypeError, match="'z'"):
        KwOnly(x=1, y=2)
    # an explicit field(kw_only=False) wins over the C++ flag
    @c_class("testing.TestCxxKwOnly")
    class Positional(tvm_ffi.Object):
        x: int = field(kw_only=False)

    assert Positional(5, y=1, z=2).x == 5


def test_cxx_auto_init_mixed_flags_and_inheritance():
    Auto = cxx("TestCxxAutoInit")
    params = inspect.signature(Auto.__init__).parameters
    assert list(params) == ["self", "a", "d", "c"] and params["d"].default is MISSING
    o = Auto(1, c=3)
    assert (o.a, o.b, o.c, o.d) == (1, 42, 3, 99)
    Parent = cxx("TestCxxAutoInitParent")
    Child = cxx("TestCxxAutoInitChild", Parent)
    params = inspect.signature(Child.__init__).parameters
    assert list(params) == ["self", "parent_required", "child_required", "parent_default",
                            "child_kw_only"] and params["parent_default"].default is MISSING
    c = Child(1, 2, child_kw_only=4)
    assert (c.parent_required, c.child_required, c.parent_default, c.child_kw_only) == (1, 2, 5, 4)
    assert isinstance(c, Parent)


def test_cxx_construction_paths():
    # no constructor at all: built field by field (ffi.MakeObjectFromPackedArgs)
    NoInit = cxx("TestCxxNoAutoInit")
    o = NoInit(1, y=2)
    assert (o.x, o.y) == (1, 2)
    with pytest.raises(TypeError):
        NoInit(1)
    # no creator, positional constructor
    NonCopyable = cxx("TestNonCopyable")
    assert NonCopyable(9).value == 9
    # an object field with a None default
    Holder = cxx("TestObjectPtrHolder")
    base = tvm_ffi.get_global_func("ffi.MakeObjectFromPackedArgs")("testing.TestObjectBase")
    h = Holder(base)
    assert h.value.same_as(base) and h.optional_value is None


def test_cxx_compare_off_and_hash_off():
    Compare = cxx("TestCompare", eq=True, order=True, frozen=True)
    assert Compare(1, "a", 5) == Compare(1, "a", 6)  # ignored_field is CompareOff
    assert Compare(1, "a", 5) != Compare(1, "b", 5)
    assert Compare(1, "a", 9) < Compare(1, "b", 0)
    assert hash(Compare(1, "a", 5)) == hash(Compare(1, "a", 6))
    Hash = cxx("TestHash", eq=True, frozen=True)
    assert Hash(1, "a", 5) != Hash(1, "a", 6)  # HashOff still compares
    assert hash(Hash(1, "a", 5)) == hash(Hash(1, "a", 6))
    assert hash(Hash(1, "a", 5)) != hash(Hash(2, "a", 5))


def test_cxx_frozen_hides_writable_fields():
    Frozen = cxx("TestFrozenCxx", frozen=True)
    o = Frozen(1, "t")
    with pytest.raises(FrozenInstanceError):
        o.value = 2
    assert o.value == 1
    r = replace(o, tag="u")
    assert (r.value, r.tag) == (1, "u")
    assert asdict(r) == {"value": 1, "tag": "u"}


# ---------------------------------------------------------------------------------------------
# py_class: new FFI types from Python


def new_key(name):
    """A fresh type key: type keys are process-wide and cannot be redefined.

    Under ``testing.``: docs/python.md §25.8 expects every registered key outside the POD
    names to start with ``ffi.`` or ``testing.``, also in a session that ran these tests.
    """
    import uuid

    return "testing.py_class.%s_%s" % (name, uuid.uuid4().hex[:8])


def test_py_class_fields_defaults_and_flags():
    from tvm_ffi import _typeinfo
    from tvm_ffi.dataclasses import py_class

    made = []
    key = new_key("Point")

    @py_class(key)
    class Point(tvm_ffi.Object):
        """A point."""

        x: int
        y: float = 1.5
        tag: str = field(default_factory=lambda: made.append(1) or "made", repr=False)
        hidden: int = field(default=0, init=False)
        _: KW_ONLY
        label: typing.Optional[str] = None

    params = inspect.signature(Point.__init__).parameters
    assert list(params) == ["self", "x", "y", "tag", "label"]
    assert params["label"].kind is inspect.Parameter.KEYWORD_ONLY
    assert all(params[n].default is MISSING for n in ("y", "tag", "label"))
    p = Point(3)
    assert (p.x, p.y, p.tag, p.hidden, p.label) == (3, 1.5, "made", 0, None)
    assert Point(4, label="l").label == "l"
    assert len(made) == 2  # the runtime calls the factory once per object
    assert repr(p) == "%s(x=3, y=1.5, hidden=0, label=None)" % key
    info = _typeinfo._lookup_or_register_type_info_from_type_key(key)
    flags = {f.name: f for f in info.fields}
    assert not flags["hidden"].c_init and not flags["tag"].c_repr and flags["label"].c_kw_only
    assert info.doc == "A point."
    # the type is usable from the runtime side: built by reflection, echoed as this class
    q = tvm_ffi.get_global_func("ffi.MakeObjectFromPackedArgs")(key, "x", 9)
    assert type(q) is Point and (q.x, q.y) == (9, 1.5)
    echo = tvm_ffi.get_global_func("testing.echo")
    assert echo(p).same_as(p) and type(echo(p)) is Point


def test_py_class_setter_checks_annotations_for_every_writer():
    from tvm_ffi.dataclasses import py_class

    @py_class(new_key("Typed"))
    class Typed(tvm_ffi.Object):
        i: int
        f: float = 0.0
        s: str = ""
        o: typing.Optional[tvm_ffi.Array] = None
        anything: typing.Any = None

    t = Typed(1, 2)
    assert type(t.f) is float and t.f == 2.0  # ints widen to float
    t.anything = {"k": [1]}
    assert t.anything["k"][0] == 1
    t.o = [1, 2]
    assert isinstance(t.o, tvm_ffi.Array)
    with pytest.raises(TypeError, match="field 'i'.*expected int, got str"):
        t.i = "x"
    with pytest.raises(TypeError, match="expected str"):
        Typed(1, s=3)
    with pytest.raises(TypeError, match="field 'o'"):
        t.o = 5
    make = tvm_ffi.get_global_func("ffi.MakeObjectFromPackedArgs")
    with pytest.raises(TypeError, match="expected int"):
        make(type(t).__tvm_ffi_type_info__.type_key, "i", 1.5)
    assert t.i == 1


@pytest.mark.skipif(not _loader.API_MODE, reason="the compiled accessors are API mode's")
def test_py_class_field_accessors_are_compiled_builtins():
    from tvm_ffi.dataclasses import py_class

    @py_class(new_key("Compiled"))
    class Compiled(tvm_ffi.Object):
        i: int
        leaf: typing.Optional[tvm_ffi.Object] = None

    prop = Compiled.__dict__["i"]
    # both accessors are C builtins: no Python frame, ctypes or converter call per assignment
    assert type(prop.fget).__name__ == type(prop.fset).__name__ == "builtin_function_or_method"
    c = Compiled(1)
    prop.fset(c, True)  # a bool is an int here, as the annotation's conversion says
    assert c.i == 1 and type(c.i) is int
    with pytest.raises(TypeError, match="doesn't apply to a 'ffi.Array' object"):
        prop.fset(tvm_ffi.Array([1]), 2)
    with pytest.raises(TypeError, match="doesn't apply to a 'int' object"):
        prop.fset(3, 2)
    c.leaf = tvm_ffi.Array([1])
    assert list(c.leaf) == [1]
    c.leaf = None
    assert c.leaf is None


def test_py_class_methods_are_reflected():
    from tvm_ffi import _typeinfo
    from tvm_ffi.dataclasses import method, py_class

    key = new_key("Counter")

    @py_class(key)
    class Counter(tvm_ffi.Object):
        n: int = 0

        @method
        def bump(self, k):
            """Add k."""
            self.n = self.n + k
            return self.n

        @method
        @staticmethod
        def twice(v):
            return 2 * v

        def plain(self):
            return "not reflected"

    c = Counter()
    assert c.bump(2) == 2 and c.plain() == "not reflected"
    methods = {m.name: m for m in _typeinfo._lookup_or_register_type_info_from_type_key(key).methods}
    assert set(methods) == {"bump", "twice"}
    assert methods["bump"].doc == "Add k." and methods["twice"].is_static
    assert methods["bump"].func(c, 5) == 7 and c.n == 7  # called through the FFI
    assert methods["twice"].func(21) == 42


def test_py_class_inheritance_and_dunders():
    from tvm_ffi.dataclasses import py_class

    @py_class(new_key("Base"), eq=True, order=True, frozen=True)
    class Base(tvm_ffi.Object):
        a: int
        b: str = "b"

    @py_class(new_key("Child"), eq=True, order=True, frozen=True)
    class Child(Base):
        c: typing.Optional[Base] = None

    inner = Base(1)
    ch = Child(2, "x", inner)
    assert isinstance(ch, Base) and (ch.a, ch.b) == (2, "x") and ch.c.same_as(inner)
    assert Child(1, c=Base(1)) == Child(1, c=Base(1))
    assert Base(1) < Base(2) and hash(Base(1)) == hash(Base(1))
    with pytest.raises(FrozenInstanceError):
        ch.a = 3
    assert replace(ch, a=5).a == 5
    copy = tvm_ffi.get_global_func("ffi.DeepCopy")(ch)
    assert copy == ch and not copy.same_as(ch) and not copy.c.same_as(inner)
    with pytest.raises(TypeError, match="expected"):
        Child(1, c=tvm_ffi.Array([]))


@needs_prompt_free
def test_py_class_object_fields_balance_references():
    from tvm_ffi.dataclasses import py_class

    use_count = tvm_ffi.get_global_func("testing.object_use_count")

    @py_class(new_key("Holder"))
    class Holder(tvm_ffi.Object):
        value: typing.Any = None

    arr = tvm_ffi.Array([1, 2, 3])
    h = Holder(arr)
    assert use_count(arr) == 2 and use_count(h) == 1
    h.value = None
    assert use_count(arr) == 1
    h.value = arr
    del h
    assert use_count(arr) == 1


def test_py_class_forms_and_errors():
    from tvm_ffi.dataclasses import py_class

    class Plain:  # not an Object subclass: refused, as upstream
        v: int = 1

    with pytest.raises(TypeError, match="must inherit from tvm_ffi.Object"):
        py_class(new_key("Plain"))(Plain)

    class Bare(tvm_ffi.Object):
        v: int = 1

    # the default key is <module>.<qualname>; keep it under testing. and unique (docs/python.md §25.8)
    unique = new_key("Bare")
    Bare.__module__, _, Bare.__qualname__ = unique.rpartition(".")
    Bare = py_class(Bare)  # the bare decorator form
    assert issubclass(Bare, tvm_ffi.Object) and Bare().v == 1
    assert type(Bare()).__tvm_ffi_type_info__.type_key == unique
    key = new_key("Once")
    py_class(key)(type("Once", (tvm_ffi.Object,), {"__annotations__": {"v": int}}))
    with pytest.raises(ValueError, match="already registered"):
        py_class(key)(type("Once", (tvm_ffi.Object,), {}))
    with pytest.raises(TypeError, match="no metadata"):  # (a reflected C++ type is fine)

        @py_class(new_key("FromArray"))
        class FromArray(tvm_ffi.Array):
            pass

    with pytest.raises(TypeError, match="type_key"):
        py_class(3)
    # a default the annotation refuses fails each construction that uses it, as upstream's
    # does; an explicit value still works
    bad = py_class(new_key("BadDefault"))(
        type("BadDefault", (tvm_ffi.Object,), {"__annotations__": {"v": int}, "v": "text"}))
    with pytest.raises(TypeError, match="(?s)default for field 'v'.*expected int"):
        bad()
    assert bad(3).v == 3
    parent = py_class(new_key("P"))(type("P", (tvm_ffi.Object,), {"__annotations__": {"v": int}}))
    with pytest.raises(TypeError, match="already defined by a parent"):
        py_class(new_key("C"))(type("C", (parent,), {"__annotations__": {"v": int}}))
    # a frozen child of a non-frozen class freezes its own fields only
    child = py_class(new_key("Frozen"), frozen=True)(
        type("Frozen", (parent,), {"__annotations__": {"w": int}}))
    c = child(1, 2)
    c.v = 5
    with pytest.raises(FrozenInstanceError, match="'w'"):
        c.w = 5
    assert (c.v, c.w) == (5, 2)
    with pytest.raises(ValueError, match="order=True requires eq=True"):
        py_class(new_key("x"), order=True)


def test_fields_named_like_python_keywords():
    from tvm_ffi.dataclasses import py_class

    # `from` and `in` cannot be parameters of a def: __init__ binds them by hand
    T = py_class(new_key("Kw"))(
        type("Kw", (tvm_ffi.Object,), {"__annotations__": {"from": int, "in": int}, "in": 5}))
    o = T(1)
    assert (getattr(o, "from"), getattr(o, "in")) == (1, 5)
    o = T(**{"from": 2, "in": 3})
    assert (getattr(o, "from"), getattr(o, "in")) == (2, 3)
    with pytest.raises(TypeError, match="missing required argument: 'from'"):
        T()
    with pytest.raises(TypeError, match="positional"):
        T(1, 2, 3)
    with pytest.raises(TypeError, match="multiple values"):
        T(1, **{"from": 2})
    with pytest.raises(TypeError, match="unexpected keyword"):
        T(1, nope=1)


def test_generated_init_errors_are_worded_as_upstream():
    from tvm_ffi.dataclasses import field, py_class

    key = new_key("InitErr")

    @py_class(key)
    class T(tvm_ffi.Object):
        a: int
        b: int = 2
        c: int = field(kw_only=True, default=3)
        d: int = field(kw_only=True)

    where = re_escape(key + ".__ffi_init__()")
    for args, kwargs, text in [
        ((1, 2, 3), {"e": 1}, "takes at most 2 positional argument(s), but 3 were given"),
        ((), {"e": 1}, "got an unexpected keyword argument 'e'"),
        ((1,), {"a": 1, "d": 2}, "got multiple values for argument 'a'"),
        ((), {"d": 1}, "missing required argument: 'a'"),
        ((1,), {}, "missing required keyword-only argument: 'd'"),
    ]:
        with pytest.raises(TypeError, match="^" + where + " " + re_escape(text) + "$"):
            T(*args, **kwargs)
    assert str(inspect.signature(T)).startswith("(a, b=")
    assert (T(1, d=4).b, T(1, d=4).c) == (2, 3)


def test_field_named_self():
    from tvm_ffi.dataclasses import py_class

    T = py_class(new_key("SelfField"))(
        type("SelfField", (tvm_ffi.Object,), {"__annotations__": {"self": int, "x": int}}))
    assert (T(1, 2).self, T(self=3, x=4).self) == (1, 3)
    raw = tvm_ffi.Object.__new__(T)
    T.__ffi_init__(raw, self=7, x=8)
    assert (raw.self, raw.x) == (7, 8)


def test_only_hooks_and_marked_methods_are_registered():
    from tvm_ffi.dataclasses import py_class
    from tvm_ffi.dataclasses.py_class import _collect_py_methods

    @py_class(new_key("Allow"))
    class Allow(tvm_ffi.Object):
        x: int

        def __ffi_shallow_copy__(self):
            return None

        def __ffi_custom_op__(self, y):
            return self.x + y

        def __ffi_repr__(self, fn_repr):
            return "allow"

        @tvm_ffi.method
        def plus(self, y: int) -> int:
            return self.x + y

        def helper(self):
            return 0

    names = {name for name, _, _ in _collect_py_methods(Allow)}
    assert names == {"__ffi_repr__", "plus"}
    assert {m.name for m in Allow.__tvm_ffi_type_info__.methods} == {"plus"}
    assert repr(Allow(1)) == "allow" and Allow(2).plus(3) == 5

    @py_class(new_key("Plain"))
    class Plain(tvm_ffi.Object):
        x: int

        def __ffi_custom_op__(self, y):
            return y

    assert _collect_py_methods(Plain) is None


def test_string_annotations_are_evaluated():
    from tvm_ffi.dataclasses import is_dataclass, py_class

    # what `from __future__ import annotations` produces
    S = py_class(new_key("Str"))(type("S", (tvm_ffi.Object,), {
        "__annotations__": {"a": "int", "n": "typing.ClassVar[int]", "late": "NotYetDefined"},
        "n": 3, "late": None, "__module__": __name__}))
    # a name that is not defined yet: the fields wait for it (as upstream), none registered
    assert S.__tvm_ffi_type_info__.fields is None
    assert is_dataclass(S) and fields(S) == ()
    assert S.late is None  # (the class body stays as it is meanwhile)
    for _ in range(2):  # building one needs the name by then; the class keeps waiting
        with pytest.raises(TypeError, match=re_escape(
                "Cannot instantiate S: unresolved forward references: "
                "[\"late: NotYetDefined (name 'NotYetDefined' is not defined)\"]")):
            S(1)
    globals()["NotYetDefined"] = float
    try:
        s = S(1, 2)
    finally:
        del globals()["NotYetDefined"]
    assert [(f.name, f.type) for f in fields(S)] == [("a", int), ("late", float)]
    assert s.late == 2.0 and S(3, 4.0).a == 3  # resolved once is enough
    with pytest.raises(TypeError, match="expected int"):
        s.a = "x"
    with pytest.raises(TypeError):
        s.late = "x"  # the field has the type the name gave
    assert S.n == 3 and S.late is not None  # (the field's descriptor now)


_PICKLED = []  # a module-level py_class (pickle stores the class by its qualified name)


def _pickled_class():
    if not _PICKLED:
        from tvm_ffi.dataclasses import py_class

        global Pickled

        @py_class(new_key("Pickled"))
        class Pickled(tvm_ffi.Object):
            x: int
            tag: str = "a"

        _PICKLED.append(Pickled)
    return _PICKLED[0]


def test_py_class_objects_pickle_and_deepcopy():
    """py_class types have no C creator, only __ffi_new__: the JSON graph (pickle) and
    ffi.DeepCopy rebuild them through it, like ffi.MakeObjectFromPackedArgs."""
    import copy
    import pickle

    cls = _pickled_class()
    p = cls(3, "q")
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is cls and (q.x, q.tag) == (3, "q") and not q.same_as(p)
    d = copy.deepcopy(p)
    assert type(d) is cls and (d.x, d.tag) == (3, "q") and not d.same_as(p)


# ---------------------------------------------------------------------------------------------
# __copy__ / __deepcopy__ / __replace__ (the C++ copy constructor is __ffi_shallow_copy__)
# tvm_ffi.testing is imported at module level: the restore fixture would otherwise drop the
# classes it registers during the first test that imports it

from tvm_ffi import testing  # noqa: E402


@needs_prompt_free
def test_copy_is_shallow():
    import copy

    p = testing.TestIntPair(1, 2)
    q = copy.copy(p)
    assert type(q) is testing.TestIntPair and not q.same_as(p) and (q.a, q.b) == (1, 2)
    d = testing.TestObjectDerived(v_i64=1, v_str="s" * 40, v_map={"k": [1]}, v_array=[p])
    c = copy.copy(d)
    assert type(c) is testing.TestObjectDerived and not c.same_as(d)
    assert c.v_map.same_as(d.v_map) and c.v_array.same_as(d.v_array)
    assert c.v_array[0].same_as(p) and c.v_str == d.v_str and c.v_f64 == 10.0
    c.v_i64 = 7  # the copy has its own storage
    assert (c.v_i64, d.v_i64) == (7, 1)
    del c, d
    assert testing.object_use_count(p) == 1  # the copy's field references were released


def test_copy_schema_all_types():
    import copy

    s = testing._SchemaAllTypes.make_with(3, 1.5, "x")
    s.v_arr_int = [1, 2]
    c = copy.copy(s)
    assert type(c) is testing._SchemaAllTypes and not c.same_as(s)
    assert (c.v_int, c.v_float, c.v_string) == (3, 1.5, "x") and c.v_arr_int.same_as(s.v_arr_int)
    d = copy.deepcopy(s)
    assert list(d.v_arr_int) == [1, 2] and not d.v_arr_int.same_as(s.v_arr_int)


def test_deepcopy_is_deep():
    import copy

    p = testing.TestIntPair(1, 2)
    d = testing.TestObjectDerived(v_i64=1, v_str="t", v_map={"k": p}, v_array=[p, p])
    c = copy.deepcopy(d)
    assert type(c) is testing.TestObjectDerived and not c.same_as(d)
    assert not c.v_map.same_as(d.v_map) and not c.v_array.same_as(d.v_array)
    assert not c.v_array[0].same_as(p) and (c.v_array[0].a, c.v_array[0].b) == (1, 2)
    assert c.v_array[0].same_as(c.v_array[1]) and c.v_map["k"].same_as(c.v_array[0])  # sharing kept


def test_non_copyable_type():
    import copy

    o = testing.TestNonCopyable(5)
    with pytest.raises(TypeError, match="`TestNonCopyable` does not support copy"):
        copy.copy(o)
    with pytest.raises(TypeError, match="does not support copy"):
        o.__replace__(value=6)
    with pytest.raises(RuntimeError, match="TestNonCopyable.*not copy-constructible"):
        copy.deepcopy(o)  # as upstream: a RuntimeError from ffi.DeepCopy
    assert o.value == 5


def test_replace_dunder():
    import copy
    import sys

    p = testing.TestIntPair(1, 2)
    r = p.__replace__(a=7)  # read-only fields, positional-only __init__: copy then store
    assert type(r) is testing.TestIntPair and (r.a, r.b) == (7, 2) and (p.a, p.b) == (1, 2)
    assert (replace(p, b=9).a, replace(p, b=9).b) == (1, 9)
    assert not p.__replace__().same_as(p)
    with pytest.raises(TypeError, match="zz"):
        p.__replace__(zz=1)
    with pytest.raises(TypeError, match="expected `int`"):
        p.__replace__(a="x")
    if sys.version_info >= (3, 13):
        assert copy.replace(p, b=4).b == 4


def test_copy_dunders_from_class_body_are_kept():
    import copy

    @c_class(PAIR)
    class Pair(tvm_ffi.Object):
        def __copy__(self):
            return "mine"

    p = Pair(1, 2)
    assert copy.copy(p) == "mine"
    assert copy.deepcopy(p).a == 1 and Pair.__replace__ is not None


def test_py_class_copy():
    import copy

    from tvm_ffi.dataclasses import py_class

    @py_class(new_key("Copied"))
    class Copied(tvm_ffi.Object):
        x: int
        tag: str = "a"

    cls = Copied
    p = cls(3, "q")
    c = copy.copy(p)
    assert type(c) is cls and (c.x, c.tag) == (3, "q") and not c.same_as(p)
