"""Nested Python -> FFI -> Python calls (issue 22, items 5 and 8).

A callback that calls an FFI function that calls back into Python nests C frames at every
level, which the interpreter's recursion limit does not count: the binding refuses with
RecursionError before the thread's C stack runs out (_ffi_src/stack.c, _stack.py), in every
mode and on threads with small stacks.  An error raised at the bottom crosses every level
twice; the crossings cost linear time in the depth.  Each program runs in a child process:
a crash must fail the test, not end the session."""

import os
import subprocess
import sys
import textwrap

import pytest

_PRELUDE = textwrap.dedent("""
    import sys, threading, tvm_ffi
    apply = tvm_ffi.get_global_func("testing.apply")
    # ABI mode parses a cffi type on first use, which a small thread's stack cannot hold
    tvm_ffi.error._move_raised_error()

    def nest(n):
        return 0 if n == 0 else apply(nest, n - 1) + 1

    def expect_recursion_error(n):
        try:
            nest(n)
        except RecursionError as e:
            assert "nested Python callbacks" in str(e) or "recursion" in str(e), str(e)
        else:
            raise AssertionError("%d nested calls fit the stack: choose more" % n)
        assert nest(3) == 3  # the thread works on, its raised-error slot clean
        assert tvm_ffi.error._move_raised_error() is None

    def in_thread(stack_bytes, fn, *args):
        threading.stack_size(stack_bytes)
        failed = []
        def body():
            try:
                fn(*args)
            except BaseException as e:
                failed.append(e)
        t = threading.Thread(target=body)
        t.start()
        t.join()
        threading.stack_size(0)
        if failed:
            raise failed[0]
""")


def _run(body, timeout=60):
    r = subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(body)],
                       capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
    assert r.returncode == 0, "exit %d\n%s" % (r.returncode, r.stderr[-3000:])
    return r.stdout


def test_deep_nesting_raises_recursion_error_on_the_main_thread():
    # the interpreter's own limit out of the way: only the binding's guard stands
    _run("""
        sys.setrecursionlimit(10**6)
        expect_recursion_error(20000)
    """)


@pytest.mark.parametrize("kib", [64, 256, 1024])
def test_deep_nesting_on_a_thread_with_a_small_stack(kib):
    _run("""
        sys.setrecursionlimit(10**6)
        in_thread(%d * 1024, expect_recursion_error, 20000)
    """ % kib)


def test_the_interpreters_own_limit_reaches_the_caller_as_recursion_error():
    # at the default limit the interpreter refuses first, inside some callback: the error
    # crosses the FFI levels above it and must still be a RecursionError
    _run("""
        expect_recursion_error(5000)
    """)


def test_nesting_the_stack_holds_still_works():
    assert _run("""
        sys.setrecursionlimit(10**4)  # ABI mode has several Python frames a level
        print(nest(200))
        print(in_thread(256 * 1024, nest, 20) is None)
    """).split() == ["200", "True"]


_ERROR_THROUGH = """
    import time
    sys.setrecursionlimit(10**6)
    def down(n):
        if n == 0:
            raise ValueError("at the bottom")
        return apply(down, n - 1)
    def timed(n):
        t = time.perf_counter()
        try:
            down(n)
        except ValueError as e:
            bt = e.__tvm_ffi_error__.backtrace
            # every level's callback frame is in the backtrace once (the outermost call,
            # made from Python, is only in the exception's own traceback)
            assert bt.count(", in down\\n") == n, (bt.count(", in down\\n"), n)
        else:
            raise AssertionError("no error")
        return time.perf_counter() - t
    timed(50)  # warm the frame and symbol caches
    print(min(timed(%d) for _ in range(2)), min(timed(%d) for _ in range(2)))
"""


def test_an_error_through_nested_calls_costs_linear_time():
    small, large = 200, 800
    t_small, t_large = map(float, _run(_ERROR_THROUGH % (small, large), timeout=120).split())
    # 4x the depth: ~4x the time when linear, ~16x when each level re-reads the backtrace
    assert t_large < 9 * t_small + 0.05, (t_small, t_large)
