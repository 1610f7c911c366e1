#!/bin/sh
# The TVM compiler (apache-tvm 0.27.0.post1 from PyPI, built against the
# apache-tvm-ffi package) on this runtime and Python package: TE vector add
# and matmul, a TVMScript module (printed, compared, compiled, run),
# export_library + load_module, a Relax model on the Relax VM, each
# checked against numpy, and save_json/load_json (a tensor's text equal to
# the apache package's, TIR values round tripping), each checking that only
# our libtvm_ffi.so is mapped (run_on_ours.py).  The packages go into a
# cached throwaway venv ($TVMFFI_TVM_VENV, default ~/.cache/tvm-ffi-c/tvm-venv);
# without network or a usable interpreter the test is skipped with the reason.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$srcdir/tests/host
venv=${TVMFFI_TVM_VENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/tvm-venv}
# A sanitizer build: python runs under san_host (runtimes preloaded, no leak
# checking of the host, so TVM's own uninstrumented allocations are not reported).
. "$srcdir/tests/san-host.sh"

. "$here/host-venv.sh"
host_venv "$venv" 'import tvm, numpy, cffi; assert tvm.__version__.startswith("0.27")' \
  "apache-tvm==0.27.0.post1" numpy cffi

# Our package, with the build tree's runtime (TVMFFI_LIBDIR) and cffi module.
export PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
[ -n "${TVMFFI_LIBDIR:-}" ] && export TVM_FFI_LIBRARY_PATH="$TVMFFI_LIBDIR"
fail=0
for prog in te_add_matmul tvmscript_module export_load relax_vm json_roundtrip; do
  if out=$(san_host "$venv/bin/python" "$here/run_on_ours.py" "$here/$prog.py" 2>&1); then
    echo "ok: $prog: $(echo "$out" | tr '\n' ' ')"
  else
    echo "FAIL: $prog"
    echo "$out" | tail -25
    fail=1
  fi
done
exit "$fail"
