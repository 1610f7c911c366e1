/*
 * json.c -- ffi.json.Parse / ffi.json.Stringify (docs/abi.md §14.4, docs/cpp.md §16
 * extra/json.h): RFC 8259 text <-> Map/Array/str/int/float/bool/None.
 *
 * Parse: objects become ffi.Map (string keys; later duplicates win), arrays
 * ffi.Array, integers that fit int64 become int and other numbers float.  As
 * an extension (like Python's json module) NaN, Infinity and -Infinity are
 * read and written, so every float round-trips.  Errors are ValueError
 * naming what was expected and the line, column and byte offset.
 * Stringify: compact without indent ([1,2], {"a":1}); with indent n >= 0 one
 * item per line indented n spaces per level and ": " after keys.  Map/Dict
 * keys must be strings; a value of another kind (tensor, function, ...) or a
 * container that contains itself is a TypeError / ValueError.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

#define JSON_MAX_DEPTH 1000

/* ---- parser ------------------------------------------------------------------ */

typedef struct {
  const char* s;
  size_t n, i;
  int depth;
} parser;

static int perr_why(const parser* p, size_t at, const char* what, const char* why);

static int perr(const parser* p, size_t at, const char* what) { return perr_why(p, at, what, ""); }

/* perr with an explanation after the position (empty: none). */
static int perr_why(const parser* p, size_t at, const char* what, const char* why) {
  size_t line = 1, col = 1;
  for (size_t k = 0; k < at && k < p->n; ++k) {
    if (p->s[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  /* Python's json module wording, which upstream's parser and tests use. */
  return tvmffi__raise("ValueError", "%s: line %zu column %zu (char %zu)%s", what, line, col, at,
                       why);
}

static void skip_ws(parser* p) {
  while (p->i < p->n) {
    char c = p->s[p->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    ++p->i;
  }
}

static int starts(const parser* p, const char* lit) {
  size_t k = strlen(lit);
  return p->n - p->i >= k && memcmp(p->s + p->i, lit, k) == 0;
}

static int parse_value(parser* p, TVMFFIAny* out);

/* The four hex digits at `at`; a bad escape is reported at `report`. */
static int hex4(const parser* p, size_t at, size_t report, unsigned* out) {
  if (p->n - at < 4) return perr(p, report, "Invalid \\uXXXX escape");
  unsigned v = 0;
  for (int k = 0; k < 4; ++k) {
    char c = p->s[at + k];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return perr(p, report, "Invalid \\uXXXX escape");
  }
  *out = v;
  return 0;
}

static int utf8_put(tvmffi__buf* b, unsigned cp) {
  char u[4];
  size_t k;
  if (cp < 0x80) {
    u[0] = (char)cp;
    k = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    k = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    k = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    k = 4;
  }
  return tvmffi__buf_append(b, u, k) ? tvmffi__raise_oom() : 0;
}

/* Parses a string starting at the opening quote into an owned String. */
static int parse_string(parser* p, TVMFFIAny* out) {
  size_t start = p->i++;
  tvmffi__buf b = {NULL, 0, 0};
  int rc = -1;
  for (;;) {
    if (p->i >= p->n) {
      perr(p, start, "Unterminated string starting at");
      goto done;
    }
    size_t run = p->i;
    while (p->i < p->n && p->s[p->i] != '"' && p->s[p->i] != '\\' &&
           (unsigned char)p->s[p->i] >= 0x20)
      ++p->i;
    if (p->i > run && tvmffi__buf_append(&b, p->s + run, p->i - run) != 0) {
      tvmffi__raise_oom();
      goto done;
    }
    if (p->i >= p->n) continue;
    char c = p->s[p->i];
    if (c == '"') {
      ++p->i;
      break;
    }
    if (c != '\\') {
      perr(p, p->i, "Invalid control character at");
      goto done;
    }
    if (p->i + 1 >= p->n) {
      perr(p, start, "Unterminated string starting at");
      goto done;
    }
    char e = p->s[p->i + 1];
    const char* rep = NULL;
    switch (e) {
      case '"':
        rep = "\"";
        break;
      case '\\':
        rep = "\\";
        break;
      case '/':
        rep = "/";
        break;
      case 'b':
        rep = "\b";
        break;
      case 'f':
        rep = "\f";
        break;
      case 'n':
        rep = "\n";
        break;
      case 'r':
        rep = "\r";
        break;
      case 't':
        rep = "\t";
        break;
      case 'u': {
        unsigned cp;
        size_t at = p->i + 1; /* the 'u' */
        if (hex4(p, p->i + 2, at, &cp) != 0) goto done;
        p->i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          unsigned lo;
          if (!(p->n - p->i >= 2 && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u')) {
            perr(p, at, "Invalid surrogate pair of \\uXXXX escapes");
            goto done;
          }
          if (hex4(p, p->i + 2, p->i + 2, &lo) != 0) goto done;
          if (lo < 0xDC00 || lo > 0xDFFF) {
            perr(p, at, "Invalid surrogate pair of \\uXXXX escapes");
            goto done;
          }
          p->i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          perr(p, at, "Invalid surrogate pair of \\uXXXX escapes");
          goto done;
        }
        if (utf8_put(&b, cp) != 0) goto done;
        continue;
      }
      default:
        perr(p, p->i + 1, "Invalid \\escape");
        goto done;
    }
    if (tvmffi__buf_append(&b, rep, 1) != 0) {
      tvmffi__raise_oom();
      goto done;
    }
    p->i += 2;
  }
  rc = tvmffi__str_to_any(kTVMFFIStr, b.data ? b.data : "", b.size, out);
done:
  tvmffi__buf_free(&b);
  return rc;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of the JSON number at the start of s[0..n), or 0 when there is none. */
static size_t number_len(const char* s, size_t n, int* is_float) {
  size_t i = 0;
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (i < n && is_digit(s[i])) {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return 0;
  }
  if (i < n && s[i] == '.') {
    *is_float = 1;
    if (++i >= n || !is_digit(s[i])) return 0;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *is_float = 1;
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return 0;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i;
}

/* A number is the whole run of number characters ("1.2.3", "01" and "1e" are
 * not numbers, reported as "Expecting value" at their start, as upstream). */
static int parse_number(parser* p, TVMFFIAny* out) {
  size_t start = p->i, end = p->i;
  while (end < p->n && p->s[end] != '\0' && strchr("0123456789+-.eE", p->s[end]) != NULL) ++end;
  int is_float = 0;
  if (number_len(p->s + start, end - start, &is_float) != end - start)
    return perr(p, start, "Expecting value");
  p->i = end;
  /* strtoll/strtod need a NUL-terminated copy (the input may not be). */
  char tmp[64];
  size_t len = p->i - start;
  char* text = len < sizeof(tmp) ? tmp : (char*)malloc(len + 1);
  if (text == NULL) return tvmffi__raise_oom();
  memcpy(text, p->s + start, len);
  text[len] = '\0';
  int rc = 0;
  if (!is_float) {
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno != ERANGE) {
      tvmffi__any_set_int(out, v);
      goto done;
    }
  }
  /* A number float64 cannot hold is refused, not rounded to inf or 0.0: upstream's
   * strtod check (ERANGE), the same "Expecting value" error, with the reason. */
  errno = 0;
  double d = strtod(text, NULL);
  if (errno == ERANGE) {
    int over = d != 0.0 && (d > 1.0 || d < -1.0);
    rc = perr_why(p, start, "Expecting value",
                  !is_float ? ": the integer is too large for int64 and for float64"
                  : over    ? ": the number's magnitude is too large for float64 (above "
                              "1.7976931348623157e308)"
                            : ": the number's magnitude is too small for float64 (nonzero, "
                              "below 2.2250738585072014e-308)");
    goto done;
  }
  out->type_index = kTVMFFIFloat;
  out->zero_padding = 0;
  out->v_float64 = d;
done:
  if (text != tmp) free(text);
  return rc;
}

static int parse_array(parser* p, TVMFFIAny* out) {
  ++p->i; /* '[' */
  tvmffi__buf items = {NULL, 0, 0}; /* TVMFFIAny[] staged, then moved into an Array */
  int rc = -1;
  skip_ws(p);
  if (p->i < p->n && p->s[p->i] == ']') {
    ++p->i;
  } else {
    for (;;) {
      TVMFFIAny v;
      if (parse_value(p, &v) != 0) goto done;
      if (tvmffi__buf_append(&items, (const char*)&v, sizeof(v)) != 0) {
        tvmffi__any_release(&v);
        tvmffi__raise_oom();
        goto done;
      }
      skip_ws(p);
      if (p->i < p->n && p->s[p->i] == ',') {
        ++p->i;
        continue;
      }
      if (p->i < p->n && p->s[p->i] == ']') {
        ++p->i;
        break;
      }
      perr(p, p->i, "Expecting ',' delimiter");
      goto done;
    }
  }
  size_t n = items.size / sizeof(TVMFFIAny);
  TVMFFIObject* arr = tvmffi__array_new((int64_t)n);
  if (arr == NULL) goto done;
  for (size_t k = 0; k < n; ++k) tvmffi__array_push_move(arr, &((TVMFFIAny*)items.data)[k]);
  items.size = 0;
  tvmffi__any_set_obj(out, arr);
  rc = 0;
done:
  for (size_t k = 0; k < items.size / sizeof(TVMFFIAny); ++k)
    tvmffi__any_release(&((TVMFFIAny*)items.data)[k]);
  tvmffi__buf_free(&items);
  return rc;
}

static int parse_object(parser* p, TVMFFIAny* out) {
  ++p->i; /* '{' */
  TVMFFIObject* map = tvmffi__map_new(kTVMFFIMap);
  if (map == NULL) return -1;
  skip_ws(p);
  if (p->i < p->n && p->s[p->i] == '}') {
    ++p->i;
    tvmffi__any_set_obj(out, map);
    return 0;
  }
  for (;;) {
    skip_ws(p);
    if (p->i >= p->n || p->s[p->i] != '"') {
      perr(p, p->i, "Expecting property name enclosed in double quotes");
      goto fail;
    }
    TVMFFIAny k, v;
    if (parse_string(p, &k) != 0) goto fail;
    skip_ws(p);
    if (p->i >= p->n || p->s[p->i] != ':') {
      tvmffi__any_release(&k);
      perr(p, p->i, "Expecting ':' delimiter");
      goto fail;
    }
    ++p->i;
    if (parse_value(p, &v) != 0) {
      tvmffi__any_release(&k);
      goto fail;
    }
    if (tvmffi__map_set(&map, &k, &v) != 0) {
      tvmffi__any_release(&k);
      tvmffi__any_release(&v);
      goto fail;
    }
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      ++p->i;
      continue;
    }
    if (p->i < p->n && p->s[p->i] == '}') {
      ++p->i;
      break;
    }
    perr(p, p->i, "Expecting ',' delimiter");
    goto fail;
  }
  tvmffi__any_set_obj(out, map);
  return 0;
fail:
  tvmffi__decref(map);
  return -1;
}

static int parse_value(parser* p, TVMFFIAny* out) {
  skip_ws(p);
  tvmffi__any_set_none(out);
  if (p->i >= p->n) return perr(p, p->i, "Expecting value");
  char c = p->s[p->i];
  if (c == '{' || c == '[') {
    if (p->depth >= JSON_MAX_DEPTH) return perr(p, p->i, "Nesting deeper than 1000 levels");
    p->depth++;
    int rc = c == '{' ? parse_object(p, out) : parse_array(p, out);
    p->depth--;
    return rc;
  }
  if (c == '"') return parse_string(p, out);
  if (starts(p, "true") || starts(p, "false")) {
    tvmffi__any_set_bool(out, c == 't');
    p->i += c == 't' ? 4 : 5;
    return 0;
  }
  if (starts(p, "null")) {
    p->i += 4;
    return 0;
  }
  const char* special[] = {"NaN", "Infinity", "-Infinity"};
  const double values[] = {__builtin_nan(""), __builtin_inf(), -__builtin_inf()};
  for (int k = 0; k < 3; ++k)
    if (starts(p, special[k])) {
      p->i += strlen(special[k]);
      out->type_index = kTVMFFIFloat;
      out->v_float64 = values[k];
      return 0;
    }
  if (c == '-' || is_digit(c)) return parse_number(p, out);
  return perr(p, p->i, "Expecting value");
}

/* ffi.json.Parse(s: str) -> Any */
static int json_parse(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  static const char sig[] = "ffi.json.Parse(0: str) -> Any";
  TVMFFIByteArray s;
  if (tvmffi__args_count(sig, n, 1) != 0 || tvmffi__arg_str(sig, args, 0, &s) != 0) return -1;
  parser p = {s.data, s.size, 0, 0};
  TVMFFIAny v;
  if (parse_value(&p, &v) != 0) return -1;
  skip_ws(&p);
  if (p.i != p.n) {
    tvmffi__any_release(&v);
    return perr(&p, p.i, "Extra data");
  }
  *result = v;
  return 0;
}

/* ---- writer --------------------------------------------------------------------- */

/* JSON has no way to say "the same value again": a container met twice is written twice.
 * Its text is the same both times (at the same depth when indenting), so the second time
 * copies the first (linear work per distinct container); the copies of one call may add up
 * to this many bytes, past which a value sharing sub-values over and over (a DAG whose text
 * doubles at every level) is refused instead of written. */
#define JSON_MAX_REPEATED_TEXT ((size_t)64 << 20)

typedef struct {
  size_t start, size;
} text_span;

typedef struct {
  tvmffi__buf* b;
  int indent; /* < 0: compact */
  TVMFFIObject* stack[JSON_MAX_DEPTH];
  int depth;
  tvmffi__memo written; /* (container, depth when indenting) -> index into spans */
  text_span* spans;
  size_t n_spans, cap_spans;
  size_t repeated; /* bytes copied so far */
} writer;

/* Writes a container met before again (1), or 0 when its text is not known. -1: refused. */
static int write_again(writer* w, TVMFFIObject* obj, const void* where) {
  uint64_t i;
  if (!tvmffi__memo_get(&w->written, obj, where, &i)) return 0;
  text_span sp = w->spans[i];
  w->repeated += sp.size;
  if (w->repeated > JSON_MAX_REPEATED_TEXT)
    return tvmffi__raise("ValueError",
                         "ffi.json.Stringify: the value repeats shared sub-values so often that "
                         "its text would exceed %zu MiB of repeats (JSON cannot express sharing; "
                         "ffi.ToJSONGraphString keeps it)",
                         JSON_MAX_REPEATED_TEXT >> 20);
  return tvmffi__buf_repeat(w->b, sp.start, sp.size) != 0 ? tvmffi__raise_oom() : 1;
}

static void remember_text(writer* w, TVMFFIObject* obj, const void* where, size_t start) {
  if (w->n_spans == w->cap_spans) {
    size_t cap = w->cap_spans ? w->cap_spans * 2 : 64;
    text_span* grown = (text_span*)realloc(w->spans, cap * sizeof(text_span));
    if (grown == NULL) return; /* (the memo only saves time) */
    w->spans = grown;
    w->cap_spans = cap;
  }
  w->spans[w->n_spans].start = start;
  w->spans[w->n_spans].size = w->b->size - start;
  tvmffi__memo_put(&w->written, obj, where, w->n_spans++);
}

static int wput(writer* w, const char* s) {
  return tvmffi__buf_append(w->b, s, strlen(s)) ? tvmffi__raise_oom() : 0;
}

static int newline(writer* w) {
  if (w->indent < 0) return 0;
  if (wput(w, "\n") != 0) return -1;
  for (int k = 0; k < w->depth * w->indent; ++k)
    if (wput(w, " ") != 0) return -1;
  return 0;
}

static int write_value(writer* w, const TVMFFIAny* view);

static int write_container(writer* w, TVMFFIObject* obj) {
  for (int k = 0; k < w->depth; ++k)
    if (w->stack[k] == obj)
      return tvmffi__raise("ValueError", "ffi.json.Stringify: circular reference in `%s`",
                           tvmffi__type_key(obj->type_index));
  if (w->depth >= JSON_MAX_DEPTH)
    return tvmffi__raise("ValueError", "ffi.json.Stringify: nesting deeper than %d levels",
                         JSON_MAX_DEPTH);
  /* (the text of an indented container depends on its depth too) */
  const void* where = w->indent < 0 ? NULL : (const void*)(uintptr_t)(w->depth + 1);
  int memo = tvmffi__ext_shared(obj) && tvmffi__memo_enter(&w->written);
  if (memo) {
    int again = write_again(w, obj, where);
    if (again != 0) return again < 0 ? -1 : 0;
  }
  size_t start = w->b->size;
  int is_seq = obj->type_index == kTVMFFIArray || obj->type_index == kTVMFFIList;
  if (wput(w, is_seq ? "[" : "{") != 0) return -1;
  w->stack[w->depth++] = obj;
  int rc = 0, count = 0;
  if (is_seq) {
    TVMFFISeqCell* c = TVMFFISeqGetCellPtr(obj);
    for (int64_t i = 0; rc == 0 && i < c->size; ++i) {
      rc = (count++ && wput(w, ",")) || newline(w) || write_value(w, &((TVMFFIAny*)c->data)[i]);
    }
  } else {
    TVMFFIMapCell* c = TVMFFIMapGetCellPtr(obj);
    for (uint64_t p = TVMFFIMapCellIterBegin(c); rc == 0 && p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(c, p)) {
      TVMFFIByteArray key;
      if (!tvmffi__any_as_str(TVMFFIMapCellKey(c, p), &key)) {
        rc = tvmffi__raise("TypeError", "ffi.json.Stringify: object keys must be str, got `%s`",
                           tvmffi__any_type_key(TVMFFIMapCellKey(c, p)));
        break;
      }
      rc = (count++ && wput(w, ",")) || newline(w) ||
           tvmffi__ext_quote_json(w->b, key.data, key.size) ||
           wput(w, w->indent < 0 ? ":" : ": ") || write_value(w, TVMFFIMapCellValue(c, p));
    }
  }
  w->depth--;
  if (rc != 0) return -1;
  if (count && newline(w) != 0) return -1;
  if (wput(w, is_seq ? "]" : "}") != 0) return -1;
  if (memo) remember_text(w, obj, where, start);
  return 0;
}

static int write_value(writer* w, const TVMFFIAny* view) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  TVMFFIByteArray ba;
  if (tvmffi__any_as_str(&v, &ba)) return tvmffi__ext_quote_json(w->b, ba.data, ba.size);
  switch (v.type_index) {
    case kTVMFFINone:
      return wput(w, "null");
    case kTVMFFIBool:
      return wput(w, v.v_int64 ? "true" : "false");
    case kTVMFFIInt:
      return tvmffi__buf_printf(w->b, "%lld", (long long)v.v_int64) ? tvmffi__raise_oom() : 0;
    case kTVMFFIFloat:
      /* ".0" on integral values keeps the float kind across a round trip. */
      if (__builtin_isfinite(v.v_float64)) return tvmffi__ext_float(w->b, v.v_float64, 1);
      return tvmffi__ext_float(w->b, v.v_float64, 0);
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict:
      return write_container(w, v.v_obj);
    default:
      return tvmffi__raise("TypeError",
                           "ffi.json.Stringify: a value of type `%s` is not JSON "
                           "serializable",
                           tvmffi__any_type_key(&v));
  }
}

/* ffi.json.Stringify(v: Any, indent: Optional[int]) -> str */
static int json_stringify(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  static const char sig[] = "ffi.json.Stringify(0: Any, 1: Optional<int>) -> str";
  if (n != 1 && tvmffi__args_count(sig, n, 2) != 0) return -1;
  int64_t indent = -1;
  if (n == 2 && args[1].type_index != kTVMFFINone) {
    if (tvmffi__arg_int(sig, args, 1, &indent) != 0) return -1;
    if (indent < 0 || indent > 64)
      return tvmffi__raise("ValueError", "ffi.json.Stringify: indent must be in [0, 64], got %lld",
                           (long long)indent);
  }
  writer* w = (writer*)calloc(1, sizeof(writer));
  if (w == NULL) return tvmffi__raise_oom();
  tvmffi__buf b = {NULL, 0, 0};
  w->b = &b;
  w->indent = (int)indent;
  w->written.hold = TVMFFI__MEMO_HOLD_A;
  int rc = write_value(w, &args[0]);
  tvmffi__memo_free(&w->written);
  free(w->spans);
  free(w);
  if (rc == 0) rc = tvmffi__str_to_any(kTVMFFIStr, b.data ? b.data : "", b.size, result);
  tvmffi__buf_free(&b);
  return rc;
}

void tvmffi__json_globals_init(void) {
  tvmffi__register_global("ffi.json.Parse", json_parse,
                          "Parses JSON text into Map/Array/str/int/float/bool/None.",
                          SCHEMA_FN("Any", ARG("str")));
  tvmffi__register_global(
      "ffi.json.Stringify", json_stringify, "Writes a JSON value as text (optional indent).",
      SCHEMA_FN("str", ARG("Any") ",{\"type\":\"Optional\",\"args\":[{\"type\":\"int\"}]}"));
}
