#!/bin/sh
# Two more PyPI packages that depend on apache-tvm-ffi, each with a native library built against
# it, on this runtime and Python package (run_on_ours.py checks that only our libtvm_ffi.so is
# mapped): xgrammar 0.2.8 (xgrammar_cpu.py) and apache-tvm-ffi-orcjit 0.1.3 (orcjit_objects.py
# JIT-links orcjit_kernel.cc, compiled here against the apache package's headers, in API and
# ABI mode).  The packages go into a cached venv ($TVMFFI_DEPENDENTS_VENV, default
# ~/.cache/tvm-ffi-c/dependents-venv; torch pinned to the CPU build, as test_tilelang.sh);
# without network or a usable interpreter the test is skipped with the reason.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$srcdir/tests/host
venv=${TVMFFI_DEPENDENTS_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/dependents-venv}
: "${CXX:=c++}"
. "$srcdir/tests/san-host.sh"

. "$here/host-venv.sh"
host_venv "$venv" 'import xgrammar, tvm_ffi_orcjit, torch, numpy, cffi' \
  "xgrammar==0.2.8" "apache-tvm-ffi-orcjit==0.1.3" torch==2.13.0 numpy cffi

tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# the apache package's headers (the venv's tvm_ffi, before ours is on the path)
inc=$("$venv/bin/python" -c 'import os, tvm_ffi; print(os.path.join(os.path.dirname(tvm_ffi.__file__), "include"))')
$CXX -std=c++17 -O2 -fPIC -c -I"$inc" "$here/orcjit_kernel.cc" -o "$tmp/orcjit_kernel.o" ||
  { echo "FAIL: cannot compile orcjit_kernel.cc against $inc"; exit 1; }

export PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
[ -n "${TVMFFI_LIBDIR:-}" ] && export TVM_FFI_LIBRARY_PATH="$TVMFFI_LIBDIR"
fail=0
run() {  # NAME PROGRAM [ARG]: PROGRAM on ours, in the mode $TVM_FFI_USE_ABI_MODE says
  if out=$(cd "$tmp" && san_host "$venv/bin/python" "$here/run_on_ours.py" "$here/$2" ${3:+"$3"} 2>&1); then
    echo "ok: $1: $(echo "$out" | tail -2 | tr '\n' ' ')"
  else
    echo "FAIL: $1"
    echo "$out" | tail -25
    fail=1
  fi
}
run xgrammar xgrammar_cpu.py
run orcjit orcjit_objects.py "$tmp/orcjit_kernel.o"
TVM_FFI_USE_ABI_MODE=1 run "orcjit (ABI mode)" orcjit_objects.py "$tmp/orcjit_kernel.o"
exit "$fail"
