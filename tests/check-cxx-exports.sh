#!/bin/sh
# libtvm_ffi_cxx.so (docs/cxx-abi.md) must export exactly the C++ symbols
# that the apache-tvm-ffi wheel's libtvm_ffi.so exports for its headers'
# out-of-line declarations (TVM_FFI_EXTRA_CXX_API functions, ModuleObj's
# vtable and typeinfo), plus its bridge entry TVMFFICxxBridgeGet; and its
# version script (c/cxxabi/libtvm_ffi_cxx.map) must list the same set.
# Left out of the comparison: the wheel's weak vtable/typeinfo of
# tvm::ffi::Error, a header-only class every binary that uses it emits
# itself.  Needs the wheel (scripts/apache-venv.sh); skips without it.
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
lib=${TVMFFI_LIBDIR:-${top_builddir:-.}/c/.libs}/libtvm_ffi_cxx.so
NM=${NM:-nm}
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
site=$(sh "$srcdir/scripts/apache-venv.sh") || { echo "SKIP: no apache-tvm-ffi wheel (scripts/apache-venv.sh failed)"; exit 77; }
wheel=$site/tvm_ffi/lib/libtvm_ffi.so
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# C++ symbols of namespace tvm::ffi the wheel defines and exports.
$NM -D --defined-only "$wheel" | awk 'NF >= 3 && ($2 == "T" || $2 == "V") { print $3 }' |
  grep -E '^_Z(N3tvm3ffi|T[VIS]N3tvm3ffi)' | grep -v -E '^_ZT[VIS]N3tvm3ffi5ErrorE$' |
  sort -u > "$tmp/wheel"
{ cat "$tmp/wheel"; echo TVMFFICxxBridgeGet; } | sort -u > "$tmp/want"
$NM -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp/got"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$srcdir/c/cxxabi/libtvm_ffi_cxx.map" |
  sort -u > "$tmp/map"

if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "FAIL: $lib exports differ from the wheel's C++ symbols (< missing, > unexpected):"
  diff "$tmp/want" "$tmp/got" | grep '^[<>]' | while read -r m s; do
    echo "$m $s  ($(echo "$s" | c++filt 2> /dev/null))"
  done
  fail=1
fi
if ! cmp -s "$tmp/got" "$tmp/map"; then
  echo "FAIL: exports differ from c/cxxabi/libtvm_ffi_cxx.map:"
  diff "$tmp/map" "$tmp/got" | grep '^[<>]'
  fail=1
fi
# Upstream's runtime defines them: a binary built against upstream must find
# the same symbol kinds (functions stay functions, data stays data).
$NM -D --defined-only "$wheel" | awk '{ print $3, ($2 == "T" ? "func" : "data") }' | sort > "$tmp/wkind"
$NM -D --defined-only "$lib" | awk '{ print $3, ($2 == "T" ? "func" : "data") }' | sort > "$tmp/gkind"
join "$tmp/wkind" "$tmp/gkind" | awk '$2 != $3 { print "FAIL: " $1 " is " $2 " upstream, " $3 " here"; bad = 1 } END { exit bad }' || fail=1
if [ "$fail" = 0 ]; then
  echo "ok: $(wc -l < "$tmp/wheel") C++ symbols of the wheel ($(basename "$(dirname "$(dirname "$wheel")")") $(ls -d "$site"/apache_tvm_ffi-*.dist-info 2> /dev/null | sed 's/.*apache_tvm_ffi-\(.*\)\.dist-info/\1/')) exported by libtvm_ffi_cxx.so, same as its version script"
fi
exit "$fail"
