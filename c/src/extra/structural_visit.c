/*
 * structural_visit.c -- ffi.VisitInterrupt (static index 77),
 * ffi.StructuralVisitor, ffi.StructuralWalk (docs/abi.md §14.4, since 0.1.13) and
 * ffi.StructuralVisit (since 0.1.16: the first matching callback gets
 * (value, visitor) and owns the descent; unmatched values have their children
 * visited; ffi.StructuralVisitorDefaultVisit visits a value's children).
 *
 * A walk visits the root, then the elements of Array/List, the values of
 * Map/Dict (keys are not visited) and the reflected fields of objects
 * (SEqHashIgnore fields skipped; def fields switch the def-region kind, as
 * structural equality does).  Strings, shapes, tensors and POD values are
 * leaves; None values are not visited.  For each value the first matching (type_index, callback) entry is
 * called -- plain entries with (value), def-region entries with (value,
 * kind); type_index -1 matches everything, an object type matches its
 * subclasses, 65/66 match small strings/bytes too.  In pre-order a callback
 * returning WalkResult.SKIP (1) prunes the value's children; any callback
 * returning a VisitInterrupt stops the walk, which then returns it.
 *
 * A type may customise its traversal with the type attribute "__s_visit__":
 * a Function called as (obj, visitor) that visits children through
 * ffi.StructuralVisitorVisit(visitor, child) and returns None or the
 * VisitInterrupt it got.  The visitor object is valid only during its walk.
 */
#include <string.h>

#include "structural.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIAny value; /* +24, owned */
} visit_interrupt;

/* A visitor has the layout C++ visitors share with us (extra/structural_visit.h):
 *   { TVMFFIObject header; const vtable* vtable; int32_t def_region; ... }
 * The vtable's one entry visits a value and returns a raw result: None (go on),
 * an owned VisitInterrupt (stop) or an owned ffi.Error.  default_visit below is
 * the descent every visitor shares (C++ engines reach it through
 * ffi.StructuralVisitDefaultEntry); the walk engine of ffi.StructuralWalk /
 * ffi.StructuralVisit is one visitor among others. */
typedef struct visitor visitor;
typedef TVMFFIAny (*raw_visit_fn)(visitor* vis, TVMFFIAny value);
typedef struct {
  raw_visit_fn visit;
} visitor_vtable;

struct visitor {
  TVMFFIObject header;
  const visitor_vtable* vtable; /* +24 */
  int32_t def_region;           /* +32 */
};

typedef struct {
  int32_t type_index;
  int with_kind;
  TVMFFIObject* fn; /* borrowed from the argument arrays */
} entry;

typedef struct {
  visitor base;
  entry* entries;
  int64_t num_entries;
  int post_order;
  int callback_owned; /* ffi.StructuralVisit: a matching callback owns the descent */
  int depth;
  int active; /* 0 once the walk is over (callbacks may keep the visitor) */
  /* (container or object, def-region kind) visited to the end: met again (a shared node,
   * past the memo's start) it is not visited again, so a walk is linear in distinct nodes */
  tvmffi__memo visited;
} walk_visitor;

static int32_t g_visitor_index = -1;

#define WALK_MAX_DEPTH 1000
#define WALK_SKIP 1

/* ---- objects ------------------------------------------------------------ */

static void interrupt_deleter(void* self, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong)
    tvmffi__any_release(&((visit_interrupt*)self)->value);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

static int interrupt_new(const TVMFFIAny* value, TVMFFIAny* result) {
  visit_interrupt* v = (visit_interrupt*)tvmffi__object_alloc(
      sizeof(visit_interrupt), kTVMFFIVisitInterrupt, interrupt_deleter);
  if (v == NULL) return -1;
  tvmffi__any_set_none(&v->value);
  if (tvmffi__container_key_acquire(value, &v->value) != 0) {
    tvmffi__decref(&v->header);
    return -1;
  }
  tvmffi__any_set_obj(result, &v->header);
  return 0;
}

/* ---- the shared descent ---------------------------------------------------- */

static TVMFFIAny none_result(void) {
  TVMFFIAny r;
  tvmffi__any_set_none(&r);
  return r;
}

/* A function result as a raw visit result: None and VisitInterrupt pass, anything
 * else (a WalkResult code, a stray value) means "go on". */
static TVMFFIAny visit_result(TVMFFIAny* res) {
  if (res->type_index == kTVMFFIVisitInterrupt || res->type_index == kTVMFFIError) return *res;
  tvmffi__any_release(res);
  return none_result();
}

static const TVMFFIAny* custom_visit_hook(int32_t type_index) {
  static const TVMFFIByteArray name = {"__s_visit__", 11};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
  if (col == NULL || type_index < col->begin_index || type_index >= col->begin_index + col->size)
    return NULL;
  const TVMFFIAny* v = &col->data[type_index - col->begin_index];
  return v->type_index == kTVMFFIFunction || v->type_index == kTVMFFIOpaquePtr ? v : NULL;
}

/* Calls a `__s_visit__` hook: a raw entry point (visitor, value), or a Function
 * called as (value, visitor). */
static TVMFFIAny call_visit_hook(visitor* vis, const TVMFFIAny* hook, const TVMFFIAny* v) {
  if (hook->type_index == kTVMFFIOpaquePtr) return ((raw_visit_fn)hook->v_ptr)(vis, *v);
  TVMFFIAny args[2], res;
  args[0] = *v;
  tvmffi__any_set_obj(&args[1], &vis->header); /* a view: no reference is added */
  tvmffi__any_set_none(&res);
  if (tvmffi__function_call(hook->v_obj, args, 2, &res) != 0) return tvmffi__raw_raised();
  return visit_result(&res);
}

typedef struct {
  visitor* vis;
  int32_t inner_region;
  TVMFFIAny result; /* the interrupt or error that stopped the fields */
} field_walk;

static int walk_field(void* ctx, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  field_walk* fw = (field_walk*)ctx;
  visitor* vis = fw->vis;
  int32_t saved = vis->def_region;
  vis->def_region = tvmffi__field_def_region(f->flags, fw->inner_region);
  fw->result = vis->vtable->visit(vis, tvmffi__ext_peek(v));
  vis->def_region = saved;
  return fw->result.type_index != kTVMFFINone; /* non-zero stops the field loop */
}

/* The `__s_visit__` hooks of the containers (elements; map values, not keys), so
 * that engines built with upstream's headers, which descend through hooks and
 * reflected fields only, walk them too. */
static TVMFFIAny seq_visit(visitor* vis, TVMFFIAny v) {
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(v.v_obj);
  for (int64_t i = 0; i < s->size; ++i) {
    TVMFFIAny r = vis->vtable->visit(vis, ((TVMFFIAny*)s->data)[i]);
    if (r.type_index != kTVMFFINone) return r;
  }
  return none_result();
}

static TVMFFIAny map_visit(visitor* vis, TVMFFIAny v) {
  TVMFFIMapCell* m = TVMFFIMapGetCellPtr(v.v_obj);
  for (uint64_t p = TVMFFIMapCellIterBegin(m); p != TVMFFI_MAP_ITER_END;
       p = TVMFFIMapCellIterNext(m, p)) {
    TVMFFIAny r = vis->vtable->visit(vis, *TVMFFIMapCellValue(m, p));
    if (r.type_index != kTVMFFINone) return r;
  }
  return none_result();
}

/* The children of v, each through the visitor's vtable: a `__s_visit__` hook
 * (the containers' included), else the reflected fields. */
static TVMFFIAny default_visit(visitor* vis, TVMFFIAny view) {
  TVMFFIAny v = tvmffi__ext_peek(&view);
  if (v.type_index < kTVMFFIStaticObjectBegin) return none_result();
  TVMFFIObject* obj = v.v_obj;
  int32_t t = obj->type_index;
  const TVMFFIAny* hook = custom_visit_hook(t);
  if (hook != NULL) return call_visit_hook(vis, hook, &v);
  if (t < kTVMFFIDynObjectBegin && t != kTVMFFIVisitInterrupt) return none_result();
  field_walk fw = {vis, tvmffi__fields_def_region(vis->def_region, t), none_result()};
  int rc = tvmffi__ext_visit_fields(obj, kTVMFFIFieldFlagBitMaskSEqHashIgnore, walk_field, &fw);
  if (rc < 0) return tvmffi__raw_raised(); /* a getter failed */
  return fw.result;
}

/* ---- the walk engine (ffi.StructuralWalk / ffi.StructuralVisit) ---------------- */

static int entry_matches(const entry* e, const TVMFFIAny* v) {
  return tvmffi__structural_type_match(v->type_index, e->type_index);
}

/* Calls the first matching callback.  0 advance, WALK_SKIP, 2 stopped (*out holds
 * the interrupt or error). */
static int call_callback(walk_visitor* w, const TVMFFIAny* v, TVMFFIAny* out) {
  for (int64_t i = 0; i < w->num_entries; ++i) {
    const entry* e = &w->entries[i];
    if (!entry_matches(e, v)) continue;
    TVMFFIAny args[2], res;
    args[0] = *v;
    if (w->callback_owned)
      tvmffi__any_set_obj(&args[1], &w->base.header); /* a view: no reference is added */
    else
      tvmffi__any_set_int(&args[1], w->base.def_region);
    tvmffi__any_set_none(&res);
    if (tvmffi__function_call(e->fn, args, e->with_kind || w->callback_owned ? 2 : 1, &res) != 0) {
      *out = tvmffi__raw_raised();
      return 2;
    }
    if (res.type_index == kTVMFFIVisitInterrupt) {
      *out = res;
      return 2;
    }
    int skip =
        (res.type_index == kTVMFFIInt || res.type_index == kTVMFFIBool) && res.v_int64 == WALK_SKIP;
    tvmffi__any_release(&res);
    return skip ? WALK_SKIP : 0;
  }
  return 0;
}

static TVMFFIAny walk_dispatch(walk_visitor* w, const TVMFFIAny* v) {
  TVMFFIAny out = none_result();
  if (w->callback_owned) {
    int matched = 0;
    for (int64_t i = 0; i < w->num_entries && !matched; ++i)
      matched = entry_matches(&w->entries[i], v);
    if (!matched) return default_visit(&w->base, *v);
    call_callback(w, v, &out);
    return out;
  }
  int r = w->post_order ? 0 : call_callback(w, v, &out);
  if (r == 2) return out;
  if (r == 0) {
    out = default_visit(&w->base, *v);
    if (out.type_index != kTVMFFINone) return out;
  }
  if (w->post_order) call_callback(w, v, &out);
  return out;
}

static TVMFFIAny walk_visit(visitor* vis, TVMFFIAny view) {
  walk_visitor* w = (walk_visitor*)vis;
  TVMFFIAny v = tvmffi__ext_peek(&view);
  if (v.type_index == kTVMFFINone) return none_result(); /* absent values are not visited */
  if (w->depth >= WALK_MAX_DEPTH) {
    tvmffi__raise("RuntimeError",
                  "ffi.StructuralWalk: maximum recursion depth %d exceeded (cyclic structure?)",
                  WALK_MAX_DEPTH);
    return tvmffi__raw_raised();
  }
  /* (strings and bytes are leaves: visited wherever they occur) */
  int memo = v.type_index >= kTVMFFIStaticObjectBegin && v.type_index != kTVMFFIStr &&
             v.type_index != kTVMFFIBytes && tvmffi__ext_shared(v.v_obj) &&
             tvmffi__memo_enter(&w->visited);
  const void* where = (const void*)(uintptr_t)((uint64_t)(uint32_t)vis->def_region + 1);
  uint64_t seen;
  if (memo && tvmffi__memo_get(&w->visited, v.v_obj, where, &seen)) return none_result();
  w->depth++;
  TVMFFIAny r = walk_dispatch(w, &v);
  w->depth--;
  if (memo && r.type_index == kTVMFFINone) tvmffi__memo_put(&w->visited, v.v_obj, where, 1);
  return r;
}

static const visitor_vtable g_walk_vtable = {walk_visit};

/* ---- globals ------------------------------------------------------------------ */

#define SIG_WALK                                                               \
  "ffi.StructuralWalk(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function>>, 2: " \
  "ffi.Array<ffi.Tuple<int, ffi.Function>>, 3: int) -> Optional<ffi.VisitInterrupt>"

/* Appends the (type_index, Function) pairs of argument i to entries. */
static int parse_entries(const TVMFFIAny* args, int32_t i, int with_kind, entry* out, int64_t* n) {
  TVMFFIAny a = tvmffi__ext_peek(&args[i]);
  if (a.type_index == kTVMFFINone) return 0;
  if (a.type_index != kTVMFFIArray && a.type_index != kTVMFFIList)
    return tvmffi__raise("TypeError",
                         "%s: argument #%d must be an Array of (type_index, Function) pairs, "
                         "got `%s`",
                         SIG_WALK, (int)i, tvmffi__any_type_key(&a));
  TVMFFISeqCell* s = TVMFFISeqGetCellPtr(a.v_obj);
  for (int64_t k = 0; k < s->size; ++k) {
    const TVMFFIAny* item = &((TVMFFIAny*)s->data)[k];
    TVMFFISeqCell* pair = NULL;
    if (item->type_index == kTVMFFIArray || item->type_index == kTVMFFIList)
      pair = TVMFFISeqGetCellPtr(item->v_obj);
    const TVMFFIAny* pv = pair ? (const TVMFFIAny*)pair->data : NULL;
    if (pair == NULL || pair->size != 2 || pv[0].type_index != kTVMFFIInt ||
        pv[1].type_index != kTVMFFIFunction)
      return tvmffi__raise("TypeError",
                           "%s: entry %lld of argument #%d must be a (type_index: int, "
                           "callback: Function) pair",
                           SIG_WALK, (long long)k, (int)i);
    out[*n].type_index = (int32_t)pv[0].v_int64;
    out[*n].with_kind = with_kind;
    out[*n].fn = pv[1].v_obj;
    ++*n;
  }
  return 0;
}

static int64_t entry_count(const TVMFFIAny* v) {
  TVMFFIAny a = tvmffi__ext_peek(v);
  if (a.type_index == kTVMFFIArray || a.type_index == kTVMFFIList)
    return TVMFFISeqGetCellPtr(a.v_obj)->size;
  return 0;
}

/* Runs a walk over args[0] with the entries of args[1] (and, for StructuralWalk, args[2]). */
static int run_walk(const TVMFFIAny* args, int callback_owned, int post_order, TVMFFIAny* result) {
  int64_t total = entry_count(&args[1]) + (callback_owned ? 0 : entry_count(&args[2]));
  walk_visitor* w = (walk_visitor*)tvmffi__object_alloc(sizeof(walk_visitor), g_visitor_index,
                                                        tvmffi__object_deleter_plain);
  if (w == NULL) return -1;
  w->base.vtable = &g_walk_vtable;
  w->base.def_region = kTVMFFIDefRegionKindNone;
  w->post_order = post_order;
  w->callback_owned = callback_owned;
  w->visited.hold = TVMFFI__MEMO_HOLD_A;
  w->entries = (entry*)malloc((size_t)(total ? total : 1) * sizeof(entry));
  int rc = w->entries == NULL ? tvmffi__raise_oom() : 0;
  if (rc == 0) rc = parse_entries(args, 1, 0, w->entries, &w->num_entries);
  if (rc == 0 && !callback_owned) rc = parse_entries(args, 2, 1, w->entries, &w->num_entries);
  TVMFFIAny r = none_result();
  if (rc == 0) {
    w->active = 1;
    r = walk_visit(&w->base, args[0]);
    w->active = 0;
  }
  free(w->entries);
  w->entries = NULL;
  w->num_entries = 0;
  tvmffi__memo_free(&w->visited);
  tvmffi__decref(&w->base.header);
  if (rc != 0) return -1;
  if (r.type_index == kTVMFFIError) return tvmffi__raw_reraise(&r);
  *result = r; /* None unless interrupted */
  return 0;
}

static int g_walk(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  int64_t order;
  if (tvmffi__args_count(SIG_WALK, n, 4) != 0 || tvmffi__arg_int(SIG_WALK, args, 3, &order) != 0)
    return -1;
  if (order != 0 && order != 1)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralWalk: order must be 0 (pre-order) or 1 (post-order), got "
                         "%lld",
                         (long long)order);
  return run_walk(args, 0, (int)order, result);
}

#define SIG_SVISIT                                                              \
  "ffi.StructuralVisit(0: Any, 1: ffi.Array<ffi.Tuple<int, ffi.Function>>) -> " \
  "Optional<ffi.VisitInterrupt>"

static int g_visit(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count(SIG_SVISIT, n, 2) != 0) return -1;
  return run_walk(args, 1, 0, result);
}

static int g_interrupt(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  if (tvmffi__args_count("ffi.VisitInterrupt(0: Any) -> ffi.VisitInterrupt", n, 1) != 0) return -1;
  return interrupt_new(&args[0], result);
}

/* Any visitor (the walk engine's or a C++ engine's); the walk engine's only while
 * its walk runs. */
static int visitor_arg(const char* sig, const TVMFFIAny* args, visitor** out) {
  TVMFFIObject* v;
  if (tvmffi__arg_obj(sig, args, 0, g_visitor_index, &v) != 0) return -1;
  *out = (visitor*)v;
  if ((*out)->vtable == NULL || ((*out)->vtable == &g_walk_vtable && !((walk_visitor*)v)->active))
    return tvmffi__raise("RuntimeError",
                         "%s: the visitor is no longer active (its walk has finished)", sig);
  return 0;
}

#define SIG_VISIT                                                    \
  "ffi.StructuralVisitorVisit(0: ffi.StructuralVisitor, 1: Any) -> " \
  "Optional<ffi.VisitInterrupt>"
#define SIG_KIND "ffi.StructuralVisitorDefRegionKind(0: ffi.StructuralVisitor) -> int"
#define SIG_WITH                                                              \
  "ffi.StructuralVisitorWithDefRegionKind(0: ffi.StructuralVisitor, 1: int, " \
  "2: ffi.Function) -> Any"

/* A raw visit result handed to a caller: None or the interrupt; an error is raised. */
static int hand_result(TVMFFIAny r, TVMFFIAny* result) {
  if (r.type_index == kTVMFFIError) return tvmffi__raw_reraise(&r);
  *result = r;
  return 0;
}

static int g_visitor_visit(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  visitor* vis;
  if (tvmffi__args_count(SIG_VISIT, n, 2) != 0 || visitor_arg(SIG_VISIT, args, &vis) != 0)
    return -1;
  return hand_result(vis->vtable->visit(vis, args[1]), result);
}

#define SIG_DEFAULT                                                         \
  "ffi.StructuralVisitorDefaultVisit(0: ffi.StructuralVisitor, 1: Any) -> " \
  "Optional<ffi.VisitInterrupt>"

/* The registered/default descent of a value: its children re-enter the walk. */
static int g_visitor_default(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  visitor* vis;
  if (tvmffi__args_count(SIG_DEFAULT, n, 2) != 0 || visitor_arg(SIG_DEFAULT, args, &vis) != 0)
    return -1;
  return hand_result(default_visit(vis, args[1]), result);
}

static int g_visitor_kind(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  visitor* vis;
  if (tvmffi__args_count(SIG_KIND, n, 1) != 0 || visitor_arg(SIG_KIND, args, &vis) != 0) return -1;
  tvmffi__any_set_int(result, vis->def_region);
  return 0;
}

static int g_visitor_with(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  visitor* vis;
  int64_t kind;
  TVMFFIObject* fn;
  if (tvmffi__args_count(SIG_WITH, n, 3) != 0 || visitor_arg(SIG_WITH, args, &vis) != 0 ||
      tvmffi__arg_int(SIG_WITH, args, 1, &kind) != 0 ||
      tvmffi__arg_obj(SIG_WITH, args, 2, kTVMFFIFunction, &fn) != 0)
    return -1;
  if (kind < kTVMFFIDefRegionKindNone || kind > kTVMFFIDefRegionKindNonRecursive)
    return tvmffi__raise("ValueError",
                         "ffi.StructuralVisitorWithDefRegionKind: kind must be 0 (none), 1 "
                         "(recursive) or 2 (non-recursive), got %lld",
                         (long long)kind);
  int32_t saved = vis->def_region;
  /* inside a pattern region the pattern propagates: the kind asked for is ignored */
  if (saved != kTVMFFIDefRegionKindRecursive) vis->def_region = (int32_t)kind;
  int rc = tvmffi__function_call(fn, NULL, 0, result);
  vis->def_region = saved;
  return rc;
}

/* The shared descent as a raw entry point, for header-only C++ engines. */
static int g_default_entry(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  (void)h;
  (void)args;
  if (tvmffi__args_count("ffi.StructuralVisitDefaultEntry() -> void*", n, 0) != 0) return -1;
  result->type_index = kTVMFFIOpaquePtr;
  result->zero_padding = 0;
  result->v_ptr = (void*)default_visit;
  return 0;
}

void tvmffi__structural_visit_globals_init(void) {
  int32_t vi = tvmffi__structural_new_type(
      "ffi.VisitInterrupt", kTVMFFIVisitInterrupt, (int32_t)sizeof(visit_interrupt),
      kTVMFFISEqHashKindTreeNode, "Stops a structural visit, carrying a value.");
  tvmffi__structural_add_field(vi, "value", "Payload returned to the caller of the walk.",
                               offsetof(visit_interrupt, value), 16, tvmffi__getter_any,
                               kTVMFFIAny);
  tvmffi__structural_add_method(vi, "__ffi_init__", "Wraps a payload.", 1, g_interrupt);
  tvmffi__structural_add_attr_fn(vi, "__ffi_init__", g_interrupt);
  tvmffi__structural_ensure_column("__s_visit__");
  tvmffi__structural_add_raw_hook(kTVMFFIArray, "__s_visit__", (void*)seq_visit);
  tvmffi__structural_add_raw_hook(kTVMFFIList, "__s_visit__", (void*)seq_visit);
  tvmffi__structural_add_raw_hook(kTVMFFIMap, "__s_visit__", (void*)map_visit);
  tvmffi__structural_add_raw_hook(kTVMFFIDict, "__s_visit__", (void*)map_visit);
  g_visitor_index = tvmffi__structural_new_type(
      "ffi.StructuralVisitor", -1, (int32_t)sizeof(visitor), kTVMFFISEqHashKindUniqueInstance,
      "State of a running structural walk.");

  tvmffi__register_global("ffi.VisitInterrupt", g_interrupt, "Makes a VisitInterrupt.",
                          SCHEMA_FN("ffi.VisitInterrupt", ARG("Any")));
  tvmffi__register_global("ffi.StructuralWalk", g_walk,
                          "Walks a value, calling typed callbacks (pre- or post-order).",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("Any") ARG("ffi.Array")
                              ARG("ffi.Array") ARG("int") "]}");
  tvmffi__register_global("ffi.StructuralVisit", g_visit,
                          "Visits a value with callbacks that own their descent.",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("Any") ARG("ffi.Array") "]}");
  tvmffi__register_global("ffi.StructuralVisitorDefaultVisit", g_visitor_default,
                          "Visits a value's children (its default descent).",
                          "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
                          "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("ffi.StructuralVisitor")
                              ARG("Any") "]}");
  tvmffi__register_global("ffi.StructuralVisitDefaultEntry", g_default_entry,
                          "The shared descent as a raw entry point "
                          "(TVMFFIAny (*)(visitor, value), for C++ engines).",
                          SCHEMA_FN("void*", ""));
  tvmffi__register_global(
      "ffi.StructuralVisitorVisit", g_visitor_visit, "Visits a value with the walk's callbacks.",
      "{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"Optional\",\"args\":"
      "[{\"type\":\"ffi.VisitInterrupt\"}]}" ARG("ffi.StructuralVisitor") ARG("Any") "]}");
  tvmffi__register_global("ffi.StructuralVisitorDefRegionKind", g_visitor_kind,
                          "Def-region kind in effect (0 none, 1 recursive, 2 non-recursive).",
                          SCHEMA_FN("int", ARG("ffi.StructuralVisitor")));
  tvmffi__register_global(
      "ffi.StructuralVisitorWithDefRegionKind", g_visitor_with,
      "Calls callback() with the def-region kind set.",
      SCHEMA_FN("Any", ARG("ffi.StructuralVisitor") ARG("int") ARG("ffi.Function")));
}
