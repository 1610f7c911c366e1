"""tvm_ffi.dataclasses.Enum / IntEnum / StrEnum: members are FFI singletons in the type's
ffi.EnumState, shared with C (the testing library's enum fixtures)."""

import copy
import gc
import itertools
import json
from typing import ClassVar

import pytest

import tvm_ffi
import tvm_ffi.testing as T
from tvm_ffi import Object, core
from tvm_ffi.dataclasses import (Enum, EnumAttrMap, EnumState, IntEnum, StrEnum, auto, entry,
                                 py_class)
from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str

_ids = itertools.count()


def key(name):
    return "tests.enum.%s%d" % (name, next(_ids))


def state_of(cls):
    return core._lookup_type_attr(cls.__tvm_ffi_type_info__.type_index, "__ffi_enum__")


def test_plain_enum_members_indices_and_fields():
    class Op(Enum, type_key=key("Op")):
        arity: int = 0
        neg = entry(arity=1)
        add: ClassVar["Op"] = entry(arity=2)
        nop = auto()
        bound: ClassVar["Op"]

    # value-less ClassVar bindings come first, then the declarations in body order
    assert [m._str_index for m in Op] == ["bound", "neg", "add", "nop"]
    assert [m._int_index for m in Op] == [0, 1, 2, 3]
    assert len(Op) == 4
    assert (Op.add.arity, Op.nop.arity) == (2, 0)
    assert Op.get(2).same_as(Op.add) and Op.get("nop").same_as(Op.nop)
    assert Op(1).same_as(Op.neg) and Op("add").same_as(Op.add) and Op(Op.add) is Op.add
    assert list(Op.all_entries()) == list(Op)
    with pytest.raises(ValueError, match="is not a valid Op"):
        Op("missing")
    with pytest.raises(KeyError):
        Op.get(99)
    with pytest.raises(TypeError, match="int or a str"):
        Op.get(1.5)
    with pytest.raises(AttributeError):
        Op.add.arity = 5
    with pytest.raises(AttributeError):
        Op.add._int_index = 5


def test_bound_classvar_members_take_positions_in_order():
    class Status(Enum, type_key=key("Status")):
        ready: ClassVar["Status"]
        failed: ClassVar["Status"]

    assert (Status.ready._int_index, Status.failed._int_index) == (0, 1)
    assert repr(entry(1, code=2)) == "entry(1, code=2)"
    assert auto() is not auto()


def test_int_enum_value_name_and_payload_behaviour():
    lo, hi = -(1 << 63), (1 << 63) - 1

    class Limit(IntEnum, type_key=key("Limit")):
        MIN = lo
        MAX = hi
        ZERO = entry(value=0)

    assert Limit.MIN.value == lo and Limit.MAX._int_index == hi
    assert Limit.MIN.name == "MIN" and Limit.MIN._str_index == "MIN"
    assert Limit(hi).same_as(Limit.MAX) and Limit("ZERO").same_as(Limit.ZERO)
    assert Limit.ZERO == 0 and Limit.ZERO != 1 and hash(Limit.MAX) == hash(hi)
    assert str(Limit.MIN) == str(lo) and repr(Limit.MAX) == "Limit.MAX"
    for bad in (lo - 1, hi + 1):
        with pytest.raises(OverflowError):
            Limit(bad)


def test_str_enum_aliases_and_custom_repr():
    class Tok(StrEnum, type_key=key("Tok")):
        PLUS = "+"
        ADD = "+"
        MUL = "*"

        def __repr__(self):
            return "<Tok %s>" % self.value

    assert Tok.PLUS.same_as(Tok.ADD) and list(Tok) == [Tok.PLUS, Tok.MUL]
    assert Tok.MUL.name == Tok.MUL.value == "*" and Tok.get(1).same_as(Tok.MUL)
    assert Tok.MUL == "*" and str(Tok.MUL) == "*" and repr(Tok.MUL) == "<Tok *>"
    with pytest.raises(ValueError):
        Tok("MUL")  # a StrEnum's string index is its value, not the attribute name


def test_declaration_errors():
    with pytest.raises(TypeError, match="reserves `value`"):

        class A(IntEnum, type_key=key("A")):
            value: int

    with pytest.raises(TypeError, match="must be a int"):

        class B(IntEnum, type_key=key("B")):
            X = "x"

    with pytest.raises(TypeError, match="requires an integer value"):

        class C(IntEnum, type_key=key("C")):
            X: ClassVar["C"]

    with pytest.raises(TypeError, match="inferred"):

        class D(Enum, type_key=key("D")):
            X = entry(_int_index=4)

    with pytest.raises(TypeError, match="type_key must be a str"):

        class F(Enum, type_key=12):
            X = auto()

    with pytest.raises(TypeError, match="invalid enum entry"):

        class E(Enum, type_key=key("E")):
            X = entry(nonexistent=1)


def test_state_is_the_one_type_attribute_and_attrs_are_member_keyed():
    class Lvl(IntEnum, type_key=key("Lvl")):
        LOW = 1
        HIGH = 2

    state = state_of(Lvl)
    assert isinstance(state, EnumState)
    assert list(state.entries) == [Lvl.LOW, Lvl.HIGH]
    assert state.indexes[2].same_as(Lvl.HIGH) and state.indexes["LOW"].same_as(Lvl.LOW)
    cost = Lvl.def_attr("cost", default=-1)
    assert isinstance(cost, EnumAttrMap) and cost.name == "cost"
    assert cost[Lvl.LOW] == -1 and Lvl.LOW not in cost
    cost[Lvl.HIGH] = 7
    assert cost[Lvl.HIGH] == 7 and Lvl.attr_dict["cost"][Lvl.HIGH] == 7
    strict = Lvl.def_attr("strict")
    with pytest.raises(KeyError):
        strict[Lvl.LOW]
    assert strict.get(Lvl.LOW, 3) == 3
    with pytest.raises(TypeError):
        strict[1] = 2  # keyed by members, not by values


def test_c_registered_enum_members_are_shared_with_c():
    class Variant(Enum, type_key="testing.TestEnumVariant"):
        Alpha: ClassVar["Variant"]
        Beta: ClassVar["Variant"]

    get = tvm_ffi.get_global_func("testing.enum_variant_get")
    assert get("Beta").same_as(Variant.Beta) and Variant.get(0).same_as(Variant.Alpha)
    assert Variant.attr_dict["code"][Variant.Alpha] == 10
    with pytest.raises(ValueError, match="no instance with index nope"):
        get("nope")
    with pytest.raises(RuntimeError, match="string index"):

        class Typo(Enum, type_key="testing.TestEnumVariant"):
            Gamma: ClassVar["Typo"]


def test_legacy_enum_entries_are_read_and_kept_in_sync():
    # testing.TestLegacyEnum's members are registered as the 0.1.0-0.1.12 headers do: in the
    # Dict __ffi_enum_entries__ (name -> member), attributes in __ffi_enum_attrs__ (name ->
    # List by ordinal); libraries built against those headers (tilelang 0.1.15) still do
    legacy_get = tvm_ffi.get_global_func("testing.legacy_enum_get")  # reads that Dict

    class Legacy(Enum, type_key="testing.TestLegacyEnum"):
        Red: ClassVar["Legacy"]
        Green: ClassVar["Legacy"]
        Blue = auto()  # added from Python: in the state and in the legacy Dict

    assert [(m._int_index, m._str_index) for m in Legacy] == [(0, "Red"), (1, "Green"),
                                                              (2, "Blue")]
    assert Legacy.Red is legacy_get("Red") and Legacy.get(1) is Legacy.Green
    assert Legacy("Blue") is Legacy.Blue and legacy_get("Blue") is Legacy.Blue
    assert Legacy.def_attr("code")[Legacy.Green] == 2 and Legacy.Blue not in Legacy.def_attr("code")
    assert len(state_of(Legacy).entries) == 3  # folded into the current convention
    assert from_json_graph_str(to_json_graph_str(Legacy.Green)) is Legacy.Green

    # a member a library registers later, the legacy way, shows up on the next look-up
    tidx = Legacy.__tvm_ffi_type_info__.type_index
    cyan = core._lookup_type_attr(tidx, "__ffi_new__")()
    Legacy._int_index.set(cyan, 3)
    Legacy._str_index.set(cyan, "Cyan")
    core._lookup_type_attr(tidx, "__ffi_enum_entries__")["Cyan"] = cyan
    assert Legacy.get("Cyan").same_as(cyan) and Legacy.get(3).same_as(cyan) and len(Legacy) == 4


def test_payload_values_convert_to_members_in_fields():
    holder = T._TestCxxEnumHolder(priority=20, opcode="*")
    assert holder.priority.same_as(T._TestCxxIntEnum.high)
    assert holder.opcode.same_as(T._TestCxxStrEnum.mul)
    with pytest.raises(TypeError, match="expected"):
        T._TestCxxEnumHolder(priority=21, opcode="*")

    class Pri(IntEnum, type_key=key("Pri")):
        MIN = -(1 << 63)

    @py_class(key("Holder"))
    class Holder(Object):
        p: Pri

    assert Holder(p=-(1 << 63)).p.same_as(Pri.MIN)
    with pytest.raises(TypeError, match="int64 range"):
        Holder(p=1 << 63)
    with pytest.raises(TypeError):
        Holder(p=5)


def test_json_graph_writes_members_as_their_index():
    class St(Enum, type_key=key("St")):
        ON = auto()

    holder = T._TestCxxEnumHolder(priority=10, opcode="+")
    text = to_json_graph_str(holder)
    nodes = json.loads(text)["nodes"]
    assert [n["data"] for n in nodes[:2]] == [10, "+"]
    back = from_json_graph_str(text)
    assert back.priority.same_as(T._TestCxxIntEnum.low) and back.opcode.same_as(T._TestCxxStrEnum.add)
    assert from_json_graph_str(to_json_graph_str(St.ON)).same_as(St.ON)
    bad = json.dumps({"root_index": 0, "nodes": [{"type": St.__tvm_ffi_type_info__.type_key,
                                                   "data": "OFF"}]})
    with pytest.raises(ValueError, match="no member"):
        from_json_graph_str(bad)


def test_copies_and_repr():
    class Shape(Enum, type_key=key("Shape")):
        sides: int = 0
        tri = entry(sides=3)

    dup = copy.copy(Shape.tri)
    assert not dup.same_as(Shape.tri)
    assert (dup._int_index, dup._str_index, dup.sides) == (0, "tri", 3)
    del dup
    gc.collect()  # the copy's deleter releases the Enum part and the Any slots
    assert copy.deepcopy(Shape.tri).same_as(Shape.tri)
    c_dup = copy.copy(T._TestCxxIntEnum.high)  # a C type's copy constructor
    assert not c_dup.same_as(T._TestCxxIntEnum.high) and c_dup.value == 20
    arr = tvm_ffi.get_global_func("ffi.DeepCopy")(tvm_ffi.Array([Shape.tri, T._TestCxxIntEnum.low]))
    assert arr[0].same_as(Shape.tri) and arr[1].same_as(T._TestCxxIntEnum.low)
    assert repr(Shape.tri) == "%s.tri" % Shape.__tvm_ffi_type_info__.type_key
    assert tvm_ffi.structural_equal(Shape.tri, Shape.tri)
    assert not tvm_ffi.structural_equal(Shape.tri, copy.copy(Shape.tri))
