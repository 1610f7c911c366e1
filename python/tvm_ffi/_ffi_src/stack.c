/* stack.c -- the C stack guard of the callback path.
 *
 * Python -> FFI function -> Python callback -> ... nests C frames (the interpreter's and the
 * callee's) at every level, which CPython's recursion limit does not see: it counts Python
 * frames only, and a program that raised it would run the thread's C stack out and crash.  So
 * each callback entry compares its own frame's address with the thread's stack bounds (read once
 * per thread) and refuses, with RecursionError, once less than a reserve is left: enough for the
 * error to be converted and unwound through every level above. */

#if defined(__linux__)
#include <pthread.h>
#endif

/* The part of a thread's stack kept for the error path: a quarter, at most this much. */
#define STACK_RESERVE_MAX (256 * 1024)

typedef struct {
  uintptr_t floor; /* callbacks refuse below this address; 0: unknown (no check) */
  int measured;
  int depth; /* callbacks of this thread now running (for the message) */
} stack_guard;

static _Thread_local stack_guard t_stack;

static void stack_measure(void) {
  t_stack.measured = 1;
#if defined(__linux__)
  pthread_attr_t attr;
  void* lo = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  int rc = pthread_attr_getstack(&attr, &lo, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || lo == NULL || size == 0) return;
  size_t reserve = size / 4 < STACK_RESERVE_MAX ? size / 4 : STACK_RESERVE_MAX;
  t_stack.floor = (uintptr_t)lo + reserve; /* stacks grow down on every Linux target we build */
#endif
}

/* 0 and the depth counted in, or -1 with a RecursionError raised (nothing to leave). */
static int stack_enter(void) {
  char here;
  if (!t_stack.measured) stack_measure();
  if ((uintptr_t)&here < t_stack.floor) {
    char msg[256];
    snprintf(msg, sizeof(msg),
             "maximum recursion depth exceeded: %d nested Python callbacks through FFI "
             "calls have used up this thread's C stack; recurse less, or give the thread a "
             "larger stack (ulimit -s, threading.stack_size)",
             t_stack.depth);
    TVMFFIErrorSetRaisedFromCStr("RecursionError", msg);
    return -1;
  }
  ++t_stack.depth;
  return 0;
}

static void stack_leave(void) { --t_stack.depth; }
