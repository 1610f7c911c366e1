#!/bin/sh
# tests/cpp/check-cuda.sh -- the CUDA examples and the CUDA helper headers
# compile with nvcc (no GPU needed), and so does each CUDA helper header alone.
# Skips (77) when nvcc is absent.
set -u
: "${top_srcdir:=.}"
. "$top_srcdir/tests/cpp/find-nvcc.sh"
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
# every CUDA helper header compiles alone with nvcc, warning-free, over the runtime API
# and (cubin launcher) over the driver API
for h in $(cd "$top_srcdir/cpp/include" && find tvm/ffi/extra/cuda -name '*.h' | sort); do
  for api in 0 1; do
    case "$api:$h" in 1:*/cubin_launcher.h|1:*/unified_api.h) ;; 1:*) continue ;; esac
    printf '#include <%s>\n#include <%s>\n' "$h" "$h" > "$tmp/h.cu"
    if ! "$nvcc" -std=c++17 -DTVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=$api -Xcompiler -Wall,-Wextra \
        -c -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" "$tmp/h.cu" -o "$tmp/h.o" \
        2> "$tmp/err" || grep -q "warning" "$tmp/err"; then
      echo "FAIL: $h does not compile alone with nvcc (driver API: $api)" >&2
      cat "$tmp/err" >&2
      fail=1
    fi
  done
done
exit $fail
