#!/bin/sh
# tests/check-extra-layering.sh -- the runtime's extras (c/src/extra) build on the core,
# never the reverse (HACKING.md "C conventions"): no core source includes a header of
# c/src/extra, and the core's objects reference exactly one symbol the extras define,
# the registration table's tvmffi__extra_globals_init.  Run by make check.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-.}
NM=${NM:-nm}
command -v "$NM" > /dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
fail=0

inc=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(extra/|ext\.h|structural\.h)' \
  "$srcdir"/c/src/*.c "$srcdir"/c/src/*.h)
if [ -n "$inc" ]; then
  echo "FAIL: core sources include extra headers:"; echo "$inc"; fail=1
fi

# The objects of the sources there now (a file moved away leaves a stale object behind);
# libtool keeps the PIC ones in .libs, a static-only build has them beside the sources.
objs() {
  for c in "$srcdir/$1"/*.c; do
    b=$(basename "$c" .c)
    ls "$builddir/$1"/.libs/*-"$b".o 2> /dev/null || ls "$builddir/$1"/*-"$b".o 2> /dev/null
  done
}
core=$(objs c/src)
extra=$(objs c/src/extra)
if [ -z "$core" ] || [ -z "$extra" ]; then
  echo "FAIL: runtime objects not built under $builddir/c/src"; exit 1
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
$NM --defined-only $extra | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u > "$tmp/def"
# shellcheck disable=SC2086
$NM --undefined-only $core | awk '{ print $NF }' | sort -u > "$tmp/undef"
comm -12 "$tmp/def" "$tmp/undef" > "$tmp/used"
if [ "$(cat "$tmp/used")" != tvmffi__extra_globals_init ]; then
  echo "FAIL: the core must reach c/src/extra only through tvmffi__extra_globals_init; it uses:"
  cat "$tmp/used"; fail=1
fi
[ "$fail" = 0 ] &&
  echo "ok: the core reaches $(echo "$extra" | wc -l) extra objects only through their table"
exit "$fail"
