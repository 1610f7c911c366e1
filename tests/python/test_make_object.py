"""Reflection-driven construction (docs/abi.md §14.4; docs/python.md §4.6, §20.2, §25.8):
``ffi.MakeObjectFromPackedArgs`` behind ``testing.create_object``, and the ``__ffi_init__``
constructors the runtime generates from reflection (``ffi._RegisterFFIInit``)."""

import pytest

import tvm_ffi
from conftest import needs_prompt_free
from tvm_ffi import _base, _function, core
from tvm_ffi.testing import create_object


def test_make_object_global_by_key_and_index():
    mk = tvm_ffi.get_global_func("ffi.MakeObjectFromPackedArgs")
    for key in ("testing.TestObjectBase", _function._type_key_to_index("testing.TestObjectBase")):
        o = mk(key)
        assert (o.v_i64, o.v_f64, o.v_str) == (10, 10.0, "hello")


def test_create_object_sets_named_fields():
    o = create_object("testing.TestObjectBase", v_i64=3, v_str="world", v_f64=2.5)
    assert (o.v_i64, o.v_f64, o.v_str) == (3, 2.5, "world")


def test_create_object_errors():
    with pytest.raises(TypeError, match="Required field `v_map` not set"):
        create_object("testing.TestObjectDerived")
    with pytest.raises(TypeError, match="does not have field `nope`"):
        create_object("testing.TestObjectBase", nope=1)
    with pytest.raises(TypeError, match="field 'v_i64'"):
        create_object("testing.TestObjectBase", v_i64="x")
    with pytest.raises(ValueError, match="cannot find type `testing.NoSuchType`"):
        create_object("testing.NoSuchType")
    with pytest.raises(TypeError, match="cannot be created by reflection"):
        create_object("testing.TestNonCopyable", value=1)


@needs_prompt_free
def test_create_object_holds_the_given_containers():
    use_count = tvm_ffi.get_global_func("testing.object_use_count")
    m, a = tvm_ffi.Map({"k": 1}), tvm_ffi.Array([1, 2])
    before = use_count(m)
    o = create_object("testing.TestObjectDerived", v_map=m, v_array=a)
    assert o.v_map.same_as(m) and o.v_array.same_as(a)
    assert (o.v_i64, o.v_str) == (10, "hello")  # base defaults
    assert use_count(m) == before + 1
    del o
    assert use_count(m) == before


@pytest.fixture
def bind():
    """Binds a fresh class to a fixture type key; the previous class is restored after."""
    restore = []

    def bind(key):
        tidx = _function._type_key_to_index(key)
        restore.append((tidx, _base._TYPE_CLS.get(tidx)))

        @tvm_ffi.register_object(key)
        class Bound(tvm_ffi.Object):
            pass

        return Bound

    yield bind
    for tidx, old in reversed(restore):
        if old is not None:
            _base._register_class(tidx, old)


def test_generated_init_defaults_and_keywords(bind):
    Base = bind("testing.TestObjectBase")
    o = Base()
    assert (o.v_i64, o.v_f64, o.v_str) == (10, 10.0, "hello")
    o = Base(12, v_str="x")
    assert (o.v_i64, o.v_str) == (12, "x")
    assert o.add_i64(1) == 13


def test_generated_init_required_fields_come_first(bind):
    Derived = bind("testing.TestObjectDerived")
    m, a = tvm_ffi.Map({}), tvm_ffi.Array([1])
    o = Derived(m, a, 7)  # v_map, v_array, then the inherited defaulted v_i64
    assert o.v_i64 == 7 and o.v_map.same_as(m)
    with pytest.raises(TypeError, match="missing required argument: 'v_array'"):
        Derived(m)


def test_generated_init_kw_only_and_init_off(bind):
    C = bind("testing.TestCxxAutoInitKwOnlyDefaults")
    o = C(1, k_required=2)
    assert (o.p_required, o.p_default, o.k_required, o.k_default, o.hidden) == (1, 11, 2, 22, 33)
    o = C(1, 5, k_required=2, k_default=7)
    assert (o.p_default, o.k_default) == (5, 7)
    o = C(1, k_required=2, k_default=core.MISSING)  # MISSING means "not given"
    assert o.k_default == 22
    with pytest.raises(TypeError, match="missing required keyword-only argument: 'k_required'"):
        C(1)
    with pytest.raises(TypeError, match="missing required argument: 'p_required'"):
        C(k_required=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'hidden'"):
        C(1, k_required=2, hidden=3)
    with pytest.raises(TypeError, match="multiple values for argument 'p_required'"):
        C(1, p_required=2, k_required=3)
    with pytest.raises(TypeError, match="takes at most 2 positional argument"):
        C(1, 2, 3)
    with pytest.raises(TypeError, match="field 'p_default'"):
        C(1, "two", k_required=3)
    # a failed construction leaves an empty wrapper, never a half-built object
    x = C.__new__(C)
    with pytest.raises(TypeError):
        x.__init__()
    assert x.__chandle__() == 0


def test_positional_constructor_fixtures(bind):
    Pair = bind("testing.TestIntPair")
    p = Pair(1, 2)
    assert (p.a, p.b, p.sum()) == (1, 2, 3)
    Cmp = bind("testing.TestCompare")
    c = Cmp(1, "name", 2)
    assert (c.key, c.name, c.ignored_field) == (1, "name", 2)
    with pytest.raises(TypeError, match="Expected `ffi.String` but got `int`"):
        Cmp(1, 2, 3)
    NoInit = bind("testing.TestCxxNoAutoInit")
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        NoInit()
