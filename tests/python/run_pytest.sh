#!/bin/sh
# Runs the pytest suite against the build tree's runtime: first with $PYTHON (the interpreter
# configure found), then with /usr/bin/python3 when it is a different interpreter (Debian's
# torch 1.13 there exercises the legacy DLPack path).  Exit 77 (skip) without pytest or cffi.
PYTHON=${PYTHON:-python3}
. "$(dirname "$0")/pytest-env.sh"
# A sanitizer build (configure --enable-sanitizers): python is not instrumented, so the
# runtimes must be preloaded ahead of the instrumented libtvm_ffi.so; the interpreter's own
# allocations at exit are not ours to leak-check; a smaller quarantine keeps the RSS of the
# 100k-call leak test (test_stress.py) meaningful.
. "$top_srcdir/tests/san-host.sh"
san_host_export
[ -z "${TVMFFI_SAN_PRELOAD:-}" ] || { ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=16"; export ASAN_OPTIONS; }

# The binding's own suites: re-run under ABI mode and the system interpreter (the other
# files, e.g. JIT and packaging tests, only need one interpreter).
CORE_TESTS="test_cdef test_container test_dtype_device test_env test_error test_function
  test_module test_object test_object_identity test_typeinfo test_stream test_tensor test_torch
  test_contract_functions test_contract_errors test_contract_tensors test_contract_values
  test_contract_containers test_dataclasses test_py_class_deferred test_hooks test_testing_classes test_hostile test_hostile_boundary
  test_conversion_table test_layers test_callback_depth test_py_class_cxx_parent"
core_files() {
  for t in $CORE_TESTS; do echo "$top_srcdir/tests/python/$t.py"; done
}

run() {
  py=$1
  shift
  if ! "$py" -c "import pytest, cffi" 2>/dev/null; then
    echo "run_pytest.sh: $py lacks pytest or cffi; skipped"
    return 77
  fi
  echo "== pytest with $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"
  "$py" -m pytest -q -p no:cacheprovider "$@"
}

# PYTEST_ONLY="test_a test_b": only those files, once, with $PYTHON (the time-boxed
# sanitizer leg of scripts/run-tests.sh)
if [ -n "${PYTEST_ONLY:-}" ]; then
  CORE_TESTS=$PYTEST_ONLY
  run "$PYTHON" $(core_files)
  exit $?
fi

# the compiled module must be the one in use (conftest.py; not for the ABI-mode leg below)
TVM_FFI_TEST_EXPECT_API_MODE=1
export TVM_FFI_TEST_EXPECT_API_MODE
run "$PYTHON" "$top_srcdir/tests/python"; rc=$?
# the ABI-mode fallback (no compiled module), same suite minus the long stress tests
if [ $rc -eq 0 ]; then
  echo "== ABI mode (TVM_FFI_USE_ABI_MODE=1)"
  TVM_FFI_USE_ABI_MODE=1 "$PYTHON" -m pytest -q -p no:cacheprovider $(core_files) || rc=1
fi
if [ -x /usr/bin/python3 ] && [ "$(readlink -f /usr/bin/python3)" != "$(command -v "$PYTHON" | xargs readlink -f)" ]; then
  # test_torch_c_dlpack: Debian's torch 1.13 lacks the DLPack exchange API, so this is where
  # the add-on that provides it is really exercised (in subprocesses it starts itself).  The
  # other files test torch 1.13's fallback path: the add-on stays off for them.
  TVM_FFI_DISABLE_TORCH_C_DLPACK=1 run /usr/bin/python3 $(core_files) "$top_srcdir/tests/python/test_stress.py" \
    "$top_srcdir/tests/python/test_torch_c_dlpack.py"; rc2=$?
  if [ $rc -eq 77 ]; then rc=$rc2; elif [ $rc2 -ne 0 ] && [ $rc2 -ne 77 ]; then rc=$rc2; fi
fi
exit $rc
