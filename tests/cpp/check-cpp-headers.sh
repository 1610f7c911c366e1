#!/bin/sh
# tests/cpp/check-cpp-headers.sh -- every public C++ header compiles on its own
# as C++17 with -Wall -Wextra -pedantic -Werror (CUDA headers: see check-cuda.sh), and
# the kernel headers (container/tensor.h, function.h) include none of the C++ extras.
set -u
: "${top_srcdir:=.}" "${CXX:=c++}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for h in ${CPP_PUBLIC_HDRS:-}; do
  case "$h" in */extra/cuda/*) continue ;; esac
  rel=${h#cpp/include/}
  printf '#include <%s>\n#include <%s>\n' "$rel" "$rel" > "$tmp/t.cc"
  if ! $CXX -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only \
      -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" "$tmp/t.cc" 2> "$tmp/err"; then
    echo "FAIL: $rel does not compile alone:" >&2
    head -20 "$tmp/err" >&2
    fail=1
  fi
  n=$((n + 1))
done
# every header in the tree must be listed (and therefore installed)
for f in $(cd "$top_srcdir" && find cpp/include -name '*.h' | sort); do
  case " $CPP_PUBLIC_HDRS " in
    *" $f "*) ;;
    *) echo "FAIL: $f is not listed in cpp/Makefile.inc" >&2; fail=1 ;;
  esac
done
# the kernel headers stay lean: none of the C++ extras (json, structural, reflection, ...)
# rides along with container/tensor.h or function.h (the C layouts in c/include/.../extra
# are part of the core), nor <ostream> and what includes it (a tenth of a kernel TU's
# compile time; bench/bench_cpp.sh)
for h in tvm/ffi/container/tensor.h tvm/ffi/function.h; do
  printf '#include <%s>\n' "$h" > "$tmp/k.cc"
  $CXX -std=c++17 -H -fsyntax-only -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
    "$tmp/k.cc" 2>&1 | sed -n 's|^\.* ||p' |
    grep -E 'cpp/include/tvm/ffi/(extra|reflection)/|/(ostream|istream|iostream|sstream)$' \
      > "$tmp/extras"
  if [ -s "$tmp/extras" ]; then
    echo "FAIL: $h pulls in extra headers:" >&2
    cat "$tmp/extras" >&2
    fail=1
  fi
done
if [ "$n" -eq 0 ]; then
  echo "check-cpp-headers: CPP_PUBLIC_HDRS is empty" >&2
  exit 1
fi
echo "checked $n headers"
exit $fail
