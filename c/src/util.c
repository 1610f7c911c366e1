/*
 * util.c -- small helpers shared by the runtime: a growable byte buffer for
 * messages, backtraces and JSON text, and the printf that fills it (its own,
 * so that a name's bytes after an embedded NUL reach the message).
 */
#include <stdarg.h>
#include <stdint.h>
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

/* Appends one conversion, `spec` already holding any '*' as digits. */
static TVMFFI__PRINTF(2, 3) int buf_emit(tvmffi__buf* b, const char* spec, ...) {
  va_list ap, ap2;
  va_start(ap, spec);
  va_copy(ap2, ap);
  char small[64];
  int n = vsnprintf(small, sizeof(small), spec, ap);
  int rc = -1;
  if (n >= 0 && (size_t)n < sizeof(small)) {
    rc = tvmffi__buf_append(b, small, (size_t)n);
  } else if (n >= 0 && buf_reserve(b, (size_t)n) == 0) {
    vsnprintf(b->data + b->size, (size_t)n + 1, spec, ap2);
    b->size += (size_t)n;
    rc = 0;
  }
  va_end(ap2);
  va_end(ap);
  return rc;
}

/* A string with a precision is a byte range that may hold NULs (user-given
 * names): every byte is kept and a NUL shows as \x00, so the text stays a C
 * string and says where the NUL was. */
static int buf_append_escaped(tvmffi__buf* b, const char* s, size_t n) {
  for (const char* nul; n && (nul = (const char*)memchr(s, '\0', n)) != NULL;) {
    size_t k = (size_t)(nul - s);
    if (tvmffi__buf_append(b, s, k) != 0 || tvmffi__buf_append(b, "\\x00", 4) != 0) return -1;
    s += k + 1;
    n -= k + 1;
  }
  return tvmffi__buf_append(b, s, n);
}

/* Reads a '*' argument or a run of digits into spec; -1 for none given. */
static int spec_number(const char** q, char** out, const char* end, va_list* ap) {
  int v = -1;
  if (**q == '*') {
    v = va_arg(*ap, int);
    ++*q;
    int room = (int)(end - *out);
    if (room > 0) {
      int n = snprintf(*out, (size_t)room, "%d", v);
      *out += n < room ? n : room - 1;
    }
    return v;
  }
  if (**q >= '0' && **q <= '9') v = 0;
  while (**q >= '0' && **q <= '9' && *out < end - 1) {
    v = v * 10 + (**q - '0');
    *(*out)++ = *(*q)++;
  }
  return v;
}

int tvmffi__buf_vprintf(tvmffi__buf* b, const char* fmt, va_list ap_in) {
  va_list ap;
  va_copy(ap, ap_in);
  int rc = 0;
  for (const char* p = fmt; *p && rc == 0;) {
    const char* pct = strchr(p, '%');
    if (pct == NULL) {
      rc = tvmffi__buf_append(b, p, strlen(p));
      break;
    }
    rc = tvmffi__buf_append(b, p, (size_t)(pct - p));
    char spec[64], *o = spec, *end = spec + sizeof(spec) - 8;
    const char* q = pct + 1;
    *o++ = '%';
    size_t nflags = strspn(q, "-+ #0");
    if (nflags > 8) nflags = 8;
    memcpy(o, q, nflags);
    o += nflags;
    q += nflags;
    int width = spec_number(&q, &o, end, &ap);
    int prec = -1;
    if (*q == '.') {
      char* dot = o;
      *o++ = *q++;
      prec = spec_number(&q, &o, end, &ap);
      if (prec < 0 && q[-1] == '*')
        o = dot; /* a negative '*' means no precision */
      else if (prec < 0)
        prec = 0;            /* "%.s" is precision 0 */
    }
    char len[3] = {0};
    for (int i = 0; i < 2 && *q && strchr("hlzjtL", *q); ++i) len[i] = *q++;
    memcpy(o, len, strlen(len));
    o += strlen(len);
    char conv = *q ? *q++ : '\0';
    *o++ = conv;
    *o = '\0';
    p = q;
    if (rc != 0) break;
    int plain = nflags == 0 && width < 0;
    switch (conv) {
      case '%':
        rc = tvmffi__buf_append(b, "%", 1);
        break;
      case 's': {
        const char* s = va_arg(ap, const char*);
        if (plain && s != NULL && prec >= 0)
          rc = buf_append_escaped(b, s, (size_t)prec);
        else if (plain && s != NULL)
          rc = tvmffi__buf_append(b, s, strlen(s));
        else
          rc = buf_emit(b, spec, s);
        break;
      }
      case 'c':
        rc = buf_emit(b, spec, va_arg(ap, int));
        break;
      case 'p':
        rc = buf_emit(b, spec, va_arg(ap, void*));
        break;
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        if (len[0] == 'l' && len[1] == 'l')
          rc = buf_emit(b, spec, va_arg(ap, long long));
        else if (len[0] == 'l')
          rc = buf_emit(b, spec, va_arg(ap, long));
        else if (len[0] == 'z' || len[0] == 't')
          rc = buf_emit(b, spec, va_arg(ap, size_t));
        else if (len[0] == 'j')
          rc = buf_emit(b, spec, va_arg(ap, intmax_t));
        else
          rc = buf_emit(b, spec, va_arg(ap, int)); /* also hh, h: promoted */
        break;
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        if (len[0] == 'L')
          rc = buf_emit(b, spec, va_arg(ap, long double));
        else
          rc = buf_emit(b, spec, va_arg(ap, double));
        break;
      default:
        rc = -2; /* %n, a truncated or unknown directive */
    }
  }
  va_end(ap);
  return rc;
}

int tvmffi__buf_printf(tvmffi__buf* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = tvmffi__buf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc < 0 ? -1 : rc;
}

void tvmffi__buf_free(tvmffi__buf* b) {
  free(b->data);
  b->data = NULL;
  b->size = 0;
  b->capacity = 0;
}
