#!/bin/sh
# Every man page lints clean with `mandoc -Tlint` (warnings fail); skipped when
# mandoc is not installed.  MAN_PAGES comes from man/Makefile.inc.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
MANDOC=${MANDOC:-$(command -v mandoc)}
[ -n "$MANDOC" ] || { echo "SKIP: mandoc not found"; exit 77; }
[ -n "${MAN_PAGES:-}" ] || { echo "SKIP: no man pages listed"; exit 77; }
fail=0
for p in $MAN_PAGES; do
  out=$("$MANDOC" -Tlint -Wwarning "$srcdir/$p" 2>&1) || { echo "FAIL: $p"; echo "$out"; fail=1; }
done
[ "$fail" = 0 ] && echo "ok: $(echo $MAN_PAGES | wc -w) pages lint clean"
exit "$fail"
