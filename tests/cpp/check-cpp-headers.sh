#!/bin/sh
# tests/cpp/check-cpp-headers.sh -- every public C++ header compiles on its own
# as C++17 with -Wall -Wextra -pedantic -Werror (CUDA headers: see check-cuda.sh).
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
if [ "$n" -eq 0 ]; then
  echo "check-cpp-headers: CPP_PUBLIC_HDRS is empty" >&2
  exit 1
fi
echo "checked $n headers"
exit $fail
