"""FileLock: an inter-process lock on a file (POSIX ``flock``).

The lock belongs to the open file description, so two ``FileLock`` objects on the same path
exclude each other even inside one process (threads included).  It is released when the
holder closes it, exits, or dies: a crashed build never leaves a stale lock behind.
"""

import errno
import os
import time


class FileLock:
    """``with FileLock(path): ...`` holds an exclusive lock on ``path`` (created if missing).

    ``acquire()`` tries once and returns a bool (False also when this object holds it already);
    ``blocking_acquire(timeout=None)`` waits (``TimeoutError`` after ``timeout`` seconds,
    ``RuntimeError`` if this object holds it already); ``release()`` unlocks.  Not re-entrant.
    """

    def __init__(self, lock_file_path):
        self.lock_file_path = os.fspath(lock_file_path)
        self._file_descriptor = None

    def __enter__(self):
        self.blocking_acquire()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.release()
        return False

    @property
    def locked(self):
        return self._file_descriptor is not None

    def acquire(self):
        """Try to take the lock without waiting: True when held, False when someone else has it."""
        import fcntl  # noqa: PLC0415 - POSIX only; imported when a lock is actually used

        if self._file_descriptor is not None:
            return False  # held by this object already: not re-entrant
        parent = os.path.dirname(self.lock_file_path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        fd = os.open(self.lock_file_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._file_descriptor = fd
        return True

    def blocking_acquire(self, timeout=None, poll_interval=0.1):
        """Wait for the lock; ``TimeoutError`` when ``timeout`` seconds pass first."""
        if timeout is not None and timeout < 0:
            raise ValueError("timeout must be >= 0 or None, got %r" % (timeout,))
        if poll_interval <= 0:
            raise ValueError("poll_interval must be > 0, got %r" % (poll_interval,))
        if self._file_descriptor is not None:  # waiting for ourselves would never end
            raise RuntimeError("FileLock %s is already held by this object" % self.lock_file_path)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.acquire():
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(
                    "Could not acquire the lock %s within %s seconds" % (self.lock_file_path, timeout))
            time.sleep(poll_interval)
        return True

    def release(self):
        """Unlock (no-op when not held).  The lock file stays: removing it would race."""
        fd, self._file_descriptor = self._file_descriptor, None
        if fd is not None:
            import fcntl  # noqa: PLC0415

            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __del__(self):
        self.release()
