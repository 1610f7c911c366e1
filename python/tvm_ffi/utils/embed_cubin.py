"""Embed a CUBIN blob into an object file for the C++ cubin launcher.

``TVM_FFI_EMBED_CUBIN(name)`` in C++ declares ``extern`` byte arrays ``__tvm_ffi__cubin_<name>``
(first byte) and ``__tvm_ffi__cubin_<name>_end`` (one past the last).  This tool defines them:

1. assemble a small object whose ``.rodata`` holds the blob (``.incbin``) between the two
   symbols, with a ``.note.GNU-stack`` section so the final library keeps a non-executable stack;
2. ``ld -r`` merges it with the object that references them (``--input-obj``);
3. ``objcopy --localize-symbol`` makes both symbols local, so several libraries (or objects)
   may embed a cubin under the same name without clashing.

Command line: ``python -m tvm_ffi.utils.embed_cubin --output-obj OUT.o --input-obj IN.o
--cubin K.cubin --name NAME [--verbose]``.  Needs a C compiler driver (``$CC`` or ``cc``),
GNU ``ld`` and ``objcopy``.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def _symbol(name):
    return "__tvm_ffi__cubin_" + name


def _run(cmd, verbose):
    if verbose:
        print(" ".join(cmd))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise RuntimeError("embed_cubin: needs `%s` on PATH" % cmd[0]) from e
    if r.returncode != 0:
        raise RuntimeError("embed_cubin: %s exited with status %d\ncommand: %s\nstderr: %s"
                           % (cmd[0], r.returncode, " ".join(cmd), r.stderr.strip()))


def embed_cubin(cubin_path, input_obj_path, output_obj_path, name, verbose=False):
    """Write ``output_obj_path`` = ``input_obj_path`` + the bytes of ``cubin_path`` as ``name``.

    ``name`` must be a C identifier (it becomes part of the symbols).  Errors: ``ValueError``
    for a bad name, ``FileNotFoundError`` for a missing input, ``RuntimeError`` when a tool
    fails (with its command line and stderr).
    """
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise ValueError("embed_cubin: name must be a C identifier, got %r" % (name,))
    cubin_path, input_obj_path, output_obj_path = (
        os.path.abspath(os.fspath(p)) for p in (cubin_path, input_obj_path, output_obj_path))
    for p, what in ((cubin_path, "cubin"), (input_obj_path, "input object")):
        if not os.path.isfile(p):
            raise FileNotFoundError("embed_cubin: %s file not found: %s" % (what, p))
    if any(c in cubin_path for c in '"\\\n'):  # .incbin takes a quoted string: no escapes
        raise ValueError("embed_cubin: unsupported character in cubin path %r" % cubin_path)
    sym = _symbol(name)
    asm = (
        '\t.section .rodata.%(sym)s,"a",@progbits\n'
        "\t.p2align 6\n"  # 64-byte aligned: loaders may map the image directly
        "\t.globl %(sym)s\n\t.type %(sym)s, @object\n%(sym)s:\n"
        '\t.incbin "%(path)s"\n'
        "\t.globl %(sym)s_end\n\t.type %(sym)s_end, @object\n%(sym)s_end:\n"
        "\t.byte 0\n"  # keeps _end inside the section
        '\t.section .note.GNU-stack,"",@progbits\n'
    ) % {"sym": sym, "path": cubin_path}
    cc = os.environ.get("CC") or "cc"
    with tempfile.TemporaryDirectory(prefix="tvm_ffi_embed_cubin_") as tmp:
        src = os.path.join(tmp, "cubin.s")
        blob_obj = os.path.join(tmp, "cubin.o")
        merged = os.path.join(tmp, "merged.o")
        with open(src, "w") as f:
            f.write(asm)
        _run([cc, "-c", "-x", "assembler", src, "-o", blob_obj], verbose)
        _run(["ld", "-r", input_obj_path, blob_obj, "-o", merged], verbose)
        _run(["objcopy", "--localize-symbol", sym, "--localize-symbol", sym + "_end", merged], verbose)
        os.makedirs(os.path.dirname(output_obj_path) or ".", exist_ok=True)
        shutil.move(merged, output_obj_path)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tvm_ffi.utils.embed_cubin",
        description="Embed a CUBIN file into an object file as __tvm_ffi__cubin_<name> "
                    "(what TVM_FFI_EMBED_CUBIN(name) references).")
    p.add_argument("--output-obj", required=True, help="object file to write")
    p.add_argument("--input-obj", required=True, help="object file that uses TVM_FFI_EMBED_CUBIN")
    p.add_argument("--cubin", required=True, help="CUBIN file to embed")
    p.add_argument("--name", required=True, help="name given to TVM_FFI_EMBED_CUBIN")
    p.add_argument("--verbose", action="store_true", help="print the commands run")
    args = p.parse_args(argv)
    try:
        embed_cubin(args.cubin, args.input_obj, args.output_obj, args.name, verbose=args.verbose)
    except (ValueError, OSError, RuntimeError) as e:
        print(e, file=sys.stderr)
        return 1
    if args.verbose:
        print("wrote %s" % args.output_obj)
    return 0


if __name__ == "__main__":
    sys.exit(main())
