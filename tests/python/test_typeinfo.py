"""Reflection records (docs/python.md §4.7): TypeSchema, TypeInfo, TypeField, TypeMethod and the core
lookup helpers, read from the testing library's reflected fixtures."""

import json
import os
import shutil
import subprocess

import pytest

import tvm_ffi
import tvm_ffi.testing as T
from tvm_ffi import _base, _loader, core, error
from tvm_ffi.core import TypeField, TypeInfo, TypeMethod, TypeSchema


def schema(obj):
    return TypeSchema.from_json_str(json.dumps(obj))


@pytest.mark.parametrize(
    "obj, text",
    [
        ({"type": "ffi.Function", "args": [{"type": "float"}, {"type": "int"}, {"type": "float"}]},
         "Callable[[int, float], float]"),
        ({"type": "ffi.Function", "args": [{"type": "None"}, {"type": "ffi.Tensor"},
                                           {"type": "ffi.Tensor"}]},
         "Callable[[Tensor, Tensor], None]"),
        ({"type": "ffi.Function", "args": [{"type": "ffi.String"}, {"type": "bool"},
                                           {"type": "DLTensor*"}]},
         "Callable[[bool, Tensor], str]"),
        ({"type": "ffi.Function", "args": [{"type": "int"}]}, "Callable[[], int]"),
        ({"type": "ffi.Function"}, "Callable[..., Any]"),
        ({"type": "Optional", "args": [{"type": "int"}]}, "int | None"),
        ({"type": "Variant", "args": [{"type": "int"}, {"type": "ffi.String"}]}, "int | str"),
        ({"type": "ffi.Array", "args": [{"type": "int"}]}, "Array[int]"),
        ({"type": "ffi.Map", "args": [{"type": "ffi.String"}, {"type": "Any"}]}, "Map[str, Any]"),
        ({"type": "Tuple", "args": [{"type": "int"}, {"type": "ffi.Bytes"}]}, "tuple[int, bytes]"),
        ({"type": "testing.TestIntPair"}, "testing.TestIntPair"),
    ],
)
def test_type_schema_text(obj, text):
    s = schema(obj)
    assert repr(s) == text and str(s) == text
    assert TypeSchema.from_json_obj(obj) == s  # frozen dataclass: structural equality


def test_type_schema_ty_map_and_errors():
    s = schema({"type": "ffi.Array", "args": [{"type": "testing.TestIntPair"}]})
    assert s.origin == "Array" and s.args[0].origin == "testing.TestIntPair"
    assert s.repr(lambda o: o.split(".")[-1]) == "Array[TestIntPair]"
    for bad in ('{"args": []}', '[1, 2]', '{"type": 3}'):  # not a schema object: as upstream
        with pytest.raises(TypeError):
            TypeSchema.from_json_str(bad)
    # entries that are not schemas (C++ array lengths, a scalar "args") are skipped
    assert TypeSchema.from_json_str('{"type": "int", "args": 5}') == TypeSchema("int")
    assert TypeSchema.from_json_str('{"type": "std::vector", "args": [{"type": "int"}, 3]}') \
        == TypeSchema("Array", (TypeSchema("int"),))
    with pytest.raises(ValueError):
        TypeSchema.from_json_str("not json")
    with pytest.raises(ValueError, match="Optional"):
        TypeSchema("Optional", ())


def test_type_schema_named_args_and_defaults():
    named = schema({"type": "ffi.Function", "named_args": {
        "return": [{"type": "ffi.BigInt"}], "params": [{"type": "ffi.Array"}, {"type": "bool"}]}})
    assert str(named) == "Callable[[Array[Any], bool], int]" and named.args == ()
    assert named.named_args["return"][0].type_key == "ffi.BigInt"
    assert named == schema({"type": "ffi.Function", "args": [
        {"type": "ffi.BigInt"}, {"type": "ffi.Array"}, {"type": "bool"}]})
    # positional (return, params...) construction, as the old JSON spelling
    built = TypeSchema("Callable", (TypeSchema("int"), TypeSchema("float")))
    assert built.named_args == {"return": (TypeSchema("int"),), "params": (TypeSchema("float"),)}
    assert str(TypeSchema("Callable", (TypeSchema("int"),))) == "Callable[..., int]"
    assert TypeSchema("Map").args == (TypeSchema("Any"), TypeSchema("Any"))
    with pytest.raises(ValueError, match="Map takes 0 or 2"):
        TypeSchema("Map", (TypeSchema("int"),))


def test_global_function_schema():
    meta = tvm_ffi.get_global_func_metadata("testing.TestIntPairSum")
    assert str(TypeSchema.from_json_str(meta["type_schema"])) == "Callable[[testing.TestIntPair], int]"


def test_type_info_of_base_fields():
    info = core._type_cls_to_type_info(T.TestObjectBase)
    assert isinstance(info, TypeInfo)
    assert info.type_key == "testing.TestObjectBase" and info.type_cls is T.TestObjectBase
    assert info.type_ancestors == [core._object_type_key_to_index("ffi.Object")]
    assert info.parent_type_info is core._type_cls_to_type_info(tvm_ffi.Object)
    by_name = {f.name: f for f in info.fields}
    assert list(by_name) == ["v_i64", "v_f64", "v_str"]
    assert all(isinstance(f, TypeField) for f in info.fields)
    i64, f64, s = by_name["v_i64"], by_name["v_f64"], by_name["v_str"]
    assert (i64.offset, i64.size, i64.frozen, i64.doc) == (24, 8, False, "i64 field")
    assert f64.frozen and f64.doc is None and s.size == 16
    assert str(i64.ty) == "int" and str(f64.ty) == "float" and str(s.ty) == "str"
    assert i64.c_has_default and i64.c_default == 10 and f64.c_default == 10.0
    assert s.c_default == "hello"
    assert i64.init and not i64.kw_only and i64.repr and i64.compare and i64.hash
    assert "type_schema" in i64.metadata
    derived = core._type_cls_to_type_info(T.TestObjectDerived)
    assert derived.parent_type_info is info
    assert [f.name for f in derived.all_fields()] == ["v_i64", "v_f64", "v_str", "v_map", "v_array"]
    assert not derived.fields[0].c_has_default


def test_type_methods():
    info = core._type_cls_to_type_info(T.TestIntPair)
    methods = {m.name: m for m in info.methods}
    assert isinstance(methods["sum"], TypeMethod)
    assert methods["__ffi_init__"].is_static and not methods["sum"].is_static
    assert str(methods["sum"].ty) == "Callable[[], int]"
    fn = methods["sum"].as_callable(T.TestIntPair)
    assert fn.__name__ == "sum" and fn.__qualname__ == "TestIntPair.sum"
    assert fn(T.TestIntPair(2, 5)) == 7
    make = methods["__ffi_init__"].as_callable(T.TestIntPair)
    assert isinstance(make, staticmethod) and make.__func__(3, 4).sum() == 7


def test_field_as_property_on_a_plain_subclass():
    info = core._type_cls_to_type_info(T.TestObjectBase)

    class View(T.TestObjectBase):
        pass

    f = {f.name: f for f in info.fields}
    prop = f["v_i64"].as_property(View)
    assert isinstance(prop, property) and prop.__doc__ == "i64 field"
    o = T.TestObjectBase()
    assert prop.fget(o) == 10
    prop.fset(o, 42)
    assert o.v_i64 == 42
    read_only = f["v_f64"].as_property(View)
    assert read_only.fset is None and isinstance(read_only, core.FFIProperty)
    with pytest.raises(AttributeError, match="read-only"):
        read_only.__set__(o, 1.0)
    with pytest.raises(TypeError):
        prop.fget(3)  # not an FFI object


def test_field_getter_errors_on_empty_handle():
    empty = T.TestObjectBase.__new__(T.TestObjectBase)
    for name in ("v_i64", "v_str"):
        with pytest.raises(ValueError, match="empty"):
            getattr(empty, name)
    with pytest.raises(ValueError, match="empty"):
        empty.v_i64 = 3


def test_lookup_type_attr():
    pair = core._object_type_key_to_index("testing.TestIntPair")
    assert isinstance(core._lookup_type_attr(pair, "__ffi_init__"), tvm_ffi.Function)
    assert core._lookup_type_attr(pair, "__no_such_attr_column__") is None
    # an attribute registered on the base only is found from the derived type with ancestor=True
    base = core._object_type_key_to_index("testing.TestObjectBase")
    derived = core._object_type_key_to_index("testing.TestObjectDerived")
    name = b"__pyobj_test_attr__"
    col = _loader.lib.TVMFFIGetTypeAttrColumn(_base._bytearray(name)[0])
    if col == _loader.ffi.NULL or not (0 <= base < col.size) or col.data[base].type_index == 0:
        value = _loader.ffi.new("TVMFFIAny*")
        value.type_index, value.v_int64 = 1, 77
        ba, buf = _base._bytearray(name)
        error._check(_loader.lib.TVMFFITypeRegisterAttr(base, ba, value))
    assert core._lookup_type_attr(base, name.decode()) == 77
    assert core._lookup_type_attr(derived, name.decode()) is None
    assert core._lookup_type_attr(derived, name.decode(), ancestor=True) == 77


# What apache-tvm-ffi 0.1.15 publishes as __ffi_type_final__ (its ObjectDef does it for each
# reflected type); the static containers publish nothing.
@pytest.mark.parametrize("key, final", [
    ("ffi.Module", True), ("ffi.BigInt", True), ("ffi.VisitInterrupt", True),
    ("ffi.reflection.AccessStep", True), ("ffi.reflection.AccessPath", True),
    ("ffi.VisitErrorContext", True), ("ffi.StructuralKey", True), ("ffi.EnumState", True),
    ("ffi.Enum", False), ("ffi.IntEnum", False), ("ffi.StrEnum", False),
    ("ffi.StructuralVisitor", False), ("ffi.StructuralMutator", False),
    ("testing.TestCxxIntEnum", True), ("testing.TestCxxEnumHolder", False),
    ("testing.TestUnregisteredObject", False), ("ffi.Array", None), ("ffi.String", None),
])
def test_type_final_published(key, final):
    tindex = core._object_type_key_to_index(key)
    assert core._lookup_type_attr(tindex, "__ffi_type_final__") is final


def test_lookup_or_register_by_key():
    info = core._lookup_or_register_type_info_from_type_key("testing.TestIntPair")
    assert info is core._type_cls_to_type_info(T.TestIntPair)
    with pytest.raises(ValueError, match="Cannot find object type index for no.Such"):
        core._lookup_or_register_type_info_from_type_key("no.Such")


def _subclass_kernel(tmp_path, parent, child):
    """Builds kernels/subclasskernel.c deriving `child` from `parent` in its static init."""
    cc = os.environ.get("CC", "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip("no C compiler to build the test kernel")
    here = os.path.dirname(os.path.abspath(__file__))
    out = str(tmp_path / (child + ".so"))
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-O1",
            "-I",
            os.path.join(here, "..", "..", "c", "include"),
            '-DPARENT="%s"' % parent,
            '-DCHILD="%s"' % child,
            os.path.join(here, "kernels", "subclasskernel.c"),
            "-o",
            out,
        ],
        check=True,
    )
    return out


def test_library_subclasses_a_runtime_type(tmp_path):
    """A package's C++ class deriving from ffi.StructuralVisitor registers at load time."""
    mod = tvm_ffi.load_module(_subclass_kernel(tmp_path, "ffi.StructuralVisitor", "sk.Visitor"))
    index = mod.child_index()
    assert index >= 128
    parent = tvm_ffi.core._lookup_or_register_type_info_from_type_key("ffi.StructuralVisitor")
    child = tvm_ffi.core._lookup_or_register_type_info_from_type_key("sk.Visitor")
    assert child.type_index == index and child.parent_type_info.type_key == parent.type_key


def test_refused_type_registration_fails_the_load(tmp_path):
    """ffi.Array takes no subclasses: the load raises instead of ending the process."""
    path = _subclass_kernel(tmp_path, "ffi.Array", "sk.MyArray")
    with pytest.raises(TypeError, match="Reach maximum number of sub-classes for type `ffi.Array`"):
        tvm_ffi.load_module(path)
    assert error._move_raised_error() is None  # the error slot is left clean
