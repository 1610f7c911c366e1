#!/bin/sh
# scripts/pypy-venv.sh -- a cached PyPy venv (Debian's pypy3) with pytest and numpy, in which
# the test suite and the benchmark run the package under PyPy.  Prints the venv's python on
# stdout, nothing else.  cffi is PyPy's own (built in); the package itself is never installed
# there: tests put the checkout on PYTHONPATH.
#
# Location: $TVMFFI_PYPY_VENV, default ${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/pypy-venv.
# The interpreter: $PYPY, else pypy3 (Debian: apt-get install pypy3 pypy3-dev pypy3-venv).
# Exit 77 (the automake "skip" status) with the reason on stderr when the venv cannot be
# made: no pypy3, no venv module, no pip, no network.
set -u

venv=${TVMFFI_PYPY_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/pypy-venv}
tag=pypy-venv
probe() { "$venv/bin/python" -c "import cffi, pytest, numpy" 2> /dev/null; }
report() { echo "$venv/bin/python"; exit 0; }
. "$(dirname "$0")/cached-venv.sh"
cached_venv "${PYPY:-pypy3}" "Debian: apt-get install pypy3-venv" pytest numpy
