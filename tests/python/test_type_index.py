"""Type indices by name (issue 10 s2): ``tvm_ffi._type_index`` holds c_api.h's values, and the
package compares type indices with those names, never with bare numbers."""

import os
import re

from tvm_ffi import _type_index

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PKG = os.path.join(ROOT, "python", "tvm_ffi")


def _header_enum():
    with open(os.path.join(ROOT, "c", "include", "tvm", "ffi", "c_api.h")) as f:
        text = f.read()
    start = text.index("kTVMFFIAny = -1")  # the TVMFFITypeIndex enum
    end = text.index("kTVMFFIDynObjectBegin", start)  # (comments inside hold braces)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"(kTVMFFI\w+) = (-?\d+)", text[start:end])}


def test_values_are_the_headers():
    header = _header_enum()
    names = [n for n in dir(_type_index) if n.startswith("kTVMFFI")]
    assert len(names) >= 25
    for name in names:
        assert getattr(_type_index, name) == header[name], name


# a type index (tidx, type_index, *_type_index) compared with, or registered under, a literal
# number: the names of _type_index say what is meant
_BARE = re.compile(r"\b(?:tidx|type_index|\w+_type_index)\s*(?:==|!=|>=|<=|<|>)\s*\d"
                   r"|\b(?:tidx|type_index)\s+(?:not\s+)?in\s+\(\s*\d"
                   r"|_register_class\(\s*\d"
                   r"|__tvm_ffi_pod__\s*=\s*\(\s*\d")


def test_no_bare_type_index_numbers():
    found = []
    for dirpath, dirnames, filenames in os.walk(PKG):
        dirnames[:] = [d for d in dirnames if d not in ("__pycache__", "_build")]
        for fn in filenames:
            if not fn.endswith(".py") or fn == "_rules.py":  # the table names indices itself
                continue
            path = os.path.join(dirpath, fn)
            with open(path) as f:
                for lineno, line in enumerate(f, 1):
                    code = line.split("#", 1)[0]
                    if _BARE.search(code) and "0 <=" not in code:
                        found.append("%s:%d: %s" % (os.path.relpath(path, PKG), lineno, line.strip()))
    assert not found, "bare type-index numbers:\n" + "\n".join(found)
