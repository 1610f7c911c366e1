/*
 * structural_mutate.c -- the structural-mutate protocol of ABI 0.1.16:
 * ffi.StructuralMutator, the `__s_mutate__` / `__s_maybe_inplace_mutate__`
 * hooks of the built-in types, ffi.StructuralMap and ffi.StructuralMutate
 * (see tvm_ffi_structural(3)).
 *
 * A mutator is an object whose layout C++ code shares with us:
 *   { TVMFFIObject header; const vtable* vtable; int32_t def_region; ... }
 * The vtable holds four raw entry points (mutate, maybe_inplace_mutate,
 * var_remap_get, var_remap_set) taking (mutator, value-by-value) and
 * returning a TVMFFIAny that carries the replacement, the kTVMFFIUnchanged
 * marker, or an ffi.Error (type index 67) owned by the caller.  Header-only
 * C++ engines build their own mutators; the hooks below serve either kind
 * through the vtable alone.
 *
 * A type hook in the `__s_mutate__` column is an OpaquePtr to a function with
 * the same raw signature (called directly), or an ffi.Function called as
 * (mutator, value).  Without a hook, a POD value is returned as is and an
 * object is shallow-copied through `__ffi_shallow_copy__` and its reflected
 * fields mutated (copy-on-write: the copy is kept only when a field changed).
 * Free variables and DAG nodes go through the mutator's variable remap so a
 * shared node maps to one result.
 */
#include <string.h>

#include "structural.h"

/* ---- the shared layout ----------------------------------------------------- */

typedef struct mutator mutator;
typedef TVMFFIAny (*raw_mutate_fn)(mutator* m, TVMFFIAny value);
typedef TVMFFIAny (*raw_get_fn)(mutator* m, TVMFFIAny var);
typedef TVMFFIAny (*raw_set_fn)(mutator* m, TVMFFIAny var, TVMFFIAny mapped);
typedef struct {
  raw_mutate_fn mutate;
  raw_mutate_fn maybe_inplace_mutate;
  raw_get_fn var_remap_get;
  raw_set_fn var_remap_set;
} mutator_vtable;

struct mutator {
  TVMFFIObject header;
  const mutator_vtable* vtable; /* +24 */
  int32_t def_region;           /* +32 */
};

enum { DISALLOW = 0, ALLOW = 1 };

static int32_t g_mutator_index = -1;

/* ---- raw results -------------------------------------------------------------- */

static TVMFFIAny unchanged(void) {
  TVMFFIAny r;
  r.type_index = kTVMFFIUnchanged;
  r.zero_padding = 0;
  r.v_int64 = 0;
  return r;
}

TVMFFIAny tvmffi__raw_raised(void) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  TVMFFIAny r;
  tvmffi__any_set_obj(&r, (TVMFFIObject*)err);
  if (err == NULL) { /* a failure path that forgot to raise: still an error */
    tvmffi__raise("InternalError", "structural walk: failure without an error");
    return tvmffi__raw_raised();
  }
  return r;
}

static TVMFFIAny raise_result(const char* kind, const char* msg) {
  tvmffi__raise(kind, "%s", msg);
  return tvmffi__raw_raised();
}

static int is_error(const TVMFFIAny* r) { return r->type_index == kTVMFFIError; }

int tvmffi__raw_reraise(TVMFFIAny* r) {
  TVMFFIErrorSetRaised(r->v_obj);
  tvmffi__any_release(r);
  return -1;
}

static int same_as(const TVMFFIAny* a, const TVMFFIAny* b) {
  return a->type_index == b->type_index && a->zero_padding == b->zero_padding &&
         a->v_int64 == b->v_int64;
}

/* Did a mutation change `old`?  (Unchanged, or the very same value, is no change.) */
static int changed(const TVMFFIAny* r, const TVMFFIAny* old) {
  return r->type_index != kTVMFFIUnchanged && !same_as(r, old);
}

static int is_unique(const TVMFFIAny* v) {
  return v->type_index >= kTVMFFIStaticObjectBegin &&
         (uint32_t)__atomic_load_n(&v->v_obj->combined_ref_count, __ATOMIC_ACQUIRE) == 1;
}

static TVMFFIAny view_of(TVMFFIObject* obj) {
  TVMFFIAny v;
  v.type_index = obj->type_index;
  v.zero_padding = 0;
  v.v_obj = obj;
  return v;
}

/* mutator->Mutate(value, mode): the in-place entry only for a uniquely owned object. */
static TVMFFIAny mutate_value(mutator* m, const TVMFFIAny* v, int mode) {
  if (mode == ALLOW && is_unique(v)) return m->vtable->maybe_inplace_mutate(m, *v);
  return m->vtable->mutate(m, *v);
}

/* ---- hooks of the built-in types ---------------------------------------------- */

static TVMFFIAny hook_leaf(mutator* m, TVMFFIAny v) {
  (void)m;
  (void)v;
  return unchanged();
}

static TVMFFIAny seq_mutate(mutator* m, TVMFFIAny v) {
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(v.v_obj);
  int64_t n = s->size;
  TVMFFIObject* out = NULL;
  for (int64_t i = 0; i < n; ++i) {
    const TVMFFIAny* item = &((TVMFFIAny*)s->data)[i];
    TVMFFIAny r = mutate_value(m, item, DISALLOW);
    if (is_error(&r)) {
      tvmffi__decref(out);
      return r;
    }
    if (out == NULL && !changed(&r, item)) {
      tvmffi__any_release(&r);
      continue;
    }
    if (out == NULL) { /* first change: copy the prefix */
      out = v.type_index == kTVMFFIArray ? tvmffi__array_new(n) : tvmffi__list_new(n);
      if (out == NULL) {
        tvmffi__any_release(&r);
        return tvmffi__raw_raised();
      }
      for (int64_t k = 0; k < i; ++k) {
        TVMFFIAny c;
        tvmffi__any_copy(&((TVMFFIAny*)s->data)[k], &c);
        tvmffi__array_push_move(out, &c);
      }
    }
    if (r.type_index == kTVMFFIUnchanged) tvmffi__any_copy(item, &r);
    tvmffi__array_push_move(out, &r);
  }
  if (out == NULL) return unchanged();
  return view_of(out);
}

static TVMFFIAny seq_maybe_inplace(mutator* m, TVMFFIAny v) {
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(v.v_obj);
  for (int64_t i = 0; i < s->size; ++i) {
    TVMFFIAny* item = &((TVMFFIAny*)s->data)[i];
    TVMFFIAny r = mutate_value(m, item, ALLOW);
    if (is_error(&r)) return r;
    if (changed(&r, item)) {
      TVMFFIAny old = *item;
      *item = r;
      tvmffi__any_release(&old);
    } else {
      tvmffi__any_release(&r);
    }
  }
  return unchanged();
}

static TVMFFIAny map_mutate(mutator* m, TVMFFIAny v) {
  TVMFFIMapCell* c = TVMFFIMapGetCellPtr(v.v_obj);
  TVMFFIObject* out = NULL;
  for (uint64_t p = TVMFFIMapCellIterBegin(c); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(c, p)) {
    const TVMFFIAny* old = TVMFFIMapCellValue(c, p);
    TVMFFIAny r = mutate_value(m, old, DISALLOW);
    if (is_error(&r)) {
      tvmffi__decref(out);
      return r;
    }
    if (out == NULL && !changed(&r, old)) {
      tvmffi__any_release(&r);
      continue;
    }
    if (out == NULL) { /* first change: copy the entries before it */
      out = tvmffi__map_new(v.type_index);
      for (uint64_t q = TVMFFIMapCellIterBegin(c); out != NULL && q != p;
           q = TVMFFIMapCellIterNext(c, q)) {
        TVMFFIAny key, val;
        tvmffi__any_copy(TVMFFIMapCellKey(c, q), &key);
        tvmffi__any_copy(TVMFFIMapCellValue(c, q), &val);
        if (tvmffi__map_set(&out, &key, &val) != 0) {
          tvmffi__any_release(&key);
          tvmffi__any_release(&val);
          tvmffi__decref(out);
          out = NULL;
        }
      }
      if (out == NULL) {
        tvmffi__any_release(&r);
        return tvmffi__raw_raised();
      }
    }
    if (r.type_index == kTVMFFIUnchanged) tvmffi__any_copy(old, &r);
    TVMFFIAny key;
    tvmffi__any_copy(TVMFFIMapCellKey(c, p), &key);
    if (tvmffi__map_set(&out, &key, &r) != 0) {
      tvmffi__any_release(&key);
      tvmffi__any_release(&r);
      tvmffi__decref(out);
      return tvmffi__raw_raised();
    }
  }
  if (out == NULL) return unchanged();
  return view_of(out);
}

static TVMFFIAny map_maybe_inplace(mutator* m, TVMFFIAny v) {
  TVMFFIMapCell* c = TVMFFIMapGetCellPtr(v.v_obj);
  for (uint64_t p = TVMFFIMapCellIterBegin(c); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(c, p)) {
    TVMFFIAny* slot = TVMFFIMapCellValue(c, p);
    TVMFFIAny r = mutate_value(m, slot, ALLOW);
    if (is_error(&r)) return r;
    if (changed(&r, slot)) {
      TVMFFIAny old = *slot;
      *slot = r;
      tvmffi__any_release(&old);
    } else {
      tvmffi__any_release(&r);
    }
  }
  return unchanged();
}

/* ---- default mutation ----------------------------------------------------------- */

/* The hook registered under `name` for type t: OpaquePtr, Function or None. */
static TVMFFIAny column_get(const char* name, const TVMFFITypeAttrColumn** cache, int32_t t) {
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  const TVMFFITypeAttrColumn* col = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (col == NULL) {
    TVMFFIByteArray n = {name, strlen(name)};
    col = TVMFFIGetTypeAttrColumn(&n);
    if (col == NULL) return none;
    __atomic_store_n(cache, col, __ATOMIC_RELEASE);
  }
  int32_t i = t - col->begin_index;
  if (i < 0 || i >= col->size) return none;
  return col->data[i];
}

static TVMFFIAny call_fn(TVMFFIObject* fn, TVMFFIAny* args, int32_t n) {
  TVMFFIAny r;
  tvmffi__any_set_none(&r);
  if (tvmffi__function_call(fn, args, n, &r) != 0) return tvmffi__raw_raised();
  return r;
}

static TVMFFIAny call_hook(mutator* m, const TVMFFIAny* hook, const TVMFFIAny* v) {
  if (hook->type_index == kTVMFFIOpaquePtr) return ((raw_mutate_fn)hook->v_ptr)(m, *v);
  TVMFFIAny args[2] = {view_of(&m->header), *v};
  return call_fn(hook->v_obj, args, 2);
}

static TVMFFIAny with_region(mutator* m, int32_t kind, TVMFFIAny (*fn)(mutator*, void*),
                             void* ctx) {
  if (m->def_region == kTVMFFIDefRegionKindPattern) return fn(m, ctx);
  int32_t saved = m->def_region;
  m->def_region = kind;
  TVMFFIAny r = fn(m, ctx);
  m->def_region = saved;
  return r;
}

typedef struct {
  mutator* m;
  TVMFFIObject* copy;
  const TVMFFITypeInfo* info;
  int changed;
  TVMFFIAny error; /* None, or the error that stopped the walk */
} field_ctx;

static TVMFFIAny mutate_field_value(mutator* m, void* v) {
  return mutate_value(m, (const TVMFFIAny*)v, DISALLOW);
}

static int mutate_one_field(void* vctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  field_ctx* ctx = (field_ctx*)vctx;
  mutator* m = ctx->m;
  TVMFFIAny r;
  if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashDefSimple)
    r = with_region(m, kTVMFFIDefRegionKindSimple, mutate_field_value, (void*)v);
  else if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashDefPattern)
    r = with_region(m, kTVMFFIDefRegionKindPattern, mutate_field_value, (void*)v);
  else
    r = mutate_value(m, v, DISALLOW);
  if (is_error(&r)) {
    ctx->error = r;
    return 1;
  }
  if (!changed(&r, v)) {
    tvmffi__any_release(&r);
    return 0;
  }
  if (f->setter == NULL) {
    tvmffi__any_release(&r);
    tvmffi__raise("TypeError",
                  "Cannot structurally mutate field `%.*s` of type `%s` because it does not "
                  "define a setter",
                  (int)f->name.size, f->name.data, ctx->info->type_key.data);
    ctx->error = tvmffi__raw_raised();
    return 1;
  }
  int rc = tvmffi__field_store(f, ctx->copy, &r);
  tvmffi__any_release(&r);
  if (rc != 0) {
    ctx->error = tvmffi__raw_raised();
    return 1;
  }
  ctx->changed = 1;
  return 0;
}

static TVMFFIAny walk_fields(mutator* m, void* varg) {
  TVMFFIObject* copy = (TVMFFIObject*)varg;
  field_ctx ctx;
  ctx.m = m;
  ctx.copy = copy;
  ctx.info = tvmffi__type_info_lookup(copy->type_index);
  ctx.changed = 0;
  tvmffi__any_set_none(&ctx.error);
  int rc =
      tvmffi__ext_visit_fields(copy, kTVMFFIFieldFlagBitMaskSEqHashIgnore, mutate_one_field, &ctx);
  if (rc < 0 && !is_error(&ctx.error)) return tvmffi__raw_raised(); /* a getter failed */
  if (is_error(&ctx.error)) return ctx.error;
  TVMFFIAny r;
  r.type_index = ctx.changed ? 1 : 0;
  r.zero_padding = 0;
  r.v_int64 = 0;
  return r;
}

/* Shallow-copies v through `__ffi_shallow_copy__` and mutates the copy's fields. */
static TVMFFIAny mutate_reflected_fields(mutator* m, const TVMFFIAny* v) {
  static const TVMFFITypeAttrColumn* col;
  TVMFFIAny copy_fn = column_get("__ffi_shallow_copy__", &col, v->type_index);
  if (copy_fn.type_index != kTVMFFIFunction)
    return raise_result("TypeError", "__ffi_shallow_copy__ must be an ffi.Function");
  TVMFFIAny arg = *v;
  TVMFFIAny copy = call_fn(copy_fn.v_obj, &arg, 1);
  if (is_error(&copy)) return copy;
  if (copy.type_index != v->type_index || copy.v_obj == v->v_obj) {
    tvmffi__any_release(&copy);
    return raise_result(
        "TypeError",
        "Shallow copy callback must return a distinct object with the same type as its input");
  }
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(copy.type_index);
  TVMFFIAny r;
  if (m->def_region == kTVMFFIDefRegionKindSimple && info->metadata != NULL &&
      info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindFreeVar) {
    int32_t saved = m->def_region;
    m->def_region = kTVMFFIDefRegionKindNone;
    r = walk_fields(m, copy.v_obj);
    m->def_region = saved;
  } else {
    r = walk_fields(m, copy.v_obj);
  }
  if (is_error(&r) || r.type_index == 0) {
    tvmffi__any_release(&copy);
    return is_error(&r) ? r : unchanged();
  }
  return copy;
}

static int32_t seq_hash_kind(int32_t type_index) {
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(type_index);
  return info == NULL || info->metadata == NULL ? kTVMFFISEqHashKindUnsupported
                                                : info->metadata->structural_eq_hash_kind;
}

static TVMFFIAny default_mutate_object(mutator* m, const TVMFFIAny* v) {
  int32_t kind = seq_hash_kind(v->type_index);
  int is_var = kind == kTVMFFISEqHashKindFreeVar, is_dag = kind == kTVMFFISEqHashKindDAGNode;
  if (is_var || is_dag) {
    TVMFFIAny mapped = m->vtable->var_remap_get(m, *v);
    if (mapped.type_index != kTVMFFINone) return mapped; /* a result, or an error */
  }
  if (is_var && m->def_region == kTVMFFIDefRegionKindNone) return unchanged();
  TVMFFIAny r = mutate_reflected_fields(m, v);
  if (is_error(&r)) return r;
  if ((is_var || is_dag) && (is_dag || m->def_region == kTVMFFIDefRegionKindPattern ||
                             r.type_index != kTVMFFIUnchanged)) {
    TVMFFIAny s = m->vtable->var_remap_set(m, *v, r);
    if (is_error(&s)) {
      tvmffi__any_release(&r);
      return s;
    }
  }
  return r;
}

static TVMFFIAny default_mutate(mutator* m, const TVMFFIAny* v) {
  static const TVMFFITypeAttrColumn* col;
  TVMFFIAny hook = column_get("__s_mutate__", &col, v->type_index);
  if (hook.type_index == kTVMFFIOpaquePtr || hook.type_index == kTVMFFIFunction)
    return call_hook(m, &hook, v);
  if (hook.type_index != kTVMFFINone)
    return raise_result("TypeError", "__s_mutate__ must be a direct hook pointer or ffi.Function");
  if (v->type_index < kTVMFFIStaticObjectBegin) return *v; /* POD: owned as it is */
  return default_mutate_object(m, v);
}

static TVMFFIAny default_maybe_inplace(mutator* m, const TVMFFIAny* v) {
  static const TVMFFITypeAttrColumn* col;
  TVMFFIAny hook = column_get("__s_maybe_inplace_mutate__", &col, v->type_index);
  if (hook.type_index == kTVMFFIOpaquePtr || hook.type_index == kTVMFFIFunction)
    return call_hook(m, &hook, v);
  return default_mutate(m, v);
}

static TVMFFIAny default_mode(mutator* m, const TVMFFIAny* v, int mode) {
  return mode == ALLOW ? default_maybe_inplace(m, v) : default_mutate(m, v);
}

/* ---- this runtime's engines ------------------------------------------------------- */

typedef struct {
  int32_t type_index;
  int flavour; /* map: 1 = with def-region kind; mutate: 1 = with inplace mode */
  TVMFFIObject* fn; /* owned */
} callback;

enum { ENGINE_MAP_PRE, ENGINE_MAP_POST, ENGINE_MUTATE };

typedef struct {
  mutator base;
  int engine;
  int depth;
  callback* callbacks;
  int64_t num_callbacks;
  /* variable remap: open addressing keyed by object address (keys owned) */
  TVMFFIObject** keys;
  TVMFFIAny* values;
  uint64_t cap, count;
  /* results of the nodes mapped so far (memo: node, region and mode -> index), so that a
   * node met again (shared: a DAG) is not mapped again: linear in the distinct nodes */
  tvmffi__memo done;
  struct done_entry {
    TVMFFIObject* node; /* owned: its address is the key */
    TVMFFIAny result;   /* owned */
  }* results;
  size_t n_results, cap_results;
} engine;

#define ENGINE_MAX_DEPTH 1000

static void engine_deleter(void* self, int flags) {
  engine* e = (engine*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    for (int64_t i = 0; i < e->num_callbacks; ++i) tvmffi__decref(e->callbacks[i].fn);
    free(e->callbacks);
    e->callbacks = NULL;
    e->num_callbacks = 0;
    for (uint64_t i = 0; i < e->cap; ++i) {
      if (e->keys[i] == NULL) continue;
      tvmffi__decref(e->keys[i]);
      tvmffi__any_release(&e->values[i]);
    }
    free(e->keys);
    free(e->values);
    e->keys = NULL;
    e->values = NULL;
    e->cap = e->count = 0;
    for (size_t i = 0; i < e->n_results; ++i) {
      tvmffi__decref(e->results[i].node);
      tvmffi__any_release(&e->results[i].result);
    }
    free(e->results);
    e->results = NULL;
    e->n_results = e->cap_results = 0;
    tvmffi__memo_free(&e->done);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static uint64_t slot_of(const engine* e, const TVMFFIObject* key) {
  uint64_t h = ((uint64_t)(uintptr_t)key >> 4) * UINT64_C(11400714819323198485);
  uint64_t i = h & (e->cap - 1);
  while (e->keys[i] != NULL && e->keys[i] != key) i = (i + 1) & (e->cap - 1);
  return i;
}

static TVMFFIAny remap_key_error(void) {
  return raise_result("TypeError", "Variable-remap key must be an object-backed value");
}

static TVMFFIAny engine_remap_get(mutator* m, TVMFFIAny var) {
  engine* e = (engine*)m;
  if (var.type_index < kTVMFFIStaticObjectBegin) return remap_key_error();
  TVMFFIAny r;
  tvmffi__any_set_none(&r);
  if (e->count == 0) return r;
  uint64_t i = slot_of(e, var.v_obj);
  if (e->keys[i] != NULL) tvmffi__any_copy(&e->values[i], &r);
  return r;
}

static int remap_grow(engine* e) {
  uint64_t cap = e->cap ? e->cap * 2 : 16;
  TVMFFIObject** keys = (TVMFFIObject**)calloc(cap, sizeof(*keys));
  TVMFFIAny* values = (TVMFFIAny*)calloc(cap, sizeof(*values));
  if (keys == NULL || values == NULL) {
    free(keys);
    free(values);
    return tvmffi__raise_oom();
  }
  engine old = *e;
  e->keys = keys;
  e->values = values;
  e->cap = cap;
  for (uint64_t i = 0; i < old.cap; ++i) {
    if (old.keys[i] == NULL) continue;
    uint64_t j = slot_of(e, old.keys[i]);
    e->keys[j] = old.keys[i];
    e->values[j] = old.values[i];
  }
  free(old.keys);
  free(old.values);
  return 0;
}

static TVMFFIAny engine_remap_set(mutator* m, TVMFFIAny var, TVMFFIAny mapped) {
  engine* e = (engine*)m;
  if (var.type_index < kTVMFFIStaticObjectBegin) return remap_key_error();
  if ((e->count + 1) * 2 > e->cap && remap_grow(e) != 0) return tvmffi__raw_raised();
  uint64_t i = slot_of(e, var.v_obj);
  TVMFFIAny owned;
  tvmffi__any_copy(&mapped, &owned);
  if (e->keys[i] == NULL) {
    tvmffi__incref(var.v_obj);
    e->keys[i] = var.v_obj;
    e->count++;
  } else {
    tvmffi__any_release(&e->values[i]);
  }
  e->values[i] = owned;
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  return none;
}

static const callback* find_callback(const engine* e, int32_t t) {
  for (int64_t i = 0; i < e->num_callbacks; ++i)
    if (tvmffi__structural_type_match(t, e->callbacks[i].type_index)) return &e->callbacks[i];
  return NULL;
}

/* Calls a map callback on v: (v) or (v, def_region_kind). */
static TVMFFIAny call_map_callback(engine* e, const callback* cb, const TVMFFIAny* v) {
  TVMFFIAny args[2];
  args[0] = *v;
  tvmffi__any_set_int(&args[1], e->base.def_region);
  return call_fn(cb->fn, args, cb->flavour ? 2 : 1);
}

/* Records the node an error left (the VisitErrorContext the C++ engines keep too). */
static void note_error(TVMFFIAny* r, const TVMFFIAny* node) {
  if (tvmffi__visit_error_note(r->v_obj, node) != 0) {
    tvmffi__any_release(r);
    *r = tvmffi__raw_raised();
  }
}

/* mutate(x) = post(D(pre(x))) for the map engines.  An error records the node it
 * left: the descended node when the post-order callback failed on it, else v. */
static TVMFFIAny map_dispatch(engine* e, TVMFFIAny v, int mode) {
  mutator* m = &e->base;
  if (e->engine == ENGINE_MAP_POST) {
    TVMFFIAny out = default_mode(m, &v, mode);
    if (is_error(&out)) {
      note_error(&out, &v);
      return out;
    }
    const TVMFFIAny* mapped = out.type_index == kTVMFFIUnchanged ? &v : &out;
    const callback* cb = find_callback(e, mapped->type_index);
    if (cb == NULL) return out;
    TVMFFIAny r = call_map_callback(e, cb, mapped);
    if (is_error(&r)) note_error(&r, mapped);
    if (is_error(&r) || r.type_index != kTVMFFIUnchanged) {
      tvmffi__any_release(&out);
      return r;
    }
    return out;
  }
  const callback* cb = find_callback(e, v.type_index);
  TVMFFIAny out;
  if (cb == NULL) {
    out = default_mode(m, &v, mode);
    if (is_error(&out)) note_error(&out, &v);
    return out;
  }
  TVMFFIAny mapped = call_map_callback(e, cb, &v);
  if (is_error(&mapped)) {
    note_error(&mapped, &v);
    return mapped;
  }
  const TVMFFIAny* descent = mapped.type_index == kTVMFFIUnchanged ? &v : &mapped;
  int sub_mode = DISALLOW;
  if (mode == ALLOW) sub_mode = same_as(descent, &v) || is_unique(descent) ? ALLOW : DISALLOW;
  out = default_mode(m, descent, sub_mode);
  if (is_error(&out)) {
    tvmffi__any_release(&mapped);
    note_error(&out, &v);
    return out;
  }
  if (out.type_index == kTVMFFIUnchanged) return mapped;
  tvmffi__any_release(&mapped);
  return out;
}

/* The first matching callback owns the value; others get the default mutation. */
static TVMFFIAny mutate_dispatch(engine* e, TVMFFIAny v, int mode) {
  const callback* cb = find_callback(e, v.type_index);
  TVMFFIAny r;
  if (cb == NULL) {
    r = default_mode(&e->base, &v, mode);
  } else {
    TVMFFIAny args[3];
    args[0] = v;
    args[1] = view_of(&e->base.header);
    tvmffi__any_set_int(&args[2], mode);
    r = call_fn(cb->fn, args, cb->flavour ? 3 : 2);
  }
  if (is_error(&r)) note_error(&r, &v);
  return r;
}

static void remember_result(engine* e, TVMFFIObject* node, const void* where, const TVMFFIAny* r) {
  if (e->n_results == e->cap_results) {
    size_t cap = e->cap_results ? e->cap_results * 2 : 64;
    struct done_entry* grown =
        (struct done_entry*)realloc(e->results, cap * sizeof(struct done_entry));
    if (grown == NULL) return; /* (the memo only saves time) */
    e->results = grown;
    e->cap_results = cap;
  }
  struct done_entry* d = &e->results[e->n_results];
  tvmffi__incref(node);
  d->node = node;
  tvmffi__any_copy(r, &d->result);
  tvmffi__memo_put(&e->done, node, where, e->n_results++);
}

static TVMFFIAny engine_enter(mutator* m, TVMFFIAny v, int mode) {
  engine* e = (engine*)m;
  if (e->depth >= ENGINE_MAX_DEPTH) {
    tvmffi__raise("RuntimeError",
                  "structural mutate: maximum recursion depth %d exceeded (cyclic structure?)",
                  ENGINE_MAX_DEPTH);
    return tvmffi__raw_raised();
  }
  /* a node's result depends on the def-region kind and the in-place mode it is met with */
  const void* where = (const void*)(uintptr_t)(((uint64_t)(uint32_t)m->def_region << 1 | mode) + 1);
  /* (from the first node on: a shared node maps to one result wherever it is met).  A free
   * variable is left out: what it maps to follows the variable remap as it stands when met
   * (a simple definition left unchanged is walked again as a pattern definition), and a
   * callback on it runs at each meeting, as upstream's engine does.  Cheap all the same: a
   * use is one remap lookup, and its meetings are bounded by the edges of the memoized
   * nodes above it. */
  int memo = v.type_index >= kTVMFFIStaticObjectBegin && tvmffi__ext_shared(v.v_obj) &&
             seq_hash_kind(v.type_index) != kTVMFFISEqHashKindFreeVar &&
             tvmffi__memo_start(&e->done);
  uint64_t i;
  TVMFFIAny r;
  if (memo && tvmffi__memo_get(&e->done, v.v_obj, where, &i)) {
    tvmffi__any_copy(&e->results[i].result, &r);
    return r;
  }
  e->depth++;
  r = e->engine == ENGINE_MUTATE ? mutate_dispatch(e, v, mode) : map_dispatch(e, v, mode);
  e->depth--;
  if (memo && !is_error(&r)) remember_result(e, v.v_obj, where, &r);
  return r;
}

static TVMFFIAny engine_mutate(mutator* m, TVMFFIAny v) { return engine_enter(m, v, DISALLOW); }
static TVMFFIAny engine_maybe_inplace(mutator* m, TVMFFIAny v) { return engine_enter(m, v, ALLOW); }

static const mutator_vtable g_engine_vtable = {engine_mutate, engine_maybe_inplace,
                                               engine_remap_get, engine_remap_set};

/* ---- globals ------------------------------------------------------------------------ */

#define SIG_MAP                                                               \
  "ffi.StructuralMap(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function>>, 2: " \
  "ffi.Array<ffi.Tuple<int, ffi.Function>>, 3: int) -> Any"
#define SIG_MUTATE \
  "ffi.StructuralMutate(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function, bool>>) -> Any"

/* Appends the (type_index, Function[, bool]) entries of args[i]. */
static int parse_callbacks(const char* sig, const TVMFFIAny* args, int32_t i, int width,
                           int flavour, engine* e) {
  TVMFFIAny a = tvmffi__ext_peek(&args[i]);
  if (a.type_index == kTVMFFINone) return 0;
  if (a.type_index != kTVMFFIArray && a.type_index != kTVMFFIList)
    return tvmffi__raise("TypeError",
                         "%s: argument #%d must be an Array of callback entries, got `%s`", sig,
                         (int)i, tvmffi__any_type_key(&a));
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(a.v_obj);
  callback* grown =
      (callback*)realloc(e->callbacks, (size_t)(e->num_callbacks + s->size + 1) * sizeof(callback));
  if (grown == NULL) return tvmffi__raise_oom();
  e->callbacks = grown;
  for (int64_t k = 0; k < s->size; ++k) {
    const TVMFFIAny* item = &((TVMFFIAny*)s->data)[k];
    TVMFFISeqCell* t = NULL;
    if (item->type_index == kTVMFFIArray || item->type_index == kTVMFFIList)
      t = TVMFFISeqGetCellPtr(item->v_obj);
    const TVMFFIAny* tv = t ? (const TVMFFIAny*)t->data : NULL;
    if (t == NULL || t->size != width || tv[0].type_index != kTVMFFIInt ||
        tv[1].type_index != kTVMFFIFunction ||
        (width == 3 && tv[2].type_index != kTVMFFIBool && tv[2].type_index != kTVMFFIInt))
      return tvmffi__raise("TypeError", "%s: entry %lld of argument #%d must be a %s tuple", sig,
                           (long long)k, (int)i,
                           width == 3 ? "(type_index: int, callback: Function, with_mode: bool)"
                                      : "(type_index: int, callback: Function)");
    callback* cb = &e->callbacks[e->num_callbacks++];
    cb->type_index = (int32_t)tv[0].v_int64;
    cb->flavour = width == 3 ? (int)(tv[2].v_int64 != 0) : flavour;
    cb->fn = tv[1].v_obj;
    tvmffi__incref(cb->fn);
  }
  return 0;
}

static engine* engine_new(int kind) {
  engine* e = (engine*)tvmffi__object_alloc(sizeof(engine), g_mutator_index, engine_deleter);
  if (e == NULL) return NULL;
  e->base.vtable = &g_engine_vtable;
  e->base.def_region = kTVMFFIDefRegionKindNone;
  e->engine = kind;
  return e;
}

/* Owned root: an rvalue-ref argument is taken over (so the engine may see it as unique). */
static TVMFFIAny take_root(const TVMFFIAny* arg) {
  TVMFFIAny root;
  if (arg->type_index == kTVMFFIObjectRValueRef) {
    TVMFFIObject** slot = (TVMFFIObject**)arg->v_ptr;
    tvmffi__any_set_obj(&root, *slot);
    *slot = NULL;
    return root;
  }
  if (tvmffi__container_key_acquire(arg, &root) != 0) tvmffi__any_set_none(&root);
  return root;
}

static int run_engine(engine* e, const TVMFFIAny* root_arg, TVMFFIAny* result) {
  TVMFFIAny root = take_root(root_arg);
  TVMFFIAny r = mutate_value(&e->base, &root, ALLOW);
  tvmffi__decref(&e->base.header);
  if (is_error(&r)) {
    tvmffi__any_release(&root);
    return tvmffi__raw_reraise(&r);
  }
  if (r.type_index == kTVMFFIUnchanged) {
    *result = root;
  } else {
    tvmffi__any_release(&root);
    *result = r;
  }
  return 0;
}

static int g_map(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int64_t order;
  if (tvmffi__args_count(SIG_MAP, n, 4) != 0 || tvmffi__arg_int(SIG_MAP, args, 3, &order) != 0)
    return -1;
  if (order != 0 && order != 1)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralMap: order must be 0 (pre-order) or 1 (post-order), got "
                         "%lld",
                         (long long)order);
  engine* e = engine_new(order == 0 ? ENGINE_MAP_PRE : ENGINE_MAP_POST);
  if (e == NULL) return -1;
  if (parse_callbacks(SIG_MAP, args, 1, 2, 0, e) != 0 ||
      parse_callbacks(SIG_MAP, args, 2, 2, 1, e) != 0) {
    tvmffi__decref(&e->base.header);
    return -1;
  }
  return run_engine(e, &args[0], result);
}

static int g_mutate(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count(SIG_MUTATE, n, 2) != 0) return -1;
  engine* e = engine_new(ENGINE_MUTATE);
  if (e == NULL) return -1;
  if (parse_callbacks(SIG_MUTATE, args, 1, 3, 0, e) != 0) {
    tvmffi__decref(&e->base.header);
    return -1;
  }
  return run_engine(e, &args[0], result);
}

/* Methods of any mutator (this runtime's or a C++ engine's), through its vtable. */
static int mutator_arg(const char* sig, const TVMFFIAny* args, int32_t n, int32_t want,
                       mutator** out) {
  TVMFFIObject* obj;
  if (tvmffi__args_count(sig, n, want) != 0 ||
      tvmffi__arg_obj(sig, args, 0, g_mutator_index, &obj) != 0)
    return -1;
  *out = (mutator*)obj;
  if ((*out)->vtable == NULL)
    return tvmffi__raise("RuntimeError", "%s: the mutator has no vtable", sig);
  return 0;
}

/* Owned value from a raw result (Unchanged resolves to `input`). */
static int finish(TVMFFIAny r, const TVMFFIAny* input, TVMFFIAny* result) {
  if (is_error(&r)) return tvmffi__raw_reraise(&r);
  if (r.type_index == kTVMFFIUnchanged) return tvmffi__container_key_acquire(input, result);
  *result = r;
  return 0;
}

#define SIG_M_MUTATE "ffi.StructuralMutatorMutate(0: ffi.StructuralMutator, 1: Any) -> Any"
#define SIG_M_DEFAULT "ffi.StructuralMutatorDefaultMutate(0: ffi.StructuralMutator, 1: Any) -> Any"
#define SIG_M_GET "ffi.StructuralMutatorVarRemapGet(0: ffi.StructuralMutator, 1: Any) -> Any"
#define SIG_M_SET \
  "ffi.StructuralMutatorVarRemapSet(0: ffi.StructuralMutator, 1: Any, 2: Any) -> None"
#define SIG_M_KIND "ffi.StructuralMutatorDefRegionKind(0: ffi.StructuralMutator) -> int"
#define SIG_M_WITH                                                                             \
  "ffi.StructuralMutatorWithDefRegionKind(0: ffi.StructuralMutator, 1: int, 2: ffi.Function) " \
  "-> Any"

static int g_m_mutate(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  if (mutator_arg(SIG_M_MUTATE, args, n, 2, &m) != 0) return -1;
  TVMFFIAny v = tvmffi__ext_peek(&args[1]);
  return finish(m->vtable->mutate(m, v), &v, result);
}

static int g_m_default(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  if (mutator_arg(SIG_M_DEFAULT, args, n, 2, &m) != 0) return -1;
  TVMFFIAny v = tvmffi__ext_peek(&args[1]);
  return finish(default_mutate(m, &v), &v, result);
}

static int g_m_get(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  if (mutator_arg(SIG_M_GET, args, n, 2, &m) != 0) return -1;
  TVMFFIAny r = m->vtable->var_remap_get(m, tvmffi__ext_peek(&args[1]));
  if (is_error(&r)) return tvmffi__raw_reraise(&r);
  *result = r;
  return 0;
}

static int g_m_set(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  if (mutator_arg(SIG_M_SET, args, n, 3, &m) != 0) return -1;
  TVMFFIAny mapped;
  if (tvmffi__container_key_acquire(&args[2], &mapped) != 0) return -1;
  TVMFFIAny r = m->vtable->var_remap_set(m, tvmffi__ext_peek(&args[1]), mapped);
  tvmffi__any_release(&mapped);
  if (is_error(&r)) return tvmffi__raw_reraise(&r);
  tvmffi__any_release(&r);
  tvmffi__any_set_none(result);
  return 0;
}

static int g_m_kind(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  if (mutator_arg(SIG_M_KIND, args, n, 1, &m) != 0) return -1;
  tvmffi__any_set_int(result, m->def_region);
  return 0;
}

static int g_m_with(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  mutator* m;
  int64_t kind;
  TVMFFIObject* fn;
  if (mutator_arg(SIG_M_WITH, args, n, 3, &m) != 0 ||
      tvmffi__arg_int(SIG_M_WITH, args, 1, &kind) != 0 ||
      tvmffi__arg_obj(SIG_M_WITH, args, 2, kTVMFFIFunction, &fn) != 0)
    return -1;
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindSimple)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralMutatorWithDefRegionKind: kind must be 0 (none), 1 "
                         "(pattern) or 2 (simple), got %lld",
                         (long long)kind);
  if (m->def_region == kTVMFFIDefRegionKindPattern)
    return tvmffi__function_call(fn, NULL, 0, result);
  int32_t saved = m->def_region;
  m->def_region = (int32_t)kind;
  int rc = tvmffi__function_call(fn, NULL, 0, result);
  m->def_region = saved;
  return rc;
}

/* The shared default mutation as a raw entry point for header-only C++ engines:
 * TVMFFIAny (*)(mutator, value, int32_t inplace_mode). */
static TVMFFIAny default_entry(mutator* m, TVMFFIAny v, int32_t mode) {
  return default_mode(m, &v, mode == ALLOW ? ALLOW : DISALLOW);
}

static int g_default_entry(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count("ffi.StructuralMutateDefaultEntry() -> void*", n, 0) != 0) return -1;
  result->type_index = kTVMFFIOpaquePtr;
  result->zero_padding = 0;
  result->v_ptr = (void*)default_entry;
  return 0;
}

/* ---- __ffi_shallow_copy__ of the runtime's reflected types ------------------------ */

/* A byte copy of an object whose fields are read by the common getters; the copy holds
 * its own references to the Any and object fields. */
static int g_shallow_copy(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  static const char sig[] = "__ffi_shallow_copy__(0: Object) -> Object";
  TVMFFIObject* src;
  if (tvmffi__args_count(sig, n, 1) != 0 || tvmffi__arg_obj(sig, args, 0, kTVMFFIObject, &src) != 0)
    return -1;
  const TVMFFITypeInfo* info = tvmffi__type_info_lookup(src->type_index);
  if (info == NULL || info->metadata == NULL || info->metadata->total_size <= 0)
    return tvmffi__raise("TypeError", "%s: `%s` has no known size", sig,
                         tvmffi__type_key(src->type_index));
  size_t size = (size_t)info->metadata->total_size;
  TVMFFIObject* copy = (TVMFFIObject*)malloc(size);
  if (copy == NULL) return tvmffi__raise_oom();
  memcpy(copy, src, size);
  tvmffi__object_init(copy, src->type_index, src->deleter);
  for (int32_t d = 0; d <= info->type_depth; ++d) {
    const TVMFFITypeInfo* t = d < info->type_depth ? info->type_ancestors[d] : info;
    for (int32_t i = 0; i < t->num_fields; ++i) {
      const TVMFFIFieldInfo* f = &t->fields[i];
      void* addr = (char*)copy + f->offset;
      if (f->getter == tvmffi__getter_any) {
        TVMFFIAny* v = (TVMFFIAny*)addr;
        if (v->type_index >= kTVMFFIStaticObjectBegin) tvmffi__incref(v->v_obj);
      } else if (f->getter == tvmffi__getter_obj && *(TVMFFIObject**)addr != NULL) {
        tvmffi__incref(*(TVMFFIObject**)addr);
      }
    }
  }
  tvmffi__any_set_obj(result, copy);
  return 0;
}

/* ---- registration ----------------------------------------------------------------- */

void tvmffi__structural_add_raw_hook(int32_t type_index, const char* name, void* fn) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIAny v;
  v.type_index = kTVMFFIOpaquePtr;
  v.zero_padding = 0;
  v.v_ptr = fn;
  if (TVMFFITypeRegisterAttr(type_index, &n, &v) != 0) tvmffi__fatal("cannot register %s", name);
}

static void register_hook(int32_t type_index, const char* name, raw_mutate_fn fn) {
  tvmffi__structural_add_raw_hook(type_index, name, (void*)fn);
}

void tvmffi__structural_ensure_column(const char* name) {
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIAny none;
  tvmffi__any_set_none(&none);
  if (TVMFFITypeRegisterAttr(kTVMFFINone, &n, &none) != 0)
    tvmffi__fatal("cannot create the %s column", name);
}

void tvmffi__structural_mutate_globals_init(void) {
  g_mutator_index = tvmffi__structural_new_type(
      "ffi.StructuralMutator", -1, (int32_t)sizeof(engine), kTVMFFISEqHashKindUniqueInstance,
      "State of a running structural mutation.");
  tvmffi__structural_ensure_column("__s_mutate__");
  tvmffi__structural_ensure_column("__s_maybe_inplace_mutate__");
  tvmffi__structural_ensure_column("__ffi_shallow_copy__");
  static const int32_t leaves[] = {kTVMFFIStr, kTVMFFIBytes, kTVMFFIBigInt};
  for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); ++i) {
    if (tvmffi__type_info_lookup(leaves[i]) == NULL) continue;
    register_hook(leaves[i], "__s_mutate__", hook_leaf);
    register_hook(leaves[i], "__s_maybe_inplace_mutate__", hook_leaf);
  }
  static const int32_t seqs[] = {kTVMFFIArray, kTVMFFIList};
  static const int32_t maps[] = {kTVMFFIMap, kTVMFFIDict};
  for (int i = 0; i < 2; ++i) {
    register_hook(seqs[i], "__s_mutate__", seq_mutate);
    register_hook(seqs[i], "__s_maybe_inplace_mutate__", seq_maybe_inplace);
    register_hook(maps[i], "__s_mutate__", map_mutate);
    register_hook(maps[i], "__s_maybe_inplace_mutate__", map_maybe_inplace);
  }

  static const char* copyable[] = {"ffi.VisitInterrupt",
                                   "ffi.reflection.AccessStep",
                                   "ffi.reflection.AccessPath",
                                   "ffi.StructuralKey",
                                   "ffi.EnumState",
                                   "ffi.Enum",
                                   "ffi.IntEnum",
                                   "ffi.StrEnum"};
  for (size_t i = 0; i < sizeof(copyable) / sizeof(copyable[0]); ++i) {
    TVMFFIByteArray key = {copyable[i], strlen(copyable[i])};
    int32_t t;
    if (TVMFFITypeKeyToIndex(&key, &t) != 0) tvmffi__fatal("%s is not registered", copyable[i]);
    tvmffi__structural_add_attr_fn(t, "__ffi_shallow_copy__", g_shallow_copy);
  }

  tvmffi__register_global(
      "ffi.StructuralMap", g_map,
      "Maps a value with typed replacement callbacks (pre- or post-order).",
      SCHEMA_FN("Any", ARG("Any") ARG("ffi.Array") ARG("ffi.Array") ARG("int")));
  tvmffi__register_global("ffi.StructuralMutate", g_mutate,
                          "Mutates a value with callbacks that own their recursion.",
                          SCHEMA_FN("Any", ARG("Any") ARG("ffi.Array")));
  tvmffi__register_global("ffi.StructuralMutateDefaultEntry", g_default_entry,
                          "The default mutation as a raw entry point "
                          "(TVMFFIAny (*)(mutator, value, int32_t mode), for C++ engines).",
                          SCHEMA_FN("void*", ""));
  tvmffi__register_global("ffi.StructuralMutatorMutate", g_m_mutate,
                          "Mutates a value through the mutator (copy-on-write).",
                          SCHEMA_FN("Any", ARG("ffi.StructuralMutator") ARG("Any")));
  tvmffi__register_global("ffi.StructuralMutatorDefaultMutate", g_m_default,
                          "The registered/default mutation of a value.",
                          SCHEMA_FN("Any", ARG("ffi.StructuralMutator") ARG("Any")));
  tvmffi__register_global("ffi.StructuralMutatorVarRemapGet", g_m_get,
                          "Replacement recorded for a variable, or None.",
                          SCHEMA_FN("Any", ARG("ffi.StructuralMutator") ARG("Any")));
  tvmffi__register_global("ffi.StructuralMutatorVarRemapSet", g_m_set,
                          "Records the replacement of a variable.",
                          SCHEMA_FN("None", ARG("ffi.StructuralMutator") ARG("Any") ARG("Any")));
  tvmffi__register_global("ffi.StructuralMutatorDefRegionKind", g_m_kind,
                          "Def-region kind in effect (0 none, 1 pattern, 2 simple).",
                          SCHEMA_FN("int", ARG("ffi.StructuralMutator")));
  tvmffi__register_global(
      "ffi.StructuralMutatorWithDefRegionKind", g_m_with,
      "Calls callback() with the def-region kind set.",
      SCHEMA_FN("Any", ARG("ffi.StructuralMutator") ARG("int") ARG("ffi.Function")));
}
