#!/bin/sh
# tests/python/test_pyint_pythons.sh -- the compiled module's int fast path (_ffi_src/pyint.c
# reads CPython's private int layout) proven on every CPython 3.9 to 3.13 present: for each
# pyenv install (or python3.N on PATH) a cached venv with cffi builds the module from this
# tree, niced, and tests/python/test_pyint.py runs as a script with it (edge values against
# int.to_bytes/from_bytes, ints through a call).
# Environment: top_srcdir, top_builddir (the runtime in c/.libs), TVM_FFI_TEST_PYTHONS.
# Exit 77 (skip) with the reason when no interpreter could be set up.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
VERSIONS=${TVM_FFI_TEST_PYTHONS:-"3.9 3.10 3.11 3.12 3.13"}
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c
unset PYTHONPATH TVM_FFI_MODULE_DIR PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1

. "$top_srcdir/tests/python/find-python.sh"
. "$top_srcdir/tests/san-host.sh"  # the test loads the build tree's (maybe instrumented) runtime

# a cached venv of interpreter $2 with cffi and setuptools (builds need them) in $1
cffi_venv() {
  "$1/bin/python" -c "import cffi, setuptools" > /dev/null 2>&1 && return 0
  rm -rf "$1"
  "$2" -m venv "$1" > /dev/null 2>&1 || return 1
  "$1/bin/python" -m pip install -q cffi setuptools < /dev/null > "$1.pip.log" 2>&1 || return 1
  "$1/bin/python" -c "import cffi, setuptools" > /dev/null 2>&1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-pyint.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
rc=0 ran=0
for v in $VERSIONS; do
  py=$(find_python "$v") || { echo "test_pyint_pythons: no Python $v; skipped"; continue; }
  venv=$cache/cffi-venv-$v
  mkdir -p "$cache"
  if ! cffi_venv "$venv" "$py"; then
    echo "test_pyint_pythons: Python $v: no venv with cffi (offline?); skipped"
    continue
  fi
  out=$work/$v
  if ! nice -n 10 "$venv/bin/python" "$top_srcdir/python/tvm_ffi/_build_ffi.py" \
      --include "$top_srcdir/c/include" --out-dir "$out" --tmp-dir "$work/build-$v" \
      > "$work/build-$v.log" 2>&1; then
    cat "$work/build-$v.log"
    echo "not ok - Python $v: the module does not build"
    rc=1
    continue
  fi
  PYTHONPATH=$top_srcdir/python TVM_FFI_MODULE_DIR=$out \
    TVM_FFI_LIBRARY_PATH=$top_builddir/c/.libs \
    san_host "$venv/bin/python" "$top_srcdir/tests/python/test_pyint.py" || rc=1
  ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "test_pyint_pythons: SKIP: no CPython of $VERSIONS could be set up"; exit 77; }
exit $rc
