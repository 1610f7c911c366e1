/*
 * test_unload.c -- dlclose of the runtime leaves it mapped (linked -z nodelete).
 *
 * The runtime registers pthread key destructors (the error slot, the stream
 * table, the tensor block cache, ...) on each thread that uses it; they run
 * at that thread's exit.  If dlclose unmapped the library while such a thread
 * lived, its exit would jump into unmapped code.  This program does not link
 * the runtime: it opens it by path, makes a worker thread raise an error (its
 * error slot gets a destructor), closes the library, and only then lets the
 * worker exit.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "check.h"

typedef void (*set_raised_fn)(const char* kind, const char* message);
typedef int (*dec_ref_fn)(void* obj);
typedef void (*move_raised_fn)(void** out);

static void* g_lib;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_stage; /* 1: worker used the runtime; 2: library closed */

static void* worker(void* arg) {
  (void)arg;
  set_raised_fn set_raised = (set_raised_fn)dlsym(g_lib, "TVMFFIErrorSetRaisedFromCStr");
  move_raised_fn move_raised = (move_raised_fn)dlsym(g_lib, "TVMFFIErrorMoveFromRaised");
  dec_ref_fn dec_ref = (dec_ref_fn)dlsym(g_lib, "TVMFFIObjectDecRef");
  CHECK(set_raised != NULL && move_raised != NULL && dec_ref != NULL);
  set_raised("ValueError", "raised on a thread that outlives dlclose");
  void* err = NULL;
  move_raised(&err);
  CHECK(err != NULL);
  dec_ref(err);
  set_raised("ValueError", "left in the slot at thread exit");
  pthread_mutex_lock(&g_mu);
  g_stage = 1;
  pthread_cond_broadcast(&g_cv);
  while (g_stage != 2) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);
  return NULL; /* the slot's destructor runs now, after dlclose */
}

int main(void) {
  const char* top = getenv("top_builddir");
  if (top == NULL) {
    fprintf(stderr, "SKIP: top_builddir not set (run through make check)\n");
    return 77;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/c/.libs/libtvm_ffi.so", top);
  g_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (g_lib == NULL) FAIL("dlopen %s: %s", path, dlerror());

  pthread_t t;
  CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
  pthread_mutex_lock(&g_mu);
  while (g_stage != 1) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);

  CHECK(dlclose(g_lib) == 0);
  /* Still mapped: the flag that makes the thread exit below safe. */
  void* again = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  CHECK(again != NULL);
  dlclose(again);

  pthread_mutex_lock(&g_mu);
  g_stage = 2;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
  CHECK(pthread_join(t, NULL) == 0);
  printf("ok: the runtime stays mapped after dlclose; a thread exits after it safely\n");
  return 0;
}
