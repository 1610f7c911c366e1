#!/bin/sh
# tests/cpp/check-cubin-launcher.sh -- the cubin launcher end to end: nvcc compiles
# tests/cpp/cuda/cubin_kernels.cu to a fatbin, tvm_ffi.utils.embed_cubin links it into
# the object of tests/cpp/cuda/test_cubin_launcher.cu (TVM_FFI_EMBED_CUBIN), and the
# program checks the embedding, the stream guard and (on a GPU) the launches.
# Skips (77) without nvcc, and when the program finds no CUDA GPU (it says so).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${PYTHON:=python3}"
libdir=${TVMFFI_LIBDIR:-$top_builddir/c/.libs}
. "$top_srcdir/tests/cpp/find-nvcc.sh"
. "$top_srcdir/tests/san-host.sh"  # python and the nvcc-linked program load the runtime
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
d="$top_srcdir/tests/cpp/cuda"
run() { "$@" > "$tmp/log" 2>&1 || { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }; }
# SASS for sm_80 plus its PTX, so any newer GPU can JIT it
run "$nvcc" -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 \
  "$d/cubin_kernels.cu" -o "$tmp/kernels.fatbin"
run "$nvcc" -std=c++17 -Xcompiler -Wall,-Wextra -c -I"$top_srcdir/cpp/include" \
  -I"$top_srcdir/c/include" "$d/test_cubin_launcher.cu" -o "$tmp/test.o"
# the package (imported for its embed_cubin tool) finds this build's runtime and module
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
TVM_FFI_LIBRARY_PATH=$libdir
TVM_FFI_MODULE_DIR=$top_builddir/python/tvm_ffi
PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH TVM_FFI_LIBRARY_PATH TVM_FFI_MODULE_DIR PYTHONDONTWRITEBYTECODE
run san_host "$PYTHON" -m tvm_ffi.utils.embed_cubin \
  --output-obj "$tmp/test_embedded.o" --input-obj "$tmp/test.o" \
  --cubin "$tmp/kernels.fatbin" --name test_kernels
run "$nvcc" "$tmp/test_embedded.o" -o "$tmp/test_cubin_launcher" -lcudart \
  -L"$libdir" -ltvm_ffi -Xlinker -rpath -Xlinker "$libdir"
san_host "$tmp/test_cubin_launcher" "$tmp/kernels.fatbin"
