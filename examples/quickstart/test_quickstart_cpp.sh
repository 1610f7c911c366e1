#!/bin/sh
# examples/quickstart/test_quickstart_cpp.sh -- `make check` runs the C++ quickstart (the
# README shows it): run_add_one_cpp loads add_one_cpu.so and calls it; compares what it prints
# with run_add_one_cpp.stdout.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${top_builddir:=.}"
dir=$top_builddir/examples/quickstart
out=$("$dir/run_add_one_cpp" "$dir/.libs/add_one_cpu.so") || { echo "FAIL: run_add_one_cpp exited $?"; exit 1; }
expected=$(cat "$top_srcdir/examples/quickstart/run_add_one_cpp.stdout")
printf '%s\n' "$out"
[ "$out" = "$expected" ] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
