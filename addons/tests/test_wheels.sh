#!/bin/sh
# addons/tests/test_wheels.sh -- the add-ons as users install them (run by make check): in a
# throwaway venv, pip builds wheels of the main package (.), addons/orcjit and addons/asdlpack,
# installs them, and runs the add-ons' tests against the installed packages only:
#   1. dlpack's own test-suite (dlpack.tests.run());
#   2. seed 002: tvm_ffi.load_module("x.o") works without importing tvm_ffi_orcjit (the
#      package advertises its loader in the entry-point group tvm_ffi.module_loaders);
#   3. the ORC JIT pytest suite (addons/orcjit/tests) against the installed tvm_ffi_orcjit.
# The venv sees the system site-packages (pytest, numpy, torch) but none of this project.
# Exit 77 (skip) with the reason when venv/pip or a compiler is missing; the ORC JIT part is
# skipped alone (with its reason) when llvm-config is absent.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHON=${PYTHON:-python3}
skip() { echo "test_wheels: SKIP: $*"; exit 77; }
fail() { echo "test_wheels: FAIL: $*"; exit 1; }

unset PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR TVM_FFI_ORCJIT_LIBRARY PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
"$PYTHON" -c "import venv, ensurepip, pytest" 2>/dev/null || skip "$PYTHON lacks venv, ensurepip or pytest"
command -v "${CXX:-c++}" >/dev/null 2>&1 || skip "no C++ compiler"
"$PYTHON" -c "import scikit_build_core, cffi" 2>/dev/null ||
  skip "$PYTHON lacks scikit-build-core or cffi (scripts/setup.sh installs them)"
command -v cmake >/dev/null 2>&1 || skip "no cmake (scripts/setup.sh installs it: pip install cmake)"

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-addon-wheels.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
log=$work/log
"$PYTHON" -m venv --system-site-packages "$work/venv" || fail "venv"
py=$work/venv/bin/python

# the main package from the system's build tools (scikit-build-core, cmake); the add-ons
# with build isolation, as `pip install addons/<name>` does for a user
# (copies: setuptools writes build/ and *.egg-info next to the sources, which may be read-only)
mkdir "$work/src" && cp -r "$top_srcdir/addons/asdlpack" "$top_srcdir/addons/orcjit" "$work/src" ||
  fail "copy the add-ons"
TVM_FFI_INCLUDE_DIRS=$top_srcdir/c/include:$top_srcdir/cpp/include
export TVM_FFI_INCLUDE_DIRS
addons="$work/src/asdlpack"
if command -v "${LLVM_CONFIG:-llvm-config}" >/dev/null 2>&1; then
  addons="$addons $work/src/orcjit"
else
  echo "test_wheels: ORC JIT part skipped: llvm-config not found (LLVM >= 14 dev files)"
fi
"$py" -m pip wheel -q --no-deps --no-build-isolation -w "$work/dist" "$top_srcdir" >"$log" 2>&1 ||
  { cat "$log"; fail "pip wheel . failed"; }
for a in $addons; do
  "$py" -m pip wheel -q --no-deps -w "$work/dist" "$a" >"$log" 2>&1 ||
    { cat "$log"; fail "pip wheel $a failed"; }
done
ls "$work"/dist
"$py" -m pip install -q --no-deps "$work"/dist/*.whl >"$log" 2>&1 ||
  { cat "$log"; fail "pip install of the wheels failed"; }
echo "ok 1 - wheels built and installed: $(cd "$work/dist" && echo *.whl)"

cd "$work" || fail "cd"
"$py" - "$work/venv" <<'PY' || fail "the installed packages are not the venv's"
import sys, os, dlpack, tvm_ffi
for m in (tvm_ffi, dlpack):
    assert m.__file__.startswith(sys.argv[1]), m.__file__
PY
"$py" -c "import dlpack.tests, sys; sys.exit(dlpack.tests.run('-q', '-p', 'no:cacheprovider'))" \
  >"$log" 2>&1 || { cat "$log"; fail "dlpack's tests against the installed package"; }
echo "ok 2 - dlpack.tests.run(): $(tail -1 "$log")"

case $addons in *orcjit*) ;; *) exit 0 ;; esac
${CC:-cc} -c -O2 -fPIC -I"$top_srcdir/c/include" "$top_srcdir/addons/orcjit/tests/sources/test_funcs.c" \
  -o "$work/example.o" || fail "compiling the example object"
"$py" - "$work/venv" <<'PY' || fail "tvm_ffi.load_module('example.o') through the entry point"
import sys, tvm_ffi
assert "tvm_ffi_orcjit" not in sys.modules
mod = tvm_ffi.load_module("example.o")
assert mod.test_add(1, 2) == 3 and mod.kind == "orcjit", mod.kind
orcjit = sys.modules["tvm_ffi_orcjit"]  # imported by load_module, from the venv
assert orcjit.__file__.startswith(sys.argv[1]) and orcjit._LIB_PATH.startswith(sys.argv[1])
PY
echo "ok 3 - tvm_ffi.load_module('example.o') plugs the ORC JIT loader in by itself"
# the suite from a copy, so that nothing imports the package from the source tree
cp -r "$top_srcdir/addons/orcjit/tests" "$work/orcjit-tests" || fail "copy the ORC JIT tests"
top_srcdir=$top_srcdir "$py" -m pytest -q -p no:cacheprovider "$work/orcjit-tests" >"$log" 2>&1 ||
  { cat "$log"; fail "the ORC JIT suite against the installed package"; }
echo "ok 4 - ORC JIT suite: $(tail -1 "$log")"
