"""The version scheme (docs/design.md §8), checked where a source checkout has its files:
the ABI version is one number in c_api.h, configure.ac, CMakeLists.txt and the CMake package,
and is what the runtime reports; tvm_ffi.__version__ of a checkout names the release that
pyproject.toml gives the wheel; libtool-version's record follows the ABI's patch number."""

import os
import re

import pytest

import tvm_ffi
from tvm_ffi import _loader

TOP = os.path.join(os.path.dirname(os.path.abspath(tvm_ffi.__file__)), "..", "..")


def _read(rel):
    path = os.path.join(TOP, rel)
    if not os.path.isfile(path):
        pytest.skip("not a source checkout: no %s" % rel)
    with open(path, encoding="utf-8") as f:
        return f.read()


def _one(pattern, text, what):
    m = re.search(pattern, text, re.M)
    assert m, "no %s" % what
    return m.group(1)


def _runtime_version():
    v = _loader.ffi.new("TVMFFIVersion*")
    _loader.lib.TVMFFIGetVersion(v)
    return "%d.%d.%d" % (v.major, v.minor, v.patch)


def test_abi_version_is_one_number():
    h = _read("c/include/tvm/ffi/c_api.h")
    header = ".".join(_one(r"^#define TVM_FFI_VERSION_%s (\d+)" % k, h, k)
                      for k in ("MAJOR", "MINOR", "PATCH"))
    assert _runtime_version() == header
    assert _one(r"AC_INIT\(\[[^]]*\], \[([0-9.]+)\]", _read("configure.ac"), "AC_INIT") == header
    assert _one(r"project\(tvm_ffi VERSION ([0-9.]+)", _read("CMakeLists.txt"), "project") == header
    cfg = _read("cmake/tvm_ffi-config-version.cmake")
    assert _one(r'set\(PACKAGE_VERSION "([0-9.]+)"\)', cfg, "PACKAGE_VERSION") == header


def test_checkout_reports_the_wheel_release():
    release = _one(r'^version = "([^"]+)"', _read("pyproject.toml"), "version")
    if os.path.isfile(os.path.join(os.path.dirname(tvm_ffi.__file__), "_version.py")):
        pytest.skip("an installed package: _version.py says what its wheel was built from")
    assert tvm_ffi.__version__ == release
    parts = tuple(int(p) if p.isdigit() else p for p in release.split("."))
    assert tvm_ffi.__version_tuple__ == parts


def test_libtool_record_follows_the_abi_patch():
    record = [ln for ln in _read("libtool-version").splitlines() if re.match(r"\d", ln)][-1]
    current, revision, age = (int(x) for x in record.split(":"))
    patch = int(_runtime_version().split(".")[2])
    assert (current, age) == (patch, patch), "libtool-version %s for ABI patch %d" % (record, patch)
    assert revision >= 0
