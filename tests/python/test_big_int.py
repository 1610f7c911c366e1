"""Integers beyond int64 (ffi.BigInt, type index 78): both directions through calls and
callbacks, containers and Map keys, repr/equality, the C content format, and C++
tvm/ffi/big_int.h compiled with tvm_ffi.cpp."""

import os
import shutil
import sys
import tempfile

import pytest

import tvm_ffi
from tvm_ffi import Array, Map
import tvm_ffi._conversion
import tvm_ffi.error

echo = tvm_ffi.get_global_func("testing.echo")
BIG = (1 << 200) | (0xDEADBEEF << 64) | 0x0123456789ABCDEF
EDGES = [-(1 << 63) - 1, -(1 << 63), (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64]


@pytest.mark.parametrize("value", [0, -1, BIG, -BIG] + EDGES)
def test_round_trip(value):
    result = echo(value)
    assert type(result) is int and result == value


def test_python_callback_receives_int():
    seen = []

    def cb(x):
        seen.append(x)
        return x * 2

    f = tvm_ffi.convert_func(cb)
    assert f(BIG) == 2 * BIG and seen == [BIG] and type(seen[0]) is int
    assert tvm_ffi.convert_func(lambda: -BIG)() == -BIG


def test_containers_and_keys():
    values = [BIG, -BIG, 1 << 63, 7]
    assert list(echo(values)) == values
    m = Map({v: -v for v in values})
    assert all(m[v] == -v for v in values) and (1 << 64) not in m
    assert Array([BIG]) == Array([BIG]) and Array([BIG]) != Array([BIG + 1])
    assert hash(Array([BIG])) == hash(Array([BIG]))
    assert repr(Array([1 << 64, -(1 << 64)])) == "(18446744073709551616, -18446744073709551616)"
    assert tvm_ffi.structural_equal(BIG, BIG) and not tvm_ffi.structural_equal(BIG, BIG + 1)
    assert tvm_ffi.structural_hash(BIG) == tvm_ffi.structural_hash(BIG)
    # a leaf of structural mutation: `int` callbacks match int64 values only
    assert list(tvm_ffi.structural_map(Array([BIG, 1]), (int, lambda v: v + 1))) == [BIG, 2]


def test_content_format_from_c():
    from tvm_ffi._loader import ffi, lib

    def content(value):
        arg = tvm_ffi._conversion._big_int_arg(value) if not -(1 << 63) <= value < (1 << 63) else None
        a = ffi.new("TVMFFIAny*")
        if arg is None:
            a.type_index, a.v_int64 = 1, value
        else:
            a.type_index, a.v_uint64 = 78, arg._h
        ba = lib.TVMFFIBigIntGetContentByteArray(a)
        return bytes(ffi.buffer(ba.data, ba.size))

    for value in [0, -1, 1 << 63, -(1 << 63) - 1, BIG, -BIG]:
        n = ((value if value >= 0 else ~value).bit_length() + 64) // 64
        expected = b"".join(((value >> (64 * i)) & (2**64 - 1)).to_bytes(8, sys.byteorder)
                            for i in range(n))
        assert content(value) == expected
    out = ffi.new("TVMFFIAny*")
    bad = ffi.new("TVMFFIByteArray*", (ffi.new("char[]", b"1234567"), 7))
    assert lib.TVMFFIBigIntFromByteArray(bad, out) != 0
    err = tvm_ffi.error._move_raised_error()
    assert err.kind == "ValueError" and "whole 64-bit words" in str(err.message)
    # redundant sign words are accepted and dropped
    padded = (5).to_bytes(8, sys.byteorder, signed=True) + b"\0" * 16
    buf = ffi.new("char[]", padded)
    assert lib.TVMFFIBigIntFromByteArray(ffi.new("TVMFFIByteArray*", (buf, 24)), out) == 0
    assert (out.type_index, out.v_int64) == (1, 5)


CPP = """
#include <tvm/ffi/big_int.h>
#include <sstream>
namespace ffi = tvm::ffi;
ffi::BigInt identity(ffi::BigInt v) { return v; }
ffi::BigInt add(ffi::BigInt a, ffi::BigInt b) { return a + b; }
ffi::BigInt mul(ffi::BigInt a, ffi::BigInt b) { return a * b; }
ffi::String text(ffi::BigInt v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
ffi::BigInt parse(ffi::String s) {
  std::istringstream is(std::string(s.data(), s.size()));
  ffi::BigInt v;
  is >> v;
  return v;
}
ffi::BigInt big_div(ffi::BigInt a, ffi::BigInt b) { return a / b; }
ffi::BigInt big_mod(ffi::BigInt a, ffi::BigInt b) { return a % b; }
ffi::BigInt big_fdiv(ffi::BigInt a, ffi::BigInt b) { return floordiv(a, b); }
ffi::BigInt big_fmod(ffi::BigInt a, ffi::BigInt b) { return floormod(a, b); }
ffi::BigInt big_band(ffi::BigInt a, ffi::BigInt b) { return a & b; }
ffi::BigInt big_bor(ffi::BigInt a, ffi::BigInt b) { return a | b; }
ffi::BigInt big_bxor(ffi::BigInt a, ffi::BigInt b) { return a ^ b; }
ffi::BigInt big_inv(ffi::BigInt a) { return ~a; }
ffi::BigInt big_shl(ffi::BigInt a, ffi::BigInt b) { return a << b; }
ffi::BigInt big_shr(ffi::BigInt a, ffi::BigInt b) { return a >> b; }
double to_double(ffi::BigInt a) { return static_cast<double>(a); }
ffi::BigInt from_double(double a) { return ffi::BigInt(a); }
int64_t narrow(int64_t v) { return v; }
ffi::BigInt call(ffi::Function f, ffi::BigInt v) { return f(v).cast<ffi::BigInt>(); }
"""


@pytest.mark.skipif(not shutil.which(os.environ.get("CXX", "c++").split()[0]), reason="no C++ compiler")
def test_cpp_big_int_module():
    try:
        tvm_ffi.cpp.extension.tc.find_ninja()
    except RuntimeError:
        pytest.skip("ninja not installed")
    cache = os.path.join(tempfile.gettempdir(), "tvm-ffi-jit-tests-%d" % os.getuid())
    mod = tvm_ffi.cpp.load_inline(
        "big_int_ops", cpp_sources=CPP,
        functions=["identity", "add", "mul", "text", "narrow", "call", "parse", "big_div",
                   "big_mod", "big_fdiv", "big_fmod", "big_band", "big_bor", "big_bxor",
                   "big_inv", "big_shl", "big_shr", "to_double", "from_double"],
        build_directory=os.path.join(cache, "big_int_ops"),
    )
    assert mod.identity(BIG) == BIG and mod.identity(-5) == -5
    assert mod.add((1 << 63) - 1, 1) == 1 << 63
    assert mod.add(1 << 63, -(1 << 63)) == 0
    assert mod.mul(BIG, -BIG) == -BIG * BIG
    assert mod.text(-BIG) == str(-BIG)
    with pytest.raises(TypeError):
        mod.narrow(1 << 63)
    assert mod.call(lambda v: v + 1, BIG) == BIG + 1
    # every operation agrees with Python's int over mixed sizes and signs
    values = [0, 1, -1, 7, -7] + EDGES + [BIG, -BIG, BIG >> 70, -(BIG >> 70), 3**150, -(3**150)]
    for a in values:
        assert mod.parse(str(a)) == a and mod.text(a) == str(a) and mod.big_inv(a) == ~a
        assert mod.to_double(a) == float(a)
        for b in values:
            assert (mod.big_band(a, b), mod.big_bor(a, b), mod.big_bxor(a, b)) == (a & b, a | b, a ^ b)
            if b:
                q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncating
                assert (mod.big_div(a, b), mod.big_mod(a, b)) == (q, a - q * b)
                assert (mod.big_fdiv(a, b), mod.big_fmod(a, b)) == (a // b, a % b)
        for k in (0, 1, 63, 64, 65, 200):
            assert (mod.big_shl(a, k), mod.big_shr(a, k)) == (a << k, a >> k)
    for x in (1e300, -1e300, 2.0**64, -(2.0**63), 123.9, -0.5):
        assert mod.from_double(x) == int(x)
    # the C++ kind is ZeroDivisionError; Python maps it as upstream does (no builtin mapping)
    with pytest.raises((ZeroDivisionError, RuntimeError), match="division by zero"):
        mod.big_div(BIG, 0)
    with pytest.raises(ValueError):
        mod.big_shl(BIG, -1)
    with pytest.raises(OverflowError):
        mod.big_shl(BIG, BIG)
    with pytest.raises(OverflowError):
        mod.to_double(1 << 1024)


def test_json_graph():
    from tvm_ffi import serialization

    for value in [BIG, -BIG, 1 << 63, -(1 << 63) - 1]:
        text = serialization.to_json_graph_str(value)
        assert '{"type":"ffi.BigInt","data":"%d"}' % value in text.replace(" ", "")
        assert serialization.from_json_graph_str(text) == value
    assert list(serialization.from_json_graph_str(serialization.to_json_graph_str([BIG, 7]))) == [
        BIG, 7]
    node = '{"root_index":0,"nodes":[{"type":"ffi.BigInt","data":%s}]}'
    assert serialization.from_json_graph_str(node % '"+0007"') == 7
    assert serialization.from_json_graph_str(node % '"-0"') == 0
    for bad in ['""', '"-"', '"1 "', '" 1"', '"1.0"', '"12x"', "12", "null", "[]"]:
        with pytest.raises(ValueError, match="ffi.BigInt"):
            serialization.from_json_graph_str(node % bad)
