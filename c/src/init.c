/*
 * init.c -- one-time runtime set-up and the fatal-error exit.
 *
 * The constructor runs when the library is loaded; entry points that can be
 * reached earlier (static initialisers of other libraries that run before
 * ours) call tvmffi__ensure_init() themselves, hence pthread_once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set while this thread runs the hooks: entry points they call may ask for
 * initialisation again, and pthread_once would deadlock on itself. */
static _Thread_local int initializing;

static void init_all(void) {
  initializing = 1;
  /* Order matters: the type table first, since registering globals creates
   * function objects and looks up type keys. */
  tvmffi__types_init();
  tvmffi__big_int_globals_init();
  tvmffi__function_globals_init();
  tvmffi__shape_globals_init();
  tvmffi__container_globals_init();
  tvmffi__module_globals_init();
  tvmffi__extra_globals_init();
  initializing = 0;
}

void tvmffi__ensure_init(void) {
  if (TVMFFI__UNLIKELY(initializing)) return;
  pthread_once(&init_once, init_all);
}

__attribute__((constructor)) static void tvmffi__init_on_load(void) { tvmffi__ensure_init(); }

void tvmffi__fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tvm_ffi: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  exit(255); /* the reference runtime exits with status -1, i.e. 255 */
}
