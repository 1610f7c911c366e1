#!/bin/sh
# tests/compat/test_cpp_compat.sh -- binary compatibility the other way round:
# kernel libraries built with OUR C++ headers are loaded and called by the
# upstream `apache-tvm-ffi` PyPI package (its own libtvm_ffi.so), with numpy
# arrays and torch tensors, including error paths.
#
# The package goes into a throwaway venv outside the tree
# ($TVMFFI_COMPAT_VENV, default /tmp/tvmffi-apache-venv; created with
# --system-site-packages so the machine's numpy/torch are visible).
# Skips (77) when the venv cannot be created or the package cannot be installed.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}" "${PYTHON:=python3}"
venv=${TVMFFI_COMPAT_VENV:-/tmp/tvmffi-apache-venv}
if [ ! -x "$venv/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$venv" >/dev/null 2>&1 || {
    echo "cannot create a venv: skipping"; exit 77; }
fi
py="$venv/bin/python"
if ! "$py" -c "import tvm_ffi" >/dev/null 2>&1; then
  "$py" -m pip install -q apache-tvm-ffi >/dev/null 2>&1 || {
    echo "cannot install apache-tvm-ffi: skipping"; rm -rf "$venv"; exit 77; }
fi
# the upstream runtime must be the one in the venv, not ours
upstream_lib=$("$py" -c "import tvm_ffi, os; print(os.path.dirname(tvm_ffi.__file__))")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Build the examples with our headers; link NEEDED libtvm_ffi.so without an
# rpath so the already loaded upstream runtime satisfies it.
for src in examples/quickstart/add_one_cpu.cc examples/packaging/src/extension.cc \
           examples/kernel_library/kernel_lib.cc tests/compat/ours_big_int.cc; do
  out="$tmp/$(basename "$src" .cc).so"
  $CXX -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden \
    -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" "$top_srcdir/$src" -o "$out" \
    -L"$top_builddir/c/.libs" -ltvm_ffi || { echo "FAIL: cannot build $src" >&2; exit 1; }
done
env -u LD_LIBRARY_PATH -u LD_PRELOAD "$py" "$top_srcdir/tests/compat/cpp_compat_check.py" "$tmp" "$upstream_lib"
