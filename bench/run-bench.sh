#!/bin/sh
# bench/run-bench.sh -- runs bench/bench_c on our libtvm_ffi.so and on the
# apache-tvm-ffi wheel's (same binary, LD_LIBRARY_PATH picks the library),
# and prints one table: ns per operation for both and the ratio
# (ours / apache: below 1 means ours is faster), then callgrind's
# instructions per operation of the nop calls and the tensor import (with
# valgrind), the stripped sizes and the dependencies of both libraries.
# Prints figures; never fails on speed.  Without the wheel
# (scripts/apache-venv.sh cannot make its venv) only our column is printed.
#
# Environment: top_srcdir, top_builddir (default .), BENCH_ITERS
# (operations per repeat, default 1000000), BENCH_ROUNDS (runs of each
# library, alternating; the best figure counts; default 2).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
iters=${BENCH_ITERS:-1000000}
rounds=${BENCH_ROUNDS:-2}
bin=$top_builddir/bench/bench_c
ours=$top_builddir/c/.libs/libtvm_ffi.so
[ -x "$bin" ] || { echo "run-bench: $bin is not built (make bench)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if site=$(sh "$top_srcdir/scripts/apache-venv.sh" 2> "$tmp/venv.err"); then
  apache=$site/tvm_ffi/lib/libtvm_ffi.so
else
  apache=
  echo "run-bench: no apache-tvm-ffi wheel, our figures only ($(tail -n 1 "$tmp/venv.err"))"
fi

# Rounds alternate between the libraries so that a busy spell on a shared
# machine hurts both columns alike.
r=0
while [ "$r" -lt "$rounds" ]; do
  LD_LIBRARY_PATH=$(dirname "$ours") "$bin" "$iters" >> "$tmp/ours" || exit 1
  if [ -n "$apache" ]; then
    LD_LIBRARY_PATH=$(dirname "$apache") "$bin" "$iters" >> "$tmp/apache" || exit 1
  fi
  r=$((r + 1))
done
[ -n "$apache" ] || : > "$tmp/apache"

stripped_kb() {
  strip --strip-all -o "$tmp/stripped.so" "$1" && wc -c < "$tmp/stripped.so" |
    awk '{ printf "%.1f", $1 / 1024 }'
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

echo "bench_c: $iters operations x 5 repeats x $rounds rounds, best CPU ns per operation"
echo "  ours:   $(sed -n 's/^# library //p' "$tmp/ours" | head -n 1)"
[ -z "$apache" ] || echo "  apache: $(sed -n 's/^# library //p' "$tmp/apache" | head -n 1)"
awk -F '\t' -v have_apache="${apache:+1}" '
  FNR == 1 { file++ }
  /^#/ { next }
  file == 1 { if (!($1 in a) || $2 < a[$1]) a[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  file == 2 { if (!($1 in b) || $2 < b[$1]) b[$1] = $2 }
  END {
    printf "%-26s %12s %12s %12s\n", "case", "ours ns", "apache ns", "ours/apache"
    for (i = 0; i < n; i++) {
      k = order[i]
      if (have_apache && (k in b) && b[k] > 0)
        printf "%-26s %12.2f %12.2f %12.2f\n", k, a[k], b[k], a[k] / b[k]
      else
        printf "%-26s %12.2f %12s %12s\n", k, a[k], "-", "-"
    }
  }' "$tmp/ours" "$tmp/apache"

# Instructions per operation of the two call cases and the tensor import +
# release under callgrind: exact and unmoved by load, unlike the ns above.
# Two runs of different length are subtracted so that one-time costs (lazy
# binding on the first call) cancel; bench_c runs a case n/10 + 5n times
# (warm-up and kRepeats).
ir_per_call() { # <library dir> <case function in bench_c.c>
  for n in 1000 2000; do
    LD_LIBRARY_PATH=$1 valgrind --tool=callgrind --toggle-collect="$2" \
      --callgrind-out-file="$tmp/cg.$n" "$bin" "$n" > /dev/null 2>&1 || return 1
  done
  awk '/^summary:/ { ir[++i] = $2 } END { printf "%.1f", (ir[2] - ir[1]) / 5100 }' \
    "$tmp/cg.1000" "$tmp/cg.2000"
}
ratio() { # "-" where a count is missing
  case "$1 $2" in *-*) echo - ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' ;; esac
}
if ! command -v valgrind > /dev/null 2>&1; then
  echo "run-bench: no instruction counts (valgrind not found)"
elif ! ir0=$(ir_per_call "$(dirname "$ours")" call0); then
  echo "run-bench: no instruction counts (bench_c fails under valgrind on this build)"
else
  printf '%-26s %12s %12s %12s\n' "callgrind Ir per op" "ours" "apache" "ours/apache"
  for c in call0:call_0_args call3:call_3_args tensor_from_dlpack:tensor_from_dlpack_free; do
    a=$ir0
    [ "${c%%:*}" = call0 ] || a=$(ir_per_call "$(dirname "$ours")" "${c%%:*}") || a=-
    b=-
    [ -z "$apache" ] || b=$(ir_per_call "$(dirname "$apache")" "${c%%:*}") || b=-
    printf '%-26s %12s %12s %12s\n' "${c#*:}" "$a" "$b" "$(ratio "$a" "$b")"
  done
fi

ours_kb=$(stripped_kb "$ours")
if [ -n "$apache" ]; then
  apache_kb=$(stripped_kb "$apache")
  printf '%-26s %12s %12s %12s\n' "stripped size (KB)" "$ours_kb" "$apache_kb" \
    "$(awk -v a="$ours_kb" -v b="$apache_kb" 'BEGIN { printf "%.2f", a / b }')"
else
  printf '%-26s %12s\n' "stripped size (KB)" "$ours_kb"
fi
echo "  ours NEEDED:   $(needed "$ours")"
[ -z "$apache" ] || echo "  apache NEEDED: $(needed "$apache")"
