#!/bin/sh
# Runs the pytest suite under PyPy (Debian's pypy3, through scripts/pypy-venv.sh): the package
# in ABI mode with tvm_ffi._capi_ext, built here from _ffi_src/capi.c into the build tree's
# module directory.  torch is not installed for PyPy: its tests skip.  Run under gdb where
# it works (pypy-crash.gdb), so that a crash logs the C stacks.  Exit 77 (skip) when
# no PyPy venv can be made (no pypy3, no network).
. "$(dirname "$0")/pytest-env.sh"
py=$(sh "$top_srcdir/scripts/pypy-venv.sh") || exit $?
if [ -n "$(echo ${TVMFFI_SAN_PRELOAD:-})" ]; then
  echo "run_pypy.sh: sanitizer build: PyPy is not run under the sanitizers; skipped"
  exit 77
fi
"$py" "$top_srcdir/python/tvm_ffi/_build_ffi.py" --capi --include "$top_srcdir/c/include" \
  --out-dir "$TVM_FFI_MODULE_DIR" --tmp-dir "$top_builddir/python/_capi_build" > /dev/null || exit 1
echo "== pytest with $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
# --assert=plain: PyPy 7.3.11 crashes now and then in the AST work of pytest's assertion
# rewriter (scripts/pypy-ast-crash.py reproduces it without pytest's session or this package).
set -- "$py" -m pytest -q -p no:cacheprovider -rs --assert=plain "$top_srcdir/tests/python"
# Under gdb where it can run PyPy (pypy-crash.gdb): a crash then leaves the C stacks in the
# log, not only faulthandler's Python stack.  TVMFFI_PYPY_GDB=0 runs it bare.
under_gdb() {
  gdb -q -batch -nx -iex "set auto-load off" -x "$top_srcdir/tests/python/pypy-crash.gdb" --args "$@"
}
if [ "${TVMFFI_PYPY_GDB:-1}" != 0 ] && command -v gdb > /dev/null 2>&1; then
  under_gdb "$py" -c "raise SystemExit(7)" > /dev/null 2>&1
  if [ $? -eq 7 ]; then
    under_gdb "$@"
    exit $?
  fi
fi
exec "$@"
