#!/bin/sh
# tests/compat/check-header-line.sh -- every header path that some
# apache-tvm-ffi 0.1.x release installed (its wheel's tvm_ffi/include) exists
# in our include trees (c/include, cpp/include), so code that includes a
# header by any release's name compiles here (docs/cpp.md).  Each of ours
# compiling alone is tests/cpp/check-cpp-headers.sh's and check-headers.sh's
# job.  Not provided, by design: the two headers of upstream's Cython
# extension (tvm_ffi_python_helpers.h, tvm_ffi_python_object.h), private to
# its Python package (they include <Python.h> and its core's internals).
# The wheels come from tests/compat/apache-wheels.sh; skips without them.
set -u
: "${top_srcdir:=.}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
sh "$top_srcdir/tests/compat/apache-wheels.sh" > "$tmp/wheels" || exit $?
while read -r v dir; do
  (cd "$dir/include" && find . -name '*.h' | sed "s|^\./||; s|\$| $v|")
done < "$tmp/wheels" | sort -k1,1 -k2,2V > "$tmp/paths"
fail=0 n=0
for h in $(cut -d' ' -f1 "$tmp/paths" | uniq); do
  case "$h" in tvm_ffi_python_helpers.h | tvm_ffi_python_object.h) continue ;; esac
  n=$((n + 1))
  [ -f "$top_srcdir/cpp/include/$h" ] || [ -f "$top_srcdir/c/include/$h" ] && continue
  echo "FAIL: no $h here (installed by $(awk -v h="$h" '$1 == h { printf "%s ", $2 }' "$tmp/paths"))"
  fail=1
done
[ "$n" -gt 0 ] || { echo "FAIL: no headers found in the wheels"; exit 1; }
[ "$fail" = 0 ] && echo "ok: the $n header paths of the $(wc -l < "$tmp/wheels") releases exist here"
exit "$fail"
