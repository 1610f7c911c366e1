"""Per-type hooks honoured by ffi.RecursiveEq/Lt/Le/Gt/Ge/Hash and ffi.ReprPrint.

``__ffi_eq__(a, b, eq)``, ``__ffi_compare__(a, b, cmp)``, ``__ffi_hash__(a, hash)`` and
``__ffi_repr__(a, repr)`` are type-attribute columns (docs/abi.md §12.6, docs/cpp.md kEq/kCompare/kHash/
kRepr).  The testing.TestCustom* fixtures register C hooks that look only at ``key``; the
behaviour asserted for them is the apache-tvm-ffi wheel's.  Python hooks are attached to fresh
py_class types through TVMFFITypeRegisterAttr to check the calling conventions.
"""

import itertools
import typing

import pytest

import tvm_ffi
import tvm_ffi.testing as T
from tvm_ffi.dataclasses import c_class, py_class

from test_dataclasses import restore  # noqa: F401  (c_class re-registers fixture classes)

g = tvm_ffi.get_global_func
Eq, Lt, Le, Gt, Ge = (g("ffi.Recursive" + n) for n in ("Eq", "Lt", "Le", "Gt", "Ge"))
Hash, Repr = g("ffi.RecursiveHash"), g("ffi.ReprPrint")
_ids = itertools.count()


def set_hook(cls, name, fn):
    """Registers fn as type attribute `name` of cls (what C++ def_type_attr does)."""
    from tvm_ffi._loader import ffi, lib

    f = tvm_ffi.convert(fn)
    v = ffi.new("TVMFFIAny*")
    v.type_index = 68  # kTVMFFIFunction
    v.v_obj = ffi.cast("void*", f.__chandle__())
    raw = name.encode()
    buf = ffi.new("char[]", raw)
    ba = ffi.new("TVMFFIByteArray*", [buf, len(raw)])
    assert lib.TVMFFITypeRegisterAttr(cls.__tvm_ffi_type_info__.type_index, ba, v) == 0


def hooked(**hooks):
    """A fresh py_class type (k: Any, s: str) with the given hooks."""

    @py_class("hooks.T%d" % next(_ids), eq=False)
    class K(tvm_ffi.Object):
        k: typing.Any
        s: str

    for name, fn in hooks.items():
        set_hook(K, "__ffi_%s__" % name, fn)
    return K


# ---- the C fixtures ------------------------------------------------------------------------


def test_custom_compare_uses_key_only():
    a, b, c = T.TestCustomCompare(1, "a"), T.TestCustomCompare(1, "b"), T.TestCustomCompare(2, "a")
    assert Eq(a, b) and not Eq(a, c)
    assert not Lt(a, b) and not Gt(b, a) and Le(a, b) and Ge(b, a)
    assert Lt(a, c) and Gt(c, a) and not Ge(a, c)
    assert Hash(a) == Hash(b) == Hash(1)  # the hook's result, the callback's hash of the key
    assert Hash(a) != Hash(c)
    assert Eq([a, "x"], [b, "x"]) and Eq({"k": a}, {"k": b})
    assert Hash(tvm_ffi.Array([a])) == Hash(tvm_ffi.Array([b]))


def test_custom_hash_only_changes_hashing():
    a, b = T.TestCustomHash(1, "a"), T.TestCustomHash(1, "b")
    assert Hash(a) == Hash(b) == Hash(1)
    assert not Eq(a, b)  # equality still compares every field
    assert Lt(a, b) and Gt(b, a)


def test_eq_without_hash():
    a, b = T.TestEqWithoutHash(1, "a"), T.TestEqWithoutHash(1, "b")
    assert Eq(a, b) and not Eq(a, T.TestEqWithoutHash(2, "a"))
    assert Lt(a, b)  # no compare hook: the order walks the fields
    for v in (a, tvm_ffi.Array([1, a]), tvm_ffi.Map({"k": a})):
        with pytest.raises(ValueError, match="TestEqWithoutHash' defines __ffi_eq__ or "
                                             "__ffi_compare__ but not __ffi_hash__"):
            Hash(v)


def test_different_types_never_reach_hooks():
    a = T.TestCustomCompare(1, "a")
    assert not Eq(a, T.TestEqWithoutHash(1, "a")) and not Eq(a, 1)
    with pytest.raises(TypeError):
        Lt(a, T.TestCustomHash(1, "a"))


def test_container_dunders_follow_hooks():
    a, b = T.TestCustomCompare(1, "a"), T.TestCustomCompare(1, "b")
    assert tvm_ffi.Array([a]) == tvm_ffi.Array([b])
    assert hash(tvm_ffi.Array([a])) == hash(tvm_ffi.Array([b]))
    assert len({tvm_ffi.Array([a]), tvm_ffi.Array([b])}) == 1
    with pytest.raises(ValueError, match="__ffi_hash__"):
        hash(tvm_ffi.Array([T.TestEqWithoutHash(1, "a")]))


def test_c_class_dunders_follow_hooks():
    def cxx(key, **params):
        return c_class("testing." + key, **params)(type(key, (tvm_ffi.Object,), {}))

    CC = cxx("TestCustomCompare", eq=True, order=True, frozen=True)
    assert CC(1, "a") == CC(1, "b") and CC(1, "a") != CC(2, "a")
    assert CC(1, "z") < CC(2, "a") and CC(1, "b") <= CC(1, "a") and not CC(1, "a") < CC(1, "b")
    assert hash(CC(1, "a")) == hash(CC(1, "b"))
    EW = cxx("TestEqWithoutHash", eq=True, frozen=True)
    assert EW(3, "a") == EW(3, "b")
    with pytest.raises(ValueError, match="__ffi_hash__"):
        hash(EW(3, "a"))
    CH = cxx("TestCustomHash", eq=True, frozen=True)
    assert CH(1, "a") != CH(1, "b") and hash(CH(1, "a")) == hash(CH(1, "b"))


# ---- Python hooks: calling conventions ------------------------------------------------------


def test_eq_hook_gets_objects_and_recursive_eq():
    seen = []

    def eq(a, b, f):
        seen.append((a.k, b.k))
        assert f([1, "x"], (1, "x")) and not f("a", "b") and not f(1, "1")
        return f(a.k % 10, b.k % 10)

    K = hooked(eq=eq)
    x, y = K(1, "a"), K(11, "b")
    assert Eq(x, y) and not Eq(x, K(2, "a"))
    assert seen[0] == (1, 11)
    n = len(seen)
    assert Eq(x, x) and len(seen) == n  # the same object: no hook call
    assert Lt(x, y)  # no compare hook: fields decide
    with pytest.raises(ValueError, match="__ffi_hash__"):
        Hash(x)


def test_compare_hook_gives_order_and_equality():
    def cmp(a, b, f):
        assert f(1, 2) == -1 and f("b", "a") == 1 and f(None, None) == 0
        assert f({"k": [1]}, {"k": [1]}) == 0
        with pytest.raises(TypeError):
            f(1, "a")
        with pytest.raises(TypeError, match="NaN"):
            f(float("nan"), 1.0)
        return f(-a.k, -b.k)  # reversed order

    K = hooked(compare=cmp, hash=lambda a, f: f(a.k))
    x, y = K(1, "a"), K(2, "a")
    assert Lt(y, x) and Gt(x, y) and Le(y, x) and Ge(x, y) and not Lt(x, y)
    assert Eq(K(3, "a"), K(3, "b")) and not Eq(x, y)
    assert Le(K(3, "a"), K(3, "b")) and Ge(K(3, "a"), K(3, "b"))
    assert Hash(K(3, "a")) == Hash(K(3, "b")) == Hash(3)


def test_hash_hook_result_is_the_hash():
    K = hooked(hash=lambda a, f: -5 if a.k == 0 else True)
    assert Hash(K(0, "")) == -5 and Hash(K(1, "")) == 1
    assert Hash([K(0, "a")]) == Hash([K(0, "b")])


def test_repr_hook():
    K = hooked(repr=lambda a, f: "K<%s, %s>" % (f(a.k), f(a.s)))
    assert Repr(K(1, "a")) == 'K<1, "a">'
    assert Repr(tvm_ffi.Array([K(2, "b"), 3])) == '(K<2, "b">, 3)'
    assert str(tvm_ffi.List([K(3, "c")])) == '[K<3, "c">]'
    Self = hooked(repr=lambda a, f: "S" + f(a))
    assert "..." in Repr(Self(1, ""))  # the object itself is on the printer's stack


@pytest.mark.parametrize("ret", [1.5, None, "x"])
def test_hooks_returning_wrong_kinds_raise_type_error(ret):
    K = hooked(eq=lambda a, b, f: ret, compare=lambda a, b, f: ret, hash=lambda a, f: ret)
    R = hooked(repr=lambda a, f: 1 if ret == "x" else ret)
    x, y = K(1, ""), K(2, "")
    with pytest.raises(TypeError, match="__ffi_eq__ of `hooks.T"):
        Eq(x, y)
    with pytest.raises(TypeError, match="__ffi_compare__"):
        Lt(x, y)
    with pytest.raises(TypeError, match="__ffi_hash__"):
        Hash(x)
    with pytest.raises(TypeError, match="__ffi_repr__ .* expected str"):
        Repr(R(1, ""))


def test_hook_errors_propagate():
    def boom(*args):
        raise KeyError("boom")

    K = hooked(eq=boom, compare=boom, hash=boom, repr=boom)
    for fn, args in ((Eq, 2), (Ge, 2), (Hash, 1), (Repr, 1)):
        with pytest.raises(KeyError, match="boom"):
            fn(*[K(i, "") for i in range(args)])


def test_callbacks_check_their_arguments():
    K = hooked(eq=lambda a, b, f: f(1), hash=lambda a, f: f(), repr=lambda a, f: f(1, 2))
    with pytest.raises(TypeError, match="Expected 2"):
        Eq(K(1, ""), K(2, ""))
    with pytest.raises(TypeError, match="Expected 1"):
        Hash(K(1, ""))
    with pytest.raises(TypeError, match="Expected 1"):
        Repr(K(1, ""))


def test_kept_callback_still_works():
    kept = []
    K = hooked(hash=lambda a, f: kept.append(f) or f(a.k))
    Hash(K(1, ""))
    assert kept[0]([1, 2]) == Hash([1, 2])


# ---- __s_equal__ / __s_hash__: StructuralEqual / StructuralHash / mismatch paths -----------


def test_structural_hooks():
    from tvm_ffi import structural

    calls = []

    def s_equal(a, b, f):
        calls.append("eq")
        with pytest.raises(TypeError, match="Expected 4"):
            f(a.k, b.k)
        return f(a.k, b.k, 0, "k")

    def s_hash(a, init, f):
        assert isinstance(init, int)
        assert f(1, 0, 0) != f(1, 5, 0)  # f combines init with the value's hash
        return f(a.k, init, 0)

    K = hooked()
    set_hook(K, "__s_equal__", s_equal)
    set_hook(K, "__s_hash__", s_hash)
    a, b, c = K(1, "a"), K(1, "b"), K(2, "a")
    assert structural.structural_equal(a, b) and not structural.structural_equal(a, c)
    assert calls
    assert structural.structural_hash(a) == structural.structural_hash(b)
    assert structural.structural_hash([a]) == structural.structural_hash([b])
    assert structural.structural_hash(a) != structural.structural_hash(c)
    assert structural.get_first_structural_mismatch(a, b) is None
    lhs, rhs = structural.get_first_structural_mismatch([K([1, 2], "x")], [K([1, 3], "y")])
    steps = lhs.to_steps()
    assert [s.kind for s in steps] == [1, 0, 1] and steps[1].key == "k" and steps[2].key == 1
    assert [s.key for s in rhs.to_steps()] == [s.key for s in steps]


def test_structural_hook_wrong_result():
    K = hooked()
    set_hook(K, "__s_equal__", lambda a, b, f: None)
    set_hook(K, "__s_hash__", lambda a, init, f: "h")
    from tvm_ffi import structural

    with pytest.raises(TypeError, match="__s_equal__"):
        structural.structural_equal(K(1, ""), K(2, ""))
    with pytest.raises(TypeError, match="__s_hash__"):
        structural.structural_hash(K(1, ""))


# ---- __data_to_json__ / __data_from_json__: the JSON graph form of a type ----------------------


def test_data_json_hooks_replace_the_fields():
    """A library's hooks (TVM gives ffi.Tensor one) write the node's data and read it back."""
    from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str

    K = hooked()
    key = K.__tvm_ffi_type_info__.type_key
    set_hook(K, "__data_to_json__", lambda v: "%s|%s" % (v.k, v.s))
    set_hook(K, "__data_from_json__", lambda d: K(int(d.split("|")[0]), d.split("|")[1]))
    a = K(5, "x")
    text = to_json_graph_str([a, a])
    assert text == (
        '{"root_index":1,"nodes":[{"type":"%s","data":"5|x"},{"type":"ffi.Array","data":[0,0]}]}'
        % key
    )
    back = from_json_graph_str(text)
    assert back[0].same_as(back[1]) and (back[0].k, back[0].s) == (5, "x")
    bad = '{"root_index":0,"nodes":[{"type":"%s","data":"nobar"}]}' % key
    with pytest.raises(ValueError, match="nobar"):  # the hook's own error
        from_json_graph_str(bad)


# ---- native __any_hash__ / __any_equal__ of either release's headers ---------------------------


def test_native_key_hooks_of_older_headers():
    """Native Map-key hooks as libraries built with apache-tvm-ffi 0.1.9-0.1.14 headers store them
    (TVM 0.27's ir.PrimType): ``int64_t f(const Any&)`` / ``bool f(const Any&, const Any&)`` as
    opaque pointers, where 0.1.15's are ``TVMFFIAny f(...) noexcept`` adapters (tests/c/test_map.c):
    each is called in its own convention (docs/abi.md §5.6)."""
    from tvm_ffi._loader import ffi, lib

    @py_class("hooks.NativeKey%d" % next(_ids), eq=False)
    class K(tvm_ffi.Object):
        k: int

    info = K.__tvm_ffi_type_info__
    field = [f for f in info.fields if f.name == "k"][0]
    offset = field.offset + (8 if field.size == 16 else 0)  # an int, or the value of an Any slot

    def k_of(any_ptr):
        obj = ffi.cast("TVMFFIAny*", any_ptr).v_obj
        return ffi.cast("int64_t*", ffi.cast("char*", obj) + offset)[0]

    hash_cb = ffi.callback("int64_t(void*)", lambda a: k_of(a) % 3)  # 1 reads like an Int
    equal_cb = ffi.callback("bool(void*, void*)", lambda a, b: k_of(a) == k_of(b))
    for name, cb in (("__any_hash__", hash_cb), ("__any_equal__", equal_cb)):
        v = ffi.new("TVMFFIAny*")
        v.type_index = 4  # kTVMFFIOpaquePtr
        v.v_ptr = ffi.cast("void*", cb)
        raw = name.encode()
        buf = ffi.new("char[]", raw)
        assert lib.TVMFFITypeRegisterAttr(info.type_index, ffi.new("TVMFFIByteArray*",
                                                                    [buf, len(raw)]), v) == 0
    m = tvm_ffi.Map({K(1): "one", K(4): "four", K(5): "five", 0: 0, 2: 2})  # dense: hashed
    assert m[K(1)] == "one" and m[K(4)] == "four" and m[K(5)] == "five"
    assert K(7) not in m
    d = tvm_ffi.Dict({K(1): 1})
    d[K(1)] = 2
    assert len(d) == 1 and d[K(1)] == 2
    K._keep = (hash_cb, equal_cb)  # the type outlives the test: so must its hooks
