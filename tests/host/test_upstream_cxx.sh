#!/bin/sh
# Builds tests/host/upstream_module_ext.cc against the apache-tvm-ffi wheel's
# headers (linked to the wheel's libtvm_ffi.so, as a package built against it
# is), then runs upstream_cxx_check.py: the extension on our runtime and
# package.  Skips without the wheel (scripts/apache-venv.sh) or a C++ compiler.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$srcdir/tests/host
CXX=${CXX:-c++}
. "$srcdir/tests/san-host.sh"  # python runs the sanitizer build's runtime under san_host
command -v "$CXX" > /dev/null 2>&1 || { echo "SKIP: no C++ compiler ($CXX)"; exit 77; }
site=$(sh "$srcdir/scripts/apache-venv.sh") || { echo "SKIP: no apache-tvm-ffi wheel"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
$CXX -std=c++17 -O1 -shared -fPIC -I"$site/tvm_ffi/include" "$here/upstream_module_ext.cc" \
  -L"$site/tvm_ffi/lib" -ltvm_ffi -o "$tmp/upstream_module_ext.so" || { echo "FAIL: build"; exit 1; }
[ -n "${TVMFFI_LIBDIR:-}" ] && export TVM_FFI_LIBRARY_PATH="$TVMFFI_LIBDIR"
# The interpreter of our Python tests; our package comes first on sys.path.
san_host "${PYTHON:-python3}" "$here/upstream_cxx_check.py" "$tmp/upstream_module_ext.so" || exit 1
# Without the package loading the C++ ABI library: the runtime's loader does,
# and a module made before then (a C kernel) gets its vtable too.
ckernel=${top_builddir:-$srcdir}/examples/quickstart/.libs/add_one_c.so
[ -f "$ckernel" ] || { echo "FAIL: $ckernel not built"; exit 1; }
TVM_FFI_NO_CXX_ABI=1 san_host "${PYTHON:-python3}" "$here/upstream_cxx_check.py" \
  "$tmp/upstream_module_ext.so" "$ckernel"
