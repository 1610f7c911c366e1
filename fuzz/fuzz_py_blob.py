#!/usr/bin/env python3
"""Atheris target: __tvm_ffi__library_bin blobs through load_module, with Python loaders.

A library compiled at startup exports a writable 4 KiB __tvm_ffi__library_bin; each input
is written into it (through ctypes, the same mapping the runtime's dlopen returns) and the
library loaded again, so the runtime parses the blob and calls the loaders it names.  The
blob is raw bytes or a well-formed import tree of random shape, whose entries are the
library itself ("_lib") or modules of Python loaders registered here: "pym" returns a
module, raises ValueError or returns None depending on its payload, "pyint" returns an int
(TypeError expected).  Properties: load_module returns a Module or raises RuntimeError,
TypeError or ValueError (never another kind, never a crash); the raised-error slot is
clean; the loaders' payloads arrive as bytes equal to what the blob holds.
Run by `make fuzz-python` (see fuzz/Makefile.inc).
"""

import atexit
import ctypes
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    import tvm_ffi

from fuzz_py_common import check_slot  # noqa: E402 - after the instrumented imports

BLOB_SIZE = 4096
_SOURCE = "unsigned char __tvm_ffi__library_bin[%d] __attribute__((visibility(\"default\")));\n"
seen = []


@tvm_ffi.register_global_func("ffi.Module.load_from_bytes.pym", override=True)
def _load_pym(payload):
    assert isinstance(payload, bytes), type(payload)
    seen.append(payload)
    if payload[:1] == b"v":
        raise ValueError("payload refused")
    if payload[:1] == b"n":
        return None
    return tvm_ffi.system_lib()


@tvm_ffi.register_global_func("ffi.Module.load_from_bytes.pyint", override=True)
def _load_pyint(payload):
    return len(payload)


def build_library():
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        sys.exit("fuzz_py_blob: no C compiler (CC) to build the blob library")
    d = tempfile.mkdtemp(prefix="tvmffi_fuzz_blob.")
    src, lib = os.path.join(d, "blob.c"), os.path.join(d, "blob.so")
    with open(src, "w", encoding="utf-8") as f:
        f.write(_SOURCE % BLOB_SIZE)
    subprocess.run([cc, "-shared", "-fPIC", "-o", lib, src], check=True)
    atexit.register(shutil.rmtree, d, True)
    return lib


LIB = build_library()
_HANDLE = ctypes.CDLL(LIB)
BLOB = (ctypes.c_ubyte * BLOB_SIZE).in_dll(_HANDLE, "__tvm_ffi__library_bin")


def u64(v):
    return struct.pack("<Q", v & (2**64 - 1))


def tree_blob(fdp):
    """A blob whose header, vectors and strings are consistent (mostly); entries random."""
    n = fdp.ConsumeIntInRange(1, 5)
    indptr, child = [0], []
    for _ in range(n):
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            child.append(fdp.ConsumeIntInRange(0, n if fdp.ConsumeBool() else n - 1))
        indptr.append(len(child))
    body = u64(len(indptr)) + b"".join(map(u64, indptr)) + u64(len(child)) + b"".join(
        map(u64, child))
    payloads, exact = [], True
    for _ in range(n):
        kind = fdp.PickValueInList([b"_lib", b"pym", b"pyint", b"nosuch", b""])
        body += u64(len(kind)) + kind
        if kind != b"_lib":
            p = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 24))
            payloads.append(p)
            extra = fdp.ConsumeIntInRange(1, 9) if fdp.ConsumeProbability() < 0.05 else 0
            exact = exact and not extra
            body += u64(len(p) + extra) + p
    size = len(body) if fdp.ConsumeProbability() > 0.05 else fdp.ConsumeIntInRange(0, 2**64 - 1)
    return u64(size) + body, payloads if exact else None


def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeBool():
        blob, payloads = fdp.ConsumeBytes(BLOB_SIZE), None
    else:
        blob, payloads = tree_blob(fdp)
    if len(blob) > BLOB_SIZE:
        return
    ctypes.memset(BLOB, 0, BLOB_SIZE)
    ctypes.memmove(BLOB, blob, len(blob))
    del seen[:]
    try:
        mod = tvm_ffi.load_module(LIB, keep_module_alive=False)
    except (RuntimeError, TypeError, ValueError):
        pass
    else:
        assert isinstance(mod, tvm_ffi.Module), type(mod)
    check_slot()
    if payloads is not None:  # a consistent blob: each loader call got one of its payloads
        assert all(p in payloads for p in seen), (seen, payloads)


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
