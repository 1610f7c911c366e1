#!/bin/sh
# examples/quickstart/test_pkgconfig.sh -- the quickstart built against this build tree with
# nothing but `PKG_CONFIG_PATH=<build dir> pkg-config` (tvm_ffi-uninstalled.pc), as a kernel
# author does against a checkout; then run twice, finding libtvm_ffi.so once through the
# rpath and once through LD_LIBRARY_PATH (tvm_ffi(7) says how).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
fail() { echo "test_pkgconfig: FAIL: $*"; exit 1; }

command -v pkg-config > /dev/null 2>&1 || fail "no pkg-config (scripts/setup.sh installs it)"
[ -f "$top_builddir/tvm_ffi-uninstalled.pc" ] || fail "configure did not write $top_builddir/tvm_ffi-uninstalled.pc"
PKG_CONFIG_PATH=$top_builddir
export PKG_CONFIG_PATH
unset PKG_CONFIG_DISABLE_UNINSTALLED PKG_CONFIG_LIBDIR
pc_file=$(pkg-config --path tvm_ffi) || fail "pkg-config does not find tvm_ffi in $top_builddir"
[ "$pc_file" = "$top_builddir/tvm_ffi-uninstalled.pc" ] || fail "pkg-config picked $pc_file, not the uninstalled file"
cflags=$(pkg-config --cflags tvm_ffi) && libs=$(pkg-config --libs tvm_ffi) &&
  libdir=$(pkg-config --variable=libdir tvm_ffi) || fail "pkg-config --cflags/--libs tvm_ffi"
[ -f "$libdir/libtvm_ffi.so" ] || fail "libdir $libdir has no libtvm_ffi.so"

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-pkgconfig.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
ex=$top_srcdir/examples/quickstart
CC=${CC:-cc}
CXX=${CXX:-c++}
# shellcheck disable=SC2086  # the flags are word lists
{
  $CC -fPIC -shared $cflags "$ex/add_one_c.c" -o "$work/add_one_c.so" $libs &&
  $CC $cflags "$ex/run_add_one.c" -o "$work/run_rpath" $libs -Wl,-rpath,"$libdir" &&
  $CC $cflags "$ex/run_add_one.c" -o "$work/run_plain" $libs
} || fail "building the quickstart with pkg-config's flags"
# the C++ headers come with the same flags
printf '#include <tvm/ffi/function.h>\nint main() { return 0; }\n' > "$work/t.cc"
# shellcheck disable=SC2086
$CXX -std=c++17 -fsyntax-only $cflags "$work/t.cc" || fail "C++ headers not found with pkg-config's flags"

check=$top_srcdir/examples/quickstart/test_quickstart.sh
. "$top_srcdir/tests/san-host.sh"  # the runners are hosts of the (maybe instrumented) runtime
(unset LD_LIBRARY_PATH; san_host sh "$check" "$work/run_rpath" "$work/add_one_c.so") ||
  fail "run through the rpath"
LD_LIBRARY_PATH=$libdir san_host sh "$check" "$work/run_plain" "$work/add_one_c.so" ||
  fail "run through LD_LIBRARY_PATH"
echo "ok - the quickstart builds with $pc_file and runs"
