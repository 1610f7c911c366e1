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
skip() { echo "pypy-venv: $*" >&2; exit 77; }
probe() { "$venv/bin/python" -c "import cffi, pytest, numpy" 2> /dev/null; }
report() { echo "$venv/bin/python"; exit 0; }

probe && report

mkdir -p "$(dirname "$venv")" || skip "cannot create $(dirname "$venv")"
# Parallel tests (make -j) may all arrive here: one creates, the others wait.
if command -v flock > /dev/null 2>&1; then
  exec 9> "$venv.lock" && flock 9
  probe && report
fi

py=${PYPY:-pypy3}
command -v "$py" > /dev/null 2>&1 || skip "no PyPy interpreter ($py; Debian: apt-get install pypy3)"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version > /dev/null 2>&1; then
  rm -rf "$venv"
  "$py" -m venv "$venv" > /dev/null 2>&1 ||
    { rm -rf "$venv"; skip "'$py -m venv' failed (Debian: apt-get install pypy3-venv)"; }
  "$venv/bin/python" -m pip --version > /dev/null 2>&1 ||
    { rm -rf "$venv"; skip "the PyPy venv has no pip"; }
fi
echo "pypy-venv: installing pytest and numpy into $venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check pytest numpy \
  < /dev/null > "$venv.pip.log" 2>&1 ||
  skip "pip could not install pytest numpy for PyPy (offline?); see $venv.pip.log"
probe || skip "pytest or numpy does not import under PyPy; see $venv.pip.log"
report
