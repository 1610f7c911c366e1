#!/bin/sh
# bench/bench_cpp.sh -- figures for the C++ layer (prints; never fails on speed):
#   1. compile time of kernel TUs against our headers vs the apache-tvm-ffi package's
#      headers, side by side, per TU and per compiler, as ratios: the quickstart kernel,
#      the kernel-library example and the three TUs in bench/compile/ (reflection with
#      ObjectDef, containers with GlobalDef, TensorView/Tensor exports with the checks);
#   2. ns per typed C++ call (0 and 3 arguments) vs a hand-written C call.
# Usage: top_builddir=<build dir> sh bench/bench_cpp.sh   (run from the source tree)
# Environment: BENCH_RUNS (compilations per TU and header set, default 5), BENCH_IR=1
# (instruction counts under valgrind instead of CPU time: deterministic), BENCH_CXXS
# (compilers, default "$CXX" and clang++ when installed), BENCH_TUS (TU paths relative
# to top_srcdir, default all five), BENCH_COMPILE_ONLY=1 skips part 2, BENCH_BASE (a
# tree with cpp/include and c/include, e.g. a `git worktree` of an older commit) adds its
# headers as a fourth set taking turns with the others: an A/B of a header change.
# The upstream headers come from the apache-tvm-ffi wheel in $TVMFFI_COMPAT_VENV or else
# scripts/apache-venv.sh's cached venv; part 1 is skipped without either.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}"
runs=${BENCH_RUNS:-5}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

tus=${BENCH_TUS:-"examples/quickstart/add_one_cpu.cc examples/kernel_library/kernel_lib.cc
  bench/compile/reflect.cc bench/compile/containers.cc bench/compile/tensors.cc"}
if [ -n "${BENCH_CXXS:-}" ]; then
  cxxs=$BENCH_CXXS
else
  cxxs=$CXX
  case "$CXX" in *clang*) ;; *) command -v clang++ >/dev/null 2>&1 && cxxs="$cxxs clang++" ;; esac
fi

# BENCH_IR=1: count the compiler's instructions (valgrind's cachegrind, every process the
# driver starts) instead of timing it: one run per TU, the same figure on a busy machine.
ir=${BENCH_IR:-0}
if [ "$ir" = 1 ]; then
  command -v valgrind >/dev/null 2>&1 || { echo "bench_cpp.sh: BENCH_IR=1 needs valgrind" >&2; exit 1; }
  runs=1
fi

# One compilation of $src by $cc with flags "$2...", its CPU time (user+sys, ms) appended
# to file $1 -- CPU time because the machine may be shared; wall time without /usr/bin/time.
# Under BENCH_IR=1 the figure is millions of instructions instead.
compile_once() {
  f=$1; shift
  if [ "$ir" = 1 ]; then
    valgrind --tool=cachegrind --cache-sim=no --trace-children=yes \
      --cachegrind-out-file="$tmp/cg.%p" --log-file="$tmp/vg.%p" \
      $cc -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
    cat "$tmp"/vg.* | awk '/I *refs/ { gsub(",", "", $4); s += $4 } END { printf "%d\n", s / 1e6 }' >> "$f"
    rm -f "$tmp"/vg.* "$tmp"/cg.*
  elif [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%U %S" -o "$tmp/t" $cc -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
    awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$tmp/t" >> "$f"
  else
    t0=$(date +%s%N)
    $cc -std=c++17 -O2 -fPIC -c "$@" "$src" -o "$tmp/k.o" || return 1
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 )) >> "$f"
  fi
}
median() { sort -n "$1" | sed -n "$(( (runs + 1) / 2 ))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

# upstream's headers: $TVMFFI_COMPAT_VENV's wheel, else scripts/apache-venv.sh's (made on demand)
if [ -n "${TVMFFI_COMPAT_VENV:-}" ]; then
  py="$TVMFFI_COMPAT_VENV/bin/python"
else
  py=$(sh "$top_srcdir/scripts/apache-venv.sh" --python 2>/dev/null || true)
fi
inc=$(${py:-false} -c "import tvm_ffi, os; print(os.path.join(os.path.dirname(tvm_ffi.__file__), 'include'))" 2>/dev/null || true)
[ -n "$inc" ] && [ -d "$inc" ] || inc=

ours_i="-I$top_srcdir/cpp/include -I$top_srcdir/c/include"
if [ -z "$inc" ]; then
  echo "== compile time: apache-tvm-ffi headers not available (scripts/apache-venv.sh could not make its venv)"
else
  echo "== compile time against apache-tvm-ffi's headers ($inc)"
  if [ "$ir" = 1 ]; then
    echo "   -std=c++17 -O2 -fPIC -c, millions of instructions the compiler ran (cachegrind): the"
    echo "   columns read Mi instead of ms; the count does not move with the machine's load."
  else
    echo "   -std=c++17 -O2 -fPIC -c, CPU time (user+sys), median of $runs; the three header sets"
    echo "   take turns, run after run, so a change in the machine's load weighs on each alike."
  fi
  echo "   lean: ours with -DTVM_FFI_NO_IOSTREAM (error.h without <iostream>/<sstream>)."
  echo "   Goal: apache/ours >= 2.00 for every TU."
  [ -n "${BENCH_BASE:-}" ] && echo "   base: the headers of $BENCH_BASE; base/ours above 1 is faster now."
  for cc in $cxxs; do
    u=ms; [ "$ir" = 1 ] && u=Mi
    printf '%-42s %8s %8s %8s %7s %7s' "$cc: TU" "ours $u" "lean $u" "apache" "ratio" "lean"
    [ -n "${BENCH_BASE:-}" ] && printf ' %8s %9s' "base $u" "base/ours"
    echo
    for src in $tus; do
      name=$src
      src=$top_srcdir/$src
      : > "$tmp/ours"; : > "$tmp/lean"; : > "$tmp/up"; : > "$tmp/base"
      i=0
      while [ "$i" -lt "$runs" ]; do
        compile_once "$tmp/ours" $ours_i || exit 1
        compile_once "$tmp/lean" -DTVM_FFI_NO_IOSTREAM $ours_i || exit 1
        compile_once "$tmp/up" -I"$inc" || exit 1
        if [ -n "${BENCH_BASE:-}" ]; then
          compile_once "$tmp/base" -I"$BENCH_BASE/cpp/include" -I"$BENCH_BASE/c/include" || exit 1
        fi
        i=$((i + 1))
      done
      ours=$(median "$tmp/ours"); lean=$(median "$tmp/lean"); up=$(median "$tmp/up")
      r=$(ratio "$up" "$ours")
      printf '%-42s %8s %8s %8s %6sx %6sx' "  $name" "$ours" "$lean" "$up" "$r" "$(ratio "$up" "$lean")"
      if [ -n "${BENCH_BASE:-}" ]; then
        base=$(median "$tmp/base")
        printf ' %8s %8sx' "$base" "$(ratio "$base" "$ours")"
      fi
      awk -v r="$r" 'BEGIN { if (r + 0 < 2) printf "  (short of 2x)"; printf "\n" }'
    done
  done
fi

[ "${BENCH_COMPILE_ONLY:-0}" = 1 ] && exit 0
echo "== call overhead"
$CXX -std=c++17 -O2 -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
  "$top_srcdir/bench/bench_cpp_call.cc" -o "$tmp/bench_call" \
  -L"$top_builddir/c/.libs" -ltvm_ffi -Wl,-rpath,"$top_builddir/c/.libs" || exit 1
"$tmp/bench_call" "${BENCH_ITERS:-5000000}"
