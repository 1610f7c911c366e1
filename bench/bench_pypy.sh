#!/bin/sh
# bench/bench_pypy.sh -- `make bench` driver of bench/bench_pypy.py (the build tree's package
# under PyPy beside $PYTHON), run the way bench_python.sh runs bench_python.py.
BENCH_PY_SCRIPT=bench_pypy.py exec sh "${top_srcdir:-.}/bench/bench_python.sh"
