# tests/python/pytest-env.sh -- sourced by run_pytest.sh and run_pypy.sh: the environment that
# points the package at the build tree (runtime, compiled modules) and the sources.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TVM_FFI_LIBRARY_PATH=${TVMFFI_LIBDIR:-$top_builddir/c/.libs}
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
PYTHONPATH=$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1  # the source tree may be read-only (distcheck)
export TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PYTHONPATH PYTHONDONTWRITEBYTECODE
