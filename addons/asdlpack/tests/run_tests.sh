#!/bin/sh
# Runs the dlpack package's own test-suite (numpy and, when importable, torch as consumers)
# with $PYTHON, then with /usr/bin/python3 when that is another interpreter (older numpy and
# torch).  Exit 77 (skip) with the reason when no interpreter has pytest and numpy.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../../.." && pwd)}
PYTHON=${PYTHON:-python3}
PYTHONPATH=$top_srcdir/addons/asdlpack/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH PYTHONDONTWRITEBYTECODE

run() {
  if ! "$1" -c "import pytest, numpy" 2>/dev/null; then
    echo "asdlpack: $1 lacks pytest or numpy; skipped"
    return 77
  fi
  echo "== dlpack tests with $1"
  "$1" -m pytest -q -p no:cacheprovider "$top_srcdir/addons/asdlpack/python/dlpack/tests"
}

run "$PYTHON"; rc=$?
if [ -x /usr/bin/python3 ] &&
   [ "$(readlink -f /usr/bin/python3)" != "$(command -v "$PYTHON" | xargs readlink -f)" ]; then
  run /usr/bin/python3; rc2=$?
  if [ $rc -eq 77 ]; then rc=$rc2; elif [ $rc2 -ne 0 ] && [ $rc2 -ne 77 ]; then rc=$rc2; fi
fi
exit $rc
