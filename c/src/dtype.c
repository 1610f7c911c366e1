/*
 * dtype.c -- DLDataType <-> string (docs/abi.md §10.6).
 *
 * Parsing works on a length-delimited copy of the input that has had its
 * aliases ("i32", "bf16", "fp8_e5m2", ...) rewritten to the canonical
 * prefixes, so the grammar below only deals with full names.  Every number is
 * read with an explicit digit loop (no strtoul): no signs, no white space, no
 * overflow, and embedded NUL bytes simply fail to match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Custom type codes start here (DLExtDataTypeCode::kDLExtCustomBegin). */
#define DTYPE_CUSTOM_BEGIN 129
/* Longest canonical name we print without a custom part: "float8_e4m3b11fnuz"
 * + "xvscalex32768" fits easily. */
#define DTYPE_SHORT_MAX 64

/* Low-precision float names by code (7..17); printed without bits. */
static const char* const kSmallFloatNames[] = {
    "float8_e3m4",     "float8_e4m3",   "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2",   "float8_e5m2fnuz",    "float8_e8m0fnu",
    "float6_e2m3fn",   "float6_e3m2fn", "float4_e2m1fn",
};

/* Variants after "float8_" etc., longest match first so that e.g.
 * "e4m3fnuz" is not read as "e4m3fn" followed by junk. */
typedef struct {
  const char* suffix;
  uint8_t code;
} dtype_variant;

static const dtype_variant kFloat8Variants[] = {
    {"e4m3b11fnuz", kDLFloat8_e4m3b11fnuz},
    {"e4m3fnuz", kDLFloat8_e4m3fnuz},
    {"e5m2fnuz", kDLFloat8_e5m2fnuz},
    {"e8m0fnu", kDLFloat8_e8m0fnu},
    {"e4m3fn", kDLFloat8_e4m3fn},
    {"e3m4", kDLFloat8_e3m4},
    {"e4m3", kDLFloat8_e4m3},
    {"e5m2", kDLFloat8_e5m2},
};
static const dtype_variant kFloat6Variants[] = {
    {"e2m3fn", kDLFloat6_e2m3fn},
    {"e3m2fn", kDLFloat6_e3m2fn},
};
static const dtype_variant kFloat4Variants[] = {
    {"e2m1fn", kDLFloat4_e2m1fn},
};

/* ---- small scanning helpers over (s, n) -------------------------------- */

static int has_prefix(const char* s, size_t n, size_t pos, const char* lit) {
  size_t k = strlen(lit);
  return pos <= n && n - pos >= k && memcmp(s + pos, lit, k) == 0;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Reads one or more decimal digits at *pos.  Returns 1 and the value
 * (saturated just above `limit`, so callers can report "too large") or 0 when
 * no digit is there. */
static int read_uint(const char* s, size_t n, size_t* pos, uint64_t limit, uint64_t* out) {
  size_t p = *pos;
  uint64_t v = 0;
  if (p >= n || !is_digit(s[p])) return 0;
  while (p < n && is_digit(s[p])) {
    if (v <= limit) v = v * 10 + (uint64_t)(s[p] - '0');
    ++p;
  }
  *pos = p;
  *out = v > limit ? limit + 1 : v;
  return 1;
}

/* ---- errors --------------------------------------------------------------- */

/* The message every malformed string gets, with an optional detail that says
 * what exactly is wrong.  `s` is the text as the user wrote it. */
static int dtype_bad(const char* s, size_t n, const char* detail) {
  /* Echo at most a screenful of a (possibly huge) input. */
  const char* more = n > 128 ? "..." : "";
  int shown = n > 128 ? 128 : (int)n;
  if (detail != NULL)
    return tvmffi__raise("ValueError", "unknown dtype `%.*s%s`: %s", shown, s, more, detail);
  return tvmffi__raise("ValueError", "unknown dtype `%.*s%s`", shown, s, more);
}

/* ---- custom type codes (looked up through global functions) -------------- */

/* Calls the global `fname` with one argument.  Returns 0 with an owned
 * value in *result, -1 when the call failed (error raised by the callee), or
 * 1 when nobody registered the function (nothing raised: callers say what
 * they needed it for). */
static int call_custom_global(const char* fname, const TVMFFIAny* arg, TVMFFIAny* result) {
  TVMFFIByteArray name = {fname, strlen(fname)};
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &f) != 0) return -1;
  if (f == NULL) return 1;
  TVMFFIAny args[1] = {*arg};
  tvmffi__any_set_none(result);
  int rc = tvmffi__function_call(f, args, 1, result);
  TVMFFIObjectDecRef(f);
  return rc == 0 ? 0 : -1;
}

/* "custom[<name>]" starting at *pos (just after '[') -> code. */
static int parse_custom(const char* s, size_t n, size_t* pos, const char* orig, size_t orig_n,
                        uint8_t* code) {
  const char* close = memchr(s + *pos, ']', n - *pos);
  if (close == NULL) return dtype_bad(orig, orig_n, "missing `]` after `custom[`");
  size_t name_len = (size_t)(close - (s + *pos));
  if (name_len == 0) return dtype_bad(orig, orig_n, "empty custom type name");
  if (memchr(s + *pos, '\0', name_len) != NULL)
    return dtype_bad(orig, orig_n, "custom type name contains a NUL byte");
  char* name = malloc(name_len + 1);
  if (name == NULL) return tvmffi__raise_oom();
  memcpy(name, s + *pos, name_len);
  name[name_len] = '\0';

  TVMFFIAny arg, result;
  arg.type_index = kTVMFFIRawStr;
  arg.zero_padding = 0;
  arg.v_int64 = 0;
  arg.v_c_str = name;
  int rc = call_custom_global("dtype.get_custom_type_code", &arg, &result);
  if (rc != 0) {
    free(name);
    if (rc == 1)
      return dtype_bad(orig, orig_n,
                       "custom types need the global function dtype.get_custom_type_code, "
                       "which is not registered");
    return -1;
  }
  if (result.type_index != kTVMFFIInt || result.v_int64 < DTYPE_CUSTOM_BEGIN ||
      result.v_int64 > 255) {
    if (result.type_index == kTVMFFIInt) {
      tvmffi__raise("ValueError",
                    "dtype.get_custom_type_code(\"%s\") returned %lld; custom type codes "
                    "must be in [%d, 255]",
                    name, (long long)result.v_int64, DTYPE_CUSTOM_BEGIN);
    } else {
      tvmffi__raise("ValueError", "dtype.get_custom_type_code(\"%s\") must return int, got `%s`",
                    name, tvmffi__any_type_key(&result));
    }
    tvmffi__any_release(&result);
    free(name);
    return -1;
  }
  *code = (uint8_t)result.v_int64;
  free(name);
  *pos += name_len + 1;
  return 0;
}

/* ---- parsing ------------------------------------------------------------- */

/* Optional lanes suffix at *pos: "x<N>" (1 <= N <= 65535) or the scalable
 * "xvscalex<N>" (lanes hold -N as 16 bits, 1 <= N <= 32768). */
static int parse_lanes(const char* s, size_t n, size_t* pos, const char* orig, size_t orig_n,
                       uint16_t* lanes) {
  uint64_t v;
  if (*pos >= n) return 0;
  if (has_prefix(s, n, *pos, "xvscalex")) {
    *pos += 8;
    if (!read_uint(s, n, pos, 32768, &v) || v < 1 || v > 32768)
      return dtype_bad(orig, orig_n, "scalable lanes must be in [1, 32768]");
    *lanes = (uint16_t)(-(int32_t)v);
    return 0;
  }
  if (s[*pos] != 'x') return dtype_bad(orig, orig_n, NULL);
  ++*pos;
  if (!read_uint(s, n, pos, 65535, &v)) return dtype_bad(orig, orig_n, "expected lanes after `x`");
  if (v < 1 || v > 65535) return dtype_bad(orig, orig_n, "lanes must be in [1, 65535]");
  *lanes = (uint16_t)v;
  return 0;
}

/* float8_ / float6_ / float4_ variants: fixed code and bits, lanes only.
 * The reference parser takes only "x<N>" here; we also take "xvscalex<N>"
 * because the printer emits it for scalable lanes and printed text must parse
 * back. */
static int parse_small_float(const char* s, size_t n, size_t pos, const dtype_variant* vars,
                             size_t nvars, uint8_t bits, const char* orig, size_t orig_n,
                             DLDataType* out) {
  for (size_t i = 0; i < nvars; ++i) {
    if (!has_prefix(s, n, pos, vars[i].suffix)) continue;
    DLDataType t = {vars[i].code, bits, 1};
    pos += strlen(vars[i].suffix);
    /* float4_e2m1fn also takes "_x<N>" (the packed-pair spelling). */
    if (t.code == kDLFloat4_e2m1fn && has_prefix(s, n, pos, "_x")) ++pos;
    if (parse_lanes(s, n, &pos, orig, orig_n, &t.lanes) != 0) return -1;
    if (pos != n) return dtype_bad(orig, orig_n, NULL);
    *out = t;
    return 0;
  }
  return dtype_bad(orig, orig_n, "unknown low-precision float variant");
}

/* Parses the canonical (alias-free) text s[0..n).  orig is the user's text,
 * used in messages. */
static int parse_canonical(const char* s, size_t n, const char* orig, size_t orig_n,
                           DLDataType* out) {
  DLDataType t = {kDLInt, 32, 1};
  size_t pos;
  if (has_prefix(s, n, 0, "float8_"))
    return parse_small_float(s, n, 7, kFloat8Variants,
                             sizeof(kFloat8Variants) / sizeof(kFloat8Variants[0]), 8, orig, orig_n,
                             out);
  if (has_prefix(s, n, 0, "float6_"))
    return parse_small_float(s, n, 7, kFloat6Variants,
                             sizeof(kFloat6Variants) / sizeof(kFloat6Variants[0]), 6, orig, orig_n,
                             out);
  if (has_prefix(s, n, 0, "float4_"))
    return parse_small_float(s, n, 7, kFloat4Variants,
                             sizeof(kFloat4Variants) / sizeof(kFloat4Variants[0]), 4, orig, orig_n,
                             out);

  if (has_prefix(s, n, 0, "int")) {
    t.code = kDLInt;
    pos = 3;
  } else if (has_prefix(s, n, 0, "uint")) {
    t.code = kDLUInt;
    pos = 4;
  } else if (has_prefix(s, n, 0, "float")) {
    t.code = kDLFloat;
    pos = 5;
  } else if (has_prefix(s, n, 0, "bfloat")) {
    t.code = kDLBfloat;
    t.bits = 16;
    pos = 6;
  } else if (has_prefix(s, n, 0, "complex")) {
    t.code = kDLComplex; /* beyond the reference parser: numpy and torch have complex */
    t.bits = 64;
    pos = 7;
  } else if (has_prefix(s, n, 0, "bool")) {
    t.code = kDLBool;
    t.bits = 8;
    pos = 4;
  } else if (has_prefix(s, n, 0, "handle")) {
    t.code = kDLOpaqueHandle;
    t.bits = 64;
    pos = 6;
  } else if (has_prefix(s, n, 0, "custom[")) {
    pos = 7;
    if (parse_custom(s, n, &pos, orig, orig_n, &t.code) != 0) return -1;
  } else {
    return dtype_bad(orig, orig_n, NULL);
  }

  uint64_t v;
  if (read_uint(s, n, &pos, 255, &v)) {
    if (v > 255) return dtype_bad(orig, orig_n, "bits must be at most 255");
    if (v != 0) t.bits = (uint8_t)v; /* 0 keeps the default */
  }
  if (parse_lanes(s, n, &pos, orig, orig_n, &t.lanes) != 0) return -1;
  if (pos != n) return dtype_bad(orig, orig_n, NULL);
  *out = t;
  return 0;
}

/* Rewrites a leading alias to its canonical prefix.  Returns the canonical
 * prefix and how many input bytes it replaces, or NULL when no alias applies. */
static const char* alias_of(const char* s, size_t n, size_t* consumed) {
  static const struct {
    const char* alias;
    const char* canon;
  } kPrefixAliases[] = {
      {"fp8_", "float8_"}, {"f8_", "float8_"},  {"fp6_", "float6_"},
      {"f6_", "float6_"},  {"fp4_", "float4_"}, {"f4_", "float4_"},
  };
  for (size_t i = 0; i < sizeof(kPrefixAliases) / sizeof(kPrefixAliases[0]); ++i) {
    if (has_prefix(s, n, 0, kPrefixAliases[i].alias)) {
      *consumed = strlen(kPrefixAliases[i].alias);
      return kPrefixAliases[i].canon;
    }
  }
  /* One- or two-letter aliases apply only when a digit follows ("i32",
   * "bf16"), so that e.g. "int32" or "float" are not rewritten. */
  if (n >= 3 && s[0] == 'b' && s[1] == 'f' && is_digit(s[2])) {
    *consumed = 2;
    return "bfloat";
  }
  if (n >= 2 && is_digit(s[1])) {
    *consumed = 1;
    if (s[0] == 'i') return "int";
    if (s[0] == 'u') return "uint";
    if (s[0] == 'f') return "float";
  }
  return NULL;
}

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  if (str == NULL || out == NULL || (str->data == NULL && str->size != 0))
    return tvmffi__raise("ValueError", "TVMFFIDataTypeFromString: str and out must not be NULL");
  const char* s = str->data;
  size_t n = str->size;
  if (n == 0 || (n == 4 && memcmp(s, "void", 4) == 0)) {
    out->code = kDLOpaqueHandle;
    out->bits = 0;
    out->lanes = 0;
    return 0;
  }
  size_t consumed = 0;
  const char* canon = alias_of(s, n, &consumed);
  if (canon == NULL) return parse_canonical(s, n, s, n, out);

  /* Build canon + rest; names are short, so the stack almost always does. */
  size_t canon_n = strlen(canon);
  size_t total = canon_n + (n - consumed);
  char stack_buf[128];
  char* buf = stack_buf;
  if (total > sizeof(stack_buf)) {
    buf = malloc(total);
    if (buf == NULL) return tvmffi__raise_oom();
  }
  memcpy(buf, canon, canon_n);
  memcpy(buf + canon_n, s + consumed, n - consumed);
  int rc = parse_canonical(buf, total, s, n, out);
  if (buf != stack_buf) free(buf);
  return rc;
}

/* ---- printing ------------------------------------------------------------- */

/* Appends the bits/lanes suffix; `with_bits` is false for the fixed-width
 * low-precision float codes. */
static int format_suffix(char* buf, size_t cap, DLDataType t, int with_bits) {
  int16_t lanes = (int16_t)t.lanes;
  int k = 0;
  if (with_bits) k += snprintf(buf + k, cap - (size_t)k, "%u", (unsigned)t.bits);
  if (lanes > 1) {
    k += snprintf(buf + k, cap - (size_t)k, "x%d", (int)lanes);
  } else if (lanes < -1) {
    k += snprintf(buf + k, cap - (size_t)k, "xvscalex%d", -(int)lanes);
  }
  return k;
}

static int print_custom(DLDataType t, TVMFFIAny* out) {
  TVMFFIAny arg, result;
  tvmffi__any_set_int(&arg, t.code);
  int rc = call_custom_global("dtype.get_custom_type_name", &arg, &result);
  if (rc == 1)
    return tvmffi__raise("ValueError",
                         "cannot print custom dtype code %u: the global function "
                         "dtype.get_custom_type_name is not registered",
                         (unsigned)t.code);
  if (rc != 0) return -1;
  TVMFFIByteArray name;
  if (!tvmffi__any_as_str(&result, &name)) {
    tvmffi__raise("ValueError", "dtype.get_custom_type_name(%u) must return str, got `%s`",
                  (unsigned)t.code, tvmffi__any_type_key(&result));
    tvmffi__any_release(&result);
    return -1;
  }
  char suffix[32];
  int suffix_n = format_suffix(suffix, sizeof(suffix), t, 1);
  size_t total = 7 + name.size + 1 + (size_t)suffix_n;
  char* buf = malloc(total);
  if (buf == NULL) {
    tvmffi__any_release(&result);
    return tvmffi__raise_oom();
  }
  memcpy(buf, "custom[", 7);
  memcpy(buf + 7, name.data, name.size);
  buf[7 + name.size] = ']';
  memcpy(buf + 8 + name.size, suffix, (size_t)suffix_n);
  tvmffi__any_release(&result);
  rc = tvmffi__str_to_any(kTVMFFIStr, buf, total, out);
  free(buf);
  return rc;
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  if (dtype == NULL || out == NULL)
    return tvmffi__raise("ValueError", "TVMFFIDataTypeToString: dtype and out must not be NULL");
  DLDataType t = *dtype;
  char buf[DTYPE_SHORT_MAX];
  const char* base;
  int with_bits = 1;

  if (t.code == kDLOpaqueHandle) {
    /* void is (handle, 0, 0); any other handle prints without bits/lanes. */
    if (t.bits == 0 && t.lanes == 0) return tvmffi__str_to_any(kTVMFFIStr, "", 0, out);
    return tvmffi__str_to_any(kTVMFFIStr, "handle", 6, out);
  }
  if (t.code >= DTYPE_CUSTOM_BEGIN) return print_custom(t, out);
  switch (t.code) {
    case kDLInt:
      base = "int";
      break;
    case kDLUInt:
      base = "uint";
      break;
    case kDLFloat:
      base = "float";
      break;
    case kDLBfloat:
      base = "bfloat";
      break;
    case kDLComplex:
      base = "complex";
      break;
    case kDLBool:
      base = "bool";
      with_bits = t.bits != 8; /* "bool", "boolx4", but "bool1" */
      break;
    default:
      if (t.code >= kDLFloat8_e3m4 && t.code <= kDLFloat4_e2m1fn) {
        base = kSmallFloatNames[t.code - kDLFloat8_e3m4];
        with_bits = 0;
        break;
      }
      return tvmffi__raise("ValueError",
                           "cannot print dtype (code=%u, bits=%u, lanes=%u): unknown type code "
                           "%u",
                           (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes, (unsigned)t.code);
  }
  size_t base_n = strlen(base);
  memcpy(buf, base, base_n);
  int k = format_suffix(buf + base_n, sizeof(buf) - base_n, t, with_bits);
  return tvmffi__str_to_any(kTVMFFIStr, buf, base_n + (size_t)k, out);
}
