#!/bin/sh
# examples/quickstart/test_quickstart_py.sh -- `make check` runs the Python quickstart (the
# README shows it): run_add_one.py calls add_one_c.so on NumPy arrays; compares what it prints
# with run_add_one_py.stdout.
# Skips (77) when the interpreter lacks cffi or numpy.
set -u
PYTHON=${PYTHON:-python3}
. "$(dirname "$0")/../../tests/python/pytest-env.sh"
. "$top_srcdir/tests/san-host.sh"
san_host_export
"$PYTHON" -c "import cffi, numpy" 2> /dev/null || { echo "SKIP: $PYTHON lacks cffi or numpy"; exit 77; }
out=$("$PYTHON" "$top_srcdir/examples/quickstart/run_add_one.py" \
  "$top_builddir/examples/quickstart/.libs/add_one_c.so") || { echo "FAIL: run_add_one.py exited $?"; exit 1; }
expected=$(cat "$top_srcdir/examples/quickstart/run_add_one_py.stdout")
printf '%s\n' "$out"
[ "$out" = "$expected" ] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
