#!/bin/sh
# bench/bench_cpp.sh -- figures for the C++ layer (prints; never fails on speed):
#   1. compile time of the quickstart kernel TU (examples/quickstart/add_one_cpu.cc)
#      against our headers vs the apache-tvm-ffi package's headers, side by side;
#   2. ns per typed C++ call (0 and 3 arguments) vs a hand-written C call.
# Usage: top_builddir=<build dir> sh bench/bench_cpp.sh   (run from the source tree)
# The upstream headers come from the apache-tvm-ffi wheel in $TVMFFI_COMPAT_VENV or else
# scripts/apache-venv.sh's cached venv; part 1 is skipped without either.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}"
runs=${BENCH_RUNS:-5}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
src="$top_srcdir/examples/quickstart/add_one_cpu.cc"

# One compilation with flags "$2...", its CPU time (user+sys, ms) appended to file $1 --
# CPU time because the machine may be shared; wall time without /usr/bin/time.
compile_once() {
  f=$1; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%U %S" -o "$tmp/t" $CXX -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
    awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$tmp/t" >> "$f"
  else
    t0=$(date +%s%N)
    $CXX -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 )) >> "$f"
  fi
}
median() { sort -n "$1" | sed -n "$(( (runs + 1) / 2 ))p"; }

# upstream's headers: $TVMFFI_COMPAT_VENV's wheel, else scripts/apache-venv.sh's (made on demand)
if [ -n "${TVMFFI_COMPAT_VENV:-}" ]; then
  py="$TVMFFI_COMPAT_VENV/bin/python"
else
  py=$(sh "$top_srcdir/scripts/apache-venv.sh" --python 2>/dev/null || true)
fi
inc=$(${py:-false} -c "import tvm_ffi, os; print(os.path.join(os.path.dirname(tvm_ffi.__file__), 'include'))" 2>/dev/null || true)
[ -n "$inc" ] && [ -d "$inc" ] || inc=

# The three header sets take turns, run after run, so a change in the machine's load
# weighs on each alike and the ratios hold even when the absolute times drift.
echo "== compile time of $src ($runs runs each, interleaved, median, $CXX -O2 -c)"
ours_i="-I$top_srcdir/cpp/include -I$top_srcdir/c/include"
: > "$tmp/ours"; : > "$tmp/lean"; : > "$tmp/up"
i=0
while [ "$i" -lt "$runs" ]; do
  compile_once "$tmp/ours" $ours_i || exit 1
  compile_once "$tmp/lean" -DTVM_FFI_NO_IOSTREAM $ours_i || exit 1
  [ -z "$inc" ] || compile_once "$tmp/up" -I"$inc" || exit 1
  i=$((i + 1))
done
ours=$(median "$tmp/ours")
lean=$(median "$tmp/lean")
echo "  our headers:               ${ours} ms"
echo "  ours, TVM_FFI_NO_IOSTREAM: ${lean} ms   (error.h without <iostream>/<sstream>)"
if [ -n "$inc" ]; then
  up=$(median "$tmp/up")
  echo "  apache-tvm-ffi headers:    ${up} ms   ($inc)"
  if [ -n "$ours" ] && [ -n "$up" ] && [ "$ours" -gt 0 ]; then
    echo "  speed-up: $(awk -v a="$up" -v b="$ours" 'BEGIN { printf "%.2fx (goal: >= 2x, %s)", a / b, (a >= 2 * b) ? "met" : "not met" }')"
    [ -n "$lean" ] && [ "$lean" -gt 0 ] &&
      echo "  speed-up with TVM_FFI_NO_IOSTREAM: $(awk -v a="$up" -v b="$lean" 'BEGIN { printf "%.2fx", a / b }')"
  fi
else
  echo "  apache-tvm-ffi headers: not available (scripts/apache-venv.sh could not make its venv)"
fi

echo "== call overhead"
$CXX -std=c++17 -O2 -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
  "$top_srcdir/bench/bench_cpp_call.cc" -o "$tmp/bench_call" \
  -L"$top_builddir/c/.libs" -ltvm_ffi -Wl,-rpath,"$top_builddir/c/.libs" || exit 1
"$tmp/bench_call" "${BENCH_ITERS:-5000000}"
