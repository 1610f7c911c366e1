#!/bin/sh
# tests/python/test_wheel_pythons.sh -- the wheels on every CPython the package supports
# (requires-python >= 3.9) that this machine has (docs/guide-packaging.md §1): the cp312-abi3
# wheel, built by the oldest CPython 3.12+ present, on every 3.12+, and a version-specific wheel
# on each older version.  `pip wheel` builds each from this tree with a cached build venv of its
# interpreter (~/.cache/tvm-ffi-c/wheel-build-3.N: scikit-build-core, cffi, setuptools), all in
# one CMake build tree, so the runtime compiles once; a fresh venv installs it and runs
# tests/python/wheel_smoke.py.  abi3audit (from PyPI, cached venv) checks that the abi3 wheel's
# module keeps its tag, and auditwheel that the wheel fits a manylinux tag (printed).
# Exit 77 (skip) with the reason when no wheel can be built here (no cmake, offline).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHON=${PYTHON:-python3}
VERSIONS=${TVM_FFI_TEST_PYTHONS:-"3.9 3.10 3.11 3.12 3.13"}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c
skip() { echo "test_wheel_pythons: SKIP: $*"; exit 77; }
fail() { echo "test_wheel_pythons: FAIL: $*"; exit 1; }

# The package under test must come from the venvs, never from the build tree.
unset PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1

. "$top_srcdir/tests/python/find-python.sh"
command -v cmake > /dev/null 2>&1 || skip "no cmake (scripts/setup.sh pip-installs it)"

# venv $1 of interpreter $2 holding the modules $3 (pip installs the packages $4 once)
cached_venv() {
  "$1/bin/python" -c "import $3" > /dev/null 2>&1 && return 0
  rm -rf "$1"
  mkdir -p "$(dirname "$1")"
  "$2" -m venv "$1" > /dev/null 2>&1 || return 1
  # shellcheck disable=SC2086 # $4 is a list of packages
  "$1/bin/python" -m pip install -q $4 < /dev/null > "$1.pip.log" 2>&1 || return 1
  "$1/bin/python" -c "import $3" > /dev/null 2>&1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-pythons.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
log=$work/log
rc=0 built=0 abi3=
for v in $VERSIONS; do
  p=$(find_python "$v") || { echo "ok - python $v # SKIP not present"; continue; }
  minor=${v#3.}
  if [ "$minor" -ge 12 ] && [ -n "$abi3" ]; then
    whl=$abi3 # the abi3 wheel of an older 3.12+ serves this one
  else
    if ! cached_venv "$cache/wheel-build-$v" "$p" "scikit_build_core, cffi, setuptools" \
        "scikit-build-core cffi setuptools"; then
      echo "ok - python $v # SKIP no build venv (pip could not install scikit-build-core, cffi)"
      continue
    fi
    nice -n 5 "$cache/wheel-build-$v/bin/python" -m pip wheel -q --no-build-isolation \
      --no-deps -w "$work/dist-$v" --config-settings=build-dir="$work/build" "$top_srcdir" > "$log" 2>&1 ||
      { cat "$log"; fail "python $v: pip wheel of the tree failed"; }
    whl=$(ls "$work/dist-$v"/apache_tvm_ffi-*.whl 2> /dev/null)
    built=$((built + 1))
    case $minor:$whl in
      1[2-9]:*/apache_tvm_ffi-*-cp312-abi3-*.whl) abi3=$whl ;;
      9:*-cp39-cp39-* | 10:*-cp310-cp310-* | 11:*-cp311-cp311-*) ;;
      *) fail "python $v built $whl: not the tag docs/python.md names for it" ;;
    esac
    echo "ok - python $v built $(basename "$whl")"
  fi
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
    echo "ok - python $v ($p) runs $(basename "$whl")"
  else
    echo "not ok - python $v ($p) runs $(basename "$whl")"; rc=1
  fi
done
[ $built -gt 0 ] || skip "no wheel could be built (no Python of $VERSIONS, or offline)"

# the abi3 wheel's promise: only the 3.12 stable ABI (abi3audit exits 1 on a violation)
tools=$cache/abi3audit-venv
if [ -z "$abi3" ]; then
  echo "ok - abi3audit # SKIP no CPython 3.12+ here to build the abi3 wheel"
elif ! cached_venv "$tools" "$PYTHON" "abi3audit, auditwheel" "abi3audit auditwheel"; then
  echo "ok - abi3audit # SKIP pip could not install abi3audit and auditwheel (PyPI unreachable?)"
else
  if "$tools/bin/abi3audit" --strict --verbose "$abi3" > "$log" 2>&1; then
    echo "ok - abi3audit $(basename "$abi3")"
  else
    cat "$log"; echo "not ok - abi3audit $(basename "$abi3")"; rc=1
  fi
  tag=$("$tools/bin/auditwheel" show "$abi3" 2> /dev/null | tr -s ' \n' '  ' |
    sed -n 's/.*following platform tag: *"\{0,1\}\(manylinux_[0-9_]*[a-z0-9_]*\).*/\1/p')
  if [ -n "$tag" ]; then
    echo "ok - auditwheel: $(basename "$abi3") fits $tag"
  else
    "$tools/bin/auditwheel" show "$abi3"; echo "not ok - auditwheel names no manylinux tag"; rc=1
  fi
fi
exit $rc
