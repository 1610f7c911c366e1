"""Objects, reflection and type registration (docs/python.md §4)."""

import subprocess
import sys

import pytest

import tvm_ffi
from conftest import needs_cpython_layout, needs_prompt_free, needs_refcounts
import tvm_ffi.testing as T
from tvm_ffi import _base, _function, core


def test_unregistered_object_fallback_class():
    make = tvm_ffi.get_global_func("testing.make_unregistered_object")
    o = make()
    cls = type(o)
    assert cls.__name__ == "TestUnregisteredObject"
    assert cls.__module__ == "testing"
    assert cls.__qualname__ == "testing.TestUnregisteredObject"
    assert "Auto-generated fallback class" in cls.__doc__
    assert o.v1 == 41 and o.v2 == 42
    assert o.get_v1_plus_one() == 42 and o.get_v2_plus_two() == 44
    assert type(make()) is cls
    assert isinstance(o, tvm_ffi.Object)


@needs_cpython_layout
def test_slots_no_new_attributes():
    o = tvm_ffi.get_global_func("testing.make_unregistered_object")()
    with pytest.raises(AttributeError):
        o.not_a_field = 1
    assert type(o).__slots__ == ()
    assert not hasattr(o, "__dict__")
    with pytest.raises(TypeError):
        __import__("weakref").ref(o)


def test_handle_identity_and_same_as(echo):
    x = tvm_ffi.convert([1, 2])
    y = tvm_ffi.convert([1, 2])
    assert x.id_ == x.__chandle__() != 0
    assert x.__chandle__() != y.__chandle__()
    assert x.is_(x) and not x.is_(y) and not x.is_(object()) and not x.is_(None)
    assert echo(x).same_as(x)
    assert x.__ctypes_handle__().value == x.__chandle__()
    empty = tvm_ffi.Array.__new__(tvm_ffi.Array)
    assert empty.__chandle__() == 0 and empty.__ctypes_handle__().value is None
    other = tvm_ffi.Array.__new__(tvm_ffi.Array)
    assert empty.is_(other) and empty.same_as(other) and not empty.is_(x)  # as upstream
    assert "chandle=None" in repr(empty)


def test_tvm_ffi_object_protocol(echo):
    arr = tvm_ffi.convert([1, 2, 3])

    class Holder:
        def __tvm_ffi_object__(self):
            return arr

    assert echo(Holder()).__chandle__() == arr.__chandle__()


@needs_refcounts
def test_opaque_pyobject(use_count):
    class MyObject:
        pass

    x = MyObject()
    base = sys.getrefcount(x)
    o = tvm_ffi.convert(x)
    assert isinstance(o, core.OpaquePyObject)
    assert use_count(o) == 1
    assert o.pyobject() is x
    assert sys.getrefcount(x) == base + 1
    del o
    assert sys.getrefcount(x) == base


def test_register_object_errors():
    with pytest.raises(TypeError, match="type_key must be a string, type, or None"):
        tvm_ffi.register_object(1)
    with pytest.raises(ValueError, match="Cannot find object type index for no.SuchType"):

        @tvm_ffi.register_object("no.SuchType")
        class X(tvm_ffi.Object):
            pass


def test_register_object_binds_class():
    key = "testing.TestUnregisteredObject"
    tidx = _function._type_key_to_index(key)
    old = _base._TYPE_CLS.get(tidx)
    try:

        @tvm_ffi.register_object(key)
        class Registered(tvm_ffi.Object):
            def extra(self):
                return self.v2 * 2

        o = tvm_ffi.get_global_func("testing.make_unregistered_object")()
        assert type(o) is Registered
        assert o.extra() == 84 and o.get_v2_plus_two() == 44
        assert Registered.__slots__ == ()
        if not hasattr(Registered, "__ffi_init__"):
            with pytest.raises(TypeError, match="`Registered` cannot be constructed directly"):
                Registered()
        assert Registered.__new__(Registered).__chandle__() == 0
    finally:
        if old is not None:
            _base._register_class(tidx, old)


def test_registered_type_keys():
    keys = tvm_ffi.registry.get_registered_type_keys()
    for k in ("ffi.Object", "ffi.String", "None", "int", "bool", "float", "void*", "DataType",
              "Device", "DLTensor*", "const char*", "TVMFFIByteArray*", "ObjectRValueRef"):
        assert k in keys


def test_move_semantics(echo):
    x = tvm_ffi.convert([1, 2, 3])
    r = echo(x._move())
    assert list(r) == [1, 2, 3]
    assert x.__ctypes_handle__().value is None  # moved into the callee's result


def test_cany():
    assert repr(core.CAny(3)) == "CAny(int=3)"
    assert repr(core.CAny(1.5)) == "CAny(float=1.5)"
    assert repr(core.CAny(True)) == "CAny(bool=True)"
    assert repr(core.CAny(None)) == "CAny(None)"
    assert repr(core.CAny()) == "CAny(None)"
    a = core.CAny([1, 2])
    assert a.type_index == 71 and repr(a) == "CAny(object, type_index=71)"
    assert isinstance(a.to_py(), tvm_ffi.Array) and tuple(a.to_py()) == (1, 2)


@needs_prompt_free
def test_cany_values_round_trip(echo, use_count):
    for v in (3, 1.5, True, None, "hi", "a longer string", b"by", b"longer bytes!"):
        c = core.CAny(v)
        assert c.to_py() == v and isinstance(c.to_py(), type(v))
        assert echo(c) == v  # passed as its value, not as an opaque Python object
    assert echo(core.CAny(tvm_ffi.dtype("float32"))) == tvm_ffi.dtype("float32")
    arr = tvm_ffi.convert([1, 2])
    c = core.CAny(arr)
    assert use_count(arr) == 2  # the CAny owns one reference
    assert echo(c).same_as(arr)
    del c
    assert use_count(arr) == 1


# --- docs/python.md §25.8: registered testing classes -------------------------------------------


def test_create_object_defaults():  # item 114
    o = T.create_object("testing.TestObjectBase")
    assert isinstance(o, T.TestObjectBase)
    assert o.v_i64 == 10 and o.v_f64 == 10.0 and o.v_str == "hello"
    d = T.TestObjectBase()
    assert type(d) is T.TestObjectBase
    assert (d.v_i64, d.v_f64, d.v_str) == (10, 10.0, "hello")
    assert T.TestObjectBase(v_i64=3, v_str="x").v_i64 == 3


def test_keyword_construction_drops_missing():
    o = T.TestObjectBase(v_i64=7, v_str=core.MISSING)  # MISSING: take the field's default
    assert (o.v_i64, o.v_str) == (7, "hello")
    with pytest.raises(TypeError):
        T.TestObjectBase(no_such_field=1)
    with pytest.raises(TypeError, match="Mismatched number of arguments"):
        T.TestIntPair(a=3, b=4)  # a typed constructor takes no keywords (KWARGS + pairs)


def test_fields_methods_and_docs():  # item 115
    p = T.TestIntPair(1, 2)
    assert p.a == 1 and p.b == 2 and p.sum() == 3
    assert type(p).a.__doc__ == "Field `a`" and type(p).b.__doc__ == "Field `b`"
    assert T.TestObjectBase.v_f64.__doc__ is None
    assert T.TestObjectBase.v_i64.__doc__ == "i64 field"
    o = T.TestObjectBase(v_i64=12)
    assert o.add_i64(1) == 13
    assert T.TestObjectBase.add_i64.__doc__ == "add_i64 method"
    assert T.TestObjectBase.add_i64.__name__ == "add_i64"
    assert T.TestObjectBase.add_i64.__qualname__ == "TestObjectBase.add_i64"


def test_field_assignment():  # item 116
    o = T.TestObjectBase()
    o.v_i64 = 11
    o.v_str = "world"
    assert o.v_i64 == 11 and o.v_str == "world"
    with pytest.raises(TypeError):
        o.v_str = 1
    with pytest.raises(TypeError):
        o.v_i64 = "hello"
    assert o.v_i64 == 11 and o.v_str == "world"  # failed assignments change nothing
    with pytest.raises(AttributeError, match="read-only"):
        o.v_f64 = 1.0
    with pytest.raises(AttributeError, match="read-only"):
        T.TestIntPair(1, 2).a = 5


def test_derived_required_fields():  # item 117
    with pytest.raises(TypeError):
        T.create_object("testing.TestObjectDerived")
    m, a = tvm_ffi.Map({"k": 1}), tvm_ffi.Array([1, 2])
    d = T.create_object("testing.TestObjectDerived", v_map=m, v_array=a)
    assert isinstance(d, T.TestObjectDerived) and isinstance(d, T.TestObjectBase)
    assert d.v_map.same_as(m) and d.v_array.same_as(a)
    assert (d.v_i64, d.v_f64, d.v_str) == (10, 10.0, "hello")
    with pytest.raises(TypeError):
        T.create_object(42)


def test_empty_handle_of_new():  # item 119
    assert T.TestIntPair.__new__(T.TestIntPair).__chandle__() == 0
    assert T.TestIntPair(1, 2).__chandle__() != 0
    empty = T.TestIntPair.__new__(T.TestIntPair)
    with pytest.raises(ValueError, match="empty"):
        empty.a


def test_add_one_mismatch_names_opaque_type():  # item 30
    class MyObject:
        pass

    msg = ("Mismatched type on argument #0 when calling: `testing.add_one(0: int) -> int`. "
           "Expected `int` but got `ffi.OpaquePyObject`")
    with pytest.raises(TypeError) as info:
        T.add_one(MyObject())
    assert msg in str(info.value)


def test_registered_keys_namespaces():  # docs/python.md §25.8
    # in a fresh interpreter: other tests of this session register types of their own
    code = """
import tvm_ffi
pods = {"None", "int", "bool", "float", "void*", "DataType", "Device", "DLTensor*",
        "const char*", "TVMFFIByteArray*", "ObjectRValueRef"}
keys = tvm_ffi.registry.get_registered_type_keys()
assert {"ffi.Object", "ffi.String"} <= set(keys) and pods <= set(keys), keys
others = [k for k in keys if k not in pods and not k.startswith(("ffi.", "testing."))]
assert others == [], others
"""
    subprocess.run([sys.executable, "-c", code], check=True)


def test_parent_ffi_init_on_subclass_instance():
    d = T.TestObjectDerived.__new__(T.TestObjectDerived)
    with pytest.raises(TypeError, match="__ffi_init__"):
        T.TestObjectBase.__ffi_init__(d)
    assert d.__chandle__() == 0


def test_init_false_and_custom_init():
    key = "testing.TestIntPair"

    class NoInit(tvm_ffi.Object):
        pass

    class Custom(tvm_ffi.Object):
        def __init__(self, a):
            self.__ffi_init__(a, a + 1)

    old = _base._TYPE_CLS[_function._type_key_to_index(key)]
    try:
        tvm_ffi.register_object(key, init=False)(NoInit)
        assert "__init__" not in NoInit.__dict__ and hasattr(NoInit, "__ffi_init__")
        tvm_ffi.register_object(key)(Custom)
        c = Custom(4)
        assert (c.a, c.b) == (4, 5) and type(c) is Custom
    finally:
        tvm_ffi.register_object(key)(old)


def test_reregistration_with_a_larger_class():
    # wrappers are allocated by their own class, never in a block sized for another one: a class
    # with more slots, or with a __dict__, may replace a smaller one (docs/python.md §4.6)
    key = "testing.TestIntPair"
    old = _base._TYPE_CLS[_function._type_key_to_index(key)]
    deep_copy = tvm_ffi.get_global_func("ffi.DeepCopy")  # a new object: a new wrapper
    p = T.TestIntPair(1, 2)

    class Bigger(tvm_ffi.Object):
        __slots__ = ("extra",)

    class WithDict(tvm_ffi.Object):
        __slots__ = ("__dict__",)

    try:
        for cls in (Bigger, WithDict):
            tvm_ffi.register_object(key)(cls)
            q = deep_copy(p)
            assert type(q) is cls and (q.a, q.b) == (1, 2)
            q.extra = "x"
            assert deep_copy(q).__class__ is cls and q.extra == "x"
    finally:
        tvm_ffi.register_object(key)(old)
    assert type(deep_copy(p)) is old


def test_register_object_forms_and_skip_flag(monkeypatch):
    with pytest.raises(TypeError, match="subclass of tvm_ffi.Object"):
        tvm_ffi.register_object("testing.TestIntPair")(int)
    monkeypatch.setattr(tvm_ffi.registry, "_SKIP_UNKNOWN_OBJECTS", True)

    class Unknown(tvm_ffi.Object):
        pass

    assert tvm_ffi.register_object("no.SuchType")(Unknown) is Unknown
    assert core._type_cls_to_type_info(Unknown) is None


def test_bare_decorator_uses_class_name():
    with pytest.raises(ValueError, match="Cannot find object type index for NoSuchName"):

        @tvm_ffi.register_object
        class NoSuchName(tvm_ffi.Object):
            pass


def test_fallback_chain_and_type_info():
    o = T.make_unregistered_object()
    cls = type(o)
    info = cls.__tvm_ffi_type_info__
    assert info.type_key == "testing.TestUnregisteredObject" and info.type_cls is cls
    base = cls.__mro__[1]
    assert base.__qualname__ == "testing.TestUnregisteredBaseObject"
    assert info.parent_type_info.type_cls is base
    assert core._type_cls_to_type_info(cls) is info
    for m in info.methods:  # method docstrings are the registered ones
        if m.name in cls.__dict__:
            assert getattr(cls, m.name).__doc__ == m.doc


@pytest.mark.parametrize(
    "cls_name, key, parent",
    [
        ("Object", "ffi.Object", None),
        ("Tensor", "ffi.Tensor", "Object"),
        ("DataType", "DataType", None),
        ("Device", "Device", None),
        ("Shape", "ffi.Shape", "Object"),
        ("Module", "ffi.Module", "Object"),
        ("Function", "ffi.Function", "Object"),
        ("Error", "ffi.Error", "Object"),
        ("String", "ffi.String", "Object"),
        ("Bytes", "ffi.Bytes", "Object"),
        ("Array", "ffi.Array", "Object"),
        ("List", "ffi.List", "Object"),
        ("Map", "ffi.Map", "Object"),
        ("Dict", "ffi.Dict", "Object"),
        ("TestIntPair", "testing.TestIntPair", "Object"),
        ("TestObjectBase", "testing.TestObjectBase", "Object"),
        ("TestObjectDerived", "testing.TestObjectDerived", "TestObjectBase"),
    ],
)
def test_type_cls_to_type_info(cls_name, key, parent):  # item 124
    def lookup(name):
        for ns in (tvm_ffi, core, T):
            if hasattr(ns, name):
                return getattr(ns, name)
        raise AssertionError(name)

    info = core._type_cls_to_type_info(lookup(cls_name))
    assert isinstance(info, core.TypeInfo) and info.type_key == key
    assert info.type_index == core._object_type_key_to_index(key)
    if parent is None:
        assert info.parent_type_info is None
    else:
        assert info.parent_type_info.type_cls is lookup(parent)


def test_type_info_attribute_of_registered_class():
    info = T.TestIntPair.__tvm_ffi_type_info__
    assert info is core._type_cls_to_type_info(T.TestIntPair)
    assert [f.name for f in info.fields] == ["a", "b"]
    assert core._type_cls_to_type_info(object) is None
    assert core._object_type_key_to_index("no.SuchType") is None


def test_registering_a_parent_rebases_fallback_children():
    base_key = "testing.TestUnregisteredBaseObject"
    base_idx = _function._type_key_to_index(base_key)
    child_idx = _function._type_key_to_index("testing.TestUnregisteredObject")
    saved = {t: _base._TYPE_CLS.get(t) for t in (base_idx, child_idx)}
    try:
        for t in (base_idx, child_idx):  # start from fresh fallback classes
            _base._TYPE_CLS.pop(t, None)
        first = T.make_unregistered_object()
        assert type(first).__tvm_ffi_fallback__

        @tvm_ffi.register_object(base_key)
        class Base(tvm_ffi.Object):
            def twice_v1(self):
                return self.v1 * 2

        o = T.make_unregistered_object()
        assert isinstance(o, Base) and o.twice_v1() == 82 and o.v2 == 42
        assert type(o) is not type(first) and type(o).__qualname__ == "testing.TestUnregisteredObject"
    finally:
        for t, c in saved.items():
            if c is not None:
                _base._register_class(t, c)
            else:
                _base._TYPE_CLS.pop(t, None)


def test_set_class_object_is_recorded():
    """core._set_class_object, in every 0.1.x release's core: TVM's runtime (tilelang 0.1.8's)
    names its Object class with it on import."""

    class MyObject(tvm_ffi.Object):
        __slots__ = ()

    old = core._CLASS_OBJECT
    assert old is tvm_ffi.Object
    core._set_class_object(MyObject)
    try:
        assert core._CLASS_OBJECT is MyObject
        with pytest.raises(TypeError, match="subclass of tvm_ffi.Object"):
            core._set_class_object(int)
        assert core._CLASS_OBJECT is MyObject
    finally:
        core._set_class_object(old)
    assert core._CLASS_OBJECT is tvm_ffi.Object


def test_reflected_field_named_like_a_type_attribute_is_left_to_python():
    """TVM built against 0.1.2-0.1.9 (tilelang 0.1.8's) reflects a field ``__dict__`` on
    DictAttrs: those releases left it to Python, 0.1.12 fails to register the class (setattr on
    the class object raises); here it is skipped, other fields attached as usual."""
    from tvm_ffi import registry

    class Field:
        def __init__(self, name):
            self.name = name

        def as_property(self, cls):
            return property(lambda obj: "field " + self.name)

    class Info:
        fields = [Field("__dict__"), Field("value")]
        parent_type_info = None
        methods = []

    class Attrs(tvm_ffi.Object):
        pass

    registry._attach_reflection(Attrs, Info)
    assert "__dict__" not in Attrs.__dict__ or not isinstance(Attrs.__dict__["__dict__"], property)
    assert isinstance(Attrs.__dict__["value"], property)
