#!/bin/sh
# Every symbol of namespace tvm::ffi or TVMFFI* that any apache-tvm-ffi 0.1.x
# release's libtvm_ffi.so exports is defined here (docs/cxx-abi.md): the
# TVMFFI* ones by libtvm_ffi.so, the C++ ones (out-of-line functions of the
# headers, the vtables and typeinfo of ModuleObj and Error) by
# libtvm_ffi_cxx.so, which exports exactly their union plus its bridge entry
# TVMFFICxxBridgeGet, as its version script (c/cxxabi/libtvm_ffi_cxx.map)
# lists; functions stay functions and data stays data.  The wheels come from
# tests/compat/apache-wheels.sh (cached); skips without them.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
libdir=${TVMFFI_LIBDIR:-${top_builddir:-.}/c/.libs}
lib=$libdir/libtvm_ffi_cxx.so
NM=${NM:-nm}
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
sh "$srcdir/tests/compat/apache-wheels.sh" > "$tmp/wheels" || exit $?
fail=0

# Defined dynamic symbols of a library: "NAME func|data".
defined() {
  $NM -D --defined-only "$1" | awk 'NF >= 3 { print $3, ($2 == "T" || $2 == "W" ? "func" : "data") }'
}
: > "$tmp/all"
while read -r v dir; do
  defined "$dir/lib/libtvm_ffi.so" | sed "s/\$/ $v/" >> "$tmp/all"
done < "$tmp/wheels"
n=$(wc -l < "$tmp/wheels")
# The C++ symbols, and the C ones.
awk '{ print $1 }' "$tmp/all" | grep -E '^_Z(N3tvm3ffi|T[VIS]N3tvm3ffi)' | sort -u > "$tmp/cxx"
awk '{ print $1 }' "$tmp/all" | grep '^TVMFFI' | sort -u > "$tmp/c"
{ cat "$tmp/cxx"; echo TVMFFICxxBridgeGet; } | sort -u > "$tmp/want"
defined "$lib" | awk '{ print $1 }' | sort -u > "$tmp/got"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$srcdir/c/cxxabi/libtvm_ffi_cxx.map" |
  sort -u > "$tmp/map"

# The releases that export a symbol, for the messages.
releases() { awk -v s="$1" '$1 == s { printf "%s ", $3 }' "$tmp/all"; }
if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "FAIL: $lib exports differ from the wheels' C++ symbols (< missing, > unexpected):"
  diff "$tmp/want" "$tmp/got" | grep '^[<>]' | while read -r m s; do
    echo "$m $s  ($(echo "$s" | c++filt 2> /dev/null); in: $(releases "$s"))"
  done
  fail=1
fi
if ! cmp -s "$tmp/got" "$tmp/map"; then
  echo "FAIL: exports differ from c/cxxabi/libtvm_ffi_cxx.map:"
  diff "$tmp/map" "$tmp/got" | grep '^[<>]'
  fail=1
fi
defined "$libdir/libtvm_ffi.so" | awk '{ print $1 }' | sort -u > "$tmp/cgot"
comm -23 "$tmp/c" "$tmp/cgot" > "$tmp/cmissing"
if [ -s "$tmp/cmissing" ]; then
  echo "FAIL: $libdir/libtvm_ffi.so does not export:"
  while read -r s; do echo "  $s (in: $(releases "$s"))"; done < "$tmp/cmissing"
  fail=1
fi
# A binary built against upstream finds the same symbol kinds.
{ defined "$lib"; defined "$libdir/libtvm_ffi.so"; } | sort -u > "$tmp/gkind"
awk '{ print $1, $2 }' "$tmp/all" | sort -u | join - "$tmp/gkind" |
  awk '$2 != $3 { print "FAIL: " $1 " is " $2 " upstream, " $3 " here"; bad = 1 } END { exit bad }' ||
  fail=1
if [ "$fail" = 0 ]; then
  echo "ok: the $(($(wc -l < "$tmp/cxx") + $(wc -l < "$tmp/c"))) symbols exported by the $n releases' libtvm_ffi.so ($(head -n 1 "$tmp/wheels" | cut -d' ' -f1) ... $(tail -n 1 "$tmp/wheels" | cut -d' ' -f1)): $(wc -l < "$tmp/c") C ones by libtvm_ffi.so, $(wc -l < "$tmp/cxx") C++ ones by libtvm_ffi_cxx.so, same as its version script"
fi
exit "$fail"
