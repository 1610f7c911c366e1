#!/bin/sh
# Runs the pytest suite under PyPy (Debian's pypy3, through scripts/pypy-venv.sh): the package
# in ABI mode with tvm_ffi._capi_ext, built here from _ffi_src/capi.c into the build tree's
# module directory.  torch is not installed for PyPy: its tests skip.  Exit 77 (skip) when
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
exec "$py" -m pytest -q -p no:cacheprovider -rs "$top_srcdir/tests/python"
