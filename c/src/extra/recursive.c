/*
 * recursive.c -- ffi.RecursiveEq/Lt/Le/Gt/Ge/Hash (docs/abi.md §14.4): value
 * comparison that descends into containers and reflected fields.  Python's
 * container ==, != and hash, and the dataclass eq/order/hash, go through here.
 *
 * Rules (those of the apache-tvm-ffi runtime, so that values compare the same
 * on either implementation):
 *  - strict about kinds: int, bool and float are three kinds, so 1 != True
 *    and 1 != 1.0, and they hash apart; values of different kinds are unequal
 *    and ordering them raises TypeError;
 *  - None equals None and orders before every other value;
 *  - floats: NaN equals NaN (whatever its payload) and -0.0 equals 0.0, for
 *    equality and hash alike; ordering a NaN raises TypeError;
 *  - strings compare by content whatever their form (small, heap, raw view);
 *    bytes likewise; strings never equal bytes;
 *  - DataType orders by (code, bits, lanes), Device by (type, id), opaque
 *    pointers by address;
 *  - Array and List compare element-wise, lexicographically for the order
 *    tests; an Array never equals a List; Shape compares its extents the same
 *    way; Map/Dict compare as unordered key -> value sets (keys matched by the
 *    map's own key equality); under an order test equal maps are equal and
 *    unequal ones raise TypeError;
 *  - reflected objects of the same type compare field by field (ancestors
 *    first), skipping CompareOff fields; hashing also skips HashOff fields;
 *    objects with no reflected fields (functions, tensors, modules, ...) are
 *    all equal to the others of their type and hash by type alone;
 *  - a type's hooks replace the field walk (kEq/kCompare/kHash type attrs):
 *    equality uses __ffi_eq__(a, b, eq) -> bool, else __ffi_compare__(a, b,
 *    cmp) == 0; the order tests use __ffi_compare__ -> int (its sign); the
 *    hash is __ffi_hash__(a, hash) -> int as returned.  The callbacks passed
 *    in recurse with the caller's depth and cycle state.  A type with an eq
 *    or compare hook but no hash hook cannot hash consistently: ValueError.
 * The same object on both sides is equal without descending.  Cycles: the
 * pairs being compared are kept on a stack; meeting a pair again counts as
 * equal for equality (two distinct but alike cyclic graphs are equal) and
 * raises ValueError for the order tests, which would have no answer.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

#define RECURSIVE_MAX_DEPTH 1000

/* Three-way outcome; CMP_NE: unequal without an order (equality only). */
enum { CMP_LT = -1, CMP_EQ = 0, CMP_GT = 1, CMP_NE = 2 };

/* The object pairs under comparison, outermost first (cycle detection). */
typedef struct {
  const TVMFFIObject* a[RECURSIVE_MAX_DEPTH + 1];
  const TVMFFIObject* b[RECURSIVE_MAX_DEPTH + 1];
  int n;
  tvmffi__memo equal; /* pairs found equal: met again, they are not compared again */
} pair_stack;

/* order: 0 equality (never raises for kinds), 1 an order test (TypeError on
 * unorderable pairs), 2 the three-way callback of a __ffi_compare__ hook
 * (like 1).  pairs: NULL in a hook callback kept beyond its hook's call. */
typedef struct {
  int order;
  const char* name; /* global name for messages */
  pair_stack* pairs;
} cmp_ctx;

static int cmp_any(cmp_ctx* c, const TVMFFIAny* a, const TVMFFIAny* b, int depth, int* out);

static int unorderable(cmp_ctx* c, const TVMFFIAny* a, const TVMFFIAny* b, int* out) {
  if (!c->order) {
    *out = CMP_NE;
    return 0;
  }
  return tvmffi__raise("TypeError", "%s: '<' not supported between values of type `%s` and `%s`",
                       c->name, tvmffi__any_type_key(a), tvmffi__any_type_key(b));
}

static int sign3(int x) { return x < 0 ? CMP_LT : x > 0 ? CMP_GT : CMP_EQ; }

#define CMP3(x, y) ((x) < (y) ? CMP_LT : (x) > (y) ? CMP_GT : CMP_EQ)

static int cmp_bytes(TVMFFIByteArray x, TVMFFIByteArray y) {
  size_t n = x.size < y.size ? x.size : y.size;
  int r = n ? memcmp(x.data, y.data, n) : 0;
  if (r != 0) return sign3(r);
  return CMP3(x.size, y.size);
}

static int cmp_float(cmp_ctx* c, double x, double y, int* out) {
  if (isnan(x) || isnan(y)) {
    if (c->order) return tvmffi__raise("TypeError", "%s: cannot order NaN values", c->name);
    *out = isnan(x) && isnan(y) ? CMP_EQ : CMP_NE;
    return 0;
  }
  *out = CMP3(x, y); /* -0.0 == 0.0 */
  return 0;
}

static int cmp_seq(cmp_ctx* c, TVMFFIObject* a, TVMFFIObject* b, int depth, int* out) {
  TVMFFISeqCell* ca = TVMFFISeqGetCellPtr(a);
  TVMFFISeqCell* cb = TVMFFISeqGetCellPtr(b);
  if (!c->order && ca->size != cb->size) {
    *out = CMP_NE;
    return 0;
  }
  /* Re-read sizes each step: a getter cannot run here, but keep it robust. */
  for (int64_t i = 0; i < ca->size && i < cb->size; ++i) {
    int r;
    if (cmp_any(c, &((TVMFFIAny*)ca->data)[i], &((TVMFFIAny*)cb->data)[i], depth, &r) != 0)
      return -1;
    if (r != CMP_EQ) {
      *out = r;
      return 0;
    }
  }
  *out = CMP3(ca->size, cb->size);
  return 0;
}

static int cmp_map(cmp_ctx* c, TVMFFIObject* a, TVMFFIObject* b, int depth, int* out) {
  TVMFFIMapCell* ca = TVMFFIMapGetCellPtr(a);
  TVMFFIMapCell* cb = TVMFFIMapGetCellPtr(b);
  *out = CMP_NE;
  if (ca->size != cb->size) return 0;
  for (uint64_t p = TVMFFIMapCellIterBegin(ca); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(ca, p)) {
    uint64_t q;
    if (TVMFFIMapCellFind(cb, TVMFFIMapCellKey(ca, p), &q) != 0) return -1;
    if (q == TVMFFI_MAP_ITER_END) return 0;
    int r;
    if (cmp_any(c, TVMFFIMapCellValue(ca, p), TVMFFIMapCellValue(cb, q), depth, &r) != 0) return -1;
    if (r != CMP_EQ) return 0;
  }
  *out = CMP_EQ;
  return 0;
}

/* ---- type hooks (__ffi_eq__ / __ffi_compare__ / __ffi_hash__) ---------------- */

static const TVMFFITypeAttrColumn* g_eq_col;
static const TVMFFITypeAttrColumn* g_cmp_col;
static const TVMFFITypeAttrColumn* g_hash_col;

typedef struct hash_state hash_state;
static int hash_any(hash_state* st, const TVMFFIAny* v, uint64_t* out);

enum { CB_EQ, CB_CMP, CB_HASH };

/* What the callback handed to a hook recurses with.  The compare context
 * is copied; the hash state lives on the caller's stack, so it is cleared
 * when the hook returns and a callback kept beyond that starts afresh. */
typedef struct {
  int kind;
  cmp_ctx c;
  int depth;
  hash_state* st;
} hook_cb;

static int hook_cb_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  hook_cb* cb = (hook_cb*)self;
  if (cb->kind == CB_HASH) {
    if (tvmffi__args_count("__ffi_hash__ callback(0: Any) -> int", n, 1) != 0) return -1;
    uint64_t h;
    int rc = cb->st ? hash_any(cb->st, &args[0], &h) : tvmffi__recursive_hash(&args[0], &h);
    if (rc != 0) return -1;
    tvmffi__any_set_int(result, (int64_t)h);
    return 0;
  }
  if (tvmffi__args_count(cb->kind == CB_EQ ? "__ffi_eq__ callback(0: Any, 1: Any) -> bool"
                                           : "__ffi_compare__ callback(0: Any, 1: Any) -> int",
                         n, 2) != 0)
    return -1;
  int r;
  if (cmp_any(&cb->c, &args[0], &args[1], cb->depth, &r) != 0) return -1;
  if (cb->kind == CB_EQ) {
    tvmffi__any_set_bool(result, r == CMP_EQ);
    return 0;
  }
  tvmffi__any_set_int(result, r);
  return 0;
}

/* Calls hook(a, [b,] callback) and reads its int or bool result into *out. */
static int call_hook(TVMFFIObject* hook, const char* hook_name, const char* global, TVMFFIObject* a,
                     TVMFFIObject* b, const hook_cb* tmpl, int64_t* out) {
  hook_cb* cb = (hook_cb*)malloc(sizeof(hook_cb));
  if (cb == NULL) return tvmffi__raise_oom();
  *cb = *tmpl;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(cb, hook_cb_call, free, &f) != 0) {
    free(cb);
    return -1;
  }
  TVMFFIAny args[3], res; /* views: a, [b,] the callback */
  int32_t n = 0;
  tvmffi__any_set_obj(&args[n++], a);
  if (b != NULL) tvmffi__any_set_obj(&args[n++], b);
  tvmffi__any_set_obj(&args[n++], (TVMFFIObject*)f);
  tvmffi__any_set_none(&res);
  int rc = tvmffi__function_call(hook, args, n, &res);
  cb->st = NULL; /* the states die with this frame */
  cb->c.pairs = NULL;
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return -1;
  if (res.type_index != kTVMFFIInt && res.type_index != kTVMFFIBool) {
    const char* got = tvmffi__any_type_key(&res);
    rc = tvmffi__raise("TypeError", "%s: %s of `%s` returned `%s`, expected %s", global, hook_name,
                       tvmffi__type_key(a->type_index), got, tmpl->kind == CB_EQ ? "bool" : "int");
    tvmffi__any_release(&res);
    return rc;
  }
  *out = res.v_int64;
  return 0;
}

/* Compares a and b (same type, distinct) through the type's hooks: 0 done
 * (*out set), 1 no hook applies, -1 failed. */
static int cmp_hooked(cmp_ctx* c, TVMFFIObject* a, TVMFFIObject* b, int depth, int* out) {
  int32_t t = a->type_index;
  TVMFFIObject* eq = c->order == 0 ? tvmffi__ext_type_hook("__ffi_eq__", &g_eq_col, t) : NULL;
  TVMFFIObject* cmp = eq ? NULL : tvmffi__ext_type_hook("__ffi_compare__", &g_cmp_col, t);
  if (eq == NULL && cmp == NULL) return 1;
  /* The callback keeps equality as equality and gives the compare hook a
   * three-way order. */
  hook_cb cb = {eq ? CB_EQ : CB_CMP, {eq ? 0 : 2, c->name, c->pairs}, depth, NULL};
  int64_t r;
  if (call_hook(eq ? eq : cmp, eq ? "__ffi_eq__" : "__ffi_compare__", c->name, a, b, &cb, &r) != 0)
    return -1;
  if (eq)
    *out = r ? CMP_EQ : CMP_NE;
  else if (c->order == 0)
    *out = r == 0 ? CMP_EQ : CMP_NE;
  else
    *out = r < 0 ? CMP_LT : r > 0 ? CMP_GT : CMP_EQ;
  return 0;
}

/* Field-by-field over reflected fields, ancestors first. */
static int cmp_fields(cmp_ctx* c, TVMFFIObject* a, TVMFFIObject* b, int depth, int* out) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(a->type_index);
  for (int32_t d = 0; info != NULL && d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      if ((f->flags & kTVMFFIFieldFlagBitMaskCompareOff) || f->getter == NULL) continue;
      TVMFFIAny x, y;
      tvmffi__any_set_none(&x);
      tvmffi__any_set_none(&y);
      if (f->getter((char*)a + f->offset, &x) != 0) return -1;
      if (f->getter((char*)b + f->offset, &y) != 0) {
        tvmffi__any_release(&x);
        return -1;
      }
      int r;
      int rc = cmp_any(c, &x, &y, depth, &r);
      tvmffi__any_release(&x);
      tvmffi__any_release(&y);
      if (rc != 0) return -1;
      if (r != CMP_EQ) {
        *out = r;
        return 0;
      }
    }
  }
  *out = CMP_EQ;
  return 0;
}

static int cmp_obj_body(cmp_ctx* c, const TVMFFIAny* av, const TVMFFIAny* bv, int depth, int* out) {
  TVMFFIObject* a = av->v_obj;
  TVMFFIObject* b = bv->v_obj;
  int32_t t = a->type_index;
  if (t == kTVMFFIArray || t == kTVMFFIList) return cmp_seq(c, a, b, depth, out);
  if (t == kTVMFFIBigInt) {
    int r = tvmffi__big_int_compare(av, bv);
    *out = r < 0 ? CMP_LT : r > 0 ? CMP_GT : CMP_EQ;
    return 0;
  }
  if (t == kTVMFFIShape) {
    TVMFFIShapeCell* x = TVMFFIShapeGetCellPtr(a);
    TVMFFIShapeCell* y = TVMFFIShapeGetCellPtr(b);
    for (size_t i = 0; i < x->size && i < y->size; ++i)
      if (x->data[i] != y->data[i]) {
        *out = CMP3(x->data[i], y->data[i]);
        return 0;
      }
    *out = CMP3(x->size, y->size);
    return 0;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    if (cmp_map(c, a, b, depth, out) != 0) return -1;
    if (*out == CMP_EQ || c->order == 0) return 0;
    return unorderable(c, av, bv, out); /* maps have no order beyond equality */
  }
  int r = cmp_hooked(c, a, b, depth, out);
  if (r != 1) return r;
  if (t >= kTVMFFIDynObjectBegin && tvmffi__ext_num_fields(t) > 0)
    return cmp_fields(c, a, b, depth, out);
  *out = CMP_EQ; /* nothing reflected to tell them apart */
  return 0;
}

static int cmp_obj(cmp_ctx* c, const TVMFFIAny* av, const TVMFFIAny* bv, int depth, int* out) {
  TVMFFIObject* a = av->v_obj;
  TVMFFIObject* b = bv->v_obj;
  if (a->type_index != b->type_index) return unorderable(c, av, bv, out);
  if (a == b) { /* also what ends the walk of a self-containing List */
    *out = CMP_EQ;
    return 0;
  }
  pair_stack* ps = c->pairs;
  uint64_t known;
  /* (a pair met twice has a shared node on one side: tvmffi__ext_shared) */
  int memo = ps != NULL && (tvmffi__ext_shared(a) || tvmffi__ext_shared(b)) &&
             tvmffi__memo_enter(&ps->equal);
  if (memo && tvmffi__memo_get(&ps->equal, a, b, &known)) {
    *out = CMP_EQ;
    return 0;
  }
  if (ps != NULL) {
    for (int i = 0; i < ps->n; ++i)
      if (ps->a[i] == a && ps->b[i] == b) {
        if (c->order)
          return tvmffi__raise("ValueError",
                               "%s: cyclic reference: the values contain themselves, so they "
                               "have no order",
                               c->name);
        *out = CMP_EQ; /* assumed equal while being compared: the rest decides */
        return 0;
      }
    if (ps->n > RECURSIVE_MAX_DEPTH)
      return tvmffi__raise("RuntimeError", "%s: maximum recursion depth %d exceeded", c->name,
                           RECURSIVE_MAX_DEPTH);
    ps->a[ps->n] = a;
    ps->b[ps->n] = b;
    ps->n++;
  }
  int rc = cmp_obj_body(c, av, bv, depth, out);
  if (ps != NULL) {
    ps->n--;
    /* (unequal pairs need no memo: the first difference ends the whole comparison) */
    if (memo && rc == 0 && *out == CMP_EQ) tvmffi__memo_put(&ps->equal, a, b, 1);
  }
  return rc;
}

static int cmp_any(cmp_ctx* c, const TVMFFIAny* av, const TVMFFIAny* bv, int depth, int* out) {
  if (depth > RECURSIVE_MAX_DEPTH)
    return tvmffi__raise("RuntimeError", "%s: maximum recursion depth %d exceeded", c->name,
                         RECURSIVE_MAX_DEPTH);
  TVMFFIAny a = tvmffi__ext_peek(av), b = tvmffi__ext_peek(bv);
  TVMFFIByteArray x, y;
  if (a.type_index == kTVMFFINone || b.type_index == kTVMFFINone) {
    if (a.type_index == b.type_index)
      *out = CMP_EQ;
    else if (!c->order)
      *out = CMP_NE;
    else
      *out = a.type_index == kTVMFFINone ? CMP_LT : CMP_GT; /* None first */
    return 0;
  }
  if (tvmffi__any_as_str(&a, &x) && tvmffi__any_as_str(&b, &y)) {
    *out = cmp_bytes(x, y);
    return 0;
  }
  if (tvmffi__any_as_bytes(&a, &x) && tvmffi__any_as_bytes(&b, &y)) {
    *out = cmp_bytes(x, y);
    return 0;
  }
  if ((a.type_index == kTVMFFIInt && b.type_index == kTVMFFIBigInt) ||
      (a.type_index == kTVMFFIBigInt && b.type_index == kTVMFFIInt)) {
    *out = sign3(tvmffi__big_int_compare(&a, &b)); /* one integer order across both kinds */
    return 0;
  }
  if (a.type_index != b.type_index) return unorderable(c, &a, &b, out);
  switch (a.type_index) {
    case kTVMFFIInt:
    case kTVMFFIBool:
      *out = CMP3(a.v_int64, b.v_int64);
      return 0;
    case kTVMFFIFloat:
      return cmp_float(c, a.v_float64, b.v_float64, out);
    case kTVMFFIOpaquePtr:
    case kTVMFFIDLTensorPtr:
      *out = CMP3((uintptr_t)a.v_ptr, (uintptr_t)b.v_ptr);
      return 0;
    case kTVMFFIDataType: {
      DLDataType p = a.v_dtype, q = b.v_dtype;
      *out = p.code != q.code   ? CMP3(p.code, q.code)
             : p.bits != q.bits ? CMP3(p.bits, q.bits)
                                : CMP3(p.lanes, q.lanes);
      return 0;
    }
    case kTVMFFIDevice: {
      DLDevice p = a.v_device, q = b.v_device;
      *out = p.device_type != q.device_type ? CMP3(p.device_type, q.device_type)
                                            : CMP3(p.device_id, q.device_id);
      return 0;
    }
    default:
      if (a.type_index >= kTVMFFIStaticObjectBegin) return cmp_obj(c, &a, &b, depth + 1, out);
      *out = a.v_uint64 == b.v_uint64 ? CMP_EQ : CMP_NE;
      return *out == CMP_EQ || !c->order ? 0 : unorderable(c, &a, &b, out);
  }
}

static int compare(int order, const char* name, const TVMFFIAny* a, const TVMFFIAny* b, int* out) {
  pair_stack* ps = (pair_stack*)calloc(1, sizeof(pair_stack));
  if (ps == NULL) return tvmffi__raise_oom();
  ps->equal.hold = TVMFFI__MEMO_HOLD_A | TVMFFI__MEMO_HOLD_B;
  cmp_ctx c = {order, name, ps};
  int rc = cmp_any(&c, a, b, 0, out);
  tvmffi__memo_free(&ps->equal);
  free(ps);
  return rc;
}

int tvmffi__recursive_eq(const TVMFFIAny* a, const TVMFFIAny* b, int* out) {
  int r;
  if (compare(0, "ffi.RecursiveEq", a, b, &r) != 0) return -1;
  *out = r == CMP_EQ;
  return 0;
}

/* ---- hashing ------------------------------------------------------------------ */

#define HASH_NONE UINT64_C(0x6e6f6e65)
#define HASH_NAN UINT64_C(0x7ff8dead)
#define HASH_SEED_BYTES UINT64_C(0x62797465)
#define HASH_SEED_ARRAY UINT64_C(0x41727261)
#define HASH_SEED_LIST UINT64_C(0x4c697374)
#define HASH_SEED_MAP UINT64_C(0x4d617020)
#define HASH_SEED_DICT UINT64_C(0x44696374)
#define HASH_SEED_SHAPE UINT64_C(0x53686170)
#define HASH_CYCLE UINT64_C(0x6379636c)
#define HASH_SEED_BOOL UINT64_C(0x626f6f6c)
#define HASH_SEED_FLOAT UINT64_C(0x666c74)

struct hash_state {
  TVMFFIObject* stack[RECURSIVE_MAX_DEPTH + 1];
  int depth;
  /* Lowest stack index a cycle marker of the node being hashed pointed at: a node whose
   * hash met a cycle through one of its ancestors hashes differently from elsewhere, so
   * only nodes with low >= their own index go into the memo (Tarjan's low-link). */
  int low;
  tvmffi__memo done; /* node -> its hash */
};

static uint64_t hash_i64(int64_t x) {
  return TVMFFIContainerHashCombine(UINT64_C(0x696e74), (uint64_t)x);
}

typedef struct {
  hash_state* st;
  uint64_t h;
} field_hash_ctx;

static int hash_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  (void)f;
  field_hash_ctx* fc = (field_hash_ctx*)ctx;
  uint64_t h;
  if (hash_any(fc->st, v, &h) != 0) return -1;
  fc->h = TVMFFIContainerHashCombine(fc->h, h);
  return 0;
}

/* Hashes obj through its type's __ffi_hash__: 0 done, 1 no hook, -1 failed
 * (also when only __ffi_eq__ / __ffi_compare__ exist: equal objects would
 * hash apart). */
static int hash_hooked(hash_state* st, TVMFFIObject* obj, uint64_t* out) {
  int32_t t = obj->type_index;
  TVMFFIObject* hook = tvmffi__ext_type_hook("__ffi_hash__", &g_hash_col, t);
  if (hook == NULL) {
    if (tvmffi__ext_type_hook("__ffi_eq__", &g_eq_col, t) == NULL &&
        tvmffi__ext_type_hook("__ffi_compare__", &g_cmp_col, t) == NULL)
      return 1;
    return tvmffi__raise("ValueError",
                         "ffi.RecursiveHash: type '%s' defines __ffi_eq__ or __ffi_compare__ but "
                         "not __ffi_hash__; register a __ffi_hash__ hook so that RecursiveEq(a, "
                         "b) implies RecursiveHash(a) == RecursiveHash(b)",
                         tvmffi__type_key(t));
  }
  hook_cb cb = {CB_HASH, {0, "ffi.RecursiveHash", NULL}, 0, st};
  int64_t h;
  if (call_hook(hook, "__ffi_hash__", "ffi.RecursiveHash", obj, NULL, &cb, &h) != 0) return -1;
  *out = (uint64_t)h;
  return 0;
}

static int hash_obj_body(hash_state* st, TVMFFIObject* obj, uint64_t* out);

static int hash_obj(hash_state* st, TVMFFIObject* obj, uint64_t* out) {
  for (int i = 0; i < st->depth; ++i)
    if (st->stack[i] == obj) {
      *out = HASH_CYCLE;
      if (i < st->low) st->low = i;
      return 0;
    }
  int memo = tvmffi__ext_shared(obj) && tvmffi__memo_enter(&st->done);
  if (memo && tvmffi__memo_get(&st->done, obj, NULL, out)) return 0;
  if (st->depth >= RECURSIVE_MAX_DEPTH)
    return tvmffi__raise("RuntimeError", "ffi.RecursiveHash: maximum recursion depth %d exceeded",
                         RECURSIVE_MAX_DEPTH);
  int me = st->depth, outer_low = st->low;
  st->low = INT_MAX;
  int rc = hash_obj_body(st, obj, out);
  if (memo && rc == 0 && st->low >= me) tvmffi__memo_put(&st->done, obj, NULL, *out);
  if (outer_low < st->low) st->low = outer_low;
  return rc;
}

static int hash_obj_body(hash_state* st, TVMFFIObject* obj, uint64_t* out) {
  int32_t t = obj->type_index;
  st->stack[st->depth++] = obj;
  int rc = 0;
  uint64_t h;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* c = TVMFFISeqGetCellPtr(obj);
    h = t == kTVMFFIArray ? HASH_SEED_ARRAY : HASH_SEED_LIST;
    for (int64_t i = 0; rc == 0 && i < c->size; ++i) {
      uint64_t e;
      rc = hash_any(st, &((TVMFFIAny*)c->data)[i], &e);
      h = TVMFFIContainerHashCombine(h, e);
    }
  } else if (t == kTVMFFIMap || t == kTVMFFIDict) {
    /* Order-independent: equal maps may differ in insertion order. */
    TVMFFIMapCell* c = TVMFFIMapGetCellPtr(obj);
    uint64_t sum = 0;
    for (uint64_t p = TVMFFIMapCellIterBegin(c); rc == 0 && p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(c, p)) {
      uint64_t k = 0, v = 0;
      rc = hash_any(st, TVMFFIMapCellKey(c, p), &k);
      if (rc == 0) rc = hash_any(st, TVMFFIMapCellValue(c, p), &v);
      sum += TVMFFIContainerHashCombine(k, v);
    }
    h = TVMFFIContainerHashCombine(t == kTVMFFIMap ? HASH_SEED_MAP : HASH_SEED_DICT, sum);
  } else if (t == kTVMFFIBigInt) {
    TVMFFIAny v = {kTVMFFIBigInt, {0}, {0}};
    v.v_obj = obj;
    TVMFFIByteArray w = TVMFFIBigIntGetContentByteArray(&v);
    h = TVMFFIContainerHashBytes(w.data, w.size);
  } else if (t == kTVMFFIShape) {
    TVMFFIShapeCell* c = TVMFFIShapeGetCellPtr(obj);
    h = HASH_SEED_SHAPE;
    for (size_t i = 0; i < c->size; ++i) h = TVMFFIContainerHashCombine(h, (uint64_t)c->data[i]);
  } else {
    h = 0;
    rc = hash_hooked(st, obj, &h); /* 1: the type has no hash hook */
    if (rc == 1 && t >= kTVMFFIDynObjectBegin && tvmffi__ext_num_fields(t) > 0) {
      /* Skip what equality skips too, or equal objects could hash apart. */
      field_hash_ctx fc = {st, tvmffi__type_info_lookup(t)->type_key_hash};
      rc = tvmffi__ext_visit_fields(
          obj, kTVMFFIFieldFlagBitMaskCompareOff | kTVMFFIFieldFlagBitMaskHashOff, hash_field, &fc);
      h = fc.h;
    } else if (rc == 1) { /* no reflected fields: equal to every other of its type */
      rc = 0;
      const TVMFFITypeInfo* info = tvmffi__type_info_lookup(t);
      h = TVMFFIContainerHashCombine((uint64_t)t, info ? info->type_key_hash : 0);
    }
  }
  st->depth--;
  *out = h;
  return rc;
}

static int hash_any(hash_state* st, const TVMFFIAny* view, uint64_t* out) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  TVMFFIByteArray ba;
  if (tvmffi__any_as_str(&v, &ba)) {
    *out = TVMFFIContainerHashBytes(ba.data, ba.size);
    return 0;
  }
  if (tvmffi__any_as_bytes(&v, &ba)) {
    *out = TVMFFIContainerHashCombine(HASH_SEED_BYTES, TVMFFIContainerHashBytes(ba.data, ba.size));
    return 0;
  }
  switch (v.type_index) {
    case kTVMFFINone:
      *out = HASH_NONE;
      return 0;
    case kTVMFFIInt:
      *out = hash_i64(v.v_int64);
      return 0;
    case kTVMFFIBool:
      *out = TVMFFIContainerHashCombine(HASH_SEED_BOOL, (uint64_t)(v.v_int64 != 0));
      return 0;
    case kTVMFFIFloat: {
      double x = v.v_float64;
      if (isnan(x)) { /* every NaN equals every other */
        *out = HASH_NAN;
      } else {
        if (x == 0) x = 0.0; /* -0.0 equals 0.0 */
        uint64_t bits;
        memcpy(&bits, &x, sizeof(bits));
        *out = TVMFFIContainerHashCombine(HASH_SEED_FLOAT, bits);
      }
      return 0;
    }
    default:
      if (v.type_index >= kTVMFFIStaticObjectBegin) return hash_obj(st, v.v_obj, out);
      *out = TVMFFIContainerHashCombine((uint64_t)v.type_index, v.v_uint64);
      return 0;
  }
}

int tvmffi__recursive_hash(const TVMFFIAny* a, uint64_t* out) {
  hash_state* st = (hash_state*)calloc(1, sizeof(hash_state));
  if (st == NULL) return tvmffi__raise_oom();
  st->low = INT_MAX;
  st->done.hold = TVMFFI__MEMO_HOLD_A;
  int rc = hash_any(st, a, out);
  tvmffi__memo_free(&st->done);
  free(st);
  return rc;
}

/* ---- globals -------------------------------------------------------------------- */

static int recursive_hash(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)self;
  if (tvmffi__args_count("ffi.RecursiveHash(0: Any) -> int", n, 1) != 0) return -1;
  uint64_t h;
  if (tvmffi__recursive_hash(&args[0], &h) != 0) return -1;
  tvmffi__any_set_int(result, (int64_t)h);
  return 0;
}

/* which: 0 eq, 1 lt, 2 le, 3 gt, 4 ge */
static int compare_global(const char* sig, const char* name, int which, const TVMFFIAny* args,
                          int32_t n, TVMFFIAny* result) {
  if (tvmffi__args_count(sig, n, 2) != 0) return -1;
  int r;
  if (compare(which != 0, name, &args[0], &args[1], &r) != 0) return -1;
  int v = 0;
  switch (which) {
    case 0:
      v = r == CMP_EQ;
      break;
    case 1:
      v = r == CMP_LT;
      break;
    case 2:
      v = r == CMP_LT || r == CMP_EQ;
      break;
    case 3:
      v = r == CMP_GT;
      break;
    default:
      v = r == CMP_GT || r == CMP_EQ;
      break;
  }
  tvmffi__any_set_bool(result, v);
  return 0;
}

#define COMPARE_FN(fn, NAME, which)                                                       \
  static int fn(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {        \
    (void)self;                                                                           \
    return compare_global(NAME "(0: Any, 1: Any) -> bool", NAME, which, args, n, result); \
  }
COMPARE_FN(recursive_eq, "ffi.RecursiveEq", 0)
COMPARE_FN(recursive_lt, "ffi.RecursiveLt", 1)
COMPARE_FN(recursive_le, "ffi.RecursiveLe", 2)
COMPARE_FN(recursive_gt, "ffi.RecursiveGt", 3)
COMPARE_FN(recursive_ge, "ffi.RecursiveGe", 4)

void tvmffi__recursive_globals_init(void) {
  const char* cmp = SCHEMA_FN("bool", ARG("Any") ARG("Any"));
  tvmffi__register_global("ffi.RecursiveEq", recursive_eq, "Recursive structural equality.", cmp);
  tvmffi__register_global("ffi.RecursiveLt", recursive_lt, "Recursive a < b.", cmp);
  tvmffi__register_global("ffi.RecursiveLe", recursive_le, "Recursive a <= b.", cmp);
  tvmffi__register_global("ffi.RecursiveGt", recursive_gt, "Recursive a > b.", cmp);
  tvmffi__register_global("ffi.RecursiveGe", recursive_ge, "Recursive a >= b.", cmp);
  tvmffi__register_global("ffi.RecursiveHash", recursive_hash,
                          "Hash consistent with ffi.RecursiveEq.", SCHEMA_FN("int", ARG("Any")));
}
