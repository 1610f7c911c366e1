#!/bin/sh
# Each public C header must compile on its own, as C11 and as C++17, with
# -pedantic -Wall -Wextra -Werror, and must be in the install list
# (C_PUBLIC_HDRS from c/Makefile.inc).  Run by `make check`.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
CC=${CC:-cc}
CXX=${CXX:-c++}
inc="$srcdir/c/include"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for h in $(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort); do
  n=$((n + 1))
  if [ -n "$C_PUBLIC_HDRS" ]; then
    case " $C_PUBLIC_HDRS " in
      *" c/include/$h "*) ;;
      *) echo "FAIL: c/include/$h is not installed; add it to c/Makefile.inc"; fail=1 ;;
    esac
  fi
  printf '#include <%s>\n#include <%s>\nint tvmffi_header_check;\n' "$h" "$h" > "$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cc"
  if ! $CC -std=c11 -pedantic -Wall -Wextra -Werror -I"$inc" -fsyntax-only "$tmp/t.c" 2> "$tmp/err"; then
    echo "FAIL: $h does not compile alone as C11:"; cat "$tmp/err"; fail=1
  fi
  if ! $CXX -std=c++17 -pedantic -Wall -Wextra -Werror -I"$inc" -fsyntax-only "$tmp/t.cc" 2> "$tmp/err"; then
    echo "FAIL: $h does not compile alone as C++17:"; cat "$tmp/err"; fail=1
  fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no headers found under $inc"; exit 1; }
[ "$fail" = 0 ] && echo "ok: $n public headers compile alone as C11 and C++17 (included twice)"
exit "$fail"
