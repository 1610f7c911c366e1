#!/bin/sh
# Backtraces where libdw cannot be used: a stub libdw.so.1 (tests/c/stub) is
# found first on LD_LIBRARY_PATH, its functions are missing, and the runtime
# falls back to dladdr (c/src/backtrace.c).  test_backtrace_nodw checks the
# frames it then names: exported functions and their library, no source lines.
: "${top_builddir:=.}"
stub=$top_builddir/tests/c/stub/.libs/libdw_stub.so
[ -f "$stub" ] || { echo "test_backtrace_nodw.sh: $stub is not built" >&2; exit 99; }
dir=$(mktemp -d) || exit 99
trap 'rm -rf "$dir"' EXIT
cp "$stub" "$dir/libdw.so.1" || exit 99
LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$top_builddir/tests/c/test_backtrace_nodw"
