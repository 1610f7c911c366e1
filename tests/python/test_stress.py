"""No leaks over 100k calls (RSS and live objects flat) and calls from several threads."""

import gc
import threading

import pytest

import tvm_ffi


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def _under_asan():
    with open("/proc/self/maps") as f:
        return "libasan" in f.read()


# ASan keeps freed blocks in its quarantine before reuse (run_pytest.sh caps it at 16 MiB in
# sanitizer builds), so RSS may grow by that much there without any leak.
RSS_SLACK_KB = 8 * 1024 + (24 * 1024 if _under_asan() else 0)


def _mixed_calls(n):
    echo = tvm_ffi.get_global_func("testing.echo")
    nop = tvm_ffi.get_global_func("testing.nop")
    cb = tvm_ffi.convert(lambda x: x)
    obj = tvm_ffi.convert([1, 2])
    for i in range(n):
        nop(i, 1.5, "s", "a longer string value", None, obj)
        echo([i, {"k": i}])
        cb(i)
        try:
            echo()  # echo with no arguments returns None; a failing call follows
            tvm_ffi.get_global_func("testing.add_one")("x")
        except TypeError:
            pass


def test_no_leak_over_100k_calls():
    _mixed_calls(2000)  # warm caches
    gc.collect()
    objects_before = len(gc.get_objects())
    rss_before = _rss_kb()
    _mixed_calls(25000)  # 4 calls per iteration -> 100k calls
    gc.collect()
    assert len(gc.get_objects()) - objects_before < 100
    grew = _rss_kb() - rss_before
    assert grew < RSS_SLACK_KB, "RSS grew by %d KiB (allowed %d)" % (grew, RSS_SLACK_KB)


def test_threads():
    echo = tvm_ffi.get_global_func("testing.echo")
    errors = []

    def work(k):
        try:
            cb = tvm_ffi.convert(lambda x: x + k)
            apply = tvm_ffi.get_global_func("testing.apply")
            for i in range(2000):
                assert echo(i) == i
                assert apply(cb, i) == i + k
                assert list(echo([k, i])) == [k, i]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_callback_released_from_other_thread():
    holder = []
    f = tvm_ffi.convert(lambda: 1)
    holder.append(f)
    t = threading.Thread(target=holder.clear)
    t.start()
    t.join()
    del f
    gc.collect()
