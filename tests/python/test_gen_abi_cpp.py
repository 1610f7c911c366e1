"""tvm_ffi.dataclasses.gen_abi_cpp and the py_class layout it describes (docs/python.md §4.9):
a C++ library compiled against the generated header reads and writes Python-made objects
through their structs."""

from typing import Any, Optional

import pytest
from conftest import jit_load_inline

from tvm_ffi import Array, Device, Object
from tvm_ffi.core import DataType
from tvm_ffi.dataclasses import gen_abi_cpp, py_class


@py_class("test_gen_abi.Leaf")
class Leaf(Object):
    value: int


@py_class("test_gen_abi.Base")
class Base(Object):
    flag: bool


@py_class("test_gen_abi.sub.Node")
class Node(Base):
    tag: bool
    count: int
    ratio: float
    dtype: DataType
    device: Device
    name: str
    extra: Any
    leaf: Leaf
    leaves: Array[Leaf]
    maybe: Optional[Leaf]
    children: "list[Node]"


def _layout(cls):
    info = cls.__tvm_ffi_type_info__
    return info.total_size, {f.name: (f.offset, f.size, f.alignment) for f in info.fields}


def test_layout_is_a_cxx_compilers():
    assert _layout(Base) == (32, {"flag": (24, 1, 1)})
    total, fields = _layout(Node)
    assert fields == {
        "tag": (25, 1, 1),  # in Base's tail padding
        "count": (32, 8, 8), "ratio": (40, 8, 8), "dtype": (48, 4, 2), "device": (52, 8, 4),
        "name": (64, 16, 8), "extra": (80, 16, 8), "leaf": (96, 8, 8), "leaves": (104, 8, 8),
        "maybe": (112, 16, 8), "children": (128, 8, 8),  # (the self-reference resolved)
    }
    assert total == 136


def test_unset_fields_are_zero():
    @py_class("test_gen_abi.Zero", init=False)
    class Zero(Object):
        a: int
        b: float
        c: bool
        d: Any
        e: Leaf

        def __init__(self):
            pass

    z = Zero()
    assert (z.a, z.b, z.c, z.d, z.e) == (0, 0.0, False, None, None)


def test_fields_round_trip_and_refuse():
    n = _node()
    assert (n.flag, n.tag, n.count, n.ratio) == (True, False, 7, 2.5)
    assert n.leaf.value == 1 and n.maybe is None and len(n.children) == 0
    n.tag, n.count, n.ratio = True, -3, 4
    assert (n.flag, n.tag, n.count, n.ratio) == (True, True, -3, 4.0)
    with pytest.raises(TypeError):
        n.count = "many"
    with pytest.raises(TypeError):
        n.leaf = 3
    assert n.count == -3 and n.leaf.value == 1


def _node():
    return Node(flag=True, tag=False, count=7, ratio=2.5, dtype=DataType("float16x4"),
                device=Device("cuda", 3), name="a name longer than a small string", extra=11,
                leaf=Leaf(value=1), leaves=Array([Leaf(value=2), Leaf(value=3)]), maybe=None,
                children=[])


_CXX = r"""
#include <string>

namespace abi = ::test_gen_abi;

::tvm::ffi::String describe(const abi::sub::NodeObj* n) {
  const abi::BaseObj* base = n;  // the parent's part, through the parent's struct
  std::string s = std::to_string(base->flag) + " " + std::to_string(n->tag) + " " +
                  std::to_string(n->count) + " " + std::to_string(n->ratio) + " " +
                  std::to_string(n->dtype.code) + "/" + std::to_string(n->dtype.bits) + "/" +
                  std::to_string(n->dtype.lanes) + " " + std::to_string(n->device.device_type) +
                  ":" + std::to_string(n->device.device_id) + " " + std::string(n->name) + " " +
                  std::to_string(n->extra.cast<int64_t>()) + " " + std::to_string(n->leaf->value);
  for (const auto& leaf : n->leaves) s += " " + std::to_string(leaf->value);
  return s + " " + std::to_string(n->maybe == nullptr) + " " + std::to_string(n->children.size());
}

void bump(::tvm::ffi::Arc<abi::sub::NodeObj> n) {
  n->count += 100;
  n->tag = !n->tag;
  n->children.push_back(n);  // a cycle, broken by the test
}
"""


def test_cxx_reads_and_writes_python_objects(tmp_path):
    named = gen_abi_cpp("test_gen_abi.sub.*")
    assert "struct alignas(8) NodeObj : public ::test_gen_abi::BaseObj {" in named
    assert "struct LeafObj : public ::tvm::ffi::Object {" in named  # only named by a field
    header = gen_abi_cpp(["test_gen_abi.sub.*", "test_gen_abi.Leaf"])
    assert "struct alignas(8) LeafObj : public ::tvm::ffi::Object {" in header
    mod = jit_load_inline("test_gen_abi_cpp", header + _CXX, functions=["describe", "bump"])
    n = _node()
    assert mod.describe(n) == ("1 0 7 2.500000 2/16/4 2:3 a name longer than a small string "
                               "11 1 2 3 1 0")
    n.maybe = n.leaf
    mod.bump(n)
    assert (n.count, n.tag, n.children[0].same_as(n)) == (107, True, True)
    assert mod.describe(n).endswith(" 0 1")
    n.children = []


def test_selectors():
    assert "struct alignas(8) BaseObj" in gen_abi_cpp("test_gen_abi.Base")
    empty = gen_abi_cpp([])
    assert gen_abi_cpp("ffi.Array") == empty  # the C++ headers define the built-in types
    with pytest.raises(ValueError, match="did not match any registered type"):
        gen_abi_cpp("test_gen_abi.Missing*")
    with pytest.raises(ValueError, match="did not match any registered object type"):
        gen_abi_cpp("int")
    with pytest.raises(ValueError, match="not supported"):
        gen_abi_cpp("ffi.OpaquePyObject")
