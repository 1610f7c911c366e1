/*
 * test_concurrency.c -- several threads at once registering, looking up,
 * calling, overriding and removing globals, sharing an object's counts,
 * allocating types (the same keys and distinct ones) and registering
 * reflection data.  Afterwards every count must be exact.  Then rounds of
 * short-lived threads look a global up while it is overridden (the
 * registry's per-thread reader records are recycled at thread exit).
 *
 * Meant to run clean under ThreadSanitizer (./configure --enable-tsan).
 * TSan does not model standalone atomic fences, so the strong decrement in
 * object.c must use an acq_rel fetch_sub (same code on x86) rather than
 * release + acquire fence, or every cross-thread free is reported.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NTHREADS 4
#define NGLOBALS 100
#define NSHARED_TYPES 40
#define NOWN_TYPES 40
#define NREFS 20000

static int64_t g_calls;    /* calls of registered functions */
static int64_t g_deleted;  /* deleter runs */
static TVMFFIObjectHandle g_shared;

typedef struct {
  int tid;
  int64_t calls_made;
  int32_t shared_idx[NSHARED_TYPES];
  int32_t own_idx[NOWN_TYPES];
} worker;

/* self is the value to return. */
static int ret_self(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)args;
  (void)n;
  __atomic_fetch_add(&g_calls, 1, __ATOMIC_RELAXED);
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = (int64_t)(intptr_t)self;
  return 0;
}
static void count_delete(void* self) {
  (void)self;
  __atomic_fetch_add(&g_deleted, 1, __ATOMIC_RELAXED);
}

static void global_name(char* buf, size_t n, int tid, int i) {
  snprintf(buf, n, "test.conc.t%d.f%d", tid, i);
}

static int call_global(const char* name, int64_t* out) {
  TVMFFIByteArray n = check_ba(name);
  TVMFFIObjectHandle f = NULL;
  CHECK_OK(TVMFFIFunctionGetGlobal(&n, &f));
  if (f == NULL) return 0;
  TVMFFIAny r;
  memset(&r, 0, sizeof(r));
  CHECK_OK(TVMFFIFunctionCall(f, NULL, 0, &r));
  TVMFFIObjectDecRef(f);
  *out = r.v_int64;
  return 1;
}

static void* run(void* arg) {
  worker* w = (worker*)arg;
  char name[64];
  /* Register distinct globals; the value encodes (tid, i). */
  for (int i = 0; i < NGLOBALS; ++i) {
    TVMFFIObjectHandle f;
    CHECK_OK(
        TVMFFIFunctionCreate((void*)(intptr_t)(w->tid * 1000 + i), ret_self, count_delete, &f));
    global_name(name, sizeof(name), w->tid, i);
    TVMFFIByteArray n = check_ba(name);
    CHECK_OK(TVMFFIFunctionSetGlobal(&n, f, 0));
    TVMFFIObjectDecRef(f);
    /* Everybody fights over one name with override on. */
    CHECK_OK(TVMFFIFunctionCreate((void*)(intptr_t)-1, ret_self, count_delete, &f));
    TVMFFIByteArray o = check_ba("test.conc.override");
    CHECK_OK(TVMFFIFunctionSetGlobal(&o, f, 1));
    TVMFFIObjectDecRef(f);
  }
  /* Look up and call own globals (present) and others' (maybe not yet). */
  for (int i = 0; i < NGLOBALS; ++i) {
    int64_t v;
    global_name(name, sizeof(name), w->tid, i);
    CHECK(call_global(name, &v));
    CHECK_EQ_INT(v, w->tid * 1000 + i);
    w->calls_made++;
    int other = (w->tid + 1 + i) % NTHREADS;
    global_name(name, sizeof(name), other, i);
    if (call_global(name, &v)) {
      CHECK_EQ_INT(v, other * 1000 + i);
      w->calls_made++;
    }
    if (call_global("test.conc.override", &v)) {
      CHECK_EQ_INT(v, -1);
      w->calls_made++;
    }
  }
  /* Shared object: balanced count traffic. */
  for (int i = 0; i < NREFS; ++i) {
    TVMFFIObjectIncRef(g_shared);
    if (i % 3 == 0) {
      TVMFFIObjectIncRef(g_shared);
      TVMFFIObjectDecRef(g_shared);
    }
    TVMFFIObjectDecRef(g_shared);
  }
  /* Types: the same keys from every thread, plus own keys, plus reflection. */
  for (int j = 0; j < NSHARED_TYPES; ++j) {
    snprintf(name, sizeof(name), "test.conc.Shared%d", j);
    TVMFFIByteArray k = check_ba(name);
    w->shared_idx[j] = TVMFFITypeGetOrAllocIndex(&k, -1, 1, j % 3, 1, kTVMFFIObject);
    CHECK(w->shared_idx[j] >= kTVMFFIDynObjectBegin);
  }
  TVMFFIByteArray attr = check_ba("__test_conc_attr__");
  for (int j = 0; j < NOWN_TYPES; ++j) {
    snprintf(name, sizeof(name), "test.conc.t%d.Type%d", w->tid, j);
    TVMFFIByteArray k = check_ba(name);
    int32_t parent = w->shared_idx[j % NSHARED_TYPES];
    w->own_idx[j] = TVMFFITypeGetOrAllocIndex(&k, -1, 2, 0, 1, parent);
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(w->own_idx[j]);
    CHECK_EQ_STR(info->type_key.data, name);
    CHECK(info->type_ancestors[1] == TVMFFIGetTypeInfo(parent));
    TVMFFIFieldInfo f;
    memset(&f, 0, sizeof(f));
    f.name = check_ba("x");
    f.offset = 24;
    f.size = 8;
    CHECK_OK(TVMFFITypeRegisterField(w->own_idx[j], &f));
    TVMFFIAny v;
    memset(&v, 0, sizeof(v));
    v.type_index = kTVMFFIInt;
    v.v_int64 = w->own_idx[j];
    CHECK_OK(TVMFFITypeRegisterAttr(w->own_idx[j], &attr, &v));
    /* Concurrent readers of everything registered so far. */
    int32_t back;
    CHECK_OK(TVMFFITypeKeyToIndex(&k, &back));
    CHECK_EQ_INT(back, w->own_idx[j]);
  }
  /* Snapshots while others register/remove. */
  for (int i = 0; i < 5; ++i) {
    TVMFFIAny r;
    CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &r));
    TVMFFIAny a, cnt;
    memset(&a, 0, sizeof(a));
    a.type_index = kTVMFFIInt;
    a.v_int64 = -1;
    memset(&cnt, 0, sizeof(cnt));
    CHECK_OK(TVMFFIFunctionCall(r.v_obj, &a, 1, &cnt));
    CHECK(cnt.v_int64 > 0);
    check_any_release(&r);
  }
  /* Remove the odd ones. */
  for (int i = 1; i < NGLOBALS; i += 2) {
    TVMFFIAny a, r;
    global_name(name, sizeof(name), w->tid, i);
    memset(&a, 0, sizeof(a));
    a.type_index = kTVMFFIRawStr;
    a.v_c_str = name;
    CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
    CHECK_EQ_INT(r.v_int64, 1);
  }
  CHECK_SLOT_CLEAN();
  return NULL;
}

/* Phase 2: look one name up until told to stop. */
static int g_stop;
static void* lookup_loop(void* arg) {
  int64_t* seen = (int64_t*)arg;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    int64_t v;
    if (call_global("test.conc.hot", &v)) {
      CHECK(v >= 0 && v < 1000);
      (*seen)++;
    }
  }
  /* At least one more lookup after the last override. */
  int64_t v;
  CHECK(call_global("test.conc.hot", &v));
  (*seen)++;
  return NULL;
}

static void override_rounds(void) {
  TVMFFIByteArray hot = check_ba("test.conc.hot");
  int64_t deleted_before = __atomic_load_n(&g_deleted, __ATOMIC_RELAXED);
  int64_t calls_before = __atomic_load_n(&g_calls, __ATOMIC_RELAXED);
  int64_t seen_total = 0;
  int overrides = 0;
  for (int round = 0; round < 3; ++round) {
    pthread_t th[NTHREADS];
    int64_t seen[NTHREADS] = {0};
    __atomic_store_n(&g_stop, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < NTHREADS; ++i) {
      TVMFFIObjectHandle f;
      CHECK_OK(TVMFFIFunctionCreate((void*)(intptr_t)(round * 10 + i), ret_self, count_delete, &f));
      CHECK_OK(TVMFFIFunctionSetGlobal(&hot, f, 1));
      TVMFFIObjectDecRef(f);
      overrides++;
      CHECK(pthread_create(&th[i], NULL, lookup_loop, &seen[i]) == 0);
    }
    for (int k = 0; k < 20; ++k) {
      TVMFFIObjectHandle f;
      CHECK_OK(TVMFFIFunctionCreate((void*)(intptr_t)(100 + k), ret_self, count_delete, &f));
      CHECK_OK(TVMFFIFunctionSetGlobal(&hot, f, 1));
      TVMFFIObjectDecRef(f);
      overrides++;
    }
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < NTHREADS; ++i) {
      CHECK(pthread_join(th[i], NULL) == 0);
      seen_total += seen[i];
    }
  }
  /* Every replaced function was released once, none twice. */
  CHECK_EQ_INT(__atomic_load_n(&g_deleted, __ATOMIC_RELAXED) - deleted_before, overrides - 1);
  CHECK_EQ_INT(__atomic_load_n(&g_calls, __ATOMIC_RELAXED) - calls_before, seen_total);
  TVMFFIAny a, r;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = "test.conc.hot";
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
  CHECK_EQ_INT(__atomic_load_n(&g_deleted, __ATOMIC_RELAXED) - deleted_before, overrides);
}

/* fork() while another thread looks up in a loop: the child can still
 * override and remove (no inherited writer lock, no stale reader marks). */
static void fork_while_reading(void) {
  TVMFFIByteArray hot = check_ba("test.conc.hot");
  TVMFFIObjectHandle f;
  CHECK_OK(TVMFFIFunctionCreate((void*)(intptr_t)7, ret_self, NULL, &f));
  CHECK_OK(TVMFFIFunctionSetGlobal(&hot, f, 1));
  __atomic_store_n(&g_stop, 0, __ATOMIC_RELEASE);
  pthread_t th;
  int64_t seen = 0;
  CHECK(pthread_create(&th, NULL, lookup_loop, &seen) == 0);
  for (int i = 0; i < 5; ++i) {
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      alarm(20); /* a hang shows up as SIGALRM */
      if (TVMFFIFunctionSetGlobal(&hot, f, 1) != 0) _exit(2);
      TVMFFIAny a, r;
      memset(&a, 0, sizeof(a));
      a.type_index = kTVMFFIRawStr;
      a.v_c_str = "test.conc.hot";
      if (check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r) != 0 || r.v_int64 != 1) _exit(3);
      _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) FAIL("fork child status %d", status);
  }
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  CHECK(pthread_join(th, NULL) == 0);
  TVMFFIAny a, r;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = "test.conc.hot";
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
  CHECK_EQ_INT(check_use_count(f), 1);
  TVMFFIObjectDecRef(f);
}

static int64_t count_globals(void) {
  TVMFFIAny r, a, cnt;
  CHECK_OK(check_call_global("ffi.FunctionListGlobalNamesFunctor", NULL, 0, &r));
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIInt;
  a.v_int64 = -1;
  memset(&cnt, 0, sizeof(cnt));
  CHECK_OK(TVMFFIFunctionCall(r.v_obj, &a, 1, &cnt));
  check_any_release(&r);
  return cnt.v_int64;
}

int main(void) {
  TVMFFIByteArray s = check_ba("an object shared by all the threads");
  TVMFFIAny shared;
  CHECK_OK(TVMFFIStringFromByteArray(&s, &shared));
  g_shared = shared.v_obj;
  int64_t before = count_globals();

  pthread_t th[NTHREADS];
  worker w[NTHREADS];
  memset(w, 0, sizeof(w));
  for (int i = 0; i < NTHREADS; ++i) {
    w[i].tid = i;
    CHECK(pthread_create(&th[i], NULL, run, &w[i]) == 0);
  }
  for (int i = 0; i < NTHREADS; ++i) CHECK(pthread_join(th[i], NULL) == 0);

  /* Counts are exact. */
  CHECK_EQ_INT(check_use_count(g_shared), 1);
  int64_t made = 0;
  for (int i = 0; i < NTHREADS; ++i) made += w[i].calls_made;
  CHECK_EQ_INT(__atomic_load_n(&g_calls, __ATOMIC_RELAXED), made);
  /* Odd globals removed; of the NTHREADS*NGLOBALS override functions only
   * the installed one is alive. */
  CHECK_EQ_INT(count_globals(), before + NTHREADS * NGLOBALS / 2 + 1);
  CHECK_EQ_INT(__atomic_load_n(&g_deleted, __ATOMIC_RELAXED),
               NTHREADS * NGLOBALS / 2 + NTHREADS * NGLOBALS - 1);

  /* Same key, same index, from every thread; all own keys distinct. */
  for (int j = 0; j < NSHARED_TYPES; ++j)
    for (int i = 1; i < NTHREADS; ++i) CHECK_EQ_INT(w[i].shared_idx[j], w[0].shared_idx[j]);
  TVMFFIByteArray attr = check_ba("__test_conc_attr__");
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&attr);
  CHECK(col != NULL);
  for (int i = 0; i < NTHREADS; ++i) {
    for (int j = 0; j < NOWN_TYPES; ++j) {
      int32_t idx = w[i].own_idx[j];
      for (int i2 = 0; i2 < NTHREADS; ++i2)
        for (int j2 = 0; j2 < NOWN_TYPES; ++j2)
          if (i2 != i || j2 != j) CHECK(idx != w[i2].own_idx[j2]);
      for (int k = 0; k < NSHARED_TYPES; ++k) CHECK(idx != w[0].shared_idx[k]);
      const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(idx);
      CHECK_EQ_INT(info->num_fields, 1);
      CHECK_EQ_INT(col->data[idx].v_int64, idx);
      /* IsInstance-consistent: inside the parent's block or via ancestors. */
      CHECK_EQ_INT(info->type_ancestors[1]->type_index, w[0].shared_idx[j % NSHARED_TYPES]);
    }
  }

  /* Remove the rest: every function object is released exactly once. */
  char name[64];
  for (int t = 0; t < NTHREADS; ++t) {
    for (int i = 0; i < NGLOBALS; i += 2) {
      TVMFFIAny a, r;
      global_name(name, sizeof(name), t, i);
      memset(&a, 0, sizeof(a));
      a.type_index = kTVMFFIRawStr;
      a.v_c_str = name;
      CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
      CHECK_EQ_INT(r.v_int64, 1);
    }
  }
  TVMFFIAny a, r;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = "test.conc.override";
  CHECK_OK(check_call_global("ffi.FunctionRemoveGlobal", &a, 1, &r));
  CHECK_EQ_INT(__atomic_load_n(&g_deleted, __ATOMIC_RELAXED), 2 * NTHREADS * NGLOBALS);
  CHECK_EQ_INT(count_globals(), before);
  override_rounds();
  CHECK_EQ_INT(count_globals(), before);
  fork_while_reading();
  CHECK_EQ_INT(count_globals(), before);
  check_any_release(&shared);
  CHECK_SLOT_CLEAN();
  printf("test_concurrency: ok\n");
  return 0;
}
