"""scripts/pypy-ast-crash.py -- the PyPy crash that pytest's assertion rewriter hits, without
pytest's session, numpy or tvm_ffi: what ``_rewrite_test`` does (``ast.parse``, pytest's
``rewrite_asserts``, ``compile`` of the tree) over this tree's test files, in a loop.

On Debian 12's PyPy 7.3.11 with a small nursery it dies now and then in PyPy's own code
(SIGBUS or SIGSEGV at an indirect call through a garbage type id while walking a list of
AST nodes); tests/python/run_pypy.sh therefore runs pytest with ``--assert=plain``.
Check a new PyPy with it before dropping that option:

    for i in $(seq 30); do PYPY_GC_NURSERY=256k pypy3 scripts/pypy-ast-crash.py 5 || echo "crash $?"; done

(the venv of scripts/pypy-venv.sh has pytest; the measurements are in HACKING.md).
"""

import ast
import glob
import os
import sys

from _pytest.assertion.rewrite import rewrite_asserts

files = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "tests", "python", "*.py")))
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
for _ in range(rounds):
    for fn in files:
        with open(fn, "rb") as f:
            source = f.read()
        tree = ast.parse(source, filename=fn)
        rewrite_asserts(tree, source, fn, None)
        compile(tree, fn, "exec", dont_inherit=True)
print("no crash in %d rounds over %d files" % (rounds, len(files)))
