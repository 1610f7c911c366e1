#!/bin/sh
# tests/cpp/check-cpp-headers.sh -- every public C++ header compiles on its own
# as C++17 with -Wall -Wextra -pedantic -Werror (CUDA headers: see check-cuda.sh), and
# the kernel headers (container/tensor.h, function.h) include none of the C++ extras, and
# std::cout/std::ostringstream reach code that includes only a tvm/ffi header, as upstream.
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
# are part of the core), nor, with TVM_FFI_NO_IOSTREAM, <ostream> and what includes it (a
# tenth of a kernel TU's compile time; bench/bench_cpp.sh)
for h in tvm/ffi/container/tensor.h tvm/ffi/function.h; do
  printf '#include <%s>\n' "$h" > "$tmp/k.cc"
  $CXX -std=c++17 -H -fsyntax-only -DTVM_FFI_NO_IOSTREAM -I"$top_srcdir/cpp/include" \
    -I"$top_srcdir/c/include" "$tmp/k.cc" 2>&1 | sed -n 's|^\.* ||p' |
    grep -E 'cpp/include/tvm/ffi/(extra|reflection)/|/(ostream|istream|iostream|sstream)$' \
      > "$tmp/extras"
  if [ -s "$tmp/extras" ]; then
    echo "FAIL: $h pulls in extra headers:" >&2
    cat "$tmp/extras" >&2
    fail=1
  fi
done
# without TVM_FFI_NO_IOSTREAM, code written against upstream compiles unchanged: it uses
# std::cout and std::ostringstream having included only a tvm/ffi header, as upstream's
# error.h provides <iostream> and <sstream> (docs/cpp.md §1)
for h in tvm/ffi/function.h tvm/ffi/tvm_ffi.h; do
  printf '#include <%s>\n%s\n' "$h" \
    'int main() { std::ostringstream os; os << 1; std::cout << os.str() << std::endl; }' \
    > "$tmp/io.cc"
  if ! $CXX -std=c++17 -fsyntax-only -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
      "$tmp/io.cc" 2> "$tmp/err"; then
    echo "FAIL: std::cout/std::ostringstream not available through <$h>:" >&2
    head -20 "$tmp/err" >&2
    fail=1
  fi
done
if [ "$n" -eq 0 ]; then
  echo "check-cpp-headers: CPP_PUBLIC_HDRS is empty" >&2
  exit 1
fi
echo "checked $n headers"
exit $fail
