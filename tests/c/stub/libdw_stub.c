/*
 * libdw_stub.c -- a library that test_backtrace_nodw.sh installs as
 * "libdw.so.1": it opens like elfutils' libdw but has none of its functions,
 * so the runtime's backtrace must name frames through dladdr.
 */
int tvmffi_test_libdw_stub;
