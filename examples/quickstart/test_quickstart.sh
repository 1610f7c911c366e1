#!/bin/sh
# examples/quickstart/test_quickstart.sh -- `make check` runs the quickstart
# and compares what it prints (the README shows the same lines).
#   test_quickstart.sh [RUN_ADD_ONE KERNEL]   another build of the two (test_pkgconfig.sh)
set -u
: "${top_builddir:=.}"
dir=$top_builddir/examples/quickstart
prog=${1:-$dir/run_add_one}
kernel=${2:-$dir/.libs/add_one_c.so}
out=$("$prog" "$kernel") || { echo "FAIL: run_add_one exited $?"; exit 1; }
expected='x = [1, 2, 3, 4, 5]
add_one(x, y): y = [2, 3, 4, 5, 6]
always_fails(): ValueError: always_fails was called, as its name says'
printf '%s\n' "$out"
[ "$out" = "$expected" ] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
