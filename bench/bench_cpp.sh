#!/bin/sh
# bench/bench_cpp.sh -- figures for the C++ layer (prints; never fails on speed):
#   1. compile time of the quickstart kernel TU (examples/quickstart/add_one_cpu.cc)
#      against our headers vs the apache-tvm-ffi package's headers, side by side;
#   2. ns per typed C++ call (0 and 3 arguments) vs a hand-written C call.
# Usage: top_builddir=<build dir> sh bench/bench_cpp.sh   (run from the source tree)
# The upstream headers come from the venv of tests/compat/test_cpp_compat.sh
# ($TVMFFI_COMPAT_VENV, default /tmp/tvmffi-apache-venv); part 1 is skipped without it.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}"
runs=${BENCH_RUNS:-5}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
src="$top_srcdir/examples/quickstart/add_one_cpu.cc"

# median CPU time (user+sys, ms) of $runs compilations -- CPU time because the
# machine may be shared; falls back to wall time without /usr/bin/time.
compile_ms() {
  i=0
  : > "$tmp/times"
  while [ "$i" -lt "$runs" ]; do
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "%U %S" -o "$tmp/t" $CXX -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
      awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$tmp/t" >> "$tmp/times"
    else
      t0=$(date +%s%N)
      $CXX -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
      t1=$(date +%s%N)
      echo $(( (t1 - t0) / 1000000 )) >> "$tmp/times"
    fi
    i=$((i + 1))
  done
  sort -n "$tmp/times" | sed -n "$(( (runs + 1) / 2 ))p"
}

echo "== compile time of $src ($runs runs, median, $CXX -O2 -c)"
ours=$(compile_ms -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include")
echo "  our headers:               ${ours} ms"
lean=$(compile_ms -DTVM_FFI_NO_IOSTREAM -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include")
echo "  ours, TVM_FFI_NO_IOSTREAM: ${lean} ms   (error.h without <iostream>/<sstream>)"
venv=${TVMFFI_COMPAT_VENV:-/tmp/tvmffi-apache-venv}
inc=$("$venv/bin/python" -c "import tvm_ffi, os; print(os.path.join(os.path.dirname(tvm_ffi.__file__), 'include'))" 2>/dev/null || true)
if [ -n "$inc" ] && [ -d "$inc" ]; then
  up=$(compile_ms -I"$inc")
  echo "  apache-tvm-ffi headers:    ${up} ms   ($inc)"
  if [ -n "$ours" ] && [ -n "$up" ] && [ "$ours" -gt 0 ]; then
    echo "  speed-up: $(awk -v a="$up" -v b="$ours" 'BEGIN { printf "%.2fx (goal: >= 2x, %s)", a / b, (a >= 2 * b) ? "met" : "not met" }')"
    [ -n "$lean" ] && [ "$lean" -gt 0 ] &&
      echo "  speed-up with TVM_FFI_NO_IOSTREAM: $(awk -v a="$up" -v b="$lean" 'BEGIN { printf "%.2fx", a / b }')"
  fi
else
  echo "  apache-tvm-ffi headers: not available (run tests/compat/test_cpp_compat.sh first)"
fi

echo "== call overhead"
$CXX -std=c++17 -O2 -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
  "$top_srcdir/bench/bench_cpp_call.cc" -o "$tmp/bench_call" \
  -L"$top_builddir/c/.libs" -ltvm_ffi -Wl,-rpath,"$top_builddir/c/.libs" || exit 1
"$tmp/bench_call" "${BENCH_ITERS:-5000000}"
