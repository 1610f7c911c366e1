"""py_class over a class made with the C++ headers (docs/python.md §4.10, docs/cpp.md §5):
the parent's part of each object is a real C++ object, so members reflection does not see (a
std::vector, a std::string, a reference) are constructed, copied and destroyed by C++, and the
destructor runs exactly once per object.  The parent lives in tests/cpp/py_parent_lib.so."""

import copy
import gc
import itertools
import os
from typing import Optional

import pytest
import tvm_ffi
from tvm_ffi import core
from tvm_ffi.dataclasses import c_class, py_class, replace

_BUILD = os.path.join(os.environ.get("TVM_FFI_LIBRARY_PATH", ""), "..", "..")
_LIB = os.path.join(_BUILD, "tests", "cpp", ".libs", "py_parent_lib.so")
if not os.path.exists(_LIB):
    pytest.skip("tests/cpp/.libs/py_parent_lib.so is not built (make check builds it)",
                allow_module_level=True)
_MODULE = tvm_ffi.load_module(_LIB)
_keys = itertools.count()
use_count = tvm_ffi.get_global_func("testing.object_use_count")


def counts():
    made, copied, destroyed = tvm_ffi.get_global_func("pyparentlib.counts")()
    return made, copied, destroyed


@c_class("pyparentlib.Tracked")
class Tracked(tvm_ffi.Object):
    n: int


@c_class("pyparentlib.Sole")
class Sole(tvm_ffi.Object):
    pass


def _key(name):
    return "testing.cxx_parent.%s_%d" % (name, next(_keys))


def _settle():
    gc.collect()
    return counts()


def refs(obj):
    gc.collect()  # (PyPy keeps temporary wrappers, each holding a reference, until collected)
    return use_count(obj)


def test_destructor_runs_once_per_object():
    @py_class(_key("Child"))
    class Child(Tracked):
        note: str = "n"
        ref: Optional[tvm_ffi.Object] = None

    made, copied, destroyed = _settle()
    held = Tracked()
    obj = Child(n=4, note="a note long enough to live on the heap", ref=held)
    assert counts() == (made + 2, copied, destroyed)  # `held`, and obj's parent part
    assert obj.summary() == "short:10"  # the C++ default members, not zeroed bytes
    obj.set_label("a label long enough to need a heap block of its own")
    obj.push(5)
    obj.set_hidden(held)  # a reference only the destructor releases
    assert refs(held) == 3
    del obj
    assert _settle() == (made + 2, copied, destroyed + 1)
    assert refs(held) == 1  # ~T() released `hidden`; the runtime released `ref`


def test_fields_do_not_overlap_unreflected_members():
    @py_class(_key("Over"))
    class Over(Tracked):
        a: int = 7
        b: str = "b"

    own = core._type_cls_to_type_info(Over).fields
    n = core._type_cls_to_type_info(Tracked).fields[0]
    assert own[0].offset >= n.offset + n.size + 24 + 32  # after the vector and the string
    obj = Over()
    obj.push(1)
    obj.set_label("x" * 40)
    assert (obj.a, obj.b, obj.summary()) == (7, "b", "x" * 40 + ":7")


def test_copies_are_copy_constructed():
    @py_class(_key("Copied"))
    class Copied(Tracked):
        note: str = "n"

    obj = Copied(n=1, note="m")
    obj.set_label("a label long enough to need a heap block of its own")
    made, copied, destroyed = _settle()
    dups = [copy.copy(obj), copy.deepcopy(obj)]
    assert counts() == (made, copied + 2, destroyed)  # the copy constructor, once each
    for dup in dups:
        assert dup.summary() == obj.summary() and (dup.n, dup.note) == (1, "m")
        dup.push(100)  # its own vector
    assert obj.summary() == "a label long enough to need a heap block of its own:7"
    # replace() rebuilds through __init__: a new parent, its unreflected members at defaults
    dups.append(replace(obj, note="r"))
    assert (dups[2].summary(), dups[2].note) == ("short:7", "r")
    del dups, dup
    made2, copied2, destroyed2 = _settle()
    assert destroyed2 - destroyed == (made2 - made) + (copied2 - copied)  # each exactly once


def test_parent_without_copy_constructor_refuses_copies():
    @py_class(_key("SoleChild"))
    class SoleChild(Sole):
        extra: int = 0

    _, _, destroyed = _settle()
    obj = SoleChild(extra=3)
    assert obj.text_size() == 64
    with pytest.raises(TypeError, match="no copy constructor"):
        copy.copy(obj)
    del obj
    assert _settle()[2] == destroyed + 1


def test_py_class_chain_over_the_cxx_parent():
    @py_class(_key("Mid"))
    class Mid(Tracked):
        a: str = "a"

    @py_class(_key("Leaf"))
    class Leaf(Mid):
        b: Optional[tvm_ffi.Object] = None

    held = Tracked()
    made, copied, destroyed = _settle()
    leaf = Leaf(n=1, a="a string long enough to live on the heap", b=held)
    leaf.push(4)
    dup = copy.copy(leaf)
    assert (dup.summary(), dup.a, dup.b.same_as(held)) == ("short:11", leaf.a, True)
    assert refs(held) == 3
    del leaf, dup
    assert _settle() == (made + 1, copied + 1, destroyed + 2)
    assert refs(held) == 1  # the middle and leaf fields are released by the runtime
