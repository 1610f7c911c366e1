#!/bin/sh
# tests/compat/test_apache_kernel.sh -- a kernel library compiled against the
# headers of the apache-tvm-ffi wheel (apache_kernel.cc, C++ as upstream users
# write it) runs on OUR libtvm_ffi.so unchanged:
#   1. every TVMFFI* symbol it leaves undefined is exported by our library;
#   2. loaded and called through our C API (apache_kernel_load): tensors,
#      ints, floats, strings, callbacks, arrays and maps made on either side,
#      its static-init global, errors with kind, message and a backtrace
#      naming apache_kernel.cc and the throw's line;
#   3. its NEEDED libtvm_ffi.so binds to our already loaded copy even when
#      LD_LIBRARY_PATH points at the wheel's (apache_kernel_needed).
# Skips (77) when the wheel's venv cannot be made (scripts/apache-venv.sh).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}" "${NM:=nm}"
: "${TVMFFI_LIBDIR:=$top_builddir/c/.libs}"

site=$(sh "$top_srcdir/scripts/apache-venv.sh") || exit $?
wheel=$site/tvm_ffi
ours=$TVMFFI_LIBDIR/libtvm_ffi.so
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
src=$top_srcdir/tests/compat/apache_kernel.cc
kernel=$tmp/apache_kernel.so

# Built exactly as against the wheel: its headers, its library, no rpath.
# No sanitizer flags: the kernel stands for a third-party binary.
echo "building $src against $wheel/include"
$CXX -std=c++17 -O1 -g -fPIC -shared -fvisibility=hidden -I"$wheel/include" "$src" \
  -o "$kernel" -L"$wheel/lib" -ltvm_ffi || { echo "FAIL: cannot build the kernel"; exit 1; }
readelf -d "$kernel" | grep -q 'NEEDED.*\[libtvm_ffi\.so\]' ||
  { echo "FAIL: the kernel does not carry NEEDED libtvm_ffi.so"; exit 1; }

echo "1. undefined TVMFFI symbols of the kernel, served by $ours:"
"$NM" -D -u "$kernel" | awk '{print $NF}' | grep '^TVMFFI' | sort -u > "$tmp/needed"
"$NM" -D --defined-only "$ours" | awk '{print $NF}' | sort -u > "$tmp/exported"
[ -s "$tmp/needed" ] || { echo "FAIL: no TVMFFI symbols found in the kernel"; exit 1; }
missing=$(comm -23 "$tmp/needed" "$tmp/exported")
sed 's/^/   /' "$tmp/needed"
[ -z "$missing" ] || { echo "FAIL: our library does not export:"; echo "$missing"; exit 1; }

echo "2. calls through our C API:"
line=$(grep -n 'COMPAT_THROW_LINE' "$src" | head -n 1 | cut -d: -f1)
"$top_builddir/tests/compat/apache_kernel_load" "$kernel" apache_kernel.cc "$line" ||
  { echo "FAIL: apache_kernel_load"; exit 1; }

echo "3. NEEDED libtvm_ffi.so binds to ours:"
LD_LIBRARY_PATH=$wheel/lib "$top_builddir/tests/compat/apache_kernel_needed" "$ours" "$kernel" ||
  { echo "FAIL: apache_kernel_needed"; exit 1; }
echo "PASS"
