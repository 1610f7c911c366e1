#!/bin/sh
# tests/cpp/upstream-suite.sh -- apache-tvm-ffi's own C++ unit tests (the
# tests/cpp of its source distribution, GoogleTest) built against THIS
# checkout's headers into one program (as upstream links them) and run on
# this runtime and testing library.
#
#   tests/cpp/upstream-suite.sh [FILE.cc ...]   (default: every file; names
#                                                relative to the sdist's tests/cpp)
#
# Every TEST that does not pass, and every file that does not build, is listed
# with its reason in tests/cpp/upstream-expected.txt; the run fails on an
# unexpected failure and on an unexpected pass (so the list only shrinks).
# Prints "C++ conformance: N passed of M".  Exits 77 (skip) without the sdist
# (scripts/fetch-upstream-sdist.sh) or without GoogleTest (libgtest-dev).
# Environment: CXX, UPSTREAM_JOBS (parallel compiles, default 2),
# UPSTREAM_CXXFLAGS (default -O0).
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CXX:=c++}"
top_srcdir=$(cd "$top_srcdir" && pwd) top_builddir=$(cd "$top_builddir" && pwd)
: "${TVMFFI_LIBDIR:=$top_builddir/c/.libs}" "${UPSTREAM_JOBS:=2}" "${UPSTREAM_CXXFLAGS:=-O0}"
expected="$top_srcdir/tests/cpp/upstream-expected.txt"

work="$top_builddir/tests/cpp/upstream-build"
exe_of() { echo "$work/$(echo "$1" | tr / _ | sed 's/\.cc$//')"; }
if [ "${1:-}" = --build-one ]; then    # (what the parallel build below runs)
  obj=$(exe_of "$2").o
  $CXX -std=c++17 $UPSTREAM_CXXFLAGS -w -I"$top_srcdir/cpp/include" -I"$top_srcdir/c/include" \
    -I"$suite" -c "$suite/$2" -o "$obj" >"$obj.build.log" 2>&1 || rm -f "$obj"
  exit 0
fi
link() {  # link OUT OBJ... (upstream links every file into one test program)
  out=$1
  shift
  $CXX "$@" -o "$out" -L"$TVMFFI_LIBDIR" -Wl,-rpath,"$TVMFFI_LIBDIR" \
    -ltvm_ffi_testing -ltvm_ffi -lgtest_main -lgtest -pthread -ldl
}

sdist=$(sh "$top_srcdir/scripts/fetch-upstream-sdist.sh") || {
  echo "SKIP: the apache-tvm-ffi source distribution is not available"; exit 77; }
suite="$sdist/tests/cpp"
if ! printf '#include <gtest/gtest.h>\nint main(){return 0;}\n' |
    $CXX -std=c++17 -x c++ - -o /dev/null -lgtest -pthread >/dev/null 2>&1; then
  echo "SKIP: GoogleTest is not installed (libgtest-dev)"; exit 77
fi
if [ $# -gt 0 ]; then
  files="$*"
else
  files=$(cd "$suite" && ls test_*.cc extra/test_*.cc)
fi

# ---- build: compile each file (UPSTREAM_JOBS at a time), link them as one --
# program as upstream does: some files register the test types the others use.
rm -rf "$work" && mkdir -p "$work" || exit 1
export CXX UPSTREAM_CXXFLAGS top_srcdir top_builddir TVMFFI_LIBDIR suite
start=$(date +%s)
printf '%s\n' $files | xargs -P "$UPSTREAM_JOBS" -I{} sh "$0" --build-one {}
results="$work/results.txt"   # lines: "pass NAME" / "fail NAME" / "nobuild FILE COUNT"
: >"$results"
objs=
for src in $files; do
  obj=$(exe_of "$src").o
  if [ -f "$obj" ]; then objs="$objs $obj"; fi
done
exe="$work/tvm_ffi_tests"
if ! link "$exe" $objs >"$work/link.log" 2>&1; then
  # find the files that do not link on their own and leave them out
  kept=
  for obj in $objs; do
    if link "$work/one" "$obj" >>"$obj.build.log" 2>&1; then kept="$kept $obj"; else rm -f "$obj"; fi
  done
  rm -f "$work/one"
  link "$exe" $kept >>"$work/link.log" 2>&1 || { cat "$work/link.log"; exit 1; }
fi
for src in $files; do
  [ -f "$(exe_of "$src").o" ] || echo "nobuild $src $(grep -c '^TEST' "$suite/$src")" >>"$results"
done
echo "built in $(($(date +%s) - start)) s"

# ---- run: a crash ends the program early, so rerun it without what already ran
done_list= crashed_all=
: >"$exe.all.log"
while [ -n "$objs" ]; do
  filter=${done_list:+-$done_list}
  (cd "$work" && "$exe" --gtest_filter="${filter:-*}" --gtest_color=no) >"$exe.run.log" 2>&1
  rc=$?
  awk '/^\[       OK \] [^ ]+ \(/ {print "pass", $4}
       /^\[  FAILED  \] [^ ]+ \(/ {print "fail", $4}' "$exe.run.log" >>"$results"
  cat "$exe.run.log" >>"$exe.all.log"
  # a test that started and never ended crashed the process
  crashed=$(awk '/^\[ RUN      \]/ {t=$4} /^\[       OK \]|^\[  FAILED  \]/ {t=""}
                 END {print t}' "$exe.run.log")
  [ "$rc" -ge 0 ] && [ "$rc" -le 1 ] && break
  [ -n "$crashed" ] || { echo "fail tvm_ffi_tests:exit-status-$rc" >>"$results"; break; }
  echo "fail $crashed" >>"$results"
  crashed_all="$crashed_all$crashed:"   # every crash so far stays filtered out
  done_list=$(awk '/^\[       OK \]|^\[  FAILED  \]/ {printf "%s:", $4}' "$exe.all.log")$crashed_all
done

# ---- compare with the expectations -----------------------------------------
awk -v files="$files" '
  BEGIN { n = split(files, fl, /[ \n]+/); for (i = 1; i <= n; i++) sel[fl[i]] = 1 }
  FILENAME == ARGV[1] {             # the expectations file
    if ($0 ~ /^[ \t]*(#|$)/) next
    if ($1 == "file") { if (sel[$2]) nobuild_ok[$2] = 1 } else ok_fail[$1] = 1
    next
  }
  $1 == "nobuild" {
    total += $3; nfiles++
    if (!nobuild_ok[$2]) { print "UNEXPECTED: " $2 " does not build (see tests/cpp/upstream-build/*.build.log)"; bad++ }
    delete nobuild_ok[$2]; next
  }
  $1 == "pass" {
    total++; passed++; seen[$2] = 1
    if (ok_fail[$2]) { print "UNEXPECTED PASS: " $2 " (remove it from the expectations)"; bad++ }
    next
  }
  $1 == "fail" {
    total++; seen[$2] = 1
    if (!ok_fail[$2]) { print "UNEXPECTED FAILURE: " $2; bad++ }
  }
  END {
    for (f in nobuild_ok) { print "UNEXPECTED: " f " builds now (remove its file line)"; bad++ }
    printf "C++ conformance (apache-tvm-ffi tests/cpp): %d passed of %d\n", passed, total
    exit bad > 0
  }' "$expected" "$results"
status=$?
nfiles=$(echo $files | wc -w)
echo "$((nfiles - $(grep -c '^nobuild' "$results"))) of $nfiles files build"
exit $status
