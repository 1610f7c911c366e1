#!/bin/sh
# tests/conformance/test_conformance.sh -- `make check` entry of the upstream conformance run:
# apache-tvm-ffi 0.1.15.post2's own tests/python against this build (run_conformance.py says
# how).  Skips (77) only when the source distribution cannot be fetched, without pytest/cffi,
# and in sanitizer builds (python is uninstrumented; the C and C++ suites cover those).
: "${top_srcdir:=.}" "${PYTHON:=python3}"
if [ -n "${TVMFFI_SAN_PRELOAD:-}" ]; then
  echo "conformance: SKIP: sanitizer build (python is uninstrumented)"
  exit 77
fi
if ! "$PYTHON" -c "import pytest, cffi" 2>/dev/null; then
  echo "conformance: SKIP: $PYTHON lacks pytest or cffi"
  exit 77
fi
exec "$PYTHON" "$top_srcdir/tests/conformance/run_conformance.py"
