#!/bin/sh
# examples/quickstart/test_quickstart_cpp.sh -- `make check` runs the C++ quickstart (the
# README shows it): run_add_one_cpp loads add_one_cpu.so and calls it; compares what it prints.
set -u
: "${top_builddir:=.}"
dir=$top_builddir/examples/quickstart
out=$("$dir/run_add_one_cpp" "$dir/.libs/add_one_cpu.so") || { echo "FAIL: run_add_one_cpp exited $?"; exit 1; }
expected='x = [1, 2, 3, 4, 5]
add_one_cpu(x, y): y = [2, 3, 4, 5, 6]
add_one_cpu(ints, y): InternalError: Check failed: x.dtype() == f32_dtype (int32 vs. float32) : x must be a float tensor'
printf '%s\n' "$out"
[ "$out" = "$expected" ] || { printf 'FAIL: expected\n%s\n' "$expected"; exit 1; }
