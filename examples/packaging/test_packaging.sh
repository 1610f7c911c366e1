#!/bin/sh
# examples/packaging/test_packaging.sh -- the packaging guide end to end (run by make check):
#
#  1. the tvm_ffi sdist of this source tree (pyproject.toml + CMakeLists.txt), and pip builds
#     the wheel from that sdist;
#  2. a fresh venv (no system packages) installs it and uses it: import, testing globals,
#     numpy-free call, tvm-ffi-config, and a C++ extension compiled with the flags it prints
#     (needs cffi from the package index or pip's cache; skipped alone when offline);
#  3. a venv with the system packages (torch/numpy, scikit-build-core) gets the same wheel,
#     builds examples/packaging into an ABI-agnostic py3 wheel with scikit-build-core + CMake,
#     installs it and runs add_one and raise_error (C++ file and line in the traceback);
#  4. the same example configures with MY_FFI_EXTENSION_TVM_FFI_FROM_SOURCE=ON
#     (add_subdirectory of `tvm_ffi.config --sourcedir`) and builds;
#  5. the example built with pip's build isolation (the apache package from the index as
#     build dependency) installs in the venv of 3 and runs on this package's runtime.
# Exit 77 (skip) with the reason when a tool is missing.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHON=${PYTHON:-python3}
ex=$top_srcdir/examples/packaging
skip() { echo "test_packaging: SKIP: $*"; exit 77; }
fail() { echo "test_packaging: FAIL: $*"; exit 1; }

# The package under test must come from the venvs, never from the build tree.
unset PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PIP_REQUIRE_VIRTUALENV
export PIP_DISABLE_PIP_VERSION_CHECK=1

"$PYTHON" -c "import venv, ensurepip" 2>/dev/null || skip "$PYTHON lacks venv/ensurepip"
"$PYTHON" -c "import scikit_build_core, cffi, setuptools" 2>/dev/null ||
  skip "$PYTHON lacks scikit-build-core, cffi or setuptools (pip install scikit-build-core cffi setuptools)"
command -v cmake >/dev/null 2>&1 || skip "no cmake (pip install cmake)"
command -v "${CXX:-c++}" >/dev/null 2>&1 || skip "no C++ compiler"

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-packaging.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT
log=$work/log

# ---- 1. the tvm_ffi sdist, and the wheel built from it -----------------------------------
(cd "$top_srcdir" && "$PYTHON" -c "import sys; from scikit_build_core.build import build_sdist
print(build_sdist(sys.argv[1]))" "$work/sdist") >"$log" 2>&1 || { cat "$log"; fail "sdist failed"; }
sdist=$(ls "$work"/sdist/apache_tvm_ffi-*.tar.gz 2>/dev/null)
[ -n "$sdist" ] || fail "no apache_tvm_ffi sdist in $work/sdist"
for f in pyproject.toml CMakeLists.txt c/libtvm_ffi.sym c/src/init.c cpp/include/tvm/ffi/function.h \
  python/tvm_ffi/__init__.py cmake/tvm_ffi-config.cmake; do
  tar tzf "$sdist" | grep -q "^apache_tvm_ffi-[^/]*/$f\$" || fail "sdist lacks $f"
done
"$PYTHON" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" "$sdist" \
  >"$log" 2>&1 || { cat "$log"; fail "pip wheel of the tvm_ffi sdist failed"; }
whl=$(ls "$work"/dist/apache_tvm_ffi-*.whl 2>/dev/null)
[ -n "$whl" ] || fail "no apache_tvm_ffi wheel in $work/dist"
# cp312-abi3 from CPython 3.12+, a version-specific wheel before (docs/guide-packaging.md §1)
case $whl in *-cp312-abi3-*.whl | *-cp39-cp39-* | *-cp310-cp310-* | *-cp311-cp311-*) ;;
  *) fail "wheel has none of the tags docs/python.md names: $whl" ;; esac
"$PYTHON" -m zipfile -l "$whl" > "$work/files" || fail "cannot list $whl"
for f in tvm_ffi/lib/libtvm_ffi.so tvm_ffi/lib/libtvm_ffi_testing.so tvm_ffi/include/tvm/ffi/c_api.h \
  tvm_ffi/include/tvm/ffi/function.h tvm_ffi/include/dlpack/dlpack.h \
  tvm_ffi/share/cmake/tvm_ffi/tvm_ffi-config.cmake tvm_ffi/source/CMakeLists.txt tvm_ffi/_cdef.h \
  tvm_ffi/_ffi_abi.py tvm_ffi/torch_c_dlpack_addon/addon.cc tvm_ffi/torch_c_dlpack_addon/build.py; do
  grep -q "^$f " "$work/files" || fail "wheel lacks $f"
done
grep -Eq '^tvm_ffi/_ffi_cffi\.(abi3|cpython-3[0-9]+-[^ ]*)\.so ' "$work/files" ||
  fail "wheel lacks the cffi module"
echo "ok 1 - $(basename "$sdist") -> $(basename "$whl")"

# ---- 2. fresh venv ---------------------------------------------------------------------
"$PYTHON" -m venv "$work/fresh" || fail "venv"
fpy=$work/fresh/bin/python
if "$fpy" -m pip install -q "$whl" >"$log" 2>&1; then
  (cd "$work" && "$fpy" - "$work/fresh" <<'EOF') || fail "fresh venv: using the installed package failed"
import os, subprocess, sys
import tvm_ffi
venv = sys.argv[1]
pkg = os.path.dirname(tvm_ffi.__file__)
assert pkg.startswith(venv), pkg
assert tvm_ffi._loader.LIB_PATH == os.path.join(pkg, "lib", "libtvm_ffi.so"), tvm_ffi._loader.LIB_PATH
assert tvm_ffi._loader.API_MODE, "the wheel's compiled cffi module was not used"
assert tvm_ffi.get_global_func("testing.echo")("x") == "x"
assert tvm_ffi.convert([1, 2])[1] == 2
cfg = os.path.join(venv, "bin", "tvm-ffi-config")
flags = subprocess.check_output([cfg, "--cxxflags", "--ldflags", "--libs"], text=True).split()
assert "-I" + os.path.join(pkg, "include") in flags, flags
src = os.path.join(venv, "k.cc")
with open(src, "w") as f:
    f.write('#include <tvm/ffi/function.h>\n'
            'int Twice(int x) { return 2 * x; }\n'
            'TVM_FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);\n')
so = os.path.join(venv, "k.so")
subprocess.check_call([os.environ.get("CXX", "c++"), "-shared", "-fPIC", src, "-o", so] + flags)
assert tvm_ffi.load_module(so).twice(21) == 42
EOF
  echo "ok 2 - fresh venv: import, globals, tvm-ffi-config flags build a loadable extension"
else
  echo "ok 2 # SKIP fresh venv: pip could not install the wheel's dependency cffi (offline?)"
fi

# ---- 3. the example as a py3 wheel -----------------------------------------------------
"$PYTHON" -m venv --system-site-packages "$work/sys" || fail "venv --system-site-packages"
spy=$work/sys/bin/python
"$spy" -m pip install -q --no-deps --no-index "$whl" >"$log" 2>&1 || { cat "$log"; fail "install wheel"; }
(cd "$work" && "$spy" -c "import tvm_ffi, sys; assert tvm_ffi.__file__.startswith(sys.prefix)") ||
  fail "the venv does not import its own tvm_ffi"
"$spy" -m pip wheel -q --no-build-isolation --no-deps -w "$work/exdist" "$ex" >"$log" 2>&1 ||
  { cat "$log"; fail "pip wheel of examples/packaging failed"; }
exwhl=$(ls "$work"/exdist/my_ffi_extension-*.whl 2>/dev/null)
case $exwhl in *-py3-none-*.whl) ;; *) fail "example wheel is not ABI-agnostic (py3-none): $exwhl" ;; esac
"$spy" -m pip install -q --no-deps --no-index "$exwhl" >"$log" 2>&1 || { cat "$log"; fail "install example"; }
out=$(cd "$work" && "$spy" "$ex/run_example.py" add_one 2>&1) || { echo "$out"; fail "add_one"; }
case $out in
  *"2., 3., 4., 5., 6."*) ;;
  *) echo "$out"; fail "add_one printed the wrong result" ;;
esac
echo "ok 3 - example wheel $(basename "$exwhl"): add_one -> $out"
line=$(grep -n 'TVM_FFI_THROW(RuntimeError)' "$ex/src/extension.cc" | cut -d: -f1)
out=$(cd "$work" && "$spy" "$ex/run_example.py" raise_error 2>&1) && fail "raise_error did not fail"
echo "$out" | grep -q "^RuntimeError: This is an error" || { echo "$out"; fail "no RuntimeError"; }
echo "$out" | grep -q "File \"src/extension.cc\", line $line, in .*RaiseError" ||
  { echo "$out"; fail "no C++ frame src/extension.cc:$line in the traceback"; }
echo "ok 4 - raise_error: $(echo "$out" | grep 'src/extension.cc' | sed 's/^ *//')"

# ---- 4. tvm_ffi built from the shipped sources (add_subdirectory) -----------------------
cmake -S "$ex" -B "$work/fromsrc" -DPython_EXECUTABLE="$spy" -DMY_FFI_EXTENSION_TVM_FFI_FROM_SOURCE=ON \
  >"$log" 2>&1 && cmake --build "$work/fromsrc" -j2 >>"$log" 2>&1 ||
  { cat "$log"; fail "build with tvm_ffi from source"; }
(cd "$work" && "$spy" -c "
import tvm_ffi, numpy as np
m = tvm_ffi.load_module('$work/fromsrc/my_ffi_extension.so')
x = np.arange(3, dtype='float32'); y = np.empty_like(x); m.add_one(x, y)
assert y.tolist() == [1.0, 2.0, 3.0], y
") || fail "extension built with tvm_ffi from source"
echo "ok 5 - add_subdirectory(tvm_ffi.config --sourcedir) builds tvm_ffi_shared and the extension"

# ---- 5. the example with pip's build isolation -------------------------------------------
# pip installs the build requirements, among them apache-tvm-ffi (the apache package, from
# the index), into a throwaway environment and compiles against its headers; the py3 wheel
# then runs on this package's runtime in the venv of step 3.
if "$PYTHON" -m pip wheel -q --no-deps -w "$work/isodist" "$ex" >"$log" 2>&1; then
  isowhl=$(ls "$work"/isodist/my_ffi_extension-*.whl 2>/dev/null)
  [ -n "$isowhl" ] || fail "no example wheel from the isolated build"
  "$spy" -m pip install -q --no-deps --no-index --force-reinstall "$isowhl" >"$log" 2>&1 ||
    { cat "$log"; fail "install the isolated build's wheel"; }
  out=$(cd "$work" && "$spy" "$ex/run_example.py" add_one 2>&1) || { echo "$out"; fail "add_one (isolated build)"; }
  case $out in
    *"2., 3., 4., 5., 6."*) ;;
    *) echo "$out"; fail "add_one (isolated build) printed the wrong result" ;;
  esac
  (cd "$work" && "$spy" -c "import tvm_ffi, sys; assert tvm_ffi.__file__.startswith(sys.prefix)") ||
    fail "the isolated build's wheel did not run on this package"
  echo "ok 6 - with build isolation (apache-tvm-ffi from the index as build dependency): add_one -> $out"
elif grep -qiE 'No matching distribution|Could not find a version|Failed to establish|Network is unreachable|Temporary failure in name resolution' "$log"; then
  echo "ok 6 # SKIP build isolation: pip could not fetch the build requirements (offline?)"
else
  cat "$log"; fail "pip wheel of examples/packaging with build isolation"
fi
echo "test_packaging: all checks passed"
