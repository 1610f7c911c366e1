"""tvm_ffi.testing helper classes (docs/python.md §20.3): the names, type keys and c_class flags of
upstream's module, and the constructors, field values, repr, comparison, hashing and
frozen-ness those give.  Expected values were checked against the apache-tvm-ffi wheel for
the same calls where its fixture exists."""

import copy

import pytest

import tvm_ffi
import tvm_ffi.testing as T
from tvm_ffi.dataclasses import FrozenInstanceError, fields, is_dataclass

# Python name -> type key, as upstream's tvm_ffi.testing declares them.
CLASSES = {
    "TestObjectBase": "testing.TestObjectBase",
    "TestObjectDerived": "testing.TestObjectDerived",
    "TestIntPair": "testing.TestIntPair",
    "TestFrozenCxx": "testing.TestFrozenCxx",
    "TestObjectPtrHolder": "testing.TestObjectPtrHolder",
    "TestNonCopyable": "testing.TestNonCopyable",
    "TestCompare": "testing.TestCompare",
    "TestHash": "testing.TestHash",
    "TestCustomHash": "testing.TestCustomHash",
    "TestCustomCompare": "testing.TestCustomCompare",
    "TestEqWithoutHash": "testing.TestEqWithoutHash",
    "_SchemaAllTypes": "testing.SchemaAllTypes",
    "_TestCxxClassBase": "testing.TestCxxClassBase",
    "_TestCxxClassDerived": "testing.TestCxxClassDerived",
    "_TestCxxClassDerivedDerived": "testing.TestCxxClassDerivedDerived",
    "_TestCxxInitSubset": "testing.TestCxxInitSubset",
    "_TestCxxKwOnly": "testing.TestCxxKwOnly",
    "_TestCxxAutoInit": "testing.TestCxxAutoInit",
    "_TestCxxAutoInitSimple": "testing.TestCxxAutoInitSimple",
    "_TestCxxAutoInitAllInitOff": "testing.TestCxxAutoInitAllInitOff",
    "_TestCxxAutoInitKwOnlyDefaults": "testing.TestCxxAutoInitKwOnlyDefaults",
    "_TestCxxNoAutoInit": "testing.TestCxxNoAutoInit",
    "_TestCxxAutoInitParent": "testing.TestCxxAutoInitParent",
    "_TestCxxAutoInitChild": "testing.TestCxxAutoInitChild",
}


@pytest.mark.parametrize("name, key", sorted(CLASSES.items()))
def test_class_is_a_dataclass_bound_to_its_type_key(name, key):
    cls = getattr(T, name)
    assert cls.__tvm_ffi_type_info__.type_key == key
    assert issubclass(cls, tvm_ffi.Object) and is_dataclass(cls)
    if name.startswith("Test"):
        assert cls.__test__ is False  # pytest must not collect it


def test_class_hierarchy_follows_the_cxx_one():
    assert issubclass(T.TestObjectDerived, T.TestObjectBase)
    assert T._TestCxxClassDerivedDerived.__mro__[1:3] == (T._TestCxxClassDerived,
                                                          T._TestCxxClassBase)
    assert issubclass(T._TestCxxAutoInitChild, T._TestCxxAutoInitParent)


def test_object_base_defaults_method_and_read_only_field():
    o = T.TestObjectBase()
    assert (o.v_i64, o.v_f64, o.v_str) == (10, 10.0, "hello")
    assert o.add_i64(5) == 15
    assert repr(o) == 'testing.TestObjectBase(v_i64=10, v_f64=10, v_str="hello")'
    p = T.TestObjectBase(1, 2.5, "x")
    assert (p.v_i64, p.v_f64, p.v_str) == (1, 2.5, "x")
    assert T.TestObjectBase(v_str="kw").v_str == "kw"
    o.v_i64 = 7
    assert o.v_i64 == 7
    with pytest.raises(AttributeError):
        o.v_f64 = 1.0
    with pytest.raises(TypeError):
        o.v_i64 = "not an int"
    assert o != T.TestObjectBase(7)  # eq=False: identity
    assert T.TestObjectBase.v_i64.__doc__ == "i64 field"


def test_object_derived_requires_map_and_array():
    o = T.TestObjectDerived({"a": 1}, [1, 2])
    assert dict(o.v_map) == {"a": 1} and list(o.v_array) == [1, 2]
    assert (o.v_i64, o.v_str) == (10, "hello")
    assert repr(o).startswith("testing.TestObjectDerived(v_i64=10, ")
    assert T.TestObjectDerived(v_map={}, v_array=[], v_str="q").v_str == "q"
    with pytest.raises(TypeError):
        T.TestObjectDerived()


def test_int_pair():
    p = T.TestIntPair(3, 4)
    assert (p.a, p.b, p.sum()) == (3, 4, 7)
    assert T.TestIntPairSum(p) == 7
    assert repr(p) == "testing.TestIntPair(a=3, b=4)"
    with pytest.raises(AttributeError):
        p.a = 1
    assert p != T.TestIntPair(3, 4)  # eq=False: identity
    assert T.TestIntPair.a.__doc__ == "Field `a`"
    with pytest.raises(TypeError):
        T.TestIntPair(1)


def test_frozen_cxx_fields_are_read_only_from_python():
    o = T.TestFrozenCxx(1, "a")
    assert (o.value, o.tag) == (1, "a")
    assert T.TestFrozenCxx(tag="t", value=2).tag == "t"
    assert repr(o) == 'testing.TestFrozenCxx(value=1, tag="a")'
    with pytest.raises(FrozenInstanceError):
        o.value = 2
    with pytest.raises(AttributeError):  # FrozenInstanceError is an AttributeError
        o.tag = "b"
    assert (o.value, o.tag) == (1, "a")
    # the C++ fields stay writable: the setter behind the frozen property still works
    type(o).__tvm_ffi_type_info__.fields[0].setter(o, 5)
    assert o.value == 5


def test_object_ptr_holder():
    base = T.TestObjectBase(v_i64=3)
    h = T.TestObjectPtrHolder(base)
    assert h.value.same_as(base) and h.optional_value is None
    assert repr(h) == ("testing.TestObjectPtrHolder(value=testing.TestObjectBase(v_i64=3, "
                       'v_f64=10, v_str="hello"), optional_value=None)')
    h2 = T.TestObjectPtrHolder(base, T.TestObjectBase(v_i64=4))
    assert h2.optional_value.v_i64 == 4
    with pytest.raises(TypeError, match="testing.TestObjectBase"):
        T.TestObjectPtrHolder(1)


def test_non_copyable():
    o = T.TestNonCopyable(5)
    assert o.value == 5 and repr(o) == "testing.TestNonCopyable(value=5)"
    with pytest.raises(AttributeError):
        o.value = 1
    with pytest.raises(TypeError):
        copy.copy(o)  # no copy hook, no creator


def test_compare_and_hash_fixtures_keep_identity_equality():
    c = T.TestCompare(1, "a", 2)
    assert (c.key, c.name, c.ignored_field) == (1, "a", 2)
    assert repr(c) == 'testing.TestCompare(key=1, name="a", ignored_field=2)'
    assert c != T.TestCompare(1, "a", 2)  # eq=False on the class
    eq = tvm_ffi.get_global_func("ffi.RecursiveEq")
    rhash = tvm_ffi.get_global_func("ffi.RecursiveHash")
    assert eq(c, T.TestCompare(1, "a", 99))  # ignored_field is CompareOff
    assert not eq(c, T.TestCompare(1, "b", 2))
    h = T.TestHash(1, "a", 2)
    assert repr(h) == 'testing.TestHash(key=1, name="a", hash_ignored=2)'
    assert rhash(h) == rhash(T.TestHash(1, "a", 3))  # hash_ignored is HashOff
    assert not eq(h, T.TestHash(1, "a", 3))  # ... but still compared
    assert len({h, T.TestHash(1, "a", 2)}) == 2  # eq=False: identity hash


def test_custom_hooks_decide_recursive_eq_hash_order():
    eq = tvm_ffi.get_global_func("ffi.RecursiveEq")
    lt = tvm_ffi.get_global_func("ffi.RecursiveLt")
    rhash = tvm_ffi.get_global_func("ffi.RecursiveHash")
    a, b = T.TestCustomCompare(1, "a"), T.TestCustomCompare(1, "b")
    assert eq(a, b) and rhash(a) == rhash(b)  # the hooks look at key only
    assert not eq(a, T.TestCustomCompare(2, "a"))
    assert lt(T.TestCustomCompare(1, "z"), T.TestCustomCompare(2, "a"))
    assert rhash(T.TestCustomHash(1, "a")) == rhash(T.TestCustomHash(1, "b"))
    assert rhash(T.TestCustomHash(1, "a")) != rhash(T.TestCustomHash(2, "a"))
    assert eq(T.TestEqWithoutHash(1, "a"), T.TestEqWithoutHash(1, "b"))
    with pytest.raises(ValueError, match="__ffi_hash__"):
        rhash(T.TestEqWithoutHash(1, "a"))
    assert repr(a) == 'testing.TestCustomCompare(key=1, label="a")'


def test_cxx_class_base_init_adjusts_values():
    b = T._TestCxxClassBase(1, 2)
    assert (b.v_i64, b.v_i32) == (2, 4)  # the hand-written __init__ adds 1 and 2
    b = T._TestCxxClassBase(v_i64=10, v_i32=20)
    assert (b.v_i64, b.v_i32) == (11, 22)
    text = repr(b)  # both fields are ReprOff
    assert text.startswith("testing.TestCxxClassBase") and "v_i" not in text
    assert (T._TestCxxClassBase.not_field_1, T._TestCxxClassBase.not_field_2) == (1, 2)
    assert [f.name for f in fields(T._TestCxxClassBase)] == ["v_i64", "v_i32"]


def test_cxx_class_derived_eq_order_hash():
    D = T._TestCxxClassDerived
    d = D(1, 2, 3.0)
    assert (d.v_i64, d.v_i32, d.v_f64, d.v_f32) == (1, 2, 3.0, 8.0)  # generated __init__
    assert repr(d) == "testing.TestCxxClassDerived(v_f64=3, v_f32=8)"
    k = D(v_i64=1, v_i32=2, v_f64=3.5, v_f32=4.5)
    assert (k.v_f64, k.v_f32) == (3.5, 4.5)
    assert d == D(1, 2, 3.0) and not (d != D(1, 2, 3.0))
    assert d != D(1, 2, 4.0)
    assert hash(d) == hash(D(1, 2, 3.0))
    assert len({d, D(1, 2, 3.0), D(1, 2, 4.0)}) == 2
    assert d < D(1, 2, 4.0) and d <= D(1, 2, 3.0)
    assert D(2, 0, 0.0) > D(1, 9, 9.0) and d >= D(1, 2, 3.0)
    assert d != 5 and not (d == 5)
    with pytest.raises(TypeError):
        d < 5  # noqa: B015
    with pytest.raises(TypeError):
        D(1, 2)  # v_f64 is required


def test_cxx_class_derived_derived_inherits_the_dunders():
    DD = T._TestCxxClassDerivedDerived
    d = DD(1, 2, 3.0, True)
    assert (d.v_i64, d.v_i32, d.v_f64, d.v_f32, d.v_str, d.v_bool) == (1, 2, 3.0, 8.0,
                                                                        "default", True)
    assert repr(d) == ('testing.TestCxxClassDerivedDerived(v_f64=3, v_f32=8, v_str="default", '
                       "v_bool=True)")
    k = DD(1, 2, 3.0, False, v_f32=1.5, v_str="s")
    assert (k.v_bool, k.v_f32, k.v_str) == (False, 1.5, "s")
    assert d == DD(1, 2, 3.0, True) and hash(d) == hash(DD(1, 2, 3.0, True))
    assert d < DD(1, 2, 4.0, True)
    assert d != T._TestCxxClassDerived(1, 2, 3.0)  # another type
    assert [f.name for f in fields(DD)] == ["v_i64", "v_i32", "v_f64", "v_f32", "v_str",
                                            "v_bool"]


def test_cxx_init_subset_and_kw_only():
    s = T._TestCxxInitSubset(5)
    assert (s.required_field, s.optional_field, s.note) == (5, -1, "default")
    with pytest.raises(TypeError):
        T._TestCxxInitSubset(5, 6)  # optional_field is InitOff
    k = T._TestCxxKwOnly(x=1, y=2, z=3)
    assert (k.x, k.y, k.z, k.w) == (1, 2, 3, 100)
    with pytest.raises(TypeError):
        T._TestCxxKwOnly(1, 2, 3)
    assert T._TestCxxKwOnly.__match_args__ == ()


def test_cxx_auto_init_variants():
    a = T._TestCxxAutoInit(1, c=3)
    assert (a.a, a.b, a.c, a.d) == (1, 42, 3, 99)
    assert T._TestCxxAutoInit(1, 4, c=3).d == 4
    with pytest.raises(TypeError):
        T._TestCxxAutoInit(1, b=2, c=3)  # b is InitOff
    with pytest.raises(TypeError):
        T._TestCxxAutoInit(1)  # c is required (keyword-only)
    assert T._TestCxxAutoInit.__match_args__ == ("a", "d")
    s = T._TestCxxAutoInitSimple(1, 2)
    assert (s.x, s.y) == (1, 2) and repr(s) == "testing.TestCxxAutoInitSimple(x=1, y=2)"
    assert (T._TestCxxAutoInitSimple(y=1, x=2).x, T._TestCxxAutoInitSimple(y=1, x=2).y) == (2, 1)
    with pytest.raises(TypeError):
        T._TestCxxAutoInitSimple(1)
    off = T._TestCxxAutoInitAllInitOff()
    assert (off.x, off.y, off.z) == (7, 9, 1234)  # defaults, and z's member initialiser
    with pytest.raises(TypeError):
        T._TestCxxAutoInitAllInitOff(1)
    kd = T._TestCxxAutoInitKwOnlyDefaults(1, k_required=2)
    assert (kd.p_required, kd.p_default, kd.k_required, kd.k_default, kd.hidden) == (1, 11, 2,
                                                                                     22, 33)
    kd = T._TestCxxAutoInitKwOnlyDefaults(1, 3, k_required=2, k_default=4)
    assert (kd.p_default, kd.k_default) == (3, 4)


def test_cxx_no_auto_init_cannot_be_constructed():
    for args in [(), (1, 2)]:
        with pytest.raises(TypeError, match="`_TestCxxNoAutoInit` cannot be constructed "
                                            "directly"):
            T._TestCxxNoAutoInit(*args)
    # built by reflection instead, it still gets the class and its fields
    o = T.create_object("testing.TestCxxNoAutoInit", x=1, y=2)
    assert isinstance(o, tvm_ffi.Object) and (o.x, o.y) == (1, 2)


def test_cxx_auto_init_inheritance():
    p = T._TestCxxAutoInitParent(1)
    assert (p.parent_required, p.parent_default) == (1, 5)
    c = T._TestCxxAutoInitChild(1, 2, child_kw_only=3)
    assert (c.parent_required, c.child_required, c.parent_default, c.child_kw_only) == (1, 2, 5,
                                                                                        3)
    assert T._TestCxxAutoInitChild(1, 2, 7, child_kw_only=3).parent_default == 7
    assert T._TestCxxAutoInitChild.__match_args__ == ("parent_required", "parent_default",
                                                      "child_required")
    with pytest.raises(TypeError):
        T._TestCxxAutoInitChild(1, 2)


# --- testing.SchemaAllTypes ---------------------------------------------------------------

SCHEMA_FIELDS = [
    ("v_bool", "bool", "bool field"),
    ("v_int", "int", "int field"),
    ("v_float", "float", "float field"),
    ("v_device", "Device", "device field"),
    ("v_dtype", "dtype", "dtype field"),
    ("v_string", "str", "string field"),
    ("v_bytes", "bytes", "bytes field"),
    ("v_opt_int", "int | None", "optional int"),
    ("v_opt_str", "str | None", "optional str"),
    ("v_arr_int", "Array[int]", "array<int>"),
    ("v_arr_str", "Array[str]", "array<str>"),
    ("v_map_str_int", "Map[str, int]", "map<str,int>"),
    ("v_map_str_arr_int", "Map[str, Array[int]]", "map<str,array<int>>"),
    ("v_variant", "str | Array[int] | Map[str, int]", "variant<str,array<int>,map<str,int>>"),
    ("v_opt_arr_variant", "Array[int | str] | None", "optional<array<variant<int,str>>>"),
]


def test_schema_all_types_reflection():
    info = T._SchemaAllTypes.__tvm_ffi_type_info__
    # TypeSchema spells containers Array/Map (apache 0.1.15) or list/dict: accept both
    def spelled(ty):
        return repr(ty).replace("list[", "Array[").replace("dict[", "Map[")

    got = [(f.name, spelled(f.ty), f.doc) for f in info.fields]
    assert got == SCHEMA_FIELDS
    v_bool = info.fields[0]
    assert (v_bool.metadata["bool_attr"], v_bool.metadata["int_attr"],
            v_bool.metadata["str_attr"]) == (True, 1, "hello")
    defaults = {f.name: f.c_default for f in info.fields if f.c_has_default}
    assert defaults == {"v_int": 0, "v_float": 0.0, "v_string": "s"}
    methods = {m.name: m for m in info.methods}
    assert sorted(methods) == ["add_int", "append_int", "make_with", "maybe_concat", "merge_map"]
    assert methods["make_with"].is_static and not methods["add_int"].is_static
    assert methods["add_int"].metadata["int_attr"] == 1
    assert methods["make_with"].doc == "Constructor with subset of fields"


def test_schema_all_types_make_with_and_methods():
    o = T._SchemaAllTypes.make_with(1, 2.5, "x")
    assert isinstance(o, T._SchemaAllTypes)
    assert repr(o) == (
        'testing.SchemaAllTypes(v_bool=True, v_int=1, v_float=2.5, v_device=cpu:0, '
        'v_dtype=float32, v_string="x", v_bytes=b"", v_opt_int=None, v_opt_str=None, '
        'v_arr_int=(), v_arr_str=(), v_map_str_int={}, v_map_str_arr_int={}, v_variant="v", '
        "v_opt_arr_variant=None)")
    assert o.v_device == tvm_ffi.Device("cpu", 0) and o.v_dtype == tvm_ffi.dtype("float32")
    assert o.add_int(5) == 6
    assert list(o.append_int([1, 2], 3)) == [1, 2, 3]
    assert [o.maybe_concat("a", "b"), o.maybe_concat(None, "b"), o.maybe_concat("a", None),
            o.maybe_concat(None, None)] == ["ab", "b", "a", None]
    merged = o.merge_map({"a": [1]}, {"a": [2], "b": [3]})
    assert {k: list(v) for k, v in merged.items()} == {"a": [1, 2], "b": [3]}
    long = "a string longer than the small-string limit"
    assert o.maybe_concat(long, long) == long + long
    with pytest.raises(TypeError, match="Expected `int` but got"):
        o.add_int("x")
    with pytest.raises(TypeError, match="Expected `float` but got"):
        T._SchemaAllTypes.make_with(1, "x", "x")
    with pytest.raises(TypeError, match="Array<int>"):
        o.append_int(["a"], 1)
    with pytest.raises(TypeError):  # no creator: reflection cannot build one
        T.create_object("testing.SchemaAllTypes")


@pytest.mark.parametrize("name, value, expect", [
    ("v_int", True, 1),
    ("v_float", 3, 3.0),
    ("v_bool", 0, False),
    ("v_device", "cuda:1", tvm_ffi.Device("cuda", 1)),
    ("v_dtype", "int8", tvm_ffi.dtype("int8")),
    ("v_bytes", b"zz", b"zz"),
    ("v_string", "a string longer than seven", "a string longer than seven"),
    ("v_opt_int", 3, 3),
    ("v_opt_int", None, None),
    ("v_opt_str", "q", "q"),
    ("v_arr_int", [1, 2], [1, 2]),
    ("v_arr_str", ["a"], ["a"]),
    ("v_map_str_int", {"a": 1}, {"a": 1}),
    ("v_map_str_arr_int", {"a": [1]}, {"a": [1]}),
    ("v_variant", [1], [1]),
    ("v_variant", {"k": 2}, {"k": 2}),
    ("v_variant", "s", "s"),
    ("v_opt_arr_variant", [1, "a"], [1, "a"]),
    ("v_opt_arr_variant", None, None),
])
def test_schema_all_types_setters_convert(name, value, expect):
    o = T._SchemaAllTypes.make_with(0, 0.0, "")
    setattr(o, name, value)
    got = getattr(o, name)
    if isinstance(expect, list):
        got = list(got)
    elif isinstance(expect, dict):
        got = {k: list(v) if isinstance(v, tvm_ffi.Array) else v for k, v in got.items()}
    assert got == expect


@pytest.mark.parametrize("name, value, target", [
    ("v_int", "a", "int"),
    ("v_bool", 2.0, "bool"),
    ("v_string", b"x", "str"),
    ("v_bytes", "s", "bytes"),
    ("v_opt_int", "x", "Optional<int>"),
    ("v_arr_int", ["a"], "Array<int>"),
    ("v_arr_str", [1], "Array<str>"),
    ("v_map_str_int", {1: 1}, "Map<str, int>"),
    ("v_map_str_arr_int", {"a": 1}, "Map<str, Array<int>>"),
    ("v_variant", 1, "Variant<str, Array<int>, Map<str, int>>"),
    ("v_variant", ["x"], "Variant<str, Array<int>, Map<str, int>>"),
    ("v_opt_arr_variant", [1.5], "Optional<Array<Variant<int, str>>>"),
])
def test_schema_all_types_setters_reject(name, value, target):
    o = T._SchemaAllTypes.make_with(0, 0.0, "")
    before = getattr(o, name)
    with pytest.raises(TypeError, match="to `%s`" % target.replace("[", r"\[")):
        setattr(o, name, value)
    after = getattr(o, name)
    assert after == before or (after is not None and tvm_ffi.get_global_func(
        "ffi.RecursiveEq")(after, before))


def test_schema_all_types_setters_convert_elements_as_cxx_does():
    o = T._SchemaAllTypes.make_with(True, 1, "x")
    assert type(o.v_int) is int and type(o.v_float) is float
    o.v_arr_int = [True, 2]  # bools become ints inside Array<int> too
    assert [type(x) for x in o.v_arr_int] == [int, int]
    o.v_map_str_arr_int = {"a": [True]}
    assert type(o.v_map_str_arr_int["a"][0]) is int
    o.v_opt_arr_variant = [True, "x"]
    assert type(o.v_opt_arr_variant[0]) is int
    o.v_opt_int = True
    assert type(o.v_opt_int) is int
    arr = tvm_ffi.Array([1, 2])
    o.v_arr_int = arr  # already Array<int>: stored as is
    assert o.v_arr_int.same_as(arr)


def test_schema_all_types_copies():
    o = T._SchemaAllTypes.make_with(1, 2.5, "x")
    o.v_arr_int = [4, 5]
    o.v_opt_str = "kept"
    c = tvm_ffi.get_global_func("ffi.DeepCopy")(o)
    assert not c.same_as(o) and isinstance(c, T._SchemaAllTypes)
    assert (c.v_int, c.v_float, c.v_string, c.v_opt_str, list(c.v_arr_int)) == (
        1, 2.5, "x", "kept", [4, 5])
    assert not c.v_arr_int.same_as(o.v_arr_int)  # deep: containers copied too
    c.v_int = 9
    assert o.v_int == 1
