"""Issue 22: input from Python that used to crash or corrupt memory at the binding's boundary.

Each refusal is a Python exception; the process survives and nothing else changes.
  - field descriptors (py_class and C++-registered) apply only to objects of their type;
  - the state the runtime trusts (a wrapper's handle, a tensor view, a container's exchange
    table tag) is read-only from Python.
"""

import copy
import uuid

import pytest

import tvm_ffi
import tvm_ffi.testing as T
from tvm_ffi import _typeinfo, core
from tvm_ffi.dataclasses import py_class


def _key(name):
    return "testing.hostile.%s_%s" % (name, uuid.uuid4().hex[:8])


@py_class(_key("A"))
class A(tvm_ffi.Object):
    x: int
    s: str


@py_class(_key("B"))
class B(tvm_ffi.Object):
    y: int


@py_class(_key("ASub"))
class ASub(A):
    z: int


@py_class(_key("Small"))
class Small(tvm_ffi.Object):
    a: int


@py_class(_key("Big"))
class Big(tvm_ffi.Object):
    a: int
    b: int
    c: int
    d: int


FOREIGN = [None, 1, "text", b"x", 1.5, A, object(), [1], tvm_ffi.convert([1, 2])]


# ---------------------------------------------------------------------------------------------
# 1. field descriptors check the instance


@pytest.mark.parametrize("field", ["x", "s"])
def test_py_class_getter_refuses_another_py_class(field):
    b = B(1)
    with pytest.raises(TypeError, match="doesn't apply to a"):
        getattr(A, field).__get__(b)
    assert b.y == 1


def test_py_class_setter_refuses_another_py_class():
    b = B(1)
    with pytest.raises(TypeError, match="doesn't apply to a"):
        A.x.__set__(b, 777)
    assert b.y == 1


def test_setter_on_a_smaller_object_leaves_the_neighbours_alone():
    xs = [Small(i) for i in range(100)]
    with pytest.raises(TypeError):
        Big.d.__set__(xs[50], 0x4141414141)
    assert [x.a for x in xs] == list(range(100))


@pytest.mark.parametrize("bad", FOREIGN, ids=lambda v: type(v).__name__)
def test_descriptors_refuse_non_instances(bad):
    with pytest.raises(TypeError):
        A.x.fget(bad)
    with pytest.raises(TypeError):
        A.x.__set__(bad, 1)
    with pytest.raises(TypeError):
        A.s.set(bad, "v")


def test_descriptors_refuse_an_empty_wrapper():
    empty = A.__new__(A)
    with pytest.raises(ValueError, match="empty"):
        A.x.__get__(empty)
    with pytest.raises(ValueError, match="empty"):
        A.x.__set__(empty, 1)


def test_descriptors_accept_a_subclass():
    sub = ASub(1, "q", 3)
    assert (A.x.__get__(sub), A.s.__get__(sub)) == (1, "q")
    A.x.__set__(sub, 5)
    assert sub.x == 5 and sub.z == 3


def test_cxx_field_descriptors_check_the_instance():
    pair = T.TestIntPair(3, 7)
    with pytest.raises(TypeError, match="testing.TestObjectDerived"):
        T.TestObjectDerived.v_map.__get__(pair)
    with pytest.raises(TypeError):
        T.TestObjectDerived.v_map.__set__(pair, {})
    with pytest.raises(TypeError):
        T.TestIntPair.a.__get__(B(1))
    assert (pair.a, pair.b) == (3, 7)


@pytest.mark.parametrize("read", [
    lambda o: core.Tensor.shape.fget(o),
    lambda o: core.Tensor.ndim.fget(o),
    lambda o: core.Error.kind.fget(o),
    lambda o: core.Error.message.fget(o),
    lambda o: core.OpaquePyObject.pyobject(o),
], ids=["Tensor.shape", "Tensor.ndim", "Error.kind", "Error.message", "pyobject"])
def test_cell_accessors_check_the_object_type(read):
    with pytest.raises((TypeError, AttributeError)):
        read(tvm_ffi.convert([1, 2]))
    with pytest.raises((TypeError, AttributeError)):
        read(B(1))


def test_error_accessor_on_an_empty_error():
    with pytest.raises(ValueError):
        core.Error.__new__(core.Error).kind  # noqa: B018


# ---------------------------------------------------------------------------------------------
# 2. the handle (and what else the runtime trusts) is read-only


def _wrappers():
    return [tvm_ffi.convert([1, 2]), tvm_ffi.convert({1: 2}), tvm_ffi.get_global_func("ffi.Array"),
            B(1), T.TestIntPair(1, 2), core.Error("ValueError", "m", "")]


@pytest.mark.parametrize("i", range(6))
def test_handle_is_read_only(i):
    o = _wrappers()[i]
    h = o._h
    with pytest.raises(AttributeError):
        o._h = 12345
    with pytest.raises(AttributeError):
        del o._h
    with pytest.raises(AttributeError):
        object.__setattr__(o, "_h", 12345)
    with pytest.raises(AttributeError):
        type(o)._h.__set__(o, 12345)
    assert o._h == h


def test_container_still_works_after_refused_assignment():
    o = tvm_ffi.convert([1, 2])
    with pytest.raises(AttributeError):
        o._h = 12345
    assert len(o) == 2 and list(o) == [1, 2]


def test_tensor_view_and_container_tag_are_read_only():
    t = core.Tensor.__new__(core.Tensor)
    with pytest.raises(AttributeError):
        t._view = 0x1234
    with pytest.raises(ValueError):
        t.shape  # noqa: B018
    o = tvm_ffi.convert([1])
    with pytest.raises(AttributeError):
        o._tvm_api = 0x4141
    assert o._tvm_api is None


@pytest.mark.parametrize("cls", [T.TestIntPair, T.TestObjectBase, T.TestObjectDerived])
def test_copy_follows_the_object_not_the_wrapper_class(cls):
    # copy.copy picked the C copy hook by the wrapper's class: after a __class__ swap it ran
    # the TestIntPair hook over an opaque object and read past its end (SIGSEGV)
    o = tvm_ffi.convert(object())
    o.__class__ = cls
    with pytest.raises(TypeError, match="does not support copy"):
        copy.copy(o)
    pair = T.TestIntPair(3, 4)
    assert (copy.copy(pair).a, copy.copy(pair).b) == (3, 4)


@pytest.mark.parametrize("cls", [T.TestIntPair, T.TestObjectBase, T.TestObjectDerived])
def test_copy_hooks_check_the_object_type(cls):
    # each C copy hook copies objects of exactly its type: size and owned fields come from it
    hook = _typeinfo._lookup_type_attr(cls.__tvm_ffi_type_info__.type_index,
                                       "__ffi_shallow_copy__")
    foreign = [tvm_ffi.convert(object()), tvm_ffi.convert([1, 2]), B(1)]
    foreign += [T.TestIntPair(1, 2)] if cls is not T.TestIntPair else []
    for obj in foreign:
        with pytest.raises(TypeError, match="Mismatched type on argument #0"):
            hook(obj)


# ---------------------------------------------------------------------------------------------
# 4. error text and repr keep every byte


def test_error_message_keeps_embedded_nul():
    raise_error = tvm_ffi.get_global_func("testing.test_raise_error")
    with pytest.raises(ValueError) as info:
        raise_error("ValueError", "a\x00b")
    assert str(info.value) == "a\x00b"


def test_error_kind_keeps_embedded_nul():
    @tvm_ffi.register_error("Nul\x00KindError")
    class NulKindError(Exception):
        pass

    raise_error = tvm_ffi.get_global_func("testing.test_raise_error")
    with pytest.raises(NulKindError, match="msg"):
        raise_error("Nul\x00KindError", "msg")


@pytest.mark.parametrize(
    "name, args, kind, text",
    [
        ("ffi.GetGlobalFuncMetadata", ("nul\x00tail",), RuntimeError, "not found: nul\\x00tail"),
        ("ffi.MakeObjectFromPackedArgs", ("no\x00such",), ValueError, "type `no\\x00such`"),
        (
            "ffi.MakeObjectFromPackedArgs",
            ("testing.TestObjectBase", "v_i64", 1, "b\x00tail", 2),
            TypeError,
            "field `b\\x00tail`",
        ),
    ],
)
def test_runtime_message_shows_names_past_a_nul(name, args, kind, text):
    # The runtime's own messages keep user text after an embedded NUL, escaped as \x00
    # (docs/abi.md §9.1) the way Python's repr of the name writes it.
    with pytest.raises(kind) as info:
        tvm_ffi.get_global_func(name)(*args)
    assert text in str(info.value) and "\x00" not in str(info.value)


def test_python_error_with_nul_crosses_the_boundary():
    def fail():
        raise ValueError("k\x00ey")

    with pytest.raises(ValueError) as info:
        tvm_ffi.get_global_func("testing.apply")(fail)
    assert info.value.args == ("k\x00ey",)
    err = core.Error("Value\x00Error", "m\x00n", "bt\x00")
    assert (err.kind, err.message, err.backtrace) == ("Value\x00Error", "m\x00n", "bt\x00")


def test_repr_of_bytes_is_encodable_text():
    r = repr(tvm_ffi.convert([b"\x00\xff", "s\x00\u20ac"]))
    r.encode("utf-8")  # no lone surrogates
    assert r == '(b"\\x00\\xff", "s\\u0000\u20ac")'
    e = repr(core.Error("My\x00Err", "a\x00b", ""))
    e.encode("utf-8")
    assert "\x00" not in e


# ---------------------------------------------------------------------------------------------
# 3. walks over values with shared nodes are linear in the distinct nodes

_DAG = """
import tvm_ffi
import tvm_ffi.structural
def dag(n, leaf=1):
    a = tvm_ffi.convert([leaf])
    for _ in range(n):
        a = tvm_ffi.convert([a, a])
    return a
def pydag(n):
    x = [1]
    for _ in range(n):
        x = [x, {"k": x}]
    return x
a, b = dag(60), dag(60)
"""


def _run_bounded(snippet, timeout=60):
    """Runs snippet after _DAG in a fresh interpreter: a walk gone exponential fails the test
    by its timeout instead of hanging the suite."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    proc = subprocess.run([sys.executable, "-c", _DAG + snippet], capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("expr", [
    "hash(a)", "a == b", "a != dag(60, 2)", "a in [b]", "a in {b}", "{a: 1}[b]",
    "tvm_ffi.get_global_func('ffi.RecursiveEq')(a, b)",
    "tvm_ffi.get_global_func('ffi.RecursiveLe')(a, b)",
    "tvm_ffi.convert({'k': a})['k'] == b",
    "tvm_ffi.structural.structural_equal(a, b)",
    "tvm_ffi.structural.structural_hash(a)",
    "tvm_ffi.structural.structural_map(a, [(tvm_ffi.Array, lambda x: x)]).same_as(a)",
    "(lambda r: r[0].same_as(r[1]))(tvm_ffi.structural.structural_map(a, [(int, lambda x: x + 1)]))",
    "tvm_ffi.structural.structural_walk(a, [(tvm_ffi.Array, lambda x: None)]) is None",
    "tvm_ffi.structural.structural_visit(a, [(tvm_ffi.Array, lambda x, v: v.default_visit(x))])"
    " is None",
    "__import__('copy').deepcopy(a) == b",
    "__import__('pickle').loads(__import__('pickle').dumps(a)) == b",
    "tvm_ffi.convert(pydag(30)) is not None",
    "tvm_ffi.get_global_func('testing.echo')(pydag(30)) is not None",
    "tvm_ffi.convert([[1]] * 3) == [[1]] * 3",
])
def test_walks_over_shared_nodes_terminate(expr):
    assert _run_bounded("r = %s\nprint(bool(r) if not isinstance(r, int) or isinstance(r, bool)"
                        " else 'int')" % expr).split()[-1] in ("True", "int")


def test_asdict_astuple_of_shared_nodes():
    out = _run_bounded("""
import typing
from tvm_ffi.dataclasses import asdict, astuple, py_class
@py_class("testing.hostile.N_%s" % __import__("uuid").uuid4().hex[:8])
class N(tvm_ffi.Object):
    l: typing.Any
    r: typing.Any
x = N(1, 2)
for _ in range(60):
    x = N(x, x)
d, t = asdict(x), astuple(x)
print(d["l"] is d["r"], t[0] is t[1], d["l"]["l"]["l"] is d["r"]["r"]["r"])
""")
    assert out.split() == ["True", "True", "True"]


def test_repr_of_shared_nodes_refers_back():
    out = _run_bounded("r = repr(a)\nprint(len(r))\nprint(r[:12])\nr.encode()")
    n, head = out.split()
    assert int(n) < 2000 and head == "(#1=(#2=(#3="


def test_json_of_shared_nodes_is_refused_not_expanded():
    out = _run_bounded("""
try:
    tvm_ffi.get_global_func('ffi.json.Stringify')(a)
except ValueError as e:
    print('refused' if 'sharing' in str(e) else e)
""")
    assert out.strip() == "refused"
