#!/bin/sh
# libtvm_ffi.so must export exactly the symbols of c/libtvm_ffi.sym (the 48
# TVMFFI* entry points of docs/abi.md §19), without ELF symbol versions, with
# SONAME libtvm_ffi.so, and must not need libstdc++.  Run by `make check`.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
lib=${TVMFFI_LIBDIR:-${top_builddir:-.}/c/.libs}/libtvm_ffi.so
NM=${NM:-nm}
READELF=${READELF:-readelf}
command -v "$READELF" > /dev/null 2>&1 || { echo "SKIP: readelf not found"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

grep -v '^[[:space:]]*\(#\|$\)' "$srcdir/c/libtvm_ffi.sym" | sort -u > "$tmp/want"
# Defined dynamic symbols; nm prints versioned ones as name@VER or name@@VER.
$NM -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "FAIL: exported symbols differ from c/libtvm_ffi.sym (< missing, > unexpected):"
  diff "$tmp/want" "$tmp/got" | grep '^[<>]'
  fail=1
fi
if grep -q '@' "$tmp/got" || $READELF -V "$lib" | grep -q 'Version definition section'; then
  echo "FAIL: $lib defines ELF symbol versions (docs/abi.md §1 forbids them)"; fail=1
fi

$READELF -d "$lib" > "$tmp/dyn"
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' "$tmp/dyn")
if [ "$soname" != libtvm_ffi.so ]; then
  echo "FAIL: SONAME is '$soname', want libtvm_ffi.so"; fail=1
fi
# The core is C: only libc, libdl, libpthread, libm and elfutils (libdw,
# libelf) -- plus the sanitizer runtimes in a sanitizer build.
sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' "$tmp/dyn" > "$tmp/needed"
while read -r so; do
  case "$so" in
    libc.so.*|ld-linux*.so.*|libdl.so.*|libpthread.so.*|libm.so.*|libdw.so.*|libelf.so.*) ;;
    libasan.so.*|libubsan.so.*|libtsan.so.*) ;;
    *) echo "FAIL: $lib needs $so (the core may only link libc, libdl, libpthread, libm, libdw)"; fail=1 ;;
  esac
done < "$tmp/needed"

[ "$fail" = 0 ] && echo "ok: $(wc -l < "$tmp/got") exports match c/libtvm_ffi.sym; SONAME $soname; needs: $(tr '\n' ' ' < "$tmp/needed")"
exit "$fail"
