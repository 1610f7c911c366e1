/*
 * util.c -- small helpers shared by the runtime: a growable byte buffer for
 * messages, backtraces and JSON text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Makes room for `extra` more bytes plus a NUL terminator. */
static int buf_reserve(tvmffi__buf* b, size_t extra) {
  if (extra > SIZE_MAX - b->size - 1) return -1;
  size_t need = b->size + extra + 1;
  if (need <= b->capacity) return 0;
  size_t cap = b->capacity ? b->capacity : 64;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  char* p = (char*)realloc(b->data, cap);
  if (p == NULL) return -1;
  b->data = p;
  b->capacity = cap;
  return 0;
}

int tvmffi__buf_append(tvmffi__buf* b, const char* data, size_t n) {
  if (buf_reserve(b, n) != 0) return -1;
  if (n) memcpy(b->data + b->size, data, n);
  b->size += n;
  b->data[b->size] = '\0'; /* always NUL-terminated for callers using it as a C string */
  return 0;
}

int tvmffi__buf_repeat(tvmffi__buf* b, size_t start, size_t n) {
  if (buf_reserve(b, n) != 0) return -1; /* (first: the copy reads the grown buffer) */
  if (n) memcpy(b->data + b->size, b->data + start, n);
  b->size += n;
  b->data[b->size] = '\0';
  return 0;
}

int tvmffi__buf_printf(tvmffi__buf* b, const char* fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  char small[256];
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  int rc = -1;
  if (n >= 0 && (size_t)n < sizeof(small)) {
    rc = tvmffi__buf_append(b, small, (size_t)n);
  } else if (n >= 0 && buf_reserve(b, (size_t)n) == 0) {
    vsnprintf(b->data + b->size, (size_t)n + 1, fmt, ap2);
    b->size += (size_t)n;
    rc = 0;
  }
  va_end(ap2);
  return rc;
}

void tvmffi__buf_free(tvmffi__buf* b) {
  free(b->data);
  b->data = NULL;
  b->size = 0;
  b->capacity = 0;
}
