/*
 * test_init_once.c -- TVMFFIHandleInitOnce / TVMFFIHandleDeinitOnce
 * (docs/abi.md §10.9).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"

static int init_calls;
static int token = 17;

static int init_ok(void** result) {
  __atomic_fetch_add(&init_calls, 1, __ATOMIC_RELAXED);
  *result = &token;
  return 0;
}

static int init_fails(void** result) {
  (void)result;
  TVMFFIErrorSetRaisedFromCStr("ValueError", "init failed on purpose");
  return -1;
}

static int init_null(void** result) {
  *result = NULL;
  return 0;
}

static int deinit_calls;
static void* deinit_seen;
static int deinit_record(void* handle) {
  deinit_calls++;
  deinit_seen = handle;
  return 7;
}

static void test_once(void) {
  void* handle = NULL;
  CHECK_OK(TVMFFIHandleInitOnce(&handle, init_ok));
  CHECK(handle == &token);
  CHECK_EQ_INT(init_calls, 1);
  CHECK_OK(TVMFFIHandleInitOnce(&handle, init_ok));
  CHECK_EQ_INT(init_calls, 1); /* already set: init not called again */

  /* An already non-NULL handle is never overwritten. */
  int other = 0;
  void* preset = &other;
  CHECK_OK(TVMFFIHandleInitOnce(&preset, init_ok));
  CHECK(preset == &other);
  CHECK_EQ_INT(init_calls, 1);

  CHECK_EQ_INT(TVMFFIHandleDeinitOnce(&handle, deinit_record), 7);
  CHECK(handle == NULL);
  CHECK(deinit_seen == &token);
  CHECK_EQ_INT(TVMFFIHandleDeinitOnce(&handle, deinit_record), 0);
  CHECK_EQ_INT(deinit_calls, 1); /* nothing to deinit the second time */
  CHECK_SLOT_CLEAN();
}

static void test_failures(void) {
  void* handle = NULL;
  CHECK_RAISED(TVMFFIHandleInitOnce(&handle, init_fails), "ValueError", "on purpose");
  CHECK(handle == NULL);
  CHECK_RAISED(TVMFFIHandleInitOnce(&handle, init_null), "RuntimeError",
               "init_func must return a non-NULL handle");
  CHECK(handle == NULL);
  /* Still usable after failures. */
  CHECK_OK(TVMFFIHandleInitOnce(&handle, init_ok));
  CHECK(handle == &token);
  CHECK_RAISED(TVMFFIHandleInitOnce(NULL, init_ok), "ValueError", "must not be NULL");
  CHECK_EQ_INT(TVMFFIHandleDeinitOnce(NULL, deinit_record), 0);
}

static void* shared_handle;
static void* race_init(void* arg) {
  (void)arg;
  int ok = TVMFFIHandleInitOnce(&shared_handle, init_ok) == 0;
  ok = ok && shared_handle == &token;
  return (void*)(intptr_t)ok;
}

static int deinit_race_calls;
static int deinit_count(void* h) {
  (void)h;
  __atomic_fetch_add(&deinit_race_calls, 1, __ATOMIC_RELAXED);
  return 0;
}
static void* race_deinit(void* arg) {
  (void)arg;
  TVMFFIHandleDeinitOnce(&shared_handle, deinit_count);
  return NULL;
}

static void test_concurrent(void) {
  init_calls = 0;
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) CHECK(pthread_create(&t[i], NULL, race_init, NULL) == 0);
  for (int i = 0; i < 4; ++i) {
    void* r;
    pthread_join(t[i], &r);
    CHECK(r == (void*)1);
  }
  CHECK_EQ_INT(init_calls, 1);
  for (int i = 0; i < 4; ++i) CHECK(pthread_create(&t[i], NULL, race_deinit, NULL) == 0);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  CHECK_EQ_INT(deinit_race_calls, 1); /* at most one caller sees the old value */
  CHECK(shared_handle == NULL);
}

int main(void) {
  test_once();
  test_failures();
  test_concurrent();
  CHECK_SLOT_CLEAN();
  printf("test_init_once: ok\n");
  return 0;
}
