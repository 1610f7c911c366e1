/*
 * fuzz_dtype.c -- libFuzzer target for TVMFFIDataTypeFromString/ToString.
 *
 * Properties checked on every input:
 *  - parsing either succeeds with a clean error slot or fails with exactly
 *    one ValueError;
 *  - whatever parses also prints, and the printed text parses back to the
 *    same value (except the forms whose printing is lossy by spec: handle
 *    bits/lanes, zero bits, lanes that read as -1/0 in int16, and
 *    low-precision floats whose bits differ from their fixed width);
 *  - the first four bytes taken as a DLDataType either print, and the text
 *    parses again, or fail with a ValueError (unknown codes).
 * Custom types go through fake dtype.get_custom_type_code/name hooks that
 * are mutually consistent: code "t<N>" <-> N, any other name hashes to a code
 * in [129, 255]; names starting with '!' make the hook fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#define FUZZ_ASSERT(cond, ...)                    \
  do {                                            \
    if (!(cond)) {                                \
      fprintf(stderr, "fuzz_dtype: %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);               \
      fprintf(stderr, "\n");                      \
      abort();                                    \
    }                                             \
  } while (0)

/* Moves the raised error out, checks its kind, releases it. */
static void expect_error(const char* kind) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  FUZZ_ASSERT(err != NULL, "failure without a raised error");
  TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(err);
  FUZZ_ASSERT(c->kind.size == strlen(kind) && memcmp(c->kind.data, kind, c->kind.size) == 0,
              "kind %.*s, want %s (%.*s)", (int)c->kind.size, c->kind.data, kind,
              (int)c->message.size, c->message.data);
  FUZZ_ASSERT(c->message.data[c->message.size] == '\0', "message not NUL-terminated");
  TVMFFIObjectDecRef(err);
}

static void expect_clean(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  FUZZ_ASSERT(err == NULL, "success left an error raised");
}

static TVMFFIByteArray str_of(const TVMFFIAny* v) {
  if (v->type_index == kTVMFFISmallStr) return TVMFFISmallBytesGetContentByteArray(v);
  FUZZ_ASSERT(v->type_index == kTVMFFIStr, "printed value has type %d", v->type_index);
  return *TVMFFIBytesGetByteArrayPtr(v->v_obj);
}

static void release(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
}

static int lossy(DLDataType t) {
  int16_t lanes = (int16_t)t.lanes;
  if (t.code == kDLOpaqueHandle || lanes == 0 || lanes == -1 || t.bits == 0) return 1;
  /* Low-precision floats print no bits: only their natural width survives. */
  if (t.code >= kDLFloat8_e3m4 && t.code <= kDLFloat8_e8m0fnu) return t.bits != 8;
  if (t.code == kDLFloat6_e2m3fn || t.code == kDLFloat6_e3m2fn) return t.bits != 6;
  if (t.code == kDLFloat4_e2m1fn) return t.bits != 4;
  return 0;
}

/* Prints t (must succeed), re-parses the text (must succeed), and when the
 * form is not lossy checks the value survived. */
static void print_and_reparse(DLDataType t) {
  TVMFFIAny s;
  int rc = TVMFFIDataTypeToString(&t, &s);
  FUZZ_ASSERT(rc == 0, "printing (%u,%u,%u) failed", t.code, t.bits, t.lanes);
  expect_clean();
  TVMFFIByteArray text = str_of(&s);
  DLDataType back;
  rc = TVMFFIDataTypeFromString(&text, &back);
  FUZZ_ASSERT(rc == 0, "printed text \"%.*s\" does not parse", (int)text.size, text.data);
  expect_clean();
  if (!lossy(t)) {
    FUZZ_ASSERT(back.code == t.code && back.bits == t.bits && back.lanes == t.lanes,
                "(%u,%u,%u) -> \"%.*s\" -> (%u,%u,%u)", t.code, t.bits, t.lanes, (int)text.size,
                text.data, back.code, back.bits, back.lanes);
  }
  release(&s);
}

static int fake_code(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  FUZZ_ASSERT(n == 1 && args[0].type_index == kTVMFFIRawStr, "custom code hook argument");
  const char* name = args[0].v_c_str;
  if (name[0] == '!') {
    TVMFFIErrorSetRaisedFromCStr("ValueError", "fake hook rejects this name");
    return -1;
  }
  unsigned v = 0;
  if (name[0] == 't' && sscanf(name + 1, "%u", &v) == 1 && v >= 129 && v <= 255) {
    char back[16];
    snprintf(back, sizeof(back), "t%u", v);
    if (strcmp(back, name) != 0) v = 0; /* "t0130" etc.: hash like others */
  } else {
    v = 0;
  }
  if (v == 0) {
    uint32_t h = 2166136261u;
    for (const char* p = name; *p; ++p) h = (h ^ (uint8_t)*p) * 16777619u;
    v = 129 + h % 127;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = v;
  return 0;
}

static int fake_name(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  FUZZ_ASSERT(n == 1 && args[0].type_index == kTVMFFIInt, "custom name hook argument");
  char name[16];
  snprintf(name, sizeof(name), "t%lld", (long long)args[0].v_int64);
  TVMFFIByteArray ba = {name, strlen(name)};
  return TVMFFIStringFromByteArray(&ba, result);
}

static void register_hook(const char* name, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle f = NULL;
  FUZZ_ASSERT(TVMFFIFunctionCreate(NULL, fn, NULL, &f) == 0, "create %s", name);
  TVMFFIByteArray ba = {name, strlen(name)};
  FUZZ_ASSERT(TVMFFIFunctionSetGlobal(&ba, f, 1) == 0, "register %s", name);
  TVMFFIObjectDecRef(f);
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  register_hook("dtype.get_custom_type_code", fake_code);
  register_hook("dtype.get_custom_type_name", fake_name);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TVMFFIByteArray in = {(const char*)data, size};
  DLDataType t = {0xAB, 0xCD, 0xEF01};
  if (TVMFFIDataTypeFromString(&in, &t) == 0) {
    expect_clean();
    print_and_reparse(t);
  } else {
    expect_error("ValueError");
    FUZZ_ASSERT(t.code == 0xAB && t.bits == 0xCD && t.lanes == 0xEF01, "failure wrote out");
  }

  if (size >= 4) {
    DLDataType raw;
    memcpy(&raw, data, sizeof(raw));
    TVMFFIAny s;
    int known = raw.code <= kDLFloat4_e2m1fn || raw.code >= 129;
    if (TVMFFIDataTypeToString(&raw, &s) == 0) {
      FUZZ_ASSERT(known, "printed unknown code %u", raw.code);
      expect_clean();
      release(&s);
      print_and_reparse(raw);
    } else {
      /* Unknown codes (18..128). */
      FUZZ_ASSERT(!known, "printing known code %u failed", raw.code);
      expect_error("ValueError");
    }
  }
  return 0;
}
