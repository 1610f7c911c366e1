#!/bin/sh
# The ORC JIT add-on's tests: builds the test objects with $CC/$CXX, runs the C driver
# (test_orcjit_c) and the pytest suite against the build tree.  Exit 77 (skip) with the reason
# when LLVM was not found at configure time or python lacks pytest/cffi.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PYTHON=${PYTHON:-python3}
lib=$top_builddir/addons/orcjit/.libs/libtvm_ffi_orcjit.so
if [ ! -f "$lib" ]; then
  echo "orcjit: $lib not built (LLVM >= 14 not found by configure; see --with-llvm-config); skipped"
  exit 77
fi
src=$top_srcdir/addons/orcjit/tests/sources
tmp=$(mktemp -d "${TMPDIR:-/tmp}/orcjit-tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
inc="-I$top_srcdir/c/include"
${CC:-cc} -c -O2 -fPIC $inc "$src/test_funcs.c" -o "$tmp/test_funcs.o" &&
  ${CC:-cc} -c -O2 -fPIC $inc "$src/test_error.c" -o "$tmp/test_error.o" || exit 1
echo "== C driver"
"$top_builddir/libtool" --mode=execute "$top_builddir/addons/orcjit/tests/test_orcjit_c" \
  "$lib" "$tmp/test_funcs.o" "$tmp/test_error.o" || exit 1

if ! "$PYTHON" -c "import pytest, cffi" 2>/dev/null; then
  echo "orcjit: $PYTHON lacks pytest or cffi; Python tests skipped"
  exit 0
fi
echo "== pytest"
TVM_FFI_LIBRARY_PATH=${TVMFFI_LIBDIR:-$top_builddir/c/.libs}
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
TVM_FFI_ORCJIT_LIBRARY=$lib
PYTHONPATH=$top_srcdir/python:$top_srcdir/addons/orcjit/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR TVM_FFI_ORCJIT_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
# a sanitizer build's python needs the sanitizer runtimes preloaded
. "$top_srcdir/tests/san-host.sh"
san_host_export
exec "$PYTHON" -m pytest -q -p no:cacheprovider "$top_srcdir/addons/orcjit/tests"
