/*
 * error.c -- ffi.Error objects (docs/abi.md §7.2) and the per-thread raised-error
 * slot (§9.1, §10.4).
 *
 * An error is one block: header, the 72-byte ABI cell, then our own area
 * holding kind, message and backtrace as NUL-terminated copies.  A backtrace
 * replaced later by update_backtrace moves to a separate malloc'd buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIErrorCell cell; /* +24, ABI */
  char* bt_heap;        /* backtrace after an update_backtrace, else NULL */
  size_t bt_cap;        /* bytes allocated at bt_heap */
  char data[];          /* kind\0 message\0 backtrace\0 */
} tvmffi__error;

static void error_deleter(void* self, int flags) {
  tvmffi__error* e = (tvmffi__error*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    tvmffi__decref((TVMFFIObject*)e->cell.cause_chain);
    tvmffi__decref((TVMFFIObject*)e->cell.extra_context);
    e->cell.cause_chain = NULL;
    e->cell.extra_context = NULL;
    free(e->bt_heap);
    e->bt_heap = NULL;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(e);
}

/* update_backtrace of errors we create.  The void signature leaves no way to
 * report out-of-memory, so the old backtrace is kept in that case.  An error
 * crossing N nested Python callbacks gets one append per level: the
 * buffer grows geometrically so that they cost O(total), not O(N * total). */
static void error_update_backtrace(TVMFFIObjectHandle self, const TVMFFIByteArray* bt,
                                   int32_t mode) {
  tvmffi__error* e = (tvmffi__error*)self;
  size_t add = bt ? bt->size : 0;
  size_t keep = mode == kTVMFFIBacktraceUpdateModeAppend ? e->cell.backtrace.size : 0;
  if (add > SIZE_MAX / 2 - keep - 1) return;
  size_t need = keep + add + 1;
  if (keep && e->bt_heap != NULL && need <= e->bt_cap) { /* append in place */
    if (add) memmove(e->bt_heap + keep, bt->data, add);
    e->bt_heap[keep + add] = '\0';
    e->cell.backtrace.size = keep + add;
    return;
  }
  size_t cap = keep ? need + need / 2 : need; /* a replacement is usually final */
  char* buf = (char*)malloc(cap);
  if (buf == NULL) return;
  if (keep) memcpy(buf, e->cell.backtrace.data, keep);
  if (add) memcpy(buf + keep, bt->data, add);
  buf[keep + add] = '\0';
  free(e->bt_heap);
  e->bt_heap = buf;
  e->bt_cap = cap;
  e->cell.backtrace.data = buf;
  e->cell.backtrace.size = keep + add;
}

static void copy_field(TVMFFIByteArray* field, char** cursor, const char* src, size_t n) {
  char* p = *cursor;
  if (n) memcpy(p, src, n);
  p[n] = '\0';
  field->data = p;
  field->size = n;
  *cursor = p + n + 1;
}

static size_t ba_size(const TVMFFIByteArray* b) { return b && b->data ? b->size : 0; }
static const char* ba_data(const TVMFFIByteArray* b) { return b && b->data ? b->data : ""; }

/* Allocates an error; NULL on out-of-memory, with nothing raised. */
static tvmffi__error* error_new(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                const TVMFFIByteArray* backtrace, TVMFFIObjectHandle cause,
                                TVMFFIObjectHandle extra) {
  size_t kn = ba_size(kind), mn = ba_size(message), bn = ba_size(backtrace);
  size_t extra_bytes = kn + mn + bn + 3;
  if (kn > SIZE_MAX / 4 || mn > SIZE_MAX / 4 || bn > SIZE_MAX / 4) return NULL;
  tvmffi__error* e = (tvmffi__error*)calloc(1, sizeof(tvmffi__error) + extra_bytes);
  if (e == NULL) return NULL;
  e->header.combined_ref_count = UINT64_C(1) | (UINT64_C(1) << 32);
  e->header.type_index = kTVMFFIError;
  e->header.deleter = error_deleter;
  char* cursor = e->data;
  copy_field(&e->cell.kind, &cursor, ba_data(kind), kn);
  copy_field(&e->cell.message, &cursor, ba_data(message), mn);
  copy_field(&e->cell.backtrace, &cursor, ba_data(backtrace), bn);
  e->cell.update_backtrace = error_update_backtrace;
  if (cause) tvmffi__incref((TVMFFIObject*)cause);
  if (extra) tvmffi__incref((TVMFFIObject*)extra);
  e->cell.cause_chain = cause;
  e->cell.extra_context = extra;
  return e;
}

TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out) {
  tvmffi__error* e = error_new(kind, message, backtrace, NULL, NULL);
  if (e == NULL) return -1; /* out-of-memory: by contract nothing is raised */
  *out = e;
  return 0;
}

TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out) {
  tvmffi__error* e = error_new(kind, message, backtrace, cause_chain, extra_context);
  if (e == NULL) return -1;
  *out = e;
  return 0;
}

/* ---- preallocated MemoryError ---------------------------------------- */

/* Never freed (NULL deleter) and with a strong count that never reaches
 * zero, so raising it needs no allocation.  Its backtrace is never updated
 * because it is shared by all threads. */
static void static_error_update_backtrace(TVMFFIObjectHandle self, const TVMFFIByteArray* bt,
                                          int32_t mode) {
  (void)self;
  (void)bt;
  (void)mode;
}

static struct {
  TVMFFIObject header;
  TVMFFIErrorCell cell;
  char* bt_heap;
} oom_error = {{UINT64_C(1) << 30 | UINT64_C(1) << 32, kTVMFFIError, 0, {NULL}},
               {{"MemoryError", 11},
                {"Out of memory", 13},
                {"", 0},
                static_error_update_backtrace,
                NULL,
                NULL},
               NULL};

/* ---- the raised-error slot ------------------------------------------- */

static _Thread_local TVMFFIObject* raised = NULL;
static _Thread_local int raised_key_set = 0;
static pthread_key_t raised_key;
static pthread_once_t raised_key_once = PTHREAD_ONCE_INIT;

/* Frees a thread's pending error when the thread exits (valgrind-clean). */
static void raised_key_destructor(void* unused) {
  (void)unused;
  TVMFFIObject* e = raised;
  raised = NULL;
  raised_key_set = 0; /* a later destructor that raises again re-registers */
  tvmffi__decref(e);
}

static void raised_key_init(void) { pthread_key_create(&raised_key, raised_key_destructor); }

/* Stores `err` (steals the reference), releasing the old one. */
static void slot_store(TVMFFIObject* err) {
  if (TVMFFI__UNLIKELY(!raised_key_set) && err != NULL) {
    pthread_once(&raised_key_once, raised_key_init);
    pthread_setspecific(raised_key, (void*)1);
    raised_key_set = 1;
  }
  TVMFFIObject* old = raised;
  raised = err;
  tvmffi__decref(old);
}

/* The main thread never runs pthread key destructors: clear its slot when
 * the library is unloaded or the process exits. */
__attribute__((destructor)) static void raised_clear_at_exit(void) { slot_store(NULL); }

TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result) {
  if (result == NULL) return; /* nowhere to move it: keep it raised */
  *result = raised;
  raised = NULL;
}

TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error) {
  if (error) tvmffi__incref((TVMFFIObject*)error);
  slot_store((TVMFFIObject*)error);
}

int tvmffi__raise_oom(void) {
  tvmffi__incref(&oom_error.header);
  slot_store(&oom_error.header);
  return -1;
}

/* Creates and raises an error with the caller's backtrace; never fails
 * (falls back to the preallocated MemoryError). */
static void tvmffi__raise_bytes(const char* kind, const char* msg, size_t msg_len) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(NULL, 0, NULL, 0);
  TVMFFIByteArray k = {kind ? kind : "RuntimeError", strlen(kind ? kind : "RuntimeError")};
  TVMFFIByteArray m = {msg, msg_len};
  tvmffi__error* e = error_new(&k, &m, bt, NULL, NULL);
  if (e == NULL) {
    tvmffi__raise_oom();
    return;
  }
  slot_store(&e->header);
}

TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  if (message == NULL) message = "";
  tvmffi__raise_bytes(kind, message, strlen(message));
}

TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts) {
  tvmffi__buf b = {NULL, 0, 0};
  int ok = 1;
  for (int32_t i = 0; i < num_parts && message_parts; ++i) {
    if (message_parts[i] == NULL) continue;
    if (tvmffi__buf_append(&b, message_parts[i], strlen(message_parts[i])) != 0) ok = 0;
  }
  if (!ok) {
    tvmffi__buf_free(&b);
    tvmffi__raise_oom();
    return;
  }
  tvmffi__raise_bytes(kind, b.data ? b.data : "", b.size);
  tvmffi__buf_free(&b);
}

int tvmffi__vraise(const char* kind, const char* fmt, va_list ap) {
  tvmffi__buf msg = {NULL, 0, 0};
  int rc = tvmffi__buf_vprintf(&msg, fmt, ap);
  if (rc == -1) {
    tvmffi__buf_free(&msg);
    return tvmffi__raise_oom();
  }
  if (rc != 0) /* bad format: keep the template */
    tvmffi__raise_bytes(kind, fmt, strlen(fmt));
  else
    tvmffi__raise_bytes(kind, msg.data ? msg.data : "", msg.size);
  tvmffi__buf_free(&msg);
  return -1;
}

int tvmffi__raise(const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvmffi__vraise(kind, fmt, ap);
  va_end(ap);
  return -1;
}
