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
# for the test suite, doctest for the C++ tests, clang + its runtime for the
# libFuzzer targets.
APT_PACKAGES="build-essential autoconf automake libtool pkg-config libdw-dev
  valgrind mandoc doctest-dev clang libclang-rt-14-dev python3 python3-pip python3-venv"

# ---- Python packages ----------------------------------------------------
# Format: "<import name>:<pip requirement>".  The Python engineer maintains
# this list (cffi builds the extension, pytest runs tests/python).
PIP_PACKAGES="cffi:cffi pytest:pytest"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo > /dev/null 2>&1; then sudo -n "$@"
  else die "need root to run: $*"
  fi
}

install_apt() {
  command -v dpkg-query > /dev/null 2>&1 || { say "not a Debian system; install by hand: $APT_PACKAGES"; return 0; }
  missing=
  for p in $APT_PACKAGES; do
    dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q 'install ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  say "installing apt packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq < /dev/null > /dev/null
  # shellcheck disable=SC2086  # word splitting of the package list is wanted
  as_root apt-get install -y -qq --no-install-recommends $missing < /dev/null > /dev/null
}

pick_python() {
  for py in python3 python; do
    if command -v "$py" > /dev/null 2>&1; then echo "$py"; return 0; fi
  done
  die "no python3 found"
}

install_pip() {
  py=$(pick_python)
  missing=
  for entry in $PIP_PACKAGES; do
    mod=${entry%%:*}; req=${entry#*:}
    "$py" -c "import $mod" > /dev/null 2>&1 || missing="$missing $req"
  done
  [ -z "$missing" ] && return 0
  say "installing pip packages:$missing"
  # Debian's own python refuses system-wide pip installs (PEP 668) unless told.
  # shellcheck disable=SC2086
  "$py" -m pip install -q $missing < /dev/null ||
    "$py" -m pip install -q --break-system-packages $missing < /dev/null
}

install_deps() {
  install_apt
  install_pip
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
    say "configure $CONFIGURE_FLAGS"
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
