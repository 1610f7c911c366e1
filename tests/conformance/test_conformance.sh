#!/bin/sh
# tests/conformance/test_conformance.sh -- `make check` entry of the upstream conformance run:
# apache-tvm-ffi 0.1.15.post2's own tests/python against this build (run_conformance.py says
# how).  Skips (77) only when the source distribution cannot be fetched or without pytest/cffi.
# In a sanitizer build every python it starts runs with the runtimes preloaded (san-host.sh).
: "${top_srcdir:=.}" "${PYTHON:=python3}"
. "$top_srcdir/tests/san-host.sh"
san_host_export
if ! "$PYTHON" -c "import pytest, cffi" 2>/dev/null; then
  echo "conformance: SKIP: $PYTHON lacks pytest or cffi"
  exit 77
fi
exec "$PYTHON" "$top_srcdir/tests/conformance/run_conformance.py"
