/*
 * test_alloc_fail.c -- allocation-failure sweep over the base layer: every
 * allocation an API call makes is failed in turn (the N-th one, for N = 0,
 * 1, ... until a call completes without reaching N), and the call must then
 * either succeed or fail cleanly with MemoryError -- never crash, never
 * leave a half-built value, never fail with nothing raised.
 *
 * Failures are injected by defining malloc & co. here, forwarding to glibc's
 * __libc_* entry points; that interposes on the runtime too.  Sanitizer
 * builds own the allocator, so there the test is skipped (exit 77).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int main(void) {
  printf("test_alloc_fail: skipped under sanitizers\n");
  return 77;
}
#else

extern void* __libc_malloc(size_t n);
extern void* __libc_calloc(size_t n, size_t m);
extern void* __libc_realloc(void* p, size_t n);
extern void* __libc_memalign(size_t a, size_t n);
extern void __libc_free(void* p);

static long countdown = -1; /* allocations left before the injected failure */
static int injected;        /* the failure happened during this call */

static int fail_now(void) {
  if (countdown < 0) return 0;
  if (countdown-- == 0) {
    injected = 1;
    return 1;
  }
  return 0;
}

/* Default visibility: the build compiles with -fvisibility=hidden. */
#define INTERPOSE __attribute__((visibility("default")))
INTERPOSE void* malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
INTERPOSE void* calloc(size_t n, size_t m) { return fail_now() ? NULL : __libc_calloc(n, m); }
INTERPOSE void* realloc(void* p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
INTERPOSE void free(void* p) { __libc_free(p); }
INTERPOSE int posix_memalign(void** out, size_t a, size_t n) {
  if (fail_now()) return ENOMEM;
  void* p = __libc_memalign(a, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

/* Runs `body` with the N-th allocation failing, for every N it reaches. */
/* Valgrind replaces malloc even in the executable: nothing gets injected
 * there and the sweeps degenerate to plain runs (still leak-checked). */
static int under_valgrind(void) {
  const char* p = getenv("LD_PRELOAD");
  return p != NULL && strstr(p, "vgpreload") != NULL;
}

typedef void (*case_fn)(void);
static long sweep(const char* name, case_fn body) {
  body(); /* warm-up: caches (backtrace symbols, libgcc unwinder) fill here */
  long n = 0;
  for (;; ++n) {
    injected = 0;
    countdown = n;
    body();
    countdown = -1;
    if (!injected) break; /* the call made fewer than n+1 allocations */
    if (n > 100000) FAIL("%s: allocation sweep does not end", name);
  }
  printf("  %s: %ld allocation points\n", name, n);
  return n;
}

/* The slot holds MemoryError (moved out and released) or is clean. */
static void expect_memory_error_or_clean(int rc) {
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  if (rc == 0) {
    if (e != NULL) FAIL("success with an error left raised");
    return;
  }
  if (e == NULL) FAIL("failure with nothing raised");
  if (!injected) FAIL("failure without an injected fault");
  CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(e)->kind, "MemoryError");
  TVMFFIObjectDecRef(e);
}

static void case_string(void) {
  TVMFFIAny out;
  TVMFFIByteArray in = check_ba("a string long enough for the heap form");
  int rc = TVMFFIStringFromByteArray(&in, &out);
  countdown = -1;
  if (rc == 0) {
    CHECK_EQ_INT(out.type_index, kTVMFFIStr);
    CHECK_EQ_BYTES(*TVMFFIBytesGetByteArrayPtr(out.v_obj), in.data);
    check_any_release(&out);
  }
  expect_memory_error_or_clean(rc);
}

static void case_view_to_owned(void) {
  TVMFFIAny v = {kTVMFFIRawStr, {0}, {0}}, out;
  v.v_c_str = "raw string converted to an owned heap String";
  int rc = TVMFFIAnyViewToOwnedAny(&v, &out);
  countdown = -1;
  if (rc == 0) check_any_release(&out);
  expect_memory_error_or_clean(rc);
}

static void case_error_create(void) {
  TVMFFIByteArray k = check_ba("ValueError"), m = check_ba("message"), b = check_ba("");
  TVMFFIObjectHandle e = NULL;
  int rc = TVMFFIErrorCreate(&k, &m, &b, &e);
  countdown = -1;
  CHECK_SLOT_CLEAN(); /* out-of-memory here is reported without raising */
  if (rc == 0) {
    CHECK_EQ_BYTES(TVMFFIErrorGetCellPtr(e)->message, "message");
    TVMFFIObjectDecRef(e);
  } else {
    CHECK_EQ_INT(rc, -1);
    CHECK(injected);
  }
}

static void case_set_raised(void) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "raised under memory pressure");
  countdown = -1;
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL); /* never fails: at least the MemoryError */
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(e);
  if (!(c->kind.size == 10 && memcmp(c->kind.data, "ValueError", 10) == 0))
    CHECK_EQ_BYTES(c->kind, "MemoryError");
  CHECK_EQ_INT(c->backtrace.data[c->backtrace.size], 0);
  TVMFFIObjectDecRef(e);
}

static void case_set_raised_parts(void) {
  const char* parts[] = {"one ", "two ", NULL, "three"};
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 4);
  countdown = -1;
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(e);
  if (c->kind.size == 9 && memcmp(c->kind.data, "TypeError", 9) == 0)
    CHECK_EQ_BYTES(c->message, "one two three");
  else
    CHECK_EQ_BYTES(c->kind, "MemoryError");
  TVMFFIObjectDecRef(e);
}

static void case_update_backtrace(void) {
  TVMFFIByteArray k = check_ba("RuntimeError"), m = check_ba("m"),
                  b = check_ba("  File \"a.c\", line 1, in a\n");
  TVMFFIObjectHandle e = NULL;
  long saved = countdown;
  countdown = -1; /* the error itself is made without faults */
  CHECK_EQ_INT(TVMFFIErrorCreate(&k, &m, &b, &e), 0);
  countdown = saved;
  TVMFFIByteArray more = check_ba("  File \"b.c\", line 2, in b\n");
  TVMFFIErrorGetCellPtr(e)->update_backtrace(e, &more, kTVMFFIBacktraceUpdateModeAppend);
  countdown = -1;
  /* Either appended or unchanged, and always terminated. */
  TVMFFIByteArray now = TVMFFIErrorGetCellPtr(e)->backtrace;
  if (now.size != b.size) CHECK_EQ_INT(now.size, b.size + more.size);
  CHECK_EQ_INT(now.data[now.size], 0);
  TVMFFIObjectDecRef(e);
}

static void case_backtrace(void) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace("f.c", 3, "f", 1);
  countdown = -1;
  CHECK(bt != NULL && bt->data != NULL); /* never fails */
  CHECK_EQ_INT(bt->data[bt->size], 0);
  CHECK_SLOT_CLEAN();
}

static void case_opaque(void) {
  static int payload;
  TVMFFIObjectHandle h = NULL;
  int rc = TVMFFIObjectCreateOpaque(&payload, kTVMFFIOpaquePyObject, NULL, &h);
  countdown = -1;
  if (rc == 0) TVMFFIObjectDecRef(h);
  expect_memory_error_or_clean(rc);
}

/* A core global raising a TypeError through the argument helpers. */
static void case_argument_error(void) {
  TVMFFIAny arg = {kTVMFFIFloat, {0}, {0}}, r;
  arg.v_float64 = 1.5;
  TVMFFIByteArray name = check_ba("ffi.ArraySize");
  TVMFFIObjectHandle f = NULL;
  long saved = countdown;
  countdown = -1;
  CHECK_OK(TVMFFIFunctionGetGlobal(&name, &f));
  CHECK(f != NULL);
  countdown = saved;
  r.type_index = kTVMFFINone;
  r.zero_padding = 0;
  r.v_int64 = 0;
  int rc = TVMFFIFunctionCall(f, &arg, 1, &r);
  countdown = -1;
  CHECK(rc != 0);
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(e);
  if (c->kind.size == 9 && memcmp(c->kind.data, "TypeError", 9) == 0)
    CHECK(strstr(c->message.data, "Expected `ffi.Array` but got `float`") != NULL);
  else
    CHECK_EQ_BYTES(c->kind, "MemoryError");
  TVMFFIObjectDecRef(e);
  TVMFFIObjectDecRef(f);
}

int main(void) {
  long points = sweep("TVMFFIStringFromByteArray", case_string);
  /* The interposition works (else every sweep below passes vacuously). */
  if (!under_valgrind()) CHECK(points >= 1);
  sweep("TVMFFIAnyViewToOwnedAny", case_view_to_owned);
  sweep("TVMFFIErrorCreate", case_error_create);
  sweep("TVMFFIErrorSetRaisedFromCStr", case_set_raised);
  sweep("TVMFFIErrorSetRaisedFromCStrParts", case_set_raised_parts);
  sweep("update_backtrace", case_update_backtrace);
  sweep("TVMFFIBacktrace", case_backtrace);
  sweep("TVMFFIObjectCreateOpaque", case_opaque);
  sweep("argument TypeError", case_argument_error);
  CHECK_SLOT_CLEAN();
  printf("test_alloc_fail: ok\n");
  return 0;
}
#endif
