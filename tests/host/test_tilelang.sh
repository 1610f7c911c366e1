#!/bin/sh
# tilelang 0.1.15 from PyPI (which pins apache-tvm-ffi <0.1.13, and so is built against the
# 0.1.12 headers and package) on this runtime and Python package: tilelang_cpu.py compiles a
# kernel for the C target and runs it, checking that only our libtvm_ffi.so is mapped
# (run_on_ours.py).  tilelang asks for any torch: the pin takes the CPU build (about 190 MB;
# an unpinned one is the CUDA build with its nvidia packages, about 5.5 GB more).  The
# packages go into a cached venv
# ($TVMFFI_TILELANG_VENV, default ~/.cache/tvm-ffi-c/tilelang-venv); without network or a
# usable interpreter the test is skipped with the reason.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$srcdir/tests/host
venv=${TVMFFI_TILELANG_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/tilelang-venv}
. "$srcdir/tests/san-host.sh"  # a sanitizer build: python runs under san_host

# tilelang makes its kernel cache on import: one of our own, compiling every time
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
export TILELANG_CACHE_DIR="$tmp/cache" TILELANG_TMP_DIR="$tmp/tmp" TILELANG_DISABLE_CACHE=1

. "$here/host-venv.sh"
host_venv "$venv" 'import tilelang, torch, numpy, cffi
assert tilelang.__version__.startswith("0.1.15"), tilelang.__version__' "tilelang==0.1.15" numpy cffi torch==2.13.0

export PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
[ -n "${TVMFFI_LIBDIR:-}" ] && export TVM_FFI_LIBRARY_PATH="$TVMFFI_LIBDIR"
if out=$(cd "$tmp" && san_host "$venv/bin/python" "$here/run_on_ours.py" "$here/tilelang_cpu.py" 2>&1); then
  echo "ok: $(echo "$out" | tail -2 | tr '\n' ' ')"
else
  echo "FAIL: tilelang_cpu"
  echo "$out" | tail -25
  exit 1
fi
