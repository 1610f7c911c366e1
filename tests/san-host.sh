# tests/san-host.sh -- sourced by test scripts (not run).  In a sanitizer build
# (configure --enable-sanitizers; Makefile.am exports TVMFFI_SAN_PRELOAD) the
# programs that load libtvm_ffi.so -- python, a quickstart runner, a CMake
# example -- are not instrumented themselves, so the sanitizer runtimes must be
# preloaded ahead of the library, and the host's own allocations are not ours
# to leak-check.  In any other build both functions change nothing.
#
#   san_host_export      set that environment in the calling shell
#   san_host CMD ARG...  run one command with it (compilers keep running without)

san_host_export() {
  [ -n "${TVMFFI_SAN_PRELOAD:-}" ] || return 0
  LD_PRELOAD="$TVMFFI_SAN_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
}

san_host() { (san_host_export && exec "$@"); }
