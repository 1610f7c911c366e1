#!/bin/sh
# bench/bench_upstream.sh -- `make bench` driver of bench/bench_upstream.py: upstream's own
# benchmark scripts (apache-tvm-ffi sdist, tests/scripts) under the Python package of the build
# tree and under the apache-tvm-ffi wheel, with callgrind instruction counts.
# Environment: top_srcdir, top_builddir, PYTHON; BENCH_UPSTREAM_ARGS (e.g. --quick).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON:=python3}"
TVM_FFI_LIBRARY_PATH=$top_builddir/c/.libs
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
export TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR
if ! "$PYTHON" -c "import cffi, numpy, torch" 2>/dev/null; then
  echo "bench_upstream: $PYTHON lacks cffi, numpy or torch; skipped"
  exit 0
fi
# shellcheck disable=SC2086 # BENCH_UPSTREAM_ARGS is a list of flags
exec "$PYTHON" "$top_srcdir/bench/bench_upstream.py" ${BENCH_UPSTREAM_ARGS:-}
