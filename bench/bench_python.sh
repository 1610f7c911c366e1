#!/bin/sh
# bench/bench_python.sh -- `make bench` driver of bench/bench_python.py: the Python package of
# the build tree (runtime, cffi module) against the apache-tvm-ffi wheel, ctypes and pybind11.
# Environment: top_srcdir, top_builddir, PYTHON; BENCH_PY_ARGS (e.g. --quick --no-pybind);
# BENCH_PY_SCRIPT runs another script of bench/ the same way (bench_pypy.sh).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON:=python3}"
TVM_FFI_LIBRARY_PATH=$top_builddir/c/.libs
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
PYTHONPATH=$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}
export TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PYTHONPATH
if ! "$PYTHON" -c "import cffi, numpy" 2>/dev/null; then
  echo "bench_python: $PYTHON lacks cffi or numpy; skipped"
  exit 0
fi
# shellcheck disable=SC2086 # BENCH_PY_ARGS is a list of flags
exec "$PYTHON" "$top_srcdir/bench/${BENCH_PY_SCRIPT:-bench_python.py}" ${BENCH_PY_ARGS:-}
