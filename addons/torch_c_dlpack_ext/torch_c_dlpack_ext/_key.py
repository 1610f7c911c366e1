"""Which prebuilt library fits the running interpreter: ``lib/<key>/libtorch_c_dlpack_addon.so``
with ``<key>`` = ``<python>-torch<version>-<device>-cxx11abi<0|1>`` (e.g.
``cpython-311-torch2.13.0+cpu-cpu-cxx11abi1``).  The add-on links the Python C API and torch's
C++ ABI, so the exact torch version, its C++ ABI and the interpreter all select the library.

Run as a script, it prints the key (the package build uses that).
"""
import sys


def device(torch):
    """"cuda", "rocm" or "cpu": the GPU flavour of this torch when a GPU is visible."""
    if torch.cuda.is_available():
        version = getattr(torch, "version", None)
        if getattr(version, "hip", None) is not None and getattr(version, "cuda", None) is None:
            return "rocm"
        return "cuda"
    return "cpu"


def key(torch):
    return "%s-torch%s-%s-cxx11abi%d" % (sys.implementation.cache_tag, torch.__version__,
                                          device(torch), int(torch.compiled_with_cxx11_abi()))


if __name__ == "__main__":
    import torch

    print(key(torch))
