#!/bin/sh
# examples/quickstart/test_quickstart.sh -- `make check` runs the quickstart
# and compares what it prints with run_add_one.stdout (the README shows that file).
#   test_quickstart.sh [RUN_ADD_ONE KERNEL]   another build of the two (test_pkgconfig.sh)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${top_builddir:=.}"
dir=$top_builddir/examples/quickstart
prog=${1:-$dir/run_add_one}
kernel=${2:-$dir/.libs/add_one_c.so}
out=$("$prog" "$kernel") || { echo "FAIL: run_add_one exited $?"; exit 1; }
expected=$(cat "$top_srcdir/examples/quickstart/run_add_one.stdout")
printf '%s\n' "$out"
[ "$out" = "$expected" ] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
