#!/bin/sh
# tests/python/test_wheel_pythons.sh -- the abi3 wheel on every Python version the package
# supports (requires-python >= 3.9) that this machine has besides $PYTHON: pip builds the
# wheel once from this tree, then for each interpreter found (python3.N on PATH or a pyenv
# version) a fresh venv installs it and runs tests/python/wheel_smoke.py.  The full pytest
# suite runs on $PYTHON (run_pytest.sh).
# Exit 77 (skip) with the reason when the wheel cannot be built here or no other version is
# present.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHON=${PYTHON:-python3}
VERSIONS=${TVM_FFI_TEST_PYTHONS:-"3.9 3.10 3.11 3.12 3.13"}
skip() { echo "test_wheel_pythons: SKIP: $*"; exit 77; }
fail() { echo "test_wheel_pythons: FAIL: $*"; exit 1; }

# The package under test must come from the venvs, never from the build tree.
unset PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1

. "$top_srcdir/tests/python/find-python.sh"
self=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || fail "no $PYTHON"
pythons=
for v in $VERSIONS; do
  [ "$v" = "$self" ] && continue
  p=$(find_python "$v") && pythons="$pythons $p"
done
[ -n "$pythons" ] || skip "no Python of $VERSIONS besides $PYTHON ($self) on PATH or in pyenv"
"$PYTHON" -c "import scikit_build_core, cffi, setuptools" 2> /dev/null ||
  skip "$PYTHON lacks scikit-build-core, cffi or setuptools (scripts/setup.sh installs them)"
command -v cmake > /dev/null 2>&1 || skip "no cmake (scripts/setup.sh pip-installs it)"

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-pythons.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
log=$work/log
"$PYTHON" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" "$top_srcdir" \
  > "$log" 2>&1 || { cat "$log"; fail "pip wheel of the tree failed"; }
whl=$(ls "$work"/dist/apache_tvm_ffi-*.whl 2> /dev/null)
case $whl in */apache_tvm_ffi-*-cp39-abi3-*.whl) ;; *) fail "not a cp39-abi3 wheel: $whl" ;; esac
echo "ok - built $(basename "$whl")"

rc=0
for p in $pythons; do
  v=$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv=$work/venv-$v
  "$p" -m venv "$venv" > "$log" 2>&1 || { cat "$log"; fail "python $v: venv"; }
  # cffi comes from the package index (or pip's cache): offline, this version is skipped
  if ! "$venv/bin/python" -m pip install -q cffi > "$log" 2>&1; then
    echo "ok - python $v # SKIP pip could not install the dependency cffi (offline?)"
    continue
  fi
  "$venv/bin/python" -m pip install -q --no-index "$whl" > "$log" 2>&1 ||
    { cat "$log"; fail "python $v: pip install of the wheel"; }
  if (cd "$work" && "$venv/bin/python" "$top_srcdir/tests/python/wheel_smoke.py"); then
    echo "ok - python $v ($p)"
  else
    echo "not ok - python $v ($p)"; rc=1
  fi
done
exit $rc
