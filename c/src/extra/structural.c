/*
 * structural.c -- ffi.StructuralEqual, ffi.StructuralHash,
 * ffi.GetFirstStructuralMismatch, ffi.StructuralKey / StructuralKeyEqual
 * (docs/abi.md §14.4).
 *
 * Unlike ffi.RecursiveEq (Python's ==), structural equality is exact about
 * kinds: 1 != 1.0 != True, an Array never equals a List, floats compare by
 * bits except that NaN equals NaN.  Strings and bytes compare by content
 * whatever their form.  Objects follow their type's structural_eq_hash_kind:
 *  - TreeNode / ConstTreeNode / DAGNode: reflected fields, ancestors first,
 *    skipping SEqHashIgnore fields; a field flagged SEqHashDefRecursive /
 *    SEqHashDefNonRecursive is compared in a def region (recursive: every
 *    free variable below it, those a variable's fields hold included;
 *    non-recursive: only those directly in it);
 *  - FreeVar: the same object, or -- with map_free_vars or inside a def
 *    region -- any variable with equal fields, bound one-to-one to it for the
 *    rest of the comparison; DAGNode pairs are bound the same way, so shared
 *    sub-graphs must correspond;
 *  - UniqueInstance: identity;
 *  - Unsupported, or a type without metadata (functions, modules, ...):
 *    TypeError.
 * Tensors compare dtype, shape, device and (unless skip_tensor_content) the
 * bytes of contiguous CPU tensors.  The hash is consistent with equality:
 * bound variables hash by the order they are first met, maps hash
 * independently of their iteration order.
 */
#include <math.h>
#include <string.h>

#include "structural.h"

#define STRUCTURAL_MAX_DEPTH 1000

/* ---- pointer map (variable bindings) ------------------------------------- */

typedef struct {
  uintptr_t* slots; /* pairs key, value; key 0 = empty */
  size_t cap;       /* power of two, in pairs */
  size_t size;
} ptrmap;

static size_t ptr_slot(uintptr_t k, size_t cap) {
  return (size_t)((k >> 4) * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (cap - 1);
}

static uintptr_t ptrmap_get(const ptrmap* m, const void* key) {
  if (m->size == 0) return 0;
  uintptr_t k = (uintptr_t)key;
  for (size_t i = ptr_slot(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->slots[2 * i] == k) return m->slots[2 * i + 1];
    if (m->slots[2 * i] == 0) return 0;
  }
}

static int ptrmap_put(ptrmap* m, const void* key, uintptr_t value) {
  if (2 * (m->size + 1) > m->cap) {
    size_t ncap = m->cap ? 2 * m->cap : 16;
    uintptr_t* ns = (uintptr_t*)calloc(2 * ncap, sizeof(uintptr_t));
    if (ns == NULL) return tvmffi__raise_oom();
    for (size_t i = 0; i < m->cap; ++i) {
      uintptr_t k = m->slots[2 * i];
      if (k == 0) continue;
      size_t j = ptr_slot(k, ncap);
      while (ns[2 * j] != 0) j = (j + 1) & (ncap - 1);
      ns[2 * j] = k;
      ns[2 * j + 1] = m->slots[2 * i + 1];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
  }
  uintptr_t k = (uintptr_t)key;
  size_t i = ptr_slot(k, m->cap);
  while (m->slots[2 * i] != 0 && m->slots[2 * i] != k) i = (i + 1) & (m->cap - 1);
  if (m->slots[2 * i] == 0) m->size++;
  m->slots[2 * i] = k;
  m->slots[2 * i + 1] = value;
  return 0;
}

/* ---- shared helpers ----------------------------------------------------- */

static TVMFFISEqHashKind kind_of(int32_t type_index, const char* what, int* rc) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  *rc = 0;
  if (info == NULL || info->metadata == NULL) {
    *rc = tvmffi__raise("TypeError",
                        "Type metadata is not set for type `%s`, so %s is not supported for "
                        "this type",
                        tvmffi__type_key(type_index), what);
  } else if (info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindUnsupported) {
    *rc = tvmffi__raise("TypeError",
                        "_type_s_eq_hash_kind is not set for type `%s`, so %s is not supported "
                        "for this type",
                        tvmffi__type_key(type_index), what);
  }
  return *rc ? kTVMFFISEqHashKindUnsupported : info->metadata->structural_eq_hash_kind;
}

static int is_dag_node(int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  return info != NULL && info->metadata != NULL &&
         info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindDAGNode;
}

static int tensor_bytes(const DLTensor* t, const char* what, size_t* nbytes) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= t->shape[i];
  if (t->strides != NULL && n > 0) {
    int64_t expect = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
      if (t->shape[i] != 1 && t->strides[i] != expect)
        return tvmffi__raise("RuntimeError",
                             "%s: can only compare contiguous tensors (use "
                             "skip_tensor_content=True to compare metadata only)",
                             what);
      expect *= t->shape[i];
    }
  }
  if (n > 0 && t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost &&
      t->device.device_type != kDLROCMHost)
    return tvmffi__raise("RuntimeError",
                         "%s: tensor content can only be compared on the CPU, got a tensor on "
                         "device type %d (use skip_tensor_content=True)",
                         what, (int)t->device.device_type);
  /* Sub-byte types are packed: round the total, not each element. */
  *nbytes = ((size_t)n * t->dtype.bits * t->dtype.lanes + 7) / 8;
  return 0;
}

static int tensor_meta_equal(const DLTensor* a, const DLTensor* b) {
  if (a->ndim != b->ndim || a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits ||
      a->dtype.lanes != b->dtype.lanes || a->device.device_type != b->device.device_type ||
      a->device.device_id != b->device.device_id)
    return 0;
  for (int32_t i = 0; i < a->ndim; ++i)
    if (a->shape[i] != b->shape[i]) return 0;
  return 1;
}

/* ---- equality ------------------------------------------------------------ */

typedef struct {
  int32_t lkind, rkind;
  TVMFFIAny key; /* owned */
} step_rec;

typedef struct {
  int map_free_vars, skip_tensor_content, want_path;
  int def_region; /* TVMFFIDefRegionKind in effect */
  int depth;
  ptrmap l2r, r2l; /* bound FreeVar / DAGNode pairs */
  /* Pairs found equal without touching a free variable: equal in any context,
   * so shared sub-graphs are compared once (linear, not exponential, on DAGs). */
  ptrmap known_equal;
  uint64_t var_events; /* free-variable comparisons so far */
  step_rec* steps; /* mismatch path, innermost step first */
  size_t nsteps, capsteps;
} eq_ctx;

static int eq_any(eq_ctx* c, const TVMFFIAny* a, const TVMFFIAny* b);

/* Records one step of the mismatch path while unwinding (no-op unless wanted). */
static int push_step(eq_ctx* c, int32_t lkind, int32_t rkind, const TVMFFIAny* key) {
  if (!c->want_path) return 0;
  if (c->nsteps == c->capsteps) {
    size_t ncap = c->capsteps ? 2 * c->capsteps : 8;
    step_rec* ns = (step_rec*)realloc(c->steps, ncap * sizeof(step_rec));
    if (ns == NULL) return tvmffi__raise_oom();
    c->steps = ns;
    c->capsteps = ncap;
  }
  step_rec* s = &c->steps[c->nsteps];
  s->lkind = lkind;
  s->rkind = rkind;
  if (tvmffi__container_key_acquire(key, &s->key) != 0) return -1;
  c->nsteps++;
  return 0;
}

/* Child comparison result r (1/0/-1); on a mismatch adds the step. */
static int child(eq_ctx* c, int r, int32_t kind, const TVMFFIAny* key) {
  if (r == 0 && push_step(c, kind, kind, key) != 0) return -1;
  return r;
}

static int eq_seq(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  TVMFFISeqCell* x = TVMFFISeqGetCellPtr(a);
  TVMFFISeqCell* y = TVMFFISeqGetCellPtr(b);
  int64_t n = x->size < y->size ? x->size : y->size;
  TVMFFIAny idx;
  for (int64_t i = 0; i < n; ++i) {
    int r = eq_any(c, &((TVMFFIAny*)x->data)[i], &((TVMFFIAny*)y->data)[i]);
    tvmffi__any_set_int(&idx, i);
    if ((r = child(c, r, TVMFFI__ACCESS_ARRAY_ITEM, &idx)) != 1) return r;
  }
  if (x->size == y->size) return 1;
  tvmffi__any_set_int(&idx, n);
  if (push_step(c, x->size > n ? TVMFFI__ACCESS_ARRAY_ITEM : TVMFFI__ACCESS_ARRAY_ITEM_MISSING,
                y->size > n ? TVMFFI__ACCESS_ARRAY_ITEM : TVMFFI__ACCESS_ARRAY_ITEM_MISSING,
                &idx) != 0)
    return -1;
  return 0;
}

/* Looks `key` of one map up in the other, translating a bound variable. */
static int map_find(const ptrmap* bind, TVMFFIMapCell* cell, const TVMFFIAny* key, uint64_t* pos) {
  TVMFFIAny k = *key;
  if (key->type_index >= kTVMFFIStaticObjectBegin) {
    uintptr_t m = ptrmap_get(bind, key->v_obj);
    if (m != 0) {
      k.v_obj = (TVMFFIObject*)m;
      k.type_index = k.v_obj->type_index;
    }
  }
  return TVMFFIMapCellFind(cell, &k, pos);
}

static int eq_map(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  TVMFFIMapCell* x = TVMFFIMapGetCellPtr(a);
  TVMFFIMapCell* y = TVMFFIMapGetCellPtr(b);
  for (uint64_t p = TVMFFIMapCellIterBegin(x); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(x, p)) {
    uint64_t q;
    const TVMFFIAny* key = TVMFFIMapCellKey(x, p);
    if (map_find(&c->l2r, y, key, &q) != 0) return -1;
    if (q == TVMFFI_MAP_ITER_END) {
      if (push_step(c, TVMFFI__ACCESS_MAP_ITEM, TVMFFI__ACCESS_MAP_ITEM_MISSING, key) != 0)
        return -1;
      return 0;
    }
    int r = eq_any(c, TVMFFIMapCellValue(x, p), TVMFFIMapCellValue(y, q));
    if ((r = child(c, r, TVMFFI__ACCESS_MAP_ITEM, key)) != 1) return r;
  }
  if (x->size == y->size) return 1;
  /* Every key of a is in b: report the first key of b missing from a. */
  for (uint64_t q = TVMFFIMapCellIterBegin(y); q != TVMFFI_MAP_ITER_END;
       q = TVMFFIMapCellIterNext(y, q)) {
    uint64_t p;
    const TVMFFIAny* key = TVMFFIMapCellKey(y, q);
    if (map_find(&c->r2l, x, key, &p) != 0) return -1;
    if (p == TVMFFI_MAP_ITER_END) {
      if (push_step(c, TVMFFI__ACCESS_MAP_ITEM_MISSING, TVMFFI__ACCESS_MAP_ITEM, key) != 0)
        return -1;
      return 0;
    }
  }
  return 0;
}

static int eq_tensor(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  DLTensor* x = TVMFFITensorGetDLTensorPtr(a);
  DLTensor* y = TVMFFITensorGetDLTensorPtr(b);
  if (!tensor_meta_equal(x, y)) return 0;
  if (c->skip_tensor_content) return 1;
  size_t nx, ny;
  if (tensor_bytes(x, "ffi.StructuralEqual", &nx) != 0 ||
      tensor_bytes(y, "ffi.StructuralEqual", &ny) != 0)
    return -1;
  return nx == 0 ||
         memcmp((char*)x->data + x->byte_offset, (char*)y->data + y->byte_offset, nx) == 0;
}

/* Field-by-field comparison of two objects of the same reflected type. */
static int eq_fields(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(a->type_index);
  int outer_region = c->def_region;
  int inner_region = tvmffi__fields_def_region(outer_region, a->type_index);
  int result = 1;
  for (int32_t d = 0; result == 1 && d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; result == 1 && i < t->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      if ((f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) || f->getter == NULL) continue;
      TVMFFIAny x, y;
      tvmffi__any_set_none(&x);
      tvmffi__any_set_none(&y);
      if (f->getter((char*)a + f->offset, &x) != 0) return -1;
      if (f->getter((char*)b + f->offset, &y) != 0) {
        tvmffi__any_release(&x);
        return -1;
      }
      c->def_region = tvmffi__field_def_region(f->flags, inner_region);
      int r = eq_any(c, &x, &y);
      c->def_region = outer_region;
      tvmffi__any_release(&x);
      tvmffi__any_release(&y);
      if (r == 0) {
        TVMFFIAny name;
        TVMFFIByteArray n = f->name;
        if (tvmffi__str_to_any(kTVMFFIStr, n.data, n.size, &name) != 0) return -1;
        r = child(c, 0, TVMFFI__ACCESS_ATTR, &name);
        tvmffi__any_release(&name);
      }
      result = r;
    }
  }
  return result;
}

/* ---- __s_equal__(a, b, f) -> bool hooks ----------------------------------------
 * f(lhs, rhs, def_region: int, field_name: str | None) -> bool compares with the
 * walk's state (bindings, depth); def_region 0 keeps the caller's region,
 * 1 / 2 open a recursive / non-recursive one.  A mismatch found through f
 * extends the mismatch path with field_name (the first one only). */

static const TVMFFITypeAttrColumn* g_s_equal_col;
static const TVMFFITypeAttrColumn* g_s_hash_col;

typedef struct {
  eq_ctx* c; /* NULL once the hook returned: the callback then compares afresh */
  int inner_region;
  size_t keep; /* steps of the first mismatch (0: none yet) */
} s_equal_cb;

static int structural_equal(const TVMFFIAny* a, const TVMFFIAny* b, int map_free_vars,
                            int skip_tensor_content, TVMFFIObject** paths);

static void drop_steps(eq_ctx* c, size_t n) {
  while (c->nsteps > n) tvmffi__any_release(&c->steps[--c->nsteps].key);
}

static int s_equal_cb_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char sig[] =
      "__s_equal__ callback(0: Any, 1: Any, 2: int, 3: Optional[str]) -> bool";
  s_equal_cb* cb = (s_equal_cb*)self;
  int64_t region;
  TVMFFIByteArray name;
  if (tvmffi__args_count(sig, n, 4) != 0 || tvmffi__arg_int(sig, args, 2, &region) != 0) return -1;
  if (args[3].type_index != kTVMFFINone && tvmffi__arg_str(sig, args, 3, &name) != 0) return -1;
  if (region < 0 || region > kTVMFFIDefRegionKindNonRecursive)
    return tvmffi__raise("ValueError", "%s: def_region must be 0, 1 or 2, got %lld", sig,
                         (long long)region);
  int r;
  if (cb->c == NULL) {
    r = structural_equal(&args[0], &args[1], 0, 0, NULL);
  } else {
    eq_ctx* c = cb->c;
    size_t mark = c->nsteps;
    int saved = c->def_region;
    c->def_region = tvmffi__hook_def_region(region, cb->inner_region);
    r = eq_any(c, &args[0], &args[1]);
    c->def_region = saved;
    if (r == 0 && cb->keep == 0 && args[3].type_index != kTVMFFINone) {
      TVMFFIAny key;
      if (tvmffi__str_to_any(kTVMFFIStr, name.data, name.size, &key) != 0) return -1;
      r = child(c, 0, TVMFFI__ACCESS_ATTR, &key);
      tvmffi__any_release(&key);
    }
    if (r == 0 && cb->keep == 0)
      cb->keep = c->nsteps > mark ? c->nsteps : 0;
    else
      drop_steps(c, mark > cb->keep ? mark : cb->keep); /* later mismatches add nothing */
  }
  if (r < 0) return -1;
  tvmffi__any_set_bool(result, r);
  return 0;
}

/* Compares through the type's __s_equal__: 1/0 the answer, -1 raised, 2 no hook. */
static int eq_hooked(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  TVMFFIObject* hook = tvmffi__ext_type_hook("__s_equal__", &g_s_equal_col, a->type_index);
  if (hook == NULL) return 2;
  s_equal_cb* cb = (s_equal_cb*)malloc(sizeof(s_equal_cb));
  if (cb == NULL) return tvmffi__raise_oom();
  cb->c = c;
  cb->inner_region = tvmffi__fields_def_region(c->def_region, a->type_index);
  cb->keep = 0;
  size_t mark = c->nsteps;
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(cb, s_equal_cb_call, free, &f) != 0) {
    free(cb);
    return -1;
  }
  TVMFFIAny args[3], res;
  tvmffi__any_set_obj(&args[0], a);
  tvmffi__any_set_obj(&args[1], b);
  tvmffi__any_set_obj(&args[2], (TVMFFIObject*)f);
  tvmffi__any_set_none(&res);
  int rc = tvmffi__function_call(hook, args, 3, &res);
  cb->c = NULL;
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return -1;
  if (res.type_index != kTVMFFIBool && res.type_index != kTVMFFIInt) {
    rc = tvmffi__raise("TypeError",
                       "ffi.StructuralEqual: __s_equal__ of `%s` returned `%s`, expected bool",
                       tvmffi__type_key(a->type_index), tvmffi__any_type_key(&res));
    tvmffi__any_release(&res);
    return rc;
  }
  if (res.v_int64 != 0) drop_steps(c, mark); /* equal after all: no path */
  return res.v_int64 != 0;
}

static int eq_body(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  int r = eq_hooked(c, a, b);
  return r == 2 ? eq_fields(c, a, b) : r;
}

static int bind(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  if (ptrmap_put(&c->l2r, a, (uintptr_t)b) != 0 || ptrmap_put(&c->r2l, b, (uintptr_t)a) != 0)
    return -1;
  return 1;
}

static int eq_reflected(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  int rc;
  TVMFFISEqHashKind kind = kind_of(a->type_index, "StructuralEqual", &rc);
  if (rc != 0) return -1;
  uintptr_t la, rb;
  switch (kind) {
    case kTVMFFISEqHashKindUniqueInstance:
      return a == b;
    case kTVMFFISEqHashKindConstTreeNode:
      return a == b ? 1 : eq_body(c, a, b);
    case kTVMFFISEqHashKindFreeVar:
    case kTVMFFISEqHashKindDAGNode: {
      la = ptrmap_get(&c->l2r, a);
      rb = ptrmap_get(&c->r2l, b);
      if (la != 0 || rb != 0) return la == (uintptr_t)b;
      int r;
      if (kind == kTVMFFISEqHashKindFreeVar) {
        c->var_events++;
        if (!c->map_free_vars && c->def_region == kTVMFFIDefRegionKindNone) return a == b;
        int saved = c->def_region;
        /* The variable's fields (a FreeVar may hold others) stay in a recursive
         * def region, so nested variables bind too; a non-recursive one covers
         * only the variable itself. */
        if (saved == kTVMFFIDefRegionKindNonRecursive) c->def_region = kTVMFFIDefRegionKindNone;
        r = eq_body(c, a, b);
        c->def_region = saved;
      } else {
        r = (a == b && c->l2r.size == 0) ? 1 : eq_body(c, a, b);
      }
      return r == 1 ? bind(c, a, b) : r;
    }
    default: /* TreeNode */
      return (a == b && c->l2r.size == 0) ? 1 : eq_body(c, a, b);
  }
}

static int eq_obj(eq_ctx* c, TVMFFIObject* a, TVMFFIObject* b) {
  int32_t t = a->type_index;
  int same = a == b && c->l2r.size == 0;
  switch (t) {
    case kTVMFFIArray:
    case kTVMFFIList:
      return same ? 1 : eq_seq(c, a, b);
    case kTVMFFIMap:
    case kTVMFFIDict:
      return same ? 1 : eq_map(c, a, b);
    case kTVMFFIBigInt: {
      TVMFFIAny x = {kTVMFFIBigInt, {0}, {0}}, y = x;
      x.v_obj = a;
      y.v_obj = b;
      return tvmffi__big_int_compare(&x, &y) == 0;
    }
    case kTVMFFIShape: {
      TVMFFIShapeCell* x = TVMFFIShapeGetCellPtr(a);
      TVMFFIShapeCell* y = TVMFFIShapeGetCellPtr(b);
      return x->size == y->size &&
             (x->size == 0 || memcmp(x->data, y->data, x->size * sizeof(int64_t)) == 0);
    }
    case kTVMFFITensor:
      return a == b ? 1 : eq_tensor(c, a, b);
    default:
      return eq_reflected(c, a, b);
  }
}

static int bytes_equal(TVMFFIByteArray x, TVMFFIByteArray y) {
  return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
}

static int eq_any(eq_ctx* c, const TVMFFIAny* av, const TVMFFIAny* bv) {
  TVMFFIAny a = tvmffi__ext_peek(av), b = tvmffi__ext_peek(bv);
  TVMFFIByteArray x, y;
  int as = tvmffi__any_as_str(&a, &x), bs = tvmffi__any_as_str(&b, &y);
  if (as || bs) return as && bs && bytes_equal(x, y);
  as = tvmffi__any_as_bytes(&a, &x);
  bs = tvmffi__any_as_bytes(&b, &y);
  if (as || bs) return as && bs && bytes_equal(x, y);
  if (a.type_index != b.type_index) return 0;
  switch (a.type_index) {
    case kTVMFFINone:
      return 1;
    case kTVMFFIFloat:
      return a.v_uint64 == b.v_uint64 || (isnan(a.v_float64) && isnan(b.v_float64));
    case kTVMFFIDevice:
      return a.v_device.device_type == b.v_device.device_type &&
             a.v_device.device_id == b.v_device.device_id;
    case kTVMFFIDataType:
      return a.v_dtype.code == b.v_dtype.code && a.v_dtype.bits == b.v_dtype.bits &&
             a.v_dtype.lanes == b.v_dtype.lanes;
    default:
      if (a.type_index < kTVMFFIStaticObjectBegin) return a.v_uint64 == b.v_uint64;
  }
  if (c->depth >= STRUCTURAL_MAX_DEPTH)
    return tvmffi__raise("RuntimeError",
                         "structural equality: maximum recursion depth %d exceeded (cyclic "
                         "structure?)",
                         STRUCTURAL_MAX_DEPTH);
  if (ptrmap_get(&c->known_equal, a.v_obj) == (uintptr_t)b.v_obj) return 1;
  uint64_t events = c->var_events;
  c->depth++;
  int r = eq_obj(c, a.v_obj, b.v_obj);
  c->depth--;
  if (r == 1 && events == c->var_events &&
      ptrmap_put(&c->known_equal, a.v_obj, (uintptr_t)b.v_obj) != 0)
    return -1;
  return r;
}

static void eq_ctx_free(eq_ctx* c) {
  free(c->l2r.slots);
  free(c->r2l.slots);
  free(c->known_equal.slots);
  for (size_t i = 0; i < c->nsteps; ++i) tvmffi__any_release(&c->steps[i].key);
  free(c->steps);
}

/* 1 equal, 0 not, -1 raised.  With paths != NULL, a mismatch fills
 * paths[0..1] with new AccessPath objects. */
static int structural_equal(const TVMFFIAny* a, const TVMFFIAny* b, int map_free_vars,
                            int skip_tensor_content, TVMFFIObject** paths) {
  eq_ctx c;
  memset(&c, 0, sizeof(c));
  c.map_free_vars = map_free_vars;
  c.skip_tensor_content = skip_tensor_content;
  c.want_path = paths != NULL;
  int r = eq_any(&c, a, b);
  if (r == 0 && paths != NULL) {
    paths[0] = tvmffi__access_path_root();
    paths[1] = paths[0] ? tvmffi__access_path_root() : NULL;
    for (size_t i = c.nsteps; i > 0 && paths[1] != NULL; --i) {
      const step_rec* s = &c.steps[i - 1];
      for (int side = 0; side < 2; ++side) {
        TVMFFIObject* next =
            tvmffi__access_path_extend(paths[side], side ? s->rkind : s->lkind, &s->key);
        tvmffi__decref(paths[side]);
        paths[side] = next;
        if (next == NULL) break;
      }
      if (paths[0] == NULL) break;
    }
    if (paths[0] == NULL || paths[1] == NULL) {
      tvmffi__decref(paths[0]);
      tvmffi__decref(paths[1]);
      r = -1;
    }
  }
  eq_ctx_free(&c);
  return r;
}

/* ---- hashing --------------------------------------------------------------- */

#define H_NONE UINT64_C(0x9e3779b9)
#define H_NAN UINT64_C(0x7ff8000000000000)
#define H_VAR UINT64_C(0x766172)
#define H_VAR_UNBOUND UINT64_C(0x766172756e62)
#define H_MAP UINT64_C(0x6d6170)
#define H_DAG UINT64_C(0x646167)

typedef struct {
  int map_free_vars, skip_tensor_content;
  int def_region;
  int depth;
  int in_map;     /* inside a map entry: do not number new variables */
  ptrmap var_ids; /* variable -> 1-based order of first binding */
  uint64_t next_id;
  /* Hashes of objects whose walk met no free variable (context-free), so
   * shared sub-graphs are hashed once: object -> 1-based index in memo. */
  uint64_t var_events;
  uint64_t next_dag; /* DAG nodes numbered in the order first met (outside maps) */
  ptrmap memo_index;
  uint64_t* memo;
  size_t num_memo, cap_memo;
} hash_ctx;

static int hash_any(hash_ctx* c, const TVMFFIAny* v, uint64_t* out);

static uint64_t combine(uint64_t a, uint64_t b) { return TVMFFIContainerHashCombine(a, b); }

typedef struct {
  hash_ctx* c;
  uint64_t h;
  int inner_region;
} field_hash;

static int hash_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  field_hash* fh = (field_hash*)ctx;
  hash_ctx* c = fh->c;
  int saved = c->def_region;
  c->def_region = tvmffi__field_def_region(f->flags, fh->inner_region);
  uint64_t h;
  int rc = hash_any(c, v, &h);
  c->def_region = saved;
  if (rc != 0) return -1;
  fh->h = combine(fh->h, h);
  return 0;
}

static int hash_fields(hash_ctx* c, TVMFFIObject* obj, uint64_t* out) {
  field_hash fh = {c, tvmffi__type_info_lookup(obj->type_index)->type_key_hash,
                   tvmffi__fields_def_region(c->def_region, obj->type_index)};
  if (tvmffi__ext_visit_fields(obj, kTVMFFIFieldFlagBitMaskSEqHashIgnore, hash_field, &fh) != 0)
    return -1;
  *out = fh.h;
  return 0;
}

/* ---- __s_hash__(a, init_hash, f) -> int hooks -----------------------------------
 * f(value, init_hash: int, def_region: int) -> int combines init_hash with the
 * value's hash under the walk's state; the hook's result is the object's hash. */

typedef struct {
  hash_ctx* c; /* NULL once the hook returned: the callback then hashes afresh */
  int inner_region;
} s_hash_cb;

static int structural_hash(const TVMFFIAny* v, int map_free_vars, int skip_tensor_content,
                           uint64_t* out);

static int s_hash_cb_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char sig[] = "__s_hash__ callback(0: Any, 1: int, 2: int) -> int";
  s_hash_cb* cb = (s_hash_cb*)self;
  int64_t init, region;
  if (tvmffi__args_count(sig, n, 3) != 0 || tvmffi__arg_int(sig, args, 1, &init) != 0 ||
      tvmffi__arg_int(sig, args, 2, &region) != 0)
    return -1;
  if (region < 0 || region > kTVMFFIDefRegionKindNonRecursive)
    return tvmffi__raise("ValueError", "%s: def_region must be 0, 1 or 2, got %lld", sig,
                         (long long)region);
  uint64_t h;
  int rc;
  if (cb->c == NULL) {
    rc = structural_hash(&args[0], 0, 0, &h);
  } else {
    int saved = cb->c->def_region;
    cb->c->def_region = tvmffi__hook_def_region(region, cb->inner_region);
    rc = hash_any(cb->c, &args[0], &h);
    cb->c->def_region = saved;
  }
  if (rc != 0) return -1;
  tvmffi__any_set_int(result, (int64_t)combine((uint64_t)init, h));
  return 0;
}

/* Hashes through the type's __s_hash__: 0 done, -1 raised, 1 no hook. */
static int hash_hooked(hash_ctx* c, TVMFFIObject* obj, uint64_t* out) {
  TVMFFIObject* hook = tvmffi__ext_type_hook("__s_hash__", &g_s_hash_col, obj->type_index);
  if (hook == NULL) return 1;
  s_hash_cb* cb = (s_hash_cb*)malloc(sizeof(s_hash_cb));
  if (cb == NULL) return tvmffi__raise_oom();
  cb->c = c;
  cb->inner_region = tvmffi__fields_def_region(c->def_region, obj->type_index);
  TVMFFIObjectHandle f = NULL;
  if (TVMFFIFunctionCreate(cb, s_hash_cb_call, free, &f) != 0) {
    free(cb);
    return -1;
  }
  TVMFFIAny args[3], res;
  tvmffi__any_set_obj(&args[0], obj);
  tvmffi__any_set_int(&args[1], (int64_t)tvmffi__type_info_lookup(obj->type_index)->type_key_hash);
  tvmffi__any_set_obj(&args[2], (TVMFFIObject*)f);
  tvmffi__any_set_none(&res);
  int rc = tvmffi__function_call(hook, args, 3, &res);
  cb->c = NULL;
  tvmffi__decref((TVMFFIObject*)f);
  if (rc != 0) return -1;
  if (res.type_index != kTVMFFIInt && res.type_index != kTVMFFIBool) {
    rc = tvmffi__raise("TypeError",
                       "ffi.StructuralHash: __s_hash__ of `%s` returned `%s`, expected int",
                       tvmffi__type_key(obj->type_index), tvmffi__any_type_key(&res));
    tvmffi__any_release(&res);
    return rc;
  }
  *out = (uint64_t)res.v_int64;
  return 0;
}

static int hash_reflected(hash_ctx* c, TVMFFIObject* obj, uint64_t* out) {
  int rc;
  TVMFFISEqHashKind kind = kind_of(obj->type_index, "StructuralHash", &rc);
  if (rc != 0) return -1;
  uint64_t key_hash = tvmffi__type_info_lookup(obj->type_index)->type_key_hash;
  if (kind == kTVMFFISEqHashKindUniqueInstance) {
    *out = combine(key_hash, (uint64_t)(uintptr_t)obj);
    return 0;
  }
  if (kind != kTVMFFISEqHashKindFreeVar) {
    int r = hash_hooked(c, obj, out);
    if (r == 1) r = hash_fields(c, obj, out);
    /* A DAG node's sharing is part of its structure: (x, x) and (x, copy of x) differ, as
     * upstream's graph-node counter makes them.  Inside a map, where equal maps need not
     * share an order, every node is numbered alike. */
    if (r == 0 && kind == kTVMFFISEqHashKindDAGNode)
      *out = combine(*out, combine(H_DAG, c->in_map ? 0 : ++c->next_dag));
    return r;
  }
  c->var_events++;
  uint64_t id = ptrmap_get(&c->var_ids, obj);
  if (id != 0) {
    *out = combine(key_hash, combine(H_VAR, id));
  } else if (!c->map_free_vars && c->def_region == kTVMFFIDefRegionKindNone) {
    *out = combine(key_hash, (uint64_t)(uintptr_t)obj); /* equal only to itself */
  } else if (c->in_map) {
    /* Bindings made inside a map depend on its iteration order, which equal
     * maps need not share: hash every such variable alike. */
    *out = combine(key_hash, H_VAR_UNBOUND);
  } else {
    id = ++c->next_id;
    if (ptrmap_put(&c->var_ids, obj, id) != 0) return -1;
    *out = combine(key_hash, combine(H_VAR, id));
  }
  return 0;
}

static int hash_obj(hash_ctx* c, TVMFFIObject* obj, uint64_t* out) {
  int32_t t = obj->type_index;
  uint64_t h = combine((uint64_t)t, 0);
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    TVMFFISeqCell* s = TVMFFISeqGetCellPtr(obj);
    h = combine(h, (uint64_t)s->size);
    for (int64_t i = 0; i < s->size; ++i) {
      uint64_t e;
      if (hash_any(c, &((TVMFFIAny*)s->data)[i], &e) != 0) return -1;
      h = combine(h, e);
    }
  } else if (t == kTVMFFIMap || t == kTVMFFIDict) {
    TVMFFIMapCell* m = TVMFFIMapGetCellPtr(obj);
    uint64_t sum = 0;
    int saved = c->in_map;
    c->in_map = 1;
    for (uint64_t p = TVMFFIMapCellIterBegin(m); p != TVMFFI_MAP_ITER_END;
         p = TVMFFIMapCellIterNext(m, p)) {
      uint64_t k, v;
      if (hash_any(c, TVMFFIMapCellKey(m, p), &k) != 0 ||
          hash_any(c, TVMFFIMapCellValue(m, p), &v) != 0) {
        c->in_map = saved;
        return -1;
      }
      sum += combine(combine(H_MAP, k), v);
    }
    c->in_map = saved;
    h = combine(combine(h, (uint64_t)m->size), sum);
  } else if (t == kTVMFFIBigInt) {
    TVMFFIAny v = {kTVMFFIBigInt, {0}, {0}};
    v.v_obj = obj;
    TVMFFIByteArray w = TVMFFIBigIntGetContentByteArray(&v);
    h = combine(h, TVMFFIContainerHashBytes(w.data, w.size));
  } else if (t == kTVMFFIShape) {
    TVMFFIShapeCell* s = TVMFFIShapeGetCellPtr(obj);
    h = combine(h, (uint64_t)s->size);
    for (size_t i = 0; i < s->size; ++i) h = combine(h, (uint64_t)s->data[i]);
  } else if (t == kTVMFFITensor) {
    DLTensor* d = TVMFFITensorGetDLTensorPtr(obj);
    h = combine(
        h, (uint64_t)d->dtype.code | (uint64_t)d->dtype.bits << 8 | (uint64_t)d->dtype.lanes << 16);
    h = combine(h, (uint64_t)d->device.device_type << 32 | (uint32_t)d->device.device_id);
    for (int32_t i = 0; i < d->ndim; ++i) h = combine(h, (uint64_t)d->shape[i]);
    if (!c->skip_tensor_content) {
      size_t n;
      if (tensor_bytes(d, "ffi.StructuralHash", &n) != 0) return -1;
      if (n > 0) h = combine(h, TVMFFIContainerHashBytes((const char*)d->data + d->byte_offset, n));
    }
  } else {
    return hash_reflected(c, obj, out);
  }
  *out = h;
  return 0;
}

static int memo_put(hash_ctx* c, TVMFFIObject* obj, uint64_t h) {
  if (c->num_memo == c->cap_memo) {
    size_t ncap = c->cap_memo ? 2 * c->cap_memo : 16;
    uint64_t* nm = (uint64_t*)realloc(c->memo, ncap * sizeof(uint64_t));
    if (nm == NULL) return tvmffi__raise_oom();
    c->memo = nm;
    c->cap_memo = ncap;
  }
  c->memo[c->num_memo++] = h;
  return ptrmap_put(&c->memo_index, obj, c->num_memo);
}

static int hash_any(hash_ctx* c, const TVMFFIAny* view, uint64_t* out) {
  TVMFFIAny v = tvmffi__ext_peek(view);
  TVMFFIByteArray ba;
  if (tvmffi__any_as_str(&v, &ba)) {
    *out = combine(kTVMFFIStr, TVMFFIContainerHashBytes(ba.data, ba.size));
    return 0;
  }
  if (tvmffi__any_as_bytes(&v, &ba)) {
    *out = combine(kTVMFFIBytes, TVMFFIContainerHashBytes(ba.data, ba.size));
    return 0;
  }
  switch (v.type_index) {
    case kTVMFFINone:
      *out = H_NONE;
      return 0;
    case kTVMFFIFloat:
      *out = combine(kTVMFFIFloat, isnan(v.v_float64) ? H_NAN : v.v_uint64);
      return 0;
    case kTVMFFIDevice:
      *out = combine(kTVMFFIDevice,
                     (uint64_t)v.v_device.device_type << 32 | (uint32_t)v.v_device.device_id);
      return 0;
    case kTVMFFIDataType:
      *out = combine(kTVMFFIDataType, (uint64_t)v.v_dtype.code | (uint64_t)v.v_dtype.bits << 8 |
                                          (uint64_t)v.v_dtype.lanes << 16);
      return 0;
    default:
      if (v.type_index < kTVMFFIStaticObjectBegin) {
        *out = combine((uint64_t)v.type_index, v.v_uint64);
        return 0;
      }
  }
  if (c->depth >= STRUCTURAL_MAX_DEPTH)
    return tvmffi__raise("RuntimeError",
                         "structural hash: maximum recursion depth %d exceeded (cyclic "
                         "structure?)",
                         STRUCTURAL_MAX_DEPTH);
  uintptr_t idx = ptrmap_get(&c->memo_index, v.v_obj);
  if (idx != 0) {
    *out = c->memo[idx - 1];
    return 0;
  }
  uint64_t events = c->var_events;
  c->depth++;
  int rc = hash_obj(c, v.v_obj, out);
  c->depth--;
  /* A DAG node met again is a reference to its first visit, whatever it holds: equality
   * binds the pair once and compares no further. */
  if (rc == 0 && (events == c->var_events || is_dag_node(v.v_obj->type_index)))
    rc = memo_put(c, v.v_obj, *out);
  return rc;
}

static int structural_hash(const TVMFFIAny* v, int map_free_vars, int skip_tensor_content,
                           uint64_t* out) {
  hash_ctx c;
  memset(&c, 0, sizeof(c));
  c.map_free_vars = map_free_vars;
  c.skip_tensor_content = skip_tensor_content;
  int rc = hash_any(&c, v, out);
  free(c.var_ids.slots);
  free(c.memo_index.slots);
  free(c.memo);
  return rc;
}

/* ---- StructuralKey ---------------------------------------------------------- */

typedef struct {
  TVMFFIObject header;
  TVMFFIAny key;   /* +24, owned */
  int64_t hash_i64; /* +40 */
} structural_key;

static int32_t g_key_index = -1;

static void key_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    tvmffi__any_release(&((structural_key*)self)->key);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int key_new(const TVMFFIAny* value, TVMFFIAny* result) {
  uint64_t h;
  if (structural_hash(value, 0, 0, &h) != 0) return -1;
  structural_key* k =
      (structural_key*)tvmffi__object_alloc(sizeof(structural_key), g_key_index, key_deleter);
  if (k == NULL) return -1;
  k->hash_i64 = (int64_t)h;
  if (tvmffi__container_key_acquire(value, &k->key) != 0) {
    tvmffi__any_set_none(&k->key);
    tvmffi__decref(&k->header);
    return -1;
  }
  tvmffi__any_set_obj(result, &k->header);
  return 0;
}

static int keys_equal(TVMFFIObject* a, TVMFFIObject* b) {
  structural_key* x = (structural_key*)a;
  structural_key* y = (structural_key*)b;
  if (a == b) return 1;
  if (x->hash_i64 != y->hash_i64) return 0;
  return structural_equal(&x->key, &y->key, 0, 0, NULL);
}

/* ---- globals ---------------------------------------------------------------- */

#define SIG_EQ "ffi.StructuralEqual(0: Any, 1: Any, 2: bool, 3: bool) -> bool"
#define SIG_MISMATCH                                                     \
  "ffi.GetFirstStructuralMismatch(0: Any, 1: Any, 2: bool, 3: bool) -> " \
  "Optional<ffi.Tuple<ffi.reflection.AccessPath, ffi.reflection.AccessPath>>"
#define SIG_HASH "ffi.StructuralHash(0: Any, 1: bool, 2: bool) -> int"
#define SIG_KEY "ffi.StructuralKey(0: Any) -> ffi.StructuralKey"
#define SIG_KEY_EQ "ffi.StructuralKeyEqual(0: ffi.StructuralKey, 1: ffi.StructuralKey) -> bool"

static int g_equal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int mfv, skip;
  if (tvmffi__args_count(SIG_EQ, n, 4) != 0 || tvmffi__arg_bool(SIG_EQ, args, 2, &mfv) != 0 ||
      tvmffi__arg_bool(SIG_EQ, args, 3, &skip) != 0)
    return -1;
  int r = structural_equal(&args[0], &args[1], mfv, skip, NULL);
  if (r < 0) return -1;
  tvmffi__any_set_bool(result, r);
  return 0;
}

static int g_mismatch(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int mfv, skip;
  if (tvmffi__args_count(SIG_MISMATCH, n, 4) != 0 ||
      tvmffi__arg_bool(SIG_MISMATCH, args, 2, &mfv) != 0 ||
      tvmffi__arg_bool(SIG_MISMATCH, args, 3, &skip) != 0)
    return -1;
  TVMFFIObject* paths[2] = {NULL, NULL};
  int r = structural_equal(&args[0], &args[1], mfv, skip, paths);
  if (r < 0) return -1;
  if (r == 1) {
    tvmffi__any_set_none(result);
    return 0;
  }
  TVMFFIObject* pair = tvmffi__array_new(2);
  if (pair == NULL) {
    tvmffi__decref(paths[0]);
    tvmffi__decref(paths[1]);
    return -1;
  }
  for (int i = 0; i < 2; ++i) {
    TVMFFIAny v;
    tvmffi__any_set_obj(&v, paths[i]);
    tvmffi__array_push_move(pair, &v);
  }
  tvmffi__any_set_obj(result, pair);
  return 0;
}

static int g_hash(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int mfv, skip;
  uint64_t out;
  if (tvmffi__args_count(SIG_HASH, n, 3) != 0 || tvmffi__arg_bool(SIG_HASH, args, 1, &mfv) != 0 ||
      tvmffi__arg_bool(SIG_HASH, args, 2, &skip) != 0 ||
      structural_hash(&args[0], mfv, skip, &out) != 0)
    return -1;
  tvmffi__any_set_int(result, (int64_t)out); /* bit-cast, as the reference */
  return 0;
}

static int g_key(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count(SIG_KEY, n, 1) != 0) return -1;
  return key_new(&args[0], result);
}

static int g_key_equal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject *a, *b;
  if (tvmffi__args_count(SIG_KEY_EQ, n, 2) != 0 ||
      tvmffi__arg_obj(SIG_KEY_EQ, args, 0, g_key_index, &a) != 0 ||
      tvmffi__arg_obj(SIG_KEY_EQ, args, 1, g_key_index, &b) != 0)
    return -1;
  int r = keys_equal(a, b);
  if (r < 0) return -1;
  tvmffi__any_set_bool(result, r);
  return 0;
}

/* __any_hash__ / __any_equal__ hooks: StructuralKey works as a Map/Dict key. */
static int key_any_hash(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  TVMFFIObject* a;
  static const char sig[] = "ffi.StructuralKey.__any_hash__(0: ffi.StructuralKey) -> int";
  if (tvmffi__args_count(sig, n, 1) != 0 || tvmffi__arg_obj(sig, args, 0, g_key_index, &a) != 0)
    return -1;
  tvmffi__any_set_int(result, ((structural_key*)a)->hash_i64);
  return 0;
}

static int key_any_equal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  static const char sig[] = "ffi.StructuralKey.__any_equal__(0: Any, 1: Any) -> bool";
  if (tvmffi__args_count(sig, n, 2) != 0) return -1;
  TVMFFIAny a = tvmffi__ext_peek(&args[0]), b = tvmffi__ext_peek(&args[1]);
  int r = 0;
  if (a.type_index == g_key_index && b.type_index == g_key_index) r = keys_equal(a.v_obj, b.v_obj);
  if (r < 0) return -1;
  tvmffi__any_set_bool(result, r);
  return 0;
}

void tvmffi__structural_globals_init(void) {
  g_key_index = tvmffi__structural_new_type(
      "ffi.StructuralKey", -1, (int32_t)sizeof(structural_key), kTVMFFISEqHashKindTreeNode,
      "A value that hashes and compares structurally.");
  tvmffi__structural_add_field(g_key_index, "key", "The wrapped value.",
                               offsetof(structural_key, key), 16, tvmffi__getter_any, kTVMFFIAny);
  tvmffi__structural_add_field(g_key_index, "hash_i64", "Structural hash of key (bit-cast).",
                               offsetof(structural_key, hash_i64), 8, tvmffi__getter_i64,
                               kTVMFFIInt);
  tvmffi__structural_add_method(g_key_index, "__ffi_init__", "Wraps a value.", 1, g_key);
  tvmffi__structural_add_attr_fn(g_key_index, "__ffi_init__", g_key);
  tvmffi__structural_add_attr_fn(g_key_index, "__any_hash__", key_any_hash);
  tvmffi__structural_add_attr_fn(g_key_index, "__any_equal__", key_any_equal);

  const char* eq = SCHEMA_FN("bool", ARG("Any") ARG("Any") ARG("bool") ARG("bool"));
  tvmffi__register_global("ffi.StructuralEqual", g_equal,
                          "Structural equality (map_free_vars, skip_tensor_content).", eq);
  tvmffi__register_global(
      "ffi.GetFirstStructuralMismatch", g_mismatch,
      "AccessPath pair of the first structural difference, or None when equal.",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":[{\"type\":"
      "\"ffi.Tuple\",\"args\":[{\"type\":\"ffi.reflection.AccessPath\"},{\"type\":"
      "\"ffi.reflection.AccessPath\"}]}]}" ARG("Any") ARG("Any") ARG("bool") ARG("bool") "]}");
  tvmffi__register_global("ffi.StructuralHash", g_hash,
                          "Structural hash consistent with ffi.StructuralEqual.",
                          SCHEMA_FN("int", ARG("Any") ARG("bool") ARG("bool")));
  tvmffi__register_global("ffi.StructuralKey", g_key, "Wraps a value as a structural key.",
                          SCHEMA_FN("ffi.StructuralKey", ARG("Any")));
  tvmffi__register_global("ffi.StructuralKeyEqual", g_key_equal, "Equality of two structural keys.",
                          SCHEMA_FN("bool", ARG("ffi.StructuralKey") ARG("ffi.StructuralKey")));
}
