/*
 * test_error.c -- ffi.Error objects (docs/abi.md §6.4, §7.2, §10.4) and the
 * per-thread raised-error slot (§9.1).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static TVMFFIErrorCell* cell(TVMFFIObjectHandle e) { return TVMFFIErrorGetCellPtr(e); }

static void check_nul_terminated(TVMFFIByteArray b) { CHECK_EQ_INT(b.data[b.size], 0); }

static void test_create(void) {
  TVMFFIByteArray kind = check_ba("ValueError"), msg = {"bad\0value", 9},
                  bt = check_ba("  File \"a.c\", line 1, in f\n");
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreate(&kind, &msg, &bt, &e), 0);
  CHECK_SLOT_CLEAN(); /* creating does not raise */
  CHECK(e != NULL);
  CHECK_EQ_INT(TVMFFIObjectGetTypeIndex(e), kTVMFFIError);
  CHECK_EQ_INT(check_use_count(e), 1);
  CHECK_EQ_BYTES(cell(e)->kind, "ValueError");
  CHECK_EQ_INT(cell(e)->message.size, 9);
  CHECK(memcmp(cell(e)->message.data, "bad\0value", 9) == 0);
  CHECK_EQ_BYTES(cell(e)->backtrace, "  File \"a.c\", line 1, in f\n");
  check_nul_terminated(cell(e)->kind);
  check_nul_terminated(cell(e)->message);
  check_nul_terminated(cell(e)->backtrace);
  CHECK(cell(e)->kind.data != kind.data); /* copies */
  CHECK(cell(e)->update_backtrace != NULL);
  CHECK(cell(e)->cause_chain == NULL);
  CHECK(cell(e)->extra_context == NULL);
  TVMFFIObjectDecRef(e);

  /* Empty strings and a NULL backtrace give empty, terminated fields. */
  TVMFFIByteArray empty = {NULL, 0};
  CHECK_EQ_INT(TVMFFIErrorCreate(&kind, &empty, NULL, &e), 0);
  CHECK_EQ_BYTES(cell(e)->message, "");
  CHECK_EQ_BYTES(cell(e)->backtrace, "");
  check_nul_terminated(cell(e)->message);
  check_nul_terminated(cell(e)->backtrace);
  TVMFFIObjectDecRef(e);
}

static void test_update_backtrace(void) {
  TVMFFIByteArray kind = check_ba("RuntimeError"), msg = check_ba("m"),
                  bt = check_ba("  File \"inner.c\", line 1, in inner\n");
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreate(&kind, &msg, &bt, &e), 0);
  TVMFFIByteArray outer = check_ba("  File \"outer.c\", line 2, in outer\n");
  cell(e)->update_backtrace(e, &outer, kTVMFFIBacktraceUpdateModeAppend);
  CHECK_EQ_BYTES(cell(e)->backtrace,
                 "  File \"inner.c\", line 1, in inner\n  File \"outer.c\", line 2, in outer\n");
  check_nul_terminated(cell(e)->backtrace);
  cell(e)->update_backtrace(e, &outer, kTVMFFIBacktraceUpdateModeAppend);
  CHECK_EQ_INT(cell(e)->backtrace.size, bt.size + 2 * outer.size);
  TVMFFIByteArray fresh = check_ba("  File \"x.py\", line 9, in <module>\n");
  cell(e)->update_backtrace(e, &fresh, kTVMFFIBacktraceUpdateModeReplace);
  CHECK_EQ_BYTES(cell(e)->backtrace, "  File \"x.py\", line 9, in <module>\n");
  check_nul_terminated(cell(e)->backtrace);
  /* The error owns a copy: the caller's buffer may go away. */
  char tmp[64];
  strcpy(tmp, "  File \"t.c\", line 3, in t\n");
  TVMFFIByteArray tb = check_ba(tmp);
  cell(e)->update_backtrace(e, &tb, kTVMFFIBacktraceUpdateModeReplace);
  tmp[0] = 'X';
  CHECK_EQ_BYTES(cell(e)->backtrace, "  File \"t.c\", line 3, in t\n");
  TVMFFIByteArray none = {NULL, 0};
  cell(e)->update_backtrace(e, &none, kTVMFFIBacktraceUpdateModeReplace);
  CHECK_EQ_BYTES(cell(e)->backtrace, "");
  check_nul_terminated(cell(e)->backtrace);
  TVMFFIObjectDecRef(e);
}

/* An error raised through N nested calls gets one append per level: N appends must cost
 * O(total), not O(N * total) (issue 22 item 8).  60,000 appends of a 64-byte line: ~4 MB in
 * all, ~115 GB of copying when each append copies what is there. */
static void test_append_is_amortized(void) {
  TVMFFIByteArray kind = check_ba("RuntimeError"), msg = check_ba("deep");
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreate(&kind, &msg, NULL, &e), 0);
  enum { kLevels = 60000 };
  TVMFFIByteArray line =
      check_ba("  File \"level.py\", line 12345, in nested_call_level_abcdefghijk\n");
  CHECK_EQ_INT(line.size, 64);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double s = 0;
  for (int i = 0; i < kLevels; ++i) {
    cell(e)->update_backtrace(e, &line, kTVMFFIBacktraceUpdateModeAppend);
    if (i % 1000 == 999) { /* give up early on a quadratic runtime */
      clock_gettime(CLOCK_MONOTONIC, &t1);
      s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
      if (s > 2.0) {
        fprintf(stderr, "test_error: %d appends took %.2f s (quadratic?)\n", i + 1, s);
        CHECK(0);
      }
    }
  }
  CHECK_EQ_INT(cell(e)->backtrace.size, (size_t)kLevels * line.size);
  check_nul_terminated(cell(e)->backtrace);
  for (int i = 0; i < kLevels; i += 997)
    CHECK(memcmp(cell(e)->backtrace.data + (size_t)i * line.size, line.data, line.size) == 0);
  /* a replacement after appends, then appends again */
  TVMFFIByteArray fresh = check_ba("fresh\n");
  cell(e)->update_backtrace(e, &fresh, kTVMFFIBacktraceUpdateModeReplace);
  cell(e)->update_backtrace(e, &fresh, kTVMFFIBacktraceUpdateModeAppend);
  CHECK_EQ_BYTES(cell(e)->backtrace, "fresh\nfresh\n");
  /* appending the error's own backtrace to itself */
  TVMFFIByteArray self = cell(e)->backtrace;
  cell(e)->update_backtrace(e, &self, kTVMFFIBacktraceUpdateModeAppend);
  CHECK_EQ_BYTES(cell(e)->backtrace, "fresh\nfresh\nfresh\nfresh\n");
  check_nul_terminated(cell(e)->backtrace);
  TVMFFIObjectDecRef(e);
}

static TVMFFIObjectHandle make_error(const char* kind, const char* msg) {
  TVMFFIByteArray k = check_ba(kind), m = check_ba(msg);
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreate(&k, &m, NULL, &e), 0);
  return e;
}

static void test_cause_and_extra_context(void) {
  TVMFFIObjectHandle cause = make_error("KeyError", "root cause");
  TVMFFIAny extra;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"extra context object", 20}, &extra));
  TVMFFIByteArray k = check_ba("RuntimeError"), m = check_ba("wrapped");
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, NULL, cause, extra.v_obj, &e), 0);
  CHECK(cell(e)->cause_chain == cause);
  CHECK(cell(e)->extra_context == extra.v_obj);
  CHECK_EQ_INT(check_use_count(cause), 2); /* borrowed in, own reference kept */
  CHECK_EQ_INT(check_use_count(extra.v_obj), 2);
  TVMFFIObjectDecRef(e); /* destruction releases both */
  CHECK_EQ_INT(check_use_count(cause), 1);
  CHECK_EQ_INT(check_use_count(extra.v_obj), 1);
  /* NULLs are allowed. */
  CHECK_EQ_INT(TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, NULL, NULL, NULL, &e), 0);
  CHECK(cell(e)->cause_chain == NULL && cell(e)->extra_context == NULL);
  TVMFFIObjectDecRef(e);
  TVMFFIObjectDecRef(cause);
  check_any_release(&extra);
}

static void test_slot(void) {
  TVMFFIObjectHandle out = (TVMFFIObjectHandle)1;
  TVMFFIErrorMoveFromRaised(&out);
  CHECK(out == NULL); /* nothing raised */

  TVMFFIObjectHandle e1 = make_error("ValueError", "first");
  TVMFFIErrorSetRaised(e1);
  CHECK_EQ_INT(check_use_count(e1), 2); /* the slot took its own reference */
  TVMFFIObjectHandle e2 = make_error("TypeError", "second");
  TVMFFIErrorSetRaised(e2); /* replaces and releases e1 */
  CHECK_EQ_INT(check_use_count(e1), 1);
  TVMFFIErrorMoveFromRaised(&out);
  CHECK(out == e2);
  CHECK_EQ_INT(check_use_count(e2), 2); /* the slot's reference moved to us */
  TVMFFIObjectDecRef(out);
  CHECK_SLOT_CLEAN();

  TVMFFIErrorSetRaised(e1);
  TVMFFIErrorSetRaised(NULL); /* clears */
  CHECK_EQ_INT(check_use_count(e1), 1);
  CHECK_SLOT_CLEAN();
  TVMFFIObjectDecRef(e1);
  TVMFFIObjectDecRef(e2);
}

static void test_set_raised_from_cstr(void) {
  TVMFFIErrorSetRaisedFromCStr("IndexError", "index 5 out of range");
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  CHECK(e != NULL);
  CHECK_EQ_BYTES(cell(e)->kind, "IndexError");
  CHECK_EQ_BYTES(cell(e)->message, "index 5 out of range");
  check_nul_terminated(cell(e)->backtrace);
  if (cell(e)->backtrace.size > 0) /* symbolised build: well-formed lines */
    CHECK(strncmp(cell(e)->backtrace.data, "  File \"", 8) == 0);
  TVMFFIObjectDecRef(e);

  const char* parts[] = {"Expected ", NULL, "an int", "", " but got str"};
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 5);
  TVMFFIErrorMoveFromRaised(&e);
  CHECK_EQ_BYTES(cell(e)->kind, "TypeError");
  CHECK_EQ_BYTES(cell(e)->message, "Expected an int but got str");
  TVMFFIObjectDecRef(e);

  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 0);
  TVMFFIErrorMoveFromRaised(&e);
  CHECK_EQ_BYTES(cell(e)->message, "");
  check_nul_terminated(cell(e)->message);
  TVMFFIObjectDecRef(e);

  /* A long message is kept whole. */
  char big[3000];
  memset(big, 'z', sizeof(big) - 1);
  big[sizeof(big) - 1] = 0;
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", big);
  TVMFFIErrorMoveFromRaised(&e);
  CHECK_EQ_INT(cell(e)->message.size, sizeof(big) - 1);
  TVMFFIObjectDecRef(e);
}

/* Under AddressSanitizer the absurd allocations below must fail with NULL
 * instead of aborting; otherwise these are simply unused. */
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "allocator_may_return_null=1"; }
const char* __tsan_default_options(void);
const char* __tsan_default_options(void) { return "allocator_may_return_null=1"; }

/* Allocation failure surfaces as the preallocated MemoryError. */
static void test_out_of_memory(void) {
  TVMFFIAny out;
  TVMFFIByteArray huge = {"x", (size_t)1 << 62};
  for (int i = 0; i < 2; ++i) {
    CHECK_RAISED(TVMFFIBytesFromByteArray(&huge, &out), "MemoryError", "");
  }
  TVMFFIByteArray absurd = {"x", SIZE_MAX - 4};
  CHECK_RAISED(TVMFFIStringFromByteArray(&absurd, &out), "MemoryError", "");
}

/* ---- threads ------------------------------------------------------------ */

static pthread_barrier_t barrier;

static void* raise_in_thread(void* arg) {
  const char* msg = (const char*)arg;
  TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg);
  pthread_barrier_wait(&barrier); /* both threads have raised */
  TVMFFIObjectHandle e = NULL;
  TVMFFIErrorMoveFromRaised(&e);
  int ok = e != NULL && strcmp(cell(e)->message.data, msg) == 0;
  TVMFFIObjectDecRef(e);
  TVMFFIErrorMoveFromRaised(&e);
  ok = ok && e == NULL;
  return (void*)(intptr_t)ok;
}

static void test_thread_isolation(void) {
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t a, b;
  CHECK(pthread_create(&a, NULL, raise_in_thread, "from thread a") == 0);
  CHECK(pthread_create(&b, NULL, raise_in_thread, "from thread b") == 0);
  void *ra, *rb;
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  CHECK(ra == (void*)1);
  CHECK(rb == (void*)1);
  CHECK_SLOT_CLEAN(); /* the main thread's slot was never touched */
  pthread_barrier_destroy(&barrier);
}

static void* raise_and_exit(void* err) {
  TVMFFIErrorSetRaised(err);
  return NULL; /* leaves the error pending */
}

/* A thread that exits with a pending error releases it. */
static void test_thread_exit_releases_slot(void) {
  TVMFFIAny ctx;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"sentinel context obj", 20}, &ctx));
  TVMFFIByteArray k = check_ba("RuntimeError"), m = check_ba("pending at exit");
  TVMFFIObjectHandle e = NULL;
  CHECK_EQ_INT(TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, NULL, NULL, ctx.v_obj, &e), 0);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, raise_and_exit, e) == 0);
  pthread_join(t, NULL);
  CHECK_EQ_INT(check_use_count(e), 1);       /* the thread's slot reference is gone */
  CHECK_EQ_INT(check_use_count(ctx.v_obj), 2); /* still held by e */
  TVMFFIObjectDecRef(e);
  CHECK_EQ_INT(check_use_count(ctx.v_obj), 1);
  check_any_release(&ctx);
}

/* ---- argument checks of core globals (args.c) ------------------------- */

static TVMFFIAny int_view(int64_t x) {
  TVMFFIAny v = {kTVMFFIInt, {0}, {0}};
  v.v_int64 = x;
  return v;
}

static void test_argument_errors(void) {
  TVMFFIAny args[3], arr, r;
  args[0] = int_view(10);
  args[1] = int_view(20);
  CHECK_OK(check_call_global("ffi.Array", args, 2, &arr));
  CHECK_EQ_INT(arr.type_index, kTVMFFIArray);

  /* Arity. */
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", &arr, 1, &r), "TypeError",
               "Mismatched number of arguments when calling: "
               "`ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any`. Expected 2 but got 1 arguments");

  /* Wrong object type, with the runtime type key of what was passed. */
  TVMFFIAny s;
  CHECK_OK(TVMFFIStringFromByteArray(&(TVMFFIByteArray){"not an array at all", 19}, &s));
  args[0] = s;
  args[1] = int_view(0);
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", args, 2, &r), "TypeError",
               "Mismatched type on argument #0 when calling: "
               "`ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any`. Expected `ffi.Array` but got "
               "`ffi.String`");
  TVMFFIAny none = {kTVMFFINone, {0}, {0}};
  args[0] = none;
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", args, 2, &r), "TypeError",
               "Expected `ffi.Array` but got `None`");

  /* Wrong POD type for an int parameter. */
  args[0] = arr;
  args[1] = s;
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", args, 2, &r), "TypeError",
               "Mismatched type on argument #1 when calling: "
               "`ffi.ArrayGetItem(0: ffi.Array, 1: int) -> Any`. Expected `int` but got "
               "`ffi.String`");
  TVMFFIAny f = {kTVMFFIFloat, {0}, {0}};
  f.v_float64 = 1.0;
  args[1] = f;
  CHECK_RAISED(check_call_global("ffi.ArrayGetItem", args, 2, &r), "TypeError",
               "Expected `int` but got `float`");

  /* int accepts Bool. */
  TVMFFIAny b = {kTVMFFIBool, {0}, {0}};
  b.v_int64 = 1;
  args[1] = b;
  CHECK_OK(check_call_global("ffi.ArrayGetItem", args, 2, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIInt);
  CHECK_EQ_INT(r.v_int64, 20);

  /* An object parameter accepts an rvalue-ref slot (borrowed, not stolen). */
  TVMFFIObject* slot = arr.v_obj;
  TVMFFIAny rv = {kTVMFFIObjectRValueRef, {0}, {0}};
  rv.v_ptr = &slot;
  CHECK_OK(check_call_global("ffi.ArraySize", &rv, 1, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  CHECK(slot == arr.v_obj);

  /* str parameters take RawStr, SmallStr and String; not ints. */
  TVMFFIAny raw = {kTVMFFIRawStr, {0}, {0}};
  raw.v_c_str = "no.such.global.function";
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &raw, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIBool);
  CHECK_EQ_INT(r.v_int64, 0);
  args[0] = int_view(3);
  CHECK_RAISED(check_call_global("ffi.FunctionRemoveGlobal", args, 1, &r), "TypeError",
               "Mismatched type on argument #0 when calling: "
               "`ffi.FunctionRemoveGlobal(0: str) -> bool`. Expected `str` but got `int`");
  check_any_release(&s);
  check_any_release(&arr);
}

int main(void) {
  test_create();
  test_update_backtrace();
  test_append_is_amortized();
  test_cause_and_extra_context();
  test_slot();
  test_set_raised_from_cstr();
  test_out_of_memory();
  test_thread_isolation();
  test_thread_exit_releases_slot();
  test_argument_errors();
  CHECK_SLOT_CLEAN();
  printf("test_error: ok\n");
  return 0;
}
