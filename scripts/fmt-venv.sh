#!/bin/sh
# scripts/fmt-venv.sh -- a cached venv with the pinned formatters the tree follows
# (.clang-format, pyproject.toml [tool.ruff]): another version formats differently, so
# these pins are the versions scripts/check-format.sh is meant to run.  Prints the venv's
# bin directory on stdout, nothing else.
#
#   scripts/fmt-venv.sh               create or reuse (pip, from PyPI), print the bin dir
#   scripts/fmt-venv.sh --no-install  print it only when the venv is already there
#
# Location: $TVMFFI_FMT_VENV, default ${XDG_CACHE_HOME:-$HOME/.cache}/tvm-ffi-c/fmt-venv.
# The interpreter that creates it: $PYTHON, else python3.
# Exit 77 with the reason on stderr when the venv is missing or cannot be made.
set -u

venv=${TVMFFI_FMT_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/fmt-venv}
clang_format=23.1.3
ruff=0.17.5
tag=fmt-venv

probe() {
  "$venv/bin/clang-format" --version 2> /dev/null | grep -q "version $clang_format\b" &&
    "$venv/bin/ruff" --version 2> /dev/null | grep -qx "ruff $ruff"
}
report() { echo "$venv/bin"; exit 0; }

case "${1:-}" in
  "") ;;
  --no-install)
    probe && report
    echo "$tag: no venv with clang-format $clang_format and ruff $ruff at $venv" \
      "(scripts/fmt-venv.sh makes it)" >&2
    exit 77 ;;
  *) echo "usage: $0 [--no-install]" >&2; exit 2 ;;
esac

. "$(dirname "$0")/cached-venv.sh"
cached_venv "${PYTHON:-python3}" "Debian: apt-get install python3-venv" \
  "clang-format==$clang_format" "ruff==$ruff"
