#!/bin/sh
# tests/compat/test_ours_kernel.sh -- the other direction: a plain C kernel
# compiled against OUR c_api.h and linked to our libtvm_ffi.so
# (ours_kernel.c) is loaded by the apache-tvm-ffi wheel's Python with its own
# runtime and called with numpy arrays, scalars and strings; its errors
# arrive in Python with kind, message and the C frame
# (apache_loads_ours.py).  Skips (77) when the wheel's venv cannot be made.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
: "${TVMFFI_LIBDIR:=$top_builddir/c/.libs}"

py=$(sh "$top_srcdir/scripts/apache-venv.sh" --python) || exit $?
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
src=$top_srcdir/tests/compat/ours_kernel.c
kernel=$tmp/ours_kernel.so

# As a user would build it against an installed tvm_ffi: our headers, our
# library, no rpath (the host process provides libtvm_ffi.so).  No sanitizer
# flags: the host is an uninstrumented python.
echo "building $src against our headers"
$CC -std=c11 -O1 -g -fPIC -shared -Wall -Wextra -Werror -I"$top_srcdir/c/include" "$src" \
  -o "$kernel" -L"$TVMFFI_LIBDIR" -ltvm_ffi || { echo "FAIL: cannot build the kernel"; exit 1; }

line=$(grep -n 'TVMFFIBacktrace(__FILE__' "$src" | head -n 1 | cut -d: -f1)
env -u LD_LIBRARY_PATH -u LD_PRELOAD -u PYTHONPATH \
  "$py" "$top_srcdir/tests/compat/apache_loads_ours.py" "$line" "$kernel" ||
  { echo "FAIL: apache_loads_ours.py"; exit 1; }
echo "PASS"
