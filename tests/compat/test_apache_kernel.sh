#!/bin/sh
# tests/compat/test_apache_kernel.sh -- the compatibility matrix: for every
# apache-tvm-ffi 0.1.x release (tests/compat/apache-releases.txt), kernel
# libraries built against THAT release's headers, from its wheel, run on OUR
# runtime unchanged:
#   C++  apache_kernel.cc (-O0), linked as against the wheel (NEEDED
#        libtvm_ffi.so, no rpath):
#        1. every TVMFFI* symbol it leaves undefined is exported by our
#           libtvm_ffi.so, every tvm::ffi C++ one by libtvm_ffi_cxx.so;
#        2. loaded and called through our C API (apache_kernel_load): typed
#           functions over tensors, scalars, strings, callbacks, arrays and
#           maps; errors with kind, message and backtrace; an object type's
#           reflected fields; a ModuleObj subclass; JSON, structural equality
#           and Error::what() through the C++ ABI library; hash/equal hooks
#           (0.1.10+: ffi.Functions, 0.1.15's native adapters); a C++
#           subclass of the runtime's ffi.StructuralVisitor (0.1.13+) and big
#           integers (0.1.14+);
#        3. its NEEDED libtvm_ffi.so binds to our already loaded copy even
#           when LD_LIBRARY_PATH points at the wheel's (apache_kernel_needed);
#        4. hook_peer.cc (native hooks as raw pointers, int64_t/bool) of each
#           release 0.1.9-0.1.14 and of the newest 0.1.15 (TVMFFIAny) in one
#           process (apache_kernel_load --peers): maps built by either one's
#           inline code or ours hold both libraries' keys, each hook called in
#           the convention of the headers that built it.
#   C    ours_kernel.c against the release's c_api.h, loaded by our Python
#        package (apache_loads_ours.py): numpy arrays, scalars, strings,
#        errors with their C frame.
# Prints the table of releases x results.  Releases run $COMPAT_JOBS (2) at a
# time; the C++ libraries are cached once built (see below).  Skips (77) when
# the wheels cannot be fetched (apache-wheels.sh).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}" "${CC:=cc}" "${NM:=nm}"
: "${TVMFFI_LIBDIR:=$top_builddir/c/.libs}"
export top_srcdir top_builddir CXX CC NM TVMFFI_LIBDIR
src=$top_srcdir/tests/compat/apache_kernel.cc
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tvm-ffi-c/compat-kernels
csrc=$top_srcdir/tests/compat/ours_kernel.c

# One release: VERSION WHEEL_DIR OUT_DIR.  Builds both kernels into OUT_DIR,
# runs the C++ one, writes OUT_DIR/VERSION.cxx ("ok ..." or "FAIL ...") and
# leaves OUT_DIR/VERSION.c.so for the Python run; its log is OUT_DIR/VERSION.log.
if [ "${1:-}" = --one ]; then
  v=$2 dir=$3 out=$4
  patch=$(echo "$v" | cut -d. -f3)
  kernel=$out/$v.cxx.so
  exec > "$out/$v.log" 2>&1
  verdict() { echo "$1" > "$out/$v.cxx"; echo "$1"; exit 0; }
  start=$(date +%s) took=
  # Built exactly as against the wheel: its headers, its library, no rpath.
  # No sanitizer flags: the kernel stands for a third-party binary.  It
  # depends on nothing of ours, so it is kept in the cache under a hash of
  # its inputs (source, release, compiler, flags); COMPAT_REBUILD=1 ignores it.
  flags="-std=c++17 -O0 -g1 -fPIC -shared -fvisibility=hidden -DCOMPAT_RELEASE_PATCH=$patch"
  build() {  # SOURCE OUT.so: 0 when taken from the cache
    key=$({ cat "$1"; echo "$v $flags"; $CXX --version; } | sha256sum | cut -c1-16)
    cached=$cache/$(basename "$1" .cc)-$v-$key.so
    if [ -f "$cached" ] && [ -z "${COMPAT_REBUILD:-}" ]; then
      cp "$cached" "$2"
      return 0
    fi
    # shellcheck disable=SC2086 # $flags is a list
    $CXX $flags -I"$dir/include" "$1" -o "$2" -L"$dir/lib" -ltvm_ffi || return 2
    mkdir -p "$cache" && cp "$2" "$cached.$$" && mv -f "$cached.$$" "$cached"
    return 1
  }
  build "$src" "$kernel"
  case $? in 0) took=cached ;; 2) verdict "FAIL: build" ;; esac
  # a peer for the mixed-release hook run (below)
  if [ "$patch" -ge 9 ]; then
    build "$top_srcdir/tests/compat/hook_peer.cc" "$out/$v.peer.so"
    [ $? = 2 ] && verdict "FAIL: hook_peer.cc build"
  fi
  $CC -std=c11 -O0 -g -fPIC -shared -I"$dir/include" "$csrc" -o "$out/$v.c.so" \
    -L"$dir/lib" -ltvm_ffi || echo "FAIL: C kernel build" > "$out/$v.c.fail"
  : "${took:=$(($(date +%s) - start))s}"
  readelf -d "$kernel" | grep -q 'NEEDED.*\[libtvm_ffi\.so\]' || verdict "FAIL: no NEEDED libtvm_ffi.so"
  # 1. its undefined FFI symbols, C and C++, are ours
  "$NM" -D -u "$kernel" | awk '{ print $NF }' | grep -E '^(TVMFFI|_Z(N3tvm3ffi|T[VIS]N3tvm3ffi))' |
    sort -u > "$out/$v.needed"
  "$NM" -D --defined-only "$TVMFFI_LIBDIR/libtvm_ffi.so" "$TVMFFI_LIBDIR/libtvm_ffi_cxx.so" |
    awk 'NF >= 3 { print $3 }' | sort -u > "$out/$v.exported"
  missing=$(comm -23 "$out/$v.needed" "$out/$v.exported")
  [ -z "$missing" ] || verdict "FAIL: undefined here: $(echo "$missing" | c++filt | tr '\n' ' ')"
  ncxx=$(grep -c '^_Z' "$out/$v.needed")
  # 2. calls through our C API
  line=$(grep -n 'COMPAT_THROW_LINE' "$src" | head -n 1 | cut -d: -f1)
  "$top_builddir/tests/compat/apache_kernel_load" "$kernel" apache_kernel.cc "$line" ||
    verdict "FAIL: apache_kernel_load"
  # 3. NEEDED libtvm_ffi.so binds to ours
  LD_LIBRARY_PATH=$dir/lib "$top_builddir/tests/compat/apache_kernel_needed" \
    "$TVMFFI_LIBDIR/libtvm_ffi.so" "$kernel" "$TVMFFI_LIBDIR/libtvm_ffi_cxx.so" ||
    verdict "FAIL: apache_kernel_needed"
  case $patch in  # which hooks apache_kernel.cc registered, all run
    [0-9]) hooks="n/a" ;; 1[0-4]) hooks=Function ;; *) hooks="native_fn_attr" ;;
  esac
  if [ "$patch" -ge 13 ]; then visitor=ok; else visitor="n/a"; fi
  # which json::Stringify it calls: Optional<int> indent by value or by reference
  if grep -q '^_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE$' "$out/$v.needed"; then
    indent=value
  elif grep -q '^_ZN3tvm3ffi4json9StringifyERKNS0_3AnyERKNS0_8OptionalIivEE$' "$out/$v.needed"; then
    indent="const&"
  else verdict "FAIL: calls no json::Stringify"; fi
  verdict "ok $took $(wc -l < "$out/$v.needed") $ncxx $indent $visitor $hooks"
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
sh "$top_srcdir/tests/compat/apache-wheels.sh" > "$tmp/wheels" || exit $?
start=$(date +%s)
sed "s|^\([^ ]*\) \(.*\)$|--one \1 \2 $tmp|" "$tmp/wheels" |
  xargs -n 4 -P "${COMPAT_JOBS:-2}" sh "$0" > /dev/null
# Mixed releases in one process: each older release's hook peer (raw
# int64_t/bool hooks) with the newest 0.1.15's (TVMFFIAny adapters).
newest=$(awk '{ split($1, p, "."); if (p[3] + 0 >= 15) v = $1 } END { print v }' "$tmp/wheels")
while read -r v dir; do
  [ -f "$tmp/$v.peer.so" ] && [ -n "$newest" ] && [ -f "$tmp/$newest.peer.so" ] || continue
  case $(echo "$v" | cut -d. -f3) in 9 | 1[0-4]) ;; *) continue ;; esac
  if "$top_builddir/tests/compat/apache_kernel_load" --peers "$tmp/$v.peer.so" \
    "$tmp/$newest.peer.so" >> "$tmp/$v.log" 2>&1; then
    echo ok > "$tmp/$v.peers"
  else echo FAIL > "$tmp/$v.peers"; echo "FAIL: hook peers" >> "$tmp/$v.log"; fi
done < "$tmp/wheels"
cxx_done=$(date +%s)

# The C kernels, all in one Python process with our package and runtime.
[ -n "${TVMFFI_LIBDIR:-}" ] && export TVM_FFI_LIBRARY_PATH="$TVMFFI_LIBDIR"
cline=$(grep -n 'TVMFFIBacktrace(__FILE__' "$csrc" | head -n 1 | cut -d: -f1)
ckernels=$(for f in "$tmp"/*.c.so; do [ -f "$f" ] && echo "$f"; done)
. "$top_srcdir/tests/san-host.sh"
if [ -n "$ckernels" ]; then
  # shellcheck disable=SC2086 # one argument per kernel
  PYTHONPATH="$top_srcdir/python" san_host "${PYTHON:-python3}" \
    "$top_srcdir/tests/compat/apache_loads_ours.py" "$cline" $ckernels > "$tmp/c.out" 2>&1
fi
end=$(date +%s)

fail=0
echo "| Release | C kernel | C++ kernel | FFI symbols it imports (C++ of all) | hash/equal hooks | raw int64_t/bool hooks with $newest's (hook_peer.cc) | json::Stringify indent | C++ subclass of ffi.StructuralVisitor | C++ build |"
echo "|---|---|---|---|---|---|---|---|---|"
while read -r v dir; do
  if [ -f "$tmp/$v.c.fail" ]; then c="FAIL: build"
  elif grep -qx "ok $tmp/$v.c.so" "$tmp/c.out" 2> /dev/null; then c=ok
  else c=FAIL; fi
  r=$(cat "$tmp/$v.cxx" 2> /dev/null || echo "FAIL: no result")
  case "$r" in
    ok*) # ok TOOK ALL CXX INDENT VISITOR HOOKS...
      set -- $r
      took=$2 all=$3 cxx=$4 indent=$5 visitor=$6
      shift 6
      peers=$(cat "$tmp/$v.peers" 2> /dev/null || echo "n/a")
      row="| $v | $c | ok | $cxx of $all | $* | $peers | $indent | $visitor | $took |" ;;
    *) row="| $v | $c | $r | | | | | | |" ;;
  esac
  echo "$row"
  case "$row" in *FAIL*) fail=1 ;; esac
done < "$tmp/wheels"
echo "$(wc -l < "$tmp/wheels") releases: C++ kernels built and run in $((cxx_done - start))s (${COMPAT_JOBS:-2} at a time), C kernels run in $((end - cxx_done))s"
if [ "$fail" != 0 ]; then
  for f in "$tmp"/*.log; do
    grep -q FAIL "$f" || continue
    echo "== $(basename "$f" .log)"; tail -n 30 "$f"
  done
  [ -f "$tmp/c.out" ] && { echo "== C kernels"; tail -n 40 "$tmp/c.out"; }
  exit 1
fi
echo PASS
