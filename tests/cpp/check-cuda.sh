#!/bin/sh
# tests/cpp/check-cuda.sh -- the CUDA examples and the CUDA helper headers
# compile with nvcc (no GPU needed).  Skips (77) when nvcc is absent.
set -u
: "${top_srcdir:=.}"
nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/bin/nvcc ] || nvcc=/usr/local/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "nvcc not found: skipping"
  exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for src in examples/quickstart/add_one_cuda.cu examples/kernel_library/kernel_lib_cuda.cu; do
  if ! "$nvcc" -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden -c \
      -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
      "$top_srcdir/$src" -o "$tmp/out.o" 2> "$tmp/err"; then
    echo "FAIL: $src" >&2
    cat "$tmp/err" >&2
    fail=1
  elif grep -q "warning" "$tmp/err"; then
    echo "FAIL: $src compiles with warnings" >&2
    cat "$tmp/err" >&2
    fail=1
  else
    # the typed export must be an unmangled C symbol
    nm "$tmp/out.o" | grep -q " T __tvm_ffi_" || { echo "FAIL: no __tvm_ffi_ export in $src" >&2; fail=1; }
  fi
done
exit $fail
