/*
 * native_hook.c -- native `__any_hash__` / `__any_equal__` hooks, each called
 * in the convention of the headers its library was built with: 0.1.9-0.1.14's
 * int64_t / bool functions or 0.1.15's TVMFFIAny adapters.  Registration
 * stores each one wrapped in an ffi.Function (reflection.c), and the wrapper
 * learns the convention from the hook's first results; the rule and its
 * grounds are docs/abi.md §5.6.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if (defined(__x86_64__) && !defined(_WIN32)) || defined(__aarch64__) || \
    (defined(__riscv) && __riscv_xlen == 64)
#define CAN_TELL 1
#else
#define CAN_TELL 0
#endif

/* The probe calls an older hook through the 0.1.15 type on purpose. */
#if defined(__clang__)
#define PROBE_CALL __attribute__((no_sanitize("function")))
#else
#define PROBE_CALL
#endif

enum { CONV_UNKNOWN, CONV_OLDER, CONV_ANY };

typedef struct {
  void* fn;
  int32_t type_index;
  int is_equal;
  int conv; /* CONV_*, read and written atomically: every caller learns the same */
} native_hook;

typedef TVMFFIAny (*any_hash_fn)(const TVMFFIAny*);
typedef TVMFFIAny (*any_equal_fn)(const TVMFFIAny*, const TVMFFIAny*);
typedef int64_t (*older_hash_fn)(const TVMFFIAny*);
typedef bool (*older_equal_fn)(const TVMFFIAny*, const TVMFFIAny*);

static const char* hook_name(const native_hook* h) {
  return h->is_equal ? "__any_equal__" : "__any_hash__";
}

/* Calls h as a 0.1.15 hook (a is b's stand-in for equality when b is NULL). */
static PROBE_CALL TVMFFIAny call_any(const native_hook* h, const TVMFFIAny* a, const TVMFFIAny* b) {
  if (h->is_equal) {
    any_equal_fn f;
    memcpy(&f, &h->fn, sizeof(f)); /* ISO C has no object-to-function pointer cast */
    return f(a, b != NULL ? b : a);
  }
  any_hash_fn f;
  memcpy(&f, &h->fn, sizeof(f));
  return f(a);
}

/* First eightbyte of a result: what both conventions return in one register. */
static uint64_t first_word(const TVMFFIAny* r) {
  return (uint64_t)(uint32_t)r->type_index | (uint64_t)r->zero_padding << 32;
}

static void release(TVMFFIAny* r) {
  if (r->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(r->v_obj);
}

/* The convention an equality hook's result shows, or CONV_UNKNOWN (a result
 * neither convention gives). */
static int equal_conv(const TVMFFIAny* r) {
  uint8_t low = (uint8_t)first_word(r);
  if (low <= 1) return CONV_OLDER;
  if (first_word(r) == kTVMFFIBool || first_word(r) == kTVMFFIError) return CONV_ANY;
  return CONV_UNKNOWN;
}

/* The native __any_equal__ hook of type t, if its library registered one. */
static native_hook* equal_sibling(int32_t t);

/* The convention of a hash hook whose result was 1 or 67, learnt from the
 * type's equality hook (probed with (v, v) once), or CONV_UNKNOWN. */
static int conv_from_sibling(const native_hook* h, const TVMFFIAny* v) {
  native_hook* e = equal_sibling(h->type_index);
  if (e == NULL) return CONV_UNKNOWN;
  int conv = __atomic_load_n(&e->conv, __ATOMIC_ACQUIRE);
  if (conv != CONV_UNKNOWN) return conv;
  TVMFFIAny r = call_any(e, v, NULL);
  conv = equal_conv(&r);
  if (conv == CONV_ANY) release(&r);
  if (conv != CONV_UNKNOWN) __atomic_store_n(&e->conv, conv, __ATOMIC_RELEASE);
  return conv;
}

static int hook_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  native_hook* h = (native_hook*)self;
  if (n != 1 + h->is_equal)
    return tvmffi__raise("TypeError", "%s hook of `%s` expects %d argument(s), got %d",
                         hook_name(h), tvmffi__type_key(h->type_index), 1 + h->is_equal, (int)n);
  const TVMFFIAny *a = &args[0], *b = h->is_equal ? &args[1] : NULL;
  int conv = CAN_TELL ? __atomic_load_n(&h->conv, __ATOMIC_ACQUIRE) : CONV_ANY;
  if (conv == CONV_OLDER) {
    if (h->is_equal) {
      older_equal_fn f;
      memcpy(&f, &h->fn, sizeof(f));
      tvmffi__any_set_bool(result, f(a, b));
    } else {
      older_hash_fn f;
      memcpy(&f, &h->fn, sizeof(f));
      tvmffi__any_set_int(result, f(a));
    }
    return 0;
  }
  TVMFFIAny r = call_any(h, a, b);
  if (conv == CONV_UNKNOWN) {
    int learnt = CONV_UNKNOWN;
    if (h->is_equal) {
      learnt = equal_conv(&r);
    } else if (first_word(&r) != kTVMFFIInt && first_word(&r) != kTVMFFIError) {
      learnt = CONV_OLDER;
    } else {
      learnt = conv_from_sibling(h, a);
      conv = CONV_OLDER; /* without a sibling: for this call only */
    }
    if (learnt != CONV_UNKNOWN) __atomic_store_n(&h->conv, conv = learnt, __ATOMIC_RELEASE);
  }
  if (conv == CONV_OLDER) {
    if (h->is_equal)
      tvmffi__any_set_bool(result, (uint8_t)first_word(&r) != 0);
    else
      tvmffi__any_set_int(result, (int64_t)first_word(&r));
    return 0;
  }
  if (conv == CONV_ANY && r.type_index == (h->is_equal ? kTVMFFIBool : kTVMFFIInt)) {
    *result = r;
    return 0;
  }
  if (conv == CONV_ANY && r.type_index == kTVMFFIError) {
    TVMFFIErrorSetRaised(r.v_obj);
    release(&r);
    return -1;
  }
  if (conv == CONV_ANY) release(&r);
  return tvmffi__raise("TypeError", "%s hook of `%s` returned neither %s nor an ffi.Error",
                       hook_name(h), tvmffi__type_key(h->type_index),
                       h->is_equal ? "a bool" : "an int");
}

static native_hook* equal_sibling(int32_t t) {
  static const TVMFFITypeAttrColumn* col;
  const TVMFFITypeAttrColumn* c = __atomic_load_n(&col, __ATOMIC_ACQUIRE);
  if (c == NULL) {
    TVMFFIByteArray name = {"__any_equal__", 13};
    c = TVMFFIGetTypeAttrColumn(&name);
    if (c == NULL) return NULL;
    __atomic_store_n(&col, c, __ATOMIC_RELEASE);
  }
  int32_t i = t - c->begin_index;
  if (i < 0 || i >= c->size || c->data[i].type_index != kTVMFFIFunction) return NULL;
  native_hook* e = (native_hook*)tvmffi__function_self_of(c->data[i].v_obj, hook_call);
  return e != NULL && e->is_equal ? e : NULL;
}

int tvmffi__native_hook_attr(const TVMFFIByteArray* name) {
  if (name->size == 12 && memcmp(name->data, "__any_hash__", 12) == 0) return 1;
  if (name->size == 13 && memcmp(name->data, "__any_equal__", 13) == 0) return 2;
  return 0;
}

int tvmffi__native_hook_wrap(int32_t type_index, int is_equal, void* fn, int known_015,
                             TVMFFIAny* out) {
  if (fn == NULL)
    return tvmffi__raise("ValueError", "%s of `%s`: the native hook is a null pointer",
                         is_equal ? "__any_equal__" : "__any_hash__", tvmffi__type_key(type_index));
  native_hook* h = (native_hook*)malloc(sizeof(*h));
  if (h == NULL) return tvmffi__raise_oom();
  h->fn = fn;
  h->type_index = type_index;
  h->is_equal = is_equal;
  h->conv = known_015 ? CONV_ANY : CONV_UNKNOWN;
  TVMFFIObjectHandle f;
  if (TVMFFIFunctionCreate(h, hook_call, free, &f) != 0) {
    free(h);
    return -1;
  }
  tvmffi__any_set_obj(out, (TVMFFIObject*)f);
  return 0;
}
