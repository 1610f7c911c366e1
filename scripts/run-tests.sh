#!/bin/sh
# scripts/run-tests.sh -- the README's second command: every test.
#
# Installs what is missing (setup.sh --deps), builds, runs `make check` (C
# tests, header/export guards, man lint, and the C++, Python, compat and
# example suites as they are added), then -- under CI=true or with
# VALGRIND=1 -- the C and C++ test programs again under valgrind, and (CI or
# FUZZ=1) the fuzz targets for FUZZ_SECONDS (20) each, (CI or SANITIZERS=1)
# an ASan+UBSan build with its C, C++ and core Python tests, and (CI or
# DISTCHECK=1) make distcheck.
# Ends with one line 'N passed, N failed' and exits non-zero on any failure.
# Environment: BUILD_DIR (default: the source tree), MAKE_JOBS (default 2).
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$srcdir}
MAKE_JOBS=${MAKE_JOBS:-2}
export BUILD_DIR MAKE_JOBS

sh "$srcdir/scripts/setup.sh" --deps || exit 1
(
  cd "$srcdir" || exit 1
  if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure.ac -nt configure ]; then
    ./autogen.sh > /dev/null 2>&1 || ./autogen.sh || exit 1
  fi
  mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" || exit 1
  [ -f Makefile ] || "$srcdir/configure" -q || exit 1
) || { echo "run-tests: configure failed"; echo "0 passed, 1 failed"; exit 1; }
cd "$BUILD_DIR" || exit 1

status=0
suites=test-suite.log
echo "run-tests: make check"
make -j"$MAKE_JOBS" check || status=1

if [ "${CI:-}" = true ] || [ "${VALGRIND:-0}" = 1 ]; then
  echo "run-tests: make check-valgrind"
  make -j"$MAKE_JOBS" check-valgrind || status=1
  suites="$suites test-suite-valgrind.log"
fi

# The libFuzzer targets (dtype parser, DLPack import), bounded; each run
# counts as one test.
extra_pass=0; extra_fail=0
if { [ "${CI:-}" = true ] || [ "${FUZZ:-0}" = 1 ]; } && grep -q '^fuzz:' Makefile; then
  echo "run-tests: make fuzz FUZZ_SECONDS=${FUZZ_SECONDS:=20}"
  if make fuzz FUZZ_SECONDS="$FUZZ_SECONDS"; then extra_pass=$((extra_pass + 1))
  else extra_fail=$((extra_fail + 1)); status=1; fi
fi

# The sanitizer leg (CI, or SANITIZERS=1): the release tree (make distdir) configured with
# ASan and UBSan in $BUILD_DIR/sanitizers; only what the tests below need is built (not the
# add-ons or examples), then its C and C++ test programs and the Python suites of the C
# boundary (conversion, errors, tensors, hostile input) run with the runtimes preloaded;
# bounded by SAN_TIMEOUT seconds (900).  One test in the summary.  The whole suite under the
# sanitizers is `./configure --enable-sanitizers && make check` (tests/README.md, "Sanitizers").
SAN_PYTEST=${SAN_PYTEST:-"test_hostile test_function test_error test_container test_tensor
  test_contract_values test_contract_errors test_object test_stress"}
if [ "${CI:-}" = true ] || [ "${SANITIZERS:-0}" = 1 ]; then
  echo "run-tests: ASan+UBSan build and tests (at most ${SAN_TIMEOUT:=900}s)"
  san=$BUILD_DIR/sanitizers
  rm -rf "$san" && mkdir -p "$san"
  make distdir distdir="$san/src" > "$BUILD_DIR/sanitizers.log" 2>&1 &&
     timeout "$SAN_TIMEOUT" sh -c '
       cd "$1/src" && ./configure -q --enable-sanitizers &&
       vars=$(printf "v:\n\t@echo \"\$(C_TESTS) \$(CPP_TESTS)|\$(check_LTLIBRARIES)\"\n" |
              make -s -f Makefile -f - v) &&
       tests=${vars%%|*} && make -j"$2" $tests ${vars#*|} python/.ffi-stamp &&
       PYTEST_ONLY="$3" make check-TESTS TESTS="$tests tests/python/run_pytest.sh"
     ' sh "$san" "$MAKE_JOBS" "$SAN_PYTEST" >> "$BUILD_DIR/sanitizers.log" 2>&1
  san_rc=$?
  san_bad='^(FAIL|ERROR):|ERROR: AddressSanitizer|runtime error:'
  if [ $san_rc = 0 ]; then
    extra_pass=$((extra_pass + 1)); echo "run-tests: sanitizers ok"
  elif [ $san_rc = 124 ] && grep -q '^PASS:' "$BUILD_DIR/sanitizers.log" &&
       ! grep -Eq "$san_bad" "$BUILD_DIR/sanitizers.log" &&
       ! find "$san/src" -name '*.log' -exec grep -Eq 'ERROR: AddressSanitizer|runtime error:' {} \; -print |
         grep -q .; then
    # A slow machine reaches the time box: what ran passed with no report, which is what
    # the leg can show in that time; it says so rather than failing the whole run.
    extra_pass=$((extra_pass + 1))
    echo "run-tests: sanitizers: time box (${SAN_TIMEOUT}s) reached after" \
      "$(grep -c '^PASS:' "$BUILD_DIR/sanitizers.log") passing tests, no failure or report"
  else
    extra_fail=$((extra_fail + 1)); status=1
    grep -E "$san_bad|\\*\\*\\*" "$BUILD_DIR/sanitizers.log" | head -n 20
    echo "run-tests: sanitizers FAILED (full log: $BUILD_DIR/sanitizers.log)"
  fi
fi

# Sum the counts of every automake test-suite log (the top-level one and the
# valgrind run); a build failure before any test ran counts as one failure.
# The release tarball builds out of tree, passes make check and installs
# (libuv/jansson practice); one test in the summary.
if [ "${CI:-}" = true ] || [ "${DISTCHECK:-0}" = 1 ]; then
  echo "run-tests: make distcheck"
  if make -j"$MAKE_JOBS" distcheck > distcheck.log 2>&1; then
    extra_pass=$((extra_pass + 1)); echo "run-tests: distcheck ok"
  else
    extra_fail=$((extra_fail + 1)); status=1
    grep -E '^(FAIL|ERROR):|\*\*\*|error:' distcheck.log | head -n 20
    echo "run-tests: distcheck FAILED (full log: $BUILD_DIR/distcheck.log)"
  fi
fi

pass=$extra_pass; fail=$extra_fail
for log in $suites; do
  [ -f "$log" ] || { [ "$status" = 0 ] || fail=$((fail + 1)); continue; }
  p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
  x=$(sed -n 's/^# XFAIL: *//p' "$log" | head -n 1)
  f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
  xp=$(sed -n 's/^# XPASS: *//p' "$log" | head -n 1)
  e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
  s=$(sed -n 's/^# SKIP: *//p' "$log" | head -n 1)
  pass=$((pass + ${p:-0} + ${x:-0}))
  fail=$((fail + ${f:-0} + ${xp:-0} + ${e:-0}))
  skip=$((${skip:-0} + ${s:-0}))
done
[ "$fail" -gt 0 ] && status=1
[ "$status" != 0 ] && [ "$fail" = 0 ] && fail=1
echo "${pass} passed, ${fail} failed${skip:+, $skip skipped}"
exit "$status"
