#!/bin/sh
# examples/quickstart/test_upstream_cmake.sh -- apache-tvm-ffi's own quickstart CMake project,
# unchanged, configures and builds against this tree's CMake package (the directory
# `python -m tvm_ffi.config --cmakedir` prints), which must therefore import the targets
# under upstream's names (tvm_ffi::header, tvm_ffi::shared); then its steps run as its
# run_all_cpu.sh does: load/load_numpy.py (when numpy is there) and build/load_cpp.
# The project is copied at test time from the upstream sdist
# (scripts/fetch-upstream-sdist.sh); nothing of it is committed here.  Also checks the
# names this package adds: tvm_ffi::testing and the plain tvm_ffi_shared & co.
# Exit 77 (skip) with the reason when cmake or the sdist cannot be had.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${top_builddir:=.}"
top_builddir=$(cd "$top_builddir" && pwd)
PYTHON=${PYTHON:-python3}
skip() { echo "test_upstream_cmake: SKIP: $*"; exit 77; }
fail() { echo "test_upstream_cmake: FAIL: $*"; exit 1; }

command -v cmake > /dev/null 2>&1 || skip "no cmake (scripts/setup.sh pip-installs it)"
sdist=$(PYTHON=$PYTHON sh "$top_srcdir/scripts/fetch-upstream-sdist.sh") ||
  skip "the apache-tvm-ffi sdist is neither cached nor fetchable (scripts/fetch-upstream-sdist.sh)"
[ -f "$sdist/examples/quickstart/CMakeLists.txt" ] || fail "$sdist has no examples/quickstart"

# The checkout's package: sources on PYTHONPATH, the built runtime and cffi module.
PYTHONPATH=$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}
TVM_FFI_LIBRARY_PATH=${TVMFFI_LIBDIR:-$top_builddir/c/.libs}
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PYTHONDONTWRITEBYTECODE
python=$(command -v "$PYTHON") || fail "no $PYTHON"
. "$top_srcdir/tests/san-host.sh"  # the example's programs are hosts of the (maybe instrumented) runtime

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-upstream-cmake.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
log=$work/log
cp -R "$sdist/examples/quickstart" "$work/quickstart" || fail "copy of the upstream quickstart"
cd "$work/quickstart" || fail "cd"

configure() {
  cmake . -B build -DEXAMPLE_NAME="$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPython_EXECUTABLE="$python" > "$log" 2>&1 && cmake --build build > "$log" 2>&1 ||
    { cat "$log"; fail "upstream quickstart ($1) did not configure and build"; }
}
configure compile_cpu
[ -f build/add_one_cpu.so ] || fail "no build/add_one_cpu.so"
if "$python" -c "import numpy" 2> /dev/null; then
  out=$(san_host "$python" load/load_numpy.py 2>&1) || { echo "$out"; fail "load/load_numpy.py"; }
  [ "$out" = "[2. 3. 4. 5. 6.]" ] || fail "load_numpy.py printed '$out'"
fi
configure load_cpp
out=$(san_host build/load_cpp 2>&1) || { echo "$out"; fail "build/load_cpp"; }
[ "$out" = "[ 2 3 4 5 6 ]" ] || fail "load_cpp printed '$out'"
echo "ok 1 - upstream's examples/quickstart builds unchanged and runs"

# Every name the package promises, namespaced and plain.
mkdir "$work/names" && cat > "$work/names/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(names LANGUAGES CXX)
find_package(tvm_ffi CONFIG REQUIRED)
foreach(t tvm_ffi::header tvm_ffi::shared tvm_ffi::testing
          tvm_ffi_header tvm_ffi_shared tvm_ffi_testing)
  if(NOT TARGET ${t})
    message(FATAL_ERROR "target ${t} not defined")
  endif()
endforeach()
CMAKE
tvm_ffi_ROOT=$(san_host "$python" -m tvm_ffi.config --cmakedir) || fail "tvm_ffi.config --cmakedir"
cmake -S "$work/names" -B "$work/names/build" -Dtvm_ffi_ROOT="$tvm_ffi_ROOT" > "$log" 2>&1 ||
  { cat "$log"; fail "the CMake package lacks a target"; }
echo "ok 2 - tvm_ffi::header/shared/testing and the plain names are defined"
