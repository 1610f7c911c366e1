#!/bin/sh
# scripts/setup.sh -- the README's first command.
#
#   scripts/setup.sh            install what is missing, build, run the quickstart
#   scripts/setup.sh --deps     only install what is missing (used by run-tests.sh)
#
# Idempotent and quiet when everything is there.  Works as root (no sudo
# needed) or through sudo, without a terminal (CI=true, no stdin).
# Environment: BUILD_DIR (default: the source tree), CONFIGURE_FLAGS,
# MAKE_JOBS (default 2).
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$srcdir}
MAKE_JOBS=${MAKE_JOBS:-2}
CONFIGURE_FLAGS=${CONFIGURE_FLAGS:-}

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# ---- system packages (Debian) -------------------------------------------
# Build tools, elfutils for backtraces with file:line, valgrind and mandoc
# for the test suite, doctest for the C++ tests, GoogleTest (libgtest-dev,
# libgmock-dev) for upstream's C++ tests (tests/cpp/upstream-suite.sh) and the
# C++ conformance tests, clang + its runtime for the libFuzzer targets,
# patchelf for auditwheel; Debian's python3 with cffi/pytest/numpy runs the
# pytest suite a second time (tests/python/run_pytest.sh); pypy3 (its headers for
# tvm_ffi._capi_ext, its venv module for scripts/pypy-venv.sh) a third (run_pypy.sh,
# under gdb so that a crash there logs its C stacks).
APT_PACKAGES="build-essential autoconf automake libtool pkg-config libdw-dev
  valgrind mandoc doctest-dev libgtest-dev libgmock-dev clang libclang-rt-14-dev
  patchelf python3 python3-pip python3-venv python3-cffi python3-pytest python3-numpy
  pypy3 pypy3-dev pypy3-venv gdb"
# Best effort (tests skip without them): Debian's torch 1.13 exercises the
# legacy DLPack path under /usr/bin/python3, and building the torch C DLPack
# add-on against it needs its C++ headers (libtorch-dev, which brings
# libgflags-dev and libgoogle-glog-dev) and pybind11-dev (torch/extension.h);
# LLVM (llvm-config + headers) builds the ORC JIT add-on (addons/orcjit).
APT_OPTIONAL="python3-torch libtorch-dev libgflags-dev libgoogle-glog-dev pybind11-dev
  llvm llvm-14-dev"

# ---- Python packages (for the python3 first on PATH) ---------------------
# >>> maintained with the Python engineer: "<import name>:<pip requirement>" <<<
PIP_PACKAGES="cffi:cffi pytest:pytest numpy:numpy"
# Best effort: torch==2.13.0 is the CPU wheel this machine kind keeps on disk
# (an unpinned torch would download a multi-GB CUDA build).
PIP_OPTIONAL="torch:torch==2.13.0"
# Best effort: the Python tooling's tests (tvm_ffi.cpp JIT, the wheel and examples/packaging)
# need ninja, cmake and scikit-build-core (+ setuptools, which cffi compiles with).
PIP_OPTIONAL="$PIP_OPTIONAL ninja:ninja cmake:cmake scikit_build_core:scikit-build-core setuptools:setuptools"
# Best effort: ml_dtypes (int2/int4, bfloat16, float8/6/4 numpy dtypes) for the dtype tests.
PIP_OPTIONAL="$PIP_OPTIONAL ml_dtypes:ml_dtypes"
# Best effort: NVRTC (the CUDA install here ships nvcc without libnvrtc) for tvm_ffi.cpp.nvrtc;
# the wheel matching nvcc 13.0 installs under nvidia/cu13.
PIP_OPTIONAL="$PIP_OPTIONAL nvidia.cu13:nvidia-cuda-nvrtc==13.0.*"
# Best effort: cuda-python's driver bindings (their stream objects convert without a GPU).
PIP_OPTIONAL="$PIP_OPTIONAL cuda.bindings.driver:cuda-bindings"
# Best effort: atheris, the coverage-guided fuzzer of `make fuzz-python` (fuzz/fuzz_py_*.py);
# its wheels cover CPython 3.8-3.11 and building it elsewhere needs clang's libFuzzer.
PIP_OPTIONAL="$PIP_OPTIONAL atheris:atheris"
# Best effort, for Debian's /usr/bin/python3 when it is not the python3 above (run_pytest.sh
# runs the core suites there too): what Debian does not package.  numpy stays at Debian's
# version, which Debian's torch is built against.
SYSTEM_PIP_OPTIONAL="ml_dtypes:ml_dtypes cuda.bindings.driver:cuda-bindings"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo > /dev/null 2>&1; then sudo -n "$@"
  else die "need root to run: $*"
  fi
}

apt_missing() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q 'install ok installed' ||
      printf ' %s' "$p"
  done
}

apt_updated=
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq < /dev/null > /dev/null || return 1
    apt_updated=1
  fi
  # shellcheck disable=SC2086  # word splitting of the package list is wanted
  as_root apt-get install -y -qq --no-install-recommends "$@" < /dev/null > /dev/null
}

install_apt() {
  command -v dpkg-query > /dev/null 2>&1 || { say "not a Debian system; install by hand: $APT_PACKAGES"; return 0; }
  # shellcheck disable=SC2086
  missing=$(apt_missing $APT_PACKAGES)
  if [ -n "$missing" ]; then
    say "installing apt packages:$missing"
    # shellcheck disable=SC2086
    apt_install $missing || die "apt-get install failed for:$missing"
  fi
  # shellcheck disable=SC2086
  missing=$(apt_missing $APT_OPTIONAL)
  if [ -n "$missing" ]; then
    say "installing optional apt packages:$missing"
    # shellcheck disable=SC2086
    apt_install $missing || say "optional apt packages not installed:$missing (their tests skip)"
  fi
}

pick_python() {
  for py in python3 python; do
    if command -v "$py" > /dev/null 2>&1; then echo "$py"; return 0; fi
  done
  die "no python3 found"
}

pip_missing() {
  for entry in "$@"; do
    "$py" -c "import ${entry%%:*}" > /dev/null 2>&1 || printf ' %s' "${entry#*:}"
  done
}

pip_install() {
  # Debian's own python refuses system-wide pip installs (PEP 668) unless told.
  # The first try is quiet: its PEP 668 refusal is expected; the second shows real errors.
  "$py" -m pip install -q --disable-pip-version-check --root-user-action=ignore "$@" < /dev/null 2> /dev/null ||
    "$py" -m pip install -q --disable-pip-version-check --root-user-action=ignore --break-system-packages "$@" < /dev/null
}

install_pip() {
  py=$(pick_python)
  # shellcheck disable=SC2086
  missing=$(pip_missing $PIP_PACKAGES)
  if [ -n "$missing" ]; then
    say "installing pip packages:$missing"
    # shellcheck disable=SC2086
    pip_install $missing || die "pip install failed for:$missing"
  fi
  # shellcheck disable=SC2086
  missing=$(pip_missing $PIP_OPTIONAL)
  if [ -n "$missing" ]; then
    say "installing optional pip packages:$missing"
    # shellcheck disable=SC2086
    pip_install $missing || say "optional pip packages not installed:$missing (their tests skip)"
  fi
}

# The pip extras of Debian's interpreter; pip needs --break-system-packages there (PEP 668)
# and installs into /usr/local, leaving Debian's own packages alone.
install_system_pip() {
  sys_py=/usr/bin/python3
  [ -x "$sys_py" ] || return 0
  [ "$(readlink -f "$sys_py")" != "$(command -v "$py" | xargs readlink -f)" ] || return 0
  py=$sys_py
  # shellcheck disable=SC2086
  missing=$(pip_missing $SYSTEM_PIP_OPTIONAL)
  [ -n "$missing" ] || return 0
  numpy_pin=$("$py" -c 'import numpy; print("numpy==" + numpy.__version__)' 2> /dev/null) || numpy_pin=
  say "installing optional pip packages for $py:$missing"
  # shellcheck disable=SC2086
  pip_install $missing $numpy_pin || say "optional pip packages not installed for $py:$missing (their tests skip)"
}

install_deps() {
  install_apt
  install_pip
  install_system_pip
}

build() {
  cd "$srcdir"
  if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure.ac -nt configure ]; then
    say "autogen"
    ./autogen.sh > /dev/null 2>&1 || { ./autogen.sh; die "autogen.sh failed"; }
  fi
  mkdir -p "$BUILD_DIR"
  cd "$BUILD_DIR"
  if [ ! -f Makefile ]; then
    say "configure${CONFIGURE_FLAGS:+ $CONFIGURE_FLAGS}"
    # shellcheck disable=SC2086
    "$srcdir/configure" -q $CONFIGURE_FLAGS || die "configure failed (see $BUILD_DIR/config.log)"
  fi
  say "make -j$MAKE_JOBS (log: $BUILD_DIR/setup-build.log)"
  make -j"$MAKE_JOBS" > setup-build.log 2>&1 || { tail -n 40 setup-build.log; die "build failed"; }
  if grep -q 'warning:' setup-build.log; then
    say "the build printed $(grep -c 'warning:' setup-build.log) compiler warnings (see the log)"
  fi
}

# The main job: the quickstart builds a kernel library and calls it from C.
run_quickstart() {
  cd "$BUILD_DIR"
  if grep -q '^quickstart:' Makefile 2> /dev/null; then
    make -s quickstart
  else
    say "quickstart not available yet (examples/quickstart); build is done"
  fi
}

case "${1:-}" in
  --deps) install_deps ;;
  "") install_deps; build; run_quickstart ;;
  *) die "usage: $0 [--deps]" ;;
esac
