"""Build the prebuilt add-ons of torch-c-dlpack-ext: one library per interpreter given.

    python build_aot.py [--python PY ...] [--package-dir DIR] [--tvm-ffi DIR]

For each interpreter PY (default: this one, and /usr/bin/python3 when it is another interpreter
with torch) it asks PY for its key (``torch_c_dlpack_ext/_key.py``) and runs tvm_ffi's
``torch_c_dlpack_addon/build.py --build_dir DIR/torch_c_dlpack_ext/lib/<key>`` with PY.
An interpreter without torch is reported and skipped; a failed build makes the exit status 1.
Then ``pip wheel DIR`` packs all of them.  ``--tvm-ffi`` is the tvm_ffi package directory
holding ``torch_c_dlpack_addon/`` (default: the checkout's python/tvm_ffi).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _default_pythons():
    pythons = [sys.executable]
    deb = "/usr/bin/python3"
    if os.path.exists(deb) and os.path.realpath(deb) != os.path.realpath(sys.executable):
        pythons.append(deb)
    return pythons


def build_one(python, package_dir, tvm_ffi_dir):
    """Builds the library for ``python``; returns its path, or None when it has no torch."""
    probe = subprocess.run([python, os.path.join(package_dir, "torch_c_dlpack_ext", "_key.py")],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("%s: no usable torch, skipped (%s)" % (python, probe.stderr.strip().splitlines()[-1:]))
        return None
    key = probe.stdout.strip()
    libdir = os.path.join(package_dir, "torch_c_dlpack_ext", "lib", key)
    cmd = [python, os.path.join(tvm_ffi_dir, "torch_c_dlpack_addon", "build.py"),
           "--build_dir", libdir]
    if "-cuda-" in key:
        cmd.append("--build-with-cuda")
    elif "-rocm-" in key:
        cmd.append("--build-with-rocm")
    subprocess.run(cmd, check=True)
    for scratch in ("addon.cc", "libtorch_c_dlpack_addon.so.lock"):  # keep only the library
        try:
            os.remove(os.path.join(libdir, scratch))
        except OSError:
            pass
    return os.path.join(libdir, "libtorch_c_dlpack_addon.so")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", action="append", help="interpreter to build for (repeatable)")
    ap.add_argument("--package-dir", default=HERE)
    ap.add_argument("--tvm-ffi", default=os.path.join(HERE, "..", "..", "python", "tvm_ffi"))
    args = ap.parse_args(argv)
    status = 0
    for python in args.python or _default_pythons():
        try:
            path = build_one(python, args.package_dir, os.path.abspath(args.tvm_ffi))
        except subprocess.CalledProcessError:
            print("%s: build failed" % python, file=sys.stderr)
            status = 1
            continue
        if path:
            print("%s: %s" % (python, path))
    return status


if __name__ == "__main__":
    sys.exit(main())
