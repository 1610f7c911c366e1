#!/bin/sh
# scripts/apache-venv.sh -- a cached venv with the upstream `apache-tvm-ffi`
# wheel (0.1.x) and numpy, for the binary compatibility tests and the
# benchmark.  Prints the venv's site-packages directory (the one holding
# tvm_ffi/include and tvm_ffi/lib/libtvm_ffi.so) on stdout, nothing else.
#
#   scripts/apache-venv.sh            create or reuse, print site-packages
#   scripts/apache-venv.sh --python   print the venv's python instead
#
# Location: $TVMFFI_APACHE_VENV, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/apache-venv.  The interpreter
# that creates it: $PYTHON, else python3.
# Exit 77 (the automake "skip" status) with the reason on stderr when the
# venv cannot be made: no python, no venv module, no pip, no network.
set -u

venv=${TVMFFI_APACHE_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/apache-venv}
requirement='apache-tvm-ffi>=0.1,<0.2'
tag=apache-venv

case "${1:-}" in
  "" | --site) what=site ;;
  --python) what=python ;;
  *) echo "usage: $0 [--site|--python]" >&2; exit 2 ;;
esac

# Usable when the wheel's runtime and headers are there and numpy imports.
probe() {
  "$venv/bin/python" - 2> /dev/null << 'EOF'
import os, sysconfig, numpy, tvm_ffi
root = os.path.dirname(tvm_ffi.__file__)
assert tvm_ffi.__version__.startswith("0.1.")
assert os.path.isfile(os.path.join(root, "lib", "libtvm_ffi.so"))
assert os.path.isfile(os.path.join(root, "include", "tvm", "ffi", "c_api.h"))
print(os.path.dirname(root))
EOF
}

# probe() prints site-packages; report() re-probes for it (cached_venv calls it bare).
report() {
  if [ "$what" = python ]; then echo "$venv/bin/python"; else probe; fi
  exit 0
}

. "$(dirname "$0")/cached-venv.sh"
cached_venv "${PYTHON:-python3}" "Debian: apt-get install python3-venv" "$requirement" numpy
