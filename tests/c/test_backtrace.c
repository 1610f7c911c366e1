/*
 * test_backtrace.c -- TVMFFIBacktrace (docs/abi.md §9.3, §9.4): line format,
 * innermost-first order, the caller-supplied first line, the FFI boundary,
 * the plumbing filter, TVM_TRACEBACK_LIMIT and the per-thread buffer.
 *
 * Built with -g -O0 so every probe function keeps its frame.  Frames name
 * file and line only when the runtime has libdw (HAVE_LIBDW, passed by the
 * build like for the library); otherwise those checks are relaxed.
 *
 * Built a second time as test_backtrace_nodw (TEST_DLADDR_ONLY, linked
 * -export-dynamic) and run by test_backtrace_nodw.sh where libdw.so.1 is a
 * stub: the runtime must then fall back to dladdr, which names exported
 * functions and their library but no source line.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

#define NOINLINE __attribute__((noinline))

/* Copy of a backtrace as a C string (the runtime's buffer is reused). */
static char* copy_bt(const TVMFFIByteArray* bt) {
  CHECK(bt != NULL);
  CHECK(bt->data != NULL);
  char* s = (char*)malloc(bt->size + 1);
  CHECK(s != NULL);
  memcpy(s, bt->data, bt->size);
  s[bt->size] = 0;
  return s;
}

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; ++s) n += *s == '\n';
  return n;
}

/* Line `index` (0-based) of s, without the newline, in a static buffer. */
static const char* line_at(const char* s, int index) {
  static _Thread_local char buf[1024];
  for (int i = 0; i < index && s; ++i) {
    s = strchr(s, '\n');
    if (s) ++s;
  }
  if (s == NULL || *s == 0) return "";
  size_t n = strcspn(s, "\n");
  if (n >= sizeof(buf)) n = sizeof(buf) - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  return buf;
}

/* Every line has the exact shape `  File "<f>", line <n>, in <fn>`. */
static void check_format(const char* s) {
  int n = count_lines(s);
  CHECK(s[0] == 0 || s[strlen(s) - 1] == '\n');
  for (int i = 0; i < n; ++i) {
    const char* l = line_at(s, i);
    if (strncmp(l, "  File \"", 8) != 0) FAIL("bad frame line: %s", l);
    const char* q = strstr(l + 8, "\", line ");
    if (q == NULL) FAIL("bad frame line: %s", l);
    char* end = NULL;
    strtol(q + 8, &end, 10);
    if (end == q + 8 || strncmp(end, ", in ", 5) != 0 || end[5] == 0) FAIL("bad frame line: %s", l);
  }
}

/* Index of the first line that names function `fn`, or -1. */
static int find_func(const char* s, const char* fn) {
  int n = count_lines(s);
  char suffix[256];
  snprintf(suffix, sizeof(suffix), ", in %s", fn);
  for (int i = 0; i < n; ++i) {
    const char* l = line_at(s, i);
    size_t ll = strlen(l), sl = strlen(suffix);
    if (ll >= sl && strcmp(l + ll - sl, suffix) == 0) return i;
  }
  return -1;
}

static _Thread_local int leaf_line;
NOINLINE char* bt_probe_leaf(int cross) {
  leaf_line = __LINE__ + 1;
  return copy_bt(TVMFFIBacktrace(NULL, 0, NULL, cross));
}

NOINLINE char* bt_probe_middle(int cross) {
  char* s = bt_probe_leaf(cross);
  __asm__ volatile("" ::: "memory"); /* no tail call */
  return s;
}

NOINLINE static void test_plain_capture(void) {
  char* s = bt_probe_middle(1);
  check_format(s);
#ifdef HAVE_LIBDW
  /* The innermost frame is the caller of TVMFFIBacktrace, with file and line. */
  const char* first = line_at(s, 0);
  char expect[128];
  snprintf(expect, sizeof(expect), "test_backtrace.c\", line %d, in bt_probe_leaf", leaf_line);
  if (strncmp(first, "  File \"", 8) != 0 || strstr(first, expect) == NULL)
    FAIL("first frame \"%s\" lacks \"%s\"\nwhole backtrace:\n%s", first, expect, s);
  int leaf = find_func(s, "bt_probe_leaf"), mid = find_func(s, "bt_probe_middle"),
      top = find_func(s, "test_plain_capture");
  if (leaf != 0 || mid != 1 || top != 2) /* innermost first */
    FAIL("frames out of order (%d, %d, %d):\n%s", leaf, mid, top, s);
  CHECK(strstr(line_at(s, 1), "test_backtrace.c\", line ") != NULL);
#endif
  CHECK(strstr(s, "in TVMFFIBacktrace\n") == NULL); /* plumbing is filtered */
#ifdef TEST_DLADDR_ONLY
  /* No source lines (libdw was not used), exported functions named, innermost first. */
  if (strstr(s, "test_backtrace.c\", line ") != NULL)
    FAIL("a source line although libdw is a stub:\n%s", s);
  int leaf = find_func(s, "bt_probe_leaf"), mid = find_func(s, "bt_probe_middle");
  if (leaf != 0 || mid != 1) FAIL("dladdr names out of order (%d, %d):\n%s", leaf, mid, s);
  CHECK(strstr(line_at(s, 0), "test_backtrace_nodw\", line 0, in bt_probe_leaf") != NULL);
#endif
  free(s);
}

NOINLINE char* bt_probe_with_location(void) {
  char* s = copy_bt(TVMFFIBacktrace("kernel.cc", 42, "my_kernel", 1));
  __asm__ volatile("" ::: "memory");
  return s;
}

NOINLINE static void test_supplied_first_line(void) {
  char* s = bt_probe_with_location();
  check_format(s);
  CHECK(strncmp(s, "  File \"kernel.cc\", line 42, in my_kernel\n", 42) == 0);
  /* The caller's own frame is replaced by the supplied line. */
  CHECK(find_func(s, "bt_probe_with_location") == -1);
#ifdef HAVE_LIBDW
  CHECK_EQ_INT(find_func(s, "test_supplied_first_line"), 1);
#endif
  free(s);
  /* Both filename and func are needed for the supplied line. */
  s = copy_bt(TVMFFIBacktrace("kernel.cc", 42, NULL, 1));
  CHECK(strstr(s, "kernel.cc") == NULL);
  free(s);
}

/* ---- the FFI boundary --------------------------------------------------- */

static char* captured;
static int capture_cross;

NOINLINE static int capturing_callee(void* self, const TVMFFIAny* args, int32_t n,
                                     TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)n;
  (void)result;
  captured = bt_probe_middle(capture_cross);
  return 0;
}

NOINLINE void call_through_ffi(int cross) {
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionCreate(NULL, capturing_callee, NULL, &f));
  TVMFFIAny result = {kTVMFFINone, {0}, {0}};
  capture_cross = cross;
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &result));
  TVMFFIObjectDecRef(f);
}

NOINLINE static void test_boundary(void) {
  call_through_ffi(0);
  check_format(captured);
#ifdef HAVE_LIBDW
  CHECK(find_func(captured, "bt_probe_middle") >= 0);
  CHECK(find_func(captured, "capturing_callee") >= 0);
#endif
  /* Nothing at or beyond TVMFFIFunctionCall. */
  CHECK(strstr(captured, "TVMFFIFunctionCall") == NULL);
  CHECK(find_func(captured, "call_through_ffi") == -1);
  CHECK(find_func(captured, "main") == -1);
  free(captured);

  call_through_ffi(1);
  check_format(captured);
#ifdef HAVE_LIBDW
  int callee = find_func(captured, "capturing_callee");
  int outer = find_func(captured, "call_through_ffi");
  CHECK(callee >= 0 && outer > callee);
  CHECK(find_func(captured, "main") > outer);
#endif
#ifdef TEST_DLADDR_ONLY
  CHECK(find_func(captured, "call_through_ffi") > find_func(captured, "bt_probe_middle"));
#endif
  free(captured);
}

/* ---- errors carry the raise site --------------------------------------- */

static int raise_line;
NOINLINE int raising_function(void) {
  raise_line = __LINE__ + 1;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "raised for the backtrace test");
  return -1;
}

NOINLINE static void test_error_backtrace(void) {
  CHECK(raising_function() == -1);
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(e);
  char* s = copy_bt(&c->backtrace);
  check_format(s);
  CHECK(strstr(s, "TVMFFIErrorSetRaisedFromCStr") == NULL);
  CHECK(strstr(s, "TVMFFIBacktrace") == NULL);
#ifdef HAVE_LIBDW
  char expect[128];
  snprintf(expect, sizeof(expect), "test_backtrace.c\", line %d, in raising_function\n",
           raise_line);
  if (strstr(line_at(s, 0), "raising_function") == NULL || strstr(s, expect) == NULL)
    FAIL("error backtrace does not start at the raise site:\n%s", s);
  CHECK_EQ_INT(find_func(s, "test_error_backtrace"), 1);
#endif
#ifdef TEST_DLADDR_ONLY
  CHECK_EQ_INT(find_func(s, "raising_function"), 0);
#endif
  free(s);
  TVMFFIObjectDecRef(e);
}

/* ---- TVM_TRACEBACK_LIMIT ------------------------------------------------ */

NOINLINE static char* deep(int n, const char* file, const char* fn) {
  if (n > 0) {
    char* s = deep(n - 1, file, fn);
    __asm__ volatile("" ::: "memory");
    return s;
  }
  return copy_bt(TVMFFIBacktrace(file, 7, fn, 1));
}

NOINLINE static void test_limit(void) {
  char* s = deep(20, NULL, NULL);
  int unlimited = count_lines(s);
  free(s);
#ifdef HAVE_LIBDW
  CHECK(unlimited >= 21); /* every level of the recursion */
#endif
  setenv("TVM_TRACEBACK_LIMIT", "3", 1);
  s = deep(20, NULL, NULL);
  CHECK_EQ_INT(count_lines(s), unlimited < 3 ? unlimited : 3);
  check_format(s);
  free(s);
  s = deep(20, "given.c", "given");
#ifdef HAVE_LIBDW
  CHECK_EQ_INT(count_lines(s), 3); /* the supplied line counts */
#else
  CHECK(count_lines(s) >= 1 && count_lines(s) <= 3); /* unnamed frames are omitted */
#endif
  CHECK(strncmp(s, "  File \"given.c\", line 7, in given\n", 35) == 0);
  free(s);
  setenv("TVM_TRACEBACK_LIMIT", "1", 1);
  s = deep(5, "given.c", "given");
  CHECK_EQ_STR(s, "  File \"given.c\", line 7, in given\n");
  free(s);
  setenv("TVM_TRACEBACK_LIMIT", "0", 1);
  s = deep(5, "given.c", "given");
  CHECK_EQ_STR(s, "");
  free(s);
  setenv("TVM_TRACEBACK_LIMIT", "not a number", 1); /* ignored: default applies */
  s = deep(20, NULL, NULL);
  CHECK_EQ_INT(count_lines(s), unlimited);
  free(s);
  unsetenv("TVM_TRACEBACK_LIMIT");
}

/* ---- per-thread buffer -------------------------------------------------- */

static pthread_barrier_t barrier;
static void* thread_capture(void* arg) {
  const TVMFFIByteArray* mine = TVMFFIBacktrace("thread.c", (int)(intptr_t)arg, "worker", 0);
  char* before = copy_bt(mine);
  pthread_barrier_wait(&barrier); /* the other thread has captured too */
  int same = mine->size == strlen(before) && memcmp(mine->data, before, mine->size) == 0;
  char expect[64];
  snprintf(expect, sizeof(expect), "  File \"thread.c\", line %d, in worker\n", (int)(intptr_t)arg);
  same = same && strncmp(before, expect, strlen(expect)) == 0;
  free(before);
  return (void*)(intptr_t)same;
}

NOINLINE static void test_thread_local_buffer(void) {
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t a, b;
  CHECK(pthread_create(&a, NULL, thread_capture, (void*)(intptr_t)1) == 0);
  CHECK(pthread_create(&b, NULL, thread_capture, (void*)(intptr_t)2) == 0);
  void *ra, *rb;
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  CHECK(ra == (void*)1 && rb == (void*)1);
  pthread_barrier_destroy(&barrier);
}

/* Many threads symbolising the same and different frames at once. */
static void* capture_loop(void* arg) {
  int ok = 1;
  for (int i = 0; i < 200 && ok; ++i) {
    char* s = (i + (int)(intptr_t)arg) % 2 ? bt_probe_middle(0) : deep(i % 7, "loop.c", "loop");
    ok = s[0] != 0 && strncmp(s, "  File \"", 8) == 0;
#ifdef HAVE_LIBDW
    if ((i + (int)(intptr_t)arg) % 2) ok = ok && find_func(s, "bt_probe_leaf") == 0;
#endif
    free(s);
  }
  return (void*)(intptr_t)ok;
}

NOINLINE static void test_concurrent_captures(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; ++i)
    CHECK(pthread_create(&t[i], NULL, capture_loop, (void*)(intptr_t)i) == 0);
  for (int i = 0; i < 4; ++i) {
    void* r;
    pthread_join(t[i], &r);
    CHECK(r == (void*)1);
  }
}

NOINLINE static void test_no_error_state(void) {
  for (int i = 0; i < 100; ++i) TVMFFIBacktrace(NULL, 0, NULL, i & 1);
  CHECK_SLOT_CLEAN();
}

/* The C++ layer's inline namespace tvm::ffi::cimpl never shows in a line. */
static void test_inline_namespace_hidden(void) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(
      "src/extension.cc", 45,
      "void ns::RaiseError(tvm::ffi::cimpl::String, tvm::ffi::cimpl::Array<int>)", 0);
  CHECK(strstr(bt->data,
               "  File \"src/extension.cc\", line 45, in void "
               "ns::RaiseError(tvm::ffi::String, tvm::ffi::Array<int>)\n") == bt->data);
  CHECK(strstr(bt->data, "cimpl") == NULL);
}

int main(void) {
  test_inline_namespace_hidden();
  test_plain_capture();
  test_supplied_first_line();
  test_boundary();
  test_error_backtrace();
  test_limit();
  test_thread_local_buffer();
  test_concurrent_captures();
  test_no_error_state();
  CHECK_SLOT_CLEAN();
  printf("test_backtrace: ok\n");
  return 0;
}
