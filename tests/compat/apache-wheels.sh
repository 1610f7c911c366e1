#!/bin/sh
# tests/compat/apache-wheels.sh -- the wheel of every apache-tvm-ffi release
# in tests/compat/apache-releases.txt, downloaded once into the cache and
# unpacked (tvm_ffi/include, tvm_ffi/lib).  Prints one line per release,
# oldest first: "VERSION DIR", DIR holding include/ and lib/libtvm_ffi.so.
#
# Cache: ${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/wheels (the .whl files and
# one directory per release); parallel callers wait on one lock.  The wheels
# are the CPython 3.11 ones for this machine's platform: only their headers
# and libtvm_ffi.so are used, which do not depend on the Python version.
# Exit 77 (the automake "skip" status) with the reason on stderr when a wheel
# cannot be had (no python/pip, offline).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/wheels
py=${PYTHON:-python3}
skip() { echo "apache-wheels: $*" >&2; exit 77; }

releases=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/apache-releases.txt")
ready() { [ -f "$cache/$1/.complete" ]; }
missing() {
  for v in $releases; do ready "$v" || return 0; done
  return 1
}

if missing; then
  mkdir -p "$cache" || skip "cannot create $cache"
  if command -v flock > /dev/null 2>&1; then
    exec 9> "$cache/.lock" && flock 9
  fi
  for v in $releases; do
    ready "$v" && continue
    whl=$(ls "$cache"/apache_tvm_ffi-"$v"-*.whl 2> /dev/null | head -n 1)
    if [ -z "$whl" ]; then
      "$py" -m pip --version > /dev/null 2>&1 || skip "no pip for $py to download the wheels"
      "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: \
        --python-version 3.11 -d "$cache" "apache-tvm-ffi==$v" < /dev/null > "$cache/pip.log" 2>&1 ||
        skip "pip could not download apache-tvm-ffi==$v (offline?); see $cache/pip.log"
      whl=$(ls "$cache"/apache_tvm_ffi-"$v"-*.whl 2> /dev/null | head -n 1)
      [ -n "$whl" ] || skip "no wheel of apache-tvm-ffi==$v in $cache after pip download"
    fi
    rm -rf "$cache/$v" "$cache/$v.tmp"
    mkdir -p "$cache/$v.tmp" || skip "cannot create $cache/$v.tmp"
    "$py" - "$whl" "$cache/$v.tmp" << 'PY' || skip "cannot unpack $whl"
import sys, zipfile
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if name.startswith(("tvm_ffi/include/", "tvm_ffi/lib/")):
            z.extract(name, dest)
PY
    mv "$cache/$v.tmp/tvm_ffi" "$cache/$v" && rmdir "$cache/$v.tmp" && touch "$cache/$v/.complete" ||
      skip "cannot place the unpacked $v in $cache"
  done
fi
for v in $releases; do
  [ -f "$cache/$v/lib/libtvm_ffi.so" ] || skip "$cache/$v has no lib/libtvm_ffi.so"
  echo "$v $cache/$v"
done
