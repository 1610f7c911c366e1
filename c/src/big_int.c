/*
 * big_int.c -- ffi.BigInt (static index 78, since ABI 0.1.16): integers that
 * do not fit int64_t (see tvm_ffi_string(3)).
 *
 * Layout: { TVMFFIObject header; size_t num_words; int64_t words[num_words] },
 * words least-significant first, two's complement, native byte order, in the
 * minimal form (no redundant sign word) and never for a value that fits
 * int64_t: such a value is always a kTVMFFIInt.  So two integers are equal
 * exactly when their word sequences are, whatever their kind.
 */
#include <string.h>

#include "internal.h"

typedef struct {
  TVMFFIObject header;
  size_t num_words; /* +24 */
  int64_t words[];  /* +32 */
} big_int;

/* Number of words of the minimal form of w[0..n). */
static size_t minimal_words(const int64_t* w, size_t n) {
  while (n > 1 && ((w[n - 1] == 0 && w[n - 2] >= 0) || (w[n - 1] == -1 && w[n - 2] < 0))) --n;
  return n;
}

int tvmffi__big_int_from_words(const int64_t* w, size_t n, TVMFFIAny* out) {
  n = minimal_words(w, n);
  if (n <= 1) {
    tvmffi__any_set_int(out, n == 0 ? 0 : w[0]);
    return 0;
  }
  if (n > (SIZE_MAX - sizeof(big_int)) / sizeof(int64_t)) return tvmffi__raise_oom();
  big_int* b = (big_int*)tvmffi__object_alloc_uninit(sizeof(big_int) + n * sizeof(int64_t),
                                                     kTVMFFIBigInt, tvmffi__object_deleter_plain);
  if (b == NULL) return -1;
  b->num_words = n;
  memcpy(b->words, w, n * sizeof(int64_t));
  tvmffi__any_set_obj(out, &b->header);
  return 0;
}

TVM_FFI_DLL int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  if (input->size % sizeof(int64_t) != 0)
    return tvmffi__raise(
        "ValueError", "BigInt content must contain whole 64-bit words, got %zu bytes", input->size);
  size_t n = input->size / sizeof(int64_t);
  if (n <= 2 || ((uintptr_t)input->data % _Alignof(int64_t)) == 0)
    return tvmffi__big_int_from_words((const int64_t*)(const void*)input->data, n, out);
  int64_t* copy = (int64_t*)malloc(input->size); /* unaligned input: words copied first */
  if (copy == NULL) return tvmffi__raise_oom();
  memcpy(copy, input->data, input->size);
  int rc = tvmffi__big_int_from_words(copy, n, out);
  free(copy);
  return rc;
}

TVM_FFI_DLL TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value) {
  TVMFFIByteArray out = {NULL, 0};
  if (value->type_index == kTVMFFIInt || value->type_index == kTVMFFIBool) {
    out.data = (const char*)&value->v_int64;
    out.size = sizeof(int64_t);
  } else if (value->type_index == kTVMFFIBigInt) {
    const big_int* b = (const big_int*)value->v_obj;
    out.data = (const char*)b->words;
    out.size = b->num_words * sizeof(int64_t);
  }
  return out;
}

/* Words of an Int or BigInt value (a one-word view of an Int). */
static const int64_t* words_of(const TVMFFIAny* v, size_t* n) {
  if (v->type_index == kTVMFFIBigInt) {
    *n = ((const big_int*)v->v_obj)->num_words;
    return ((const big_int*)v->v_obj)->words;
  }
  *n = 1;
  return &v->v_int64;
}

int tvmffi__big_int_compare(const TVMFFIAny* a, const TVMFFIAny* b) {
  size_t na, nb;
  const int64_t* x = words_of(a, &na);
  const int64_t* y = words_of(b, &nb);
  int sa = x[na - 1] < 0, sb = y[nb - 1] < 0;
  if (sa != sb) return sa ? -1 : 1;
  if (na != nb) return (na < nb) != sa ? -1 : 1; /* minimal forms: longer is larger in magnitude */
  if (x[na - 1] != y[na - 1]) return x[na - 1] < y[na - 1] ? -1 : 1;
  for (size_t i = na - 1; i-- > 0;)
    if (x[i] != y[i]) return (uint64_t)x[i] < (uint64_t)y[i] ? -1 : 1;
  return 0;
}

int tvmffi__big_int_to_decimal(const TVMFFIAny* v, tvmffi__buf* out) {
  size_t n;
  const int64_t* w = words_of(v, &n);
  int negative = w[n - 1] < 0;
  /* magnitude as 32-bit limbs, least significant first */
  size_t nl = 2 * n;
  uint32_t* limbs = (uint32_t*)malloc(nl * sizeof(uint32_t));
  char* digits = (char*)malloc(nl * 10 + 2);
  if (limbs == NULL || digits == NULL) {
    free(limbs);
    free(digits);
    return tvmffi__raise_oom();
  }
  uint64_t carry = negative;
  for (size_t i = 0; i < n; ++i) {
    uint64_t word = negative ? ~(uint64_t)w[i] : (uint64_t)w[i];
    uint64_t lo = (word & 0xFFFFFFFFu) + carry;
    carry = lo >> 32;
    uint64_t hi = (word >> 32) + carry;
    carry = hi >> 32;
    limbs[2 * i] = (uint32_t)lo;
    limbs[2 * i + 1] = (uint32_t)hi;
  }
  size_t nd = 0;
  while (nl > 0) {
    uint64_t rem = 0;
    for (size_t i = nl; i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = (uint32_t)(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (nl > 0 && limbs[nl - 1] == 0) --nl;
    for (int k = 0; k < 9 && (nl > 0 || rem > 0); ++k, rem /= 10)
      digits[nd++] = (char)('0' + rem % 10);
  }
  if (nd == 0) digits[nd++] = '0';
  if (negative) digits[nd++] = '-';
  for (size_t i = 0; i < nd / 2; ++i) {
    char t = digits[i];
    digits[i] = digits[nd - 1 - i];
    digits[nd - 1 - i] = t;
  }
  int rc = tvmffi__buf_append(out, digits, nd);
  free(limbs);
  free(digits);
  return rc == 0 ? 0 : tvmffi__raise_oom();
}

int tvmffi__big_int_from_decimal(const char* s, size_t n, TVMFFIAny* out) {
  size_t i = n > 0 && (s[0] == '+' || s[0] == '-');
  int negative = i == 1 && s[0] == '-';
  if (i == n) return 1;
  for (size_t k = i; k < n; ++k)
    if (s[k] < '0' || s[k] > '9') return 1; /* also a NUL inside the text */
  /* magnitude as 32-bit limbs (3.3 bits a digit), then words, then the sign */
  size_t nl = (n - i) / 9 + 2, used = 0;
  uint32_t* limbs = (uint32_t*)calloc(nl, sizeof(uint32_t));
  int64_t* words = (int64_t*)calloc(nl / 2 + 2, sizeof(int64_t));
  if (limbs == NULL || words == NULL) {
    free(limbs);
    free(words);
    return tvmffi__raise_oom();
  }
  while (i < n) {
    uint32_t chunk = 0, scale = 1;
    for (int k = 0; k < 9 && i < n; ++k, ++i) {
      chunk = chunk * 10 + (uint32_t)(s[i] - '0');
      scale *= 10;
    }
    uint64_t carry = chunk;
    for (size_t k = 0; k < used; ++k) {
      uint64_t cur = (uint64_t)limbs[k] * scale + carry;
      limbs[k] = (uint32_t)cur;
      carry = cur >> 32;
    }
    if (carry != 0) limbs[used++] = (uint32_t)carry;
  }
  size_t nw = used / 2 + 2;
  for (size_t k = 0; k < used; ++k) words[k / 2] |= (int64_t)((uint64_t)limbs[k] << (32 * (k % 2)));
  if (negative) { /* two's complement: ~w + 1 */
    uint64_t carry = 1;
    for (size_t k = 0; k < nw; ++k) {
      uint64_t w = ~(uint64_t)words[k] + carry;
      carry = carry && w == 0;
      words[k] = (int64_t)w;
    }
  }
  int rc = tvmffi__big_int_from_words(words, nw, out);
  free(limbs);
  free(words);
  return rc;
}

/* Map keys: equal values hash alike (FNV-1a over the words).  Native hooks
 * return their result as a TVMFFIAny (c_container.h, apache's convention). */
static TVMFFIAny any_hash(const TVMFFIAny* v) {
  size_t n;
  const int64_t* w = words_of(v, &n);
  uint64_t h = UINT64_C(1469598103934665603);
  for (size_t i = 0; i < n; ++i) h = (h ^ (uint64_t)w[i]) * UINT64_C(1099511628211);
  TVMFFIAny r = {kTVMFFIInt, {0}, {0}};
  r.v_int64 = (int64_t)h;
  return r;
}

static TVMFFIAny any_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  TVMFFIAny r = {kTVMFFIBool, {0}, {0}};
  r.v_int64 = tvmffi__big_int_compare(a, b) == 0;
  return r;
}

/* Stored wrapped like any native hook (native_hook.c), its convention known. */
static void register_native(const char* name, void* fn) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIAny v;
  if (tvmffi__native_hook_wrap(kTVMFFIBigInt, name[6] == 'e', fn, 1, &v) != 0 ||
      TVMFFITypeRegisterAttr(kTVMFFIBigInt, &n, &v) != 0)
    tvmffi__fatal("cannot register ffi.BigInt's %s", name);
  tvmffi__any_release(&v);
}

void tvmffi__big_int_globals_init(void) {
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.doc.data = "Integer beyond int64_t: two's complement words, least significant first.";
  md.doc.size = strlen(md.doc.data);
  md.total_size = (int32_t)sizeof(big_int);
  md.structural_eq_hash_kind = kTVMFFISEqHashKindConstTreeNode;
  if (TVMFFITypeRegisterMetadata(kTVMFFIBigInt, &md) != 0)
    tvmffi__fatal("cannot register the metadata of ffi.BigInt");
  TVMFFIAny (*hash)(const TVMFFIAny*) = any_hash;
  TVMFFIAny (*equal)(const TVMFFIAny*, const TVMFFIAny*) = any_equal;
  void* p;
  memcpy(&p, &hash, sizeof(p));
  register_native("__any_hash__", p);
  memcpy(&p, &equal, sizeof(p));
  register_native("__any_equal__", p);
}
